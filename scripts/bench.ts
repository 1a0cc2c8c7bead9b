/**
 * Speed, memory and scale benchmark (issue 5): `npm run bench [-- --json] [--sizes 1k,10k,100k] [--pdfs <dir>] [--runs N] [--no-local] [--local-passages N] [--real-models DIR] [--real-passages N] [--no-real] [--no-background] [--no-pdfs] [--pdf-files N] [--pdf-pages N] [--no-inthread] [--bg-files N] [--bg-pages N] [--ocr-pages N] [--no-ocr] [--no-citations] [--no-zotero] [--keep]`.
 *
 * Builds a deterministic synthetic library (scripts/bench/corpus.ts) at each size in a
 * temp folder, and prints every figure beside its floor or baseline measured in the same
 * run, on the same machine: absolute milliseconds vary on shared machines, ratios much less.
 * Needs dist/ (npm run bench builds it first): cold analysis and activation run the bundles
 * in fresh processes, as the CLI and VS Code would.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs, readFileSync, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeDocument } from '../src/core/analysis/analyze';
import { AnalysisCache } from '../src/core/analysis/cache';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { encode } from '../src/core/embedding/embeddedEncoder';
import { updateIndex } from '../src/core/index/write/indexer';
import type { SourceInput } from '../src/core/index/source';
import { libraryInputs } from '../src/core/library/pdfSource';
import { PdfExtractPool } from '../src/core/pdf/extractPool';
import { chunkPages } from '../src/core/passages/chunker';
import { ensurePdfRuntime } from '../src/core/pdf/runtime';
import type { PassageCollection } from '../src/core/retrieval/hybrid';
import { PostingsIndex } from '../src/core/retrieval/postingsIndex';
import { embeddingText, lexicalTerms } from '../src/core/retrieval/representation';
import { allocateVectors, isKernelBacked, quantizedRows, quantizeVectors } from '../src/core/retrieval/simd/vectorStore';
import { topKDot, topKDotMany } from '../src/core/retrieval/vectorScan';
import { coreIndex, openIndex, rankCitekeys } from '../src/engine/search';
import { median, peakRss, timed } from './bench/measure';
import { draftMarkdown, paragraph, rng, sentence, syntheticDraft, syntheticSource, topic } from './bench/corpus';
import { benchCitationCheck } from './bench/citations';
import { benchZoteroApi } from './bench/zoteroApi';
import { ocrThroughput, sampleImages } from './bench/ocr';
import type { Row } from './bench/row';
import { makePdfs } from './bench/pdfs';
import { benchZotero } from './bench/zotero';

// ---------------------------------------------------------------- arguments
const argv = process.argv.slice(2);
const flag = (n: string) => argv.includes(n);
const opt = (n: string) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : undefined;
};
const JSON_OUT = flag('--json');
// `--sizes none`: only the activation and real-PDF figures.
const SIZES = (opt('--sizes') ?? '1k,10k,100k')
  .split(',')
  .map((s) => Math.round(parseFloat(s) * (/k$/i.test(s) ? 1000 : /m$/i.test(s) ? 1_000_000 : 1)))
  .filter((n) => Number.isFinite(n) && n > 0);
const RUNS = Number(opt('--runs') ?? 3);
const PDF_DIR = opt('--pdfs');
// The generated PDF library of the throughput figure: `--pdf-files 10000 --pdf-pages 2` for a large one.
const PDF_FILES = Number(opt('--pdf-files') ?? 100);
const PDF_PAGES = Number(opt('--pdf-pages') ?? 20);
const ROOT = path.resolve(__dirname, '..');
const ENGINE = path.join(ROOT, 'dist', 'engine.js');
const EXTENSION = path.join(ROOT, 'dist', 'extension.js');
const PASSAGES_PER_SOURCE = 100;
const WORDS_PER_SOURCE = 14_000; // ≈ 100 passages of the default chunker
const DRAFT_PARAGRAPHS = 100;
const ANALYSIS = { useReranking: false } as const;

const log = (s: string) => process.stderr.write(s + '\n');

// ---------------------------------------------------------------- figures
const rows: Row[] = [];
function add(r: Row) {
  if (r.limit !== undefined && r.ratio !== undefined) r.met = r.ratio <= r.limit;
  rows.push(r);
  log(
    `  ${r.size.padEnd(5)} ${r.metric}: ${fmt(r.value)} ${r.unit}${r.ratio !== undefined ? `  (×${r.ratio.toFixed(3)} of ${r.baselineName})` : ''}${r.met === undefined ? '' : r.met ? '  ✓' : '  ✗'}`,
  );
}
const percentile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));
const sizeLabel = (n: number) => (n >= 1_000_000 ? `${+(n / 1_000_000).toFixed(1)}m` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
const MB = 1024 * 1024;

async function dirSize(p: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(p, { withFileTypes: true })) {
    const f = path.join(p, e.name);
    n += e.isDirectory() ? await dirSize(f) : (await fs.stat(f)).size;
  }
  return n;
}
async function readAll(p: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(p, { withFileTypes: true })) {
    const f = path.join(p, e.name);
    n += e.isDirectory() ? await readAll(f) : (await fs.readFile(f)).length;
  }
  return n;
}

function node(args: string[], input?: string): string {
  return execFileSync(process.execPath, args, { encoding: 'utf8', input, maxBuffer: 64 * MB, stdio: ['pipe', 'pipe', 'inherit'] });
}

// ---------------------------------------------------------------- activation
const ACTIVATION_CHILD = `
const Module = require('module');
const stub = () => new Proxy(function () {}, {
  get: (t, k) => (k === 'then' ? undefined : k === Symbol.toPrimitive ? () => '' : stub()),
  apply: () => stub(),
  set: () => true,
  defineProperty: () => true,
  construct: () => stub(),
});
const vscode = {};
for (const k of ['window', 'workspace', 'commands', 'languages', 'l10n', 'env', 'extensions', 'Uri', 'ThemeColor', 'ThemeIcon', 'EventEmitter',
  'Disposable', 'StatusBarAlignment', 'ViewColumn', 'Range', 'Position', 'Selection', 'CodeLens', 'Hover', 'MarkdownString', 'ProgressLocation',
  'RelativePattern', 'FileType', 'TextEditorRevealType', 'OverviewRulerLane', 'DecorationRangeBehavior', 'CancellationTokenSource',
  'CodeAction', 'CodeActionKind', 'CompletionItem', 'CompletionItemKind', 'CompletionList', 'ConfigurationTarget', 'Diagnostic', 'DiagnosticSeverity',
  'LanguageModelTextPart', 'LanguageModelToolResult', 'SnippetString', 'WorkspaceEdit', 'lm']) vscode[k] = stub();
const load = Module._load;
Module._load = function (req, parent, isMain) { return req === 'vscode' ? vscode : load.apply(this, arguments); };
const t0 = performance.now();
const ext = require(process.argv[1]);
const requireMs = performance.now() - t0;
let activateMs = null, activateError = null;
try {
  const ctx = { subscriptions: [], extensionUri: stub(), workspaceState: stub(), globalState: stub(), extensionPath: '' };
  const t1 = performance.now();
  ext.activate(ctx);
  activateMs = performance.now() - t1;
} catch (e) { activateError = String(e && e.message || e); }
const heavy = Object.keys(require.cache).filter((f) => /[\\\\/](vectra|pdf-parse|pdfjs-dist|remark[^\\\\/]*|unified|mdast[^\\\\/]*)[\\\\/]|[\\\\/]dist[\\\\/]engine\\.js$/.test(f));
process.stdout.write(JSON.stringify({ requireMs, activateMs, activateError, heavy, modules: Object.keys(require.cache).length }));
process.exit(0);
`;

async function benchActivation() {
  log('activation');
  if (!existsSync(EXTENSION)) throw new Error('dist/extension.js is missing: run node scripts/build.mjs first');
  const runs = Array.from(
    { length: Math.max(5, RUNS) },
    () =>
      JSON.parse(node(['-e', ACTIVATION_CHILD, EXTENSION])) as { requireMs: number; activateMs: number | null; activateError: string | null; heavy: string[] },
  );
  const req = median(runs.map((r) => r.requireMs));
  const heavy = [...new Set(runs.flatMap((r) => r.heavy))];
  add({
    size: 'all',
    metric: 'activation: require dist/extension.js',
    value: req,
    unit: 'ms',
    baselineName: 'target 50 ms',
    baseline: 50,
    ratio: req / 50,
    target: '≤ 50 ms',
    limit: 1,
    runs: runs.length,
  });
  const act = runs.map((r) => r.activateMs).filter((x): x is number => x !== null);
  if (act.length) {
    const a = median(act);
    add({
      size: 'all',
      metric: 'activation: require + activate() (stub vscode)',
      value: req + a,
      unit: 'ms',
      baselineName: 'target 50 ms',
      baseline: 50,
      ratio: (req + a) / 50,
      target: '≤ 50 ms',
      limit: 1,
      runs: act.length,
    });
  } else log(`  activate() could not run on the stub: ${runs[0].activateError}`);
  add({
    size: 'all',
    metric: 'activation: heavy modules loaded (vectra/pdf-parse/remark/unified/engine)',
    value: heavy.length,
    unit: 'modules',
    target: 'none',
    baselineName: 'none',
    baseline: 0,
    ratio: heavy.length,
    limit: 0,
    note: heavy.join(', ') || 'none',
    runs: runs.length,
  });
}

// ---------------------------------------------------------------- real PDFs
async function listPdfs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await fs.readdir(dir, { withFileTypes: true, recursive: true } as never)) as unknown as Array<{
    name: string;
    isFile(): boolean;
    parentPath?: string;
    path?: string;
  }>) {
    if (e.isFile() && /\.pdf$/i.test(e.name)) out.push(path.join(e.parentPath ?? e.path ?? dir, e.name));
  }
  return out.sort();
}

async function benchPdfs(tmp: string) {
  log('real PDFs: indexing vs bare pdf-parse');
  let dir = PDF_DIR ? path.resolve(PDF_DIR) : path.join(tmp, 'pdfs');
  // A library, not a handful: the extraction workers start once per run, as in the product.
  if (!PDF_DIR) await makePdfs(dir, PDF_FILES, PDF_PAGES);
  const files = await listPdfs(dir);
  const { PDFParse } = await ensurePdfRuntime();
  let pages = 0;
  const bare = async () => {
    let n = 0;
    for (const f of files) {
      const parser = new PDFParse({ data: new Uint8Array(await fs.readFile(f)) });
      try {
        n += (await parser.getText()).total;
      } catch {
        /* skipped by the indexer too */
      } finally {
        await parser.destroy().catch(() => undefined);
      }
    }
    return n;
  };
  // As the CLI and the extension index: PDFs extracted by the worker pool beside the bundle
  // (dist/pdf-extract-worker.js) while this thread embeds; `inThread`: everything here (as from sources, with no worker bundle).
  const index = async (inThread: boolean) => {
    const ws = await fs.mkdtemp(path.join(tmp, 'pdfws-'));
    const pool = inThread ? undefined : PdfExtractPool.beside(path.join(ROOT, 'dist'));
    if (!inThread && !pool) throw new Error('dist/pdf-extract-worker.js is missing: run node scripts/build.mjs first');
    try {
      const { inputs } = await libraryInputs({ folders: [dir], baseDir: dir, extractor: pool && ((b) => pool.extract(b)) });
      return await updateIndex(inputs, { workspace: ws, provider: new EmbeddedProvider() });
    } finally {
      await pool?.close();
      await fs.rm(ws, { recursive: true, force: true });
    }
  };
  // Warm-up of all sides: pdf.js and the indexing code compiled, files in the page cache.
  await bare();
  await index(false);
  // `--no-inthread`: without the third side (large generated libraries, where it doubles the run).
  const inThread = !flag('--no-inthread');
  if (inThread) await index(true);
  const bareMs: number[] = [];
  const idxMs: number[] = [];
  const inThreadMs: number[] = [];
  const idxPeak: number[] = [];
  let passages = 0;
  for (let i = 0; i < RUNS; i++) {
    const [b, n] = await timed(bare);
    bareMs.push(b);
    pages = n;
    const [peak, [x, rep]] = await peakRss(() => timed(() => index(false)));
    idxMs.push(x);
    idxPeak.push(peak);
    passages = rep.passages;
    if (inThread) inThreadMs.push((await timed(() => index(true)))[0]);
  }
  const bareRate = (pages / median(bareMs)) * 1000;
  const idxRate = (pages / median(idxMs)) * 1000;
  const inThreadRate = (pages / median(inThreadMs)) * 1000;
  const label = `${files.length} PDFs`;
  const workers = PdfExtractPool.beside(path.join(ROOT, 'dist'))?.size ?? 0;
  add({ size: label, metric: 'bare pdf-parse getText (pages/s)', value: bareRate, unit: 'pages/s', runs: RUNS, note: `${pages} pages, one thread` });
  add({
    size: label,
    metric: 'indexing (pages/s, embedded provider)',
    value: idxRate,
    unit: 'pages/s',
    baselineName: 'bare pdf-parse',
    baseline: bareRate,
    ratio: bareRate / idxRate,
    target: '≥ 0.8× pdf-parse (ratio ≤ 1.25)',
    limit: 1.25,
    runs: RUNS,
    note: `${passages} passages; ${workers} extraction worker(s); throughput ratio ${(idxRate / bareRate).toFixed(2)}×`,
  });
  add({
    size: label,
    metric: 'peak RSS while indexing (worker pool)',
    value: median(idxPeak) / MB,
    unit: 'MB',
    runs: RUNS,
    note: `sampled every 50 ms, extraction workers included (same process); process peak so far ${fmt(process.resourceUsage().maxRSS / 1024)} MB`,
  });
  if (inThread)
    add({
      size: label,
      metric: 'indexing, extraction in the indexing thread (no worker: sources)',
      value: inThreadRate,
      unit: 'pages/s',
      baselineName: 'bare pdf-parse',
      baseline: bareRate,
      ratio: bareRate / inThreadRate,
      runs: RUNS,
      note: `throughput ratio ${(inThreadRate / bareRate).toFixed(2)}×`,
    });
}

