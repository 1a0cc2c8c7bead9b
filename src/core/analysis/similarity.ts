/**
 * The similarity shown to the user: a calibrated probability that the
 * passage's source is relevant, from one feature that is comparable across
 * segments, documents and query lengths: the passage's *standout*, i.e. how
 * many standard deviations its cosine lies above the query's cosines with the
 * library at large. Fitted by scripts/calibrate-similarity.ts on BEIR SciFact
 * train (16,180 claim–passage pairs, the top 20 per claim) for the embedded
 * model. A z-score does not depend on a model's cosine scale, so other models
 * use the same curve until they have a fit of their own.
 */

interface Calibration {
  intercept: number;
  standout: number;
}

const CALIBRATIONS: Record<string, Calibration> = {
  'embedded-hashgram-v1': { intercept: -5.2198, standout: 0.7437 },
};
const DEFAULT = CALIBRATIONS['embedded-hashgram-v1'];

export function calibratedSimilarity(standout: number, modelKey: string): number {
  const c = CALIBRATIONS[modelKey] ?? DEFAULT;
  const p = 1 / (1 + Math.exp(-(c.intercept + c.standout * standout)));
  return Math.round(p * 1000) / 1000;
}

export function hasCalibration(modelKey: string): boolean {
  return modelKey in CALIBRATIONS;
}
