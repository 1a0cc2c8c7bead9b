/**
 * Item 7 of issue 14: SIGKILL a CLI indexing run at a random moment, many times,
 * on one library. After every kill the committed index must be consistent
 * (checksums, every source in a shard, every passage with its vector) and hold
 * every source committed before the kill; the next run must give exactly the
 * index of a clean build (same passages, same vectors, same skips).
 *
 * The library alternates between two versions (5 PDFs rewritten, one removed,
 * one added, one renamed), so kills land in fresh builds and in incremental
 * updates alike. KILLS (env SS_STRESS_KILLS, default 50) kills in all.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir } from '../../src/core/index/store/manifest';
import { applyVariant, rng, snapshotIndex, stressLibraryVariants, type IndexSnapshot } from '../support/stressLibrary';
import { record } from './report';

const CLI = resolve('dist/cli.js');
const KILLS = Number(process.env.SS_STRESS_KILLS ?? 50);
const KEY = new EmbeddedProvider().key;

function runIndex(lib: string, ws: string) {
  const r = spawnSync(process.execPath, [CLI, 'index', '--library', lib, '--workspace', ws, '--json'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `index failed: ${r.stderr}`);
  return r;
}

/** Starts an indexing run and SIGKILLs it after `ms`; resolves with whether it had already finished. */
function killAfter(lib: string, ws: string, ms: number): Promise<{ finished: boolean; code: number | null }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [CLI, 'index', '--library', lib, '--workspace', ws], { stdio: 'ignore' });
    const t = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code, signal) => {
      clearTimeout(t);
      res({ finished: signal !== 'SIGKILL', code });
    });
  });
}

function sourcesOf(s: IndexSnapshot | undefined): Map<string, string> {
  return new Map(Object.values(s?.sources ?? {}).map((x) => [x.path, x.contentHash]));
}

describe('kill -9 during indexing (CLI)', function () {
  this.timeout(20 * 60_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-kill-'));
  const lib = join(root, 'library');
  const variants = stressLibraryVariants(30);
  const clean: IndexSnapshot[] = [];
  let runMs = 0;

  before(async () => {
    if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs']).status, 0);
    // Clean builds of both library versions, in workspaces of their own.
    for (const [i, v] of [variants.a, variants.b].entries()) {
      await applyVariant(lib, v);
      const ws = join(root, `clean-${i}`);
      const t0 = Date.now();
      runIndex(lib, ws);
      runMs = Math.max(runMs, Date.now() - t0);
      clean.push((await snapshotIndex(ws, KEY))!);
    }
    assert.equal(Object.keys(clean[0].sources).length, 30);
    assert.equal(Object.keys(clean[1].sources).length, 30);
    assert.equal(Object.keys(clean[0].skipped).length, 1);
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  it(`leaves a consistent index after each of ${KILLS} kills mid-run, and the next run equals a clean build`, async () => {
    const ws = join(root, 'ws');
    const r = rng(14);
    let kills = 0;
    let finishedBeforeKill = 0;
    let round = 0;
    let withManifest = 0;
    const t0 = Date.now();
    while (kills - finishedBeforeKill < KILLS) {
      const target = round % 2;
      // Every fourth round starts from nothing; the others update the previous round's index.
      if (round % 4 === 0) rmSync(indexDir(ws), { recursive: true, force: true });
      await applyVariant(lib, target === 0 ? variants.a : variants.b);
      for (let k = 0; k < 2 && kills - finishedBeforeKill < KILLS; k++) {
        const before = sourcesOf(await snapshotIndex(ws, KEY));
        // A kill anywhere in the run (start-up included); one that comes after the run ended does not count.
        // An update of 8 files (or the rest of an interrupted run) takes far less than a full build.
        const delay = Math.floor(r() * (round % 4 === 0 && k === 0 ? runMs : runMs * 0.45));
        const { finished } = await killAfter(lib, ws, delay);
        kills++;
        if (finished) finishedBeforeKill++;
        const after = await snapshotIndex(ws, KEY); // throws on any inconsistency
        if (after) withManifest++;
        const now = sourcesOf(after);
        for (const [p, hash] of before) {
          // A committed source stays unless this library version changed or removed it.
          const inTarget = Object.values(clean[target].sources).find((s) => s.path === p);
          if (inTarget?.contentHash === hash) assert.equal(now.get(p), hash, `kill ${kills} (after ${delay} ms) lost the committed source ${p}`);
        }
        if (after) {
          // What the committed index holds is readable for search, as an analysis would load it.
          const idx = await LibraryIndex.open(ws, new EmbeddedProvider());
          assert.equal(idx.sources.length, now.size);
        }
      }
      runIndex(lib, ws);
      const got = await snapshotIndex(ws, KEY);
      assert.deepEqual(got, clean[target], `round ${round}: the index after the kills differs from a clean build`);
      const idx = await LibraryIndex.open(ws, new EmbeddedProvider());
      const hits = await idx.search('grain harbour merchant licence', { k: 5 });
      assert.equal(hits.length, 5);
      round++;
    }
    record('kill -9 during `index` (30 PDFs, two library versions)', {
      tried: kills - finishedBeforeKill,
      crashes: 0,
      dataLost: 0,
      note: `${round} rounds, ${kills - finishedBeforeKill} runs killed mid-way (${withManifest} of all kills left a committed index to check; ${finishedBeforeKill} more runs had ended before their kill and are not counted); next run equal to a clean build every time; ${Math.round((Date.now() - t0) / 1000)} s`,
    });
  });
});