// ---------------------------------------------------------------- OCR
/**
 * OCR pages/s of the product's pool against bare tesseract.js in one worker, on the same
 * 300-dpi page images of the example library (pdftoppm), and the memory one OCR worker adds.
 * Few pages (a page takes seconds): `--ocr-pages N` (default 4); `--no-ocr` skips it.
 */
async function benchOcr() {
  if (flag('--no-ocr')) return;
  log('OCR: pool vs bare tesseract.js');
  let images: Uint8Array[];
  try {
    images = await sampleImages(path.join(ROOT, 'examples', 'library'), Number(opt('--ocr-pages') ?? 4));
  } catch (err) {
    log(`  skipped: cannot render page images (${(err as Error).message}); install poppler-utils`);
    return;
  }
  const t = await ocrThroughput(images, RUNS);
  const label = `${t.images} pages`;
  add({ size: label, metric: 'OCR, bare tesseract.js, one worker (pages/s)', value: t.bareRate, unit: 'pages/s', runs: RUNS, note: '300 dpi, eng+fra, LSTM' });
  add({
    size: label,
    metric: `OCR pool, per worker (pages/s; ${t.workers} worker(s))`,
    value: t.poolRate / t.workers,
    unit: 'pages/s',
    baselineName: 'bare tesseract.js',
    baseline: t.bareRate,
    ratio: t.bareRate / (t.poolRate / t.workers),
    target: '≥ 0.9× per worker (ratio ≤ 1.11)',
    limit: 1 / 0.9,
    runs: RUNS,
    note: `pool total ${fmt(t.poolRate)} pages/s; throughput ratio ${t.perWorkerRatio.toFixed(2)}× per worker`,
  });
  add({ size: label, metric: 'extra RSS per OCR worker', value: t.rssPerWorkerMiB, unit: 'MiB', note: 'eng+fra trained data loaded, one page recognised' });
}

