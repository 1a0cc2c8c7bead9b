/**
 * Worker-thread entry (bundled as dist/segment-worker.js): segments a Markdown
 * draft off the calling thread, so the VS Code extension host is not held by
 * remark on a large draft (a 5 MB draft takes seconds to parse).
 */
import { parentPort } from 'node:worker_threads';
import { segmentMarkdown, type Granularity, type SegmentedDocument, type SegmentOptions } from './segment';

export interface SegmentRequest {
  id: number;
  text: string;
  granularity: Granularity;
  options: SegmentOptions;
}

export type SegmentReply =
  | { id: number; ok: true; document: SegmentedDocument }
  /** `code`: the engine error's code when segmentation refused the draft (e.g. nested too deeply). */
  | { id: number; ok: false; message: string; code?: string };

const port = parentPort;
if (port) {
  port.on('message', (req: SegmentRequest) => {
    segmentMarkdown(req.text, req.granularity, req.options).then(
      (document) => port.postMessage({ id: req.id, ok: true, document } satisfies SegmentReply),
      (err: unknown) =>
        port.postMessage({
          id: req.id,
          ok: false,
          message: (err as Error)?.message ?? String(err),
          code: (err as { code?: string })?.code,
        } satisfies SegmentReply),
    );
  });
}
