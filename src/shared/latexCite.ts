/**
 * LaTeX citation commands read and written without the LaTeX parser (issue 25):
 * `\autocite[see][p.~12]{a,b}`, `\cites(pre)(post)[12]{a}[14]{b}`, natbib's
 * `\citep`/`\citet`, with the offset of every key. Hand-read rather than
 * parsed with @unified-latex because the editor asks about text being typed
 * (`\cite{Bra` has no closing brace yet) and needs each key's exact offsets;
 * comments, verbatim and math are skipped as TeX would. Also the writing side:
 * a citation in the project's style (biblatex, natbib, plain) as snippet text,
 * and the merge of a new citation into an adjacent command. Pure: no I/O.
 */

export type LatexCiteStyle = 'biblatex' | 'natbib' | 'plain';

/** Commands with one key list: biblatex's and natbib's (starred and capitalised forms included). */
// prettier-ignore
export const LATEX_CITE_COMMANDS: ReadonlySet<string> = new Set([
  'cite', 'Cite', 'parencite', 'Parencite', 'footcite', 'footcitetext', 'textcite', 'Textcite', 'smartcite', 'Smartcite',
  'autocite', 'Autocite', 'supercite', 'fullcite', 'footfullcite', 'citeauthor', 'Citeauthor', 'citetitle', 'Citetitle',
  'citeyear', 'citedate', 'citeurl', 'nocite', 'volcite', 'Volcite', 'pvolcite', 'Pvolcite', 'fvolcite', 'tvolcite', 'avolcite',
  'citep', 'citet', 'Citep', 'Citet', 'citealp', 'citealt', 'Citealp', 'Citealt', 'citeyearpar', 'citenum',
]);

/**
 * csquotes' quotations with their citation, `\textcquote[pre][post]{key}[punct]{text}` (the foreign and
 * hyphen ones take a language first): read as citation commands, the quoted text after them.
 */
// prettier-ignore
export const LATEX_CQUOTE_COMMANDS: ReadonlySet<string> = new Set([
  'textcquote', 'blockcquote', 'foreigntextcquote', 'foreignblockcquote', 'hyphentextcquote', 'hyphenblockcquote', 'hybridblockcquote',
]);

/** Multicite commands of biblatex: `\cites(pre)(post)[pre][post]{a}[pre][post]{b}…`. */
// prettier-ignore
export const LATEX_MULTICITE_COMMANDS: ReadonlySet<string> = new Set([
  'cites', 'Cites', 'parencites', 'Parencites', 'footcites', 'footcitetexts', 'textcites', 'Textcites', 'smartcites', 'Smartcites',
  'autocites', 'Autocites', 'supercites',
]);

/** The multicite form of a biblatex command, for merging. */
export const MULTI_OF: Record<string, string> = {
  cite: 'cites',
  Cite: 'Cites',
  parencite: 'parencites',
  Parencite: 'Parencites',
  footcite: 'footcites',
  footcitetext: 'footcitetexts',
  textcite: 'textcites',
  Textcite: 'Textcites',
  smartcite: 'smartcites',
  Smartcite: 'Smartcites',
  autocite: 'autocites',
  Autocite: 'Autocites',
  supercite: 'supercites',
};

/** Commands that print no citation in the text (`\nocite`): keys for the bibliography only. */
export const LATEX_SILENT_CITES: ReadonlySet<string> = new Set(['nocite']);

/** Commands that cite in the running text ("Braudel (1949) writes"), as Pandoc's `@key` does. */
export const LATEX_TEXTUAL_CITES: ReadonlySet<string> = new Set([
  'textcite',
  'Textcite',
  'textcites',
  'Textcites',
  'citet',
  'Citet',
  'citealt',
  'Citealt',
  'citeauthor',
  'Citeauthor',
  'citetitle',
  'Citetitle',
  'citeyear',
  'citedate',
  'tvolcite',
  'avolcite',
]);

/** Commands whose citation is a footnote. */
export const LATEX_FOOTNOTE_CITES: ReadonlySet<string> = new Set(['footcite', 'footcitetext', 'footcites', 'footcitetexts', 'footfullcite', 'fvolcite']);

export interface CiteKey {
  key: string;
  /** Offsets of the key in the text (end exclusive). */
  start: number;
  end: number;
}

/** One key list with its notes: the whole of `\cite[…][…]{…}`, one of several in a multicite. */
export interface CiteItem {
  prenote?: string;
  postnote?: string;
  keys: CiteKey[];
  /** Offsets of the key list's `{` and just after its `}` (or where an unclosed list stops). */
  argStart: number;
  argEnd: number;
}