// ---------------------------------------------------------------- synthetic library sizes
const COLD_CHILD = `
(async () => {
  const [engine, ws, draftFile, mode, warmRuns] = process.argv.slice(1);
  const draft = require('fs').readFileSync(draftFile, 'utf8');
  const t0 = performance.now();
  const e = require(engine);
  const t1 = performance.now();
  // Through the engine instance, as the product analyses (its open() checks the manifest each time).
  const eng = e.createEngine({ workspace: ws, settings: {}, provider: { provider: 'embedded' } });
  const idx = await eng.open();
  const t2 = performance.now();
  global.gc(); global.gc();
  const m = process.memoryUsage();
  let analysisMs = null, segments = 0;
  const warmMs = [];
  if (mode === 'analyze') {
    const ctx = { documentPath: draftFile, cache: false };
    const t3 = performance.now();
    const r = await eng.analyze(draft, { useReranking: false }, ctx);
    // cold: load + first analysis in a fresh process; the measuring itself (gc, memoryUsage) left out
    analysisMs = (t2 - t1) + (performance.now() - t3);
    segments = r.stats.segmentsAnalyzed;
    // warm: the same analysis again in this process (same code, same context), after one more run
    await eng.analyze(draft, { useReranking: false }, ctx);
    for (let i = 0; i < Number(warmRuns); i++) {
      const t = performance.now();
      await eng.analyze(draft, { useReranking: false }, ctx);
      warmMs.push(performance.now() - t);
    }
  }
  process.stdout.write(JSON.stringify({ requireMs: t1 - t0, loadMs: t2 - t1, rss: m.rss, heap: m.heapUsed, external: m.external, analysisMs, warmMs, segments, passages: idx.size }));
})().catch((err) => { console.error(err); process.exit(1); });
`;
// The longest the event loop went without turning while the index loaded (a 5 ms timer beside
// openIndex): what an editor's extension host, loading it in the background, is held for at once.
const HOLD_CHILD = `
(async () => {
  const [engine, ws] = process.argv.slice(1);
  const e = require(engine);
  const eng = e.createEngine({ workspace: ws, settings: {}, provider: { provider: 'embedded' } });
  await eng.provider();
  let last = performance.now(), hold = 0;
  const timer = setInterval(() => { const now = performance.now(); hold = Math.max(hold, now - last); last = now; }, 5);
  const t = performance.now();
  await eng.open();
  const loadMs = performance.now() - t;
  await new Promise((r) => setTimeout(r, 10));
  clearInterval(timer);
  process.stdout.write(JSON.stringify({ holdMs: hold, loadMs }));
})().catch((err) => { console.error(err); process.exit(1); });
`;
const BASE_CHILD = `require(process.argv[1]); global.gc(); global.gc(); process.stdout.write(String(process.memoryUsage().rss));`;

