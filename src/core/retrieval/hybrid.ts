/**
 * The ranking function the product and the evaluation both call: BM25 and
 * vector scan, each run deep, fused by weighted RRF, then aggregated to sources.
 */
import { TopK, type LexicalIndex, type ScoredId } from './bm25';
import { reciprocalRankFusion, type FusedItem } from './fusion';
import { queryTerms } from './representation';
import { languageHint, type Lang } from '../text/tokenize';
import { dotRow, topKDot, topKDotMany } from './vectorScan';
import { tieCompare } from './tieKeys';

export interface PassageCollection {
  lexical: LexicalIndex; // docId = passage row
  vectors: Float32Array;
  dim: number;
  count: number; // row-major, row = passage row
  sourceOfRow: Int32Array; // row -> source number
  /**
   * Rows that have a vector (1) while a model's vectors are still being computed; the
   * others are left out of the vector ranking (their zero vector means nothing). Absent: all do.
   */
  embedded?: Uint8Array;
  /**
   * The language of a passage (languageHint; undefined when nothing tells):
   * lets the fusion discount BM25 between a query and a passage in different languages.
   */
  languageOfRow?: (row: number) => Lang | undefined;
  /** Rows the user highlighted in Zotero (1): they get the bounded `highlightBoost`. Absent: none. */
  highlighted?: Uint8Array;
  /**
   * The words the user highlighted in a highlighted row (queryTerms of the highlight's text): the
   * boost is scaled by how much of them the query uses. Absent: the full boost for every highlighted row.
   */
  highlightTerms?: (row: number) => readonly string[];
  /**
   * The order between equal scores, by row and by source (tieKeys.ts: from what a passage is, not
   * where it lies): the same rankings whatever the rows' order. Absent: by lower row, lower source.
   */
  tieKeys?: Float64Array;
  sourceTieKeys?: Float64Array;
}

/** The vector scan's filter: the caller's, and only rows that have a vector. */
function vectorAccept(c: PassageCollection, accept?: (row: number) => boolean): ((row: number) => boolean) | undefined {
  const e = c.embedded;
  if (!e) return accept;
  return accept ? (row) => e[row] === 1 && accept(row) : (row) => e[row] === 1;
}

export interface RankedPassage {
  row: number;
  score: number;
  cosine: number;
  lexicalRank?: number;
  vectorRank?: number;
}

export interface HybridQuery {
  text: string;
  vector: Float32Array;
}

export interface HybridParams {
  /** Candidates taken from each list before fusion. */
  lexicalDepth: number;
  vectorDepth: number;
  rrfK: number;
  lexicalWeight: number;
  vectorWeight: number;
  /** Vector pseudo-relevance feedback (Rocchio): rows averaged, and their weight added to the query. */
  prfRows: number;
  prfWeight: number;
  /** Source score = best passage + bonus * sum of the next ones' fused scores (capped count). */
  sourceBonus: number;
  sourceBonusPassages: number;
  /**
   * How the lists combine: 'rrf', weighted reciprocal ranks; 'convex', the weighted sum of each
   * list's scores min-max normalised over its own top list (0 where a row is absent from it).
   */
  fusion: 'rrf' | 'convex';
  /**
   * The lexical weight's factor for a passage whose language differs from the query's (both
   * known): across languages BM25 matches only names, numbers and cognates. 1: no change.
   */
  crossLanguageLexical: number;
  /**
   * Convex fusion: a passage in another language than the query's is scored against the most it
   * can reach (vector weight + lexical weight × crossLanguageLexical) rather than the most a
   * passage in the query's language can (vector weight + lexical weight), so that it is not
   * outranked for the BM25 support it cannot get. Where every passage is in the other language the
   * ranking is unchanged (one factor for all).
   */
  crossLanguageRescale?: boolean;
  /**
   * A passage the user highlighted (PassageCollection.highlighted) has its fused score raised by
   * at most this fraction of itself — the fraction scaled by the share (idf-weighted) of the
   * highlighted words the query uses — after fusion and only among the candidates already
   * retrieved: it passes only passages scored less than (1 + boost) times its own, and a passage
   * the query does not retrieve, or whose highlighted words it does not use, gets nothing.
   * 0: highlights do not move rankings.
   */
  highlightBoost: number;
  /**
   * Above this many passages, when BM25 fills its whole depth, the vector list ranks BM25's
   * candidates by their cosines instead of scanning every passage (undefined: always scan).
   * For fusions where the vectors only break ties: with RRF at the defaults a passage found by
   * the vectors alone scores at most vectorWeight / (rrfK + 1) < lexicalWeight / (rrfK +
   * lexicalDepth), below every BM25 candidate, so it never reaches the top `lexicalDepth`
   * anyway. What changes is which candidates get the vectors' bonus: their order among
   * themselves, not among the whole library (DEFAULT_HYBRID, measured).
   */
  vectorScanAbove?: number;
}

