/**
 * The Quick Fixes of a checked citation (issue 21), as plain edits: change the
 * locator to the page the quotation is on (or, for a citation without one, to
 * the page the page hint names), replace the quotation with the source's words,
 * use the closest key. Pure, so the host only turns each into
 * one undoable WorkspaceEdit; positions are 0-based.
 */

/** What a fix needs of a checked citation (the engine's CheckedCitation has all of it). */
export interface FixableCitation {
  status: string;
  key: string;
  /** 1-based line and column of the key's `@`; endColumn just after the key. */
  line: number;
  column: number;
  endColumn: number;
  locator: string | null;
  foundPage: string | null;
  quote: string | null;
  quoteRange?: { line: number; column: number; endLine: number; endColumn: number } | null;
  sourceText: string | null;
  suggestions: string[];
  /** An `ok` citation's page hint: another page matches its sentence better. */
  hint?: { page: string } | null;
}

export interface CitationFix {
  kind: 'locator' | 'quotation' | 'key';
  /** What the fix's title names: the new locator ("p. 215"), or the key. */
  label: string;
  /** 0-based range replaced. */
  start: { line: number; character: number };
  end: { line: number; character: number };
  text: string;
}

/** "p. 215", or "pp. 214–215" for a quotation over two pages. */
export function pageLocator(label: string): string {
  return label.includes('–') ? `pp. ${label}` : `p. ${label}`;
}

/** Plain text as LaTeX source: its special characters escaped. */
export function latexText(text: string): string {
  return text.replace(/[\\{}&%$#_~^]/g, (ch) =>
    ch === '\\' ? '\\textbackslash{}' : ch === '~' ? '\\textasciitilde{}' : ch === '^' ? '\\textasciicircum{}' : '\\' + ch,
  );
}

/** "p.~215", "pp.~214--215": a locator as LaTeX writes it; bare ("215") where the post-note was bare (biblatex adds "p."). */
export function latexPageLocator(label: string, bare: boolean): string {
  const pages = label.replace(/\s*[–—]\s*/, '--');
  return bare ? pages : `${label.includes('–') ? 'pp.' : 'p.'}~${pages}`;
}

/**
 * A LaTeX citation's post-note that is a page locator and nothing else (`[p.~214]`, `[214]`), for the
 * key at 0-based `keyStart`: the `[…]` right before the key list's `{`. Undefined for any other note.
 */
function latexPostnote(lineText: string, keyStart: number): { start: number; end: number; bare: boolean } | undefined {
  const brace = lineText.lastIndexOf('{', keyStart);
  let close = brace - 1;
  while (close >= 0 && lineText[close] === ' ') close--;
  if (brace < 0 || lineText[close] !== ']') return undefined;
  const open = lineText.lastIndexOf('[', close);
  if (open < 0) return undefined;
  const note = lineText.slice(open + 1, close);
  const m = /^\s*(pp?\.\s*(?:~|\\,|\s)?\s*)?[\p{L}\p{N}]+(?:\s*-{1,2}\s*[\p{L}\p{N}]+)?\s*$/u.exec(note);
  return m ? { start: open + 1, end: close, bare: !m[1] } : undefined;
}

/** The fixes of `c`, given the text of its line; `format`: how the draft writes citations (a LaTeX key's column is its first character, not an `@`). */
export function citationFixes(c: FixableCitation, lineText: string, format: 'markdown' | 'latex' = 'markdown'): CitationFix[] {
  const out: CitationFix[] = [];
  const l = c.line - 1;
  const page = c.status === 'wrong-page' ? c.foundPage : c.status === 'ok' ? c.hint?.page : undefined;
  const keyStart = format === 'latex' ? c.column - 1 : c.column;
  if (page && c.locator && format === 'latex') {
    const note = latexPostnote(lineText, keyStart);
    if (note) {
      const text = latexPageLocator(page, note.bare);
      out.push({ kind: 'locator', label: pageLocator(page), start: { line: l, character: note.start }, end: { line: l, character: note.end }, text });
    }
  } else if (page && c.locator) {
    const at = lineText.indexOf(c.locator, c.endColumn - 1);
    if (at >= 0) {
      const text = pageLocator(page);
      out.push({ kind: 'locator', label: text, start: { line: l, character: at }, end: { line: l, character: at + c.locator.length }, text });
    }
  }
  // A quotation with elisions or insertions is not replaced wholesale: the writer chose what to leave out.
  if (c.status === 'quote-differs' && c.sourceText && c.quote && c.quoteRange && !/\[|\.\.\.|…/.test(c.quote)) {
    const r = c.quoteRange;
    // In LaTeX the source's words are escaped: a `%` or `&` from a PDF must not become markup.
    const text = format === 'latex' ? latexText(c.sourceText) : c.sourceText;
    out.push({
      kind: 'quotation',
      label: c.sourceText,
      start: { line: r.line - 1, character: r.column - 1 },
      end: { line: r.endLine - 1, character: r.endColumn - 1 },
      text,
    });
  }
  if (c.status === 'unknown-key') {
    for (const k of c.suggestions)
      out.push({ kind: 'key', label: k, start: { line: l, character: keyStart }, end: { line: l, character: c.endColumn - 1 }, text: k });
  }
  return out;
}
