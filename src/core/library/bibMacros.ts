/**
 * Bounds on @string expansion, checked before the BibTeX parser sees the text. The parser
 * expands a macro by concatenation, without a limit: twenty doublings
 * (`@string{a1 = a0 # a0}` … `a20`) made a 1 MB value that its LaTeX grammar needed 28 s for,
 * forty ended in a RangeError after 32 s. It exposes no hook into the expansion, so this module
 * walks each piece of text the parser is given with the parser's own first-pass grammar
 * (directives, `key = value # value`, braces, quotes, `%` comments, the same error recovery:
 * on a mismatch, go on at the next "@"), keeps the expanded length of every macro, and cuts,
 * in the text, every part of a value (a @string definition, a field, a @preamble) that would
 * pass a bound. A cut keeps the line count, so line numbers in warnings stay right.
 */

/** An expanded value (a @string's, a field's) longer than this with its macros is cut before the macro that passes it. */
export const MAX_VALUE_CHARS = 64 * 1024;
/** Text macros may add to one entry (or directive), at most: the size an entry may have. */
export const MAX_ENTRY_GROWTH = 256 * 1024;
/**
 * What macros may add to the whole file, beyond its own size: the parser's LaTeX grammar needs
 * seconds a megabyte (a megabyte of expansion took 14 s with the machine loaded), so a small
 * file costs at most about a second more than a file of its size without macros; a real
 * export's journal macros add well under its size.
 */
export const MAX_TOTAL_GROWTH = 256 * 1024;
/**
 * Length assumed for a macro this scan has not seen defined: the parser's predefined ones
 * (month names, ACM journal titles) are under 80 characters; an undefined one stays `{{name}}`.
 */
const PREDEFINED_CHARS = 80;
/** The month macros (`month = mar`), in every Better BibTeX export: what they expand to. */
const MONTHS = new Map(
  ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'].map((m) => [
    m.slice(0, 3).toUpperCase(),
    m.length,
  ]),
);

class Mismatch extends Error {}

/** The macros' expanded lengths (upper-case names, as the parser keys them) and the growth so far, across the pieces of a file. */
export class MacroBudget {
  readonly lengths = new Map<string, number>();
  private growth = 0;
  private readonly totalLimit: number;
  constructor(fileChars: number) {
    this.totalLimit = MAX_TOTAL_GROWTH + fileChars;
  }

  /**
   * The piece as the parser should see it (values cut where they would pass a bound) and what
   * was cut, in words. `lineAt(offset)` gives the file's line of an offset in the piece.
   * `crosses`: a directive read across one of the offsets `cuts` (where entries start), so that
   * the parser, given the same text, reads an entry into the one before it.
   */
  bound(piece: string, lineAt: (offset: number) => number, cuts: number[] = []): { text: string; warnings: string[]; crosses: boolean } {
    const scan = new PieceScan(piece, this, lineAt, cuts);
    scan.run();
    return { text: scan.rewritten(), warnings: scan.warnings, crosses: scan.crosses };
  }

  /** Macros cut because the file's allowance was spent, and the line of the first such cut: one warning says it all. */
  private readonly spentOn = new Set<string>();
  private spentFrom = 0;

  noteSpent(macro: string, line: number): void {
    if (!this.spentOn.size) this.spentFrom = line;
    this.spentOn.add(macro);
  }

  /** The warning for the cuts made because the file's allowance was spent, if any. */
  spentWarning(): string | undefined {
    if (!this.spentOn.size) return undefined;
    const names = [...this.spentOn];
    const named = names
      .slice(0, 5)
      .map((n) => `"${excerpt(n)}"`)
      .join(', ');
    const more = names.length > 5 ? ` and ${names.length - 5} more` : '';
    return `The file's @string macros would add more than ${kb(this.totalLimit)} to it: from line ${this.spentFrom} on, the values using @string ${named}${more} were cut there.`;
  }

  /** Takes `chars` of growth from the file's budget; false when it is spent. */
  take(chars: number): boolean {
    if (this.growth + chars > this.totalLimit) return false;
    this.growth += chars;
    return true;
  }
}

/** One part of a value: its span in the text and what it expands to. */
interface Part {
  start: number;
  end: number;
  chars: number;
  macro?: string;
}

