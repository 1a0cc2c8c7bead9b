/**
 * The citation check in a worker thread (citationWorker.ts, bundled beside the
 * engine as dist/citation-check-worker.js): the caller's thread posts the draft
 * and gets the verdicts back. One worker, started on first use and kept (it
 * holds the sources loaded and the last verdicts, what makes a re-check after an
 * edit cheap); it lets the process exit when idle. Cancelling a check tells the
 * worker, which stops between citations. A crashed worker fails its requests
 * and the next check starts a new one (core/util/keptWorker.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KeptWorker } from '../core/util/keptWorker';
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
  private readonly thread: KeptWorker<CitationCheckReply, Job>;

  constructor(workerFile: string) {
    this.thread = new KeptWorker<CitationCheckReply, Job>(
      workerFile,
      (reply, job) => {
        if (reply.kind === 'warning') {
          job.onWarning?.(reply.message);
          return false;
        }
        if (reply.kind === 'done') job.resolve(reply.result);
        else if (reply.cancelled) job.reject(new Error('cancelled'));
        else job.reject(reply.code ? new EngineError(reply.code as EngineErrorCode, reply.message, reply.health) : new Error(reply.message));
        return true;
      },
      (reason) => new Error(`the citation check thread stopped: ${reason}`),
    );
  }

  /** The thread beside the running bundle, or undefined where there is none (running from sources). */
  static beside(dir: string | undefined): CitationThread | undefined {
    const file = dir && join(dir, CITATION_WORKER_FILE);
    return file && existsSync(file) ? new CitationThread(file) : undefined;
  }

  check(draft: string, opts: CheckCitationsOptions): Promise<CitationCheckResult> {
    const { signal, onWarning, ...options } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('cancelled'));
    return new Promise<CitationCheckResult>((resolve, reject) => {
      let onAbort: (() => void) | undefined;
      const done = () => onAbort && signal?.removeEventListener('abort', onAbort);
      const { id, worker } = this.thread.request(
        { resolve: (r) => (done(), resolve(r)), reject: (e) => (done(), reject(e)), onWarning },
        (id) => ({ type: 'check', id, draft, options }) satisfies CitationCheckRequest,
      );
      onAbort = () => worker.postMessage({ type: 'cancel', id } satisfies CitationCheckRequest);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