/**
 * The highlight boost (HybridParams.highlightBoost), measured 2026-12-05 with
 * scripts/measure-highlights.ts on SciFact train (300 claims, embedded vectors; README, "Highlights"):
 * with 10 % or 30 % of the passages highlighted at random and none relevant, nDCG@10 0.7115 → 0.7114
 * / 0.7115 at 0.3 (0.7102 / 0.7024 at 0.5); with the sentence of the relevant abstract that the claim
 * is about highlighted for 127 claims, 0.6988 → 0.7070 on those (0.7115 → 0.7150 on all 300).
 * Scaling by the whole query's words instead of the highlight's (min of the two) gained more there
 * (0.7164) but lost with random highlights (0.6955 at 30 %): kept as it is.
 */
export const HIGHLIGHT_BOOST = 0.3;
/**
 * The highlight boost under the neural models' convex fusion, whose min-max scores lie closer
 * together at the top: measured with the same script (--fusion neural) on the embedded vectors, no
 * neural model being at hand here: random highlights on 30 % of the passages, nDCG@10 0.6114 →
 * 0.6113 at 0.1 (0.6092 at 0.3); the claim's sentence highlighted, 0.6121 → 0.6167 on those claims.
 */
export const NEURAL_HIGHLIGHT_BOOST = 0.1;

/**
 * The embedded vectors rank BM25's candidates rather than the library above this many passages
 * (HybridParams.vectorScanAbove): at a million passages a scan of the 512-d vectors costs ~45 ms
 * a paragraph, half of a warm analysis. Measured 2026-12-05 (nDCG@10, the product's rankSources,
 * the candidates' ranking forced at every size): SciFact train 0.7123 with the scan, 0.7123
 * without (BM25 alone 0.7125); xling-dev en2fr 0.5758 / 0.5758, fr2en 0.5741 / 0.5741.
 */
export const EMBEDDED_VECTOR_SCAN_ABOVE = 250_000;

// Tuned on SciFact train (nDCG@10, 809 claims): the hashed vectors are weaker than BM25
// there, so they only break ties and add recall at the tail. Measured 2026-12-03:
// vector weight 0 → 0.6972, 0.05 → 0.6971, 0.1 → 0.6949, 0.2 → 0.6865 (rrfK 10);
// 0.05 keeps the vectors' tie-breaking at no cost (plain BM25 in the same run: 0.6957).
export const DEFAULT_HYBRID: HybridParams = {
  lexicalDepth: 100,
  vectorDepth: 100,
  rrfK: 10,
  lexicalWeight: 1,
  vectorWeight: 0.05,
  prfRows: 0,
  prfWeight: 0,
  sourceBonus: 0,
  sourceBonusPassages: 2,
  fusion: 'rrf',
  crossLanguageLexical: 1,
  highlightBoost: HIGHLIGHT_BOOST,
  vectorScanAbove: EMBEDDED_VECTOR_SCAN_ABOVE,
};

/**
 * Fusion for a neural embedder (local ONNX models, Ollama, OpenAI-compatible servers): a convex
 * combination of the two lists' scores, each min-max normalised over its own top 100, the vectors
 * weighted 0.6 and BM25 0.4; BM25 counts a quarter as much for a passage in another language than
 * the query (languageHint on each side: function words, for a sentence one more of one language,
 * else a French-only letter), where it matches only names, numbers and cognates and would outvote
 * a multilingual model.
 *
 * Measured 2026-12-04 with scripts/tune-fusion.ts (nDCG@10, the product's rankSources on cached
 * vectors) on the development sets only — SciFact train, xling-dev en2fr/fr2en, tatoeba-fr-en
 * en2fr/fr2en — with real int8 ONNX models through LocalProvider (multilingual-e5-small,
 * bge-small-en-v1.5, e5-small-v2, all-MiniLM-L6-v2), one rule for all (BENCHMARKS.md, "Fusion for
 * neural models"). bge-small-en-v1.5, SciFact train: 0.7656 (vectors alone 0.7426, BM25 0.7125,
 * the previous rule 0.7562; vectors 0.5 / 0.7 / 0.8: 0.7648 / 0.7639 / 0.7577). multilingual-e5-small: xling en2fr 0.8553 (vectors alone 0.8363, BM25 0.5758;
 * the previous rule, equal-weight RRF with k = 60: 0.7216), fr2en 0.8206 (0.8110 alone; 0.6995
 * before); Tatoeba sentences 0.9249 / 0.9347 (0.9269 / 0.9356 alone: a hair below, where the
 * function words of a short sentence cannot tell its language and BM25 keeps its full weight).
 * With its queries embedded twice (models.ts, queryAlsoAsPassage) the same fusion gives it xling
 * en2fr 0.864, fr2en 0.858 (BENCHMARKS.md, "Queries embedded twice").
 * crossLanguageRescale: in a library of both languages the discount alone left a passage in the
 * other language behind those in the query's for the BM25 they could match (the example's first
 * paragraph, English, and Dubreuil's French article: first for the vectors, fourth fused; first with
 * it). One factor for every passage where all are in the other language: the xling rows do not move.
 */
