/**
 * One worker thread kept for a stream of requests, each answered by id: started
 * on first use, held (ref) only while a request is pending so an idle process can
 * exit, and replaced after a crash — the requests it held fail with a clear error
 * and the next request starts a new worker. The segmentation and citation-check
 * threads are this with their own messages.
 */
import { Worker } from 'node:worker_threads';

export interface PendingRequest {
  reject(e: Error): void;
}

export class KeptWorker<Reply extends { id: number }, Job extends PendingRequest> {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Job>();

  /**
   * @param answer handles a reply for its job; true when the job is finished (a
   *   progress message answers false and the job stays pending).
   * @param stopped the error each pending job gets when the worker dies.
   */
  constructor(
    private readonly workerFile: string,
    private readonly answer: (reply: Reply, job: Job) => boolean,
    private readonly stopped: (reason: string) => Error,
  ) {}

  /** Posts the message `make(id)` for a new job; returns the worker, for later messages about it. */
  request(job: Job, make: (id: number) => unknown): { id: number; worker: Worker } {
    const worker = this.start();
    const id = this.nextId++;
    this.pending.set(id, job);
    worker.ref();
    worker.postMessage(make(id));
    return { id, worker };
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // A self-contained bundle: it takes none of this process's flags (a loader would slow it down).
    const worker = new Worker(this.workerFile, { execArgv: [] });
    worker.on('message', (reply: Reply) => {
      const job = this.pending.get(reply.id);
      if (!job || !this.answer(reply, job)) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const job of this.pending.values()) job.reject(this.stopped(err.message));
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
