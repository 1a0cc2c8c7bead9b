/**
 * Issue 39: the local cross-encoder reranker. Pairs tokenised as the model's tokenizer pairs
 * them (segments, truncation), scored by ONNX Runtime in a worker and equal to a plain session on
 * the same ids, batched or not; the order it gives; what a wrong or missing model says; an
 * analysis and an evaluation reranked by it. The model is the tests' generated BERT with a
 * classifier head (scripts/make-test-model.ts --classifier): random weights, so its scores mean
 * nothing, but its graph has a real reranker's inputs, head and output.
 */
import * as assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { makeTestModel } from '../../scripts/make-test-model';
import { longestFirst, loadTokenizer } from '../../src/core/embedding/local/tokenizer';
import { runBeirEval } from '../../src/core/eval/beir';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { CROSS_ENCODER_WORKER_FILE, CrossEncoder } from '../../src/core/rerank/crossEncoder';
import type { Reranker } from '../../src/core/analysis/rerank';
import { rerankerFor, namesCrossEncoder } from '../../src/engine/reranker';
import { startFakeHub } from '../support/fakeHub';
import { analyzeDocument, cachedAnalysis } from '../../src/core/analysis/analyze';
import { AnalysisCache } from '../../src/core/analysis/cache';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { updateIndex } from '../../src/core/index/write/indexer';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { writeFixtureLibrary } from '../support/pdfCorpus';

const DIST = resolve('dist');
const WORKER = join(DIST, CROSS_ENCODER_WORKER_FILE);
const QUERY = 'Grain licences in the Mediterranean: who could export wheat from Sicily, and at what price?';
const PASSAGES = [
  'The Sicilian tratta was a licence to export grain, sold by the viceroy to merchants and cities.',
  'Railway time was adopted in Britain long before the law required it.',
  'Les marchands génois achetaient les licences d’exportation du blé sicilien à prix d’or.',
  'Short.',
  'A long passage about the grain trade. '.repeat(80),
];

