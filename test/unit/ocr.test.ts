import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex, type IndexProgress, type IndexReport } from '../../src/core/index/write/indexer';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { removeIndex } from '../../src/core/index/store/maintenance';
import { indexDir } from '../../src/core/index/store/manifest';
import { indexHealth } from '../../src/core/index/health';
import { describeHealth } from '../../src/shared/health';
import { libraryInputs, type LibraryInputOptions } from '../../src/core/library/pdfSource';
import { OcrPool } from '../../src/core/ocr/ocrPool';
import { buildPdf } from '../support/pdfWriter';
import { scannedPage } from '../support/scannedPdf';
import { indexWithOcr, ocrLibrary } from '../support/ocrLibrary';

// Two pages of the "original" whose scans are indexed: distinctive words, so a search finds the page.
const ORIGINAL = buildPdf({
  pages: [
    { heading: 'The Salt Pans', paragraphs: ['The salt pans of Trapani supplied the Genoese fleet with barrels of tunny, coral and sea salt every summer.'] },
    {
      heading: 'Wool Fairs',
      paragraphs: ['Castilian merino wool reached the fairs of Medina del Campo, where Burgos merchants settled their bills of exchange.'],
    },
  ],
});
const TEXT_PAGE = {
  heading: 'Harbour Dues',
  paragraphs: ['Harbour dues at Livorno were lowered by the Medici to draw Armenian and Sephardic merchants to the free port.'],
};
/** A text layer an old scanner's OCR could have left: mostly not words. */
const GARBAGE_LAYER = ['lhc ~~a1t pa#s 0f Tr@p*ni sqpp1i3d thc G3n0ese fl33t', 'w!th b@rr3ls 0f tvnny c0ra1 & s3a sa1t 3v3ry svmm3r ;; ^^ %% ##'];

/**
 * OCR's exact letters are not what these tests are about (a 100-dpi render has read "dle" for
 * "Idle"): the recognised text holds at least two thirds of the phrase's words.
 */
function assertRecognised(text: string, phrase: string) {
  const words = phrase.toLowerCase().split(' ');
  const found = words.filter((w) => text.toLowerCase().includes(w)).length;
  assert.ok(found >= Math.ceil((words.length * 2) / 3), `expected the words of "${phrase}" in the OCR text ${JSON.stringify(text.slice(0, 300))}`);
}

