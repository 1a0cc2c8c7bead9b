/**
 * Segmentation in a worker thread (segmentWorker.ts, bundled beside the engine
 * as dist/segment-worker.js): the caller's thread only posts the text and gets
 * the segments back. One worker, started on first use and kept while in use; it
 * lets the process exit when idle. A crashed worker fails its requests with a
 * clear error and the next request starts a new one (util/keptWorker.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError, type EngineErrorCode } from '../../shared/errors';
import { KeptWorker } from '../util/keptWorker';
import type { Granularity, SegmentedDocument, SegmentOptions } from './segment';
import type { SegmentReply, SegmentRequest } from './segmentWorker';

export const SEGMENT_WORKER_FILE = 'segment-worker.js';

interface Job {
  resolve(d: SegmentedDocument): void;
  reject(e: Error): void;
}

export class SegmentThread {
  private readonly thread: KeptWorker<SegmentReply, Job>;

  constructor(workerFile: string) {
    this.thread = new KeptWorker<SegmentReply, Job>(
      workerFile,
      (reply, job) => {
        if (reply.ok) job.resolve(reply.document);
        else job.reject(new EngineError((reply.code as EngineErrorCode | undefined) ?? 'unreadable', reply.message));
        return true;
      },
      (reason) => new EngineError('unreadable', `the Markdown segmentation thread stopped: ${reason}`),
    );
  }

  /** The thread beside the running bundle, or undefined where there is none (running from sources). */
  static beside(dir: string | undefined): SegmentThread | undefined {
    const file = dir && join(dir, SEGMENT_WORKER_FILE);
    return file && existsSync(file) ? new SegmentThread(file) : undefined;
  }

  segment(text: string, granularity: Granularity = 'paragraph', options: SegmentOptions = {}): Promise<SegmentedDocument> {
    return new Promise<SegmentedDocument>((resolve, reject) => {
      this.thread.request({ resolve, reject }, (id) => ({ id, text, granularity, options }) satisfies SegmentRequest);
    });
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
