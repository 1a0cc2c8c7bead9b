/**
 * Scanned copies of PDFs for the OCR tests: each page rendered to an 8-bit grey image by
 * Debian's pdftoppm (poppler-utils, installed by .ci/run), then wrapped by pdfWriter as an
 * image-only page — a PDF with no text layer, like a scanner's output.
 */
import { execFileSync } from 'node:child_process';
import type { PdfPage } from './pdfWriter';

export interface GreyImage {
  width: number;
  height: number;
  grey: Uint8Array;
}

/** Page `page` (1-based) of `pdf` as a grey image at `dpi`. */
export function renderGrey(pdf: Buffer, page: number, dpi = 200): GreyImage {
  let out: Buffer;
  try {
    out = execFileSync('pdftoppm', ['-gray', '-r', String(dpi), '-f', String(page), '-l', String(page), '-'], { input: pdf, maxBuffer: 256 * 1024 * 1024 });
  } catch (err) {
    throw new Error(`pdftoppm failed (${(err as Error).message}); the OCR tests need Debian's poppler-utils: apt-get install -y poppler-utils`);
  }
  return parsePgm(out);
}

export function parsePgm(buf: Buffer): GreyImage {
  // "P5" whitespace width whitespace height whitespace maxval single-whitespace data
  const m = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(buf.subarray(0, 64).toString('latin1'));
  if (!m || m[3] !== '255') throw new Error('not an 8-bit PGM (P5) image');
  const width = Number(m[1]);
  const height = Number(m[2]);
  const start = m[0].length;
  return { width, height, grey: new Uint8Array(buf.subarray(start, start + width * height)) };
}

/** A pdfWriter page that is a scan of page `page` of `pdf`. */
export function scannedPage(pdf: Buffer, page: number, dpi = 200): PdfPage {
  return { image: renderGrey(pdf, page, dpi) };
}
