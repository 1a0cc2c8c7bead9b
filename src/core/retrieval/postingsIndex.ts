/**
 * A read-only BM25 index over postings laid out flat (one Int32Array of documents, one
 * Float32Array of impacts, one offset per term), as the loaded library index holds it:
 * built by concatenating the shards' stored postings, with no per-passage work and no
 * object per posting. Scores, ties and overlaps equal Bm25Index's for the
 * same documents added in row order (the same formulas, summed in the same order).
 */
import { allocatePostings, type PostingsArrays } from './simd/postingsStore';
import { runToEnd } from '../util/timeSlices';
import { bm25Idf, bm25Impact, TopK, type Bm25Params, type LexicalIndex, type ScoredId } from './bm25';

/** A query term as searchWeighted scores it: its postings' range and its weight (query count × idf × (k1 + 1)). */
interface QueryTerm {
  t: number;
  from: number;
  to: number;
  weight: number;
}

/** Documents whose accumulators scoreAll fills together (256 KB of float32: a core's cache). */
const BLOCK = 1 << 16;
/** The light terms' share of what all of a query's terms can add together (scoreLightTermsLast). */
const LIGHT_SHARE = 0.05;
/** Looking a document up in a posting list costs about as much as reading this many postings in order. */
const LOOKUP_COST = 8;
/**
 * scoreLightTermsLast's margin, as a share of the best score: far above the float32 rounding of
 * sums of a few hundred terms taken in another order (~6e-8 per add), so that no document
 * scoreAll would keep is ever dropped.
 */
const TOLERANCE = 1e-4;

/** The first position p in [from, to) with docs[p] ≥ target (docs increasing), galloping from `from`. */
function seek(docs: Int32Array, from: number, to: number, target: number): number {
  if (from >= to || docs[from] >= target) return from;
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < to && docs[hi] < target) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > to) hi = to;
  lo++;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One shard's postings, rows numbered from 0 within the shard. */
export interface PostingsPart {
  terms: readonly string[];
  /** Term t's postings: postDocs/postTf[postOff[t] .. postOff[t+1]), increasing rows. */
  postOff: Uint32Array;
  postDocs: Uint32Array;
  postTf: Uint16Array;
  /** Lexical terms per row (repeats counted). */
  docLen: Uint32Array;
}

export class PostingsIndex implements LexicalIndex {
  tie?: ArrayLike<number>;
  private readonly acc: Float32Array;
  private readonly docs: Int32Array;
  private readonly impact: Float32Array;
  /** acc[docs[p]] += weight · impact[p] for p in [from, to): the kernel's loop, or JS's (postingsStore). */
  private readonly add: (from: number, to: number, weight: number) => void;
  /** Searches answered without reading every posting of their lightest terms (scoreLightTermsLast): tests, benchmarks. */
  lightTermsDeferred = 0;

  private constructor(
    private readonly termIds: Map<string, number>,
    private readonly start: Uint32Array,
    /**
     * Each posting's document (increasing within a term) and impact (bm25Impact of its tf and its
     * document's length norm: the part of its score no query changes, so a query reads one float
     * per posting and no document's norm), and the accumulators.
     */
    arrays: PostingsArrays,
    /** Each term's largest impact: with its weight, the most the term adds to any score. */
    private readonly maxImpact: Float32Array,
    private readonly docLen: Uint32Array,
    private readonly totalLen: number,
    /** A document's lexical terms in order (read on demand: only `overlapWith` needs them). */
    private readonly termsOf: (docId: number) => readonly string[],
    readonly k1: number,
    readonly b: number,
  ) {
    ({ docs: this.docs, impact: this.impact, acc: this.acc, add: this.add } = arrays);
  }

  /** The index of the parts' rows, part after part (part i's row r is document base_i + r). */
  static build(parts: readonly PostingsPart[], termsOf: (docId: number) => readonly string[], params: Partial<Bm25Params> = {}): PostingsIndex {
    return runToEnd(PostingsIndex.building(parts, termsOf, params));
  }

