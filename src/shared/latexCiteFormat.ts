/**
 * A LaTeX draft's citation style, and citations written and merged in it (for the editor's Insert
 * citation): `\autocite[p.~214]{key}` with biblatex, `\citep[…]` with natbib, `\cite[…]` otherwise,
 * the page a snippet tab stop, and a new key joined to the adjacent command as each package allows.
 * Apart from latexCite.ts, which reads cite commands: this writes them.
 */
import { MULTI_OF, parseCiteAt, type LatexCite, type LatexCiteStyle } from './latexCite';

/** The preamble's citation package: biblatex, natbib, or neither (plain `\cite`). */
export function latexCiteStyle(source: string): LatexCiteStyle {
  const preamble = source.split(/\\begin\s*\{document\}/)[0].replace(/(^|[^\\])%.*$/gm, '$1');
  if (/\\usepackage\s*(\[[^\]]*\])?\s*\{[^}]*\bbiblatex\b/.test(preamble)) return 'biblatex';
  if (/\\usepackage\s*(\[[^\]]*\])?\s*\{[^}]*\bnatbib\b/.test(preamble)) return 'natbib';
  return 'plain';
}

const STYLE_COMMAND: Record<LatexCiteStyle, string> = { biblatex: 'autocite', natbib: 'citep', plain: 'cite' };

/** Escapes text for a VS Code snippet: `$`, `}` and `\` are literal. */
function snippetText(s: string): string {
  return s.replace(/[$}\\]/g, (c) => '\\' + c);
}

/** A page label as LaTeX writes it: "214–216" → "214--216". */
function texPages(page: string): { pages: string; range: boolean } {
  const range = /^\s*\S+\s*[–—-]+\s*\S+\s*$/.test(page);
  return { pages: page.trim().replace(/\s*[–—-]+\s*/, '--'), range };
}

export interface LatexFormatOptions {
  /** Snippet text, the page a tab stop (default); false: plain text. */
  snippet?: boolean;
  /** Another command than the style's (`\textcite`, `\footcite`). */
  command?: string;
}

/** A post-note with a page: "p.~214", "pp.~214--216"; `bare` for biblatex's multicite items ("214", biblatex adds "p."). */
function pageNote(page: string, snippet: boolean, bare = false): string {
  const { pages, range } = texPages(page);
  const stop = snippet ? `\${1:${snippetText(pages)}}` : pages;
  return bare ? stop : `${range ? 'pp.' : 'p.'}~${stop}`;
}

/**
 * A citation in the style's command: `\autocite[p.~${1:214}]{key}` (biblatex),
 * `\citep[p.~${1:214}]{key}` (natbib), `\cite[p.~${1:214}]{key}` (plain); without a page, `\autocite{key}`.
 * As a snippet the page is the first tab stop; a range is written `pp.~214--216`.
 */
export function formatLatexCitation(style: LatexCiteStyle, key: string, page?: string, opts: LatexFormatOptions = {}): string {
  const snippet = opts.snippet ?? true;
  const esc = snippet ? snippetText : (s: string) => s;
  const command = opts.command ?? STYLE_COMMAND[style];
  const note = page && page.trim() ? `[${pageNote(page, snippet)}]` : '';
  return `${esc('\\' + command)}${note}{${esc(key)}${snippet ? '\\}' : '}'}`;
}

export interface LatexMerge {
  /** What replaces the existing command (snippet text unless `snippet: false`). */
  text: string;
  /**
   * How it was merged: `keys`, the key added to the key list (`\cite{a,b}`: no locator on either side);
   * `multicite`, biblatex's multicite with each key's own notes (`\autocites[3]{a}[214]{b}`);
   * `alongside`, locators that one command cannot hold: natbib's `\citep` becomes
   * `(\citealp[p.~3]{a}; \citealp[p.~214]{b})`, any other command is followed by a command of its own.
   */
  how: 'keys' | 'multicite' | 'alongside';
}

/** The notes of an item as written: `[post]`, `[pre][post]`, `[pre][]`. */
function notesOf(x: { prenote?: string; postnote?: string }): string {
  if (x.prenote !== undefined) return `[${x.prenote}][${x.postnote ?? ''}]`;
  return x.postnote !== undefined ? `[${x.postnote}]` : '';
}

const hasNotes = (x: { prenote?: string; postnote?: string }) => !!(x.prenote?.trim() || x.postnote?.trim());

/**
 * Merges a citation of `key` (at `page`, if any) into an existing citation command (its whole text, as
 * `adjacentLatexCite` finds it): see LatexMerge for what is done in each style. Undefined when `existing`
 * is not one citation command.
 */
export function mergeLatexCitation(
  existing: string,
  key: string,
  page: string | undefined,
  style: LatexCiteStyle,
  opts: { snippet?: boolean } = {},
): LatexMerge | undefined {
  const snippet = opts.snippet ?? true;
  const esc = snippet ? snippetText : (s: string) => s;
  const trimmed = existing.trim();
  const cite = parseCiteAt(trimmed, 0);
  if (!cite || !cite.closed || cite.end !== trimmed.length) return undefined;
  const withPage = !!page?.trim();
  const keyArg = `{${esc(key)}${snippet ? '\\}' : '}'}`;
  const noteFree = !withPage && !hasNotes(cite) && cite.items.every((x) => !hasNotes(x));
  if (noteFree && (!cite.multi || cite.items.length === 1)) {
    // No locator anywhere: one key list (`\cite{a,b}`, `\autocites{a,b}`).
    const last = cite.items[cite.items.length - 1];
    const sep = last.keys.length ? ',' : '';
    return { text: esc(trimmed.slice(0, last.argEnd - 1)) + sep + esc(key) + esc(trimmed.slice(last.argEnd - 1)), how: 'keys' };
  }
  if (style === 'biblatex') {
    const multi = cite.multi ? cite.command : cite.star ? undefined : MULTI_OF[cite.command];
    if (multi) {
      // The new page as the command's post-notes write theirs: "p.~3" → "p.~214", "3" (biblatex adds "p.") → "214".
      const notes = [cite.postnote, ...cite.items.map((x) => x.postnote)].filter((x): x is string => !!x?.trim());
      const bare = !notes.some((n) => /^\s*pp?\.\s*(~|\\,|\s)/.test(n));
      const added = (withPage ? `[${pageNote(page!, snippet, bare)}]` : '') + keyArg;
      if (cite.multi) return { text: esc(trimmed) + added, how: 'multicite' };
      const item = cite.items[0];
      const head = `\\${multi}${notesOf(item)}{${item.keys.map((k) => k.key).join(',')}}`;
      return { text: esc(head) + added, how: 'multicite' };
    }
  }
  const newNote = withPage ? `[${pageNote(page!, snippet)}]` : '';
  if (style === 'natbib' && cite.command === 'citep' && !cite.star) {
    const item = cite.items[0];
    const old = `\\citealp${notesOf(item)}{${item.keys.map((k) => k.key).join(',')}}`;
    return { text: `(${esc(old)}; ${esc('\\citealp')}${newNote}${keyArg})`, how: 'alongside' };
  }
  return { text: `${esc(trimmed)}${esc('\\' + cite.command)}${newNote}${keyArg}`, how: 'alongside' };
}
