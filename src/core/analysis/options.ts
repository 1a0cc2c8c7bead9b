/**
 * Analysis options (those of the original spec), their defaults, and
 * validation with messages a user can act on.
 */
import { EngineError } from '../../shared/errors';
import { SETTINGS, type Granularity, type SourceTypeFilter } from '../../shared/settings';

/**
 * LLM reranking, an optional service. 'auto' (default): used when a reranker
 * is configured and reachable, otherwise silently not used (a debug log line
 * and `reranking.hint` in the result). 'on': the user asked for it, so when it
 * cannot run the result says why (`reranking.note`). 'off': never.
 * The boolean of earlier versions still works: true means 'auto' (the old
 * default, which nobody chose on purpose), false 'off'.
 */
export type RerankMode = 'auto' | 'on' | 'off';

export interface AnalysisOptions {
  granularity: Granularity;
  maxResults: number;
  similarityThreshold: number;
  collectionFilter: string[] | null;
  sourceType: SourceTypeFilter;
  useReranking: RerankMode;
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
  useReranking: SETTINGS.useReranking.default ? 'auto' : 'off',
  useContextualEmbedding: SETTINGS.useContextualEmbedding.default,
  minWords: SETTINGS.minWords.default,
};

/** What callers pass: any subset, with the reranking mode also as the earlier boolean. */
export type AnalysisOptionsInput = Partial<Omit<AnalysisOptions, 'useReranking'>> & { useReranking?: RerankMode | boolean };

export class OptionsError extends EngineError {
  constructor(message: string) {
    super('invalid-options', message);
    this.name = 'OptionsError';
  }
}

export function resolveOptions(partial: AnalysisOptionsInput = {}): AnalysisOptions {
  const given = stripUndefined(partial);
  if (typeof given.useReranking === 'boolean') given.useReranking = given.useReranking ? 'auto' : 'off';
  const o = { ...DEFAULT_OPTIONS, ...given } as AnalysisOptions;
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
  if (!['auto', 'on', 'off'].includes(o.useReranking)) {
    throw new OptionsError(`useReranking must be "auto", "on" or "off" (or true for "auto", false for "off"; got ${JSON.stringify(o.useReranking)})`);
  }
  if (typeof o.useContextualEmbedding !== 'boolean') {
    throw new OptionsError('useContextualEmbedding must be true or false');
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