  /**
   * build, one step per part and pass: a loader runs it in slices (util/timeSlices.ts), so that
   * at a million passages its seconds never hold the thread at once (an editor's extension host).
   */
  static *building(
    parts: readonly PostingsPart[],
    termsOf: (docId: number) => readonly string[],
    params: Partial<Bm25Params> = {},
  ): Generator<void, PostingsIndex> {
    const k1 = params.k1 ?? 1.2;
    const b = params.b ?? 0.75;
    const termIds = new Map<string, number>();
    let df = new Uint32Array(1024);
    const maps: Int32Array[] = [];
    let rows = 0;
    let postings = 0;
    // Pass 1: one id per distinct term, its document frequency, and the documents' lengths.
    for (const part of parts) {
      const map = new Int32Array(part.terms.length);
      for (let t = 0; t < part.terms.length; t++) {
        let g = termIds.get(part.terms[t]);
        if (g === undefined) {
          g = termIds.size;
          termIds.set(part.terms[t], g);
          if (g >= df.length) {
            const grown = new Uint32Array(df.length * 2);
            grown.set(df);
            df = grown;
          }
        }
        map[t] = g;
        df[g] += part.postOff[t + 1] - part.postOff[t];
      }
      maps.push(map);
      rows += part.docLen.length;
      postings += part.postDocs.length;
      yield;
    }
    const docLen = new Uint32Array(rows);
    let totalLen = 0;
    let base = 0;
    for (const part of parts) {
      docLen.set(part.docLen, base);
      for (let r = 0; r < part.docLen.length; r++) totalLen += part.docLen[r];
      base += part.docLen.length;
    }
    yield;
    // Each document's length norm, as Bm25Index computes it.
    const norm = new Float32Array(rows);
    const a = k1 * (1 - b);
    const c = (k1 * b) / (rows > 0 ? totalLen / rows || 1 : 1);
    for (let d = 0; d < rows; d++) norm[d] = a + c * docLen[d];
    yield;
    const G = termIds.size;
    const start = new Uint32Array(G + 1);
    for (let g = 0; g < G; g++) start[g + 1] = start[g] + df[g];
    yield;
    // Pass 2: each term's postings, shard after shard, so rows stay increasing.
    const arrays = allocatePostings(postings, rows);
    const { docs, impact } = arrays;
    const maxImpact = new Float32Array(G);
    const cursor = start.slice(0, G);
    base = 0;
    for (const [i, part] of parts.entries()) {
      yield;
      const map = maps[i];
      for (let t = 0; t < part.terms.length; t++) {
        const g = map[t];
        const from = part.postOff[t];
        const to = part.postOff[t + 1];
        let at = cursor[g];
        let max = maxImpact[g];
        for (let j = from; j < to; j++, at++) {
          const d = base + part.postDocs[j];
          docs[at] = d;
          const v = (impact[at] = bm25Impact(part.postTf[j], norm[d]));
          if (v > max) max = v;
        }
        maxImpact[g] = max;
        cursor[g] = at;
      }
      base += part.docLen.length;
    }
    return new PostingsIndex(termIds, start, arrays, maxImpact, docLen, totalLen, termsOf, k1, b);
  }

  get size(): number {
    return this.docLen.length;
  }

  get averageLength(): number {
    return this.size > 0 ? this.totalLen / this.size : 0;
  }

  /** Postings held (one document and one term frequency each: 6 bytes). */
  get postingCount(): number {
    return this.docs.length;
  }

  /** Distinct terms of the library. */
  get termCount(): number {
    return this.termIds.size;
  }

  docFreq(term: string): number {
    const t = this.termIds.get(term);
    return t === undefined ? 0 : this.start[t + 1] - this.start[t];
  }

  idf(term: string): number {
    const n = this.size;
    const df = this.docFreq(term);
    return bm25Idf(n, df);
  }

  search(queryTerms: readonly string[], k: number, accept?: (docId: number) => boolean): ScoredId[] {
    const weights = new Map<string, number>();
    for (const t of queryTerms) weights.set(t, (weights.get(t) ?? 0) + 1);
    return this.searchWeighted(weights, k, accept);
  }