async function benchSize(N: number, tmp: string) {
  const S = sizeLabel(N);
  const nSources = Math.max(1, Math.round(N / PASSAGES_PER_SOURCE));
  // Every figure is a median of RUNS, at a million passages too (its build, as every build above 50k, runs once).
  const runs = RUNS;
  log(`\n${S} passages: ${nSources} sources (generated as they are read)`);
  // Sources are generated when the indexer extracts them, never all held at once (at 1M
  // passages the text alone is ~1 GB): the build's memory is the indexer's. `variant` makes
  // another text for the same file (the changed PDF re-indexed below).
  const source = (i: number, variant = 0) => {
    const g = syntheticSource(i + variant * 1_000_003, WORDS_PER_SOURCE);
    return {
      pages: g.pages,
      pageCount: g.pages.length,
      meta: {
        title: g.title,
        authors: [g.author],
        year: g.year,
        ...(i % 10 === 9 ? {} : { citekey: `source${i}` }),
        collections: [],
        titleFrom: 'pdf-info' as const,
      },
    };
  };
  const input = (i: number, variant = 0): SourceInput => ({
    path: path.join(tmp, 'library', `source-${i}.pdf`),
    size: 1000 + i + variant,
    mtimeMs: 1_600_000_000_000 + variant,
    sourceType: 'secondary',
    contentHash: `synthetic-${i}-${WORDS_PER_SOURCE}${variant ? `-v${variant}` : ''}`,
    // Nine sources in ten have a citekey, as in a Zotero library with a few loose PDFs.
    extract: async () => source(i, variant),
  });
  const inputs = Array.from({ length: nSources }, (_, i) => input(i));

  // Floor of the build: the per-passage compute nobody can skip (chunk, lexical terms, embed).
  // Generating the text is timed apart and taken out of the build's figure (it is the bench's, not the product's).
  // Above 200k passages, measured on an even sample of 1,000 sources and scaled (the sources are alike).
  const sample = N > 200_000 ? 1000 : nSources;
  const step = nSources / sample;
  let genMs = 0;
  let floorMs = 0;
  let sampled = 0;
  let rawText = 0;
  let dim = 0;
  for (let k = 0; k < sample; k++) {
    const i = Math.floor(k * step);
    const t0 = performance.now();
    const g = source(i);
    const t1 = performance.now();
    for (const c of chunkPages(g.pages)) {
      lexicalTerms({ sourceTitle: g.meta.title, heading: c.heading, text: c.text });
      dim = encode(embeddingText({ sourceTitle: g.meta.title, heading: c.heading, text: c.text }), 'passage').length;
      rawText += Buffer.byteLength(c.text);
      sampled++;
    }
    genMs += t1 - t0;
    floorMs += performance.now() - t1;
  }
  genMs *= step;
  floorMs *= step;
  rawText *= step;
  let nPassages = Math.round(sampled * step);
  const buildRuns = N >= 50_000 ? 1 : RUNS;
  const buildMs: number[] = [];
  const buildPeak: number[] = [];
  let ws = '';
  for (let i = 0; i < buildRuns; i++) {
    if (ws) await fs.rm(ws, { recursive: true, force: true });
    ws = await fs.mkdtemp(path.join(tmp, `ws-${S}-`));
    const [peak, [ms, rep]] = await peakRss(() => timed(() => updateIndex(inputs, { workspace: ws, provider: new EmbeddedProvider() })));
    if (sample === nSources && rep.passages !== nPassages) log(`  warning: indexed ${rep.passages} passages, expected ${nPassages}`);
    nPassages = rep.passages;
    buildMs.push(ms - genMs);
    buildPeak.push(peak);
  }
  const build = median(buildMs);
  add({
    size: S,
    metric: 'index build',
    value: build / 1000,
    unit: 's',
    baselineName: 'chunk+terms+embed only',
    baseline: floorMs / 1000,
    ratio: build / floorMs,
    runs: buildRuns,
    note: `${nPassages} passages, ${nSources} sources; generating the synthetic text (${fmt(genMs / 1000)} s) taken out${sample < nSources ? `; floor and generation measured on ${sample} sources, scaled` : ''}`,
  });
  add({
    size: S,
    metric: 'index build throughput',
    value: (nPassages / build) * 1000,
    unit: 'passages/s',
    baselineName: 'chunk+terms+embed only',
    baseline: (nPassages / floorMs) * 1000,
    ratio: build / floorMs,
    runs: buildRuns,
  });
  // Raw size: vectors as float32 plus passage text as UTF-8.
  const rawVec = nPassages * dim * 4;
  const raw = rawText + rawVec;
  add({
    size: S,
    metric: 'peak RSS during the build',
    value: median(buildPeak) / MB,
    unit: 'MB',
    baselineName: 'raw vectors+text',
    baseline: raw / MB,
    ratio: median(buildPeak) / raw,
    runs: buildRuns,
    note: `sampled every 50 ms, this process (bench included); process peak so far ${fmt(process.resourceUsage().maxRSS / 1024)} MB`,
  });
  const dir = path.join(ws, '.similar-sources');
  const disk = await dirSize(dir);
  add({ size: S, metric: 'size on disk', value: disk / MB, unit: 'MB', baselineName: 'raw vectors+text', baseline: raw / MB, ratio: disk / raw });

  // Fresh processes: load time, RSS after load, cold analysis.
  const draftParas = syntheticDraft(DRAFT_PARAGRAPHS, nSources);
  const draft = draftMarkdown(draftParas);
  const draftFile = path.join(tmp, `draft-${S}.md`);
  await fs.writeFile(draftFile, draft);
  const readMs: number[] = [];
  for (let i = 0; i < runs; i++) readMs.push((await timed(() => readAll(dir)))[0]);
  const base = median(Array.from({ length: runs }, () => Number(node(['--expose-gc', '-e', BASE_CHILD, ENGINE]))));
  // Each child: load, the cold analysis, then one more and `runs` warm ones, all in dist/engine.js.
  const cold = Array.from(
    { length: runs },
    () =>
      JSON.parse(node(['--expose-gc', '-e', COLD_CHILD, ENGINE, ws, draftFile, 'analyze', String(runs)])) as {
        requireMs: number;
        loadMs: number;
        rss: number;
        heap: number;
        analysisMs: number;
        warmMs: number[];
        segments: number;
      },
  );
  const load = median(cold.map((c) => c.loadMs));
  const rss = median(cold.map((c) => c.rss));
  add({
    size: S,
    metric: 'index load (fresh process)',
    value: load,
    unit: 'ms',
    baselineName: 'read index files',
    baseline: median(readMs),
    ratio: load / median(readMs),
    target: '≤ 6× read',
    limit: N >= 100_000 ? 6 : undefined,
    runs,
  });
  // Issue 22's second bound on the load, for 100k passages: a second at most, on these machines.
  if (N === 100_000)
    add({
      size: S,
      metric: 'index load vs 1 s',
      value: load,
      unit: 'ms',
      baselineName: 'target 1000 ms',
      baseline: 1000,
      ratio: load / 1000,
      target: '≤ 1 s',
      limit: 1,
      runs,
    });
  add({
    size: S,
    metric: 'RSS after load',
    value: rss / MB,
    unit: 'MB',
    baselineName: 'raw vectors+text',
    baseline: raw / MB,
    ratio: rss / raw,
    target: '≤ 3× raw',
    limit: N >= 100_000 ? 3 : undefined,
    runs,
    note: `process with engine loaded, no index: ${fmt(base / MB)} MB; index adds ${fmt((rss - base) / MB)} MB = ${((rss - base) / raw).toFixed(2)}× raw`,
  });
  const holds = Array.from({ length: runs }, () => JSON.parse(node(['-e', HOLD_CHILD, ENGINE, ws])) as { holdMs: number; loadMs: number });
  const [hold, holdLoad] = [median(holds.map((h) => h.holdMs)), median(holds.map((h) => h.loadMs))];
  add({
    size: S,
    metric: 'longest event-loop hold while loading',
    value: hold,
    unit: 'ms',
    baselineName: 'index load, same processes',
    baseline: holdLoad,
    ratio: hold / holdLoad,
    runs,
    note: 'the load turns the event loop every ~25 ms (util/timeSlices.ts)',
  });
  if (N >= 1_000_000)
    add({
      size: S,
      metric: 'RSS after load, of 4 GiB',
      value: rss / MB,
      unit: 'MB',
      baselineName: 'target 4096 MB',
      baseline: 4096,
      ratio: rss / (4096 * MB),
      target: '≤ 4 GiB',
      limit: 1,
      runs,
    });

  // Warm: index in memory (this process), cache off.
  // Opened as hosts open it (citekey ranking takes the engine's handle).
  const handle = await openIndex(ws, new EmbeddedProvider());
  const index = coreIndex(handle);
  const coll = (index as unknown as { collection: PassageCollection }).collection;
  // Issue 22's measure: what the loaded index must hold (float32 vectors, postings of 6 bytes), text left on disk.
  const rawPostings = coll.lexical instanceof PostingsIndex ? coll.lexical.postingCount * 6 : 0;
  add({
    size: S,
    metric: 'RSS after load (vs vectors + postings)',
    value: rss / MB,
    unit: 'MB',
    baselineName: 'raw vectors+postings',
    baseline: (rawVec + rawPostings) / MB,
    ratio: rss / (rawVec + rawPostings),
    target: '≤ 2× raw',
    limit: N >= 100_000 ? 2 : undefined,
    runs,
  });
  const ctx = { index, workspace: ws, cache: false as const };
  // This process's warm analysis (the sources through tsx): the baseline of the cache rows below,
  // measured here as they are.
  await analyzeDocument(draft, ANALYSIS, ctx); // JIT warm-up
  const warmHere: number[] = [];
  for (let i = 0; i < runs; i++) warmHere.push((await timed(() => analyzeDocument(draft, ANALYSIS, ctx)))[0]);
  const warm = median(warmHere);
  // The product's warm analysis: dist/engine.js in the fresh processes above, after their cold one.
  const warmDist = median(cold.flatMap((c) => c.warmMs));
  const segs = cold[0].segments;
  // The target grows with the library: 2 s at 100k passages, 3 s at a million.
  const warmTarget = N >= 1_000_000 ? 3000 : 2000;
  add({
    size: S,
    metric: `warm analysis (${segs} paragraphs)`,
    value: warmDist,
    unit: 'ms',
    baselineName: `target ${warmTarget} ms`,
    baseline: warmTarget,
    ratio: warmDist / warmTarget,
    target: `≤ ${warmTarget / 1000} s`,
    limit: N >= 100_000 ? 1 : undefined,
    runs: runs * runs,
    note: `dist/engine.js, fresh processes after their first two analyses; ${fmt(warm)} ms in the bench's own process (sources through tsx)`,
  });
  const coldMs = median(cold.map((c) => c.analysisMs)); // load + analysis, same process
  add({
    size: S,
    metric: 'cold analysis (fresh process: load + analyse)',
    value: coldMs,
    unit: 'ms',
    baselineName: 'warm + load',
    baseline: warmDist + load,
    ratio: coldMs / (warmDist + load),
    target: '≤ warm + load',
    limit: N >= 100_000 ? 1 : undefined,
    runs,
    note: `warm and load from the same processes; engine require ${fmt(median(cold.map((c) => c.requireMs)))} ms not included`,
  });

  // Analysis cache: a whole-document hit, and one edited paragraph.
  const cache = new AnalysisCache(ws);
  const cctx = { index, workspace: ws, cache, documentPath: draftFile };
  await analyzeDocument(draft, ANALYSIS, cctx);
  const hitMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const [ms, r] = await timed(() => analyzeDocument(draft, ANALYSIS, cctx));
    if (!r.fromCache) log('  warning: the re-run was not served from the cache');
    hitMs.push(ms);
  }
  const hit = median(hitMs);
  add({
    size: S,
    metric: 'cache hit (unchanged draft)',
    value: hit,
    unit: 'ms',
    baselineName: 'warm analysis, this process',
    baseline: warm,
    ratio: hit / warm,
    target: '≤ 2% of warm',
    limit: N >= 100_000 ? 0.02 : undefined,
    runs: RUNS,
  });
  const editMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    await analyzeDocument(draft, ANALYSIS, cctx); // the cache holds the original draft
    const edited = [...draftParas];
    const at = (i * 37 + 11) % edited.length;
    edited[at] = edited[at] + ` An added sentence, number ${i}, about the grain trade of Venice.`;
    const [ms, r] = await timed(() => analyzeDocument(draftMarkdown(edited), ANALYSIS, cctx));
    if (r.stats.segmentsAnalyzed !== 1) log(`  warning: ${r.stats.segmentsAnalyzed} segments analysed after one edit`);
    editMs.push(ms);
  }
  const edit = median(editMs);
  add({
    size: S,
    metric: 'one edited paragraph',
    value: edit,
    unit: 'ms',
    baselineName: 'warm analysis, this process',
    baseline: warm,
    ratio: edit / warm,
    target: '≤ 5% of warm',
    limit: N >= 100_000 ? 0.05 : undefined,
    runs: RUNS,
  });

  // Vector ranking per query vs the Float32Array floor, on the index's own vectors and on 384/768-d ones
  // (allocated as the index allocates them, so the product's scan runs: SIMD kernel where available).
  // Fewer queries over a million rows: the floor's plain scan takes ~1 s a query there.
  const queries = draftParas.slice(0, N > 200_000 ? 4 : 20).map((p) => encode(p, 'query'));
  scanRows(S, 'embedded', coll.vectors, coll.dim, coll.count, queries);
  // With their int8 copy, as the index makes it at load. At a million rows only 384-d (1.5 GB, as much
  // again for the floor's copy; 768-d: 3 GB and the floor's plain scan ~2 s a query).
  for (const dim of N > 200_000 ? [384] : [384, 768]) {
    const r = rng(dim);
    const m = allocateVectors(coll.count, dim);
    for (let i = 0; i < m.length; i++) m[i] = r() - 0.5;
    quantizeVectors(m, dim, coll.count);
    const qs = Array.from({ length: queries.length }, () => Float32Array.from({ length: dim }, () => r() - 0.5));
    scanRows(S, `${dim}-d (Ollama-like)`, m, dim, coll.count, qs);
  }
  // Whole hybrid search, one query at a time: median and p95 over the draft's paragraphs.
  await index.search(draftParas[0], { k: 60 }); // JIT warm-up
  const searchMs: number[] = [];
  for (let rep = 0; rep < runs; rep++) {
    for (const p of draftParas) searchMs.push((await timed(() => index.search(p, { k: 60 })))[0]);
  }
  add({
    size: S,
    metric: 'hybrid search per query (BM25 + vectors + RRF)',
    value: median(searchMs),
    unit: 'ms',
    runs,
    note: `median of ${searchMs.length} queries`,
  });
  add({
    size: S,
    metric: 'hybrid search per query, p95',
    value: percentile(searchMs, 0.95),
    unit: 'ms',
    runs,
    note: `${searchMs.length} queries (the draft's paragraphs)`,
  });

  // Citekey completion: the keys ranked for the paragraph being written, as `[@` asks for them
  // (every paragraph of the draft, cut where the author might be typing), p95 against the 100 ms target.
  await rankCitekeys(handle, draftParas[0], 20); // JIT warm-up
  const rankMs: number[] = [];
  for (let rep = 0; rep < runs; rep++) {
    for (const [i, p] of draftParas.entries()) {
      const typed = p.slice(0, Math.max(40, Math.round((p.length * ((i % 4) + 1)) / 4)));
      const [ms, hits] = await timed(() => rankCitekeys(handle, typed, 20));
      if (hits.length === 0) log('  warning: no citekey ranked for a paragraph');
      rankMs.push(ms);
    }
  }
  const rankP95 = percentile(rankMs, 0.95);
  add({
    size: S,
    metric: 'citekey completion ranking, median',
    value: median(rankMs),
    unit: 'ms',
    baselineName: 'hybrid search per query',
    baseline: median(searchMs),
    ratio: median(rankMs) / median(searchMs),
    runs,
  });
  add({
    size: S,
    metric: `citekey completion ranking, p95 of ${rankMs.length} paragraphs`,
    value: rankP95,
    unit: 'ms',
    baselineName: 'target 100 ms',
    baseline: 100,
    ratio: rankP95 / 100,
    target: '≤ 100 ms at p95',
    limit: N >= 10_000 && N < 100_000 ? 1 : undefined,
    runs,
    note: `median ${fmt(median(rankMs))} ms; hybrid passage search ${fmt(median(searchMs))} ms`,
  });

  // One PDF of the library changed (new text, size and date): the whole update, from opening the
  // index to the last commit, the generation of its synthetic text taken out.
  const changedAt = Math.floor(nSources / 2);
  const reindexMs: number[] = [];
  for (let v = 1; v <= runs; v++) {
    const changed = inputs.map((x, i) => (i === changedAt ? input(i, v) : x));
    const [g] = await timed(() => source(changedAt, v));
    const [ms, rep] = await timed(() => updateIndex(changed, { workspace: ws, provider: new EmbeddedProvider() }));
    if (rep.updated !== 1) log(`  warning: ${rep.updated} files updated, expected 1`);
    reindexMs.push(ms - g);
  }
  const reindex = median(reindexMs);
  add({
    size: S,
    metric: 're-index one changed PDF',
    value: reindex,
    unit: 'ms',
    baselineName: 'target 2000 ms',
    baseline: 2000,
    ratio: reindex / 2000,
    target: '≤ 2 s',
    limit: N >= 100_000 ? 1 : undefined,
    runs,
    note: `~${PASSAGES_PER_SOURCE} passages re-chunked and embedded; the others' shards neither read nor written`,
  });
  // --keep leaves each size's workspace and draft in the temp folder, for profiling them.
  if (!flag('--keep')) await fs.rm(ws, { recursive: true, force: true });
}

