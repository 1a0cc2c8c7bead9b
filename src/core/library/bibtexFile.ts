/**
 * BibTeX / BibLaTeX exports, read with @retorquere/bibtex-parser (the parser Better BibTeX's own
 * import is built on): syntax, @string, LaTeX → Unicode and name splitting are its job. This
 * module maps its entries to `BibEntry` and turns its errors into one warning per broken entry.
 */
import type { Creator, Entry, Library, Options, ParseError } from '@retorquere/bibtex-parser';
import { parseFileField } from './attachmentPaths';
import { MacroBudget } from './bibMacros';
import { parseYear, stripRichText, type BibEntry, type ParsedBibliography } from './bibEntry';

type ParserModule = typeof import('@retorquere/bibtex-parser');

// Loaded on first use: the parser and its LaTeX grammar are only needed while indexing. A dynamic
// import also reaches the package's ESM build, whose dependencies have no CommonJS entry.
let parserModule: Promise<ParserModule> | undefined;
const loadParser = () => (parserModule ??= import('@retorquere/bibtex-parser'));

/** Commands the parser does not know (French and German quotes, TeX's spacing commands): what they print. */
const EXTRA_COMMANDS: Record<string, string> = {
  og: '«\u00a0',
  fg: '\u00a0»',
  glqq: '„',
  grqq: '“',
  glq: '‚',
  grq: '‘',
  TeX: 'TeX',
  ' ': ' ',
  ',': '\u2009',
  '/': '',
  '-': '',
  '@': '',
};

/**
 * Characters handed to the parser at a time, between which the event loop (the extension
 * host's) gets a turn: on a 2 MB export its longest block was 0.27 s with 16 KB chunks, about
 * 1 s with 64 KB ones, and the whole 8–10 s parse with the scanner this replaced.
 */
const CHUNK_CHARS = 16 * 1024;
/**
 * Entries handed to the parser at a time, at most: its error path costs time in proportion to
 * the text before the error, so a file of thousands of broken entries must come in small pieces.
 */
const CHUNK_ENTRIES = 25;
/**
 * An entry longer than this is skipped with a warning: the parser's LaTeX grammar needs seconds
 * and gigabytes for a multi-megabyte field (5 MB: 48 s, 2.7 GB, then a crash), and no real
 * entry (title, authors, an abstract, a file list) comes near it.
 */
const MAX_ENTRY_CHARS = 256 * 1024;
/** Longest excerpt of a parser message kept in a warning (a message can quote the input). */
const MAX_MESSAGE = 300;
/**
 * @preamble text carried into later chunks, at most: the parser reads it again for every chunk,
 * and a real preamble (\noopsort and the like) is a few hundred characters.
 */
const MAX_PREAMBLE_CHARS = 16 * 1024;
/** Warnings kept, at most: a file of a million broken entries must not make a million lines. */
const MAX_WARNINGS = 1000;
/** Entries named in one "unknown command" warning before "and N more". */
const MAX_KEYS_NAMED = 5;

/** `chunkChars` is for tests: how the text is cut must not change the result. */
export async function parseBibtex(text: string, baseDir: string, chunkChars = CHUNK_CHARS): Promise<ParsedBibliography> {
  const source = text.replace(/^\uFEFF/, '');
  const { parseAsync } = await loadParser();
  const unknownCommands = new Map<string, Set<string>>();
  const options = parserOptions(unknownCommands);
  const lines = new LineFinder(source);
  const read = await parseChunks(source, chunkChars, lines, (input, strings) => parseAsync(input, { ...options, strings }));
  const effective = effectiveText(source, read.rewrites);
  const errorLines = effective === source ? lines : new LineFinder(effective);
  const warnings = [...read.failed, ...new Set(read.errors.map((e) => describeError(e, errorLines)))];
  const entries = bibEntries(read.parsed, effective, baseDir, warnings);
  for (const [command, keys] of unknownCommands) {
    const named = [...keys].filter(Boolean);
    const list = named
      .slice(0, MAX_KEYS_NAMED)
      .map((k) => `"${k}"`)
      .join(', ');
    const more = named.length > MAX_KEYS_NAMED ? ` and ${named.length - MAX_KEYS_NAMED} more` : '';
    warnings.push(`Unknown LaTeX command ${command} left out of the text${list ? ` of ${list}${more}` : ''}.`);
  }
  if (warnings.length > MAX_WARNINGS) {
    const left = warnings.length - MAX_WARNINGS;
    warnings.splice(MAX_WARNINGS, left, `… and ${left} more warnings.`);
  }
  return { entries, warnings };
}

