/**
 * Issue 28: one PDF must never stop a library. Reading a file has a wall-time budget in the
 * worker pool; a file over it is skipped with the reason and the run goes on; a slow file
 * holds back no other; Ctrl-C stops the CLI in seconds, whatever a worker is reading; a lock
 * left by a killed run is named as such. The crafted PDFs are generated (test/support/hostilePdf.ts).
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { abandonedLock, LOCK_FILE } from '../../src/core/index/store/lock';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { indexLibrary } from '../../src/engine/indexLibrary';
import { PdfSkipError } from '../../src/core/pdf/extract';
import { DEFAULT_READ_BUDGET, EXTRACT_WORKER_FILE, PdfExtractPool, readBudgetMs } from '../../src/core/pdf/extractPool';
import { deepNestingPdf, hostileCorpus, repeatedPagePdf } from '../support/hostilePdf';
import { buildPdf } from '../support/pdfWriter';

const DIST = resolve('dist');
const CLI = join(DIST, 'cli.js');
const WORKER = join(DIST, EXTRACT_WORKER_FILE);
/** Small budgets, so each crafted file is given up in a second or two. */
const SMALL = { baseMs: 1_500, perPageMs: 20, capMs: 4_000 };

const good = (i: number) =>
  buildPdf({
    info: { Title: `Good source ${i}` },
    pages: [
      {
        paragraphs: [
          `Good source number ${i} describes the grain trade of the port of ${['Venice', 'Genoa', 'Marseille'][i]} and its merchants in some detail.`,
        ],
      },
    ],
  });

async function library(root: string, bad: Buffer): Promise<string> {
  const lib = join(root, 'lib');
  await fs.mkdir(lib, { recursive: true });
  // The crafted file comes first: files behind it must not wait for it.
  await fs.writeFile(join(lib, 'a-crafted.pdf'), bad);
  for (let i = 0; i < 3; i++) await fs.writeFile(join(lib, `good-${i}.pdf`), good(i));
  return lib;
}

