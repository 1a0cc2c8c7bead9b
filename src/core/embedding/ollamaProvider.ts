import { SETTINGS } from '../../shared/settings';
import { Ollama, type EmbedResponse } from 'ollama';
import { type EmbedOptions, type EmbeddingProvider, ProviderError, l2normalize, prefixedKey, storageKey } from './provider';
import { resolvePrefixes } from './servedModels';

export const DEFAULT_OLLAMA_HOST: string = SETTINGS.ollamaHost.default;
export const DEFAULT_OLLAMA_MODEL: string = SETTINGS.ollamaModel.default;
const DEFAULT_BATCH = 32;
const DEFAULT_TIMEOUT_MS = 60_000;
const PROBE_TEXT = 'dimension probe';

export interface OllamaProviderOptions {
  host?: string;
  model?: string;
  batchSize?: number;
  timeoutMs?: number;
  /** Prepended to query texts; default: the model's documented prefix when its name is known (servedModels.ts), else none. '' = none. */
  queryPrefix?: string;
  /** Prepended to passage texts; default as for queryPrefix. */
  passagePrefix?: string;
}

/**
 * The prefixes this provider used before they could be set (nomic-embed-text's, for that
 * name only): vectors and analyses made with them keep their keys.
 */
function legacyPrefixes(model: string): { query: string; passage: string } {
  return /^nomic-embed-text(:latest)?$/.test(model) ? { query: 'search_query: ', passage: 'search_document: ' } : { query: '', passage: '' };
}

/** What the error mapping needs to know to write a message the user can act on. */
export interface OllamaCallContext {
  host: string;
  model: string;
  timeoutMs: number;
  /** The caller's signal: tells a user cancel from our own timeout. */
  signal?: AbortSignal;
  /** The timeout signal applied to this call. */
  timeoutSignal?: AbortSignal;
  /** Shapes the advice in the "unreachable" message. */
  purpose: 'embed' | 'generate';
}

/**
 * A client bound to one call: the ollama client only aborts streamed requests, so every
 * request goes through a fetch that carries our timeout and the caller's signal.
 */
export function ollamaClientFor(ctx: Omit<OllamaCallContext, 'timeoutSignal'>): {
  client: Ollama;
  timeoutSignal: AbortSignal;
} {
  const timeoutSignal = AbortSignal.timeout(ctx.timeoutMs);
  const combined = ctx.signal ? AbortSignal.any([timeoutSignal, ctx.signal]) : timeoutSignal;
  const boundFetch: typeof fetch = (input, init) => fetch(input, { ...init, signal: combined });
  try {
    return { client: new Ollama({ host: ctx.host, fetch: boundFetch }), timeoutSignal };
  } catch (err) {
    // The constructor parses the host: a malformed setting fails here, before any request.
    throw new ProviderError(
      `Ollama host "${ctx.host}" is not a valid URL (${errorText(err)}). Check the Ollama host setting.`,
      'ollama',
      ctx.model,
      ctx.host,
      'unreachable',
    );
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Network error codes, looked for on the error, its cause, and AggregateError members. */
function networkCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(e.code)) return e.code;
  const fromCause = networkCode(e.cause, depth + 1);
  if (fromCause) return fromCause;
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const c = networkCode(inner, depth + 1);
      if (c) return c;
    }
  }
  return undefined;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name could not be resolved',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
};

