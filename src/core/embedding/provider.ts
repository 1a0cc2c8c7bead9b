/**
 * One interface for every embedding backend. The index keeps vectors per `key`
 * (provider + model), so switching model and back never re-embeds.
 */
import { EngineError, type EngineErrorCode } from '../../shared/errors';
import { sha256 } from '../util/hash';

export type EmbeddingKind = 'query' | 'passage';

export interface EmbedOptions {
  /** Some models embed queries and passages differently (prefixes, weighting). */
  kind?: EmbeddingKind;
  signal?: AbortSignal;
}

export interface EmbeddingProvider {
  /** 'embedded' | 'ollama' */
  readonly id: string;
  /** Model name as the user configured it. */
  readonly model: string;
  /** Stable storage key, safe as a folder name: `${id}-${model}` sanitised. */
  readonly key: string;
  /**
   * What query vectors depend on, for caches of results (the analysis cache's model): `key`,
   * plus the query prefix where one was set that differs from the provider's former default.
   * Absent: `key`.
   */
  readonly queryKey?: string;
  /** Vector length; may require a round trip for remote models. */
  dimension(signal?: AbortSignal): Promise<number>;
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

export type ProviderFailure = 'unreachable' | 'unknown-model' | 'timeout' | 'bad-response' | 'aborted' | 'unavailable';

const CODE_OF: Record<ProviderFailure, EngineErrorCode> = {
  unreachable: 'provider-unreachable',
  'unknown-model': 'provider-unknown-model',
  timeout: 'provider-timeout',
  'bad-response': 'provider-bad-response',
  unavailable: 'provider-unavailable',
  aborted: 'cancelled',
};

/** A provider failure the user must see: says which host and model. */
export class ProviderError extends EngineError {
  constructor(
    message: string,
    readonly provider: string,
    readonly model: string,
    readonly host?: string,
    readonly reason: ProviderFailure = 'bad-response',
  ) {
    super(CODE_OF[reason], message);
    this.name = 'ProviderError';
  }
}

export function storageKey(id: string, model: string): string {
  return `${id}-${model}`.toLowerCase().replace(/[^a-z0-9._-]+/g, '_');
}

/** `base` with a short digest of `prefix` when it differs from `legacy` (what the vectors were made with before). */
export function prefixedKey(base: string, tag: 'p' | 'q' | 'w', prefix: string, legacy = ''): string {
  if (prefix === legacy) return base;
  return `${base}-${tag}${sha256(prefix).slice(0, 8)}`;
}

export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}
