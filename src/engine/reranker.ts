/**
 * Which reranker an analysis asks: a local cross-encoder when one is set (a folder, or a Hugging
 * Face repository downloaded into the model cache), else the Ollama model. The cross-encoder is
 * kept loaded between analyses, as the local encoder is: one at a time, so that a setting changed
 * to another model frees the previous one's worker and memory.
 */
import { OllamaReranker, type Reranker } from '../core/analysis/rerank';
import { defaultModelCacheDir, modelStatus } from '../core/embedding/local/modelStore';
import { CROSS_ENCODER_WORKER_FILE, CrossEncoder } from '../core/rerank/crossEncoder';
import { bundleDir } from './bundle';

export interface RerankerConfig {
  /** Ollama's address and model (an LLM that reorders the cards). */
  host?: string;
  model?: string;
  /** A local cross-encoder: a folder in the transformers.js layout, or a repository id downloaded into `cacheDir`. Wins over Ollama. */
  local?: string;
  /** The cross-encoder's weights file inside its folder (default: the int8 export, else the fp32 one). */
  onnxFile?: string;
  cacheDir?: string;
}

const loaded = new Map<string, CrossEncoder>();

/** Whether a `--rerank-model` value names a local cross-encoder (a folder or an org/name repository) rather than an Ollama model. */
export function namesCrossEncoder(value: string): boolean {
  return /[\\/]/.test(value) || value.startsWith('.') || value.startsWith('~');
}

export async function rerankerFor(config: RerankerConfig | undefined): Promise<Reranker | undefined> {
  if (!config) return undefined;
  if (!config.local?.trim()) return new OllamaReranker({ host: config.host, model: config.model });
  const model = config.local.trim();
  const status = await modelStatus(model, config.cacheDir ?? defaultModelCacheDir(), config.onnxFile ? { onnxFile: config.onnxFile } : {});
  if (!status.installed) {
    const why =
      status.location.kind === 'repo'
        ? `the reranker "${model}" is not downloaded (similar-sources model download --model ${model}, or "Download Local Reranker" in VS Code)`
        : `the reranker folder ${status.location.dir} lacks ${status.missing.join(', ')}`;
    return { kind: 'cross-encoder', description: `the local reranker ${model}`, unavailable: async () => why, rerank: () => Promise.reject(new Error(why)) };
  }
  const key = `${status.location.dir}\u0000${status.onnxFile}`;
  let ce = loaded.get(key);
  if (!ce) {
    // A caller still holding the closed one gets its model loaded again on its next call.
    for (const [k, old] of loaded) {
      loaded.delete(k);
      void old.close();
    }
    ce = new CrossEncoder({
      model: status.location.label,
      modelDir: status.location.dir,
      onnxFile: status.onnxFile,
      workerFile: bundleDir ? `${bundleDir}/${CROSS_ENCODER_WORKER_FILE}` : undefined,
    });
    loaded.set(key, ce);
  }
  return ce;
}