const KEY_CHAR = /[+'a-zA-Z0-9&;_:\\./-]/;
const LETTER = /[\p{Lu}\p{Lt}\p{Ll}\p{Lm}\p{Lo}]/u;

/** The parser's first pass (`verbatim.js` of @retorquere/bibtex-parser), lengths instead of text. */
class PieceScan {
  private pos = 0;
  readonly warnings: string[] = [];
  /** Spans to replace: [start, end, replacement]. */
  private readonly cuts: Array<[number, number, string]> = [];
  private entryGrowth = 0;
  private entryKey = '';
  private directiveStart = 0;
  crosses = false;

  constructor(
    private readonly input: string,
    private readonly budget: MacroBudget,
    private readonly lineAt: (offset: number) => number,
    private readonly entryStarts: number[],
  ) {}

  run(): void {
    while (this.pos < this.input.length) this.next();
  }

  rewritten(): string {
    if (!this.cuts.length) return this.input;
    let out = '';
    let at = 0;
    // After a mismatch the scan goes on inside the failed directive, as the parser does, and can
    // find a directive in text already cut: the parser never sees that one, nor its cuts.
    for (const [start, end, by] of [...this.cuts].sort((a, b) => a[0] - b[0])) {
      if (start < at) continue;
      out += this.input.slice(at, start) + by;
      at = end;
    }
    return out + this.input.slice(at);
  }

  private skipWhitespace(): void {
    const s = this.input;
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 13 || c === 10) this.pos++;
      else if (c === 37) while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      else return;
    }
  }

  private tryMatch(t: string, consume = false): boolean {
    this.skipWhitespace();
    const ok = this.input.startsWith(t, this.pos);
    if (ok && consume) this.pos += t.length;
    return ok;
  }

  private match(t: string, sws = true): void {
    this.skipWhitespace();
    if (!this.input.startsWith(t, this.pos)) throw new Mismatch();
    this.pos += t.length;
    if (sws) this.skipWhitespace();
  }

  private key(allow = ''): string {
    const start = this.pos;
    for (;;) {
      if (this.pos >= this.input.length) throw new Mismatch();
      const c = this.input[this.pos];
      if (KEY_CHAR.test(c) || (c > '\x7f' && LETTER.test(c)) || allow.includes(c)) this.pos++;
      else return this.input.substring(start, this.pos);
    }
  }

  private next(): void {
    const s = this.input;
    this.skipWhitespace();
    while (this.pos < s.length && s[this.pos] !== '@') {
      if (s[this.pos] === '%') while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      else this.pos++;
    }
    if (this.pos >= s.length) return;
    const start = this.pos;
    this.directiveStart = start;
    this.entryGrowth = 0;
    this.entryKey = '';
    try {
      this.match('@');
      const d = this.key().toLowerCase();
      if (d === 'string') {
        const guard = this.matchGuard();
        this.keyEqualsValue(undefined, true);
        this.match(guard);
      } else if (d === 'preamble') {
        this.value('@preamble');
      } else if (d === 'comment') {
        while (s[this.pos] === ' ' || s[this.pos] === '\t') this.pos++;
        if (s[this.pos] === '{') this.braces();
        else while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      } else {
        const guard = this.matchGuard();
        this.entry(guard);
        this.match(guard);
      }
      if (this.entryStarts.some((b) => b > start && b < this.pos)) this.crosses = true;
    } catch (err) {
      if (!(err instanceof Mismatch)) throw err;
      this.pos = start + 1;
      while (this.pos < s.length && s[this.pos] !== '@') this.pos++;
    }
  }

  private matchGuard(): string {
    for (const [open, close] of [
      ['{', '}'],
      ['(', ')'],
    ]) {
      if (this.tryMatch(open)) {
        this.match(open);
        return close;
      }
    }
    throw new Mismatch();
  }

  private entry(guard: string): void {
    if (this.tryMatch(guard)) return;
    let key: string;
    if (this.tryMatch(',')) key = '';
    else key = this.key('[]*"');
    if (this.tryMatch('=')) this.keyEqualsValue(key);
    else this.entryKey = key;
    this.tryMatch(',', true);
    if (this.tryMatch(guard)) return;
    this.keyEqualsValue();
    while (this.tryMatch(',', true)) {
      if (this.tryMatch(guard)) return;
      this.keyEqualsValue();
    }
  }

  private keyEqualsValue(given?: string, isString = false): void {
    const key = given || this.key();
    if (!key) return;
    if (!this.tryMatch('=')) throw new Mismatch();
    this.match('=');
    const chars = this.value(isString ? `@string "${key}"` : `"${key}"`);
    if (isString) this.budget.lengths.set(key.toUpperCase(), chars);
  }

  /** Reads `part # part …`, cuts the parts that would pass a bound, returns the kept length. */
  private value(what: string): number {
    const parts = [this.single()];
    while (this.tryMatch('#')) {
      this.match('#');
      parts.push(this.single());
    }
    let kept = 0;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      const growth = p.macro ? Math.max(0, p.chars - (p.end - p.start)) : 0;
      // Text written in the file is the entry's own (bounded by the size an entry may have, and
      // a real one, such as a collaboration's 3,000 authors, can pass 64 KB): only what macros
      // add is cut.
      let why = '';
      if (p.macro) {
        if (kept + p.chars > MAX_VALUE_CHARS) why = `more than a value may have (${kb(MAX_VALUE_CHARS)})`;
        else if (this.entryGrowth + growth > MAX_ENTRY_GROWTH) why = `more than an entry may have (${kb(MAX_ENTRY_GROWTH)})`;
        else if (growth && !this.budget.take(growth)) why = 'spent';
      }
      if (!why) {
        kept += p.chars;
        this.entryGrowth += growth;
        continue;
      }
      // Cut from here to the end of the value: "a # b # c" → "a", or "{ }" when nothing fits (the
      // parser takes an empty @string for an undefined one, and writes its name).
      const from = i === 0 ? p.start : parts[i - 1].end;
      const to = parts[parts.length - 1].end;
      this.cut(from, to, i === 0 ? '{ }' : '');
      if (why === 'spent') {
        this.budget.noteSpent(p.macro!, this.lineAt(this.directiveStart));
        break;
      }
      const macro = ` with @string "${excerpt(p.macro!)}"`;
      const owner = this.entryKey ? ` of "${excerpt(this.entryKey)}"` : '';
      const total = parts.slice(i).reduce((n, q) => n + q.chars, kept);
      this.warnings.push(
        `${what === '@preamble' ? 'An @preamble' : `The value of ${excerpt(what)}${owner}`} at line ${this.lineAt(this.directiveStart)} would expand to ${kb(total)}${macro}, ${why}: ${kept ? `it was cut after ${kb(kept)}` : 'it was left empty'}.`,
      );
      break;
    }
    return kept;
  }

  private cut(from: number, to: number, by: string): void {
    const newlines = this.input.slice(from, to).replace(/[^\n]/g, '');
    this.cuts.push([from, to, by + newlines]);
  }

  private single(): Part {
    if (this.tryMatch('{')) {
      const start = this.pos;
      const chars = this.braces();
      return { start, end: this.pos, chars };
    }
    if (this.tryMatch('"')) {
      const start = this.pos;
      const chars = this.quotes();
      return { start, end: this.pos, chars };
    }
    const start = this.pos;
    const bare = this.key();
    if (/^\d+$/.test(bare)) return { start, end: this.pos, chars: bare.length };
    const known = this.budget.lengths.get(bare.toUpperCase());
    // The parser writes an undefined (or empty) macro as "{{name}}".
    const chars = known ? known : (MONTHS.get(bare.toUpperCase()) ?? Math.max(PREDEFINED_CHARS, bare.length + 4));
    return { start, end: this.pos, chars, macro: bare };
  }

  /** A braced value; its length without the outer braces. */
  private braces(): number {
    this.match('{', false);
    const s = this.input;
    const start = this.pos;
    let depth = 0;
    let math = false;
    for (;;) {
      const c = s[this.pos];
      if (c === '\\') this.pos++;
      else if (c === '{') depth++;
      else if (c === '}') {
        if (depth === 0) {
          if (math) throw new Mismatch();
          this.pos++;
          return this.pos - 1 - start;
        }
        depth--;
      } else if (c === '$') math = !math;
      this.pos++;
      if (this.pos >= s.length) throw new Mismatch();
    }
  }

  private quotes(): number {
    this.match('"', false);
    const s = this.input;
    const start = this.pos;
    let depth = 0;
    for (;;) {
      const c = s[this.pos];
      if (c === '\\') this.pos++;
      else if (c === '{') depth++;
      else if (c === '}') depth--;
      else if (c === '"' && depth <= 0) {
        this.pos++;
        return this.pos - 1 - start;
      }
      this.pos++;
      if (this.pos >= s.length) throw new Mismatch();
    }
  }
}

function kb(chars: number): string {
  if (chars < 1024) return `${chars} characters`;
  return chars >= 1048576 ? `${(chars / 1048576).toFixed(1)} MB` : `${Math.max(1, Math.round(chars / 1024))} KB`;
}

function excerpt(s: string): string {
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}