function scanRows(S: string, what: string, vectors: Float32Array, dim: number, count: number, queries: Float32Array[]) {
  // The floor always scans an ordinary Float32Array, whatever memory the product's vectors live in.
  const m = isKernelBacked(vectors) ? Float32Array.from(vectors) : vectors;
  const floor = () => {
    for (const q of queries) {
      let best = -Infinity;
      for (let r = 0, base = 0; r < count; r++, base += dim) {
        let s = 0;
        for (let j = 0; j < dim; j++) s += m[base + j] * q[j];
        if (s > best) best = s;
      }
      if (best === 42) log('');
    }
  };
  const ours = () => {
    for (const q of queries) topKDot(vectors, dim, count, q, 100);
  };
  // As analysis runs it: a batch of queries shares each pass over the vectors.
  const batched = () => {
    for (let i = 0; i < queries.length; i += 8) topKDotMany(vectors, dim, count, queries.slice(i, i + 8), 100);
  };
  floor();
  ours();
  batched();
  const f: number[] = [];
  const o: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < Math.max(3, RUNS); i++) {
    const t0 = performance.now();
    floor();
    const t1 = performance.now();
    ours();
    const t2 = performance.now();
    batched();
    const t3 = performance.now();
    f.push((t1 - t0) / queries.length);
    o.push((t2 - t1) / queries.length);
    b.push((t3 - t2) / queries.length);
  }
  const engine = quantizedRows(vectors) >= count ? 'SIMD kernel, int8 copy' : isKernelBacked(vectors) ? 'SIMD kernel' : 'JS scan';
  add({
    size: S,
    metric: `vector ranking top-100, ${what} ${dim}-d`,
    value: median(o),
    unit: 'ms/query',
    baselineName: 'Float32Array dot scan',
    baseline: median(f),
    ratio: median(o) / median(f),
    target: '≤ 1.5× floor',
    limit: 1.5,
    runs: Math.max(3, RUNS),
    note: `one query per scan, ${engine}`,
  });
  add({
    size: S,
    metric: `vector ranking top-100, ${what} ${dim}-d, 8 queries per pass`,
    value: median(b),
    unit: 'ms/query',
    baselineName: 'Float32Array dot scan',
    baseline: median(f),
    ratio: median(b) / median(f),
    target: '≤ 1.5× floor',
    limit: 1.5,
    runs: Math.max(3, RUNS),
    note: `topKDotMany as analysis batches segments, ${engine}`,
  });
}

