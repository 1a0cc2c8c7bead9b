/**
 * Analysis options (those of the original spec), their defaults, and
 * validation with messages a user can act on.
 */
import { EngineError } from '../../shared/errors';
import { SETTINGS, type Granularity, type SourceTypeFilter } from '../../shared/settings';

export interface AnalysisOptions {
  granularity: Granularity;
  maxResults: number;
  similarityThreshold: number;
  collectionFilter: string[] | null;
  sourceType: SourceTypeFilter;
  useReranking: boolean;
  useContextualEmbedding: boolean;
  /** Segments with fewer words are listed but not searched. */
  minWords: number;
}

/** The settings' defaults (shared/settings.ts); `null`: no collection filter. */
export const DEFAULT_OPTIONS: AnalysisOptions = {
  granularity: SETTINGS.granularity.default,
  maxResults: SETTINGS.maxResults.default,
  similarityThreshold: SETTINGS.similarityThreshold.default,
  collectionFilter: null,
  sourceType: SETTINGS.sourceType.default,
  useReranking: SETTINGS.useReranking.default,
  useContextualEmbedding: SETTINGS.useContextualEmbedding.default,
  minWords: SETTINGS.minWords.default,
};

export class OptionsError extends EngineError {
  constructor(message: string) {
    super('invalid-options', message);
    this.name = 'OptionsError';
  }
}

export function resolveOptions(partial: Partial<AnalysisOptions> = {}): AnalysisOptions {
  const o: AnalysisOptions = { ...DEFAULT_OPTIONS, ...stripUndefined(partial) };
  if (!['section', 'paragraph', 'sentence'].includes(o.granularity)) {
    throw new OptionsError(`granularity must be "section", "paragraph" or "sentence" (got "${o.granularity}")`);
  }
  if (!Number.isInteger(o.maxResults) || o.maxResults < 1 || o.maxResults > 20) {
    throw new OptionsError(`maxResults must be a whole number from 1 to 20 (got ${o.maxResults})`);
  }
  if (typeof o.similarityThreshold !== 'number' || !(o.similarityThreshold >= 0 && o.similarityThreshold <= 1)) {
    throw new OptionsError(`similarityThreshold must be a number from 0 to 1 (got ${o.similarityThreshold})`);
  }
  if (!['secondary', 'primary', 'both'].includes(o.sourceType)) {
    throw new OptionsError(`sourceType must be "secondary", "primary" or "both" (got "${o.sourceType}")`);
  }
  if (o.collectionFilter !== null && (!Array.isArray(o.collectionFilter) || o.collectionFilter.some((c) => typeof c !== 'string'))) {
    throw new OptionsError('collectionFilter must be a list of collection names, or null');
  }
  if (typeof o.useReranking !== 'boolean' || typeof o.useContextualEmbedding !== 'boolean') {
    throw new OptionsError('useReranking and useContextualEmbedding must be true or false');
  }
  if (!Number.isInteger(o.minWords) || o.minWords < 1 || o.minWords > 50) {
    throw new OptionsError(`minWords must be a whole number from 1 to 50 (got ${o.minWords})`);
  }
  if (o.collectionFilter && o.collectionFilter.length === 0) o.collectionFilter = null;
  return o;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The options that change results, in a stable string (part of the cache key). */
export function optionsKey(o: AnalysisOptions): string {
  return JSON.stringify([
    o.granularity,
    o.maxResults,
    o.similarityThreshold,
    o.collectionFilter ? [...o.collectionFilter].map((c) => c.toLowerCase()).sort() : null,
    o.sourceType,
    o.useReranking,
    o.useContextualEmbedding,
    o.minWords,
  ]);
}
