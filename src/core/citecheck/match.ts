/**
 * Finds a quotation in a source's text, word by word: both sides are reduced
 * to folded word tokens (case, accents, ligatures, punctuation, quote marks and
 * line breaks do not count), candidate places come from an exact token-trigram
 * index over the source (a rare-word index when no trigram is shared), and each
 * candidate window is aligned with a word-level edit distance (semi-global:
 * the whole quotation against any stretch of the source). Elisions (`[…]`,
 * `...`, `…`) let the alignment skip source words for free; bracketed
 * insertions (`[the king]`) too, over a few words; `[sic]` is dropped; a word
 * split or joined by a hyphen ("hyphen-ation", "to-day") matches its other
 * form. Pure: no I/O.
 */
import { foldAccents } from '../../shared/fold';
import type { PageText } from '../index/store/pageTexts';

/** A quotation as tokens; `GAP` stands for an elision or an insertion. */
export const GAP = '\u0000gap';

export interface Tokens {
  tokens: string[];
  /** Character offsets of each token in the text. */
  starts: number[];
  ends: number[];
}

/**
 * A word: letters, digits, marks, and what PDF readers leave inside words without meaning it:
 * soft hyphens and zero-width characters, and spacing accents (TeX fonts draw "é" as "´" and
 * "e", which some readers give as "pr´esente"); they are dropped from the word's token.
 */
const WORD = /[\p{L}\p{N}\p{M}\p{Sk}\u00AD\u200B-\u200D\u2060\uFEFF]+/gu;

function norm(w: string): string {
  return foldAccents(w.normalize('NFKC')).replace(/[^\p{L}\p{N}]/gu, '');
}

/** Letter-spaced words ("g e s p e r r t", a reader's take on tracked type): at least this many single letters. */
const SPACED_RUN = 3;

export function tokenize(text: string): Tokens {
  const tokens: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (const m of text.matchAll(WORD)) {
    const t = norm(m[0]);
    if (!t) continue;
    tokens.push(t);
    starts.push(m.index ?? 0);
    ends.push((m.index ?? 0) + m[0].length);
  }
  return joinSpacedLetters({ tokens, starts, ends }, text);
}

/**
 * Runs of single letters one space apart become one word, on both sides of a comparison: one
 * PDF reader gives tracked type as letters, another as words; prose has no three one-letter
 * words in a row.
 */
function joinSpacedLetters(t: Tokens, text: string): Tokens {
  const single = (k: number) => t.tokens[k].length === 1 && /\p{L}/u.test(t.tokens[k]);
  let any = false;
  for (let k = 0; k + SPACED_RUN <= t.tokens.length && !any; k++) if (single(k) && single(k + 1) && single(k + 2)) any = true;
  if (!any) return t;
  const out: Tokens = { tokens: [], starts: [], ends: [] };
  for (let k = 0; k < t.tokens.length;) {
    let e = k;
    while (e + 1 < t.tokens.length && single(e) && single(e + 1) && t.starts[e + 1] - t.ends[e] === 1 && text[t.ends[e]] === ' ') e++;
    if (e - k + 1 >= SPACED_RUN) {
      out.tokens.push(t.tokens.slice(k, e + 1).join(''));
      out.starts.push(t.starts[k]);
      out.ends.push(t.ends[e]);
      k = e + 1;
    } else {
      out.tokens.push(t.tokens[k]);
      out.starts.push(t.starts[k]);
      out.ends.push(t.ends[k]);
      k++;
    }
  }
  return out;
}

/** The quotation's tokens, GAP where words were left out or put in. */
export function quoteTokens(quote: string): string[] {
  let s = quote
    .replace(/[\[(]\s*sic\s*!?\s*[\])]/gi, ' ')
    // "[T]he": a letter changed in case.
    .replace(/\[(\p{L})\](?=\p{L})/gu, '$1');
  const out: string[] = [];
  const ELISION = /\[\s*(?:…|\.\s*\.\s*\.)\s*\]|\(\s*(?:…|\.\s*\.\s*\.)\s*\)|…|\.\s*\.\s*\.|\[[^\]]*\]/gu;
  let last = 0;
  const push = (part: string) => {
    for (const t of tokenize(part).tokens) out.push(t);
  };
  for (const m of s.matchAll(ELISION)) {
    push(s.slice(last, m.index));
    if (out.length && out[out.length - 1] !== GAP) out.push(GAP);
    last = (m.index ?? 0) + m[0].length;
  }
  push(s.slice(last));
  while (out[out.length - 1] === GAP) out.pop();
  s = '';
  return out;
}

// A page as the page-text store (index/store/pageTexts.ts) keeps it.
export type { PageText };

