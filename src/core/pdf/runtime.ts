/**
 * Loads pdf-parse on first use (it is heavy: never at extension activation) and,
 * when running from the esbuild bundle, points pdf.js at the worker file that the
 * build copies beside the bundle.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installDomMatrix } from './domMatrix';

type PdfParseModule = typeof import('pdf-parse');
let loading: Promise<PdfParseModule> | undefined;

export function ensurePdfRuntime(): Promise<PdfParseModule> {
  loading ??= (async () => {
    installDomMatrix();
    // pdf.js (and its worker, loaded later) warns about canvas features that text
    // extraction never uses; those lines would only confuse users. Others pass.
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && /^Warning: Cannot (load "@napi-rs\/canvas"|polyfill `)/.test(args[0])) return;
      warn(...args);
    };
    const mod = await import('pdf-parse');
    const bundledWorker = typeof __dirname === 'string' ? join(__dirname, 'pdf.worker.mjs') : '';
    if (bundledWorker && existsSync(bundledWorker)) {
      mod.PDFParse.setWorker(pathToFileURL(bundledWorker).href);
    }
    return mod;
  })();
  return loading;
}
