/**
 * A small pool of worker threads that run PDF extraction (see extractWorker.ts).
 * Indexing reads ahead and hands PDFs to the pool while the calling thread
 * chunks and embeds the previous ones. A worker that crashes or hangs on a file
 * is replaced, and that file is skipped with a reason: one bad PDF never stops
 * a library.
 *
 * Memory is bounded too. A worker's `resourceLimits` would cap only its JS heap, and
 * pdf.js inflates streams into typed arrays outside it; a worker busy in pdf.js never
 * turns its event loop, so it cannot watch itself either. So a watchdog here polls the
 * process's resident memory while files are read, and a job whose file has made it grow
 * by more than its ceiling (a content stream inflating to gigabytes: a decompression
 * bomb) has its worker terminated — termination interrupts synchronous JS — and the file
 * is skipped with the reason; a new worker takes the next file. Resident memory belongs
 * to the whole process: a file that passes its ceiling is first read again alone (with any
 * other file that was being read), and skipped only if it passes the ceiling alone.
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

const MB = 1024 * 1024;
/**
 * What reading one file may add to the process's resident memory: 1 GB, plus twice the
 * file (the worker's copy and pdf.js's). Measured: a 200 MB PDF adds ~390 MB to extract,
 * a 2,000-page book ~50 MB, a page of 100,000 text items ~40 MB, page images of a 200 MB
 * scan for OCR ~200 MB; a 0.6 MB stream inflating to 200 MB added ~4 GB before this
 * watchdog. The VS Code extension host shares the process, so the ceiling is not higher.
 */
export function defaultMemoryCeiling(fileBytes: number): number {
  return 1024 * MB + 2 * fileBytes;
}
/** How often the watchdog reads the process's resident memory while a file is read. */
const MEMORY_POLL_MS = 100;

interface Job {
  id: number;
  /** The caller's bytes: copied when the job starts (a job read again alone needs them again). */
  bytes: Uint8Array;
  /** Set for a page-image request (OCR); text extraction otherwise. */
  pages?: number[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  resolve(result: any): void;
  reject(err: Error): void;
  /** Stopped once as the process passed a ceiling: it is read again with no other file. */
  alone?: boolean;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
  /**
   * The process's least resident memory since the job started: growth is counted from it, so
   * memory freed meanwhile (a terminated worker's, released a moment later) is not the job's credit.
   */
  rssLow?: number;
}

export interface ExtractPoolOptions {
  workerFile: string;
  /** Worker threads; default: one fewer than the cores (at least 1, at most 4). */
  size?: number;
  timeoutMs?: number;
  /** Bytes a file of this size may add to the process's resident memory (default {@link defaultMemoryCeiling}). */
  memoryCeiling?: (fileBytes: number) => number;
  /** How often the process's memory is read while files are read (default 100 ms). */
  memoryPollMs?: number;
  /** The process's resident memory (tests); default process.memoryUsage.rss(). */
  rss?: () => number;
}

export class PdfExtractPool {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private watchdog?: NodeJS.Timeout;

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
      this.queue.push({ id: this.nextId++, bytes, resolve, reject });
      this.pump();
    });
  }

  /** Images of the given pages for OCR (see ocr/pageImages.ts), made in a worker. */
  pageImages(bytes: Uint8Array, pages: number[]): Promise<PageImage[]> {
    if (this.closed) return Promise.reject(new Error('the PDF extraction pool is closed'));
    return new Promise<PageImage[]>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes, pages, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopWatchdog();
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
      const busy = this.slots.filter((s) => s.job);
      // A file under suspicion is read with no other, so the memory it takes is its own.
      if (busy.some((s) => s.job!.alone) || (this.queue[0].alone && busy.length)) return;
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private start(slot: Slot, job: Job): void {
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    slot.job = job;
    slot.rssLow = this.rss();
    slot.worker.ref();
    slot.timer = setTimeout(() => this.fail(slot, new PdfSkipError(`gave up after ${Math.round(timeoutMs / 1000)} s: the PDF reader did not finish`, 'unreadable')), timeoutMs);
    // A copy is transferred: the caller keeps its bytes, and the worker's copy is not copied again.
    const copy = new Uint8Array(job.bytes);
    slot.worker.postMessage({ id: job.id, bytes: copy, pages: job.pages }, [copy.buffer as ArrayBuffer]);
    this.watchdog ??= setInterval(() => this.checkMemory(), this.opts.memoryPollMs ?? MEMORY_POLL_MS);
    // The watchdog never keeps a process alive: a busy worker does (ref above).
    this.watchdog.unref();
  }

  private rss(): number {
    return this.opts.rss ? this.opts.rss() : process.memoryUsage.rss();
  }

  private ceiling(job: Job): number {
    return (this.opts.memoryCeiling ?? defaultMemoryCeiling)(job.bytes.length);
  }

  /** The watchdog's round: a job whose file made the process grow past its ceiling is stopped. */
  private checkMemory(): void {
    const busy = this.slots.filter((s) => s.job);
    if (!busy.length) return this.stopWatchdog();
    const rss = this.rss();
    for (const s of busy) s.rssLow = Math.min(s.rssLow!, rss);
    if (!busy.some((s) => rss - s.rssLow! > this.ceiling(s.job!))) return;
    if (busy.length === 1 && busy[0].job!.alone) {
      const limit = Math.round(this.ceiling(busy[0].job!) / MB);
      this.fail(busy[0], new PdfSkipError(`needs more than ${limit} MB of memory to read (a decompression bomb?): reading it was stopped`, 'too-large'));
      return;
    }
    // Whose memory it is, is not known for sure: the process's memory is shared (other files being
    // read, an embedding model, in VS Code other extensions), and a skip is remembered until the
    // file changes. So each file being read is read again, alone, in the order they came; only a
    // file that passes its ceiling alone is skipped.
    const jobs = busy.map((s) => s.job!).sort((a, b) => a.id - b.id);
    for (const s of busy) this.discard(s);
    for (const job of jobs) job.alone = true;
    this.queue.unshift(...jobs);
    this.pump();
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
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
    worker.on('error', (err) => {
      // The worker's own JS heap limit (V8's default) can stop it before the watchdog does.
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' && slot.job) {
        this.fail(slot, new PdfSkipError(`needs more memory to read than the PDF reader has (a decompression bomb?): reading it was stopped`, 'too-large'));
      } else this.fail(slot, new PdfSkipError(`the PDF reader crashed on this file (${err.message})`, 'corrupt'));
    });
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
    slot.rssLow = undefined;
    // Idle workers must not keep a CLI process alive.
    slot.worker.unref();
  }

  /** The job fails with `err`; its worker is discarded (it may be wedged) and replaced on demand. */
  private fail(slot: Slot, err: Error): void {
    const job = slot.job;
    this.discard(slot);
    job?.reject(err);
    if (!this.closed) this.pump();
  }

  /** The slot's worker is terminated (its job, if any, is the caller's to settle or run again). */
  private discard(slot: Slot): void {
    this.finish(slot);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
  }
}
