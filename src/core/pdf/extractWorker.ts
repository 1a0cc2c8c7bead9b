/**
 * Worker-thread entry (bundled as dist/pdf-extract-worker.js): extracts one PDF
 * per message, so pdf.js runs off the indexing thread — in parallel with
 * embedding, and without blocking the VS Code extension host.
 */
import { parentPort } from 'node:worker_threads';
import { pageImages, type PageImage } from './pageImages';
import { extractPdf, PdfSkipError } from './extract';
import { ensurePdfRuntime } from './runtime';

export interface ExtractRequest {
  id: number;
  bytes: Uint8Array;
  /** Page images for OCR instead of text. */
  pages?: number[];
}

export type ExtractReply =
  | { id: number; ok: true; raw: Awaited<ReturnType<typeof extractPdf>> }
  | { id: number; ok: true; images: PageImage[] }
  | { id: number; ok: false; message: string; kind?: PdfSkipError['kind'] }
  /** Sent once the document is open: its page count (the pool's time budget grows with it). */
  | { id: number; opened: number }
  /** Pages read so far, sent every quarter of a second or so while pages are read. */
  | { id: number; read: number };

const port = parentPort;
if (port) {
  // pdf.js leaves some of its own promises unhandled on a damaged file ("End of file inside
  // dictionary", an inconsistent xref generation: found by the fuzz harness); Node would end the
  // worker for it, and the file be reported as a crash. The file's own promise still settles with
  // the error (or the pool's read budget stops it): a stray rejection is no reason to stop.
  process.on('unhandledRejection', () => undefined);
  // Load pdf.js as soon as the worker starts (the pool starts it ahead of the first file).
  ensurePdfRuntime().catch(() => undefined);
  port.on('message', (req: ExtractRequest) => {
    if (req.pages) {
      pageImages(req.bytes, req.pages).then(
        (images) => {
          const transfer = images.flatMap((i) => (i.image ? [i.image.buffer as ArrayBuffer] : []));
          port.postMessage({ id: req.id, ok: true, images } satisfies ExtractReply, transfer);
        },
        (err: unknown) => port.postMessage({ id: req.id, ok: false, message: (err as Error)?.message ?? String(err) } satisfies ExtractReply),
      );
      return;
    }
    let told = 0;
    extractPdf(req.bytes, {
      onOpened: (pages) => port.postMessage({ id: req.id, opened: pages } satisfies ExtractReply),
      onPage: (n) => {
        if (Date.now() - told < 250) return;
        told = Date.now();
        port.postMessage({ id: req.id, read: n } satisfies ExtractReply);
      },
    }).then(
      (raw) => port.postMessage({ id: req.id, ok: true, raw } satisfies ExtractReply),
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        port.postMessage({ id: req.id, ok: false, message: e.message, kind: err instanceof PdfSkipError ? err.kind : undefined } satisfies ExtractReply);
      },
    );
  });
}