export interface LatexCite {
  /** The command's name without backslash or star: "autocite". */
  command: string;
  star: boolean;
  multi: boolean;
  /** Offsets of the backslash and just after the last argument. */
  start: number;
  end: number;
  /** A multicite's global notes `(pre)(post)`. */
  prenote?: string;
  postnote?: string;
  items: CiteItem[];
  /** False when the last key list is not closed (text being typed). */
  closed: boolean;
}

/** Math and verbatim environments: no citation in them. */
// prettier-ignore
const OPAQUE_ENVS = new Set([
  'verbatim', 'verbatim*', 'Verbatim', 'lstlisting', 'minted', 'comment', 'equation', 'equation*', 'align', 'align*', 'gather', 'gather*',
  'multline', 'multline*', 'eqnarray', 'eqnarray*', 'displaymath', 'math', 'flalign', 'flalign*', 'alignat', 'alignat*', 'tikzpicture',
]);

/**
 * Where a region TeX does not read as text ends, when one starts at `i`: a comment (`%` to the line's
 * end), `\verb|…|`, math (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`) or a math/verbatim environment; -1 when none does.
 */
export function skipOpaque(text: string, i: number): number {
  const c = text[i];
  if (c === '%') {
    const nl = text.indexOf('\n', i);
    return nl < 0 ? text.length : nl + 1;
  }
  if (c === '$') {
    if (text[i + 1] === '$') return mathEnd(text, i + 2, '$$');
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '$') return j + 1;
      else if (text[j] === '\n' && /^\n[ \t]*\n/.test(text.slice(j, j + 40))) return j; // a paragraph ends an unclosed $
    }
    return text.length;
  }
  if (c !== '\\') return -1;
  const n = text[i + 1];
  if (n === '(' || n === '[') return mathEnd(text, i + 2, n === '(' ? '\\)' : '\\]');
  const verb = /^\\verb\*?([^a-zA-Z\s*])/.exec(text.slice(i, i + 8));
  if (verb) {
    // To its delimiter, on its line (an unclosed one ends there, as TeX says).
    let j = i + verb[0].length;
    while (j < text.length && text[j] !== verb[1] && text[j] !== '\n') j++;
    return text[j] === verb[1] ? j + 1 : j;
  }
  if (text.startsWith('\\begin', i)) {
    const m = /^\\begin\s*\{([^{}]+)\}/.exec(text.slice(i, i + 60));
    if (m && OPAQUE_ENVS.has(m[1])) {
      const endTag = `\\end{${m[1]}}`;
      const e = text.indexOf(endTag, i + m[0].length);
      return e < 0 ? text.length : e + endTag.length;
    }
  }
  return -1;
}

/** After the close of math opened before `from`; a paragraph ends math left open (TeX stops it there), the text's end the last. */
function mathEnd(text: string, from: number, close: string): number {
  const e = text.indexOf(close, from);
  const limit = e < 0 ? text.length : e;
  for (let j = text.indexOf('\n', from); j >= 0 && j < limit; j = text.indexOf('\n', j + 1)) if (/^\n[ \t]*\r?\n/.test(text.slice(j, j + 40))) return j;
  return e < 0 ? text.length : e + close.length;
}

/** Spaces and at most one line break (a blank line ends a paragraph, and with it a command's arguments). */
function skipSpace(text: string, i: number): number {
  let breaks = 0;
  while (i < text.length && /\s/.test(text[i])) {
    if (text[i] === '\n' && ++breaks > 1) return -1;
    i++;
  }
  return i;
}

/** How far a note `[…]` or `(…)` is looked for: an unclosed one is not read to the end of a long text for each command. */
const NOTE_REACH = 500;

/**
 * A bracketed argument at `i` (`[…]`, `(…)`, `{…}`), braces nested: its content and the offset after it;
 * undefined when unclosed (a note within NOTE_REACH characters, a group by the paragraph's end or within `reach`).
 */
export function delimited(text: string, i: number, open: string, close: string, reach = Infinity): { content: string; end: number } | undefined {
  if (text[i] !== open) return undefined;
  const stop = Math.min(text.length, i + (open === '{' ? reach : NOTE_REACH));
  let depth = 0;
  // Brackets nested too (`[\cite[12]{a}]`, which LaTeX wants braced): forgiving what is typed.
  let nested = 0;
  for (let j = i + 1; j < stop; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === close && depth <= 0 && nested === 0) return { content: text.slice(i + 1, j), end: j + 1 };
    else if (c === close && depth <= 0) nested--;
    else if (c === open && open !== '{' && depth <= 0) nested++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === '\n' && /^\n[ \t]*\n/.test(text.slice(j, j + 40))) return undefined;
  }
  return undefined;
}

