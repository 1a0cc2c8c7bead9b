/**
 * Every citation of a Markdown draft with its locator and the quotation it
 * backs: Pandoc citations (`[@key]`, `[@key, p. 12]`, `[see @a, p. 3; @b, 4]`,
 * `@key [p. 12]`, inside an inline footnote `^[…]`), and the quoted text in the
 * same sentence before the citation (“…”, "…", « … », ‘…’, „…“) or the `> `
 * block quote whose last line carries it. Front matter, fenced code and inline
 * code are skipped. Pure: no I/O.
 */
import { proseLines } from '../../shared/citedIn';
import { isCrossReference } from '../../shared/crossref';
import { parseLocator, type Locator } from './locator';

export { parseLocator, type Locator } from './locator';

export interface DraftCitation {
  key: string;
  /** The file the citation is in, when not the draft itself (a LaTeX chapter read through `\input`). */
  file?: string;
  /** 1-based line and column of the `@` of the key (in LaTeX: of the key's first character). */
  line: number;
  column: number;
  /** 1-based column just after the key. */
  endColumn: number;
  locator: Locator | null;
  /** The quotation the citation backs, as written in the draft; null when none. */
  quote: string | null;
  /** Where the quotation is (1-based line and column of its first character, and of its end). */
  quoteRange?: { line: number; column: number; endLine: number; endColumn: number };
  /** The quotation is a block quote. */
  blockQuote?: boolean;
  /** For a citation of a page without a quotation: its sentence, citations left out (what the page hint compares). */
  context?: string;
}

const KEY_AT = /(?:^|[\s\[;(])(-?)@([\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?)/gu;

/** A paragraph's text with each character's place in the draft (the LaTeX reader builds them too). */
export interface Para {
  text: string;
  /** For each character of `text`: 0-based line and column in the draft. */
  line: Int32Array;
  col: Int32Array;
  blockQuote: boolean;
}

function paragraphs(draft: string): Para[] {
  const lines = draft.split(/\r?\n/);
  const prose = proseLines(lines);
  const out: Para[] = [];
  let cur: Array<{ i: number; start: number; body: string }> = [];
  let curQuote = false;
  const flush = () => {
    if (!cur.length) return;
    let text = '';
    const line: number[] = [];
    const col: number[] = [];
    cur.forEach((l, k) => {
      if (k > 0) {
        text += '\n';
        line.push(l.i);
        col.push(0);
      }
      text += l.body;
      for (let c = 0; c < l.body.length; c++) {
        line.push(l.i);
        col.push(l.start + c);
      }
    });
    out.push({ text, line: Int32Array.from(line), col: Int32Array.from(col), blockQuote: curQuote });
    cur = [];
  };
  lines.forEach((raw, i) => {
    if (!prose[i] || !raw.trim()) {
      flush();
      return;
    }
    const q = /^ {0,3}>+ ?/.exec(raw);
    const isQuote = !!q;
    if (isQuote !== curQuote) flush();
    curQuote = isQuote;
    const start = q ? q[0].length : 0;
    let body = raw.slice(start);
    if (isQuote && !body.trim()) {
      flush();
      return;
    }
    // Inline code is not prose: blanked, keeping columns.
    body = body.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length));
    // Headings are titles, not sentences that cite; their citations still count.
    cur.push({ i, start, body });
  });
  flush();
  return out;
}

interface Group {
  start: number;
  end: number;
  footnote: boolean;
}

/**
 * Bracket groups `[…]` (nested), by start, and for each `@` the innermost group
 * around it and the innermost footnote `^[…]` around that: one pass, so that a
 * paragraph of thousands of citations stays linear.
 */
function bracketGroups(text: string): { groups: Group[]; around: Map<number, { inner?: Group; foot?: Group }> } {
  const stack: Array<{ start: number; foot: number }> = [];
  const byStart = new Map<number, Group>();
  const pending: Array<{ at: number; inner: number; foot: number }> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      const top = stack[stack.length - 1];
      // The nearest footnote enclosing this group (itself excluded).
      const foot = top ? (text[top.start - 1] === '^' ? top.start : top.foot) : -1;
      stack.push({ start: i, foot });
    } else if (c === ']' && stack.length) {
      const { start } = stack.pop()!;
      byStart.set(start, { start, end: i + 1, footnote: text[start - 1] === '^' });
    } else if (c === '@') {
      const top = stack[stack.length - 1];
      pending.push({ at: i, inner: top ? top.start : -1, foot: top ? top.foot : -1 });
    }
  }
  const around = new Map<number, { inner?: Group; foot?: Group }>();
  for (const p of pending) around.set(p.at, { inner: byStart.get(p.inner), foot: byStart.get(p.foot) });
  return { groups: [...byStart.values()].sort((x, y) => x.start - y.start), around };
}

