/**
 * OCR figures shared by `npm run bench` and scripts/measure-ocr.ts: page images of real
 * text PDFs rendered at 300 dpi (poppler's pdftoppm, as a scanner would give them), and the
 * throughput of the product's OCR pool against bare tesseract.js in one worker on the same
 * images, with the memory each OCR worker adds.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { OcrPool } from '../../src/core/ocr/ocrPool';
import { languageFolder } from '../../src/core/ocr/ocrRuntime';

/** Page `page` of `pdf` as a 300-dpi 8-bit grey PGM (what pageImages hands Tesseract). */
export function renderPgm(pdf: string, page: number, dpi = 300): Uint8Array {
  return execFileSync('pdftoppm', ['-gray', '-r', String(dpi), '-f', String(page), '-l', String(page), pdf], { maxBuffer: 256 * 1024 * 1024 });
}

/** `count` page images from the PDFs of `dir` (first pages of each file in turn). */
export async function sampleImages(dir: string, count: number): Promise<Uint8Array[]> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.pdf')).sort();
  const out: Uint8Array[] = [];
  for (let page = 1; out.length < count && page < 10; page++) {
    for (const f of files) {
      if (out.length >= count) break;
      try {
        out.push(renderPgm(path.join(dir, f), page));
      } catch {
        // that file has fewer pages
      }
    }
  }
  return out;
}

export interface OcrThroughput {
  images: number;
  workers: number;
  /** pages/s of the pool with `workers` workers */
  poolRate: number;
  /** pages/s of bare tesseract.js, one worker, recognising the images one after another */
  bareRate: number;
  /** pool pages/s per worker ÷ bare pages/s */
  perWorkerRatio: number;
  /** extra resident memory of one started OCR worker (trained data eng+fra loaded, one page done), MiB */
  rssPerWorkerMiB: number;
}

const MiB = 1024 * 1024;

export async function ocrThroughput(images: Uint8Array[], runs: number, workers?: number): Promise<OcrThroughput> {
  const { createWorker, OEM } = await import('tesseract.js');
  const langs = ['eng', 'fra'];
  const langPath = languageFolder(langs);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  // Extra memory of one worker: resident set before and after starting one and recognising a page.
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const probe = new OcrPool({ languages: langs, size: 1 });
  await probe.recognise(images[0]);
  const rss1 = process.memoryUsage().rss;
  await probe.close();

  // Bare tesseract.js: its own worker script, same languages, same engine mode, same images.
  const bare = await createWorker(langs, OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none' });
  await bare.recognize(Buffer.from(images[0]));
  const bareMs: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    for (const img of images) await bare.recognize(Buffer.from(img));
    bareMs.push(performance.now() - t);
  }
  await bare.terminate();

  const pool = new OcrPool({ languages: langs, size: workers });
  // Warm: every worker started and past its first page, as in a long OCR run.
  await Promise.all(Array.from({ length: pool.size }, () => pool.recognise(images[0])));
  const poolMs: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    await Promise.all(images.map((img) => pool.recognise(img)));
    poolMs.push(performance.now() - t);
  }
  await pool.close();

  const bareRate = (images.length / median(bareMs)) * 1000;
  const poolRate = (images.length / median(poolMs)) * 1000;
  return {
    images: images.length,
    workers: pool.size,
    poolRate,
    bareRate,
    perWorkerRatio: poolRate / pool.size / bareRate,
    rssPerWorkerMiB: (rss1 - rss0) / MiB,
  };
}
