import { EmbeddedProvider } from './embeddedProvider';
import { LocalProvider } from './local/localProvider';
import { DEFAULT_LOCAL_MODEL, type LocalModelOverrides } from './local/models';
import { defaultModelCacheDir, modelStatus } from './local/modelStore';
import { localRuntime } from './local/runtime';
import { OllamaProvider } from './ollamaProvider';
import { OpenAIProvider } from './openaiProvider';
import { type EmbeddingProvider, ProviderError } from './provider';

export type ProviderName = 'embedded' | 'ollama' | 'local' | 'openai' | 'auto';
export const PROVIDER_NAMES: readonly ProviderName[] = ['embedded', 'ollama', 'local', 'openai', 'auto'];

export type ProviderConfig = {
  provider: ProviderName;
  ollamaHost?: string;
  ollamaModel?: string;
  /** ollama/openai: prefixes put before queries and passages; undefined: the model's documented ones (servedModels.ts); '' = none. */
  ollamaQueryPrefix?: string;
  ollamaPassagePrefix?: string;
  timeoutMs?: number;
  /** local/auto: a Hugging Face repository id or a folder (default: Xenova/multilingual-e5-small). */
  localModel?: string;
  /** local: pooling, prefixes, maxTokens… for a model the known-model table lacks. */
  localModelOverrides?: LocalModelOverrides;
  /** Where downloaded models live (extension: its global storage; CLI: ~/.cache/similar-sources/models). */
  modelCacheDir?: string;
  /** The folder holding the bundled local-embed-worker.js (default: beside this bundle). */
  workerDir?: string;
  /** openai: base URL up to /v1, model, and the key the host keeps in its secret storage. */
  openaiBaseUrl?: string;
  openaiModel?: string;
  openaiApiKey?: string;
  openaiQueryPrefix?: string;
  openaiPassagePrefix?: string;
};

export interface CreateProviderOptions {
  /** When the configured provider fails its check, use the embedded model instead of throwing. */
  fallbackToEmbedded?: boolean;
  onWarning?: (msg: string) => void;
  signal?: AbortSignal;
}

/**
 * Builds the configured provider. Remote servers and local models are checked up front (a
 * local model is loaded in its worker), so a failure is reported once, here, rather than as
 * "no similar source" later. `auto` is the local model when it is installed, else the embedded
 * one; nothing is ever downloaded here (that takes the user's consent).
 */
export async function createProvider(config: ProviderConfig, opts: CreateProviderOptions = {}): Promise<{ provider: EmbeddingProvider; warning?: string }> {
  switch (config.provider) {
    case 'ollama':
      return checked(
        new OllamaProvider({
          host: config.ollamaHost,
          model: config.ollamaModel,
          timeoutMs: config.timeoutMs,
          queryPrefix: config.ollamaQueryPrefix,
          passagePrefix: config.ollamaPassagePrefix,
        }),
        opts,
      );
    case 'openai':
      return checked(
        () =>
          new OpenAIProvider({
            baseUrl: config.openaiBaseUrl,
            model: config.openaiModel ?? '',
            apiKey: config.openaiApiKey,
            timeoutMs: config.timeoutMs,
            queryPrefix: config.openaiQueryPrefix,
            passagePrefix: config.openaiPassagePrefix,
          }),
        opts,
      );
    case 'local':
      return checked(() => localProvider(config), opts);
    case 'auto': {
      const status = await modelStatus(
        config.localModel ?? DEFAULT_LOCAL_MODEL,
        config.modelCacheDir ?? defaultModelCacheDir(),
        config.localModelOverrides,
      ).catch(() => undefined);
      if (!status?.installed) return { provider: new EmbeddedProvider() };
      return checked(() => localProvider(config), { ...opts, fallbackToEmbedded: true });
    }
    default:
      return { provider: new EmbeddedProvider() };
  }
}

async function localProvider(config: ProviderConfig): Promise<LocalProvider> {
  const model = config.localModel ?? DEFAULT_LOCAL_MODEL;
  // Without ONNX Runtime for this platform no model can run: say that, not "download the model".
  const runtime = config.workerDir ? localRuntime(config.workerDir) : undefined;
  if (runtime && !runtime.available) throw new ProviderError(runtime.message!, 'local', model, undefined, 'unavailable');
  const status = await modelStatus(model, config.modelCacheDir ?? defaultModelCacheDir(), config.localModelOverrides);
  if (!status.installed) {
    const where =
      status.location.kind === 'folder'
        ? `The folder ${status.location.dir} lacks ${status.missing.join(', ')}`
        : `The local model "${model}" is not downloaded`;
    throw new ProviderError(
      `${where}. Download it ("similar-sources model download --model ${model}", or the download command in VS Code), or set the local model to a folder in the transformers.js layout.`,
      'local',
      model,
      undefined,
      'unknown-model',
    );
  }
  return new LocalProvider({
    model: status.location.label,
    modelDir: status.location.dir,
    spec: { ...config.localModelOverrides, onnxFile: status.onnxFile },
    workerFile: config.workerDir ? `${config.workerDir}/local-embed-worker.js` : undefined,
  });
}

type Checkable = EmbeddingProvider & { check(signal?: AbortSignal): Promise<void>; close?(): Promise<void> };

async function checked(
  make: Checkable | (() => Checkable | Promise<Checkable>),
  opts: CreateProviderOptions,
): Promise<{ provider: EmbeddingProvider; warning?: string }> {
  let provider: Checkable | undefined;
  try {
    provider = typeof make === 'function' ? await make() : make;
    await provider.check(opts.signal);
    return { provider };
  } catch (err) {
    await provider?.close?.();
    // A cancel is the user's decision, not a failure to paper over with another model.
    if (!(err instanceof ProviderError) || err.reason === 'aborted' || !opts.fallbackToEmbedded) throw err;
    const warning = `${err.message} Using the embedded offline model instead.`;
    opts.onWarning?.(warning);
    return { provider: new EmbeddedProvider(), warning };
  }
}
