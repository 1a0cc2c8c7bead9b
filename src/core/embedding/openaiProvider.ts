/**
 * Provider `openai`: any server speaking OpenAI's `POST /v1/embeddings` (LM Studio, llama.cpp's
 * server, vLLM, LocalAI, OpenAI itself). The API key is handed in by the caller (the extension
 * keeps it in SecretStorage, never in settings) and only ever sent to the configured base URL.
 */
import { type EmbedOptions, type EmbeddingProvider, ProviderError, l2normalize, prefixedKey, storageKey } from './provider';
import { resolvePrefixes } from './servedModels';

export const DEFAULT_OPENAI_BASE_URL = 'http://127.0.0.1:1234/v1';
const DEFAULT_TIMEOUT_MS = 60_000;

export interface OpenAIProviderOptions {
  /** Up to and including the version segment, e.g. http://127.0.0.1:8080/v1. */
  baseUrl?: string;
  model: string;
  apiKey?: string;
  batchSize?: number;
  timeoutMs?: number;
  /** Prepended to query texts; default: the model's documented prefix when its name is known (servedModels.ts), else none. '' = none. */
  queryPrefix?: string;
  /** Prepended to passage texts; default as for queryPrefix. */
  passagePrefix?: string;
  fetch?: typeof fetch;
}

export class OpenAIProvider implements EmbeddingProvider {
  readonly id = 'openai';
  readonly model: string;
  readonly key: string;
  readonly queryKey: string;
  readonly baseUrl: string;
  readonly queryPrefix: string;
  readonly passagePrefix: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private dim: number | undefined;

  constructor(private readonly options: OpenAIProviderOptions) {
    if (!options.model?.trim())
      throw new ProviderError(
        'No model set for the OpenAI-compatible server: give the embedding model its server knows it by.',
        'openai',
        '',
        options.baseUrl,
        'unknown-model',
      );
    this.model = options.model.trim();
    this.baseUrl = (options.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
    // The host is part of the key: two servers may give one model name to different weights.
    const prefixes = resolvePrefixes(this.model, options);
    this.queryPrefix = prefixes.query;
    this.passagePrefix = prefixes.passage;
    // Before prefixes could be set, this provider used none: such vectors and analyses keep their keys.
    this.key = prefixedKey(storageKey('openai', `${this.model}@${hostOf(this.baseUrl)}`), 'p', this.passagePrefix);
    this.queryKey = prefixedKey(this.key, 'q', this.queryPrefix);
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async check(signal?: AbortSignal): Promise<void> {
    await this.dimension(signal);
  }

  async dimension(signal?: AbortSignal): Promise<number> {
    if (this.dim === undefined) await this.embed(['dimension probe'], { kind: 'query', signal });
    return this.dim!;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const prefix = options.kind === 'query' ? this.queryPrefix : this.passagePrefix;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(
        ...(await this.batch(
          texts.slice(i, i + this.batchSize).map((t) => prefix + t),
          options.signal,
        )),
      );
    }
    return out;
  }

  private async batch(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const url = `${this.baseUrl}/embeddings`;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    let res: Response;
    let text: string;
    try {
      res = await (this.options.fetch ?? fetch)(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input, encoding_format: 'float' }),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw this.error(`Request to ${this.baseUrl} (model "${this.model}") was cancelled.`, 'aborted');
      if (timeout.aborted)
        throw this.error(
          `${this.baseUrl} did not answer within ${Math.round(this.timeoutMs / 100) / 10} s (model "${this.model}"). The model may still be loading: try again, or raise the timeout.`,
          'timeout',
        );
      const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
      throw this.error(
        `The embedding server is not reachable at ${this.baseUrl} (${cause?.code ?? cause?.message ?? (err as Error).message}). Start it, check the base URL, or switch the provider to "embedded".`,
        'unreachable',
      );
    }
    if (res.status === 401 || res.status === 403) {
      throw this.error(
        `${this.baseUrl} refused the request (HTTP ${res.status}): the API key is missing or wrong. Set it again (it is kept in the editor's secret storage).`,
        'bad-response',
      );
    }
    if (res.status === 404)
      throw this.error(
        `${url} was not found or has no model "${this.model}" (HTTP 404). Check the base URL (it ends with /v1) and the model name.`,
        'unknown-model',
      );
    if (!res.ok) throw this.error(`${this.baseUrl} answered HTTP ${res.status} for model "${this.model}": ${text.slice(0, 200)}`, 'bad-response');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw this.bad(`the body is not JSON (${JSON.stringify(text.slice(0, 80))})`);
    }
    const data = (body as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw this.bad('no "data" array');
    if (data.length !== input.length) throw this.bad(`${data.length} vectors for ${input.length} texts`);
    // Servers may answer out of order: `index` says which input each vector is for.
    const ordered = [...data].sort((a, b) => Number(a?.index ?? 0) - Number(b?.index ?? 0));
    return ordered.map((item, i) => {
      const e = (item as { embedding?: unknown })?.embedding;
      if (!Array.isArray(e) || e.length === 0) throw this.bad(`vector ${i} is missing or empty`);
      if (!e.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw this.bad(`vector ${i} holds values that are not finite numbers (NaN, null or text)`);
      const expected = this.dim ?? e.length;
      if (e.length !== expected) throw this.bad(`a vector of ${e.length} values where the model gave ${expected} before (another model behind the same name?)`);
      this.dim = expected;
      return l2normalize(Float32Array.from(e as number[]));
    });
  }

  private bad(detail: string): ProviderError {
    return this.error(`${this.baseUrl} sent an unusable answer for model "${this.model}": ${detail}.`, 'bad-response');
  }

  private error(message: string, reason: ProviderError['reason']): ProviderError {
    return new ProviderError(message, 'openai', this.model, this.baseUrl, reason);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
