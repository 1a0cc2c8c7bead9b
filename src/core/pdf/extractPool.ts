/**
 * A small pool of worker threads that run PDF extraction (see extractWorker.ts).
 * Indexing reads ahead and hands PDFs to the pool while the calling thread
 * chunks and embeds the previous ones. A worker that crashes or hangs on a file
 * is replaced, and that file is skipped with a reason: one bad PDF never stops
 * a library.
 *
 * Time is bounded per file (see ReadBudget): a file over its budget has its worker terminated
 * and is skipped with the reason. A file read for longer than a few seconds lets another worker
 * start beside it, so a slow file never holds the files queued behind it (a one-worker pool on
 * two cores would otherwise wait for it). close() terminates every worker at once: a cancelled
 * run never waits for pdf.js.
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
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PdfSkipError, type RawPdf } from './extract';
import type { PageImage } from './pageImages';
import type { ExtractReply } from './extractWorker';
import { defaultThreads } from '../util/threads';

export const EXTRACT_WORKER_FILE = 'pdf-extract-worker.js';

/**
 * How long reading one file may take (wall time): `baseMs`, plus `perPageMs` for each page once
 * the worker has opened the document and knows how many there are, at most `capMs`. A file over
 * its budget has its worker terminated (a pathological file can spin pdf.js for hours: a content
 * stream nesting 200,000 `q` operators, a page tree naming one page 100,000 times) and is skipped
 * with the reason; the skip is remembered until the file changes. Ordinary files read at hundreds
 * of pages a second (BENCHMARKS.md: ~650 pages/s), so the budget leaves a margin of hundreds on a
 * busy machine: a 20-page article gets 40 s, a book of 300 pages or more 180 s.
 */
export interface ReadBudget {
  baseMs: number;
  perPageMs: number;
  capMs: number;
}
export const DEFAULT_READ_BUDGET: ReadBudget = { baseMs: 30_000, perPageMs: 500, capMs: 180_000 };

/** The wall time a file of `pages` pages may take to read (pages unknown: the base). */
export function readBudgetMs(pages: number | undefined, budget: ReadBudget = DEFAULT_READ_BUDGET): number {
  return Math.min(budget.capMs, budget.baseMs + (pages && pages > 0 ? pages * budget.perPageMs : 0));
}

/**
 * A file read for longer than this no longer holds the queue: another worker is started beside
 * it (at most {@link MAX_EXTRA_WORKERS} more than the pool's size), so a slow or hostile file
 * never keeps a one-worker pool (two cores) from reading the rest of the library meanwhile.
 */
