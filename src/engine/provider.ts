/**
 * The embedding provider, from the settings (the extension) or a configuration
 * (the CLI's flags), and which providers embed after the lexical index is committed.
 */
import { createProvider as createConfiguredProvider, type CreateProviderOptions, type ProviderConfig } from '../core/embedding/providerFactory';
import type { EmbeddingProvider } from '../core/embedding/provider';
import type { LocalModelOverrides } from '../core/embedding/local/models';
import { localRuntime, type LocalRuntime } from '../core/embedding/local/runtime';
import type { Settings } from '../shared/settings';
import { bundleDir } from './bundle';

export type { EmbeddingProvider } from '../core/embedding/provider';
export type { LocalRuntime } from '../core/embedding/local/runtime';

/**
 * The embedding provider a configuration names. Servers and local models are
 * checked up front, so a failure is reported once, here (`provider-unreachable`…),
 * or, with `fallbackToEmbedded`, replaced by the embedded model with a `warning`.
 * A local model runs in the worker beside this bundle unless `workerDir` says where.
 */
export function createProvider(config: ProviderConfig, opts: CreateProviderOptions = {}): Promise<{ provider: EmbeddingProvider; warning?: string }> {
  return createConfiguredProvider({ ...config, workerDir: config.workerDir ?? bundleDir }, opts);
}

/**
 * Whether this build can run a local model on this machine: ONNX Runtime's binding for the
 * platform beside the worker bundle (a VSIX carries its target's only; the universal one none).
 */
export function localModelRuntime(workerDir = bundleDir): LocalRuntime {
  return localRuntime(workerDir ?? '.');
}

/** What the host adds to the settings: where models are kept, where the workers lie, the secret key. */
export interface ProviderContext {
  /** Downloaded models (the extension's global storage; never the workspace). */
  modelCacheDir?: string;
  /** The folder of the bundled local-embed-worker.js (default: beside this bundle). */
  workerDir?: string;
  /** The OpenAI-compatible server's key, from VS Code's secret storage. */
  openaiApiKey?: string;
}

export type ProviderSettings = Pick<
  Settings,
  | 'provider'
  | 'ollamaHost'
  | 'ollamaModel'
  | 'localModel'
  | 'localModelPooling'
  | 'localModelQueryPrefix'
  | 'localModelPassagePrefix'
  | 'localModelMaxTokens'
  | 'openaiBaseUrl'
  | 'openaiModel'
  | 'openaiQueryPrefix'
  | 'openaiPassagePrefix'
  | 'ollamaQueryPrefix'
  | 'ollamaPassagePrefix'
>;

/**
 * The provider configuration the settings give (an empty value means the default, or the model's
 * own; for the ollama/openai prefixes, 'auto' means the model's own and '' none).
 */
export function providerConfigOf(s: ProviderSettings, ctx: ProviderContext = {}): ProviderConfig {
  return {
    provider: s.provider,
    ollamaHost: s.ollamaHost || undefined,
    ollamaModel: s.ollamaModel || undefined,
    localModel: s.localModel || undefined,
    localModelOverrides: localOverridesOf(s),
    modelCacheDir: ctx.modelCacheDir,
    workerDir: ctx.workerDir ?? bundleDir,
    openaiBaseUrl: s.openaiBaseUrl || undefined,
    openaiModel: s.openaiModel || undefined,
    openaiApiKey: ctx.openaiApiKey,
    ollamaQueryPrefix: servedPrefixOf(s.ollamaQueryPrefix),
    ollamaPassagePrefix: servedPrefixOf(s.ollamaPassagePrefix),
    openaiQueryPrefix: servedPrefixOf(s.openaiQueryPrefix),
    openaiPassagePrefix: servedPrefixOf(s.openaiPassagePrefix),
  };
}

/** A served model's prefix setting: 'auto' (the model's documented prefix) is undefined; '' is no prefix. */
export function servedPrefixOf(setting: string): string | undefined {
  return setting === 'auto' ? undefined : setting;
}

/** The local model's explicit settings (for a model the known-model table lacks). */
export function localOverridesOf(
  s: Pick<Settings, 'localModelPooling' | 'localModelQueryPrefix' | 'localModelPassagePrefix' | 'localModelMaxTokens'>,
): LocalModelOverrides {
  return {
    ...(s.localModelPooling ? { pooling: s.localModelPooling } : {}),
    ...(s.localModelQueryPrefix ? { queryPrefix: s.localModelQueryPrefix } : {}),
    ...(s.localModelPassagePrefix ? { passagePrefix: s.localModelPassagePrefix } : {}),
    ...(s.localModelMaxTokens ? { maxTokens: s.localModelMaxTokens } : {}),
  };
}

/**
 * Whether a provider's vectors are computed in the background, after the lexical
 * index is committed: every neural model (local, Ollama, OpenAI-compatible) is far
 * slower than reading PDFs; the embedded hashed n-grams are computed inline.
 */
export function embedsInBackground(provider: Pick<EmbeddingProvider, 'id'>): boolean {
  return provider.id !== 'embedded';
}