describe('OCR of scanned pages (tesseract.js, offline)', function () {
  this.timeout(180_000);
  let root: string;
  let pool: OcrPool;
  let scanned: Buffer;
  let mixed: Buffer;

  before(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'ss-ocr-'));
    scanned = buildPdf({ pages: [scannedPage(ORIGINAL, 1), scannedPage(ORIGINAL, 2)], info: { Title: 'Salt and Wool (scan)' } });
    // Text page, scan without text layer, scan under a garbage text layer.
    mixed = buildPdf({ pages: [TEXT_PAGE, scannedPage(ORIGINAL, 2), { ...scannedPage(ORIGINAL, 1), lines: GARBAGE_LAYER }], info: { Title: 'Mixed' } });
    pool = new OcrPool({ size: 1 });
  });
  after(async () => {
    await pool.close();
  });

  const library = (name: string, files: Record<string, Buffer>) => ocrLibrary(root, name, files);
  const index = (
    workspace: string,
    lib: string,
    opts: Partial<LibraryInputOptions> = {},
    extra: Partial<Parameters<typeof updateIndex>[1]> = {},
  ): Promise<IndexReport> => indexWithOcr(pool, workspace, lib, opts, extra);

  it('indexes a scanned PDF and finds it by its words, with its page, flagged as OCR text', async () => {
    const { lib, workspace } = await library('scan', { 'scanned.pdf': scanned });
    const progress: IndexProgress[] = [];
    const r = await index(workspace, lib, {}, { onProgress: (p) => progress.push(p) });
    assert.deepEqual(r.skipped, []);
    assert.equal(r.sources, 1);
    assert.deepEqual(r.ocr, { files: 1, pages: 2, recognised: 2, fromCache: 0 });
    const ocr = progress.filter((p) => p.phase === 'ocr');
    assert.deepEqual(
      ocr.map((p) => [p.done, p.total]),
      [
        [0, 2],
        [1, 2],
        [2, 2],
      ],
    );
    assert.ok(ocr.every((p) => p.file?.endsWith('scanned.pdf')));

    const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
    const wool = (await idx.search('merino wool fairs Medina del Campo Burgos merchants bills of exchange', { k: 3 }))[0];
    assert.equal(wool.sourceRecord.path, join(lib, 'scanned.pdf'));
    assert.equal(wool.page, 2);
    assert.equal(wool.ocr, true);
    assertRecognised(wool.text, 'Medina del Campo');
    const salt = (await idx.search('salt pans of Trapani Genoese fleet tunny coral', { k: 3 }))[0];
    assert.equal(salt.page, 1);
    assertRecognised(salt.text, 'salt pans of Trapani');
    assert.equal(idx.sources[0].ocrPages, 2);
  });

  it('never recognises a page twice: rebuilt index, copied file and moved file come from the cache', async () => {
    const { lib, workspace } = await library('cache', { 'scanned.pdf': scanned });
    await index(workspace, lib);
    const before = pool.recognised;
    await removeIndex(workspace); // what Rebuild Index does: the OCR cache stays
    assert.ok(existsSync(join(indexDir(workspace), 'ocr')), 'the OCR cache survives a rebuild');
    const rebuilt = await index(workspace, lib);
    assert.deepEqual(rebuilt.ocr, { files: 1, pages: 2, recognised: 0, fromCache: 2 });
    assert.equal(rebuilt.sources, 1);
    await fs.copyFile(join(lib, 'scanned.pdf'), join(lib, 'copy.pdf'));
    const copied = await index(workspace, lib);
    assert.deepEqual([copied.added, copied.ocr.recognised, copied.ocr.fromCache], [1, 0, 2]);
    await fs.mkdir(join(lib, 'moved'));
    await fs.rename(join(lib, 'scanned.pdf'), join(lib, 'moved', 'scanned.pdf'));
    const moved = await index(workspace, lib);
    assert.deepEqual([moved.moved, moved.ocr.pages], [1, 0]);
    assert.equal(pool.recognised, before, 'no page recognised again');
  });

  it('recognises only the pages of a mixed PDF that need it (no text layer, or a garbage one)', async () => {
    const { lib, workspace } = await library('mixed', { 'mixed.pdf': mixed });
    const r = await index(workspace, lib);
    assert.deepEqual(r.ocr, { files: 1, pages: 2, recognised: 2, fromCache: 0 });
    const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
    const dues = (await idx.search('harbour dues Livorno Medici Armenian Sephardic free port', { k: 1 }))[0];
    assert.equal(dues.page, 1);
    assert.equal(dues.ocr, undefined, 'the text layer page is not OCR text');
    const salt = (await idx.search('salt pans of Trapani Genoese fleet tunny coral', { k: 1 }))[0];
    assert.equal(salt.page, 3);
    assert.equal(salt.ocr, true);
    assertRecognised(salt.text, 'salt pans of Trapani'); // the garbage layer was replaced by recognised text
    assert.ok(!idx.passages.some((p) => /G3n0ese|svmm3r/.test(p.text)), 'the garbage layer is not indexed');
  });

  it('is cancellable during OCR and resumes with the pages already recognised', async () => {
    const { lib, workspace } = await library('cancel', { 'scanned.pdf': scanned });
    const ac = new AbortController();
    const r = await index(
      workspace,
      lib,
      {},
      {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.phase === 'ocr' && p.done === 1) ac.abort();
        },
      },
    );
    assert.equal(r.cancelled, true);
    assert.equal(r.sources, 0, 'a half-recognised file is not indexed');
    const next = await index(workspace, lib);
    assert.equal(next.cancelled, false);
    // Pages are recognised two at a time: the second may have finished before the cancel was heard.
    assert.equal(next.sources, 1);
    assert.ok(next.ocr.fromCache >= 1, 'the page recognised before the cancel comes from the cache');
    assert.equal(next.ocr.recognised + next.ocr.fromCache, 2);
  });

  it('a file with a text layer is searchable before its OCR; a run stopped in OCR leaves it pending, in the status, and the next run finishes it', async () => {
    const { lib, workspace } = await library('early', { 'mixed.pdf': mixed });
    const ac = new AbortController();
    let searchableBeforeOcr = false;
    const r = await index(
      workspace,
      lib,
      {},
      {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.phase === 'ocr' && p.done === 0) {
            // The text layer was committed before OCR started: what a search sees now.
            searchableBeforeOcr = true;
            ac.abort();
          }
        },
      },
    );
    assert.ok(searchableBeforeOcr);
    assert.equal(r.cancelled, true);
    assert.deepEqual([r.sources, r.added], [1, 1], 'indexed by its text layer in the main pass');
    const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
    assert.equal((await idx.search('harbour dues Livorno Medici Armenian Sephardic free port', { k: 1 }))[0]?.page, 1);
    const health = await indexHealth(workspace);
    assert.equal(health.state, 'ready');
    assert.deepEqual(health.state === 'ready' && health.ocr, { pending: 2, files: 1 });
    assert.match(describeHealth(health), /OCR: 2 pages in 1 file still to recognise/);

    const next = await index(workspace, lib);
    assert.deepEqual([next.cancelled, next.sources, next.updated, next.ocr.pages], [false, 1, 1, 2], 'read again for its OCR, counted once');
    const done = await indexHealth(workspace);
    assert.equal(done.state === 'ready' && done.ocr, undefined);
    const after = await LibraryIndex.open(workspace, new EmbeddedProvider());
    assert.equal((await after.search('salt pans of Trapani Genoese fleet tunny coral', { k: 1 }))[0]?.ocr, true);
    const again = await index(workspace, lib);
    assert.deepEqual([again.unchanged, again.ocr.pages], [1, 0], 'nothing pending: unchanged');
  });

  it('with OCR off, a scanned PDF is skipped as before and a mixed one keeps its text pages', async () => {
    const { lib, workspace } = await library('off', { 'scanned.pdf': scanned, 'mixed.pdf': mixed });
    const before = pool.recognised;
    const r = await index(workspace, lib, { ocr: 'off' });
    assert.deepEqual(
      r.skipped.map((s) => [s.path.split('/').pop(), s.reason]),
      [['scanned.pdf', 'no text layer (a scanned PDF? run OCR on it first)']],
    );
    assert.equal(r.sources, 1);
    assert.equal(r.ocr.pages, 0);
    assert.equal(pool.recognised, before);
    const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
    assert.ok(
      idx.passages.some((p) => /Livorno/.test(p.text)),
      'the text page is indexed',
    );
    assert.ok(
      idx.passages.some((p) => /G3n0ese/.test(p.text)),
      'without OCR, a page keeps even a poor text layer, as before',
    );
    assert.ok(idx.passages.every((p) => !p.ocr));
  });

  it('a page the engine fails on costs only itself: reported, its text layer kept, the file indexed', async () => {
    const { lib, workspace } = await library('failing', { 'mixed.pdf': mixed });
    const failing = { languages: ['eng'], recognise: async () => Promise.reject(new Error('engine crashed')) } as unknown as OcrPool;
    const r = await index(workspace, lib, { ocrEngine: failing });
    assert.equal(r.sources, 1);
    assert.deepEqual([r.ocr.pages, r.ocr.recognised], [2, 0]);
    assert.ok(
      r.warnings.some((w) => /mixed\.pdf: OCR page 2: recognition failed \(engine crashed\)/.test(w)),
      r.warnings.join('\n'),
    );
    const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
    assert.ok(idx.passages.some((p) => /Livorno/.test(p.text)));
    assert.ok(
      idx.passages.some((p) => /G3n0ese/.test(p.text)),
      'the garbage layer is better than nothing when OCR failed',
    );
    assert.ok(idx.passages.every((p) => !p.ocr));
  });

  it('a page over its OCR budget has its worker stopped and keeps its text layer; the run goes on', async () => {
    const { lib, workspace } = await library('budget', { 'mixed.pdf': mixed });
    // A budget no page can meet: each page's worker is terminated (and replaced for the next page).
    const strict = new OcrPool({ size: 1, languages: ['eng'], pageBudgetMs: 30 });
    try {
      const t = Date.now();
      const r = await index(workspace, lib, { ocrEngine: strict });
      console.log(`      2 pages over a 30 ms budget: indexed in ${Date.now() - t} ms`);
      assert.equal(r.sources, 1);
      assert.deepEqual([r.ocr.pages, r.ocr.recognised], [2, 0]);
      assert.ok(
        r.warnings.some((w) =>
          /mixed\.pdf: OCR page \d: recognition failed \(took longer than 30 ms to recognise: stopped; it will be tried again when the file is next indexed\); its text layer is kept/.test(
            w,
          ),
        ),
        r.warnings.join('\n'),
      );
      const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
      assert.ok(idx.passages.some((p) => /Livorno/.test(p.text)));
      assert.ok(
        idx.passages.some((p) => /G3n0ese/.test(p.text)),
        'the page kept its (garbage) text layer',
      );
      assert.equal((strict as unknown as { slots: unknown[] }).slots.length, 0, 'the workers over budget were stopped');
    } finally {
      await strict.close();
    }
  });

  it('fails early and clearly on a language with no trained data', async () => {
    const { lib, workspace } = await library('lang', {});
    await assert.rejects(libraryInputs({ folders: [lib], baseDir: workspace, ocrLanguages: 'eng+xyz' }), /no trained data for OCR language "xyz"/);
    await assert.rejects(libraryInputs({ folders: [lib], baseDir: workspace, ocrLanguages: 'eng;rm' }), /not a Tesseract language code/);
  });

  it('CLI: index takes the scanned PDF (not skipped) and search finds its words with the page', async () => {
    const CLI = resolve('dist/cli.js');
    if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs']).status, 0);
    const { lib, workspace } = await library('cli', { 'scanned.pdf': scanned });
    const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--workspace', workspace], { encoding: 'utf8', timeout: 120_000 });
    const ix = run(['index', '--library', lib, '--json', '--ocr-lang', 'eng']);
    assert.equal(ix.status, 0, ix.stderr);
    const report = JSON.parse(ix.stdout) as IndexReport;
    assert.deepEqual([report.sources, report.skipped.length, report.ocr.recognised], [1, 0, 2]);
    assert.match(ix.stderr, /OCR: page 2 of 2, scanned\.pdf/);
    const s = run(['search', 'merino wool Medina del Campo Burgos', '--k', '1', '--json']);
    assert.equal(s.status, 0, s.stderr);
    const hit = JSON.parse(s.stdout).results[0];
    assert.deepEqual([hit.path, hit.page, hit.ocr], [join(lib, 'scanned.pdf'), 2, true]);
    const off = run(['index', '--library', lib, '--ocr', 'sometimes']);
    assert.equal(off.status, 2);
    assert.match(off.stderr, /--ocr must be auto or off/);
  });
});

describe('OCR pool', function () {
  this.timeout(60_000);

  it('stops idle workers by itself and starts them again on demand', async () => {
    const { renderGrey } = await import('../support/scannedPdf');
    const img = renderGrey(buildPdf({ pages: [{ paragraphs: ['Idle workers are stopped.'] }] }), 1, 100);
    const pgm = Buffer.concat([Buffer.from(`P5\n${img.width} ${img.height}\n255\n`), Buffer.from(img.grey)]);
    const pool = new OcrPool({ size: 1, languages: ['eng'], idleMs: 50 });
    try {
      assertRecognised((await pool.recognise(pgm)).text, 'Idle workers are stopped');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((pool as unknown as { slots: unknown[] }).slots.length, 0, 'the idle worker was stopped');
      assertRecognised((await pool.recognise(pgm)).text, 'Idle workers are stopped');
      assert.equal((pool as unknown as { slots: unknown[] }).slots.length, 1, 'a worker was started again on demand');
      const ac = new AbortController();
      ac.abort();
      await assert.rejects(pool.recognise(pgm, ac.signal), /cancelled/);
    } finally {
      await pool.close();
    }
  });
});