/** Index of the first item whose key is ≥ x, in a list sorted by that key. */
function lowerBound<T>(list: T[], x: number, key: (t: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(list[mid]) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Quote {
  start: number;
  /** Index of the first and last character of the quoted text (inside the marks). */
  innerStart: number;
  innerEnd: number;
  end: number;
}

const PAIRS: Record<string, string[]> = {
  '“': ['”', '“'],
  '"': ['"'],
  '«': ['»'],
  '„': ['“', '”'],
  '‘': ['’'],
  '‚': ['‘', '’'],
  '»': ['«'],
};

/** Quoted spans of a paragraph (outermost; an apostrophe is not a closing ‘…’). */
function findQuotes(text: string): Quote[] {
  const out: Quote[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const closers = PAIRS[c];
    if (!closers) continue;
    const prev = text[i - 1] ?? ' ';
    if (c === '"' || c === '‘' || c === '»') {
      // An opening mark follows a space, a bracket or a dash, and is followed by a letter.
      if (!/[\s(\[—–\-/]/.test(prev) && i > 0) continue;
    }
    if (c === '»' && !/^\s*\p{L}/u.test(text.slice(i + 1, i + 3))) continue;
    let j = i + 1;
    let found = -1;
    for (; j < text.length; j++) {
      if (!closers.includes(text[j])) continue;
      if (c === '‘' && /\p{L}/u.test(text[j + 1] ?? '')) continue; // it’s
      if (c === '"' && /\p{L}/u.test(text[j + 1] ?? '')) continue;
      found = j;
      break;
    }
    if (found < 0) continue;
    let innerStart = i + 1;
    let innerEnd = found;
    while (innerStart < innerEnd && /\s/.test(text[innerStart])) innerStart++;
    while (innerEnd > innerStart && /\s/.test(text[innerEnd - 1])) innerEnd--;
    if (innerEnd > innerStart) out.push({ start: i, innerStart, innerEnd, end: found + 1 });
    i = found;
  }
  return out;
}

/** Words of a quotation (a quote of one or two words is a term, not a quotation to check). */
function wordCount(s: string): number {
  return (s.match(/[\p{L}\p{N}]+/gu) ?? []).length;
}

const MIN_QUOTE_WORDS = 3;

/** A sentence ends between `a` and `b` (exclusive): ". The", "? «", not "p. 12" or "e.g. this". */
function sentenceBreak(text: string, a: number, b: number): boolean {
  const gap = text.slice(a, b);
  if (/\n\s*\n/.test(gap)) return true;
  return /(?<!\b(?:p|pp|e\.g|i\.e|cf|vol|chap|ed|eds|no|n|ibid|op|cit|al|S|ch|fig|sec))[.!?]\s+[\p{Lu}"“«„‘(\[]/u.test(gap);
}

/** Every citation of the draft, in order. */
export function findCitations(draft: string): DraftCitation[] {
  const out: DraftCitation[] = [];
  for (const p of paragraphs(draft)) citationsOf(p, out);
  return out;
}

/** A key found in a paragraph, before its quotation is judged. */
interface Found {
  key: string;
  /** Where its `@` is, and just after the key. */
  at: number;
  end: number;
  locator: Locator | null;
  /** Where the citation stands in its sentence: the `@` in text, its group's `[`, or the `^` of the footnote it is in. */
  anchor: number;
  /** Just after an in-text citation's `[p. 12]`. */
  locatorEnd?: number;
}

/** What a citation backs: its quotation (null when none), and the locator, which a quotation's page after it may give. */
interface Judged {
  quote: string | null;
  range?: DraftCitation['quoteRange'];
  blockQuote: boolean;
  locator: Locator | null;
}

/** The citations of one paragraph, appended to `out`. */
export function citationsOf(p: Para, out: DraftCitation[]): void {
  const text = p.text;
  if (!text.includes('@')) return;
  const { groups, around } = bracketGroups(text);
  const quotes = findQuotes(text);
  const found = keysOf(text, groups, around, quotes);
  // Each quote backs the first citation after it in its sentence; quotes already claimed are not reused.
  const claimed = new Set<Quote>();
  const judged = quotesBefore(p, found, quotes, claimed);
  quotesAfter(p, found, quotes, claimed, judged);
  found.forEach((f, fi) => {
    const { quote, range, blockQuote, locator } = judged[fi];
    const a = pos(p, f.at);
    // Only a page can be hinted: a citation without one needs no sentence.
    const context = quote === null && locator?.from ? sentenceAround(text, f.anchor) : '';
    out.push({
      key: f.key,
      line: a.line,
      column: a.column,
      endColumn: a.column + 1 + f.key.length,
      locator,
      quote,
      ...(range ? { quoteRange: range } : {}),
      ...(blockQuote ? { blockQuote } : {}),
      ...(context ? { context } : {}),
    });
  });
}

/** The 1-based line and column in the draft of the paragraph's character i (just after its end for i past it). */
function pos(p: Para, i: number): { line: number; column: number } {
  const text = p.text;
  return { line: p.line[Math.min(i, text.length - 1)] + 1, column: p.col[Math.min(i, text.length - 1)] + 1 + (i >= text.length ? 1 : 0) };
}

/** A quote lies between `from` and `to` (exclusive). Quotes do not overlap: sorted by start, they are sorted by end too. */
function quoteBetween(quotes: Quote[], from: number, to: number): boolean {
  const q = quotes[lowerBound(quotes, from + 1, (x) => x.start)];
  return !!q && q.end <= to;
}

/** The paragraph's citation keys, in order, each with its locator and where it stands (links, references and cross-references left out). */
function keysOf(text: string, groups: Group[], around: Map<number, { inner?: Group; foot?: Group }>, quotes: Quote[]): Found[] {
  const found: Found[] = [];
  for (const m of text.matchAll(KEY_AT)) {
    const at = (m.index ?? 0) + m[0].indexOf('@');
    const key = m[2].replace(/[.:]+$/, '');
    if (isCrossReference(key)) continue;
    const end = at + 1 + key.length;
    // The innermost group around the key.
    const { inner, foot: footAround } = around.get(at) ?? {};
    // A link's text `[…](url)` or a reference `[…][x]` is not a citation.
    if (inner && !inner.footnote && (text[inner.end] === '(' || text[inner.end] === '[')) continue;
    let locator: Locator | null;
    let anchor: number;
    let locatorEnd: number | undefined;
    if (inner && !inner.footnote) {
      // Bracketed: the item runs to the next ';' or the group's end.
      const semi = text.slice(end, inner.end).indexOf(';');
      const itemEnd = semi >= 0 ? end + semi : inner.end - 1;
      locator = parseLocator(text.slice(end, itemEnd));
      anchor = inner.start;
      // A bracketed citation inside a footnote anchors the footnote (unless the note quotes for itself).
      const foot = footAround;
      if (foot && !quoteBetween(quotes, foot.start, inner.start)) anchor = foot.start - 1;
    } else {
      // In text: "@key [p. 12]" or, in a footnote, "@key, p. 12".
      const g = groups[lowerBound(groups, end, (x) => x.start)];
      const next = g && !g.footnote && /^\s*$/.test(text.slice(end, g.start)) && !/@/.test(text.slice(g.start, Math.min(g.end, g.start + 400))) ? g : undefined;
      if (next) {
        locator = parseLocator(text.slice(next.start + 1, next.end - 1));
        locatorEnd = next.end;
      } else {
        const stop = Math.min(inner ? inner.end - 1 : text.length, end + 200);
        const rest = text.slice(end, stop);
        const semi = rest.search(/[;]/);
        locator = /^\s*,/.test(rest) ? parseLocator(semi >= 0 ? rest.slice(0, semi) : rest) : null;
      }
      anchor = inner?.footnote && !quoteBetween(quotes, inner.start, at) ? inner.start - 1 : at;
    }
    found.push({ key, at, end, locator, anchor, locatorEnd });
  }
  return found;
}

/**
 * Each citation's quotation before it, in its sentence (or, for a block quote's last line, the
 * quote's text): the quotes it takes are added to `claimed`.
 */
function quotesBefore(p: Para, found: Found[], quotes: Quote[], claimed: Set<Quote>): Judged[] {
  const text = p.text;
  const judged: Judged[] = [];
  let prevAnchor = -1;
  for (const [fi, f] of found.entries()) {
    // The quotes of the citation's sentence: back from the citation until a sentence break.
    const mine: Quote[] = [];
    let limit = f.anchor;
    const endLimit = f.anchor + (f.anchor === f.at ? 0 : 1);
    // "@a writes “…” and @b adds": a quote after an in-text citation of this sentence is that one's.
    const prev = found[fi - 1];
    const prevInText = f.anchor === f.at && prev && prev.anchor === prev.at ? (prev.locatorEnd ?? prev.end) : -1;
    for (let k = lowerBound(quotes, endLimit + 1, (x) => x.end) - 1; k >= 0; k--) {
      const q = quotes[k];
      if (q.start <= prevAnchor || claimed.has(q)) break;
      if (prevInText >= 0 && q.start >= prevInText && !sentenceBreak(text, prevInText, q.start)) break;
      // “… ends here.” Another sentence: the quotation closed its own sentence.
      const closed = /[.!?]$/.test(text.slice(q.innerStart, q.innerEnd)) && /^\s+[\p{Lu}“«„‘"]/u.test(text.slice(q.end, limit));
      if (closed || sentenceBreak(text, q.end, limit) || limit - q.end > 200) break;
      mine.unshift(q);
      limit = q.start;
    }
    const pieces = mine.map((q) => text.slice(q.innerStart, q.innerEnd));
    let quote: string | null = pieces.length ? pieces.join(' … ') : null;
    let range: DraftCitation['quoteRange'];
    let blockQuote = false;
    if (mine.length) {
      const s = pos(p, mine[0].innerStart);
      const e = pos(p, mine[mine.length - 1].innerEnd - 1);
      range = { line: s.line, column: s.column, endLine: e.line, endColumn: e.column + 1 };
      for (const q of mine) claimed.add(q);
    } else if (p.blockQuote && prevAnchor < 0 && !text.slice(f.end).includes('\n') && fi === 0) {
      // A block quote whose last line carries the citation: the quotation is the text before it.
      let body = text.slice(0, f.anchor);
      body = body
        .replace(/[\s—–-]+$/u, '')
        .replace(/\(\s*$/, '')
        .trimEnd();
      if (wordCount(body) >= MIN_QUOTE_WORDS) {
        quote = body;
        blockQuote = true;
        const s = pos(p, 0);
        const e = pos(p, body.length - 1);
        range = { line: s.line, column: s.column, endLine: e.line, endColumn: e.column + 1 };
      }
    }
    if (quote !== null && wordCount(quote) < MIN_QUOTE_WORDS) {
      quote = null;
      range = undefined;
    }
    judged.push({ quote, range, blockQuote, locator: f.locator });
    prevAnchor = Math.max(prevAnchor, f.anchor);
  }
  return judged;
}

/**
 * An in-text citation that backs no quotation before it may introduce one after it, in its
 * sentence: "@key [p. 12] writes that “…”." or "As @key argues, “…” (p. 12)." The quotation
 * is its when no other citation comes between them and no citation after it claimed it.
 */
function quotesAfter(p: Para, found: Found[], quotes: Quote[], claimed: Set<Quote>, judged: Judged[]): void {
  const text = p.text;
  for (const [fi, f] of found.entries()) {
    const j = judged[fi];
    if (j.quote !== null || f.anchor !== f.at) continue;
    const from = f.locatorEnd ?? f.end;
    const q = quotes[lowerBound(quotes, from, (x) => x.start)];
    if (!q || claimed.has(q)) continue;
    const next = found[fi + 1];
    if (next && next.at < q.end) continue;
    if (q.start - from > 200 || sentenceBreak(text, from, q.start)) continue;
    const inner = text.slice(q.innerStart, q.innerEnd);
    if (wordCount(inner) < MIN_QUOTE_WORDS) continue;
    claimed.add(q);
    const s = pos(p, q.innerStart);
    const e = pos(p, q.innerEnd - 1);
    j.quote = inner;
    j.range = { line: s.line, column: s.column, endLine: e.line, endColumn: e.column + 1 };
    // Its page in parentheses or brackets right after it, when the citation named none.
    if (!j.locator) {
      const m = /^\s*[([]([^()[\]@]{1,40})[)\]]/.exec(text.slice(q.end, q.end + 60));
      const loc = m && parseLocator(m[1]);
      if (loc?.from) j.locator = loc;
    }
  }
}

const SENTENCE_END = /(?<!\b(?:p|pp|e\.g|i\.e|cf|vol|chap|ed|eds|no|n|ibid|op|cit|al|S|ch|fig|sec))[.!?]+(?=\s|$)|\n\s*\n/gu;
const FIRST_SENTENCE_END = new RegExp(SENTENCE_END.source, 'u');
/** How far a citing sentence is looked for on each side (a hostile paragraph stays linear). */
const SENTENCE_REACH = 400;

/** The sentence around `at`, its citations (`[@a, p. 3]`, `@a`, `^[…]`) left out, whitespace collapsed. */
export function sentenceAround(text: string, at: number): string {
  const a = Math.max(0, at - SENTENCE_REACH);
  const before = text.slice(a, at);
  // A note after the full stop ("… trade.^[@a]") cites the sentence that stop ended.
  const trail = /[.!?]+\s*$/.exec(before);
  let start = a;
  for (const m of (trail ? before.slice(0, trail.index) : before).matchAll(SENTENCE_END)) start = a + (m.index ?? 0) + m[0].length;
  let end = at;
  if (!trail) {
    const after = text.slice(at, at + SENTENCE_REACH);
    // The citation's own brackets may hold full stops ("[@a, p. 3]"): the end is looked for after them.
    const close = /^\^?\[[^\]]*\]/.exec(after)?.[0].length ?? 0;
    const m = FIRST_SENTENCE_END.exec(after.slice(close));
    end = at + close + (m ? (m.index ?? 0) : after.length - close);
  }
  return text
    .slice(start, end)
    .replace(/\^?\[[^\[\]]*@[^\[\]]*\]/g, ' ')
    .replace(/-?@[\p{L}\p{N}_][\p{L}\p{N}_:.#$%&+?<>~/-]*/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
