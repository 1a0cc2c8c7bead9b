import * as assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTestModel } from '../../scripts/make-test-model';
import { startFakeOpenAI } from '../support/fakeOpenAI';

const CLI = resolve('dist/cli.js');
const LIB = resolve('examples/library');
const DRAFT = resolve('examples/draft.md');

type Run = { code: number; stdout: string; stderr: string };

/** Runs the CLI without blocking this process (the fake server answers from here). */
function cli(args: string[]): Promise<Run> {
  return new Promise((res) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 120_000 }, (error, stdout, stderr) =>
      res({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs the CLI and sends it SIGINT (Ctrl-C) once its stderr matches `when`. */
function cliInterrupted(args: string[], when: RegExp): Promise<Run & { interrupted: boolean }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [CLI, ...args]);
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (!interrupted && when.test(stderr)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code: code ?? 1, stdout, stderr, interrupted });
    });
  });
}

/** A small BEIR folder: 3 topics, `perTopic` documents each (the first one judged). */
function writeBeir(dir: string, perTopic = 4) {
  const topics = ['grain ships Sicily licences', 'railway time zones clocks', 'plague Marseille quarantine'];
  const docs = topics.flatMap((t, i) =>
    Array.from({ length: perTopic }, (_, j) =>
      JSON.stringify({
        _id: `d${i}-${j}`,
        title: `Note ${i}.${j}`,
        text: j === 0 ? `An account of ${t}.` : `Remarks ${j} on weather and ${t.split(' ')[j % 4]}.`,
      }),
    ),
  );
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), docs.join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), topics.map((t, i) => JSON.stringify({ _id: `q${i}`, text: `What about ${t}?` })).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'train.tsv'), 'query-id\tcorpus-id\tscore\n' + topics.map((_, i) => `q${i}\td${i}-0\t1`).join('\n') + '\n');
}

