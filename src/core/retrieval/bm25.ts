/**
 * Incremental in-memory BM25 over compact postings (typed arrays per term).
 * Removal tombstones a document; postings and document frequencies are
 * compacted lazily, so removing a whole PDF costs one pass, not one per passage.
 */
import { tieAfter, tieCompare } from './tieKeys';

export interface Bm25Params {
  k1: number;
  b: number;
}

export interface ScoredId {
  id: number;
  score: number;
}

/** What ranking and the analysis need from a lexical index (Bm25Index, or the loaded library's PostingsIndex). */
export interface LexicalIndex {
  readonly size: number;
  /** The order between equal scores (tieKeys.ts, by row); absent: by lower row. */
  tie?: ArrayLike<number>;
  readonly averageLength: number;
  docFreq(term: string): number;
  idf(term: string): number;
  search(queryTerms: readonly string[], k: number, accept?: (docId: number) => boolean): ScoredId[];
  searchWeighted(query: ReadonlyMap<string, number>, k: number, accept?: (docId: number) => boolean): ScoredId[];
  overlapWith(queryTerms: readonly string[]): { terms: number; of(docId: number): { query: number; doc: number } };
}

const INITIAL_POSTINGS = 4;
const NO_TERMS = new Int32Array(0);
// Compact before a search when tombstones exceed this share of live documents.
const COMPACT_RATIO = 0.02;

export class Bm25Index implements LexicalIndex {
  tie?: ArrayLike<number>;
  readonly k1: number;
  readonly b: number;

  private termIds = new Map<string, number>();
  private postDocs: Int32Array[] = [];
  private postTf: Uint16Array[] = [];
  private postLen: number[] = [];
  /** Live documents per term (exact after compaction; may count tombstones before). */
  private dfs: number[] = [];

  private docLen = new Uint32Array(1024);
  private alive = new Uint8Array(1024);
  /** Removed docs whose postings are still in the lists. */
  private stale = new Uint8Array(1024);
  private staleCount = 0;
  private liveCount = 0;
  private totalLen = 0;

  /** Distinct term ids of each document: the forward index behind `overlap`. */
  private docTerms: Int32Array[] = [];
  /** add()'s scratch: term frequencies by term id (kept zeroed), and the ids seen. */
  private scratchTf = new Uint32Array(1024);
  private readonly scratchTerms: number[] = [];

  private norm = new Float32Array(0);
  private normDirty = true;
  private acc = new Float32Array(1024);
  private touched = new Int32Array(1024);

  constructor(params: Partial<Bm25Params> = {}) {
    this.k1 = params.k1 ?? 1.2;
    this.b = params.b ?? 0.75;
  }

  /** Number of live documents. */
  get size(): number {
    return this.liveCount;
  }

  get averageLength(): number {
    return this.liveCount > 0 ? this.totalLen / this.liveCount : 0;
  }

  has(docId: number): boolean {
    return docId >= 0 && docId < this.alive.length && this.alive[docId] === 1;
  }

  /** Documents containing the term (after pending removals are compacted). */
  docFreq(term: string): number {
    this.compactIfStale(0);
    const t = this.termIds.get(term);
    return t === undefined ? 0 : this.dfs[t];
  }

  /** Lucene-style BM25 idf, always positive. */
  idf(term: string): number {
    const n = this.liveCount;
    const df = this.docFreq(term);
    return bm25Idf(n, df);
  }

  add(docId: number, terms: readonly string[]): void {
    if (!Number.isInteger(docId) || docId < 0) throw new RangeError(`bad docId ${docId}`);
    if (this.has(docId)) this.remove(docId);
    this.ensureDocCapacity(docId + 1);
    // A re-used id must not revive its old postings.
    if (this.stale[docId]) this.compactIfStale(0, true);
    // Term frequencies in a scratch array indexed by term id (no Map per document:
    // building the index of a 100k-passage library at load is mostly this loop).
    const touched = this.scratchTerms;
    touched.length = 0;
    for (const term of terms) {
      let t = this.termIds.get(term);
      if (t === undefined) {
        t = this.postDocs.length;
        this.termIds.set(term, t);
        this.postDocs.push(new Int32Array(INITIAL_POSTINGS));
        this.postTf.push(new Uint16Array(INITIAL_POSTINGS));
        this.postLen.push(0);
        this.dfs.push(0);
        if (t >= this.scratchTf.length) {
          const grown = new Uint32Array(Math.max(1024, this.scratchTf.length * 2));
          grown.set(this.scratchTf);
          this.scratchTf = grown;
        }
      }
      if (this.scratchTf[t]++ === 0) touched.push(t);
    }
    const ids = new Int32Array(touched.length);
    for (let j = 0; j < touched.length; j++) {
      const t = touched[j];
      const tf = this.scratchTf[t];
      this.scratchTf[t] = 0;
      let n = this.postLen[t];
      if (n === this.postDocs[t].length) {
        const docs = new Int32Array(n * 2);
        docs.set(this.postDocs[t]);
        this.postDocs[t] = docs;
        const tfs = new Uint16Array(n * 2);
        tfs.set(this.postTf[t]);
        this.postTf[t] = tfs;
      }
      this.postDocs[t][n] = docId;
      this.postTf[t][n] = Math.min(tf, 65535);
      this.postLen[t] = n + 1;
      this.dfs[t]++;
      ids[j] = t;
    }
    this.docTerms[docId] = ids;
    this.docLen[docId] = terms.length;
    this.alive[docId] = 1;
    this.liveCount++;
    this.totalLen += terms.length;
    this.normDirty = true;
  }

