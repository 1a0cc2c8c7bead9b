/**
 * JSON read piece by piece, for exports that may be damaged or hostile: a linear, iterative
 * check of one value (nesting bounded, no recursion, no JavaScript error), and a reader of a
 * list's elements that keeps the elements before and after a damaged one. JSON.parse is only
 * ever given text this check has passed, one element at a time.
 */

/** Nesting deeper than this is refused: a real export nests 6 levels. */
export const MAX_JSON_DEPTH = 100;

/** A value nested too deep is still scanned to its end (`end`), so that what follows it can be read. */
export type Scan = { ok: true; end: number } | { ok: false; at: number; reason: string; end?: number };

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

export function skipWhitespace(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

/** Where and why the text at `i` is not what JSON needs there. */
export function faultAt(s: string, i: number): { at: number; reason: string } {
  return unexpected(s, i) as { at: number; reason: string };
}

function unexpected(s: string, i: number): Scan {
  if (i >= s.length) return { ok: false, at: i, reason: 'the text ends too early' };
  const c = s.codePointAt(i)!;
  const shown = c < 0x20 || c === 0x7f ? `U+${c.toString(16).toUpperCase().padStart(4, '0')}` : `"${String.fromCodePoint(c)}"`;
  return { ok: false, at: i, reason: `unexpected ${shown}` };
}

/** From an opening quote: the offset after the closing one, or the error. */
function scanString(s: string, i: number): Scan {
  i++;
  for (;;) {
    if (i >= s.length) return { ok: false, at: i, reason: 'the text ends inside a string' };
    const c = s.charCodeAt(i);
    if (c === 34) return { ok: true, end: i + 1 };
    if (c < 0x20) return unexpected(s, i);
    if (c === 92) {
      const e = s[i + 1];
      if (e === 'u') {
        if (!HEX4.test(s.slice(i + 2, i + 6))) return { ok: false, at: i, reason: 'a bad \\u escape' };
        i += 6;
        continue;
      }
      if (e === undefined || !'"\\/bfnrt'.includes(e)) return { ok: false, at: i, reason: 'a bad escape' };
      i += 2;
      continue;
    }
    i++;
  }
}

/**
 * Checks the JSON value that starts at `pos` (after whitespace), nested at most `maxDepth`
 * levels; answers where it ends, or where and why it is not JSON. Linear, without recursion.
 */
export function scanValue(s: string, pos: number, maxDepth = MAX_JSON_DEPTH): Scan {
  // true: an object is open at that level; false: a list.
  const stack: boolean[] = [];
  let i = pos;
  let tooDeep = -1;
  for (;;) {
    // A value is expected at i.
    i = skipWhitespace(s, i);
    const c = s.charCodeAt(i);
    if (c === 123 || c === 91) {
      if (stack.length >= maxDepth && tooDeep < 0) tooDeep = i;
      const isObject = c === 123;
      stack.push(isObject);
      i = skipWhitespace(s, i + 1);
      if (s.charCodeAt(i) === (isObject ? 125 : 93)) {
        stack.pop();
        i++;
      } else if (isObject) {
        const k = memberKey(s, i);
        if (!k.ok) return k;
        i = k.end;
        continue;
      } else continue;
    } else if (c === 34) {
      const r = scanString(s, i);
      if (!r.ok) return r;
      i = r.end;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(s)) return unexpected(s, i);
      i = NUMBER.lastIndex;
    } else if (s.startsWith('true', i)) i += 4;
    else if (s.startsWith('false', i)) i += 5;
    else if (s.startsWith('null', i)) i += 4;
    else return unexpected(s, i);
    // After a value: close containers or go on to the next element.
    for (;;) {
      if (!stack.length) return tooDeep < 0 ? { ok: true, end: i } : { ok: false, at: tooDeep, reason: `nested deeper than ${maxDepth} levels`, end: i };
      i = skipWhitespace(s, i);
      const d = s.charCodeAt(i);
      const isObject = stack[stack.length - 1];
      if (d === 44) {
        i++;
        if (isObject) {
          const k = memberKey(s, skipWhitespace(s, i));
          if (!k.ok) return k;
          i = k.end;
        }
        break;
      }
      if (d === (isObject ? 125 : 93)) {
        stack.pop();
        i++;
        continue;
      }
      return unexpected(s, i);
    }
  }
}

/** `"key" :` at i (after whitespace); answers the offset after the colon. */
function memberKey(s: string, i: number): Scan {
  if (s.charCodeAt(i) !== 34) return unexpected(s, i);
  const r = scanString(s, i);
  if (!r.ok) return r;
  const j = skipWhitespace(s, r.end);
  if (s.charCodeAt(j) !== 58) return unexpected(s, j);
  return { ok: true, end: j + 1 };
}