// ---------------------------------------------------------------- local model (issue 11)
/** scripts/bench-local.ts in a fresh process, so its RSS figure is the model's alone. */
function benchLocalModel() {
  log('local embedding model (12×384 int8, generated; then the real models found) …');
  const args = ['--import', 'tsx', path.join(ROOT, 'scripts', 'bench-local.ts'), '--json', '--passages', opt('--local-passages') ?? '160'];
  // Real weights (issue 27): ~/.cache/similar-sources/real-models and .tmp/models, or --real-models DIR; --no-real skips them.
  if (opt('--real-models')) args.push('--real-models', opt('--real-models')!);
  if (opt('--real-passages')) args.push('--real-passages', opt('--real-passages')!);
  if (flag('--no-real')) args.push('--no-real');
  const outText = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  for (const r of JSON.parse(outText.trim().split('\n').at(-1)!) as Row[]) add(r);
}

/** scripts/bench-background.ts in a fresh process: lexical first, vectors in the background, 100 PDFs. */
function benchBackgroundEmbedding() {
  log('background embedding (100 PDFs, 12×384 int8 generated model) …');
  const args = [
    '--import',
    'tsx',
    path.join(ROOT, 'scripts', 'bench-background.ts'),
    '--json',
    '--files',
    opt('--bg-files') ?? '100',
    '--pages',
    opt('--bg-pages') ?? '4',
  ];
  const outText = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  for (const r of JSON.parse(outText.trim().split('\n').at(-1)!) as Row[]) add(r);
}