  remove(docId: number): boolean {
    if (!this.has(docId)) return false;
    this.alive[docId] = 0;
    this.stale[docId] = 1;
    this.staleCount++;
    this.liveCount--;
    this.totalLen -= this.docLen[docId];
    this.docLen[docId] = 0;
    this.docTerms[docId] = NO_TERMS;
    this.normDirty = true;
    return true;
  }

  /**
   * Term overlap between a query and documents, weighted by idf, both ways:
   * `query` is the share of the query's distinct terms found in the document,
   * `doc` the share of the document's found in the query. Both lie in 0–1 and,
   * unlike a BM25 score, can be compared across queries.
   */
  overlapWith(queryTerms: readonly string[]): { terms: number; of(docId: number): { query: number; doc: number } } {
    this.compactIfStale(0);
    const n = this.liveCount;
    const idfOf = (df: number) => bm25Idf(n, df);
    const ids = new Set<number>();
    let queryWeight = 0;
    for (const term of new Set(queryTerms)) {
      const t = this.termIds.get(term);
      // A term the library lacks still counts in the query's weight (it cannot be matched).
      queryWeight += idfOf(t === undefined ? 0 : this.dfs[t]);
      if (t !== undefined) ids.add(t);
    }
    return {
      terms: new Set(queryTerms).size,
      of: (docId) => {
        const doc = this.docTerms[docId] ?? NO_TERMS;
        let docWeight = 0;
        let shared = 0;
        for (let i = 0; i < doc.length; i++) {
          const w = idfOf(this.dfs[doc[i]]);
          docWeight += w;
          if (ids.has(doc[i])) shared += w;
        }
        return { query: queryWeight > 0 ? shared / queryWeight : 0, doc: docWeight > 0 ? shared / docWeight : 0 };
      },
    };
  }

  search(queryTerms: readonly string[], k: number, accept?: (docId: number) => boolean): ScoredId[] {
    const weights = new Map<string, number>();
    for (const t of queryTerms) weights.set(t, (weights.get(t) ?? 0) + 1);
    return this.searchWeighted(weights, k, accept);
  }

  /** Query terms with weights (repeat counts, or expansion weights from feedback). */
  searchWeighted(query: ReadonlyMap<string, number>, k: number, accept?: (docId: number) => boolean): ScoredId[] {
    this.compactIfStale(COMPACT_RATIO);
    if (k <= 0 || this.liveCount === 0) return [];
    this.refreshNorm();
    const n = this.liveCount;
    const k1p1 = this.k1 + 1;
    const acc = this.acc;
    const touched = this.touched;
    const alive = this.alive;
    const norm = this.norm;
    let nTouched = 0;
    for (const [term, w] of query) {
      const t = this.termIds.get(term);
      if (t === undefined || w <= 0) continue;
      const df = this.dfs[t];
      if (df <= 0) continue;
      const weight = w * bm25Idf(n, df) * k1p1;
      const docs = this.postDocs[t];
      const tfs = this.postTf[t];
      const len = this.postLen[t];
      for (let i = 0; i < len; i++) {
        const d = docs[i];
        if (alive[d] === 0) continue;
        const tf = tfs[i];
        if (acc[d] === 0) touched[nTouched++] = d;
        acc[d] += weight * bm25Impact(tf, norm[d]);
      }
    }
    return drainTopK(acc, touched, nTouched, k, accept, this.tie);
  }

  private refreshNorm(): void {
    if (!this.normDirty && this.norm.length === this.docLen.length) return;
    if (this.norm.length !== this.docLen.length) this.norm = new Float32Array(this.docLen.length);
    const avg = this.averageLength || 1;
    const a = this.k1 * (1 - this.b);
    const c = (this.k1 * this.b) / avg;
    for (let d = 0; d < this.docLen.length; d++) this.norm[d] = a + c * this.docLen[d];
    this.normDirty = false;
  }

