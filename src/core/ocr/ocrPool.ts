/**
 * A pool of tesseract.js workers (each a worker thread running Tesseract's
 * WebAssembly build), so recognition never runs on the calling thread. Pages
 * are queued and handed to the first idle worker. A cancelled page stops its
 * worker (Tesseract cannot be interrupted mid-page) and a fresh one replaces it
 * on demand. So does a page over its time budget (OCR_PAGE_BUDGET_MS): its worker is
 * terminated, the page fails with the reason (its text layer is kept by the caller) and
 * the next page goes on in a new worker.
 */
import { availableParallelism } from 'node:os';
import { languageFolder, ocrWorkerPath, OcrSetupError, parseLanguages } from './ocrRuntime';

/**
 * Wall time one page's recognition may take (the worker's start excluded). A page takes ~5 s on
 * one core at 300 dpi (BENCHMARKS.md: 0.196 pages/s per worker on 2 shared cores); a page many
 * times that is an image Tesseract cannot get through (or a machine too busy to wait for).
 */
export const OCR_PAGE_BUDGET_MS = 60_000;

/** A page whose recognition ran past its budget (its worker was stopped). */
export class OcrBudgetError extends Error {
  constructor(ms: number) {
    super(
      `took longer than ${ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`} to recognise: stopped; it will be tried again when the file is next indexed`,
    );
    this.name = 'OcrBudgetError';
  }
}

export interface OcrPoolOptions {
  /** Tesseract language codes, e.g. ['eng', 'fra'] (default eng+fra). */
  languages?: string[];
  /** A folder with extra .traineddata files. */
  extraLanguageDir?: string;
  /** Worker threads; default: one fewer than the cores (at least 1, at most 4). */
  size?: number;
  /** Idle workers are stopped after this long (default 30 s; they start again on demand): a pool nobody closes holds no memory. */
  idleMs?: number;
  /** Wall time per page (default {@link OCR_PAGE_BUDGET_MS}). */
  pageBudgetMs?: number;
}

export interface OcrPageResult {
  text: string;
  /** Tesseract's mean word confidence, 0–100. */
  confidence: number;
}

interface TessWorker {
  recognize(image: Uint8Array | Buffer): Promise<{ data: { text: string; confidence: number } }>;
  terminate(): Promise<unknown>;
}

interface Job {
  image: Uint8Array;
  signal?: AbortSignal;
  resolve(r: OcrPageResult): void;
  reject(e: Error): void;
}

interface Slot {
  ready: Promise<TessWorker>;
  busy: boolean;
}

export class OcrAbortError extends Error {
  constructor() {
    super('OCR cancelled');
    this.name = 'AbortError';
  }
}

export class OcrPool {
  readonly size: number;
  readonly languages: string[];
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private langPath?: string;
  private closed = false;
  private idleTimer?: NodeJS.Timeout;
  /** Pages recognised by this pool (tests and benchmarks read it). */
  recognised = 0;

  constructor(private readonly opts: OcrPoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? Math.min(4, availableParallelism() - 1));
    this.languages = parseLanguages(opts.languages);
  }

  /** Checks that every language's trained data is there (throws OcrSetupError); cheap, no worker started. */
  check(): void {
    this.langPath ??= languageFolder(this.languages, this.opts.extraLanguageDir);
  }

  recognise(image: Uint8Array, signal?: AbortSignal): Promise<OcrPageResult> {
    if (this.closed) return Promise.reject(new Error('the OCR pool is closed'));
    if (signal?.aborted) return Promise.reject(new OcrAbortError());
    return new Promise<OcrPageResult>((resolve, reject) => {
      const job: Job = { image, signal, resolve, reject };
      this.queue.push(job);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.queue.indexOf(job);
          if (i >= 0) {
            this.queue.splice(i, 1);
            reject(new OcrAbortError());
          }
        },
        { once: true },
      );
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const job of this.queue.splice(0)) job.reject(new Error('the OCR pool was closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.ready.then((w) => w.terminate()).catch(() => undefined)));
  }

  private pump(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (!this.queue.length && this.slots.length && this.slots.every((s) => !s.busy)) {
      this.idleTimer = setTimeout(() => this.stopIdle(), this.opts.idleMs ?? 30_000);
      this.idleTimer.unref();
    }
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) {
        try {
          slot = this.spawn();
        } catch (err) {
          // No engine (missing trained data): every waiting page fails with that reason.
          for (const job of this.queue.splice(0)) job.reject(err as Error);
          return;
        }
      }
      if (!slot) return;
      const job = this.queue.shift()!;
      void this.run(slot, job);
    }
  }

  /** Stops the workers when all are idle (~130 MiB each); new pages start new ones. */
  private stopIdle(): void {
    if (this.queue.length || this.slots.some((s) => s.busy)) return;
    for (const s of this.slots.splice(0)) void s.ready.then((w) => w.terminate()).catch(() => undefined);
  }

  private spawn(): Slot {
    this.check();
    ocrWorkerPath();
    const slot: Slot = { busy: false, ready: this.createWorker() };
    slot.ready.catch(() => undefined);
    this.slots.push(slot);
    return slot;
  }

  private async createWorker(): Promise<TessWorker> {
    const { createWorker, OEM } = await import('tesseract.js');
    const workerPath = ocrWorkerPath();
    try {
      return (await createWorker(this.languages, OEM.LSTM_ONLY, {
        langPath: this.langPath,
        gzip: true,
        // Never write trained data anywhere, never fetch it: it is all local.
        cacheMethod: 'none',
        workerPath,
        errorHandler: () => undefined,
      })) as unknown as TessWorker;
    } catch (err) {
      throw new OcrSetupError(`cannot start the OCR engine: ${String((err as Error)?.message ?? err)}`);
    }
  }

  private async run(slot: Slot, job: Job): Promise<void> {
    slot.busy = true;
    let onAbort: (() => void) | undefined;
    let budget: NodeJS.Timeout | undefined;
    try {
      const worker = await slot.ready;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(new OcrAbortError());
        if (job.signal?.aborted) onAbort();
        job.signal?.addEventListener('abort', onAbort, { once: true });
        // Over its budget, the page is given up and its worker stopped (below): Tesseract cannot be interrupted otherwise.
        const ms = this.opts.pageBudgetMs ?? OCR_PAGE_BUDGET_MS;
        budget = setTimeout(() => reject(new OcrBudgetError(ms)), ms);
      });
      aborted.catch(() => undefined);
      const r = await Promise.race([worker.recognize(Buffer.from(job.image.buffer, job.image.byteOffset, job.image.byteLength)), aborted]);
      this.recognised++;
      job.resolve({ text: r.data.text ?? '', confidence: r.data.confidence ?? 0 });
      slot.busy = false;
    } catch (err) {
      // The worker may be mid-page (cancel) or broken: drop it, a new one starts on demand.
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      void slot.ready.then((w) => w.terminate()).catch(() => undefined);
      job.reject(err instanceof Error ? err : new Error(String(err)));
    } finally {
      if (budget) clearTimeout(budget);
      if (onAbort) job.signal?.removeEventListener('abort', onAbort);
    }
    if (!this.closed) this.pump();
  }
}