describe('CLI: search, analyze and eval embed every pending vector before they score (or say they used part)', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-cli-semantic-'));
  const beir = join(root, 'beir');
  let model: string;
  let n = 0;
  /** A workspace indexed with the model's vectors left for later (as the extension or --defer-embedding leaves it). */
  const deferred = async (provider: string[]): Promise<{ ws: string; passages: number }> => {
    const ws = join(root, `ws${++n}`);
    mkdirSync(ws);
    const r = await cli(['index', '--library', LIB, '--workspace', ws, ...provider, '--defer-embedding', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { passages: number; semantic: { embedded: number; total: number } };
    assert.deepEqual(report.semantic, { embedded: 0, total: report.passages });
    return { ws, passages: report.passages };
  };
  const status = async (ws: string) =>
    JSON.parse((await cli(['status', '--workspace', ws, '--json'])).stdout) as { state: string; semantic?: { embedded: number; total: number } };

  before(() => {
    if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs']).status, 0);
    model = makeTestModel(join(root, 'tiny'), { layers: 1, hidden: 32, quantized: true, fp32: false });
    writeBeir(beir);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('analyze and search compute the missing vectors first, with progress on stderr; their output then has no "semantic"', async () => {
    const local = ['--provider', 'local', '--model', model];
    const { ws, passages } = await deferred(local);
    const a = await cli(['analyze', DRAFT, '--workspace', ws, ...local, '--json', '--no-cache']);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stderr, new RegExp(`${passages} of ${passages} passages have no vector of tiny yet: computing them before scoring`));
    assert.match(a.stderr, new RegExp(`semantic index 100% \\(${passages} of ${passages} passages embedded by tiny\\)`));
    assert.equal(JSON.parse(a.stdout).semantic, undefined);
    const st = await status(ws);
    assert.equal(st.state, 'ready');
    assert.equal(st.semantic, undefined);

    const other = await deferred(local);
    const s = await cli(['search', 'grain licences', '--workspace', other.ws, ...local, '--json']);
    assert.equal(s.code, 0, s.stderr);
    assert.match(s.stderr, /computing them before scoring/);
    const sr = JSON.parse(s.stdout) as { semantic?: unknown; results: unknown[] };
    assert.equal(sr.semantic, undefined);
    assert.ok(sr.results.length > 0);
    // Complete now: nothing more to compute, nothing said.
    const again = await cli(['search', 'grain licences', '--workspace', other.ws, ...local]);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr + again.stdout, /semantic|computing/);
  });

  it('--partial scores with the vectors there are and says so (text and --json: semantic { embedded, total })', async () => {
    const local = ['--provider', 'local', '--model', model];
    const { ws, passages } = await deferred(local);
    const sj = await cli(['search', 'grain licences', '--workspace', ws, ...local, '--partial', '--json']);
    assert.equal(sj.code, 0, sj.stderr);
    assert.deepEqual(JSON.parse(sj.stdout).semantic, { embedded: 0, total: passages });
    const st = await cli(['search', 'grain licences', '--workspace', ws, ...local, '--partial']);
    assert.match(st.stdout, new RegExp(`semantic index 0%: 0 of ${passages} passages have a vector of`));
    const aj = await cli(['analyze', DRAFT, '--workspace', ws, ...local, '--partial', '--json', '--no-cache']);
    assert.equal(aj.code, 0, aj.stderr);
    const semantic = JSON.parse(aj.stdout).semantic as { embedded: number; total: number };
    assert.deepEqual([semantic.embedded, semantic.total], [0, passages]);
    const at = await cli(['analyze', DRAFT, '--workspace', ws, ...local, '--partial', '--no-cache']);
    assert.match(at.stdout, /semantic index 0%/);
    assert.doesNotMatch(aj.stderr + at.stderr, /computing them before scoring/);
    assert.deepEqual((await status(ws)).semantic && [(await status(ws)).semantic!.embedded], [0]);
  });

  it('eval embeds the whole corpus before scoring; --partial reports the figures as partial', async () => {
    const local = ['--provider', 'local', '--model', model];
    const full = await cli(['eval', '--beir', beir, '--split', 'train', ...local, '--json']);
    assert.equal(full.code, 0, full.stderr);
    assert.match(full.stderr, /embedding 12\/12 passages/);
    const fr = JSON.parse(full.stdout);
    assert.equal(fr.semantic, undefined);
    assert.equal(fr.queries, 3);

    const pj = await cli(['eval', '--beir', beir, '--split', 'train', ...local, '--partial', '--json']);
    assert.equal(pj.code, 0, pj.stderr);
    assert.deepEqual(JSON.parse(pj.stdout).semantic, { embedded: 0, total: 12 });
    const pt = await cli(['eval', '--beir', beir, '--split', 'train', ...local, '--partial']);
    assert.equal(pt.code, 0, pt.stderr);
    assert.match(pt.stdout, /PARTIAL \(--partial\): only 0 of 12 passages had their vector/);
    assert.match(pt.stdout, /Similar \(partial\)/);
    assert.doesNotMatch(pt.stdout, /Similar Sources /);
  });

  it('a provider failing while the vectors are computed fails the command, keeps the lexical index and points to --partial', async () => {
    const MODEL = 'flaky-embedder';
    // The one-text probe is answered; batches of passages are not.
    const fakeVector = (t: string) => Array.from({ length: 8 }, (_, i) => ((t.length * (i + 1)) % 7) + 1);
    const server = await startFakeOpenAI({
      models: [MODEL],
      rawBody: (input) => (input.length > 1 ? 'upstream error' : JSON.stringify({ data: input.map((t, index) => ({ index, embedding: fakeVector(t) })) })),
    });
    try {
      const openai = ['--provider', 'openai', '--openai-url', server.url, '--openai-model', MODEL];
      const { ws, passages } = await deferred(openai);
      const r = await cli(['search', 'grain', '--workspace', ws, ...openai]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /computing their vectors stopped/);
      assert.match(r.stderr, /error: .*not JSON.*--partial scores with the vectors there are/);
      const p = await cli(['search', 'grain', '--workspace', ws, ...openai, '--partial', '--json']);
      assert.equal(p.code, 0, p.stderr);
      assert.deepEqual(JSON.parse(p.stdout).semantic, { embedded: 0, total: passages });
    } finally {
      await server.close();
    }
  });

  it('Ctrl-C while the vectors are computed keeps what was committed and scores nothing (search, eval)', async () => {
    const MODEL = 'slow-embedder';
    const server = await startFakeOpenAI({ models: [MODEL], latencyMs: 400 });
    try {
      const openai = ['--provider', 'openai', '--openai-url', server.url, '--openai-model', MODEL];
      const { ws, passages } = await deferred(openai);
      const s = await cliInterrupted(['search', 'grain', '--workspace', ws, ...openai, '--json'], /semantic index \d+% \(\d+ of/);
      assert.ok(s.interrupted, s.stderr);
      assert.equal(s.code, 130, s.stderr);
      assert.equal(s.stdout, '');
      const m = /cancelled: (\d+) of (\d+) passages have their vector now \(saved\); nothing was scored/.exec(s.stderr);
      assert.ok(m, s.stderr);
      assert.equal(Number(m[2]), passages);
      assert.ok(Number(m[1]) > 0 && Number(m[1]) < passages, s.stderr);
      const st = await status(ws);
      assert.equal(st.semantic?.embedded, Number(m[1]));

      // 60 passages: four calls of 16 to the slow server.
      const big = join(root, 'beir-big');
      writeBeir(big, 20);
      const evalWs = join(root, 'eval-ws');
      const e = await cliInterrupted(['eval', '--beir', big, '--split', 'train', '--workspace', evalWs, ...openai, '--json'], /embedding \d+\/60/);
      assert.ok(e.interrupted, e.stderr);
      assert.equal(e.code, 130, e.stderr);
      assert.equal(e.stdout, '');
      const kept = /evaluation cancelled after (\d+) of 60 passages were embedded; no figures were computed \(what was committed stays in/.exec(e.stderr);
      assert.ok(kept, e.stderr);
      // The next run goes on: only the passages without a vector are sent (besides the probe and the 3 queries).
      // (The fake server records a request when it answers it: the batch the cancel cut is recorded late.)
      await new Promise((r) => setTimeout(r, 800));
      const sent = server.requests.length;
      const resumed = await cli(['eval', '--beir', big, '--split', 'train', '--workspace', evalWs, ...openai, '--json']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(JSON.parse(resumed.stdout).semantic, undefined);
      const texts = server.requests.slice(sent).reduce((n, r) => n + (r.body.input as string[]).length, 0);
      assert.ok(Number(kept[1]) > 0, e.stderr);
      assert.equal(texts, 1 + (60 - Number(kept[1])) + 3);
    } finally {
      await server.close();
    }
  });
});