  searchWeighted(query: ReadonlyMap<string, number>, k: number, accept?: (docId: number) => boolean): ScoredId[] {
    if (k <= 0 || this.size === 0) return [];
    const n = this.size;
    const k1p1 = this.k1 + 1;
    const terms: QueryTerm[] = [];
    for (const [term, w] of query) {
      const t = this.termIds.get(term);
      if (t === undefined || w <= 0) continue;
      const from = this.start[t];
      const to = this.start[t + 1];
      const df = to - from;
      if (df <= 0) continue;
      terms.push({ t, from, to, weight: w * bm25Idf(n, df) * k1p1 });
    }
    // A filter decides which documents count towards the k: the pruning cannot know it.
    return (!accept && terms.length > 1 && k < n && this.scoreLightTermsLast(terms, k)) || this.scoreAll(terms, k, accept);
  }

  /**
   * Every posting of every term, a block of BLOCK documents at a time: within a block each term
   * adds its postings in query order (the float32 sums Bm25Index makes), then the block's
   * accumulators are read into the top k and zeroed. A block's accumulators stay in the
   * processor's cache while all terms add to them; one pass over a million of them would not.
   */
  private scoreAll(terms: readonly QueryTerm[], k: number, accept?: (docId: number) => boolean): ScoredId[] {
    const { acc } = this;
    const n = this.size;
    const at = Uint32Array.from(terms, (q) => q.from);
    const heap = new TopK(k, this.tie);
    for (let first = 0; first < n; first += BLOCK) {
      const end = Math.min(n, first + BLOCK);
      this.addBelow(terms, at, end);
      for (let d = first; d < end; d++) {
        const s = acc[d];
        if (s === 0) continue;
        acc[d] = 0;
        // At the threshold, push decides by the tie order (TopK): the k kept do not depend on the order.
        if (s >= heap.threshold() && (!accept || accept(d))) heap.push(d, s);
      }
    }
    return heap.sorted();
  }

  /**
   * scoreAll's top k without reading every posting of a long paragraph's commonest words: they
   * hold most of its postings (a word in most passages) and add least to any score (an idf near
   * 0). The lightest terms, together able to add at most LIGHT_SHARE of what all the terms can,
   * are left out of a first pass over the others' postings. Only a document whose first-pass
   * score plus that most still reaches the k-th best first-pass score can make the top k; the
   * light terms are looked up for those documents alone (galloping through their postings), and
   * the ones left near the k-th best are scored again term by term in query order with float32
   * sums, as scoreAll adds them: the same scores, and the same top k (TopK keeps the one first in the tie order
   * between equal scores, whatever the order). Undefined, with nothing read twice worth
   * mentioning, when too many documents stay in reach: scoreAll then reads every posting.
   * Measured at a million passages (the bench's paragraphs, 6.4M postings each, before the
   * WebAssembly kernel): 24.8 → 21.8 ms a paragraph.
   */
  private scoreLightTermsLast(terms: readonly QueryTerm[], k: number): ScoredId[] | undefined {
    const { acc, impact, docs } = this;
    const n = this.size;
    const m = terms.length;
    const bound = terms.map((q) => q.weight * this.maxImpact[q.t]);
    const all = bound.reduce((a, b) => a + b, 0);
    const light = new Uint8Array(m);
    let lightMost = 0;
    let lightPostings = 0;
    for (const i of Array.from({ length: m }, (_, i) => i).sort((a, b) => bound[a] - bound[b] || a - b)) {
      if (lightMost + bound[i] > LIGHT_SHARE * all) break;
      lightMost += bound[i];
      lightPostings += terms[i].to - terms[i].from;
      light[i] = 1;
    }
    if (lightPostings < k * LOOKUP_COST) return undefined;
    // First pass: the heavy terms' postings, block by block; the k best first-pass scores.
    const heavy = terms.filter((_, i) => !light[i]);
    const at = Uint32Array.from(heavy, (q) => q.from);
    const firstPass = new TopK(k);
    for (let first = 0; first < n; first += BLOCK) {
      const end = Math.min(n, first + BLOCK);
      this.addBelow(heavy, at, end);
      for (let d = first; d < end; d++) if (acc[d] !== 0 && acc[d] >= firstPass.threshold()) firstPass.push(d, acc[d]);
    }
    const top = firstPass.sorted();
    const margin = 2 * (TOLERANCE * ((top[0]?.score ?? 0) + lightMost) + 1e-12);
    // Below this no document can reach the k-th best; a document no heavy term has reaches lightMost at most.
    const floor = top.length === k ? top[k - 1].score - lightMost - margin : 0;
    const cand: number[] = [];
    if (floor > 0) {
      for (let d = 0; d < n; d++) {
        if (acc[d] === 0) continue;
        if (acc[d] >= floor && cand.length * LOOKUP_COST <= lightPostings) cand.push(d);
        else acc[d] = 0;
      }
    }
    if (floor <= 0 || cand.length * LOOKUP_COST > lightPostings) {
      if (floor <= 0) acc.fill(0);
      for (const d of cand) acc[d] = 0;
      return undefined;
    }
    // The light terms, for the candidates only (increasing, as the postings are).
    for (let i = 0; i < m; i++) {
      if (!light[i]) continue;
      const { from, to, weight } = terms[i];
      let p = from;
      for (let c = 0; c < cand.length && p < to; c++) {
        p = seek(docs, p, to, cand[c]);
        if (p < to && docs[p] === cand[c]) acc[cand[c]] += weight * impact[p];
      }
    }
    // Whole scores now (summed in another order): the k-th best of the candidates, to within the margin.
    const whole = new TopK(k);
    for (const d of cand) if (acc[d] >= whole.threshold()) whole.push(d, acc[d]);
    const kth = whole.sorted();
    const last = kth.length === k ? kth[k - 1].score - margin : -Infinity;
    const heap = new TopK(k, this.tie);
    for (const d of cand) {
      if (acc[d] >= last) {
        const score = this.exactScore(terms, d);
        if (score >= heap.threshold()) heap.push(d, score);
      }
      acc[d] = 0;
    }
    this.lightTermsDeferred++;
    return heap.sorted();
  }