/** The parser's options; a LaTeX command it does not know is noted in `unknownCommands` (command → entry keys). */
function parserOptions(unknownCommands: Map<string, Set<string>>): Options {
  return {
    // Titles as written: no English sentence-casing, no case-protection markup.
    english: false,
    caseProtection: false,
    // `groups` holds collection names (JabRef), which may carry accents in LaTeX; the parser
    // would keep it verbatim.
    fieldMode: { groups: 'title' },
    unsupported: (node, tex, entry) => {
      const name = node.type === 'macro' ? (node as { content: string }).content : '';
      if (name && Object.hasOwn(EXTRA_COMMANDS, name)) return EXTRA_COMMANDS[name];
      const label = name ? `\\${name}` : tex.slice(0, 40);
      if (!unknownCommands.has(label)) unknownCommands.set(label, new Set());
      unknownCommands.get(label)!.add(entry?.key ?? '');
      return '';
    },
  };
}

/** What the parser made of the file, chunk by chunk. */
interface ChunksRead {
  parsed: Entry[];
  errors: ParseError[];
  /** Warnings of chunks and entries skipped, in the file's order, then of macros' bounds. */
  failed: string[];
  /** Spans of the file given to the parser otherwise (macros bounded): [start, end, text]. */
  rewrites: Array<[number, number, string]>;
}

/**
 * Hands the file to the parser chunk by chunk (chunkSpans), the event loop getting a turn
 * between chunks; a chunk with a syntax error is read again entry by entry, so that only the
 * broken one is lost. `parse` is the parser with the options, given the @string values so far.
 */
