/**
 * Provider `local`: a sentence-embedding model (ONNX, transformers.js layout) run by ONNX
 * Runtime in a worker thread (localWorker.ts). This side adds the model's task prefixes, splits
 * work into requests the caller can cancel between, and turns a worker that fails to load or
 * dies into a ProviderError that says what to do.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type EmbedOptions, type EmbeddingProvider, ProviderError, prefixedKey, storageKey } from '../provider';
import { type LocalModelOverrides, type LocalModelSpec, resolveModelSpec } from './models';
import type { FromWorker, LocalWorkerData, ToWorker } from './protocol';
import { localRuntime, noRuntimeMessage, runtimeLoadMessage } from './runtime';
import { defaultThreads } from '../../util/threads';
import { untilAborted } from '../../util/untilAborted';

export const LOCAL_WORKER_FILE = 'local-embed-worker.js';

export interface LocalProviderOptions {
  /** The model as the user named it (repository id or folder name): the label and storage key. */
  model: string;
  /** Folder holding config.json, tokenizer.json and the ONNX file. */
  modelDir: string;
  /** Overrides of the known-model table (pooling, prefixes, maxTokens, onnxFile…). */
  spec?: LocalModelOverrides;
  /** The bundled worker; default: dist/local-embed-worker.js beside this bundle. */
  workerFile?: string;
  /** ONNX Runtime threads; default: defaultThreads(). */
  threads?: number;
  /** Texts per batch at most (default 32) … */
  maxBatch?: number;
  /** … and padded tokens per batch at most (default 2048: 4 × 512 tokens peaks ~0.5 GB, measured). */
  tokenBudget?: number;
  /** Texts per request to the worker: a cancel takes effect within one request (default 64). */
  requestSize?: number;
}

interface Pending {
  resolve(v: Float32Array[]): void;
  reject(e: Error): void;
  count: number;
}

export class LocalProvider implements EmbeddingProvider {
  readonly id = 'local';
  readonly model: string;
  readonly key: string;
  readonly queryKey: string;
  readonly modelDir: string;
  readonly spec: LocalModelSpec;
  private readonly workerFile: string;
  private readonly threads: number;
  private worker: Worker | undefined;
  private ready: Promise<number> | undefined;
  private dim: number | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing = false;

  constructor(private readonly options: LocalProviderOptions) {
    this.model = options.model;
    this.modelDir = resolve(options.modelDir);
    this.spec = resolveModelSpec(options.model, options.spec);
    // A prefix other than the table's (an override) makes other vectors, other analyses: other keys.
    const table = resolveModelSpec(options.model);
    // So do other weights beside the default ones in one folder (the fp32 export beside the int8
    // one, as on the Hub); a folder without the default file has one model, named as before.
    const hasDefault = existsSync(join(this.modelDir, table.onnxFile));
    const weights = prefixedKey(storageKey('local', options.model), 'w', this.spec.onnxFile, hasDefault ? table.onnxFile : this.spec.onnxFile);
    this.key = prefixedKey(weights, 'p', this.spec.passagePrefix, table.passagePrefix);
    // Queries embedded twice make other query vectors: another key (an analysis cached before is not reused).
    this.queryKey = prefixedKey(this.key, 'q', this.spec.queryPrefix + (this.blendsQueries() ? '\u0000+passage' : ''), table.queryPrefix);
    this.workerFile = resolve(options.workerFile ?? join(typeof __dirname === 'string' ? __dirname : '.', LOCAL_WORKER_FILE));
    this.threads = Math.max(1, Math.floor(options.threads ?? defaultThreads()));
  }

  /** Starts the worker and loads the model; throws ProviderError when it cannot. */
  async check(signal?: AbortSignal): Promise<void> {
    await this.dimension(signal);
  }

  async dimension(signal?: AbortSignal): Promise<number> {
    if (this.dim !== undefined) return this.dim;
    return untilAborted(this.start(), signal, () => {
      throw this.aborted();
    });
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const { signal } = options;
    if (signal?.aborted) throw this.aborted();
    if (texts.length === 0) return [];
    const prefix = options.kind === 'query' ? this.spec.queryPrefix : this.spec.passagePrefix;
    // (Re)starts the worker when needed: after a crash, the next call gets a fresh one.
    await untilAborted(this.start(), signal, () => {
      throw this.aborted();
    });
    const size = Math.max(1, this.options.requestSize ?? 64);
    const out: Float32Array[] = [];
    const blend = options.kind === 'query' && this.blendsQueries();
    for (let i = 0; i < texts.length; i += size) {
      const slice = texts.slice(i, i + size);
      const chunk = slice.map((t) => prefix + t);
      if (!blend) {
        out.push(...(await this.request(chunk, signal, options.kind === 'query')));
        continue;
      }
      // The query read both ways in one request: its query-prefixed and passage-prefixed vectors, averaged.
      const both = await this.request([...chunk, ...slice.map((t) => this.spec.passagePrefix + t)], signal, true);
      out.push(...slice.map((_, j) => averaged(both[j], both[j + slice.length], this.spec.normalize)));
    }
    return out;
  }

  /** Whether queries are embedded twice (spec.queryAlsoAsPassage, with two different prefixes). */
  private blendsQueries(): boolean {
    return this.spec.queryAlsoAsPassage === true && this.spec.queryPrefix !== this.spec.passagePrefix;
  }

  /** Stops the worker. A later call starts it again. */
  async close(): Promise<void> {
    const w = this.worker;
    this.closing = true;
    this.reset(new ProviderError(`The local model "${this.model}" was closed.`, 'local', this.model, undefined, 'aborted'));
    try {
      await w?.terminate();
    } finally {
      this.closing = false;
    }
  }

