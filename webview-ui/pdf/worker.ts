/**
 * Starts pdf.js's worker inside the webview's CSP: no 'unsafe-eval' and scripts
 * only by nonce, so pdf.js must never fall back to its "fake worker" (a dynamic
 * import). When the worker's URI is cross-origin (the case in VS Code), it is
 * fetched and started from a blob: URL (`worker-src blob:`).
 */
import { GlobalWorkerOptions } from 'pdfjs-dist';

/** A function that starts the worker at `url` on its first call, and gives the same promise after. */
export function workerStarter(url: string): () => Promise<void> {
  let ready: Promise<void> | undefined;
  return () => (ready ??= startWorker(url));
}

async function startWorker(url: string): Promise<void> {
  GlobalWorkerOptions.workerSrc = url;
  let sameOrigin = false;
  try {
    sameOrigin = new URL(url).origin === location.origin && location.origin !== 'null';
  } catch {
    sameOrigin = false;
  }
  if (sameOrigin) return; // pdf.js starts it from workerSrc itself.
  try {
    // Chromium refuses cross-origin worker scripts synchronously.
    GlobalWorkerOptions.workerPort = new Worker(url, { type: 'module' });
    return;
  } catch {
    /* cross-origin: go through a blob: URL */
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`pdf.js worker: HTTP ${response.status}`);
  const code = await response.text();
  const blobUrl = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  GlobalWorkerOptions.workerPort = new Worker(blobUrl, { type: 'module' });
}
