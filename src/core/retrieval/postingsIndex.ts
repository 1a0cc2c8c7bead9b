/**
 * A read-only BM25 index over postings laid out flat (one Int32Array of documents, one
 * Float32Array of impacts, one offset per term), as the loaded library index holds it: built by concatenating the shards' stored postings, with no per-passage
 * work and no object per posting. Scores, ties and overlaps equal Bm25Index's for the
 * same documents added in row order (the same formulas, summed in the same order).
 */
import { bm25Idf, bm25Impact, TopK, type Bm25Params, type LexicalIndex, type ScoredId } from './bm25';

/** A query term as searchWeighted scores it: its postings' range and its weight (query count × idf × (k1 + 1)). */
interface QueryTerm {
  from: number;
  to: number;
  weight: number;
}

/** Documents whose accumulators scoreAll fills together (256 KB of float32: a core's cache). */
const BLOCK = 1 << 16;

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
  private readonly acc: Float32Array;

  private constructor(
    private readonly termIds: Map<string, number>,
    private readonly start: Uint32Array,
    private readonly docs: Int32Array,
    /**
     * Each posting's impact (bm25Impact of its tf and its document's length norm), laid out as
     * docs: the part of its score no query changes, so a query reads one float per posting and
     * no document's norm (at a million passages, a quarter of a paragraph's search time).
     */
    private readonly impact: Float32Array,
    private readonly docLen: Uint32Array,
    private readonly totalLen: number,
    /** A document's lexical terms in order (read on demand: only `overlapWith` needs them). */
    private readonly termsOf: (docId: number) => readonly string[],
    readonly k1: number,
    readonly b: number,
  ) {
    this.acc = new Float32Array(docLen.length);
  }

  /** The index of the parts' rows, part after part (part i's row r is document base_i + r). */
  static build(parts: readonly PostingsPart[], termsOf: (docId: number) => readonly string[], params: Partial<Bm25Params> = {}): PostingsIndex {
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
    }
    const docLen = new Uint32Array(rows);
    let totalLen = 0;
    let base = 0;
    for (const part of parts) {
      docLen.set(part.docLen, base);
      for (let r = 0; r < part.docLen.length; r++) totalLen += part.docLen[r];
      base += part.docLen.length;
    }
    // Each document's length norm, as Bm25Index computes it.
    const norm = new Float32Array(rows);
    const a = k1 * (1 - b);
    const c = (k1 * b) / (rows > 0 ? totalLen / rows || 1 : 1);
    for (let d = 0; d < rows; d++) norm[d] = a + c * docLen[d];
    const G = termIds.size;
    const start = new Uint32Array(G + 1);
    for (let g = 0; g < G; g++) start[g + 1] = start[g] + df[g];
    // Pass 2: each term's postings, shard after shard, so rows stay increasing.
    const docs = new Int32Array(postings);
    const impact = new Float32Array(postings);
    const cursor = start.slice(0, G);
    base = 0;
    parts.forEach((part, i) => {
      const map = maps[i];
      for (let t = 0; t < part.terms.length; t++) {
        const g = map[t];
        const from = part.postOff[t];
        const to = part.postOff[t + 1];
        let at = cursor[g];
        for (let j = from; j < to; j++, at++) {
          const d = base + part.postDocs[j];
          docs[at] = d;
          impact[at] = bm25Impact(part.postTf[j], norm[d]);
        }
        cursor[g] = at;
      }
      base += part.docLen.length;
    });
    return new PostingsIndex(termIds, start, docs, impact, docLen, totalLen, termsOf, k1, b);
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
      terms.push({ from, to, weight: w * bm25Idf(n, df) * k1p1 });
    }
    return this.scoreAll(terms, k, accept);
  }

  /**
   * Every posting of every term, a block of BLOCK documents at a time: within a block each term
   * adds its postings in query order (the float32 sums Bm25Index makes), then the block's
   * accumulators are read into the top k and zeroed. A block's accumulators stay in the
   * processor's cache while all terms add to them; one pass over a million of them would not.
   */
  private scoreAll(terms: readonly QueryTerm[], k: number, accept?: (docId: number) => boolean): ScoredId[] {
    const { acc, impact, docs } = this;
    const n = this.size;
    const m = terms.length;
    const at = new Uint32Array(m);
    for (let q = 0; q < m; q++) at[q] = terms[q].from;
    const heap = new TopK(k);
    for (let first = 0; first < n; first += BLOCK) {
      const end = Math.min(n, first + BLOCK);
      for (let q = 0; q < m; q++) {
        const { to, weight } = terms[q];
        let p = at[q];
        for (; p < to; p++) {
          const d = docs[p];
          if (d >= end) break;
          acc[d] += weight * impact[p];
        }
        at[q] = p;
      }
      for (let d = first; d < end; d++) {
        const s = acc[d];
        if (s === 0) continue;
        acc[d] = 0;
        // At the threshold, push decides by id (TopK): the k kept do not depend on the order.
        if (s >= heap.threshold() && (!accept || accept(d))) heap.push(d, s);
      }
    }
    return heap.sorted();
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