describe('PDF read budget (issue 28)', function () {
  this.timeout(120_000);
  let root: string;

  before(async () => {
    if (!existsSync(WORKER) || !existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, `build failed: ${b.stderr}`);
    }
    root = await fs.mkdtemp(join(tmpdir(), 'ss-budget-'));
  });
  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('gives 30 s, plus 0.5 s a page, at most 180 s', () => {
    assert.deepEqual(DEFAULT_READ_BUDGET, { baseMs: 30_000, perPageMs: 500, capMs: 180_000 });
    assert.equal(readBudgetMs(undefined), 30_000);
    assert.equal(readBudgetMs(1), 30_500);
    assert.equal(readBudgetMs(100), 80_000);
    assert.equal(readBudgetMs(100_000), 180_000);
  });

  it('stops a file over its budget, replaces the worker, says why, and reads the next file', async () => {
    const pool = new PdfExtractPool({ workerFile: WORKER, size: 1, budget: SMALL }).warm();
    try {
      let t = Date.now();
      const nest = await pool.extract(deepNestingPdf(200_000)).then(
        () => undefined,
        (e: Error) => e,
      );
      const nestMs = Date.now() - t;
      assert.ok(nest instanceof PdfSkipError && nest.kind === 'unreadable', String(nest));
      assert.match(nest.message, /^took longer than 1\.5 s to read \(1 page\): skipped; it will be retried when it changes$/);
      t = Date.now();
      // 100,000 pages: a budget of 4 s, but the pages read in the first 1.5 s say it would take hours.
      const rep = await pool.extract(repeatedPagePdf(100_000)).then(
        () => undefined,
        (e: Error) => e,
      );
      const repMs = Date.now() - t;
      assert.ok(rep instanceof PdfSkipError, String(rep));
      assert.match(rep.message, /^too slow to read within 4 s \(\d+ of 100,000 pages in 1\.\d s\): skipped; it will be retried when it changes$/);
      const next = await pool.extract(good(0));
      assert.match(next.pages[0], /Venice/);
      console.log(`      deep nesting stopped after ${nestMs} ms, repeated page after ${repMs} ms (budgets 1.5 s, 4 s)`);
      assert.ok(nestMs < 15_000 && repMs < 15_000, 'a hang guard only');
    } finally {
      await pool.close();
    }
  });

  it('a slow file does not hold a one-worker pool: another worker reads the next files meanwhile', async () => {
    const pool = new PdfExtractPool({ workerFile: WORKER, size: 1, budget: { baseMs: 6_000, perPageMs: 0, capMs: 6_000 }, slowMs: 200 }).warm();
    try {
      const t = Date.now();
      const slow = pool.extract(deepNestingPdf(200_000)).then(
        () => 'read',
        () => 'skipped',
      );
      const others = await Promise.all([0, 1, 2].map((i) => pool.extract(good(i))));
      const ms = Date.now() - t;
      assert.deepEqual(
        others.map((r) => r.pageCount),
        [1, 1, 1],
      );
      console.log(`      three files read beside the slow one in ${ms} ms`);
      assert.ok(ms < 15_000, `the others waited for the slow file (${ms} ms)`);
      assert.equal(await slow, 'skipped');
      assert.equal((pool as unknown as { slots: unknown[] }).slots.length, 1, 'the worker started beside the slow file went with it');
    } finally {
      await pool.close();
    }
  });

  it('a slow file lets a worker start beside it when its timer fires, whatever Date.now() says then', async () => {
    // Timers run on the monotonic clock, coarse to a millisecond or more; Date.now() is the wall
    // clock. CI once saw the slow-file timer fire when Date.now() said 249 of 250 ms: the pool
    // judged the file not slow yet, nothing called it again, and the file held the queue for its
    // whole budget. Here the wall clock runs 10 % slow, so every timer fires "early" by it.
    const pool = new PdfExtractPool({ workerFile: WORKER, size: 1, budget: { baseMs: 4_000, perPageMs: 0, capMs: 4_000 }, slowMs: 200 }).warm();
    const realNow = Date.now;
    const from = realNow();
    Date.now = () => from + Math.floor((realNow() - from) * 0.9);
    try {
      const t = realNow();
      const slow = pool.extract(deepNestingPdf(200_000)).then(
        () => 'read',
        () => 'skipped',
      );
      const next = await pool.extract(good(0));
      const ms = realNow() - t;
      assert.equal(next.pageCount, 1);
      assert.ok(ms < 3_000, `the next file waited for the slow one (${ms} ms)`);
      assert.equal(await slow, 'skipped');
    } finally {
      Date.now = realNow;
      await pool.close();
    }
  });

  it('--jobs 0 (one worker, one file at a time) keeps the budget: a file of 200,000 nested q operators is skipped with the same message, the good files indexed', async () => {
    const dir = join(root, 'jobs-0');
    const lib = await library(dir, deepNestingPdf(200_000));
    const workspace = join(dir, 'ws');
    // As `index --jobs 0` calls it (cli/main.ts), with a small budget.
    const r = await indexLibrary({
      library: { workspace, folders: [lib], fromSettings: true, include: [], exclude: [], primary: [], ocr: { mode: 'off', languages: 'eng' } },
      provider: new EmbeddedProvider(),
      jobs: 0,
      workerDir: DIST,
      readBudget: SMALL,
    });
    assert.equal(r.sources, 3);
    assert.equal(r.skipped.length, 1);
    assert.match(r.skipped[0].path, /a-crafted\.pdf$/);
    assert.match(r.skipped[0].reason, /^took longer than 1\.5 s to read \(1 page\): skipped; it will be retried when it changes$/);
  });

  it('a pool of size 0 has one worker and starts none beside a slow file', async () => {
    const pool = new PdfExtractPool({ workerFile: WORKER, size: 0, budget: { baseMs: 3_000, perPageMs: 0, capMs: 3_000 }, slowMs: 200 }).warm();
    try {
      const slots = () => (pool as unknown as { slots: Array<{ job?: unknown }> }).slots;
      assert.equal(pool.size, 1);
      const slow = pool.extract(deepNestingPdf(200_000)).then(
        () => 'read',
        (e: Error) => e.message,
      );
      const next = pool.extract(good(0));
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(slots().length, 1, 'no worker beside the slow file');
      assert.match(await slow, /^took longer than 3 s to read/);
      assert.match((await next).pages[0], /Venice/);
    } finally {
      await pool.close();
    }
  });

  for (const [name, bad] of [
    ['200,000 nested q operators', () => deepNestingPdf(200_000)],
    ['a page tree naming one page 100,000 times', () => repeatedPagePdf(100_000)],
  ] as const) {
    it(`a library of three good PDFs and one with ${name}: the three are indexed (and committed while it is read), it is skipped with the reason`, async () => {
      const dir = join(root, name.replace(/\W+/g, '-'));
      const lib = await library(dir, bad());
      const workspace = join(dir, 'ws');
      // A worker starts beside the crafted file after 250 ms (not the product's 3 s), and the budget
      // (12 s) leaves the good files time to be read, overtake it (2 s) and be committed (1 s idle)
      // on a slow machine: CI saw only 2 of 3 committed with a 3 s budget, and none with 6 s once
      // (about 3.5 s are needed here, even with both cores taken by other processes).
      // The time budget is what is tested here, not the memory ceiling (extractPool.test.ts tests it): in the
      // whole suite the process's memory is shared with other tests' threads, whose growth could
      // have the crafted file read alone, with no file beside it to commit.
      const pool = new PdfExtractPool({
        workerFile: WORKER,
        size: 1,
        slowMs: 250,
        budget: { ...SMALL, baseMs: 12_000, capMs: 14_000 },
        memoryCeiling: () => Number.MAX_SAFE_INTEGER,
      }).warm();
      const { inputs, dispose } = await libraryInputs({ folders: [lib], baseDir: lib, extractor: (b) => pool.extract(b), ocr: 'off' });
      let committedEarly = 0;
      const seen: string[] = [];
      const t = Date.now();
      try {
        // What the run and the pool did, said only when the check fails (CI once saw no commit at all).
        const events: string[] = [];
        const poolState = () => {
          const slots = (pool as unknown as { slots: Array<{ job?: { alone?: boolean } }> }).slots;
          return `${slots.length} worker(s)${slots.some((x) => x.job?.alone) ? ', a file read alone (memory ceiling)' : ''}`;
        };
        const run = updateIndex(inputs, {
          workspace,
          provider: new EmbeddedProvider(),
          onProgress: (p) =>
            events.push(
              `${Date.now() - t} ms ${p.phase} ${p.done}/${p.total}${'file' in p && p.file ? ` ${String(p.file).split('/').pop()}` : ''} [${poolState()}]`,
            ),
        });
        // While the crafted file is read, the good ones are committed: a kill now would keep them.
        const watch = (async () => {
          for (let ended = false; !ended;) {
            ended = await Promise.race([
              run.then(
                () => true,
                () => true,
              ),
              new Promise<boolean>((r) => setTimeout(() => r(false), 100)),
            ]);
            const m = await readManifest(indexDir(workspace)).catch(() => undefined);
            const n = m ? Object.keys(m.sources).length : 0;
            if (!ended && n > committedEarly) {
              committedEarly = n;
              seen.push(`${n} committed at ${Date.now() - t} ms`);
            }
            if (!ended && (Date.now() - t) % 1000 < 100) events.push(`${Date.now() - t} ms [${poolState()}]`);
          }
        })();
        const r = await run;
        await watch;
        console.log(`      indexed in ${Date.now() - t} ms (${seen.join(', ')}): ${r.sources} sources; skipped: ${r.skipped.map((s) => s.reason).join('; ')}`);
        assert.equal(r.sources, 3);
        assert.equal(r.skipped.length, 1);
        assert.match(r.skipped[0].path, /a-crafted\.pdf$/);
        assert.match(r.skipped[0].reason, /(took longer than|too slow to read within) .* s.*: skipped; it will be retried when it changes/);
        assert.equal(
          committedEarly,
          3,
          `the good files were committed before the crafted one was given up (${seen.join(', ') || 'no commit seen'}; ended at ${Date.now() - t} ms); events: ${events.join('; ')}`,
        );
        // The skip is remembered (written even though no shard changed with it): the next run does not read the file again.
        const again = await updateIndex(inputs, { workspace, provider: new EmbeddedProvider() });
        assert.deepEqual([again.unchanged, again.skipped.length], [3, 1]);
        assert.match(again.skipped[0].reason, /\(unchanged since the last attempt\)$/);
      } finally {
        await dispose();
        await pool.close();
      }
    });
  }

  it('every case of the regression corpus is read or skipped with a reason, within its budget', async () => {
    const pool = new PdfExtractPool({ workerFile: WORKER, size: 1, budget: SMALL }).warm();
    try {
      for (const c of hostileCorpus()) {
        const t = Date.now();
        const outcome = await pool.extract(c.bytes).then(
          () => 'indexed' as const,
          (e: Error) => {
            assert.ok(e instanceof PdfSkipError && e.message.length > 0 && !/undefined/.test(e.message), `${c.name}: ${e.name}: ${e.message}`);
            return 'skipped' as const;
          },
        );
        const ms = Date.now() - t;
        if (c.expect !== 'either') assert.equal(outcome, c.expect, c.name);
        assert.ok(ms < SMALL.capMs + 5_000, `${c.name} took ${ms} ms`);
      }
    } finally {
      await pool.close();
    }
  });

  it('CLI: Ctrl-C exits in seconds while a worker reads a crafted file, keeping what is committed and releasing the lock; a second Ctrl-C exits at once', async () => {
    const dir = join(root, 'sigint');
    const lib = await library(dir, deepNestingPdf(200_000));
    const workspace = join(dir, 'ws');
    const status = () => spawnSync(process.execPath, [CLI, 'status', '--workspace', workspace, '--json'], { encoding: 'utf8' });
    const start = () => spawn(process.execPath, [CLI, 'index', '--library', lib, '--workspace', workspace], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = (p: ReturnType<typeof start>) => new Promise<number | null>((r) => p.on('exit', (code) => r(code)));

    let cli = start();
    let code = exited(cli);
    // Wait until the good files are committed (the crafted one is still being read: 30 s budget).
    const until = Date.now() + 60_000;
    while (Date.now() < until && JSON.parse(status().stdout || '{}').sources !== 3) await new Promise((r) => setTimeout(r, 200));
    assert.equal(JSON.parse(status().stdout).sources, 3, 'the good files were committed while the crafted one was read');
    let t = Date.now();
    cli.kill('SIGINT');
    const first = await Promise.race([code, new Promise<string>((r) => setTimeout(() => r('hung'), 10_000))]);
    const ms = Date.now() - t;
    console.log(`      Ctrl-C: exited in ${ms} ms`);
    assert.equal(first, 130, 'exited, as cancelled');
    assert.ok(!existsSync(join(indexDir(workspace), LOCK_FILE)), 'the lock was released');
    const st = JSON.parse(status().stdout);
    assert.deepEqual([st.state, st.sources, st.interrupted], ['ready', 3, undefined]);

    // A second Ctrl-C exits at once, whatever the first one is waiting for.
    await fs.rm(workspace, { recursive: true, force: true });
    cli = start();
    code = exited(cli);
    await new Promise<void>((r) => cli.stderr!.on('data', (d: Buffer) => /indexing 4 PDF files/.test(String(d)) && r()));
    t = Date.now();
    cli.kill('SIGINT');
    cli.kill('SIGINT');
    const second = await Promise.race([code, new Promise<string>((r) => setTimeout(() => r('hung'), 10_000))]);
    console.log(`      Ctrl-C twice: exited in ${Date.now() - t} ms`);
    assert.equal(second, 130);
  });

  it('CLI status names a lock left by a killed run, instead of "indexing"', async () => {
    const dir = join(root, 'killed');
    const lib = await library(dir, deepNestingPdf(200_000));
    const workspace = join(dir, 'ws');
    const cli = spawn(process.execPath, [CLI, 'index', '--library', lib, '--workspace', workspace], { stdio: ['ignore', 'ignore', 'pipe'] });
    const code = new Promise((r) => cli.on('exit', r));
    const lock = join(indexDir(workspace), LOCK_FILE);
    for (const until = Date.now() + 60_000; Date.now() < until && !existsSync(lock);) await new Promise((r) => setTimeout(r, 50));
    cli.kill('SIGKILL');
    await code;
    const left = await abandonedLock(indexDir(workspace));
    assert.equal(left?.pid, cli.pid);
    const st = spawnSync(process.execPath, [CLI, 'status', '--workspace', workspace], { encoding: 'utf8' });
    assert.doesNotMatch(st.stdout, /^indexing/);
    assert.match(st.stdout, new RegExp(`a previous indexing run \\(pid ${cli.pid}, started [^)]+\\) ended without finishing; the next run takes over`));
  });

  it('a killed holder that its parent has not reaped yet (a zombie) holds no lock', async function () {
    if (process.platform !== 'linux') this.skip();
    const dir = join(root, 'zombie', '.similar-sources');
    await fs.mkdir(dir, { recursive: true });
    // sh starts a child and becomes `sleep`, which never reaps it: killed, the child stays a zombie.
    const parent = spawn('sh', ['-c', 'sleep 30 & exec sleep 30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const child = Number(spawnSync('pgrep', ['-P', String(parent.pid)], { encoding: 'utf8' }).stdout.trim());
      assert.ok(child > 0, 'the child of sh');
      process.kill(child, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 200));
      assert.match(await fs.readFile(`/proc/${child}/stat`, 'latin1'), /\) Z /, 'a zombie');
      await fs.writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: child, host: hostname(), since: new Date().toISOString(), what: 'indexing' }));
      assert.equal((await abandonedLock(dir))?.pid, child);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