/** A source's pages as one token stream, with its indexes (built on first use). */
export class SourceText {
  readonly tokens: string[] = [];
  /** For each token: index into `pages`, and its offsets in that page's text. */
  readonly pageOf: number[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** Index of each page's first token (pages.length + 1 entries). */
  readonly pageStart: number[] = [];
  private tri?: Map<number, number[]>;
  private uni?: Map<string, number[]>;

  constructor(readonly pages: PageText[]) {
    pages.forEach((p, i) => {
      this.pageStart.push(this.tokens.length);
      const t = tokenize(p.text);
      for (let k = 0; k < t.tokens.length; k++) {
        this.tokens.push(t.tokens[k]);
        this.pageOf.push(i);
        this.starts.push(t.starts[k]);
        this.ends.push(t.ends[k]);
      }
    });
    this.pageStart.push(this.tokens.length);
  }

  /** Each distinct token's number (for the trigram index). */
  readonly ids = new Map<string, number>();

  private idsOf(): Int32Array {
    const out = new Int32Array(this.tokens.length);
    this.tokens.forEach((t, i) => {
      let id = this.ids.get(t);
      if (id === undefined) this.ids.set(t, (id = this.ids.size));
      out[i] = id;
    });
    return out;
  }

  /** Positions of each token trigram, by a hash of its token numbers (a collision only adds a candidate). */
  trigrams(): Map<number, number[]> {
    if (this.tri) return this.tri;
    const m = new Map<number, number[]>();
    const t = this.idsOf();
    for (let i = 0; i + 2 < t.length; i++) {
      const k = trigramKey(t[i], t[i + 1], t[i + 2]);
      const l = m.get(k);
      if (l) l.push(i);
      else m.set(k, [i]);
    }
    return (this.tri = m);
  }

  unigrams(): Map<string, number[]> {
    if (this.uni) return this.uni;
    const m = new Map<string, number[]>();
    this.tokens.forEach((t, i) => {
      const l = m.get(t);
      if (l) l.push(i);
      else m.set(t, [i]);
    });
    return (this.uni = m);
  }

  /** The source's words from token `a` to `b` (inclusive), as printed (pages joined by a space). */
  textBetween(a: number, b: number): string {
    const parts: string[] = [];
    let i = a;
    while (i <= b) {
      const p = this.pageOf[i];
      const last = Math.min(b, this.pageStart[p + 1] - 1);
      parts.push(this.pages[p].text.slice(this.starts[i], this.ends[last]).replace(/\s+/g, ' '));
      i = last + 1;
    }
    return parts.join(' ');
  }
}

export interface Difference {
  /** The quotation's words here ('' when it dropped the source's words). */
  quote: string;
  /** The source's words here ('' when the quotation added words). */
  source: string;
}

export interface Alignment {
  /** Word edits (substitutions, additions, omissions), loosely equal OCR words not counted. */
  edits: number;
  /** Words of the quotation (gaps not counted). */
  words: number;
  /** First and last source token aligned. */
  start: number;
  end: number;
  differences: Difference[];
}

/** Two words that OCR may have confused: same length ±1, at most one letter in four differs. */
function looseEqual(a: string, b: string): boolean {
  if (a.length < 4 || b.length < 4 || Math.abs(a.length - b.length) > 1 || /\d/.test(a + b)) return false;
  return levenshtein(a, b, Math.floor(Math.max(a.length, b.length) / 4)) <= Math.floor(Math.max(a.length, b.length) / 4);
}

/** Edit distance, stopping early past `max` (returns max + 1). */
export function levenshtein(a: string, b: string, max = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (cur[j] < best) best = cur[j];
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

// Back pointers.
const DIAG = 1;
const UP = 2; // a quotation word with no source word (added)
const LEFT = 3; // a source word the quotation lacks (dropped)
const JOIN_S = 4; // one quotation word = two source words
const JOIN_Q = 5; // two quotation words = one source word
const GAP_SKIP = 6; // a gap row skipping a source word
const GAP_ENTER = 7; // a gap row entered
const PAGE_BREAK = 8; // quotation words a page break put there (footer, header), not the writer's

/** Most words a page break's running footer and header take in a copied quotation, and the fewest of the quotation's own around them. */
const PAGE_BREAK_WORDS = 20;
const PAGE_BREAK_MIN_REST = 6;

/**
 * The window's page breaks: for each column j where source token from+j-1 ends a page and the next
 * begins another, the folded printed labels of the two pages. A viewer's copy across a break carries
 * the page's running footer and the next page's header; a run of quotation words there that holds
 * one of the two numbers is that, and costs nothing.
 */
function pageBreaks(src: SourceText, from: number, to: number): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (let p = src.pageOf[from] + 1; p < src.pages.length && src.pageStart[p] < to; p++) {
    const at = src.pageStart[p];
    if (at <= from || src.pageStart[p - 1] === at) continue;
    out.set(at - from, new Set([src.pages[p - 1].label, src.pages[p].label].map((l) => tokenize(l).tokens.join('')).filter(Boolean)));
  }
  return out;
}

/**
 * Aligns the quotation `q` (with GAPs) against source tokens [from, to): the
 * whole quotation against the best stretch of the window. `continues`: `q` is the
 * first piece of a longer quotation.
 */
export function align(q: string[], src: SourceText, from: number, to: number, opts: { loose?: boolean; continues?: boolean } = {}): Alignment | undefined {
  from = Math.max(0, from);
  to = Math.min(src.tokens.length, to);
  const n = to - from;
  const m = q.length;
  if (n <= 0 || m === 0) return undefined;
  const s = src.tokens;
  const W = n + 1;
  const cost = new Int32Array((m + 1) * W);
  const back = new Uint8Array((m + 1) * W);
  const eq = opts.loose ? (a: string, b: string) => a === b || looseEqual(a, b) : (a: string, b: string) => a === b;
  const breaks = pageBreaks(src, from, to);
  // The break columns as flags: a map lookup per cell would cost the alignment a third.
  const isBreak = new Uint8Array(W);
  for (const j of breaks.keys()) isBreak[j] = 1;
  /** For a PAGE_BREAK cell: how many quotation words the break took. */
  const breakRun = new Map<number, number>();
  for (let i = 1; i <= m; i++) {
    const qi = q[i - 1];
    const row = i * W;
    const up = (i - 1) * W;
    if (qi === GAP) {
      cost[row] = cost[up];
      back[row] = GAP_ENTER;
      for (let j = 1; j <= n; j++) {
        const a = cost[up + j];
        const b = cost[row + j - 1];
        if (a <= b) {
          cost[row + j] = a;
          back[row + j] = GAP_ENTER;
        } else {
          cost[row + j] = b;
          back[row + j] = GAP_SKIP;
        }
      }
      continue;
    }
    cost[row] = cost[up] + 1;
    back[row] = UP;
    const qPrev = i >= 2 ? q[i - 2] : undefined;
    for (let j = 1; j <= n; j++) {
      const sj = s[from + j - 1];
      let best = cost[up + j - 1] + (eq(qi, sj) ? 0 : 1);
      let how = DIAG;
      const u = cost[up + j] + 1;
      if (u < best) {
        best = u;
        how = UP;
      }
      const l = cost[row + j - 1] + 1;
      if (l < best) {
        best = l;
        how = LEFT;
      }
      if (j >= 2 && qi.length > sj.length && qi === s[from + j - 2] + sj && cost[up + j - 2] < best) {
        best = cost[up + j - 2];
        how = JOIN_S;
      }
      if (qPrev !== undefined && qPrev !== GAP && sj.length > qi.length && sj === qPrev + qi && cost[(i - 2) * W + j - 1] < best) {
        best = cost[(i - 2) * W + j - 1];
        how = JOIN_Q;
      }
      const labels = isBreak[j] && i < m ? breaks.get(j) : undefined;
      if (labels) {
        // Quotation words i-L…i-1 taken by the break, one of them a page number: free, between
        // words of the quotation on both sides (a quotation does not begin or end with a header),
        // and fewer than those (a table of numbers is not a header).
        let hasLabel = false;
        for (let L = 1; L <= PAGE_BREAK_WORDS && i - L >= 1 && m - L >= Math.max(PAGE_BREAK_MIN_REST, L); L++) {
          const t = q[i - L];
          if (t === GAP) break;
          if (labels.has(t)) hasLabel = true;
          if (hasLabel && cost[(i - L) * W + j] < best) {
            best = cost[(i - L) * W + j];
            how = PAGE_BREAK;
            breakRun.set(row + j, L);
          }
        }
      }
      cost[row + j] = best;
      back[row + j] = how;
    }
  }
  // Best end: lowest cost; on ties, one that ends on a matching word (a dropped word inside, not a word added at the end);
  // for a piece the quotation goes on after, then one whose last word stands for a source word (changed, not added):
  // the next piece starts after that source word.
  const endRank = (j: number) => (back[m * W + j] !== DIAG || q[m - 1] === GAP ? 0 : eq(q[m - 1], s[from + j - 1]) ? 2 : opts.continues ? 1 : 0);
  let endJ = 1;
  for (let j = 1; j <= n; j++) {
    const c = cost[m * W + j];
    const b = cost[m * W + endJ];
    if (c < b || (c === b && endRank(j) > endRank(endJ))) endJ = j;
  }
  // Trace back.
  let i = m;
  let j = endJ;
  const ops: Array<{ kind: 'same' | 'sub' | 'add' | 'drop'; qi?: number; sj?: number; qi2?: number; sj2?: number }> = [];
  let first = -1;
  let last = -1;
  /** Quotation words a page break took (not the writer's: not counted among the quotation's words). */
  let brokenWords = 0;
  while (i > 0) {
    const b = back[i * W + j];
    if (b === GAP_ENTER) {
      i--;
    } else if (b === GAP_SKIP) {
      j--;
    } else if (b === DIAG) {
      const same = eq(q[i - 1], s[from + j - 1]);
      ops.push({ kind: same ? 'same' : 'sub', qi: i - 1, sj: from + j - 1 });
      if (last < 0) last = from + j - 1;
      first = from + j - 1;
      i--;
      j--;
    } else if (b === UP) {
      ops.push({ kind: 'add', qi: i - 1 });
      i--;
    } else if (b === LEFT) {
      ops.push({ kind: 'drop', sj: from + j - 1 });
      if (last < 0) last = from + j - 1;
      first = from + j - 1;
      j--;
    } else if (b === JOIN_S) {
      ops.push({ kind: 'same', qi: i - 1, sj: from + j - 2 });
      if (last < 0) last = from + j - 1;
      first = from + j - 2;
      i--;
      j -= 2;
    } else if (b === PAGE_BREAK) {
      const L = breakRun.get(i * W + j)!;
      for (let x = 1; x <= L; x++) ops.push({ kind: 'same', qi: i - x });
      brokenWords += L;
      i -= L;
    } else if (b === JOIN_Q) {
      ops.push({ kind: 'same', qi: i - 2, sj: from + j - 1 });
      if (last < 0) last = from + j - 1;
      first = from + j - 1;
      i -= 2;
      j--;
    } else break;
  }
  if (first < 0) return undefined;
  ops.reverse();
  // Group the edits into spans of differences.
  const differences: Difference[] = [];
  let qw: string[] = [];
  let sFrom = -1;
  let sTo = -1;
  const flush = () => {
    if (!qw.length && sFrom < 0) return;
    differences.push({ quote: qw.join(' '), source: sFrom >= 0 ? src.textBetween(sFrom, sTo) : '' });
    qw = [];
    sFrom = sTo = -1;
  };
  for (const o of ops) {
    if (o.kind === 'same') {
      flush();
      continue;
    }
    if (o.qi !== undefined) qw.push(q[o.qi]);
    if (o.sj !== undefined) {
      if (sFrom < 0) sFrom = o.sj;
      sTo = o.sj;
    }
  }
  flush();
  return { edits: cost[m * W + endJ], words: q.filter((t) => t !== GAP).length - brokenWords, start: first, end: last, differences };
}

export function trigramKey(a: number, b: number, c: number): number {
  return (Math.imul(a, 73856093) ^ Math.imul(b + 1, 19349663) ^ Math.imul(c + 2, 83492791)) >>> 0;
}

/** Places worth aligning: source positions where the quotation would start, best first. */
export function candidates(q: string[], src: SourceText, max = 6): number[] {
  const votes = new Map<number, number>();
  const vote = (d: number) => {
    const b = Math.floor(d / 8);
    votes.set(b, (votes.get(b) ?? 0) + 1);
  };
  // Offsets of the words in the quotation (gaps not counted) and the pieces between gaps.
  const words: Array<{ t: string; at: number }> = [];
  const pieces: Array<Array<{ t: string; at: number }>> = [[]];
  for (const t of q) {
    if (t === GAP) pieces.push([]);
    else {
      const w = { t, at: words.length };
      words.push(w);
      pieces[pieces.length - 1].push(w);
    }
  }
  const tri = src.trigrams();
  let any = false;
  for (const piece of pieces) {
    const ids = piece.map((w) => src.ids.get(w.t) ?? -1);
    for (let k = 0; k + 2 < piece.length; k++) {
      if (ids[k] < 0 || ids[k + 1] < 0 || ids[k + 2] < 0) continue;
      const list = tri.get(trigramKey(ids[k], ids[k + 1], ids[k + 2]));
      if (!list || list.length > 400) continue;
      any = true;
      for (const p of list) vote(p - piece[k].at);
    }
  }
  if (!any) {
    // No trigram in common (a short or much altered quotation, OCR noise): the rarest words vote.
    const uni = src.unigrams();
    const rare = words
      .map((w) => ({ w, n: uni.get(w.t)?.length ?? 0 }))
      .filter((x) => x.n > 0 && x.n <= 200)
      .sort((a, b) => a.n - b.n)
      .slice(0, 6);
    for (const { w } of rare) for (const p of uni.get(w.t)!) vote(p - w.at);
  }
  return [...votes.entries()]
    .filter(([, v]) => v >= 1)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, max)
    .map(([b]) => b * 8);
}
