/**
 * The similarity shown to the user: a calibrated probability that the
 * passage's source is a right source where the segment stands. Logistic
 * regression (scripts/calibrate-bands.ts) on queries that look like the
 * product's: paragraphs built from BEIR SciFact train claims (the claims about
 * one document joined, two such groups joined), the claims themselves, and
 * half of the bundled example's draft; the rest is held out to test. Features
 * comparable across segments, documents and query lengths:
 *  - standout: how many standard deviations the passage's cosine lies above
 *    the query's cosines with the library at large (no model-specific scale);
 *  - query coverage: idf-weighted share of the segment's distinct terms found
 *    in the passage;
 *  - passage coverage: the same share of the passage's terms found in the
 *    segment (a paraphrasing paragraph covers its source's key terms);
 *  - log(1 + distinct query terms): longer segments share fewer of their
 *    terms with any one passage, and the fit corrects for it;
 *  - log(source rank) and the fused retrieval score over the segment's best:
 *    where retrieval put the source, so that cards sorted by similarity keep
 *    what the fused ranking knows (see the measurements in calibrate-bands).
 */
import type { SearchHit } from '../index/search/libraryIndex';

export interface SimilarityEvidence {
  standout: number;
  queryCoverage: number;
  passageCoverage: number;
  /** Distinct terms of the segment's query. */
  queryTerms: number;
  /** 1-based position of the passage's source among the segment's sources, in retrieval order. */
  sourceRank: number;
  /** The passage's fused retrieval score divided by the segment's best (0–1]. */
  scoreShare: number;
}

export const FEATURE_NAMES = ['standout', 'queryCoverage', 'passageCoverage', 'logQueryTerms', 'logSourceRank', 'scoreShare'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

export interface Calibration {
  intercept: number;
  weights: Record<FeatureName, number>;
}

/** Bump when the curve or the ranking changes: cached analyses hold both (7: the neural fusion's cross-language rescale). */
export const SIMILARITY_VERSION = 7;

export const CALIBRATIONS: Record<string, Calibration> = {
  'embedded-hashgram-v2': {
    intercept: -4.8382,
    weights: { standout: 0.0028, queryCoverage: 2.9505, passageCoverage: 10.2939, logQueryTerms: 0.6597, logSourceRank: -1.3831, scoreShare: 0.437 },
  },
};
/** Other models use the embedded model's curve: every feature is free of a model's cosine scale. */
const DEFAULT = CALIBRATIONS['embedded-hashgram-v2'];

/** The feature vector, in FEATURE_NAMES order (the calibration script fits on exactly these). */
export function similarityFeatures(e: SimilarityEvidence): number[] {
  return [e.standout, e.queryCoverage, e.passageCoverage, Math.log1p(e.queryTerms), Math.log(Math.max(1, e.sourceRank)), e.scoreShare];
}

export function probability(c: Calibration, x: readonly number[]): number {
  let z = c.intercept;
  FEATURE_NAMES.forEach((n, i) => (z += c.weights[n] * x[i]));
  return 1 / (1 + Math.exp(-z));
}

export function calibratedSimilarity(e: SimilarityEvidence, modelKey: string): number {
  const p = probability(CALIBRATIONS[modelKey] ?? DEFAULT, similarityFeatures(e));
  return Math.round(p * 1000) / 1000;
}

/**
 * The evidence for each hit of one segment's retrieval list (best first):
 * `overlap` is the index's term overlap for the segment's query.
 */
export function evidenceOf(
  hits: readonly Pick<SearchHit, 'row' | 'source' | 'score' | 'standout'>[],
  overlap: { terms: number; of(row: number): { query: number; doc: number } },
): SimilarityEvidence[] {
  const rankOf = new Map<number, number>();
  for (const h of hits) if (!rankOf.has(h.source)) rankOf.set(h.source, rankOf.size + 1);
  const top = hits.length ? hits[0].score : 0;
  return hits.map((h) => {
    const o = overlap.of(h.row);
    return {
      standout: h.standout,
      queryCoverage: o.query,
      passageCoverage: o.doc,
      queryTerms: overlap.terms,
      sourceRank: rankOf.get(h.source)!,
      scoreShare: top > 0 ? h.score / top : 0,
    };
  });
}
