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
import { freeInQuote, freeInSource, markViewerTokens, plainToken, sameWordRead, tokenMark, type Forgiven } from './viewerCopies';

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
  // Spacing modifier letters (U+02B0–U+02FF) are accents set apart, as TeX fonts draw them ("ˆetre" for "être"), or marks: not letters of the word.
  return foldAccents(w.normalize('NFKC')).replace(/[^\p{L}\p{N}]|[\u02b0-\u02ff]/gu, '');
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
  // Tokens a viewer's copy makes (a logo in capitals, a glued footnote number…) are marked: viewerCopies.ts.
  const push = (part: string) => {
    for (const t of markViewerTokens(tokenize(part), part)) out.push(t);
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

  /** Each page's running headers, footers and page number as tokens (what cleanPages took off it). */
  readonly furniture: ReadonlySet<string>[];

  constructor(readonly pages: PageText[]) {
    this.furniture = pages.map((p) => new Set(p.furniture ? tokenize(p.furniture).tokens : []));
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

  private free?: Uint8Array;

  /** 1 for each token a viewer's copy may lack (an all-capital logo, a glued footnote number: viewerCopies.ts). */
  freeTokens(): Uint8Array {
    if (this.free) return this.free;
    const out = new Uint8Array(this.tokens.length);
    for (let k = 0; k < this.tokens.length; k++)
      if (
        freeInSource(
          this.tokens,
          (x) => this.raw(x),
          (x) => this.gap(x),
          k,
        )
      )
        out[k] = 1;
    return (this.free = out);
  }

  /** Token `k` as the page prints it. */
  raw(k: number): string {
    return this.pages[this.pageOf[k]].text.slice(this.starts[k], this.ends[k]);
  }

  /** What the page prints between token `k - 1` and token `k` (a space where a page ends). */
  gap(k: number): string {
    return k > 0 && this.pageOf[k - 1] === this.pageOf[k] ? this.pages[this.pageOf[k]].text.slice(this.ends[k - 1], this.starts[k]) : ' ';
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
  /** What a viewer's copy differs by, accepted (viewerCopies.ts). */
  forgiven: Forgiven[];
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
/** The fewest words of its own a quotation keeps beside words that are all the pages' known furniture. */
const FURNITURE_MIN_REST = 4;

/** What a viewer's copy may hold at a page break: the two pages' printed labels and their furniture, as folded tokens. */
interface PageBreak {
  labels: Set<string>;
  furniture: Set<string>;
}

/**
 * The window's page breaks: for each column j (0…n) where source token from+j-1 ends a page and
 * the next begins another, what a viewer puts there. A viewer's copy across a break carries the
 * page's running footer and the next page's header, which the page texts leave out: a run of
 * quotation words there that are those lines' words (stored with each page: cleanPages), or that
 * hold one of the two page numbers, costs nothing. So does such a run at the quotation's start or
 * end, where a selection caught the furniture before or after the quoted words.
 */
function pageBreaks(src: SourceText, from: number, to: number): Map<number, PageBreak> {
  const out = new Map<number, PageBreak>();
  for (let p = Math.max(1, src.pageOf[from]); p < src.pages.length && src.pageStart[p] <= to; p++) {
    const at = src.pageStart[p];
    if (at < from || src.pageStart[p - 1] === at) continue;
    const labels = new Set([src.pages[p - 1].label, src.pages[p].label].map((l) => tokenize(l).tokens.join('')).filter(Boolean));
    out.set(at - from, { labels, furniture: new Set([...src.furniture[p - 1], ...src.furniture[p], ...labels]) });
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
  const loose = !!opts.loose;
  const same = loose ? (a: string, b: string) => a === b || looseEqual(a, b) : (a: string, b: string) => a === b;
  // Quotation tokens without their viewer marks; the source's tokens a copy may lack.
  const qp = q.map(plainToken);
  const cutLast = tokenMark(q[m - 1]) === 'cut-word';
  const freeAll = src.freeTokens();
  const freeSource = freeAll.subarray(from, to);
  /** The viewer's reading that makes quotation word i (1-based) the source's token sj, when they differ. */
  // The quotation's first word may be the end of a word cut at a line end, when it is no word of the source itself.
  const firstCut = !src.unigrams().has(qp[0]);
  const upper = (sj: number) => /^[\p{Lu}\p{N}]+$/u.test(src.raw(sj));
  const viewerRead = (i: number, sj: number) => sameWordRead(qp[i - 1], s[sj], i === 1 && firstCut, i === m && cutLast, upper, sj);
  const eq = (i: number, sj: number) => {
    const a = qp[i - 1];
    const b = s[sj];
    if (same(a, b)) return true;
    // Words of one length, or more than two letters apart in length, are no viewer's reading of one another but at the quotation's ends.
    const d = b.length - a.length;
    if (d === 0 || ((d > 2 || d < -2) && !(i === 1 && firstCut) && !(i === m && cutLast))) return false;
    return viewerRead(i, sj) !== undefined;
  };
  const breaks = pageBreaks(src, from, to);
  // The break columns as flags: a map lookup per cell would cost the alignment a third.
  const isBreak = new Uint8Array(W);
  for (const j of breaks.keys()) isBreak[j] = 1;
  /** Whether the quotation's first `i` words are all furniture of the break at column 0 (the window starts a page). */
  const leadAt0 = (i: number) => {
    const b = isBreak[0] ? breaks.get(0) : undefined;
    if (!b || i > PAGE_BREAK_WORDS || m - i < FURNITURE_MIN_REST) return false;
    for (let k = 0; k < i; k++) if (q[k] === GAP || !b.furniture.has(qp[k])) return false;
    return true;
  };
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
    const extra = freeInQuote(qi) ? 0 : 1;
    cost[row] = cost[up] + extra;
    back[row] = UP;
    if (leadAt0(i)) {
      cost[row] = 0;
      back[row] = PAGE_BREAK;
      breakRun.set(row, i);
    }
    const qw = qp[i - 1];
    const qPrev = i >= 2 ? qp[i - 2] : undefined;
    const edge = (i === 1 && firstCut) || (i === m && cutLast);
    for (let j = 1; j <= n; j++) {
      const sj = s[from + j - 1];
      // eq(i, …) inlined: this is the alignment's inner loop.
      let best = cost[up + j - 1];
      if (qw !== sj && !(loose && looseEqual(qw, sj))) {
        const d = sj.length - qw.length;
        if (d === 0 || ((d > 2 || d < -2) && !edge)) best++;
        else {
          // What sameWordRead can accept ends the longer word with i or g (a glyph's slots), a digit (a footnote mark), or
          // the same letter as the shorter (a small capital's lost initial); the rest is not asked (the loop's time).
          const long = d > 0 ? sj : qw;
          const c = long.charCodeAt(long.length - 1);
          const maybe = edge || c === 105 || c === 103 || (c >= 48 && c <= 57) || (d === -1 && c === sj.charCodeAt(sj.length - 1));
          if (!maybe || viewerRead(i, from + j - 1) === undefined) best++;
        }
      }
      let how = DIAG;
      const u = cost[up + j] + extra;
      if (u < best) {
        best = u;
        how = UP;
      }
      const l = cost[row + j - 1] + (freeSource[j - 1] ? 0 : 1);
      if (l < best) {
        best = l;
        how = LEFT;
      }
      if (j >= 2 && qw.length > sj.length && qw === s[from + j - 2] + sj && cost[up + j - 2] < best) {
        best = cost[up + j - 2];
        how = JOIN_S;
      }
      if (qPrev !== undefined && qPrev !== GAP && sj.length > qw.length && sj === qPrev + qw && cost[(i - 2) * W + j - 1] < best) {
        best = cost[(i - 2) * W + j - 1];
        how = JOIN_Q;
      }
      const brk = isBreak[j] ? breaks.get(j) : undefined;
      if (brk) {
        // Quotation words i-L…i-1 taken by the break: free when they are all the pages' furniture (or
        // numbers), anywhere, the quotation keeping a few words of its own; or, between words of the
        // quotation on both sides, when one of them is a page number and fewer than those (a table
        // of numbers is not a header).
        let hasLabel = false;
        let furniture = true;
        for (let L = 1; L <= PAGE_BREAK_WORDS && i - L >= 0; L++) {
          const t = q[i - L];
          if (t === GAP) break;
          if (brk.labels.has(qp[i - L])) hasLabel = true;
          if (!brk.furniture.has(qp[i - L])) furniture = false;
          const inside = i - L >= 1 && i < m && m - L >= Math.max(PAGE_BREAK_MIN_REST, L);
          if (!(furniture && m - L >= FURNITURE_MIN_REST) && !(hasLabel && inside)) {
            if (!furniture && !inside) break;
            continue;
          }
          if (cost[(i - L) * W + j] < best) {
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
  const endRank = (j: number) => (back[m * W + j] !== DIAG || q[m - 1] === GAP ? 0 : eq(m, from + j - 1) ? 2 : opts.continues ? 1 : 0);
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
  /** Quotation words a page break or a viewer put there (not the writer's: not counted among the quotation's words). */
  let brokenWords = 0;
  const forgiven: Forgiven[] = [];
  /** Quotation index of the last page-furniture run recorded (runs taken word by word are one run). */
  let furnitureFrom = -1;
  const forgive = (kind: Forgiven['kind'], quote: string, source: number | undefined) =>
    forgiven.push({ kind, quote, source: source === undefined ? '' : src.textBetween(source, source) });
  while (i > 0) {
    const b = back[i * W + j];
    if (b === GAP_ENTER) {
      i--;
    } else if (b === GAP_SKIP) {
      j--;
    } else if (b === DIAG) {
      const exact = same(qp[i - 1], s[from + j - 1]);
      const read = exact ? undefined : viewerRead(i, from + j - 1);
      if (read) forgive(read, qp[i - 1], from + j - 1);
      ops.push({ kind: exact || read ? 'same' : 'sub', qi: i - 1, sj: from + j - 1 });
      if (last < 0) last = from + j - 1;
      first = from + j - 1;
      i--;
      j--;
    } else if (b === UP) {
      const mark = freeInQuote(q[i - 1]) ? tokenMark(q[i - 1]) : undefined;
      if (mark) {
        forgive(mark, qp[i - 1], undefined);
        brokenWords++;
      }
      ops.push({ kind: mark ? 'same' : 'add', qi: i - 1 });
      i--;
    } else if (b === LEFT) {
      const free = freeSource[j - 1]
        ? freeInSource(
            s,
            (x) => src.raw(x),
            (x) => src.gap(x),
            from + j - 1,
          )
        : undefined;
      if (free) forgive(free, '', from + j - 1);
      ops.push({ kind: free ? 'same' : 'drop', sj: from + j - 1 });
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
      const words = qp.slice(i - L, i).join(' ');
      const prev = forgiven[forgiven.length - 1];
      if (furnitureFrom === i && prev?.kind === 'page-furniture') prev.quote = `${words} ${prev.quote}`;
      else forgive('page-furniture', words, undefined);
      furnitureFrom = i - L;
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
    if (o.qi !== undefined) qw.push(qp[o.qi]);
    if (o.sj !== undefined) {
      if (sFrom < 0) sFrom = o.sj;
      sTo = o.sj;
    }
  }
  flush();
  return {
    edits: cost[m * W + endJ],
    words: q.filter((t) => t !== GAP).length - brokenWords,
    start: first,
    end: last,
    differences,
    forgiven: forgiven.reverse(),
  };
}

export function trigramKey(a: number, b: number, c: number): number {
  return (Math.imul(a, 73856093) ^ Math.imul(b + 1, 19349663) ^ Math.imul(c + 2, 83492791)) >>> 0;
}

/**
 * Places worth aligning: source positions where the quotation would start, best first; with
 * `preferred`, those it accepts (the cited pages) before any other, so that a phrase the source
 * repeats elsewhere does not crowd the cited place out of the `max` kept.
 */
export function candidates(q: string[], src: SourceText, max = 6, preferred?: (at: number) => boolean): number[] {
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
  const first = (b: number) => (preferred?.(b * 8) ? 1 : 0);
  return [...votes.entries()]
    .filter(([, v]) => v >= 1)
    .sort((a, b) => first(b[0]) - first(a[0]) || b[1] - a[1] || a[0] - b[0])
    .slice(0, max)
    .map(([b]) => b * 8);
}