  private request(texts: string[], signal: AbortSignal | undefined, urgent: boolean): Promise<Float32Array[]> {
    const worker = this.worker!;
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        worker.postMessage({ type: 'cancel', id } satisfies ToWorker);
        this.idle();
        reject(this.aborted());
      };
      const done =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          signal?.removeEventListener('abort', onAbort);
          f(v);
        };
      this.pending.set(id, { resolve: done(resolve), reject: done(reject), count: texts.length });
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.ref();
      const msg: ToWorker = {
        type: 'embed',
        id,
        texts,
        maxTokens: this.spec.maxTokens,
        pooling: this.spec.pooling,
        normalize: this.spec.normalize,
        maxBatch: Math.max(1, this.options.maxBatch ?? 32),
        tokenBudget: Math.max(1, this.options.tokenBudget ?? 2048),
        ...(urgent ? { urgent: true } : {}),
      };
      worker.postMessage(msg);
    });
  }

  private start(): Promise<number> {
    if (this.ready) return this.ready;
    if (!existsSync(this.workerFile)) {
      return Promise.reject(
        new ProviderError(
          `The local model runner (${this.workerFile}) is missing: rebuild with "npm run build".`,
          'local',
          this.model,
          undefined,
          'unknown-model',
        ),
      );
    }
    // A build without ONNX Runtime for this platform: said before the model (none can run), and before a worker starts for nothing.
    const runtime = localRuntime(dirname(this.workerFile));
    if (!runtime.available) return Promise.reject(this.unavailable(runtime.message!));
    const missing = ['tokenizer.json', this.spec.onnxFile].filter((f) => !existsSync(join(this.modelDir, f)));
    if (missing.length) {
      return Promise.reject(
        new ProviderError(
          `The local model "${this.model}" is not complete in ${this.modelDir} (missing ${missing.join(', ')}). ` +
            'Download it again (node dist/cli.js model download), or point the setting at a folder in the transformers.js layout.',
          'local',
          this.model,
          undefined,
          'unknown-model',
        ),
      );
    }
    const data: LocalWorkerData = { modelDir: this.modelDir, onnxFile: this.spec.onnxFile, threads: this.threads };
    // A self-contained bundle: it takes none of this process's flags (a loader such as tsx would slow it).
    const worker = new Worker(this.workerFile, { workerData: data, execArgv: [] });
    this.worker = worker;
    this.ready = new Promise<number>((resolve, reject) => {
      let loaded = false;
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          loaded = true;
          this.dim = m.dimension;
          this.idle();
          resolve(m.dimension);
        } else if (m.type === 'load-error' && m.runtime) {
          this.reset(this.unavailable(m.runtime === 'missing' ? noRuntimeMessage() : runtimeLoadMessage(m.message)), reject);
          void worker.terminate();
        } else if (m.type === 'load-error') {
          this.fail(worker, `could not load it: ${m.message}`, reject, 'unknown-model');
        } else this.reply(m);
      });
      worker.on('error', (err) => this.fail(worker, `${loaded ? 'its worker crashed' : 'its worker crashed while loading it'} (${err.message})`, reject));
      worker.on('exit', (code) => {
        if (!this.closing && this.worker === worker) this.fail(worker, `its worker stopped unexpectedly (exit code ${code})`, reject);
      });
    });
    // The `ready` promise may be awaited by nobody when a crash happens later.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  private reply(m: FromWorker): void {
    if (m.type !== 'vectors' && m.type !== 'error' && m.type !== 'cancelled') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    this.idle();
    if (m.type === 'cancelled') return p.reject(this.aborted());
    if (m.type === 'error')
      return p.reject(new ProviderError(`The local model "${this.model}" failed to embed: ${m.message}`, 'local', this.model, undefined, 'bad-response'));
    const vectors: Float32Array[] = [];
    for (let i = 0; i < p.count; i++) vectors.push(m.data.slice(i * m.dimension, (i + 1) * m.dimension));
    p.resolve(vectors);
  }

  /** The worker is gone: everything waiting fails with a message that says what to do. */
  private fail(worker: Worker, what: string, rejectLoad: (e: Error) => void, reason: ProviderError['reason'] = 'bad-response'): void {
    if (this.worker !== worker) return;
    const err = new ProviderError(
      `The local model "${this.model}" (${this.modelDir}) failed: ${what}. ` +
        'Check the model folder (download it again with "node dist/cli.js model download"), or switch the provider to "embedded".',
      'local',
      this.model,
      undefined,
      reason,
    );
    rejectLoad(err);
    this.reset(err);
    void worker.terminate();
  }

  private reset(err: Error, rejectLoad?: (e: Error) => void): void {
    rejectLoad?.(err);
    this.worker = undefined;
    this.ready = undefined;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** An idle worker must not keep a CLI process alive. */
  private idle(): void {
    if (this.pending.size === 0) this.worker?.unref();
  }

  /** The local model cannot run on this machine, whatever the model: the runtime is missing or cannot load. */
  private unavailable(message: string): ProviderError {
    return new ProviderError(message, 'local', this.model, undefined, 'unavailable');
  }

  private aborted(): ProviderError {
    return new ProviderError(`Embedding with the local model "${this.model}" was cancelled.`, 'local', this.model, undefined, 'aborted');
  }
}

/** The mean of two vectors, L2-normalised when the model's vectors are. */
function averaged(a: Float32Array, b: Float32Array, normalize: boolean): Float32Array {
  const out = new Float32Array(a.length);
  let norm = 0;
  for (let i = 0; i < a.length; i++) {
    out[i] = (a[i] + b[i]) / 2;
    norm += out[i] * out[i];
  }
  if (normalize && norm > 0) {
    const k = 1 / Math.sqrt(norm);
    for (let i = 0; i < out.length; i++) out[i] *= k;
  }
  return out;
}