/** A string that `scanValue` has checked, as a JavaScript value. */
export function parseChecked(s: string, start: number, end: number): unknown {
  return JSON.parse(s.slice(start, end));
}

export interface ListElement {
  /** 1-based position among the elements read. */
  index: number;
  /** Offset where it starts. */
  at: number;
  value?: unknown;
  /** Why it could not be read (then `value` is absent), with the offset of the fault. */
  problem?: { at: number; reason: string };
}

/**
 * The elements of the list that opens at `open` (a "["), each checked and parsed alone. After a
 * damaged element, reading goes on at the next element found at the indentation of the first one
 * (exports are indented: an element of a nested list sits deeper); an export written on one line
 * is read up to the damage. `end` is the offset after the list, or undefined when it was not
 * found (the rest of the text is then not the list's).
 */
export function readList(s: string, open: number, depth: number): { elements: ListElement[]; end?: number; lostFrom?: number } {
  const elements: ListElement[] = [];
  let i = skipWhitespace(s, open + 1);
  if (s.charCodeAt(i) === 93) return { elements, end: i + 1 };
  // The whitespace before the first element, when it holds a line break: the resynchronisation mark.
  const indent = s.slice(open + 1, i);
  const mark = /\n/.test(indent) ? `,${indent.slice(indent.lastIndexOf('\n'))}` : undefined;
  // Where the last element start (a mark then "{") is, found once: a "]" before it is no end.
  let lastStart: number | undefined;
  const elementFollows = (at: number) => mark !== undefined && (lastStart ??= lastMarkedObject(s, mark)) > at;
  for (;;) {
    const start = i;
    const r = scanValue(s, i, MAX_JSON_DEPTH - depth);
    if (r.ok || r.end !== undefined) {
      if (r.ok) elements.push({ index: elements.length + 1, at: start, value: parseChecked(s, start, r.end) });
      else elements.push({ index: elements.length + 1, at: start, problem: { at: r.at, reason: r.reason } });
      i = skipWhitespace(s, r.end!);
      const c = s.charCodeAt(i);
      if (c === 93 && closesList(s, i, mark) && !elementFollows(i)) return { elements, end: i + 1 };
      if (c === 44) {
        i = skipWhitespace(s, i + 1);
        continue;
      }
      const bad = unexpected(s, i) as { at: number; reason: string };
      elements.push({ index: elements.length + 1, at: i, problem: { at: bad.at, reason: bad.reason } });
    } else {
      elements.push({ index: elements.length + 1, at: start, problem: { at: r.at, reason: r.reason } });
    }
    // Resynchronise: the next ",<line break><indent>" followed by what starts an element.
    const next = mark ? nextMark(s, mark, start + 1) : -1;
    if (next < 0) return { elements, lostFrom: start };
    i = skipWhitespace(s, next + 1);
  }
}

/**
 * Whether a "]" closes the list: in an indented export, only one indented less than its elements
 * and followed by what may follow the list (a "]" deeper in, or followed by other text, closes a
 * list of a damaged element, whose rest would be taken for the file's). `readList` also refuses
 * one with an element start after it: a damaged element can write "\n]}" or "\n  ],".
 */
function closesList(s: string, i: number, mark: string | undefined): boolean {
  if (!mark) return true;
  const lead = s.slice(s.lastIndexOf('\n', i) + 1, i);
  // And what follows is what may follow a list in an object: a "," or a "}" (or the end).
  const after = s.charCodeAt(skipWhitespace(s, i + 1));
  return /^[ \t]*$/.test(lead) && lead.length < mark.length - 2 && (after === 44 || after === 125 || Number.isNaN(after));
}

/** The offset of the last mark followed by "{" (an object element at the elements' indentation), or -1. */
function lastMarkedObject(s: string, mark: string): number {
  let p = s.lastIndexOf(mark);
  while (p >= 0 && s.charCodeAt(p + mark.length) !== 123) p = p ? s.lastIndexOf(mark, p - 1) : -1;
  return p;
}

function nextMark(s: string, mark: string, from: number): number {
  for (let p = s.indexOf(mark, from); p >= 0; p = s.indexOf(mark, p + 1)) {
    const c = s[p + mark.length];
    // The mark's own indent is followed by the element, not by more indentation.
    if (c !== undefined && c !== ' ' && c !== '\t') return p;
  }
  return -1;
}

/** Lines and columns (1-based) of offsets in a text. */
export class Lines {
  private starts: number[] | undefined;
  constructor(private readonly text: string) {}

  at(offset: number): { line: number; column: number } {
    if (!this.starts) {
      this.starts = [0];
      for (let p = this.text.indexOf('\n'); p >= 0; p = this.text.indexOf('\n', p + 1)) this.starts.push(p + 1);
    }
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo] + 1 };
  }
}
