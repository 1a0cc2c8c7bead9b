/**
 * Every citation of a LaTeX draft in the shape of the Markdown ones
 * (DraftCitation), for the citation check (issue 25). Each paragraph is
 * projected to plain text as the reader sees it, with every character's place
 * in the source (projector.ts: citation commands as their Pandoc equivalents).
 * The Markdown reader then finds the quotation each citation backs and its
 * locator: one set of rules for both formats. Comments, math, verbatim, the
 * preamble and `thebibliography` are not read. A post-note of several keys
 * (`\cite[12]{a,b}`) is the last key's, as it is printed. Pure: no I/O.
 */
import { citationsOf, type DraftCitation } from '../citecheck/draftCitations';
import { parseLocator } from '../citecheck/locator';
import { lineOf, lineStarts } from '../../shared/lines';
import { type KeyPlace, noteText, Projector } from './projector';
import { checkLatexSize } from './units';

export interface LatexCitation extends DraftCitation {
  /** The command's name ("autocite") and its offsets in the source (end exclusive). */
  command: string;
  start: number;
  end: number;
  /** Offsets of the key in the source. */
  keyStart: number;
  keyEnd: number;
  /** The key's notes as written (`p.~12`); a multicite's global notes are not a key's. */
  prenote?: string;
  postnote?: string;
}

/** The body of a LaTeX file: what `\begin{document}` … `\end{document}` holds, or the whole of a chapter file. */
export function latexBody(source: string): { start: number; end: number } {
  const begin = /\\begin\s*\{document\}/.exec(source);
  if (!begin) return { start: 0, end: source.length };
  const start = begin.index + begin[0].length;
  const end = source.indexOf('\\end{document}', start);
  return { start, end: end < 0 ? source.length : end };
}

/** Every citation of a LaTeX file, in the order of the source; `file` is set on each when given. */
export function findLatexCitations(source: string, opts: { file?: string } = {}): LatexCitation[] {
  checkLatexSize(source, opts.file);
  if (source.charCodeAt(0) === 0xfeff) source = ' ' + source.slice(1);
  const p = new Projector(source);
  const { start, end } = latexBody(source);
  p.walk(start, end);
  p.flush();
  const starts = lineStarts(source);
  const found: DraftCitation[] = [];
  for (const para of p.paras) if (para.text.includes('@')) citationsOf(para, found);
  const out: LatexCitation[] = [];
  const seen = new Set<number>();
  const place = (k: KeyPlace, c: Omit<DraftCitation, 'key' | 'line' | 'column' | 'endColumn'>) => {
    const line = lineOf(starts, k.key.start) - 1;
    const column = k.key.start - starts[line] + 1;
    // Built field by field (not spread): tens of thousands of them from a long draft.
    const cite = c as LatexCitation;
    cite.key = k.key.key;
    if (opts.file !== undefined) cite.file = opts.file;
    cite.line = line + 1;
    cite.column = column;
    cite.endColumn = column + k.key.key.length;
    cite.command = k.cite.command;
    cite.start = k.cite.start;
    cite.end = k.cite.end;
    cite.keyStart = k.key.start;
    cite.keyEnd = k.key.end;
    if (k.item.prenote !== undefined) cite.prenote = k.item.prenote;
    if (k.item.postnote !== undefined) cite.postnote = k.item.postnote;
    out.push(cite);
    seen.add(k.key.start - 1);
  };
  for (const c of found) {
    const offset = starts[c.line - 1] + c.column - 1;
    const k = p.keys.get(offset);
    if (!k || seen.has(offset)) continue;
    const { key: _key, line: _line, column: _column, endColumn: _end, ...rest } = c;
    place(k, rest);
  }
  // A key the Markdown reader does not take for one (`sec-2`, a key ending in a full stop): still a citation, without a quotation.
  for (const [offset, k] of p.keys) {
    if (seen.has(offset)) continue;
    place(k, { locator: k.last && k.item.postnote ? parseLocator(noteText(k.item.postnote)) : null, quote: null });
  }
  return out.sort((a, b) => a.keyStart - b.keyStart);
}