async function parseChunks(
  source: string,
  chunkChars: number,
  lines: LineFinder,
  parse: (input: string, strings: Record<string, string>) => Promise<Library>,
): Promise<ChunksRead> {
  const parsed: Entry[] = [];
  const errors: ParseError[] = [];
  const failed: string[] = [];
  // Each piece sees the @string values and @preamble macros of the pieces before it.
  const strings: Record<string, string> = {};
  const preambles: string[] = [];
  let preambleChars = 0;
  // @string expansion is bounded before the parser expands anything (bibMacros.ts); the text it
  // is given, with what was cut, is `effective` (same lines), where entries are found again.
  const macros = new MacroBudget(source.length);
  const rewrites: Array<[number, number, string]> = [];
  /** Parses a span (a chunk, or one piece of it) with what the spans before it defined; false when it holds a syntax error. */
  const parseSpan = async (start: number, end: number, pieces: Span[]): Promise<boolean> => {
    const original = source.slice(start, end);
    const bounded = macros.bound(
      original,
      (offset) => lines.lineAt(start + offset),
      pieces.slice(1).map((p) => p.start - start),
    );
    // A value read on into the next entry (a quote left open reads to the next quote, entries
    // later): the chunk is read again entry by entry, so that only the broken one is lost.
    if (bounded.crosses) return false;
    const chunk = bounded.text;
    const prefix = preambles.map((p) => `@preamble{${p}}\n`).join('');
    const lib: Library = await parse(prefix + chunk, { ...strings });
    failed.push(...bounded.warnings);
    if (chunk !== original) rewrites.push([start, end, chunk]);
    parsed.push(...lib.entries);
    errors.push(...lib.errors);
    Object.assign(strings, lib.strings);
    for (const p of lib.preamble.slice(preambles.length)) {
      if (preambleChars + p.length <= MAX_PREAMBLE_CHARS) preambles.push(p);
      else failed.push(`An @preamble over ${MAX_PREAMBLE_CHARS / 1024} KB: the macros it defines are known only to the entries next to it.`);
      preambleChars += p.length;
    }
    return true;
  };
  for (const { start, end, pieces } of chunkSpans(source, chunkChars)) {
    if (end - start > MAX_ENTRY_CHARS) {
      failed.push(describeTooLong(source.slice(start, end), lines));
      continue;
    }
    try {
      const whole = await parseSpan(start, end, pieces);
      if (!whole) {
        for (const piece of pieces) {
          try {
            await parseSpan(piece.start, piece.end, []);
          } catch {
            failed.push(`Skipped the entries from line ${lines.lineAt(piece.start)}: the BibTeX parser could not read them.`);
          }
        }
      }
    } catch {
      // A defect of the parser loses this chunk's entries, not the file's. Its message is the
      // parser's (or JavaScript's, for a defect): not for the user.
      failed.push(`Skipped the entries from line ${lines.lineAt(start)}: the BibTeX parser could not read them.`);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }

  const spent = macros.spentWarning();
  if (spent) failed.push(spent);
  return { parsed, errors, failed, rewrites };
}

/** The text the parser was given: the file with the rewritten spans in place. */
function effectiveText(source: string, rewrites: Array<[number, number, string]>): string {
  let effective = source;
  if (rewrites.length) {
    let at = 0;
    effective = '';
    for (const [start, end, text] of rewrites) {
      effective += source.slice(at, start) + text;
      at = end;
    }
    effective += source.slice(at);
  }
  return effective;
}

/** The parsed entries as BibEntry, first of each key; a skipped one is a warning in `warnings`. */
function bibEntries(parsed: Entry[], effective: string, baseDir: string, warnings: string[]): BibEntry[] {
  const entries: BibEntry[] = [];
  const seen = new Set<string>();
  const entryLines = new LineFinder(effective);
  for (const e of parsed) {
    // An entry the parser gave up on comes back empty, without its text; its error says why.
    if (!e.input) continue;
    const line = entryLines.lineOf(e.input);
    if (!e.key) {
      warnings.push(`Skipped the entry at line ${line}: missing citation key.`);
      continue;
    }
    if (seen.has(e.key)) {
      warnings.push(`Duplicate citation key "${e.key}" at line ${line}: kept the first entry.`);
      continue;
    }
    seen.add(e.key);
    try {
      entries.push(toBibEntry(e, baseDir));
    } catch {
      // The parser's fields are not what it documents (a defect of it): this entry, not the file.
      warnings.push(`Skipped the entry "${excerpt(e.key)}" at line ${line}: its fields could not be read.`);
    }
  }
  return entries;
}

function toBibEntry(e: Entry, baseDir: string): BibEntry {
  const f = e.fields;
  const creators = f.author?.length ? f.author : f.editor;
  const title = typeof f.title === 'string' ? cleanText(f.title) : '';
  const groups = typeof f.groups === 'string' ? f.groups.split(',').map(cleanText).filter(Boolean) : [];
  return {
    citekey: e.key,
    title: title || undefined,
    authors: (creators ?? []).map(creatorName).filter(Boolean),
    year: parseYear(f.year) ?? parseYear(f.date),
    collections: [...new Set(groups)],
    files: typeof f.file === 'string' ? parseFileField(f.file, baseDir) : [],
    type: e.type,
  };
}

/** "Last, First", "von Last, First", "Last, Jr, First"; an institution ({World Health Organization}) whole; "others" dropped. */
function creatorName(c: Creator): string {
  if (c.name) return cleanText(c.name);
  const last = cleanText([c.prefix, c.lastName].filter(Boolean).join(' '));
  const first = cleanText(c.firstName ?? '');
  const suffix = cleanText(c.suffix ?? '');
  if (last.toLowerCase() === 'others' && !first) return '';
  if (suffix) return [last, suffix, first].filter(Boolean).join(', ');
  return last && first ? `${last}, ${first}` : last || first;
}

/** The parser's text as plain text: no markup tags or soft hyphens (\-), dotless i/j under an accent composed, NFC. */
function cleanText(s: string): string {
  const plain = stripRichText(s.replace(/L\u1d2cT<sub>E<\/sub>X/g, 'LaTeX').replace(/T<sub>E<\/sub>X/g, 'TeX'));
  // \"{\i} gives a dotless ı followed by the accent; NFC only composes the dotted letter.
  return plain
    .replace(/\u00ad/g, '')
    .replace(/ı(?=[\u0300-\u036f])/g, 'i')
    .replace(/ȷ(?=[\u0300-\u036f])/g, 'j')
    .normalize('NFC');
}

/**
 * Cuts the text between entries and groups the entries into chunks of at most `size` characters
 * and CHUNK_ENTRIES entries; an entry longer than `size` is a chunk of its own. A cut goes before
 * an "@" that starts a line outside any braces, or before a line that starts like an entry
 * ("@article{") even inside braces: there the entry before has a brace left open, and it goes to
 * the parser alone, so that it is one broken entry (as it was for the scanner this replaced)
 * instead of swallowing the entries after it.
 */
export function* entryChunks(text: string, size: number): Generator<string> {
  for (const { start, end } of chunkSpans(text, size)) yield text.slice(start, end);
}

interface Span {
  start: number;
  end: number;
}

/** The chunks of `entryChunks` as offsets in the text, with the pieces (entries) each holds. */
function* chunkSpans(text: string, size: number): Generator<Span & { pieces: Span[] }> {
  // Lazily, piece by piece: scanning a 20 MB file at once held the event loop for seconds.
  let pieces: Span[] = [];
  const chunk = () => ({ start: pieces[0].start, end: pieces[pieces.length - 1].end, pieces });
  for (const piece of entryPieces(text)) {
    if (piece.end === piece.start) continue;
    if (pieces.length && (piece.open || piece.end - pieces[0].start > size || pieces.length >= CHUNK_ENTRIES)) {
      yield chunk();
      pieces = [];
    }
    if (piece.open) {
      yield { start: piece.start, end: piece.end, pieces: [{ start: piece.start, end: piece.end }] };
      continue;
    }
    pieces.push({ start: piece.start, end: piece.end });
  }
  if (pieces.length) yield chunk();
}

/** The text from one cut to the next; `open` when a brace is still open at its end. */
function* entryPieces(text: string): Generator<{ start: number; end: number; open: boolean }> {
  let start = 0;
  let depth = 0;
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '@' && lineStart && i > start && (depth === 0 || ENTRY_START.test(text.slice(i, i + 80)))) {
      yield { start, end: i, open: depth > 0 };
      start = i;
      depth = 0;
    }
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    if (c === '\n') lineStart = true;
    else if (c !== ' ' && c !== '\t') lineStart = false;
  }
  yield { start, end: text.length, open: depth > 0 };
}

