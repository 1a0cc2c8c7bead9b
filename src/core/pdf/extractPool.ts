/**
 * A small pool of worker threads that run PDF extraction (see extractWorker.ts).
 * Indexing reads ahead and hands PDFs to the pool while the calling thread
 * chunks and embeds the previous ones. A worker that crashes or hangs on a file
 * is replaced, and that file is skipped with a reason: one bad PDF never stops
 * a library.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PdfSkipError, type RawPdf } from './extract';
import type { PageImage } from '../ocr/pageImages';
import type { ExtractReply } from './extractWorker';

export const EXTRACT_WORKER_FILE = 'pdf-extract-worker.js';

/** A PDF that takes longer than this is given up on (a pathological file can spin pdf.js forever). */
const DEFAULT_TIMEOUT_MS = 180_000;

interface Job {
  id: number;
  bytes: Uint8Array;
  /** Set for a page-image request (OCR); text extraction otherwise. */
  pages?: number[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  resolve(result: any): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
}

export interface ExtractPoolOptions {
  workerFile: string;
  /** Worker threads; default: one fewer than the cores (at least 1, at most 4). */
  size?: number;
  timeoutMs?: number;
}

export class PdfExtractPool {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: ExtractPoolOptions) {
    this.size = Math.max(1, opts.size ?? Math.min(4, availableParallelism() - 1));
  }

  /** Starts the workers now, so loading pdf.js in them overlaps discovery and the manifest read. */
  warm(): this {
    while (!this.closed && this.slots.length < this.size) this.spawn();
    return this;
  }

  /** The pool beside the running bundle (dist/), warm, or undefined when there is none (running from sources). */
  static beside(dir: string | undefined, size?: number): PdfExtractPool | undefined {
    if (!dir) return undefined;
    const workerFile = join(dir, EXTRACT_WORKER_FILE);
    return existsSync(workerFile) ? new PdfExtractPool({ workerFile, size }).warm() : undefined;
  }

  extract(bytes: Uint8Array): Promise<RawPdf> {
    if (this.closed) return Promise.reject(new Error('the PDF extraction pool is closed'));
    return new Promise<RawPdf>((resolve, reject) => {
      // A copy is transferred: the caller keeps its bytes, and no copy is made twice.
      const copy = new Uint8Array(bytes);
      this.queue.push({ id: this.nextId++, bytes: copy, resolve, reject });
      this.pump();
    });
  }

  /** Images of the given pages for OCR (see ocr/pageImages.ts), made in a worker. */
  pageImages(bytes: Uint8Array, pages: number[]): Promise<PageImage[]> {
    if (this.closed) return Promise.reject(new Error('the PDF extraction pool is closed'));
    return new Promise<PageImage[]>((resolve, reject) => {
      const copy = new Uint8Array(bytes);
      this.queue.push({ id: this.nextId++, bytes: copy, pages, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the PDF extraction pool was closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.timer) clearTimeout(s.timer);
        s.job?.reject(new Error('the PDF extraction pool was closed'));
        return s.worker.terminate();
      }),
    );
  }

  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.fail(slot!, new PdfSkipError(`gave up after ${Math.round((this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s: the PDF reader did not finish`, 'unreadable')), this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      slot.worker.postMessage({ id: job.id, bytes: job.bytes, pages: job.pages }, [job.bytes.buffer as ArrayBuffer]);
    }
  }

  private spawn(): Slot {
    // The worker runs a self-contained bundle: it takes none of this process's flags. Inherited
    // loader flags (tsx's --import in scripts and benchmarks) would run every module it loads,
    // pdf.js included, through that loader: +160 ms at each start, measured.
    const worker = new Worker(this.opts.workerFile, { execArgv: [] });
    const slot: Slot = { worker };
    worker.on('message', (reply: ExtractReply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      this.finish(slot);
      if (reply.ok) job.resolve('images' in reply ? reply.images : reply.raw);
      else job.reject(reply.kind ? new PdfSkipError(reply.message, reply.kind) : new Error(reply.message));
      this.pump();
    });
    worker.on('error', (err) => this.fail(slot, new PdfSkipError(`the PDF reader crashed on this file (${err.message})`, 'corrupt')));
    worker.on('exit', (code) => {
      if (slot.job) this.fail(slot, new PdfSkipError(`the PDF reader stopped on this file (exit code ${code})`, 'corrupt'));
    });
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    // Idle workers must not keep a CLI process alive.
    slot.worker.unref();
  }

  /** The job fails with `err`; its worker is discarded (it may be wedged) and replaced on demand. */
  private fail(slot: Slot, err: Error): void {
    const job = slot.job;
    this.finish(slot);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
    job?.reject(err);
    if (!this.closed) this.pump();
  }
}