  /**
   * Each term's postings from at[q] up to the first document ≥ end, added to the accumulators
   * (term after term, in the order given: the float32 sums scoreAll makes); at[q] moves on.
   */
  private addBelow(terms: readonly QueryTerm[], at: Uint32Array, end: number): void {
    for (let q = 0; q < terms.length; q++) {
      const stop = seek(this.docs, at[q], terms[q].to, end);
      this.add(at[q], stop, terms[q].weight);
      at[q] = stop;
    }
  }

  /** A document's score summed as scoreAll sums it: in query order, rounded to float32 after each add. */
  private exactScore(terms: readonly QueryTerm[], d: number): number {
    let s = 0;
    for (const { from, to, weight } of terms) {
      const p = seek(this.docs, from, to, d);
      if (p < to && this.docs[p] === d) s = Math.fround(s + weight * this.impact[p]);
    }
    return s;
  }

  /** As Bm25Index.overlapWith; a document's terms are read when it is asked about. */
  overlapWith(queryTerms: readonly string[]): { terms: number; of(docId: number): { query: number; doc: number } } {
    const n = this.size;
    const idfOf = (df: number) => bm25Idf(n, df);
    const dfOf = (t: number) => this.start[t + 1] - this.start[t];
    const ids = new Set<number>();
    let queryWeight = 0;
    for (const term of new Set(queryTerms)) {
      const t = this.termIds.get(term);
      queryWeight += idfOf(t === undefined ? 0 : dfOf(t));
      if (t !== undefined) ids.add(t);
    }
    return {
      terms: new Set(queryTerms).size,
      of: (docId) => {
        let docWeight = 0;
        let shared = 0;
        if (docId >= 0 && docId < n) {
          // Distinct terms in order of first occurrence, as Bm25Index keeps them.
          const seen = new Set<number>();
          for (const term of this.termsOf(docId)) {
            const t = this.termIds.get(term);
            if (t === undefined || seen.has(t)) continue;
            seen.add(t);
            const w = idfOf(dfOf(t));
            docWeight += w;
            if (ids.has(t)) shared += w;
          }
        }
        return { query: queryWeight > 0 ? shared / queryWeight : 0, doc: docWeight > 0 ? shared / docWeight : 0 };
      },
    };
  }
}
