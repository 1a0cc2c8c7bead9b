/**
 * The similarity shown to the user: a calibrated probability that the
 * passage's source is relevant where the segment stands. Logistic regression
 * (scripts/calibrate-similarity.ts) on BEIR SciFact train, top 20 passages per
 * query, over claims and over paragraph-like queries (the claims about one or
 * two documents joined), with four features that are comparable across
 * segments, documents and query lengths:
 *  - standout: how many standard deviations the passage's cosine lies above
 *    the query's cosines with the library at large (no model-specific scale);
 *  - query coverage: idf-weighted share of the segment's distinct terms found
 *    in the passage;
 *  - passage coverage: the same share of the passage's terms found in the
 *    segment (a paraphrasing paragraph covers its source's key terms);
 *  - log(1 + distinct query terms): longer segments share fewer of their
 *    terms with any one passage, and the fit corrects for it.
 * With the standout alone, a long paragraph paraphrasing its source got a few
 * percent; on the bundled example the right sources now get a median of ~16%
 * against ~2% for the others (the example is only a check, never fitted on).
 */

export interface SimilarityEvidence {
  standout: number;
  queryCoverage: number;
  passageCoverage: number;
  /** Distinct terms of the segment's query. */
  queryTerms: number;
}

interface Calibration {
  intercept: number;
  standout: number;
  queryCoverage: number;
  passageCoverage: number;
  logQueryTerms: number;
}

/** Bump when the curve or the ranking changes: cached analyses hold both. */
export const SIMILARITY_VERSION = 4;

const CALIBRATIONS: Record<string, Calibration> = {
  'embedded-hashgram-v2': { intercept: -8.6743, standout: 0.2302, queryCoverage: 5.8614, passageCoverage: 7.9887, logQueryTerms: 0.9469 },
};
/** Other models use the embedded model's curve: every feature is free of a model's cosine scale. */
const DEFAULT = CALIBRATIONS['embedded-hashgram-v2'];

export function calibratedSimilarity(e: SimilarityEvidence, modelKey: string): number {
  const c = CALIBRATIONS[modelKey] ?? DEFAULT;
  const z = c.intercept + c.standout * e.standout + c.queryCoverage * e.queryCoverage + c.passageCoverage * e.passageCoverage + c.logQueryTerms * Math.log1p(e.queryTerms);
  const p = 1 / (1 + Math.exp(-z));
  return Math.round(p * 1000) / 1000;
}
