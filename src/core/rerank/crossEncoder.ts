/**
 * A local cross-encoder reranker: each of a segment's top candidates is read together with the
 * segment by one model (ms-marco-MiniLM, mmarco-mMiniLMv2, bge-reranker… exported to ONNX in
 * the transformers.js layout), which scores how well the passage answers it. Run by ONNX Runtime
 * in a worker thread (crossEncoderWorker.ts). Reranking reorders; the similarity shown stays the
 * retrieval's (analyze.ts).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RerankCandidate, Reranker } from '../analysis/rerank';
import { pickOnnxFile } from '../embedding/local/modelStore';
import { QUANTIZED_ONNX } from '../embedding/local/models';
import { localRuntime, noRuntimeMessage, runtimeLoadMessage } from '../embedding/local/runtime';
import { defaultThreads } from '../util/threads';
import { untilAborted } from '../util/untilAborted';
import type { CrossEncoderWorkerData, FromCrossEncoder, ToCrossEncoder } from './protocol';

export const CROSS_ENCODER_WORKER_FILE = 'cross-encoder-worker.js';

export interface CrossEncoderOptions {
  /** The model as the user named it (repository id or folder name): the label. */
  model: string;
  /** Folder holding config.json, tokenizer.json and the ONNX file. */
  modelDir: string;
  /** Weights file in the folder (default: the int8 export, else the fp32 one). */
  onnxFile?: string;
  /** Pair length at most, special tokens included (default 512: what these rerankers read). */
  maxTokens?: number;
  /** The bundled worker; default: dist/cross-encoder-worker.js beside this bundle. */
  workerFile?: string;
  threads?: number;
  /** Pairs per batch at most (default 16) and padded tokens per batch (default 4096). */
  maxBatch?: number;
  tokenBudget?: number;
}

export class CrossEncoderError extends Error {
  constructor(
    message: string,
    readonly reason: 'unavailable' | 'model' | 'aborted' | 'failed',
  ) {
    super(message);
    this.name = 'CrossEncoderError';
  }
}

type Waiting = { resolve(s: Float32Array): void; reject(e: Error): void };

export class CrossEncoder implements Reranker {
  readonly kind = 'cross-encoder';
  readonly description: string;
  readonly modelDir: string;
  readonly onnxFile: string;
  private readonly workerFile: string;
  private worker?: Worker;
  private loaded?: Promise<void>;
  private checked?: Promise<string | undefined>;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;

  constructor(private readonly opts: CrossEncoderOptions) {
    this.modelDir = resolve(opts.modelDir);
    this.onnxFile = pickOnnxFile(this.modelDir, { onnxFile: QUANTIZED_ONNX }, opts.onnxFile);
    this.description = `the local reranker ${opts.model}`;
    this.workerFile = resolve(opts.workerFile ?? join(typeof __dirname === 'string' ? __dirname : '.', CROSS_ENCODER_WORKER_FILE));
  }

  /** Undefined once the model is loaded, else why it cannot be (checked once). */
  unavailable(signal?: AbortSignal): Promise<string | undefined> {
    this.checked ??= this.load().then(
      () => undefined,
      (e: Error) => e.message,
    );
    return untilAborted(this.checked, signal, () => 'cancelled');
  }

  unavailableBeforeLoading(): string | undefined {
    return this.problemBeforeStart()?.message;
  }