/** A key list `{a, b}` at `i`; an unclosed one runs to where a key cannot go on (text being typed). */
function keyList(text: string, i: number): { keys: CiteKey[]; end: number; closed: boolean } | undefined {
  if (text[i] !== '{') return undefined;
  const keys: CiteKey[] = [];
  let j = i + 1;
  let start = -1;
  const push = (end: number) => {
    if (start >= 0) keys.push({ key: text.slice(start, end), start, end });
    start = -1;
  };
  for (; j < text.length; j++) {
    const c = text[j];
    if (c === '}') {
      push(j);
      return { keys, end: j + 1, closed: true };
    }
    if (c === ',' || /\s/.test(c)) {
      push(j);
      if (c === '\n' && /^\n[ \t]*\n/.test(text.slice(j, j + 40))) break;
      continue;
    }
    if (c === '{' || c === '\\' || c === '%' || c === '[' || c === ']') break;
    if (start < 0) start = j;
  }
  push(j);
  return { keys, end: j, closed: false };
}

/**
 * The citation command whose backslash is at `i`, or undefined when none is there. A command whose
 * last key list is not closed is returned with `closed: false` (and ends where its keys stop).
 */
export function parseCiteAt(text: string, i: number): LatexCite | undefined {
  if (text[i] !== '\\') return undefined;
  const m = /^\\([a-zA-Z]+)(\*?)/.exec(text.slice(i, i + 40));
  if (!m) return undefined;
  const command = m[1];
  const multi = LATEX_MULTICITE_COMMANDS.has(command);
  const cquote = LATEX_CQUOTE_COMMANDS.has(command);
  if (!multi && !cquote && !LATEX_CITE_COMMANDS.has(command)) return undefined;
  const cite: LatexCite = { command, star: m[2] === '*', multi, start: i, end: i + m[0].length, items: [], closed: true };
  let j = cite.end;
  if (cquote && !command.startsWith('text') && !command.startsWith('block')) {
    // The language of `\foreigntextcquote{french}[…]{key}`.
    const at = skipSpace(text, j);
    const lang = at >= 0 ? delimited(text, at, '{', '}', NOTE_REACH) : undefined;
    if (!lang) return undefined;
    j = lang.end;
  }
  if (multi) {
    const globals: string[] = [];
    for (let k = 0; k < 2; k++) {
      const at = skipSpace(text, j);
      const d = at >= 0 ? delimited(text, at, '(', ')') : undefined;
      if (!d) break;
      globals.push(d.content);
      j = d.end;
    }
    if (globals.length === 1) cite.postnote = globals[0];
    if (globals.length === 2) [cite.prenote, cite.postnote] = globals;
  }
  for (;;) {
    const notes: string[] = [];
    let k = j;
    for (let n = 0; n < 2; n++) {
      const at = skipSpace(text, k);
      const d = at >= 0 ? delimited(text, at, '[', ']') : undefined;
      if (!d) break;
      notes.push(d.content);
      k = d.end;
    }
    const at = skipSpace(text, k);
    const list = at >= 0 ? keyList(text, at) : undefined;
    if (!list) break;
    const item: CiteItem = { keys: list.keys, argStart: at, argEnd: list.end };
    if (notes.length === 1) item.postnote = notes[0];
    if (notes.length === 2) [item.prenote, item.postnote] = notes;
    cite.items.push(item);
    j = list.end;
    if (!list.closed) {
      cite.closed = false;
      break;
    }
    if (!multi) break;
  }
  if (!cite.items.length) return undefined;
  cite.end = j;
  return cite;
}

/** Every citation command of a text (or of `from`–`to`), comments, verbatim and math skipped. */
export function scanLatexCites(text: string, from = 0, to = text.length): LatexCite[] {
  const out: LatexCite[] = [];
  scanCommands(text, from, to, (i) => {
    const cite = parseCiteAt(text, i);
    if (!cite) return undefined;
    out.push(cite);
    return cite.end;
  });
  return out;
}

/**
 * Calls `at` with the offset of each command (`\name`) of `from`–`to`, comments, verbatim and
 * math skipped; `at` gives where the command it read ends, or undefined when it is not one it
 * reads (then the character after the backslash is not read again: `\\`, `\%`).
 */