describe('local cross-encoder reranker (issue 39)', function () {
  this.timeout(120_000);
  let dir: string;
  let model: string;
  const open: CrossEncoder[] = [];
  const make = (o: Partial<ConstructorParameters<typeof CrossEncoder>[0]> = {}) => {
    const ce = new CrossEncoder({ model: 'tiny-reranker', modelDir: model, workerFile: WORKER, threads: 1, onnxFile: 'onnx/model.onnx', ...o });
    open.push(ce);
    return ce;
  };

  /** The scores of a plain ONNX Runtime session, one pair at a time, on the tokenizer's pair ids. */
  async function reference(onnxFile: string, query: string, passages: string[], maxTokens = 512): Promise<number[]> {
    const tok = loadTokenizer(model);
    const session = await ort.InferenceSession.create(join(model, onnxFile));
    const out: number[] = [];
    for (const p of passages) {
      const { ids, typeIds } = tok.encodePair(query, p, maxTokens);
      const t = (a: number[]) => new ort.Tensor('int64', BigInt64Array.from(a.map(BigInt)), [1, a.length]);
      const r = await session.run({ input_ids: t(ids), attention_mask: t(ids.map(() => 1)), token_type_ids: t(typeIds) });
      out.push((r.logits.data as Float32Array)[0]);
    }
    return out;
  }

  before(async () => {
    if (!existsSync(WORKER)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, `build failed: ${b.stderr}`);
    }
    dir = await fs.mkdtemp(join(tmpdir(), 'ss-rerank-'));
    model = makeTestModel(join(dir, 'tiny-reranker'), { layers: 2, hidden: 32, fp32: true, quantized: true, classifier: true });
  });
  after(async () => {
    await Promise.all(open.map((c) => c.close()));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('pairs a query and a passage as the model does: [CLS] q [SEP] p [SEP], segments 0 then 1, cut longest first', () => {
    const tok = loadTokenizer(model);
    const q = tok.encode('grain licences', 512).ids;
    const p = tok.encode('the sicilian tratta', 512).ids;
    const pair = tok.encodePair('grain licences', 'the sicilian tratta', 512);
    assert.deepEqual(pair.ids, [...q, ...p.slice(1)]);
    assert.deepEqual(pair.typeIds, [...q.map(() => 0), ...p.slice(1).map(() => 1)]);
    // Hugging Face's longest_first: the longer text is cut to what the shorter leaves; both to half when both are long.
    assert.deepEqual(longestFirst(10, 20, 100), [10, 20]);
    assert.deepEqual(longestFirst(10, 200, 100), [10, 90]);
    assert.deepEqual(longestFirst(200, 10, 100), [90, 10]);
    assert.deepEqual(longestFirst(80, 90, 101), [50, 51]);
    assert.deepEqual(longestFirst(90, 80, 101), [51, 50]);
    const long = tok.encodePair(PASSAGES[4], PASSAGES[4], 64);
    assert.equal(long.ids.length, 64);
    assert.equal(long.ids.filter((id) => id === 102).length, 2, 'both [SEP] kept');
  });

  it('scores each pair as a plain ONNX Runtime session does, batched (sorted, padded) or one by one', async () => {
    const ce = make({ maxBatch: 3 });
    const got = Array.from(await ce.score(QUERY, PASSAGES));
    const want = await reference('onnx/model.onnx', QUERY, PASSAGES);
    got.forEach((s, i) => assert.ok(Math.abs(s - want[i]) < 1e-4, `pair ${i}: ${s} vs ${want[i]}`));
    for (let i = 0; i < PASSAGES.length; i++) assert.ok(Math.abs((await ce.score(QUERY, [PASSAGES[i]]))[0] - got[i]) < 1e-4);
    assert.ok(new Set(got.map((s) => s.toFixed(3))).size > 3, 'the pairs get different scores');
  });

  it('the int8 export is run a pair at a time: a pair scores the same whatever is beside it', async () => {
    const ce = make({ onnxFile: 'onnx/model_quantized.onnx', maxBatch: 8 });
    const all = await ce.score(QUERY, PASSAGES);
    const want = await reference('onnx/model_quantized.onnx', QUERY, PASSAGES);
    Array.from(all).forEach((s, i) => assert.ok(Math.abs(s - want[i]) < 1e-4, `pair ${i}`));
  });

  it('reranks: candidates by score, best first, ties in the order given', async () => {
    const ce = make();
    const scores = await ce.score(QUERY, PASSAGES);
    const order = await ce.rerank(
      QUERY,
      PASSAGES.map((text, i) => ({ id: `c${i}`, text })),
    );
    const want = PASSAGES.map((_, i) => i)
      .sort((a, b) => scores[b] - scores[a] || a - b)
      .map((i) => `c${i}`);
    assert.deepEqual(order, want);
    assert.deepEqual(
      await ce.rerank(QUERY, [
        { id: 'a', text: 'same' },
        { id: 'b', text: 'same' },
      ]),
      ['a', 'b'],
    );
    assert.equal(await ce.unavailable(), undefined);
    assert.equal(ce.kind, 'cross-encoder');
  });

  it('a two-class head scores by its second class over its first', async () => {
    const two = makeTestModel(join(dir, 'two-class'), { layers: 1, hidden: 32, fp32: true, classifier: true, labels: 2 });
    const ce = make({ modelDir: two });
    const got = await ce.score(QUERY, PASSAGES.slice(0, 2));
    const session = await ort.InferenceSession.create(join(two, 'onnx/model.onnx'));
    const tok = loadTokenizer(two);
    for (let i = 0; i < 2; i++) {
      const { ids, typeIds } = tok.encodePair(QUERY, PASSAGES[i], 512);
      const t = (a: number[]) => new ort.Tensor('int64', BigInt64Array.from(a.map(BigInt)), [1, a.length]);
      const l = (await session.run({ input_ids: t(ids), attention_mask: t(ids.map(() => 1)), token_type_ids: t(typeIds) })).logits.data as Float32Array;
      assert.ok(Math.abs(got[i] - (l[1] - l[0])) < 1e-4);
    }
  });

  it('a cancel stops the scoring; the next call works', async () => {
    const ce = make();
    await ce.unavailable();
    const ac = new AbortController();
    const p = ce.score(
      QUERY,
      Array.from({ length: 200 }, (_, i) => `${PASSAGES[4]} ${i}`),
      ac.signal,
    );
    ac.abort();
    await assert.rejects(p, /cancelled/);
    assert.equal((await ce.score(QUERY, ['one more'])).length, 1);
  });

  it('says what is wrong: a folder without weights, an encoder instead of a reranker, no runner', async () => {
    const missing = make({ modelDir: join(dir, 'nowhere') });
    assert.match((await missing.unavailable()) ?? '', /tiny-reranker is not complete in .*nowhere \(missing tokenizer\.json, onnx\/model\.onnx\)/);
    const encoder = makeTestModel(join(dir, 'an-encoder'), { layers: 1, hidden: 32, fp32: true });
    const wrong = make({ modelDir: encoder });
    assert.match(
      (await wrong.unavailable()) ?? '',
      /could not be loaded: onnx\/model\.onnx has no "logits" output \(outputs: last_hidden_state\): not a cross-encoder/,
    );
    await assert.rejects(wrong.score(QUERY, ['x']), /has no "logits" output/);
    const noRunner = make({ workerFile: join(dir, 'no-worker.js') });
    assert.match((await noRunner.unavailable()) ?? '', /runner .* is missing: rebuild with "npm run build"/);
  });

  it('the engine takes a folder or an org/name repository for a cross-encoder, a bare name for Ollama; a repository not downloaded says how to get it', async () => {
    assert.deepEqual(['./models/reranker', '/abs/reranker', 'Xenova/ms-marco-MiniLM-L-6-v2', 'llama3.2', 'qwen2.5:7b'].map(namesCrossEncoder), [
      true,
      true,
      true,
      false,
      false,
    ]);
    const r = (await rerankerFor({ local: 'Xenova/ms-marco-MiniLM-L-6-v2', cacheDir: join(dir, 'cache') }))!;
    assert.equal(r.kind, 'cross-encoder');
    assert.match((await r.unavailable()) ?? '', /not downloaded \(similar-sources model download --model Xenova\/ms-marco-MiniLM-L-6-v2/);
    const local = (await rerankerFor({ local: model, onnxFile: 'onnx/model.onnx' }))!;
    assert.ok(local instanceof CrossEncoder);
    assert.equal(await rerankerFor({ local: model, onnxFile: 'onnx/model.onnx' }), local, 'one loaded model per folder and weights');
    // The setting changed to other weights: the first model is closed (its worker and memory freed), one is kept.
    let closed = 0;
    const close = local.close.bind(local);
    (local as { close(): Promise<void> }).close = () => (closed++, close());
    const other = (await rerankerFor({ local: model, onnxFile: 'onnx/model_quantized.onnx' })) as CrossEncoder;
    assert.ok(other instanceof CrossEncoder && other !== local);
    assert.equal(closed, 1, 'the replaced reranker is closed');
    assert.equal(await rerankerFor({ local: model, onnxFile: 'onnx/model_quantized.onnx' }), other);
    assert.notEqual(await rerankerFor({ local: model, onnxFile: 'onnx/model.onnx' }), local, 'the closed one is not handed out again');
    const ollama = (await rerankerFor({ model: 'llama3.2', host: 'http://127.0.0.1:9' }))!;
    assert.match(ollama.description, /^Ollama llama3\.2/);
  });

  it('a reopened draft gets its reranked results from the cache without the model being loaded to key them', async () => {
    const ws = await fs.mkdtemp(join(dir, 'ws-'));
    await writeFixtureLibrary(join(ws, 'library'));
    const { inputs } = await libraryInputs({ folders: [join(ws, 'library')], baseDir: ws });
    await updateIndex(inputs, { workspace: ws, provider: new EmbeddedProvider() });
    const draft = '# Grain\n\nThe viceroys of Sicily sold export licences for grain, and Genoese merchants speculated on them.\n';
    const ctx = { workspace: ws, documentPath: 'draft.md', cache: new AnalysisCache(ws) };
    const analysed = await analyzeDocument(
      draft,
      { useReranking: 'on' },
      { ...ctx, index: await LibraryIndex.open(ws, new EmbeddedProvider()), reranker: make() },
    );
    assert.ok(analysed.reranking.used && analysed.segments.some((x) => x.recommendations.some((r) => r.reranked)), 'the cards were reranked');
    // As the extension restores a reopened draft: a fresh reranker for the same model, not loaded yet.
    const fresh = make();
    let loads = 0;
    const unavailable = fresh.unavailable.bind(fresh);
    fresh.unavailable = (signal) => (loads++, unavailable(signal));
    const manifest = (await readManifest(indexDir(ws)))!;
    const restore = { ...ctx, fingerprint: manifest.fingerprint, model: new EmbeddedProvider().key };
    const restored = await cachedAnalysis(draft, { useReranking: 'on' }, { ...restore, reranker: fresh });
    assert.ok(restored?.fromCache, 'a complete cache hit');
    assert.deepEqual(
      restored.segments.map((x) => x.recommendations),
      analysed.segments.map((x) => x.recommendations),
    );
    assert.equal(loads, 0, 'the model was not loaded to key the cache');
    // A reranker whose weights are gone cannot have made those results: they are not served as its.
    const gone = make({ modelDir: join(dir, 'no-such-model') });
    assert.equal(await cachedAnalysis(draft, { useReranking: 'on' }, { ...restore, reranker: gone }), undefined);
  });

  it('eval: the ranking reordered by a reranker is scored beside the others, with its time a query', async () => {
    const beir = join(dir, 'beir');
    await fs.mkdir(join(beir, 'qrels'), { recursive: true });
    const docs = Array.from({ length: 30 }, (_, i) => ({ _id: `d${i}`, title: `Doc ${i}`, text: `grain licence port ${i % 5} merchants ${i}` }));
    await fs.writeFile(join(beir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n'));
    const queries = Array.from({ length: 6 }, (_, i) => ({ _id: `q${i}`, text: `grain licence port ${i % 5}` }));
    await fs.writeFile(join(beir, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n'));
    const rel = queries.map((q, i) => [q._id, `d${25 + (i % 5)}`] as const);
    await fs.writeFile(join(beir, 'qrels', 'test.tsv'), ['query-id\tcorpus-id\tscore', ...rel.map(([q, d]) => `${q}\t${d}\t1`)].join('\n'));
    // An oracle that puts the judged document first shows the reordering is what is scored.
    const wanted = new Map(rel.map(([q, d]) => [queries.find((x) => x._id === q)!.text, d]));
    const oracle: Reranker = {
      description: 'an oracle',
      unavailable: async () => undefined,
      rerank: async (query, cands) => {
        const d = wanted.get(query);
        return [...cands.filter((c) => c.id === d), ...cands.filter((c) => c.id !== d)].map((c) => c.id);
      },
    };
    const r = await runBeirEval({ dir: beir, split: 'test', provider: new EmbeddedProvider(), reranker: oracle, rerankTop: 30 });
    assert.ok(r.reranked, 'reranked figures');
    assert.equal(r.reranked['mrr@10'], 1);
    assert.ok(r['mrr@10'] < 1, `the retrieval order alone is not perfect here (${r['mrr@10']})`);
    assert.deepEqual([r.reranked.top, r.reranked.reranker], [30, 'an oracle']);
    assert.ok(r.reranked.msPerQuery.p95 >= r.reranked.msPerQuery.median);
    const real = await runBeirEval({ dir: beir, split: 'test', provider: new EmbeddedProvider(), reranker: make(), rerankTop: 5 });
    assert.equal(real.reranked?.top, 5);
    assert.equal(real['recall@100'], real.reranked?.['recall@100'], 'reordering the top 5 changes no recall at 100');
    const none = await runBeirEval({ dir: beir, split: 'test', provider: new EmbeddedProvider() });
    assert.equal(none.reranked, undefined);
  });

  it('analyze --rerank-model <folder>: the cards of each paragraph reordered by it and marked; a folder that is not one says why', async () => {
    const ws = join(dir, 'ws');
    const cli = (...a: string[]) =>
      spawnSync(process.execPath, [join(DIST, 'cli.js'), 'analyze', 'examples/draft.md', '--workspace', ws, '--library', 'examples/library', '--json', ...a], {
        encoding: 'utf8',
      });
    const plain = cli('--no-rerank');
    assert.equal(plain.status, 0, plain.stderr);
    const r = cli('--rerank-model', model, '--rerank-onnx-file', 'onnx/model.onnx', '--no-cache');
    assert.equal(r.status, 0, r.stderr);
    const before = JSON.parse(plain.stdout) as { segments: Array<{ recommendations: Array<{ sourceId: string; reranked: boolean }> }> };
    const after = JSON.parse(r.stdout) as typeof before & { reranking: { used: boolean; mode: string } };
    assert.deepEqual([after.reranking.used, after.reranking.mode], [true, 'on']);
    const ids = (x: typeof before) => x.segments.map((g) => g.recommendations.map((c) => c.sourceId).join(' '));
    assert.ok(after.segments.every((g) => g.recommendations.length < 2 || g.recommendations.every((c) => c.reranked)));
    assert.notDeepEqual(ids(after), ids(before), 'the random reranker reorders some cards');
    const bad = cli('--rerank-model', join(dir, 'nowhere'), '--no-cache');
    assert.equal(bad.status, 0, bad.stderr);
    assert.match(bad.stderr, /reranking skipped: the reranker folder .*nowhere lacks config\.json.*; retrieval order kept/);
    const evalBad = spawnSync(process.execPath, [join(DIST, 'cli.js'), 'eval', '--beir', join(dir, 'beir'), '--rerank-model', 'llama3.2'], {
      encoding: 'utf8',
    });
    assert.equal(evalBad.status, 2);
    assert.match(evalBad.stderr, /eval reranks with a local cross-encoder: --rerank-model takes its folder or its repository id/);
  });

  it('a reranker repository is downloaded from the Hub as the encoder is (model download), then eval uses it by its id', async () => {
    const repoModel = makeTestModel(join(dir, 'hub-reranker'), { layers: 1, hidden: 32, quantized: true, fp32: false, classifier: true });
    const files: Record<string, Uint8Array> = {};
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx'])
      files[f] = await fs.readFile(join(repoModel, f));
    const REPO = 'Xenova/ms-marco-MiniLM-L-6-v2';
    const hub = await startFakeHub({ repos: { [REPO]: files } });
    const cache = join(dir, 'hub-cache');
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((res) =>
        execFile(process.execPath, [join(DIST, 'cli.js'), ...args], { env: { ...process.env, HF_ENDPOINT: hub.url }, timeout: 120_000 }, (e, stdout, stderr) =>
          res({ code: e ? ((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    try {
      const before = await run(['eval', '--beir', join(dir, 'beir'), '--rerank-model', REPO, '--cache-dir', cache]);
      assert.equal(before.code, 2, before.stderr);
      assert.match(before.stderr, /not downloaded \(similar-sources model download --model Xenova\/ms-marco-MiniLM-L-6-v2/);
      const dl = await run(['model', 'download', '--model', REPO, '--cache-dir', cache]);
      assert.equal(dl.code, 0, dl.stderr);
      const ev = await run(['eval', '--beir', join(dir, 'beir'), '--rerank-model', REPO, '--cache-dir', cache, '--json']);
      assert.equal(ev.code, 0, ev.stderr);
      const r = JSON.parse(ev.stdout) as { reranked?: { reranker: string; top: number } };
      assert.deepEqual([r.reranked?.reranker, r.reranked?.top], [`the local reranker ${REPO}`, 20]);
    } finally {
      await hub.close();
    }
  });
});
