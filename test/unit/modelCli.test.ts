import * as assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTestModel } from '../../scripts/make-test-model';
import { startFakeHub, type FakeHub } from '../support/fakeHub';

const CLI = resolve('dist/cli.js');
const REPO = 'Xenova/gte-small';

/** Runs the CLI without blocking this process (the fake Hub answers from here). */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) =>
      res({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function writeBeir(dir: string) {
  const topics = ['grain ships Sicily licences', 'railway time zones clocks', 'plague Marseille quarantine'];
  const docs = topics.flatMap((t, i) =>
    [0, 1, 2].map((j) => JSON.stringify({ _id: `d${i}-${j}`, title: `Note ${i}.${j}`, text: j === 0 ? `An account of ${t}.` : `Remarks ${j} on weather.` })),
  );
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), docs.join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), topics.map((t, i) => JSON.stringify({ _id: `q${i}`, text: `What about ${t}?` })).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'train.tsv'), 'query-id\tcorpus-id\tscore\n' + topics.map((_, i) => `q${i}\td${i}-0\t1`).join('\n') + '\n');
}

describe('CLI: model download|status|remove and --provider local|auto', function () {
  this.timeout(180_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-model-cli-'));
  const cache = join(root, 'cache');
  const beir = join(root, 'beir');
  let hub: FakeHub;
  let model: string;

  before(async () => {
    if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs']).status, 0);
    model = makeTestModel(join(root, 'tiny'), { layers: 1, hidden: 32, quantized: true, fp32: false });
    const files: Record<string, Uint8Array> = {};
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx'])
      files[f] = readFileSync(join(model, f));
    hub = await startFakeHub({ repos: { [REPO]: files } });
    writeBeir(beir);
  });
  after(async () => {
    await hub.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('downloads from $HF_ENDPOINT into the cache, reports it, serves --provider local|auto, and removes it', async () => {
    const before = await cli(['model', 'status', '--model', REPO, '--cache-dir', cache]);
    assert.equal(before.code, 1);
    assert.match(before.stdout, /not installed/);

    const dl = await cli(['model', 'download', '--model', REPO, '--cache-dir', cache], { HF_ENDPOINT: hub.url });
    assert.equal(dl.code, 0, dl.stderr);
    assert.match(dl.stdout, /downloaded Xenova\/gte-small into /);
    assert.match(dl.stderr, /MB/);
    const st = await cli(['model', 'status', '--model', REPO, '--cache-dir', cache, '--json']);
    assert.equal(st.code, 0);
    const status = JSON.parse(st.stdout);
    assert.equal(status.installed, true);
    assert.ok(status.dir.startsWith(cache));

    for (const provider of ['local', 'auto']) {
      const ev = await cli(['eval', '--beir', beir, '--split', 'train', '--provider', provider, '--model', REPO, '--cache-dir', cache, '--json']);
      assert.equal(ev.code, 0, ev.stderr);
      const r = JSON.parse(ev.stdout);
      assert.equal(r.provider, 'local-xenova_gte-small');
      assert.equal(r.queries, 3);
    }
    // A folder works as it is, without the cache.
    const folder = await cli(['eval', '--beir', beir, '--split', 'train', '--provider', 'local', '--model', model, '--json']);
    assert.equal(folder.code, 0, folder.stderr);
    assert.equal(JSON.parse(folder.stdout).provider, 'local-tiny');

    const rm = await cli(['model', 'remove', '--model', REPO, '--cache-dir', cache]);
    assert.equal(rm.code, 0);
    const auto = await cli(['eval', '--beir', beir, '--split', 'train', '--provider', 'auto', '--model', REPO, '--cache-dir', cache, '--json']);
    assert.match(JSON.parse(auto.stdout).provider, /^embedded/);
    const local = await cli(['eval', '--beir', beir, '--split', 'train', '--provider', 'local', '--model', REPO, '--cache-dir', cache]);
    assert.equal(local.code, 1);
    assert.match(local.stderr, /"Xenova\/gte-small" is not downloaded.*model download --model Xenova\/gte-small/);
  });

  it('index with a local model: passages first (searchable, "semantic index 0%"), vectors after; --defer-embedding stops between', async () => {
    const ws = join(root, 'ws-deferred');
    mkdirSync(ws);
    const lib = resolve('examples/library');
    const first = await cli(['index', '--library', lib, '--workspace', ws, '--provider', 'local', '--model', model, '--defer-embedding']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /0 passages embedded/);
    assert.match(first.stdout, /Semantic index 0%: 0 of \d+ passages have their vector/);
    const status = await cli(['status', '--workspace', ws, '--json']);
    const h = JSON.parse(status.stdout) as { state: string; passages: number; semantic?: { embedded: number; total: number } };
    assert.equal(h.state, 'ready');
    assert.deepEqual(h.semantic && { embedded: h.semantic.embedded, total: h.semantic.total }, { embedded: 0, total: h.passages });
    const partial = await cli([
      'analyze',
      'examples/draft.md',
      '--workspace',
      ws,
      '--provider',
      'local',
      '--model',
      model,
      '--json',
      '--no-cache',
      '--partial',
    ]);
    assert.equal(partial.code, 0, partial.stderr);
    const pr = JSON.parse(partial.stdout) as { semantic?: { embedded: number; total: number }; segments: Array<{ recommendations: unknown[] }> };
    assert.deepEqual(pr.semantic && [pr.semantic.embedded, pr.semantic.total], [0, h.passages]);
    assert.ok(
      pr.segments.some((x) => x.recommendations.length > 0),
      'lexical results are served meanwhile',
    );

    const second = await cli(['index', '--library', lib, '--workspace', ws, '--provider', 'local', '--model', model]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, new RegExp(`semantic index 100% \\(${h.passages} of ${h.passages} passages embedded`));
    assert.match(second.stdout, new RegExp(`${h.passages} passages embedded`));
    const done = JSON.parse((await cli(['status', '--workspace', ws, '--json'])).stdout) as { state: string; semantic?: unknown };
    assert.equal(done.state, 'ready');
    assert.equal(done.semantic, undefined);
    const full = JSON.parse(
      (await cli(['analyze', 'examples/draft.md', '--workspace', ws, '--provider', 'local', '--model', model, '--json', '--no-cache'])).stdout,
    ) as { semantic?: unknown };
    assert.equal(full.semantic, undefined);
  });

  it('says what to do when the download fails (404 from the endpoint)', async () => {
    const r = await cli(['model', 'download', '--model', 'Xenova/unknown', '--cache-dir', cache], { HF_ENDPOINT: hub.url });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /has no config\.json in Xenova\/unknown .*HTTP 404.*Check the model id/);
  });
});