export const NEURAL_FUSION: Readonly<Partial<HybridParams>> = {
  fusion: 'convex',
  vectorWeight: 0.6,
  lexicalWeight: 0.4,
  crossLanguageLexical: 0.25,
  crossLanguageRescale: true,
  highlightBoost: NEURAL_HIGHLIGHT_BOOST,
  vectorScanAbove: undefined,
};

/** The fusion parameters for an index's provider ('embedded' = the offline hashed vectors). */
export function fusionFor(providerId: string): Partial<HybridParams> {
  return providerId === 'embedded' ? {} : { ...NEURAL_FUSION };
}

export interface RankOptions {
  k: number;
  accept?: (row: number) => boolean;
  params?: Partial<HybridParams>;
  /**
   * Optional query re-embedding with index statistics (idf of a stemmed term).
   * Used for the vector search only; `cosine` stays the plain query cosine.
   */
  weightedQueryVector?: (idf: (term: string) => number) => Float32Array;
  /**
   * The vector list this query would get from its own scan, computed beforehand
   * for a batch of queries (vectorHitsMany): used instead of scanning. Only valid
   * for the same vector, collection, params and accept filter.
   */
  vectorHits?: ScoredId[];
}

/**
 * The vector lists of several queries in one batched scan: for each query,
 * exactly what rankPassages/rankSources would compute themselves, to be passed
 * back as RankOptions.vectorHits. Undefined where a query takes no vector list
 * (vector weight 0, vector of another dimension). Not for weightedQueryVector.
 */
export function vectorHitsMany(c: PassageCollection, vectors: Float32Array[], opts: Pick<RankOptions, 'accept' | 'params'>): Array<ScoredId[] | undefined> {
  const p = { ...DEFAULT_HYBRID, ...opts.params };
  // Above vectorScanAbove each query ranks its BM25 candidates instead (fuse), or scans alone
  // when BM25 finds fewer than its depth: a batched scan would be wasted.
  const large = candidatesMayStandIn(c, p);
  const scanned = vectors.map((v) => !large && p.vectorWeight > 0 && c.count > 0 && v.length === c.dim);
  const lists = topKDotMany(
    c.vectors,
    c.dim,
    c.count,
    vectors.filter((_, i) => scanned[i]),
    p.vectorDepth,
    vectorAccept(c, opts.accept),
    c.tieKeys,
  );
  let next = 0;
  return scanned.map((yes) => (yes ? lists[next++] : undefined));
}

export function rankPassages(c: PassageCollection, query: HybridQuery, opts: RankOptions): RankedPassage[] {
  const p = { ...DEFAULT_HYBRID, ...opts.params };
  const fused = fuse(c, query, opts, p);
  return fused.slice(0, opts.k);
}

export function rankSources(c: PassageCollection, query: HybridQuery, opts: RankOptions): Array<{ source: number; score: number; passages: RankedPassage[] }> {
  const p = { ...DEFAULT_HYBRID, ...opts.params };
  const fused = fuse(c, query, opts, p);
  const bySource = new Map<number, RankedPassage[]>();
  for (const r of fused) {
    const s = c.sourceOfRow[r.row];
    const list = bySource.get(s);
    if (list) list.push(r);
    else bySource.set(s, [r]);
  }
  const out: Array<{ source: number; score: number; passages: RankedPassage[] }> = [];
  for (const [source, ps] of bySource) {
    // ps is already best-first; further passages add a small bonus, never more than the best one.
    let score = ps[0].score;
    for (let i = 1; i < Math.min(ps.length, 1 + p.sourceBonusPassages); i++) score += p.sourceBonus * ps[i].score;
    out.push({ source, score, passages: ps });
  }
  out.sort((a, b) => b.score - a.score || tieCompare(c.sourceTieKeys, a.source, b.source));
  return out.slice(0, opts.k);
}

