/**
 * One linear pass over a LaTeX draft that pairs what the parser pairs (issue 35): each group's
 * `{` with its `}`, each environment's `\begin{x}` with its `\end{x}`, a verbatim environment
 * with the first `\end{x}` after it, `\verb|…|` with its delimiter; comments, `\%` and `\{` read
 * as the parser reads them. `units.ts` cuts the draft where nothing pairs across, so that each
 * piece is parsed alone: @unified-latex's parser memoises every rule at every offset (2 KB of
 * memory per byte parsed at once, 11 s and 2 GB for 1 MB) and recurses with the nesting.
 *
 * Pairs are found with a stack, innermost first, as the parser finds them in a well-nested draft:
 * an opener never closed is no opener (the parser reads `{` as text, `\begin{x}` as a command), an
 * `\end{x}` closes the innermost open `x` above the innermost open group, closing what is open above
 * it, and a `}` closes the innermost group. A draft nested otherwise is one LaTeX does not compile.
 *
 * `\verb` ends at its line's end, as in TeX (the parser would read on to the next delimiter, lines
 * or pages on): one left open is listed, to be read as a comment.
 */

export const enum Pair {
  None = 0,
  Group = 1,
  Env = 2,
  /** A verbatim environment (`verbatim`, `lstlisting`, `comment`…): nothing in it is read. */
  Verbatim = 3,
  /** `\verb|…|`. */
  Verb = 4,
  /** A `\verb` left open: to its line's end. */
  OpenVerb = 5,
}

export interface LatexScan {
  /** At an opener's offset, what it opens (Pair.None elsewhere). */
  kind: Uint8Array;
  /** At an opener's offset, the offset just after its closer. */
  close: Int32Array;
  /** At an environment's `\begin`, its name (and the offset of its `\end`: close minus the end tag). */
  envs: Map<number, string>;
  /**
   * What the parser is given in place of the source, in order of offset: an opener left open (a `{`, an
   * `\begin{x}`, `\[`, `\(`), which the parser would try to close at every later offset of its piece
   * (its time grows with their number times the piece's length), is given as what the parser makes of
   * it in the end — `(` for `{` (a one-character string, given back as `{`), `\BEGIN` for a `\begin{x}`
   * with no `\end{x}` after it (a command of no meaning), `\|` for `\[` — and a `\verb` left open as a
   * comment to its line's end.
   */
  masks: Array<{ at: number; text: string }>;
  /** Offsets of every `\title` command, in order. */
  titles: number[];
  /** The most groups and environments open at once (closed later or not), and where. */
  deepest: { depth: number; at: number };
}

/** The environments the parser reads verbatim, to the first `\end{name}` (others, `Verbatim` included, are read as LaTeX). */
export const VERBATIM_ENVS: ReadonlySet<string> = new Set(['verbatim', 'verbatim*', 'filecontents', 'filecontents*', 'comment', 'lstlisting', 'minted']);

const BACKSLASH = 92;
const OPEN = 123;
const CLOSE = 125;
const PERCENT = 37;
const NL = 10;
const CR = 13;

export const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/** The end of the line at `i` (its `\n` or `\r`, or the text's end). */
export function lineEnd(s: string, i: number): number {
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === NL || c === CR) return i;
  }
  return s.length;
}

/** The offset after a line break at `i` (`\n`, `\r\n` or `\r`), or `i` when there is none. */
export function afterBreak(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === NL) return i + 1;
  if (c === CR) return s.charCodeAt(i + 1) === NL ? i + 2 : i + 1;
  return i;
}

/**
 * Whether a blank line follows the line break at `i` (the parser's paragraph break: a break, a
 * line of spaces and tabs, a break); the offset after the blank lines and their spaces, or -1.
 */
export function blankAfter(s: string, i: number): number {
  let j = afterBreak(s, i);
  if (j === i) return -1;
  let blank = false;
  for (;;) {
    let k = j;
    while (s.charCodeAt(k) === 32 || s.charCodeAt(k) === 9) k++;
    const next = afterBreak(s, k);
    if (next === k) return blank ? k : -1;
    blank = true;
    j = next;
  }
}

/** The name of `\name` at `i` (letters only), or '' when `i` is a control symbol or no command. */
export function commandName(s: string, i: number): string {
  let j = i + 1;
  while (j < s.length && isLetter(s.charCodeAt(j))) j++;
  return s.slice(i + 1, j);
}