// ---------------------------------------------------------------- output
function machine() {
  const cpu = /model name\s*:\s*(.*)/.exec(existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '')?.[1] ?? os.cpus()[0]?.model ?? '?';
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu,
    memoryGiB: +(os.totalmem() / 1024 ** 3).toFixed(1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

function table(): string {
  const head = ['size', 'figure', 'value', 'baseline', 'ratio', 'target', ''];
  const body = rows.map((r) => [
    r.size,
    r.metric,
    `${fmt(r.value)} ${r.unit}`,
    r.baselineName ? `${r.baselineName}${r.baseline !== undefined && !/^target|^none/.test(r.baselineName) ? ` = ${fmt(r.baseline)}` : ''}` : '',
    r.ratio !== undefined ? `×${r.ratio.toFixed(3)}` : '',
    r.target ?? '',
    r.met === undefined ? '' : r.met ? 'met' : 'MISSED',
  ]);
  const lines = [head, head.map(() => '---'), ...body].map((c) => `| ${c.join(' | ')} |`);
  return lines.join('\n');
}

async function main() {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'similar-sources-bench-'));
  const started = performance.now();
  try {
    log(`benchmark in ${tmp}; sizes ${SIZES.join(', ')}; ${RUNS} runs per figure`);
    if (!existsSync(ENGINE)) throw new Error('dist/engine.js is missing: run node scripts/build.mjs first (npm run bench does)');
    await benchActivation();
    if (!flag('--no-pdfs')) await benchPdfs(tmp);
    await benchOcr();
    for (const n of SIZES) await benchSize(n, tmp);
    if (!flag('--no-citations')) await benchCitationCheck(tmp, { root: ROOT, engine: ENGINE, runs: RUNS, add, log });
    if (!flag('--no-zotero')) await benchZoteroApi({ runs: RUNS, add, log });
    if (!flag('--no-zotero')) await benchZotero(tmp, { runs: RUNS, add, log });
    if (!flag('--no-local')) benchLocalModel();
    if (!flag('--no-background')) benchBackgroundEmbedding();
  } finally {
    if (!flag('--keep')) await fs.rm(tmp, { recursive: true, force: true });
  }
  const m = machine();
  const totalS = (performance.now() - started) / 1000;
  if (JSON_OUT) process.stdout.write(JSON.stringify({ machine: m, runs: RUNS, sizes: SIZES, totalSeconds: totalS, rows }, null, 2) + '\n');
  else {
    process.stdout.write(
      `\nMachine: ${m.nproc} cores, ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}; medians of ${RUNS} runs; total ${totalS.toFixed(0)} s\n\n`,
    );
    process.stdout.write(table() + '\n');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