function fuse(c: PassageCollection, query: HybridQuery, opts: RankOptions, p: HybridParams): RankedPassage[] {
  const terms = queryTerms(query.text);
  const lexical = p.lexicalWeight > 0 && terms.length > 0 ? c.lexical.search(terms, p.lexicalDepth, opts.accept) : [];
  const hasVector = p.vectorWeight > 0 && c.count > 0 && query.vector.length === c.dim;
  let vector: Array<{ id: number; score: number }> = [];
  if (hasVector) {
    const accept = vectorAccept(c, opts.accept);
    const qv = opts.weightedQueryVector ? opts.weightedQueryVector((t) => c.lexical.idf(t)) : query.vector;
    vector = scansCandidatesOnly(c, p, lexical)
      ? rankCandidates(c, lexical, qv, p.vectorDepth, accept)
      : (opts.vectorHits ?? topKDot(c.vectors, c.dim, c.count, qv, p.vectorDepth, accept, c.tieKeys));
    if (p.prfRows > 0 && p.prfWeight > 0) {
      // Rocchio in vector space: the first fused ranking's top rows pull the query toward their topic.
      const first = reciprocalRankFusion(
        [
          { ids: lexical.map((h) => h.id), weight: p.lexicalWeight },
          { ids: vector.map((h) => h.id), weight: p.vectorWeight },
        ],
        p.rrfK,
        c.tieKeys,
      );
      const top = first.slice(0, p.prfRows);
      if (top.length > 0) {
        const q2 = Float32Array.from(qv);
        const w = p.prfWeight / top.length;
        for (const t of top) {
          const base = t.id * c.dim;
          for (let j = 0; j < c.dim; j++) q2[j] += w * c.vectors[base + j];
        }
        vector = topKDot(c.vectors, c.dim, c.count, q2, p.vectorDepth, accept, c.tieKeys);
      }
    }
  }
  const fused = boostHighlighted(c, combine(c, query.text, lexical, vector, p), p.highlightBoost, terms);
  return fused.map((f) => ({
    row: f.id,
    score: f.score,
    cosine: hasVector ? dotRow(c.vectors, c.dim, f.id, query.vector) : 0,
    lexicalRank: f.ranks[0],
    vectorRank: f.ranks[1],
  }));
}

/** Whether the library is large enough for BM25's candidates to stand in for the vector scan (HybridParams.vectorScanAbove). */
function candidatesMayStandIn(c: PassageCollection, p: HybridParams): boolean {
  return p.vectorScanAbove !== undefined && c.count > p.vectorScanAbove && p.prfRows === 0;
}

/** Whether the vector list ranks BM25's candidates only: a large library, and BM25 filled its depth. */
function scansCandidatesOnly(c: PassageCollection, p: HybridParams, lexical: readonly ScoredId[]): boolean {
  return candidatesMayStandIn(c, p) && lexical.length >= p.lexicalDepth;
}

/** BM25's candidates ranked by their cosines with the query (those with a vector), best first, ties in the tie order. */
function rankCandidates(c: PassageCollection, lexical: readonly ScoredId[], qv: Float32Array, k: number, accept?: (row: number) => boolean): ScoredId[] {
  const heap = new TopK(Math.max(1, Math.min(k, lexical.length)), c.tieKeys);
  for (const { id } of lexical) if (!accept || accept(id)) heap.push(id, dotRow(c.vectors, c.dim, id, qv));
  return heap.sorted();
}

/**
 * Highlighted passages' fused scores raised by at most `boost` times themselves (scaled by the
 * idf-weighted share of the highlighted words found among the query's terms), the list re-sorted.
 * Bounded: only rows already fused (retrieved for this query) move, and a row passes another only
 * when that one's score was below (1 + boost) times its own.
 */