function isAbortLike(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/**
 * Turns anything the ollama client (or fetch under it) throws into a ProviderError that names
 * host, model and what to do. Shared by embedding and generation so the wording stays one.
 */
export function mapOllamaError(err: unknown, ctx: OllamaCallContext): ProviderError {
  if (err instanceof ProviderError) return err;
  const { host, model } = ctx;
  const make = (msg: string, reason: ProviderError['reason']) => {
    const pe = new ProviderError(msg, 'ollama', model, host, reason);
    (pe as Error & { cause?: unknown }).cause = err;
    return pe;
  };

  // Check the caller's signal first: a cancel that races the timeout is still a cancel.
  if (ctx.signal?.aborted) {
    return make(`Request to Ollama at ${host} (model "${model}") was cancelled.`, 'aborted');
  }
  if (ctx.timeoutSignal?.aborted || (err instanceof Error && err.name === 'TimeoutError')) {
    const secs = Math.round(ctx.timeoutMs / 100) / 10;
    return make(
      `Ollama at ${host} did not answer within ${secs} s (model "${model}", timeout). ` + 'The model may still be loading: try again, or raise the timeout.',
      'timeout',
    );
  }
  if (isAbortLike(err)) {
    return make(`Request to Ollama at ${host} (model "${model}") was cancelled.`, 'aborted');
  }

  const status = (err as { status_code?: unknown })?.status_code;
  const text = errorText(err);
  if (typeof status === 'number') {
    if (status === 404 || /model .* not found/i.test(text)) {
      return make(`Ollama at ${host} has no model "${model}". Pull it with "ollama pull ${model}".`, 'unknown-model');
    }
    return make(`Ollama at ${host} returned an error for model "${model}" (HTTP ${status}): ${text}`, 'bad-response');
  }

  const code = networkCode(err);
  if (code || (err instanceof TypeError && /fetch failed/i.test(text))) {
    const why = (code && NETWORK_REASONS[code]) ?? code ?? text;
    const advice =
      ctx.purpose === 'embed'
        ? 'Start it with "ollama serve", or switch the provider to "embedded".'
        : 'Start it with "ollama serve", or turn LLM reranking off.';
    return make(`Ollama is not reachable at ${host} (${why}). ${advice}`, 'unreachable');
  }

  // JSON parse failures and anything else the server sent that we cannot use.
  return make(`Ollama at ${host} sent an unexpected response for model "${model}": ${text}`, 'bad-response');
}

export class OllamaProvider implements EmbeddingProvider {
  readonly id = 'ollama';
  readonly model: string;
  readonly key: string;
  readonly queryKey: string;
  readonly host: string;
  readonly batchSize: number;
  readonly timeoutMs: number;
  readonly queryPrefix: string;
  readonly passagePrefix: string;
  private dim: number | undefined;
  private dimProbe: Promise<number> | undefined;

  constructor(options: OllamaProviderOptions = {}) {
    this.host = (options.host ?? DEFAULT_OLLAMA_HOST).replace(/\/+$/, '');
    this.model = options.model ?? DEFAULT_OLLAMA_MODEL;
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const prefixes = resolvePrefixes(this.model, options);
    this.queryPrefix = prefixes.query;
    this.passagePrefix = prefixes.passage;
    const legacy = legacyPrefixes(this.model);
    this.key = prefixedKey(storageKey('ollama', this.model), 'p', this.passagePrefix, legacy.passage);
    this.queryKey = prefixedKey(this.key, 'q', this.queryPrefix, legacy.query);
  }

  async dimension(signal?: AbortSignal): Promise<number> {
    if (this.dim !== undefined) return this.dim;
    // Concurrent callers share one probe; a failed probe is not cached.
    this.dimProbe ??= this.embed([PROBE_TEXT], { kind: 'query', signal })
      .then(([v]) => (this.dim = v.length))
      .finally(() => (this.dimProbe = undefined));
    return this.dimProbe;
  }

  /**
   * Confirms the server answers and has the model, then embeds a probe (which also loads the
   * model and caches the dimension). Throws ProviderError otherwise.
   */
  async check(signal?: AbortSignal): Promise<void> {
    const base = { host: this.host, model: this.model, timeoutMs: this.timeoutMs, signal, purpose: 'embed' as const };
    const { client, timeoutSignal } = ollamaClientFor(base);
    let capabilities: unknown;
    try {
      const info = await client.show({ model: this.model });
      capabilities = (info as { capabilities?: unknown }).capabilities;
    } catch (err) {
      throw mapOllamaError(err, { ...base, timeoutSignal });
    }
    // Servers that report capabilities tell us up front when a chat model was configured.
    if (Array.isArray(capabilities) && capabilities.length > 0 && !capabilities.includes('embedding')) {
      throw new ProviderError(
        `Ollama model "${this.model}" at ${this.host} cannot produce embeddings. ` + `Choose an embedding model such as "${DEFAULT_OLLAMA_MODEL}".`,
        'ollama',
        this.model,
        this.host,
        'unknown-model',
      );
    }
    await this.dimension(signal);
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const { signal } = options;
    const prefix = options.kind === 'query' ? this.queryPrefix : this.passagePrefix;
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize).map((t) => prefix + t);
      const vectors = await this.embedBatch(batch, signal);
      for (const v of vectors) {
        const expected = this.dim ?? out[0]?.length ?? v.length;
        if (v.length !== expected) {
          throw this.badResponse(`vectors of different lengths (${expected} and ${v.length})`);
        }
        out.push(v);
      }
    }
    if (this.dim === undefined && out.length > 0) this.dim = out[0].length;
    return out;
  }

  private async embedBatch(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const base = { host: this.host, model: this.model, timeoutMs: this.timeoutMs, signal, purpose: 'embed' as const };
    if (signal?.aborted) throw mapOllamaError(signal.reason, base);
    const { client, timeoutSignal } = ollamaClientFor(base);
    let res: EmbedResponse;
    try {
      res = await client.embed({ model: this.model, input });
    } catch (err) {
      throw mapOllamaError(err, { ...base, timeoutSignal });
    }
    const embeddings = (res as { embeddings?: unknown })?.embeddings;
    if (!Array.isArray(embeddings)) throw this.badResponse('no "embeddings" array');
    if (embeddings.length !== input.length) {
      throw this.badResponse(`${embeddings.length} vectors for ${input.length} texts`);
    }
    return embeddings.map((e: unknown, i: number) => {
      if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw this.badResponse(`vector ${i} is empty or not numeric`);
      }
      return l2normalize(Float32Array.from(e as number[]));
    });
  }

  private badResponse(detail: string): ProviderError {
    return new ProviderError(
      `Ollama at ${this.host} sent an unexpected response for model "${this.model}": ${detail}.`,
      'ollama',
      this.model,
      this.host,
      'bad-response',
    );
  }
}
