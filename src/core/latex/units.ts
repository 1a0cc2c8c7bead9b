/**
 * Where a LaTeX draft can be cut into pieces that parse alone as they parse in the whole draft
 * (issue 35), from the pairs scan.ts found: at a blank line outside every group and environment
 * (a paragraph break, which nothing but an open group or environment reaches across). A stretch
 * between two such breaks longer than MAX_UNIT (an environment or a paragraph of pages) is cut
 * again: around an environment of that size, opened (its arguments read with its first line, its
 * paragraphs cut alike) or, one whose content is no prose (math, verbatim, tables), left out; and
 * between two words outside any group, bracket or math, where nothing a command takes can lie.
 *
 * `$…$`, `\(…\)` and `\[…\]` end at a blank line, as in TeX (the parser reads on to the next `$`,
 * paragraphs on). Pure: no I/O.
 */
import { EngineError } from '../../shared/errors';
import { afterBreak, blankAfter, commandName, lineEnd, Pair, type LatexScan } from './scan';

/** The largest LaTeX file read (a thesis is a few hundred KB, a long book 2–3 MB; its time and memory grow with it). */
export const MAX_LATEX_BYTES = 8 * 1024 * 1024;

/** Refuses (`unreadable`) a LaTeX file larger than MAX_LATEX_BYTES, with its size and the limit. */
export function checkLatexSize(text: string, file?: string): void {
  if (text.length <= MAX_LATEX_BYTES) return;
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  const what = file === undefined ? 'The LaTeX draft' : `The LaTeX file ${file}`;
  throw new EngineError(
    'unreadable',
    `${what} is ${mb(text.length)}, larger than the ${mb(MAX_LATEX_BYTES)} a LaTeX file may be: split it into files read through \\input or \\include.`,
  );
}

/** Bytes parsed at once, at most (the parser holds ~2.6 KB per byte: 32 KB parse in ~85 MB), unless no cut is found. */
export const MAX_UNIT = 32_768;

export type Item =
  /** A stretch of the draft; `space`: whitespace stands between it and what came before (the words stay apart). */
  | { t: 'text'; from: number; to: number; space: boolean }
  /** A paragraph break between two stretches. */
  | { t: 'break' }
  /** An environment longer than MAX_UNIT, whole (`\begin` to after `\end`). */
  | { t: 'env'; name: string; from: number; to: number; space: boolean }
  /** The end of an environment opened (its content came as the items before). */
  | { t: 'close'; name: string };

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const BACKSLASH = 92;
const PERCENT = 37;

/** The stretches of `from`–`to` between its paragraph breaks (blank lines outside groups and environments). */
export function paragraphs(s: string, scan: LatexScan, from: number, to: number, first: Item[] = []): Item[] {
  const out = first;
  let start = from;
  let i = from;
  while (i < to) {
    if (scan.kind[i]) {
      i = scan.close[i];
      continue;
    }
    const c = s.charCodeAt(i);
    if (c === PERCENT) i = lineEnd(s, i);
    else if (c === BACKSLASH) i += 1 + Math.max(1, commandName(s, i).length);
    else if (c === 10 || c === 13) {
      const b = blankAfter(s, i);
      if (b < 0 || b > to) i = afterBreak(s, i);
      else {
        out.push({ t: 'text', from: start, to: i, space: false }, { t: 'break' });
        start = i = b;
      }
    } else i++;
  }
  out.push({ t: 'text', from: start, to: Math.min(i, to), space: false });
  return out;
}

/** The document environment at the top level, when there is one: where it starts, where its content lies, where it ends. */
export function documentEnv(s: string, scan: LatexScan): { from: number; contentFrom: number; contentTo: number; to: number } | undefined {
  for (let i = 0; i < s.length;) {
    const k = scan.kind[i];
    if (k === Pair.Env && scan.envs.get(i) === 'document') {
      const to = scan.close[i];
      return { from: i, contentFrom: i + '\\begin{document}'.length, contentTo: to - '\\end{document}'.length, to };
    }
    if (k) i = scan.close[i];
    else if (s.charCodeAt(i) === PERCENT) i = lineEnd(s, i);
    else if (s.charCodeAt(i) === BACKSLASH) i += 2;
    else i++;
  }
  return undefined;
}

/**
 * A stretch longer than `max` (no paragraph break in it), cut: around each environment longer than
 * `max`, and into pieces of about half of it at a space between two words outside any group,
 * bracket (`[…]`, `(…)`: a command's optional arguments) or math. A piece may still be longer, where
 * no such space is found (one group of pages, a line of commands).
 */
export function pieces(s: string, scan: LatexScan, from: number, to: number, space: boolean, max = MAX_UNIT): Item[] {
  const piece = max / 2;
  const out: Item[] = [];
  let start = from;
  let brackets = 0;
  let math = 0; // 1 in $…$, 2 in $$…$$
  let word = false; // the last thing read is a word's character (not a command's name)
  let i = from;
  const cut = (at: number) => {
    if (at > start) out.push({ t: 'text', from: start, to: at, space });
    space = false;
  };
  while (i < to) {
    const k = scan.kind[i];
    if (k) {
      const end = Math.min(scan.close[i], to);
      if ((k === Pair.Env || k === Pair.Verbatim) && end - i > max) {
        cut(i);
        out.push({ t: 'env', name: scan.envs.get(i)!, from: i, to: end, space: space || isSpace(s.charCodeAt(i - 1)) });
        start = end;
        space = isSpace(s.charCodeAt(end));
      }
      i = end;
      word = false;
      continue;
    }
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      if (word && !brackets && !math && i - start >= piece) {
        let j = i + 1;
        while (j < to && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j++;
        if (/[\p{L}\p{N}]/u.test(s[j] ?? '')) {
          cut(i);
          start = i;
          space = true;
        }
      }
      word = false;
      i++;
      continue;
    }
    word = false;
    if (c === PERCENT) i = lineEnd(s, i);
    else if (c === BACKSLASH) i += 1 + Math.max(1, commandName(s, i).length);
    else if (c === 36) {
      // `$`: math opens and closes, `$$` display math.
      const display = s.charCodeAt(i + 1) === 36;
      math = math ? 0 : display ? 2 : 1;
      i += display ? 2 : 1;
    } else {
      if (c === 91 || c === 40) brackets++;
      else if (c === 93 || c === 41) brackets = Math.max(0, brackets - 1);
      else word = c !== 123 && c !== 125;
      i++;
    }
  }
  cut(to);
  return out;
}

/**
 * Where the line of an environment's arguments ends in its content `from`–`to`, outside groups: the line
 * of `\begin{x}`, or the next when nothing but spaces follows it there (the parser reads arguments there
 * too); -1 when that line reaches past `limit`.
 */
export function firstLineEnd(s: string, scan: LatexScan, from: number, to: number, limit: number): number {
  let i = from;
  while (i < to && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  if (i < to && (s.charCodeAt(i) === 10 || s.charCodeAt(i) === 13) && blankAfter(s, i) < 0) i = afterBreak(s, i);
  while (i < to) {
    if (scan.kind[i]) i = scan.close[i];
    else if (s.charCodeAt(i) === 10 || s.charCodeAt(i) === 13) break;
    else if (s.charCodeAt(i) === PERCENT) i = lineEnd(s, i);
    else i++;
  }
  i = Math.min(i, to);
  return i <= limit ? i : -1;
}
