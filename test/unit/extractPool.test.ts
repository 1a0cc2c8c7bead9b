import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { extractPdf, PdfSkipError } from '../../src/core/pdf/extract';
import { defaultMemoryCeiling, EXTRACT_WORKER_FILE, PdfExtractPool } from '../../src/core/pdf/extractPool';
import { decompressionBombPdf } from '../support/hostilePdf';
import { ENGLISH_HISTORY_LABELS, writeFixtureLibrary } from '../support/pdfCorpus';

const DIST = resolve('dist');

describe('PdfExtractPool (worker threads, bundled dist/pdf-extract-worker.js)', function () {
  this.timeout(120_000);
  let dir: string;
  let files: Record<string, string>;
  let pool: PdfExtractPool;

  before(async () => {
    if (!existsSync(join(DIST, EXTRACT_WORKER_FILE))) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, `build failed: ${b.stderr}`);
    }
    dir = await fs.mkdtemp(join(tmpdir(), 'ss-pool-'));
    ({ files } = await writeFixtureLibrary(join(dir, 'library')));
    pool = PdfExtractPool.beside(DIST, 2)!;
    assert.ok(pool, 'the pool finds the worker beside the bundle');
  });
  after(async () => {
    await pool?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("starts workers without the parent's flags: a loader the parent runs under (tsx, --require) stays out of them", async () => {
    // A stand-in worker that answers with what its thread was started with.
    const worker = join(dir, 'flags-worker.cjs');
    await fs.writeFile(
      worker,
      `const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => parentPort.postMessage({ id: m.id, ok: true, raw: { pageCount: 0, pages: process.execArgv, info: { title: String(globalThis.__ssMarker) } } }));`,
    );
    const marker = join(dir, 'marker.cjs');
    await fs.writeFile(marker, 'globalThis.__ssMarker = true;');
    // The pool bundled alone (no loader in the child): what the extension host and the CLI run.
    const bundle = join(dir, 'pool.cjs');
    await build({ entryPoints: ['src/core/pdf/extractPool.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'silent' });
    const script = `const { PdfExtractPool } = require(${JSON.stringify(bundle)});
const pool = new PdfExtractPool({ workerFile: ${JSON.stringify(worker)}, size: 1 });
pool.extract(new Uint8Array([1])).then(async (r) => { console.log(JSON.stringify({ parent: process.execArgv, marker: globalThis.__ssMarker, worker: r.pages, workerMarker: r.info.title })); await pool.close(); });`;
    const child = spawnSync(process.execPath, ['--require', marker, '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const seen = JSON.parse(child.stdout);
    assert.deepEqual(seen.parent.slice(0, 2), ['--require', marker]);
    assert.equal(seen.marker, true);
    assert.deepEqual(seen.worker, []);
    assert.equal(seen.workerMarker, 'undefined');
  });

  it('is absent where no worker bundle lies (running from sources extracts in the thread)', () => {
    assert.equal(PdfExtractPool.beside(dir), undefined);
    assert.equal(PdfExtractPool.beside(undefined), undefined);
  });

  it('extracts exactly what extractPdf extracts in this thread: pages, labels and Info', async () => {
    const bytes = await fs.readFile(files['english-history.pdf']);
    const [inWorker, here] = await Promise.all([pool.extract(bytes), extractPdf(bytes)]);
    assert.deepEqual(inWorker, here);
    assert.deepEqual(inWorker.pageLabels, ENGLISH_HISTORY_LABELS);
    assert.ok(bytes.length > 0, 'the caller keeps its bytes (a copy is transferred)');
  });

  it('makes the same page images for OCR as this thread (a scan taken as it is; vector drawing gives none)', async () => {
    const { buildPdf } = await import('../support/pdfWriter');
    const { pageImages } = await import('../../src/core/pdf/pageImages');
    const grey = new Uint8Array(400 * 500).map((_, i) => (i % 400 < 200 ? 40 : 220));
    const bytes = buildPdf({ pages: [{ image: { width: 400, height: 500, grey } }, { noText: true }] });
    const [inWorker, here] = await Promise.all([pool.pageImages(bytes, [1, 2]), pageImages(bytes, [1, 2])]);
    assert.deepEqual(inWorker, here);
    assert.deepEqual([inWorker[0].how, inWorker[0].width, inWorker[0].height], ['embedded', 400, 500]);
    const pgm = Buffer.from(inWorker[0].image!);
    const head = 'P5\n400 500\n255\n';
    assert.equal(pgm.subarray(0, head.length).toString('latin1'), head);
    assert.deepEqual(new Uint8Array(pgm.subarray(head.length)), grey, "the scan's own pixels");
    assert.deepEqual([inWorker[1].image, inWorker[1].note], [undefined, 'no image on the page']);
  });

  it('reports bad PDFs with the same reason and kind as in this thread', async () => {
    for (const name of ['encrypted.pdf', 'truncated.pdf', 'not-a-pdf.pdf', 'empty.pdf']) {
      const bytes = await fs.readFile(files[name]);
      const here = await extractPdf(bytes).then(
        () => undefined,
        (e: Error) => e,
      );
      const there = await pool.extract(bytes).then(
        () => undefined,
        (e: Error) => e,
      );
      assert.equal(there?.message, here?.message, name);
      assert.equal(there instanceof PdfSkipError, here instanceof PdfSkipError, name);
      if (here instanceof PdfSkipError) assert.equal((there as PdfSkipError).kind, here.kind, name);
    }
  });

  it('runs more files than workers, each answered with its own text', async () => {
    const names = ['english-history.pdf', 'francais.pdf', 'scanned.pdf', 'english-history.pdf', 'francais.pdf'];
    const out = await Promise.all(names.map(async (n) => pool.extract(await fs.readFile(files[n]))));
    const expected = await Promise.all(names.map(async (n) => extractPdf(await fs.readFile(files[n]))));
    assert.deepEqual(
      out.map((r) => r.pages),
      expected.map((r) => r.pages),
    );
  });

  it('skips a file whose reader crashes or hangs, replaces the worker and goes on', async () => {
    const crashing = join(dir, 'crash-worker.js');
    await fs.writeFile(crashing, "require('node:worker_threads').parentPort.on('message', () => process.exit(3));\n");
    const crashPool = new PdfExtractPool({ workerFile: crashing, size: 1 });
    try {
      const e = await crashPool.extract(new Uint8Array([1])).then(
        () => undefined,
        (x: Error) => x,
      );
      assert.ok(e instanceof PdfSkipError && e.kind === 'corrupt' && /exit code 3/.test(e.message), String(e));
      const again = await crashPool.extract(new Uint8Array([2])).then(
        () => undefined,
        (x: Error) => x,
      );
      assert.ok(again instanceof PdfSkipError, 'a new worker took the next file');
    } finally {
      await crashPool.close();
    }
    const hanging = join(dir, 'hang-worker.js');
    await fs.writeFile(hanging, "require('node:worker_threads').parentPort.on('message', () => { for (;;) {} });\n");
    const slow = new PdfExtractPool({ workerFile: hanging, size: 1, timeoutMs: 300 });
    try {
      const e = await slow.extract(new Uint8Array([1])).then(
        () => undefined,
        (x: Error) => x,
      );
      assert.ok(
        e instanceof PdfSkipError && e.kind === 'unreadable' && /took longer than 300 ms to read: skipped; it will be retried when it changes/.test(e.message),
        String(e),
      );
    } finally {
      await slow.close();
    }
  });

  it('stops a decompression bomb at its memory ceiling (read twice, the second time alone), skips it with the reason, and reads the next file in a new worker', async () => {
    // 0.15 MB inflating to 50 MB of text operators: unbounded, pdf.js grows the process by ~1 GB over ~12 s.
    const bomb = await decompressionBombPdf(50_000_000);
    const MB = 1024 * 1024;
    const bombPool = new PdfExtractPool({ workerFile: join(DIST, EXTRACT_WORKER_FILE), size: 1, memoryCeiling: () => 96 * MB, memoryPollMs: 20 });
    try {
      bombPool.warm();
      const before = process.memoryUsage.rss();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
      const t0 = Date.now();
      const e = await bombPool.extract(bomb).then(
        () => undefined,
        (x: Error) => x,
      );
      const ms = Date.now() - t0;
      clearInterval(sampler);
      assert.ok(e instanceof PdfSkipError && e.kind === 'too-large', String(e));
      assert.match(e.message, /needs more than 96 MB of memory to read \(a decompression bomb\?\)/);
      assert.ok(ms < 15_000, `stopped after ${ms} ms`);
      // The ceiling, plus what grows between two rounds of the watchdog and a pdf.js buffer doubling.
      assert.ok(peak - before < 400 * MB, `the process grew by ${Math.round((peak - before) / MB)} MB`);
      const bytes = await fs.readFile(files['english-history.pdf']);
      assert.deepEqual((await bombPool.extract(bytes)).pages, (await extractPdf(bytes)).pages, 'a new worker reads the next file');
    } finally {
      await bombPool.close();
    }
  });

  it('reads a file again, alone, before skipping it: memory that grew elsewhere in the process does not skip it', async () => {
    // A stand-in reader that answers after 400 ms; meanwhile the process grows by 200 MB for another reason (and keeps it).
    const worker = join(dir, 'slow-ok-worker.js');
    await fs.writeFile(
      worker,
      `const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => setTimeout(() => parentPort.postMessage({ id: m.id, ok: true, raw: { pageCount: 1, pages: ['file ' + m.bytes[0]], info: {} } }), 400));`,
    );
    const MB = 1024 * 1024;
    let elsewhere = 0;
    const base = process.memoryUsage.rss();
    const p = new PdfExtractPool({ workerFile: worker, size: 1, memoryCeiling: () => 100 * MB, memoryPollMs: 20, rss: () => base + elsewhere });
    try {
      const grow = setTimeout(() => (elsewhere = 200 * MB), 150);
      const t0 = Date.now();
      const r = await p.extract(new Uint8Array([5]));
      clearTimeout(grow);
      assert.deepEqual(r.pages, ['file 5']);
      assert.ok(Date.now() - t0 >= 550, 'it was read twice');
    } finally {
      await p.close();
    }
  });

  it('leaves room for large ordinary files: 1 GB plus twice the file', () => {
    const MB = 1024 * 1024;
    assert.equal(defaultMemoryCeiling(3 * MB), 1030 * MB);
    assert.equal(defaultMemoryCeiling(200 * MB), 1424 * MB);
  });

  it('when several files are read as memory passes the ceiling, reads each again alone and skips only the one that needs it', async () => {
    // A stand-in reader: file [1] takes memory (touched, as inflating does) in a loop that never yields; file [2] answers after 300 ms.
    const worker = join(dir, 'greedy-worker.js');
    await fs.writeFile(
      worker,
      `const { parentPort } = require('node:worker_threads');
const held = [];
parentPort.on('message', (m) => {
  if (m.bytes[0] === 1) {
    for (let t = Date.now(); held.length < 64; ) {
      if (Date.now() - t > 20) { held.push(Buffer.allocUnsafe(16 * 1024 * 1024).fill(7)); t = Date.now(); }
    }
    for (;;) {}
  }
  setTimeout(() => parentPort.postMessage({ id: m.id, ok: true, raw: { pageCount: 1, pages: ['file ' + m.bytes[0]], info: {} } }), 300);
});`,
    );
    const MB = 1024 * 1024;
    const greedy = new PdfExtractPool({ workerFile: worker, size: 2, memoryCeiling: () => 128 * MB, memoryPollMs: 20 });
    try {
      const started = Date.now();
      const [good, bad, next] = await Promise.allSettled([
        greedy.extract(new Uint8Array([2])),
        greedy.extract(new Uint8Array([1])),
        greedy.extract(new Uint8Array([3])),
      ]);
      assert.equal(good.status, 'fulfilled', String((good as PromiseRejectedResult).reason));
      assert.deepEqual((good as PromiseFulfilledResult<{ pages: string[] }>).value.pages, ['file 2']);
      assert.equal(bad.status, 'rejected');
      const e = (bad as PromiseRejectedResult).reason;
      assert.ok(e instanceof PdfSkipError && e.kind === 'too-large' && /needs more than 128 MB/.test(e.message), String(e));
      assert.deepEqual((next as PromiseFulfilledResult<{ pages: string[] }>).value.pages, ['file 3']);
      assert.ok(Date.now() - started < 20_000);
    } finally {
      await greedy.close();
    }
  });

  it('refuses work once closed', async () => {
    const p = PdfExtractPool.beside(DIST, 1)!;
    await p.close();
    await assert.rejects(p.extract(new Uint8Array([1])), /closed/);
  });

  it('indexes a library to the same index as extraction in the indexing thread', async () => {
    const lib = join(dir, 'library');
    const here = await fs.mkdtemp(join(dir, 'ws-here-'));
    const there = await fs.mkdtemp(join(dir, 'ws-pool-'));
    const a = await updateIndex((await libraryInputs({ folders: [lib], baseDir: lib })).inputs, { workspace: here, provider: new EmbeddedProvider() });
    const b = await updateIndex((await libraryInputs({ folders: [lib], baseDir: lib, extractor: (x) => pool.extract(x) })).inputs, {
      workspace: there,
      provider: new EmbeddedProvider(),
      readAhead: 3,
    });
    assert.equal(b.fingerprint, a.fingerprint);
    assert.deepEqual(b.skipped, a.skipped);
    assert.ok(b.sources >= 2 && b.skipped.length >= 4, JSON.stringify(b));
    const [ia, ib] = await Promise.all([LibraryIndex.open(here, new EmbeddedProvider()), LibraryIndex.open(there, new EmbeddedProvider())]);
    assert.deepEqual(ib.passages, ia.passages);
  });
});
