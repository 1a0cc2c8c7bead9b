/**
 * Issue 14, item 7, for the background embedding of issue 11: SIGKILL a CLI `index` with a
 * local model (passages committed first, then the vectors, committed every few seconds) at
 * a random moment, many times. After every kill the committed index must open (partial:
 * lexical results served), and the vectors it holds must never be fewer than before the kill
 * (nothing committed is lost); the run after the kills must give the index of a clean build
 * (same passages, same vectors to float precision: batches differ after a resume).
 * KILLS (env SS_STRESS_EMBED_KILLS, default 20) kills in all, on a generated model of the
 * real shape (12 × 384, int8) so that the embedding lasts seconds.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTestModel } from '../../scripts/make-test-model';
import { LocalProvider, LOCAL_WORKER_FILE } from '../../src/core/embedding/local/localProvider';
import { vectorProgress } from '../../src/core/index/health';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { readPassageShard, readVectorShard } from '../../src/core/index/store/shards';
import { rng } from '../support/stressLibrary';
import { record } from './report';

const CLI = resolve('dist/cli.js');
const KILLS = Number(process.env.SS_STRESS_EMBED_KILLS ?? 20);
const LIBRARY = resolve('examples/library');

/** Every passage's text and vector, by `<content hash>:<index>`, and how many vectors there are. */
async function contents(
  ws: string,
): Promise<{ key: string; passages: Map<string, string>; vectors: Map<string, Float32Array>; covered: number; total: number } | undefined> {
  const dir = indexDir(ws);
  const m = await readManifest(dir);
  if (!m) return undefined;
  const key = Object.keys(m.vectors).find((k) => k.startsWith('local-')) ?? '';
  const passages = new Map<string, string>();
  const vectors = new Map<string, Float32Array>();
  for (const [shard, rec] of Object.entries(m.shards)) {
    for (const src of await readPassageShard(dir, rec)) src.passages.forEach((p, i) => passages.set(`${src.contentHash}:${i}`, p.t));
    const v = m.vectors[key]?.shards[shard];
    if (v) for (const [id, vec] of await readVectorShard(dir, v)) vectors.set(id, vec);
  }
  const p = vectorProgress(m, key);
  return { key, passages, vectors, covered: p.embedded, total: p.total };
}

describe('kill -9 during background embedding (CLI index with a local model)', function () {
  this.timeout(20 * 60_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-kill-embed-'));
  let model = '';
  let clean: NonNullable<Awaited<ReturnType<typeof contents>>>;
  let runMs = 0;
  const index = (ws: string) => {
    const r = spawnSync(process.execPath, [CLI, 'index', '--library', LIBRARY, '--workspace', ws, '--provider', 'local', '--model', model, '--json'], {
      encoding: 'utf8',
      timeout: 600_000,
    });
    assert.equal(r.status, 0, `index failed: ${r.stderr}`);
  };

  before(async () => {
    if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs']).status, 0);
    model = makeTestModel(join(root, 'model'), { layers: 12, hidden: 384, quantized: true, fp32: false });
    const t0 = Date.now();
    index(join(root, 'clean'));
    runMs = Date.now() - t0;
    clean = (await contents(join(root, 'clean')))!;
    assert.equal(clean.covered, clean.total);
    assert.equal(clean.vectors.size, clean.passages.size);
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  it(`keeps every committed vector through ${KILLS} kills, serves the partial index, and ends equal to a clean build`, async () => {
    const ws = join(root, 'ws');
    const r = rng(11);
    let kills = 0;
    let finished = 0;
    let partialSeen = 0;
    let round = 0;
    const t0 = Date.now();
    while (kills - finished < KILLS) {
      // Every third round starts from nothing; the others go on from what the last kill left.
      if (round % 3 === 0) rmSync(indexDir(ws), { recursive: true, force: true });
      for (let k = 0; k < 3 && kills - finished < KILLS; k++) {
        const before = await contents(ws);
        const delay = Math.floor(r() * runMs);
        const ended = await new Promise<boolean>((res) => {
          const child = spawn(process.execPath, [CLI, 'index', '--library', LIBRARY, '--workspace', ws, '--provider', 'local', '--model', model], {
            stdio: 'ignore',
          });
          const t = setTimeout(() => child.kill('SIGKILL'), delay);
          child.on('exit', (_code, signal) => {
            clearTimeout(t);
            res(signal !== 'SIGKILL');
          });
        });
        kills++;
        if (ended) finished++;
        const after = await contents(ws);
        if (!after) continue;
        // Nothing committed is lost: every vector there before the kill is there after it, unchanged.
        for (const [id, v] of before?.vectors ?? [])
          assert.deepEqual(after.vectors.get(id), v, `kill ${kills} (after ${delay} ms) lost the committed vector ${id}`);
        if (after.covered < after.total) partialSeen++;
        // The committed index serves, partial or not, as the extension would open it.
        const provider = new LocalProvider({ model, modelDir: model, workerFile: join(resolve('dist'), LOCAL_WORKER_FILE), threads: 1 });
        try {
          const idx = await LibraryIndex.open(ws, provider, { partial: true });
          assert.equal(idx.size, after.passages.size);
          assert.ok((await idx.search('grain licences Sicily', { k: 3 })).length > 0, 'lexical results are served');
        } finally {
          await provider.close();
        }
      }
      index(ws);
      const got = (await contents(ws))!;
      assert.equal(got.covered, got.total, `round ${round}: complete after the run that follows the kills`);
      assert.deepEqual([...got.passages.entries()].sort(), [...clean.passages.entries()].sort(), `round ${round}: passages differ from a clean build`);
      for (const [id, v] of clean.vectors) {
        const w = got.vectors.get(id);
        assert.ok(w, `round ${round}: no vector for ${id}`);
        let diff = 0;
        for (let i = 0; i < v.length; i++) diff = Math.max(diff, Math.abs(v[i] - w[i]));
        assert.ok(diff < 1e-4, `round ${round}: vector ${id} differs from a clean build by ${diff}`);
      }
      round++;
    }
    assert.ok(partialSeen > 0, 'some kills landed in the embedding (a partial semantic index)');
    record('kill -9 during background embedding (`index --provider local`, 12×384 generated model, example library)', {
      tried: kills - finished,
      crashes: 0,
      dataLost: 0,
      note: `${round} rounds; ${partialSeen} kills left a partial semantic index, which opened and served lexical results; no committed vector lost; the next run equal to a clean build (vectors within 1e-4) every time; ${Math.round((Date.now() - t0) / 1000)} s`,
    });
  });
});
