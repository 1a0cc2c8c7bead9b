/**
 * The similarity shown to the user: a calibrated probability that the passage's
 * source is relevant, from two features comparable across segments and
 * documents (embedding cosine and idf-weighted lexical coverage of the query).
 * Coefficients fitted by scripts/calibrate-similarity.ts on BEIR SciFact train
 * (16,180 claim–passage pairs, top 20 per claim) for the embedded model.
 */

export interface SimilarityFeatures {
  cosine: number;
  coverage: number;
}

interface Calibration {
  intercept: number;
  cosine: number;
  coverage: number;
}

const CALIBRATIONS: Record<string, Calibration> = {
  'embedded-hashgram-v1': { intercept: -6.475, cosine: 2.944, coverage: 7.171 },
};

/**
 * Other models (Ollama) have other cosine scales: until a calibration exists for
 * them, only lexical coverage and a cosine centred on typical sentence-embedding
 * values are used; the result is still 0–1 and monotone in both features.
 */
const GENERIC: Calibration = { intercept: -6.0, cosine: 3.0, coverage: 7.171 };

export function calibratedSimilarity(f: SimilarityFeatures, modelKey: string): number {
  const c = CALIBRATIONS[modelKey] ?? GENERIC;
  const z = c.intercept + c.cosine * f.cosine + c.coverage * f.coverage;
  const p = 1 / (1 + Math.exp(-z));
  return Math.round(p * 1000) / 1000;
}

export function hasCalibration(modelKey: string): boolean {
  return modelKey in CALIBRATIONS;
}