const ENTRY_START = /^@[ \t]*[A-Za-z]+[ \t]*[{(]/;

function describeTooLong(chunk: string, lines: LineFinder): string {
  const at = /^@\s*[A-Za-z]+\s*[{(]\s*([^\s,{}()"=]*)/.exec(chunk);
  const what = at?.[1] ? `the entry "${at[1]}"` : 'text';
  const size = chunk.length >= 1048576 ? `${(chunk.length / 1048576).toFixed(1)} MB` : `${Math.round(chunk.length / 1024)} KB`;
  return `Skipped ${what} at line ${lines.lineOf(chunk.slice(0, 200))}: ${size}, more than an entry may have (${MAX_ENTRY_CHARS / 1024} KB).`;
}

function excerpt(message: string): string {
  // The parser's own "at line N, column M" counts within the piece it was given: left out.
  const first = message
    .split('\n')[0]
    .replace(/ at line \d+, column \d+/, '')
    .trim()
    .replace(/\.$/, '');
  return first.length > MAX_MESSAGE ? `${first.slice(0, MAX_MESSAGE)}…` : first;
}

/**
 * The parser's own messages, which say what is wrong with the text; anything else it reports is
 * an exception of its LaTeX conversion ("Maximum call stack size exceeded", "Cannot read
 * properties of undefined"), which says nothing to a user and is not quoted.
 */
const PARSER_MESSAGE =
  /^(?:Token mismatch|Unterminated (?:brace|quote)-value|Runaway key|Unclosed math section|Unresolved @string reference|[^\n]{0,200} = value expected|[^\n]{0,200}unexpected \d+-part name|unhandled )/;

function describeError(e: ParseError, lines: LineFinder): string {
  const input = e.input ?? '';
  const error = typeof e.error === 'string' ? e.error : '';
  const why = PARSER_MESSAGE.test(error) ? excerpt(error) : 'its text could not be read (the LaTeX in it is beyond the parser)';
  const at = /^@\s*([A-Za-z]+)\s*[{(]\s*([^\s,{}()"=]*)/.exec(input);
  if (at) {
    const key = at[2] ? `"${excerpt(at[2])}" ` : '';
    return `Skipped the entry ${key}at line ${lines.lineOf(input)}: ${why}.`;
  }
  const str = /^Unresolved @string reference "(.*)"$/.exec(error);
  if (str) return `Undefined @string "${excerpt(str[1])}": its name was kept as the text.`;
  return PARSER_MESSAGE.test(error) ? `${why}.` : `Some text could not be read (the LaTeX in it is beyond the parser).`;
}

/**
 * Line numbers of entry texts found in order. The parser reports errors and entries in file
 * order, so the search goes on from the last match (starting over once if the order breaks):
 * linear in the file's size even with thousands of broken entries.
 */
class LineFinder {
  private cursor = 0;
  private starts: number[] | undefined;
  constructor(private readonly text: string) {}

  lineOf(snippet: string): number {
    let pos = this.text.indexOf(snippet, this.cursor);
    if (pos < 0) pos = this.text.indexOf(snippet);
    if (pos < 0) return 0;
    this.cursor = pos + 1;
    return this.lineAt(pos);
  }

  /** The line of an offset in the text. */
  lineAt(pos: number): number {
    this.starts ??= lineStarts(this.text);
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}