/** `{name}` right after `\begin` or `\end` (at `j`): the name and the offset after `}`, or undefined. */
function envName(s: string, j: number): { name: string; end: number } | undefined {
  if (s.charCodeAt(j) !== OPEN) return undefined;
  for (let k = j + 1; k < s.length && k < j + 200; k++) {
    const c = s.charCodeAt(k);
    if (c === CLOSE) return { name: s.slice(j + 1, k), end: k + 1 };
    if (c === OPEN || c === BACKSLASH || c === PERCENT || c === NL || c === CR) return undefined;
  }
  return undefined;
}

/** The index of the first mask at or after offset `at` (binary search; masks are in offset order). */
export function firstMaskFrom(scan: LatexScan, at: number): number {
  const m = scan.masks;
  let lo = 0;
  let hi = m.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (m[mid].at < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The mask at offset `at`, if any. */
export function maskAt(scan: LatexScan, at: number): string | undefined {
  const m = scan.masks[firstMaskFrom(scan, at)];
  return m?.at === at ? m.text : undefined;
}

const E_OPEN = 1;
const E_CLOSE = 2;
const E_BEGIN = 3;
const E_END = 4;

export function scanLatex(s: string): LatexScan {
  const n = s.length;
  const kind = new Uint8Array(n);
  const close = new Int32Array(n);
  const envs = new Map<number, string>();
  const masks: Array<{ at: number; text: string }> = [];
  const titles: number[] = [];
  // The next `\]` and `\)`, and the next blank line: found again only once passed (linear).
  const next = { ']': -1, ')': -1, blank: -1 };
  const nextClose = (c: ']' | ')', i: number) => {
    if (next[c] !== Infinity && next[c] < i) {
      const e = s.indexOf(`\\${c}`, i);
      next[c] = e < 0 ? Infinity : e;
    }
    return next[c];
  };
  const nextBlank = (i: number) => {
    if (next.blank !== Infinity && next.blank < i) {
      next.blank = Infinity;
      for (let j = s.indexOf('\n', i); j >= 0; j = s.indexOf('\n', j + 1)) {
        if (blankAfter(s, j) >= 0) {
          next.blank = j;
          break;
        }
      }
    }
    return next.blank;
  };
  // First pass: comments, `\verb` and verbatim environments skipped; braces, `\begin{x}` and `\end{x}` listed.
  const type: number[] = [];
  const pos: number[] = [];
  const names: string[] = []; // per event: the environment's name ('' for a brace)
  const ends: number[] = []; // per event: the offset after it
  // A verbatim environment with no end after some offset has none after any later one either.
  const noEnd = new Map<string, number>();
  // `\verb`'s line end and delimiter, found once for all the offsets they serve (offsets only grow):
  // thousands of `\verb|` on one long line once cost a scan of the line each.
  let eolFrom = -1;
  let eolAt = -1;
  const lineEndFrom = (q: number) => {
    if (q < eolFrom || q > eolAt) {
      eolFrom = q;
      eolAt = lineEnd(s, q);
    }
    return eolAt;
  };
  const found = new Map<string, { from: number; at: number }>();
  const nextOf = (ch: string, q: number) => {
    const f = found.get(ch);
    // None between `from` and `at`: none between q and `at` either.
    if (f && f.from <= q && (f.at < 0 || f.at >= q)) return f.at;
    const at = s.indexOf(ch, q);
    found.set(ch, { from: q, at });
    return at;
  };
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === PERCENT) {
      i = lineEnd(s, i);
      continue;
    }
    if (c === OPEN || c === CLOSE) {
      type.push(c === OPEN ? E_OPEN : E_CLOSE);
      pos.push(i);
      names.push('');
      ends.push(++i);
      continue;
    }
    if (c !== BACKSLASH) {
      i++;
      continue;
    }
    const name = commandName(s, i);
    if (!name) {
      // A control symbol: `\{`, `\%`, `\\`; math `\[…\]` and `\(…\)` close in their paragraph, as in TeX.
      const c1 = s[i + 1];
      if ((c1 === '[' || c1 === '(') && nextClose(c1 === '[' ? ']' : ')', i) >= nextBlank(i)) masks.push({ at: i + 1, text: '|' });
      i += 2;
      continue;
    }
    const j = i + 1 + name.length;
    if (name === 'verb') {
      let d = j;
      if (s[d] === '*') d++;
      const delim = s.charCodeAt(d);
      if (d < n && !isLetter(delim) && delim !== 32 && delim !== 9 && delim !== NL && delim !== CR && delim !== 42) {
        const eol = lineEndFrom(d + 1);
        const e = nextOf(s[d], d + 1);
        if (e >= 0 && e < eol) {
          kind[i] = Pair.Verb;
          close[i] = e + 1;
        } else {
          kind[i] = Pair.OpenVerb;
          close[i] = eol;
          masks.push({ at: i, text: '%' });
        }
        i = close[i];
        continue;
      }
    } else if (name === 'title') titles.push(i);
    else if (name === 'begin' || name === 'end') {
      const env = envName(s, j);
      if (env && name === 'begin' && VERBATIM_ENVS.has(env.name)) {
        const tag = `\\end{${env.name}}`;
        const e = (noEnd.get(env.name) ?? Infinity) <= i ? -1 : s.indexOf(tag, env.end);
        if (e >= 0) {
          kind[i] = Pair.Verbatim;
          close[i] = e + tag.length;
          envs.set(i, env.name);
          i = close[i];
          continue;
        }
        noEnd.set(env.name, i);
        masks.push({ at: i + 1, text: 'BEGIN' });
      } else if (env) {
        type.push(name === 'begin' ? E_BEGIN : E_END);
        pos.push(i);
        names.push(env.name);
        ends.push(env.end);
        i = env.end;
        continue;
      }
    }
    i = j;
  }
  // Braces paired alone first: a `{` never closed is text to the parser, and holds nothing open.
  const mate = new Int32Array(type.length).fill(-1);
  const braces: number[] = [];
  const paired = new Uint8Array(type.length);
  for (let e = 0; e < type.length; e++) {
    if (type[e] === E_OPEN) braces.push(e);
    else if (type[e] === E_CLOSE && braces.length) {
      mate[e] = braces.pop()!;
      paired[mate[e]] = 1;
    }
  }
  for (const e of braces) masks.push({ at: pos[e], text: '(' });
  // Then environments, inside the groups: an `\end{x}` closes the innermost `x` opened within the innermost open group.
  const stack: number[] = []; // events of the open groups and environments
  const groups: number[] = []; // indices in `stack` of the open groups
  const open = new Map<string, number[]>(); // indices in `stack` of each name's open environments
  const deepest = { depth: 0, at: 0 };
  // The last `\end{x}` of each name: an `\begin{x}` after it the parser cannot close either.
  const lastEnd = new Map<string, number>();
  for (let e = 0; e < type.length; e++) if (type[e] === E_END) lastEnd.set(names[e], e);
  /** An environment never closed: `\begin` a command, `{x}` a group, as the parser reads them. */
  const unclosed = (e: number) => {
    const at = pos[e] + '\\begin'.length;
    kind[at] = Pair.Group;
    close[at] = ends[e];
    if ((lastEnd.get(names[e]) ?? -1) < e) masks.push({ at: pos[e] + 1, text: 'BEGIN' });
  };
  const popTo = (depth: number) => {
    while (stack.length > depth) {
      const e = stack.pop()!;
      if (type[e] === E_BEGIN) {
        open.get(names[e])!.pop();
        unclosed(e);
      }
    }
  };
  const push = (e: number) => {
    stack.push(e);
    if (stack.length > deepest.depth) {
      deepest.depth = stack.length;
      deepest.at = pos[e];
    }
  };
  for (let e = 0; e < type.length; e++) {
    const t = type[e];
    if (t === E_OPEN) {
      if (paired[e]) {
        groups.push(stack.length);
        push(e);
      }
    } else if (t === E_CLOSE) {
      if (mate[e] < 0) continue;
      const g = groups.pop()!;
      popTo(g + 1);
      stack.pop();
      kind[pos[mate[e]]] = Pair.Group;
      close[pos[mate[e]]] = ends[e];
    } else if (t === E_BEGIN) {
      const list = open.get(names[e]) ?? open.set(names[e], []).get(names[e])!;
      list.push(stack.length);
      push(e);
    } else {
      const list = open.get(names[e]);
      const f = list?.length ? list[list.length - 1] : -1;
      if (f >= 0 && f > (groups.length ? groups[groups.length - 1] : -1)) {
        const b = stack[f];
        popTo(f + 1);
        stack.pop();
        list!.pop();
        kind[pos[b]] = Pair.Env;
        close[pos[b]] = ends[e];
        envs.set(pos[b], names[e]);
      }
      // Else a stray `\end{x}`: a command and a group, as the parser reads it.
      else {
        const at = pos[e] + '\\end'.length;
        kind[at] = Pair.Group;
        close[at] = ends[e];
      }
    }
  }
  popTo(0);
  masks.sort((a, b) => a.at - b.at);
  return { kind, close, envs, masks, titles, deepest };
}
