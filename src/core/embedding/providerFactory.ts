import { EmbeddedProvider } from './embeddedProvider';
import { OllamaProvider } from './ollamaProvider';
import { type EmbeddingProvider, ProviderError } from './provider';

export type ProviderConfig = {
  provider: 'embedded' | 'ollama';
  ollamaHost?: string;
  ollamaModel?: string;
  timeoutMs?: number;
};

export interface CreateProviderOptions {
  /** When Ollama fails its check, use the embedded model instead of throwing. */
  fallbackToEmbedded?: boolean;
  onWarning?: (msg: string) => void;
  signal?: AbortSignal;
}

/**
 * Builds the configured provider. Ollama is checked up front so a dead server is reported
 * once, here, rather than as "no similar source" later.
 */
export async function createProvider(
  config: ProviderConfig,
  opts: CreateProviderOptions = {},
): Promise<{ provider: EmbeddingProvider; warning?: string }> {
  if (config.provider !== 'ollama') return { provider: new EmbeddedProvider() };

  const ollama = new OllamaProvider({
    host: config.ollamaHost,
    model: config.ollamaModel,
    timeoutMs: config.timeoutMs,
  });
  try {
    await ollama.check(opts.signal);
    return { provider: ollama };
  } catch (err) {
    // A cancel is the user's decision, not a failure to paper over with another model.
    if (!(err instanceof ProviderError) || err.reason === 'aborted' || !opts.fallbackToEmbedded) throw err;
    const warning = `${err.message} Using the embedded offline model instead.`;
    opts.onWarning?.(warning);
    return { provider: new EmbeddedProvider(), warning };
  }
}