function scanCommands(text: string, from: number, to: number, at: (i: number) => number | undefined): void {
  for (let i = from; i < to; i++) {
    const c = text[i];
    if (c !== '\\' && c !== '%' && c !== '$') continue;
    const skip = skipOpaque(text, i);
    if (skip >= 0) {
      i = skip - 1;
      continue;
    }
    if (c !== '\\') continue;
    const end = at(i);
    if (end !== undefined) i = end - 1;
    else i++;
  }
}

/** Where the paragraph around `offset` starts (after the last blank line before it, at most `reach` back). */
function paragraphStart(text: string, offset: number, reach = 4000): number {
  const from = Math.max(0, offset - reach);
  const before = text.slice(from, offset);
  let start = 0;
  for (const m of before.matchAll(/\n[ \t]*\n/g)) start = (m.index ?? 0) + m[0].length;
  return from + start;
}

/** Where the paragraph around `offset` ends (its blank line), at most `reach` on. */
function paragraphEnd(text: string, offset: number, reach = 4000): number {
  const m = /\n[ \t]*\n/.exec(text.slice(offset, offset + reach));
  return m ? offset + m.index : Math.min(text.length, offset + reach);
}

export interface CiteAtOffset {
  cite: LatexCite;
  item: CiteItem;
  /** Every key of the command (the one being typed included). */
  keys: string[];
  /** The key around the offset: what is typed of it before the offset, and its offsets ("" at `{` or after a comma). */
  partial: { text: string; start: number; end: number };
}

/**
 * Whether `offset` (a cursor) is inside a citation command's key list (`\cite{Bra|`, `\autocite[12]{a, |}`),
 * and which keys and partial key are there; undefined outside one, in a comment, or in math.
 */
export function citeAtOffset(text: string, offset: number): CiteAtOffset | undefined {
  const from = paragraphStart(text, offset);
  const to = paragraphEnd(text, offset);
  for (const cite of scanLatexCites(text, from, to)) {
    if (cite.start >= offset) break;
    for (const item of cite.items) {
      const inside = offset > item.argStart && (offset < item.argEnd || (!cite.closed && item === cite.items[cite.items.length - 1] && offset <= item.argEnd));
      if (!inside) continue;
      const key = item.keys.find((k) => k.start <= offset && offset <= k.end);
      const partial = key ? { text: text.slice(key.start, offset), start: key.start, end: key.end } : { text: '', start: offset, end: offset };
      return { cite, item, keys: cite.items.flatMap((x) => x.keys.map((k) => k.key)), partial };
    }
  }
  return undefined;
}

/**
 * The citation command a new citation at `offset` should join: the one the offset is in, or the one
 * ending right before it (blanks between allowed), or beginning right after it; undefined when none.
 */
export function adjacentLatexCite(text: string, offset: number): LatexCite | undefined {
  const from = paragraphStart(text, offset);
  const to = paragraphEnd(text, offset);
  let before: LatexCite | undefined;
  let after: LatexCite | undefined;
  for (const c of scanLatexCites(text, from, to)) {
    // `\nocite` prints nothing, `\textcquote{key}{text}` holds its quotation: no citation is merged into them.
    if (LATEX_SILENT_CITES.has(c.command) || LATEX_CQUOTE_COMMANDS.has(c.command)) continue;
    if (offset > c.start && offset < c.end) return c;
    if (offset >= c.end) before = c;
    else if (!after) after = c;
  }
  if (before && !/\S/.test(text.slice(before.end, offset))) return before;
  if (after && !/\S/.test(text.slice(offset, after.start))) return after;
  return undefined;
}

export interface LatexInclude {
  /** The file as written: `chapters/intro` (`.tex` not added). */
  name: string;
  command: 'input' | 'include' | 'subfile';
  /** Offsets of the command. */
  start: number;
  end: number;
}

/** The `\input{…}`, `\include{…}` and `\subfile{…}` of a text, in order; comments, verbatim and math skipped. */
export function latexIncludes(text: string): LatexInclude[] {
  const out: LatexInclude[] = [];
  // Matched where the command is (sticky), not on a copy of what follows it.
  const re = /\\(input|include|subfile)\s*\{([^{}\n]{1,300})\}/y;
  scanCommands(text, 0, text.length, (i) => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return undefined;
    out.push({ name: m[2].trim(), command: m[1] as LatexInclude['command'], start: i, end: i + m[0].length });
    return i + m[0].length;
  });
  return out;
}