const SLOW_MS = 3_000;
/** "30 s", "30.5 s" ("300 ms" under a second: tests). */
const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${Number((ms / 1000).toFixed(1))} s`);
const MAX_EXTRA_WORKERS = 2;

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
  /** Pages to read, once known (the worker's report after opening the document; page images: their count). */
  pageCount?: number;
  /** Pages read so far (the worker's reports). */
  pagesDone?: number;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** When its job started, and the timer that marks it slow (see SLOW_MS). */
  startedAt?: number;
  slowTimer?: NodeJS.Timeout;
  /**
   * Set by that timer, not judged from Date.now(): timers run on a coarse monotonic clock and may
   * fire a millisecond before the wall clock says the time is up (CI saw it), and nothing would
   * look again.
   */
  slow?: boolean;
  /**
   * The process's least resident memory since the job started: growth is counted from it, so
   * memory freed meanwhile (a terminated worker's, released a moment later) is not the job's credit.
   */
  rssLow?: number;
}

export interface ExtractPoolOptions {
  workerFile: string;
  /**
   * Worker threads; default: defaultThreads() (cores − 1, at most 4; both cores of a 2-core
   * machine). 0 (`--jobs 0`): one worker that reads one file at a time, none started beside a slow
   * file — the fewest threads, and the same read budget and memory ceiling (it once meant reading
   * in the calling thread, unbounded).
   */
  size?: number;
  /** Wall time per file (default {@link DEFAULT_READ_BUDGET}: 30 s + 0.5 s a page, at most 180 s). */
  budget?: Partial<ReadBudget>;
  /** A fixed wall time per file instead of the budget (tests). */
  timeoutMs?: number;
  /** After how long a file being read lets another worker start beside it (default 3 s). */
  slowMs?: number;
  /** Bytes a file of this size may add to the process's resident memory (default {@link defaultMemoryCeiling}). */
  memoryCeiling?: (fileBytes: number) => number;
  /** How often the process's memory is read while files are read (default 100 ms). */
  memoryPollMs?: number;
  /** The process's resident memory (tests); default process.memoryUsage.rss(). */
  rss?: () => number;
}

export class PdfExtractPool {
  readonly size: number;
  /** Workers that may start beside slow files (0 for a pool of size 0: one file at a time). */
  private readonly extra: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private watchdog?: NodeJS.Timeout;

  constructor(private readonly opts: ExtractPoolOptions) {
    this.size = Math.max(1, opts.size ?? defaultThreads());
    this.extra = opts.size === 0 ? 0 : MAX_EXTRA_WORKERS;
  }

  /** Starts the workers now, so loading pdf.js in them overlaps discovery and the manifest read. */
  warm(): this {
    while (!this.closed && this.slots.length < this.size) this.spawn();
    return this;
  }

  /** The pool beside the running bundle (dist/), warm, or undefined when there is none (running from sources). `size` 0: one worker, one file at a time. */
  static beside(dir: string | undefined, size?: number, budget?: Partial<ReadBudget>): PdfExtractPool | undefined {
    if (!dir) return undefined;
    const workerFile = join(dir, EXTRACT_WORKER_FILE);
    return existsSync(workerFile) ? new PdfExtractPool({ workerFile, size, budget }).warm() : undefined;
  }

  extract(bytes: Uint8Array): Promise<RawPdf> {
    if (this.closed) return Promise.reject(new Error('the PDF extraction pool is closed'));
    return new Promise<RawPdf>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes, resolve, reject });
      this.pump();
    });
  }

  /** Images of the given pages for OCR (see pageImages.ts), made in a worker. */
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
        if (s.slowTimer) clearTimeout(s.slowTimer);
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
      if (!slot && this.slots.length < this.capacity()) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
    // Workers started beside a slow file go once they are idle and no longer needed.
    for (const s of this.slots.filter((x) => !x.job)) if (this.slots.length > this.capacity()) this.discard(s);
  }

  /** Workers allowed now: the pool's size, plus one beside each file read for longer than SLOW_MS (at most MAX_EXTRA_WORKERS; none for size 0). */
  private capacity(): number {
    const slow = this.slots.filter((s) => s.job && !s.job.alone && s.slow).length;
    return this.size + Math.min(this.extra, slow);
  }

  private budgetMs(job: Job): number {
    return this.opts.timeoutMs ?? readBudgetMs(job.pageCount, { ...DEFAULT_READ_BUDGET, ...this.opts.budget });
  }

  /**
   * (Re)arms the job's deadline, counted from when it started: the base first; a file whose page
   * count raised its budget is checked at the base again, and given the rest only if the pages
   * read so far say it will finish within it (a page tree naming one page 100,000 times reads a
   * page every few tenths of a second: stopped at the base, not after the cap).
   */
  private arm(slot: Slot): void {
    const job = slot.job!;
    if (slot.timer) clearTimeout(slot.timer);
    const budget = this.budgetMs(job);
    const base = this.opts.timeoutMs ?? Math.min(budget, { ...DEFAULT_READ_BUDGET, ...this.opts.budget }.baseMs);
    const elapsed = Date.now() - slot.startedAt!;
    // A budget of twice the base or more (60 pages and up, by default) is given in full only if the pages read by the base say it will do.
    const checkpoint = elapsed < base && budget >= 2 * base ? base : budget;
    slot.timer = setTimeout(
      () => {
        const spent = Date.now() - slot.startedAt!;
        const total = job.pageCount ?? 0;
        if (checkpoint < budget) {
          const done = job.pagesDone ?? 0;
          const projected = done > 0 ? (spent / done) * total : Infinity;
          if (projected <= budget) return this.arm(slot);
          const pages = `${done.toLocaleString('en')} of ${total.toLocaleString('en')} pages in ${seconds(spent)}`;
          return this.fail(
            slot,
            new PdfSkipError(`too slow to read within ${seconds(budget)} (${pages}): skipped; it will be retried when it changes`, 'unreadable'),
          );
        }
        const pages = total ? ` (${total.toLocaleString('en')} page${total > 1 ? 's' : ''})` : '';
        this.fail(slot, new PdfSkipError(`took longer than ${seconds(budget)} to read${pages}: skipped; it will be retried when it changes`, 'unreadable'));
      },
      Math.max(0, slot.startedAt! + checkpoint - Date.now()),
    );
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.rssLow = this.rss();
    slot.startedAt = Date.now();
    slot.worker.ref();
    if (job.pages) job.pageCount = job.pages.length;
    this.arm(slot);
    slot.slow = false;
    slot.slowTimer = setTimeout(() => {
      slot.slow = true;
      this.pump();
    }, this.opts.slowMs ?? SLOW_MS);
    slot.slowTimer.unref();
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
      if ('opened' in reply) {
        // The document is open: its budget grows with its pages.
        job.pageCount = reply.opened;
        this.arm(slot);
        return;
      }
      if ('read' in reply) {
        job.pagesDone = reply.read;
        return;
      }
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
    if (slot.slowTimer) clearTimeout(slot.slowTimer);
    slot.timer = slot.slowTimer = undefined;
    slot.slow = false;
    slot.startedAt = undefined;
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
