/**
 * The citation check in a worker thread (citationWorker.ts, bundled beside the
 * engine as dist/citation-check-worker.js): the caller's thread posts the draft
 * and gets the verdicts back. One worker, started on first use and kept (it
 * holds the sources loaded and the last verdicts, what makes a re-check after an
 * edit cheap); it lets the process exit when idle. Cancelling a check tells the
 * worker, which stops between citations. A crashed worker fails its requests
 * and the next check starts a new one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { EngineError, type EngineErrorCode } from '../shared/errors';
import type { CheckCitationsOptions, CitationCheckResult } from './citations';
import type { CitationCheckReply, CitationCheckRequest } from './citationWorker';

export const CITATION_WORKER_FILE = 'citation-check-worker.js';

interface Job {
  resolve(r: CitationCheckResult): void;
  reject(e: Error): void;
  onWarning?: (w: string) => void;
}

export class CitationThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Job>();

  constructor(private readonly workerFile: string) {}

  /** The thread beside the running bundle, or undefined where there is none (running from sources). */
  static beside(dir: string | undefined): CitationThread | undefined {
    const file = dir && join(dir, CITATION_WORKER_FILE);
    return file && existsSync(file) ? new CitationThread(file) : undefined;
  }

  check(draft: string, opts: CheckCitationsOptions): Promise<CitationCheckResult> {
    const { signal, onWarning, ...options } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('cancelled'));
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<CitationCheckResult>((resolve, reject) => {
      const onAbort = () => worker.postMessage({ type: 'cancel', id } satisfies CitationCheckRequest);
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
        onWarning,
      });
      // Held while it has work; idle, it does not keep the process alive.
      worker.ref();
      worker.postMessage({ type: 'check', id, draft, options } satisfies CitationCheckRequest);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // A self-contained bundle: it takes none of this process's flags (a loader would slow it down).
    const worker = new Worker(this.workerFile, { execArgv: [] });
    worker.on('message', (reply: CitationCheckReply) => {
      const job = this.pending.get(reply.id);
      if (!job) return;
      if (reply.kind === 'warning') {
        job.onWarning?.(reply.message);
        return;
      }
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.kind === 'done') job.resolve(reply.result);
      else if (reply.cancelled) job.reject(new Error('cancelled'));
      else job.reject(reply.code ? new EngineError(reply.code as EngineErrorCode, reply.message, reply.health) : new Error(reply.message));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const job of this.pending.values()) job.reject(new Error(`the citation check thread stopped: ${err.message}`));
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      if (this.pending.size) fail(new Error(`exit code ${code}`));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
