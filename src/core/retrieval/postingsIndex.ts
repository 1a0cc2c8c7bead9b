/**
 * A read-only BM25 index over postings laid out flat (one Int32Array of documents, one
 * Uint16Array of term frequencies, one offset per term), as the loaded library index
 * holds it: built by concatenating the shards' stored postings, with no per-passage
 * work and no object per posting. Scores, ties and overlaps equal Bm25Index's for the
 * same documents added in row order (the same formulas, summed in the same order).
 */
import { TopK, type Bm25Params, type LexicalIndex, type ScoredId } from './bm25';

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
  readonly k1: number;
  readonly b: number;
  private readonly norm: Float32Array;
  private readonly acc: Float32Array;
  private readonly touched: Int32Array;

  private constructor(
    private readonly termIds: Map<string, number>,
    private readonly start: Uint32Array,
    private readonly docs: Int32Array,
    private readonly tfs: Uint16Array,
    private readonly docLen: Uint32Array,
    private readonly totalLen: number,
    /** A document's lexical terms in order (read on demand: only `overlapWith` needs them). */
    private readonly termsOf: (docId: number) => readonly string[],
    params: Partial<Bm25Params>,
  ) {
    this.k1 = params.k1 ?? 1.2;
    this.b = params.b ?? 0.75;
    const n = docLen.length;
    this.norm = new Float32Array(n);
    const avg = this.averageLength || 1;
    const a = this.k1 * (1 - this.b);
    const c = (this.k1 * this.b) / avg;
    for (let d = 0; d < n; d++) this.norm[d] = a + c * docLen[d];
    this.acc = new Float32Array(n);
    this.touched = new Int32Array(n);
  }

  /** The index of the parts' rows, part after part (part i's row r is document base_i + r). */
  static build(parts: readonly PostingsPart[], termsOf: (docId: number) => readonly string[], params: Partial<Bm25Params> = {}): PostingsIndex {
    const termIds = new Map<string, number>();
    let df = new Uint32Array(1024);
    const maps: Int32Array[] = [];
    let rows = 0;
    let postings = 0;
    // Pass 1: one id per distinct term, and its document frequency.
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
    }
    const G = termIds.size;
    const start = new Uint32Array(G + 1);
    for (let g = 0; g < G; g++) start[g + 1] = start[g] + df[g];
    // Pass 2: each term's postings, shard after shard, so rows stay increasing.
    const docs = new Int32Array(postings);
    const tfs = new Uint16Array(postings);
    const cursor = start.slice(0, G);
    const docLen = new Uint32Array(rows);
    let totalLen = 0;
    let base = 0;
    parts.forEach((part, i) => {
      const map = maps[i];
      for (let t = 0; t < part.terms.length; t++) {
        const g = map[t];
        const from = part.postOff[t];
        const to = part.postOff[t + 1];
        const c = cursor[g];
        for (let j = from; j < to; j++) docs[c + j - from] = base + part.postDocs[j];
        tfs.set(part.postTf.subarray(from, to), c);
        cursor[g] = c + to - from;
      }
      docLen.set(part.docLen, base);
      for (let r = 0; r < part.docLen.length; r++) totalLen += part.docLen[r];
      base += part.docLen.length;
    });
    return new PostingsIndex(termIds, start, docs, tfs, docLen, totalLen, termsOf, params);
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
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
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
    const { acc, touched, norm, docs, tfs } = this;
    let nTouched = 0;
    for (const [term, w] of query) {
      const t = this.termIds.get(term);
      if (t === undefined || w <= 0) continue;
      const from = this.start[t];
      const to = this.start[t + 1];
      const df = to - from;
      if (df <= 0) continue;
      const weight = w * Math.log(1 + (n - df + 0.5) / (df + 0.5)) * k1p1;
      for (let i = from; i < to; i++) {
        const d = docs[i];
        const tf = tfs[i];
        if (acc[d] === 0) touched[nTouched++] = d;
        acc[d] += (weight * tf) / (tf + norm[d]);
      }
    }
    const heap = new TopK(k);
    for (let i = 0; i < nTouched; i++) {
      const d = touched[i];
      const s = acc[d];
      acc[d] = 0;
      if (s > heap.threshold() && (!accept || accept(d))) heap.push(d, s);
    }
    return heap.sorted();
  }

  /** As Bm25Index.overlapWith; a document's terms are read when it is asked about. */
  overlapWith(queryTerms: readonly string[]): { terms: number; of(docId: number): { query: number; doc: number } } {
    const n = this.size;
    const idfOf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
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