  /** Candidate ids, the most relevant first (ties keep the retrieval order). */
  async rerank(query: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<string[]> {
    const scores = await this.score(
      query,
      candidates.map((c) => c.text),
      signal,
    );
    return candidates
      .map((c, i) => ({ id: c.id, s: scores[i], i }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((x) => x.id);
  }

  /** A relevance score (the model's logit) per passage, in their order. */
  async score(query: string, passages: string[], signal?: AbortSignal): Promise<Float32Array> {
    if (signal?.aborted) throw this.cancelledError();
    if (!passages.length) return new Float32Array(0);
    await untilAborted(this.load(), signal, () => {
      throw this.cancelledError();
    });
    const worker = this.worker!;
    const id = this.nextId++;
    return new Promise<Float32Array>((resolvePromise, reject) => {
      const onAbort = () => {
        if (!this.waiting.delete(id)) return;
        worker.postMessage({ type: 'cancel', id } satisfies ToCrossEncoder);
        this.idle();
        reject(this.cancelledError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          signal?.removeEventListener('abort', onAbort);
          f(v);
        };
      this.waiting.set(id, { resolve: settle(resolvePromise), reject: settle(reject) });
      worker.ref();
      worker.postMessage({
        type: 'score',
        id,
        query,
        passages,
        maxTokens: this.opts.maxTokens ?? 512,
        maxBatch: Math.max(1, this.opts.maxBatch ?? 16),
        tokenBudget: Math.max(1, this.opts.tokenBudget ?? 4096),
      } satisfies ToCrossEncoder);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.drop(new CrossEncoderError(`${this.description} was closed`, 'aborted'));
    await w?.terminate();
  }

  private load(): Promise<void> {
    if (this.loaded) return this.loaded;
    const problem = this.problemBeforeStart();
    if (problem) return Promise.reject(problem);
    const data: CrossEncoderWorkerData = {
      modelDir: this.modelDir,
      onnxFile: this.onnxFile,
      threads: Math.max(1, Math.floor(this.opts.threads ?? defaultThreads())),
    };
    // A self-contained bundle: it takes none of this process's flags (a loader such as tsx would slow it).
    const worker = new Worker(this.workerFile, { workerData: data, execArgv: [] });
    this.worker = worker;
    const loaded = new Promise<void>((resolvePromise, reject) => {
      const failed = (e: CrossEncoderError) => {
        reject(e);
        if (this.worker === worker) this.drop(e);
        void worker.terminate();
      };
      worker.on('message', (m: FromCrossEncoder) => {
        if (m.type === 'ready') {
          this.idle();
          resolvePromise();
        } else if (m.type === 'load-error')
          failed(
            m.runtime
              ? new CrossEncoderError(m.runtime === 'missing' ? noRuntimeMessage() : runtimeLoadMessage(m.message), 'unavailable')
              : new CrossEncoderError(`${this.description} (${this.modelDir}) could not be loaded: ${m.message}`, 'model'),
          );
        else this.reply(m);
      });
      worker.on('error', (err) => failed(new CrossEncoderError(`${this.description} failed: its worker crashed (${err.message})`, 'failed')));
      worker.on('exit', (code) => {
        if (this.worker === worker) failed(new CrossEncoderError(`${this.description} failed: its worker stopped (exit code ${code})`, 'failed'));
      });
    });
    this.loaded = loaded;
    loaded.catch(() => undefined);
    return loaded;
  }

  /** What stops the model before a worker is started: no runner, no runtime, files missing. */
  private problemBeforeStart(): CrossEncoderError | undefined {
    if (!existsSync(this.workerFile))
      return new CrossEncoderError(`The reranker's runner (${this.workerFile}) is missing: rebuild with "npm run build".`, 'failed');
    const runtime = localRuntime(dirname(this.workerFile));
    if (!runtime.available) return new CrossEncoderError(runtime.message!, 'unavailable');
    const missing = ['tokenizer.json', this.onnxFile].filter((f) => !existsSync(join(this.modelDir, f)));
    if (missing.length)
      return new CrossEncoderError(
        `${this.description} is not complete in ${this.modelDir} (missing ${missing.join(', ')}): download it again, or point the setting at a folder in the transformers.js layout.`,
        'model',
      );
    return undefined;
  }

  private reply(m: FromCrossEncoder): void {
    if (m.type !== 'scores' && m.type !== 'error' && m.type !== 'cancelled') return;
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    this.idle();
    if (m.type === 'scores') w.resolve(m.scores);
    else if (m.type === 'cancelled') w.reject(this.cancelledError());
    else w.reject(new CrossEncoderError(`${this.description} failed to score: ${m.message}`, 'failed'));
  }

  /** The worker is gone: what waits fails; the next call starts a fresh one. */
  private drop(err: Error): void {
    this.worker = undefined;
    this.loaded = undefined;
    this.checked = undefined;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  /** An idle worker must not keep a CLI process alive. */
  private idle(): void {
    if (this.waiting.size === 0) this.worker?.unref();
  }

  private cancelledError(): CrossEncoderError {
    return new CrossEncoderError(`Reranking with ${this.description} was cancelled.`, 'aborted');
  }
}
