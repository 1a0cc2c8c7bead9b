import type { Options } from 'ollama';
import { ProviderError } from './provider';
import { DEFAULT_OLLAMA_HOST, mapOllamaError, ollamaClientFor } from './ollamaProvider';

export interface OllamaGenerateRequest {
  host?: string;
  model: string;
  prompt: string;
  /** Per request; defaults to 60 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  system?: string;
  /** Sampling options (e.g. `{ temperature: 0 }` for stable reranking). */
  options?: Partial<Options>;
  /** `'json'` or a JSON schema, to get parseable output. */
  format?: string | object;
}

/**
 * One non-streamed completion. Errors are ProviderErrors with the same wording as embedding
 * (unreachable / unknown model / timeout / cancelled / bad response).
 */
export async function ollamaGenerate(req: OllamaGenerateRequest): Promise<string> {
  const host = (req.host ?? DEFAULT_OLLAMA_HOST).replace(/\/+$/, '');
  const base = {
    host,
    model: req.model,
    timeoutMs: req.timeoutMs ?? 60_000,
    signal: req.signal,
    purpose: 'generate' as const,
  };
  if (req.signal?.aborted) throw mapOllamaError(req.signal.reason, base);
  const { client, timeoutSignal } = ollamaClientFor(base);
  let res: unknown;
  try {
    res = await client.generate({
      model: req.model,
      prompt: req.prompt,
      system: req.system,
      options: req.options,
      format: req.format,
      stream: false,
    });
  } catch (err) {
    throw mapOllamaError(err, { ...base, timeoutSignal });
  }
  const text = (res as { response?: unknown } | null)?.response;
  if (typeof text !== 'string') {
    throw new ProviderError(
      `Ollama at ${host} sent an unexpected response for model "${req.model}": no "response" text.`,
      'ollama',
      req.model,
      host,
      'bad-response',
    );
  }
  return text;
}