  private ensureDocCapacity(n: number): void {
    if (n <= this.docLen.length) return;
    let cap = this.docLen.length;
    while (cap < n) cap *= 2;
    const grow = <T extends Uint32Array | Uint8Array | Float32Array | Int32Array>(a: T, make: (c: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.docLen = grow(this.docLen, (c) => new Uint32Array(c));
    this.alive = grow(this.alive, (c) => new Uint8Array(c));
    this.stale = grow(this.stale, (c) => new Uint8Array(c));
    this.acc = new Float32Array(cap);
    this.touched = new Int32Array(cap);
    this.normDirty = true;
  }

  /** Drops postings of removed documents and recomputes document frequencies. */
  private compactIfStale(ratio: number, force = false): void {
    if (this.staleCount === 0) return;
    if (!force && this.staleCount <= ratio * this.liveCount) return;
    const stale = this.stale;
    for (let t = 0; t < this.postDocs.length; t++) {
      const docs = this.postDocs[t];
      const tfs = this.postTf[t];
      const len = this.postLen[t];
      let w = 0;
      for (let i = 0; i < len; i++) {
        if (stale[docs[i]] === 1) continue;
        docs[w] = docs[i];
        tfs[w] = tfs[i];
        w++;
      }
      this.postLen[t] = w;
      this.dfs[t] = w;
      // Give memory back when a list shrank a lot.
      if (w * 4 < docs.length && docs.length > INITIAL_POSTINGS) {
        const cap = Math.max(INITIAL_POSTINGS, w * 2);
        this.postDocs[t] = docs.slice(0, cap);
        this.postTf[t] = tfs.slice(0, cap);
      }
    }
    stale.fill(0);
    this.staleCount = 0;
  }
}

/** Fixed-size min-heap keeping the k best (id, score) pairs. */
/** BM25's idf (Lucene's form, never negative) of a term in `df` of `n` documents. */
/**
 * The part of a posting's BM25 score that no query changes, rounded to float32 as the loaded
 * index stores it per posting: a term adds weight × impact (weight = query count × idf × (k1 + 1)).
 */
export function bm25Impact(tf: number, norm: number): number {
  return Math.fround(tf / (tf + norm));
}

export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** The k best of the documents a query touched (their scores in `acc`), best first; `acc` is left zeroed for the next query. */
export function drainTopK(
  acc: Float32Array,
  touched: Int32Array,
  nTouched: number,
  k: number,
  accept?: (docId: number) => boolean,
  tie?: ArrayLike<number>,
): ScoredId[] {
  const heap = new TopK(k, tie);
  for (let i = 0; i < nTouched; i++) {
    const d = touched[i];
    const s = acc[d];
    acc[d] = 0;
    // At the threshold, push decides by the tie order: the k kept do not depend on the order documents come in.
    if (s >= heap.threshold() && (!accept || accept(d))) heap.push(d, s);
  }
  return heap.sorted();
}

/**
 * The k best of what is pushed: by score, and between equal scores by `tie` (tieKeys.ts: what the
 * passage is), then by lower id, whatever the order they come in (a min-heap on (score, −tie, −id)).
 */
export class TopK {
  private ids: Int32Array;
  private scores: Float64Array;
  private n = 0;

  constructor(
    readonly k: number,
    private readonly tie?: ArrayLike<number>,
  ) {
    this.ids = new Int32Array(Math.max(1, k));
    this.scores = new Float64Array(Math.max(1, k));
  }

  /** Scores below this cannot enter the heap (one equal to it enters only if it comes before the one it would replace). */
  threshold(): number {
    return this.n < this.k ? -Infinity : this.scores[0];
  }

  push(id: number, score: number): void {
    const ids = this.ids;
    const sc = this.scores;
    const tie = this.tie;
    // Slot a is worse than (score, id): a lower score, or the same and after it.
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (sc[p] < score || (sc[p] === score && tieAfter(tie, ids[p], id))) break;
        sc[i] = sc[p];
        ids[i] = ids[p];
        i = p;
      }
      sc[i] = score;
      ids[i] = id;
      return;
    }
    if (score < sc[0] || (score === sc[0] && !tieAfter(tie, ids[0], id))) return;
    let i = 0;
    const n = this.n;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (sc[r] < sc[l] || (sc[r] === sc[l] && tieAfter(tie, ids[r], ids[l]))) ? r : l;
      if (sc[c] > score || (sc[c] === score && tieAfter(tie, id, ids[c]))) break;
      sc[i] = sc[c];
      ids[i] = ids[c];
      i = c;
    }
    sc[i] = score;
    ids[i] = id;
  }

  /** Best first; equal scores in their tie order. */
  sorted(): ScoredId[] {
    const out: ScoredId[] = [];
    for (let i = 0; i < this.n; i++) out.push({ id: this.ids[i], score: this.scores[i] });
    const tie = this.tie;
    out.sort((a, b) => b.score - a.score || tieCompare(tie, a.id, b.id));
    return out;
  }
}