export function boostHighlighted(
  c: Pick<PassageCollection, 'highlighted' | 'highlightTerms' | 'tieKeys'> & { lexical?: Pick<LexicalIndex, 'idf'> },
  fused: FusedItem[],
  boost: number,
  queryTerms?: readonly string[],
): FusedItem[] {
  const h = c.highlighted;
  if (!h || !(boost > 0)) return fused;
  const inQuery = new Set(queryTerms ?? []);
  const idf = (t: string) => (c.lexical ? Math.max(c.lexical.idf(t), 0) : 1);
  /** How much of the highlighted words the query uses, 0–1 (1 when the words are not known). */
  const share = (row: number): number => {
    const words = c.highlightTerms?.(row);
    if (!words) return 1;
    let all = 0;
    let used = 0;
    for (const w of new Set(words)) {
      const x = idf(w);
      all += x;
      if (inQuery.has(w)) used += x;
    }
    return all > 0 ? used / all : 0;
  };
  let moved = false;
  for (const f of fused) {
    if (h[f.id] !== 1 || !(f.score > 0)) continue;
    const s = share(f.id);
    if (s > 0) {
      f.score *= 1 + boost * Math.min(1, s);
      moved = true;
    }
  }
  return moved ? fused.sort((a, b) => b.score - a.score || tieCompare(c.tieKeys, a.id, b.id)) : fused;
}

/** The language a query is written in (languageHint: sentence-long queries too). */
export function queryLanguage(text: string): Lang | undefined {
  return languageHint(text);
}

function combine(c: PassageCollection, text: string, lexical: ScoredId[], vector: ScoredId[], p: HybridParams): FusedItem[] {
  // Per-row factor on the lexical weight: BM25 across languages says little.
  let lexFactor: ((row: number) => number) | undefined;
  if (p.crossLanguageLexical !== 1 && c.languageOfRow && lexical.length > 0) {
    const ql = queryLanguage(text);
    if (ql) {
      const of = c.languageOfRow;
      lexFactor = (row) => {
        const pl = of(row);
        return pl && pl !== ql ? p.crossLanguageLexical : 1;
      };
    }
  }
  if (p.fusion === 'convex') return convexFusion(lexical, vector, p, lexFactor, c.tieKeys);
  if (!lexFactor) {
    return reciprocalRankFusion(
      [
        { ids: lexical.map((h) => h.id), weight: p.lexicalWeight },
        { ids: vector.map((h) => h.id), weight: p.vectorWeight },
      ],
      p.rrfK,
      c.tieKeys,
    );
  }
  // Weighted RRF with a per-row lexical weight.
  const byId = new Map<number, FusedItem>();
  const add = (list: ScoredId[], li: number, weight: (row: number) => number) => {
    list.forEach((h, i) => {
      let item = byId.get(h.id);
      if (!item) byId.set(h.id, (item = { id: h.id, score: 0, ranks: [undefined, undefined] }));
      if (item.ranks[li] !== undefined) return;
      item.ranks[li] = i + 1;
      item.score += weight(h.id) / (p.rrfK + i + 1);
    });
  };
  const f = lexFactor;
  add(lexical, 0, (row) => p.lexicalWeight * f(row));
  add(vector, 1, () => p.vectorWeight);
  return [...byId.values()].sort((a, b) => b.score - a.score || tieCompare(c.tieKeys, a.id, b.id));
}

/** Weighted sum of min-max normalised scores; a row absent from a list gets 0 from it. */
function convexFusion(lexical: ScoredId[], vector: ScoredId[], p: HybridParams, lexFactor?: (row: number) => number, tie?: ArrayLike<number>): FusedItem[] {
  const byId = new Map<number, FusedItem>();
  const add = (list: ScoredId[], li: number, weight: (row: number) => number) => {
    if (list.length === 0) return;
    let max = -Infinity;
    let min = Infinity;
    for (const h of list) {
      if (h.score > max) max = h.score;
      if (h.score < min) min = h.score;
    }
    const span = max - min;
    list.forEach((h, i) => {
      let item = byId.get(h.id);
      if (!item) byId.set(h.id, (item = { id: h.id, score: 0, ranks: [undefined, undefined] }));
      if (item.ranks[li] !== undefined) return;
      item.ranks[li] = i + 1;
      // A one-score list (or all equal) counts fully: it gives no order to normalise.
      item.score += weight(h.id) * (span > 0 ? (h.score - min) / span : 1);
    });
  };
  const f = lexFactor ?? (() => 1);
  add(lexical, 0, (row) => p.lexicalWeight * f(row));
  add(vector, 1, () => p.vectorWeight);
  if (p.crossLanguageRescale && lexFactor) {
    const full = p.vectorWeight + p.lexicalWeight;
    for (const item of byId.values()) {
      const x = lexFactor(item.id);
      if (x < 1) item.score *= full / (p.vectorWeight + p.lexicalWeight * x);
    }
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || tieCompare(tie, a.id, b.id));
}
