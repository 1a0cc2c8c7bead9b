/**
 * Segmentation in a worker thread (segmentWorker.ts, bundled beside the engine
 * as dist/segment-worker.js): the caller's thread only posts the text and gets
 * the segments back. One worker, started on first use and kept while in use; it
 * lets the process exit when idle. A crashed worker fails its requests with a
 * clear error and the next request starts a new one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { EngineError, type EngineErrorCode } from '../../shared/errors';
import type { Granularity, SegmentedDocument, SegmentOptions } from './segment';
import type { SegmentReply, SegmentRequest } from './segmentWorker';

export const SEGMENT_WORKER_FILE = 'segment-worker.js';

export class SegmentThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(d: SegmentedDocument): void; reject(e: Error): void }>();

  constructor(private readonly workerFile: string) {}

  /** The thread beside the running bundle, or undefined where there is none (running from sources). */
  static beside(dir: string | undefined): SegmentThread | undefined {
    const file = dir && join(dir, SEGMENT_WORKER_FILE);
    return file && existsSync(file) ? new SegmentThread(file) : undefined;
  }

  segment(text: string, granularity: Granularity = 'paragraph', options: SegmentOptions = {}): Promise<SegmentedDocument> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<SegmentedDocument>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Held while it has work; idle, it does not keep the process alive.
      worker.ref();
      worker.postMessage({ id, text, granularity, options } satisfies SegmentRequest);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // A self-contained bundle: it takes none of this process's flags (a loader would slow it down).
    const worker = new Worker(this.workerFile, { execArgv: [] });
    worker.on('message', (reply: SegmentReply) => {
      const job = this.pending.get(reply.id);
      if (!job) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) job.resolve(reply.document);
      else job.reject(new EngineError((reply.code as EngineErrorCode | undefined) ?? 'unreadable', reply.message));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const job of this.pending.values()) job.reject(new EngineError('unreadable', `the Markdown segmentation thread stopped: ${err.message}`));
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
