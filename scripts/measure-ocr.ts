/**
 * OCR quality and the page-selection rule, measured (issue 12):
 *
 *   npx tsx scripts/measure-ocr.ts [--library examples/library] [--json]
 *
 * 1. The garbage-text-layer rule on fixtures: clean text layers of real-ish PDFs against five
 *    kinds of damage (test/support/textLayers.ts): detection and false alarms, and the margins.
 * 2. Page images: the page's embedded scan vs a 300-dpi pdf.js render of the same page —
 *    time per page and the OCR accuracy each gives.
 * 3. Scanned copies of the library's PDFs (pdftoppm at 300 dpi, wrapped by img2pdf: Debian's
 *    poppler-utils and img2pdf) indexed through the product's path (extraction workers, OCR pool,
 *    cache): pages/s, character accuracy of OCR against each original page's text layer, by
 *    language, and known-item retrieval (12-word spans of original pages → the scanned copy's
 *    page in the top 3).
 * Needs dist/ (node scripts/build.mjs) for the extraction workers.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { updateIndex } from '../src/core/index/write/indexer';
import { LibraryIndex } from '../src/core/index/search/libraryIndex';
import { indexDir } from '../src/core/index/store/manifest';
import { libraryInputs } from '../src/core/library/pdfSource';
import { OcrPool } from '../src/core/ocr/ocrPool';
import { pageImages } from '../src/core/pdf/pageImages';
import { MAX_BAD_CHAR_SHARE, MIN_LETTERS, MIN_WORD_SHARE, pageTextQuality } from '../src/core/pdf/textQuality';
import { extractPdf } from '../src/core/pdf/extract';
import { PdfExtractPool } from '../src/core/pdf/extractPool';
import { cleanPageTexts, DAMAGES } from '../test/support/textLayers';

const argv = process.argv.slice(2);
const opt = (n: string) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : undefined;
};
const LIBRARY = path.resolve(opt('--library') ?? 'examples/library');
const JSON_OUT = argv.includes('--json');
const log = (s: string) => process.stderr.write(s + '\n');
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Text compared as characters: Unicode-normalised, quotes and dashes unified, hyphenation joined, whitespace collapsed. */
export function normalise(t: string): string {
  return t
    .normalize('NFKC')
    .replace(/[’‘`´]/g, "'")
    .replace(/[“”«»„]/g, '"')
    .replace(/[–—]/g, '-')
    .replace(/(\p{L})-\s*\n\s*(\p{Ll})/gu, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let prev = new Uint32Array(b.length + 1).map((_, j) => j);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

/** 1 − edits / length of the original: the share of the original's characters OCR got right. */
function charAccuracy(ocr: string, original: string): { edits: number; chars: number } {
  const a = normalise(ocr);
  const b = normalise(original);
  return { edits: editDistance(a, b), chars: b.length };
}

function langOf(text: string): 'fr' | 'en' {
  const fr = (text.match(/\b(le|la|les|des|du|et|est|une|dans|que|qui|pour)\b/gi) ?? []).length;
  const en = (text.match(/\b(the|and|of|is|was|in|that|which|for|with)\b/gi) ?? []).length;
  return fr > en ? 'fr' : 'en';
}

async function ruleFigures() {
  const clean = await cleanPageTexts(LIBRARY);
  const q = clean.map(pageTextQuality);
  const out: Record<string, unknown> = {
    thresholds: { minLetters: MIN_LETTERS, minWordShare: MIN_WORD_SHARE, maxBadCharShare: MAX_BAD_CHAR_SHARE },
    clean: {
      pages: clean.length,
      falseAlarms: q.filter((x) => x.verdict !== 'ok').length,
      minWordShare: Math.min(...q.map((x) => x.wordShare)),
      maxBadCharShare: Math.max(...q.map((x) => x.badCharShare)),
    },
    damaged: {} as Record<string, unknown>,
  };
  for (const [name, damage] of Object.entries(DAMAGES)) {
    const d = clean.map((t, i) => pageTextQuality(damage(t, i + 1)));
    (out.damaged as Record<string, unknown>)[name] = {
      detected: `${d.filter((x) => x.verdict !== 'ok').length}/${d.length}`,
      maxWordShare: Math.max(...d.map((x) => x.wordShare)),
      minBadCharShare: Math.min(...d.map((x) => x.badCharShare)),
    };
  }
  return out;
}

async function main() {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'similar-sources-ocr-'));
  const results: Record<string, unknown> = {};
  try {
    log('1. garbage-text-layer rule on fixtures');
    results.rule = await ruleFigures();
    log(JSON.stringify(results.rule, null, 2));

    // Scanned copies: every page rendered at 300 dpi (grey PNG), wrapped as an image-only PDF.
    log('\n   making scanned copies (pdftoppm -r 300, img2pdf)');
    const originals = [
      ...(await fs.readdir(LIBRARY)).filter((f) => f.endsWith('.pdf')).map((f) => path.join(LIBRARY, f)),
      ...(await fs.readdir(path.join(LIBRARY, 'archives')).catch(() => [] as string[]))
        .filter((f) => f.endsWith('.pdf'))
        .map((f) => path.join(LIBRARY, 'archives', f)),
    ].sort();
    const scanDir = path.join(tmp, 'scans');
    await fs.mkdir(scanDir);
    const copyOf = new Map<string, string>();
    for (const pdf of originals) {
      const base = path.basename(pdf, '.pdf');
      const pngDir = path.join(tmp, 'png', base);
      await fs.mkdir(pngDir, { recursive: true });
      execFileSync('pdftoppm', ['-r', '300', '-gray', '-png', pdf, path.join(pngDir, 'p')]);
      const pngs = (await fs.readdir(pngDir)).sort().map((f) => path.join(pngDir, f));
      const out = path.join(scanDir, `${base}-scan.pdf`);
      execFileSync('img2pdf', [...pngs, '-o', out]);
      copyOf.set(pdf, out);
    }

    log('\n2. page images: embedded scan vs 300-dpi render (4 pages)');
    const pool = new OcrPool({ languages: ['eng', 'fra'], size: 1 });
    try {
      const sample = [...copyOf.entries()].slice(0, 4);
      const ways: Record<string, { ms: number; edits: number; chars: number; pixels: number }> = {};
      for (const mode of ['embedded', 'render'] as const) {
        const w = (ways[mode] = { ms: 0, edits: 0, chars: 0, pixels: 0 });
        await pageImages(await fs.readFile(sample[0][1]), [1], { mode }); // warm pdf.js
        for (const [orig, scan] of sample) {
          const t = performance.now();
          const [img] = await pageImages(await fs.readFile(scan), [1], { mode });
          w.ms += performance.now() - t;
          if (!img.image) throw new Error(`no ${mode} image for ${scan}: ${img.note}`);
          w.pixels += (img.width ?? 0) * (img.height ?? 0);
          const r = await pool.recognise(img.image);
          const a = charAccuracy(r.text, (await extractPdf(await fs.readFile(orig))).pages[0]);
          w.edits += a.edits;
          w.chars += a.chars;
        }
      }
      results.pageImages = Object.fromEntries(
        Object.entries(ways).map(([k, w]) => [
          k,
          {
            msPerPage: Math.round(w.ms / sample.length),
            megapixelsPerPage: +(w.pixels / sample.length / 1e6).toFixed(2),
            charAccuracy: pct(1 - w.edits / w.chars),
          },
        ]),
      );
      log(JSON.stringify(results.pageImages, null, 2));
    } finally {
      await pool.close();
    }

    log('\n3. scanned library through the product (extraction workers, OCR pool, cache)');
    const ws = path.join(tmp, 'ws');
    await fs.mkdir(ws);
    const extractPool = PdfExtractPool.beside(path.resolve('dist'));
    if (!extractPool) throw new Error('dist/pdf-extract-worker.js is missing: run node scripts/build.mjs first');
    let report;
    const t0 = performance.now();
    try {
      const { inputs, dispose } = await libraryInputs({
        folders: [scanDir],
        baseDir: ws,
        extractor: (b) => extractPool.extract(b),
        pageImager: (b, p) => extractPool.pageImages(b, p),
      });
      try {
        report = await updateIndex(inputs, {
          workspace: ws,
          provider: new EmbeddedProvider(),
          onProgress: (p) => {
            if (p.phase === 'ocr' && p.done > 0 && p.done % 10 === 0) log(`   OCR: page ${p.done} of ${p.total}`);
          },
        });
      } finally {
        await dispose();
      }
    } finally {
      await extractPool.close();
    }
    const seconds = (performance.now() - t0) / 1000;
    log(`   ${report.sources} sources, ${report.ocr.pages} pages OCR'd in ${seconds.toFixed(0)} s; skipped ${report.skipped.length}`);

    // Character accuracy: the cached OCR text of each page against the original's text layer.
    const byLang = { en: { edits: 0, chars: 0, pages: 0 }, fr: { edits: 0, chars: 0, pages: 0 } };
    const cacheDir = path.join(indexDir(ws), 'ocr');
    const { sha256 } = await import('../src/core/util/hash');
    const spans: Array<{ text: string; scan: string; page: number }> = [];
    for (const [orig, scan] of copyOf) {
      const raw = await extractPdf(await fs.readFile(orig));
      const hash = sha256(await fs.readFile(scan));
      const cacheFile = (await fs.readdir(cacheDir)).find((f) => f.startsWith(hash.slice(0, 32)));
      if (!cacheFile) throw new Error(`no OCR cache for ${scan}`);
      const cached = JSON.parse(await fs.readFile(path.join(cacheDir, cacheFile), 'utf8')).pages as Record<string, { text: string }>;
      raw.pages.forEach((text, i) => {
        if (!text.trim()) return;
        const a = charAccuracy(cached[String(i + 1)]?.text ?? '', text);
        const l = byLang[langOf(text)];
        l.edits += a.edits;
        l.chars += a.chars;
        l.pages++;
        // Two 12-word spans per page, a third and two thirds in.
        const words = normalise(text).split(' ');
        for (const at of [Math.floor(words.length / 3), Math.floor((2 * words.length) / 3)]) {
          if (words.length >= 24) spans.push({ text: words.slice(at, at + 12).join(' '), scan, page: i + 1 });
        }
      });
    }
    const all = { edits: byLang.en.edits + byLang.fr.edits, chars: byLang.en.chars + byLang.fr.chars };
    const idx = await LibraryIndex.open(ws, new EmbeddedProvider());
    let found = 0;
    let first = 0;
    for (const s of spans) {
      const hits = await idx.search(s.text, { k: 3 });
      const rank = hits.findIndex((h) => h.sourceRecord.path === s.scan && h.page <= s.page && h.endPage >= s.page);
      if (rank >= 0) found++;
      if (rank === 0) first++;
    }
    results.library = {
      files: copyOf.size,
      pagesOcr: report.ocr.pages,
      seconds: +seconds.toFixed(1),
      pagesPerSecond: +(report.ocr.pages / seconds).toFixed(3),
      ocrWorkers: new OcrPool().size,
      charAccuracy: {
        all: pct(1 - all.edits / all.chars),
        english: `${pct(1 - byLang.en.edits / byLang.en.chars)} (${byLang.en.pages} pages)`,
        french: `${pct(1 - byLang.fr.edits / byLang.fr.chars)} (${byLang.fr.pages} pages)`,
      },
      knownItem: { spans: spans.length, top3: pct(found / spans.length), top1: pct(first / spans.length) },
    };
    log(JSON.stringify(results.library, null, 2));
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
  if (JSON_OUT) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
