import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { makeTestModel } from '../../scripts/make-test-model';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { LOCAL_WORKER_FILE, LocalProvider } from '../../src/core/embedding/local/localProvider';
import { loadTokenizer } from '../../src/core/embedding/local/tokenizer';
import { ProviderError } from '../../src/core/embedding/provider';
import { createProvider } from '../../src/core/embedding/providerFactory';
import { updateIndex } from '../../src/core/index/write/indexer';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { writeFixtureLibrary } from '../support/pdfCorpus';

const DIST = resolve('dist');
const WORKER = join(DIST, LOCAL_WORKER_FILE);

const TEXTS = [
  'The Annales school was founded in Strasbourg in 1929.',
  'Braudel',
  "L'économie médiévale à Paris et la longue durée selon Fernand Braudel, dans un article assez long pour que le lot soit rembourré.",
  'Climate and harvests in the Little Ice Age.',
  'x',
  'Grain licences in Sicily under the Spanish crown, 1550–1650, and what the tax records say about yields.',
];

/** Plain reference: the same ONNX file run here, one text at a time, pooled and normalised by hand. */
async function reference(modelDir: string, onnxFile: string, texts: string[], pooling: 'mean' | 'cls', maxTokens = 512): Promise<Float64Array[]> {
  const session = await ort.InferenceSession.create(join(modelDir, onnxFile));
  const tok = loadTokenizer(modelDir);
  const out: Float64Array[] = [];
  for (const t of texts) {
    const ids = tok.encode(t, maxTokens).ids;
    const n = ids.length;
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, n]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(n), [1, n]),
    };
    const h = (await session.run(feeds)).last_hidden_state;
    const dim = h.dims[2];
    const data = h.data as Float32Array;
    const v = new Float64Array(dim);
    if (pooling === 'cls') for (let d = 0; d < dim; d++) v[d] = data[d];
    else for (let i = 0; i < n; i++) for (let d = 0; d < dim; d++) v[d] += data[i * dim + d] / n;
    const norm = Math.hypot(...v);
    out.push(v.map((x) => x / norm));
  }
  await session.release();
  return out;
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

describe('LocalProvider (ONNX model in a worker thread, on a generated tiny BERT)', function () {
  this.timeout(120_000);
  let dir: string;
  let model: string;
  const providers: LocalProvider[] = [];
  const make = (o: Partial<ConstructorParameters<typeof LocalProvider>[0]> = {}) => {
    const p = new LocalProvider({ model: 'tiny-bert', modelDir: model, workerFile: WORKER, threads: 1, spec: { onnxFile: 'onnx/model.onnx' }, ...o });
    providers.push(p);
    return p;
  };

  /** A folder holding a stand-in worker bundle and a runtime binding for this platform (never loaded: the stand-in does not). */
  const standIn = async (name: string, source: string) => {
    const at = join(dir, name);
    await fs.mkdir(join(at, 'onnxruntime', process.platform, process.arch), { recursive: true });
    await fs.writeFile(join(at, 'onnxruntime', process.platform, process.arch, 'onnxruntime_binding.node'), '');
    await fs.writeFile(join(at, LOCAL_WORKER_FILE), source);
    return at;
  };

  before(async () => {
    if (!existsSync(WORKER)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, `build failed: ${b.stderr}`);
    }
    dir = await fs.mkdtemp(join(tmpdir(), 'ss-local-'));
    model = makeTestModel(join(dir, 'tiny-bert'), { layers: 2, hidden: 32, fp32: true, quantized: true });
  });
  after(async () => {
    await Promise.all(providers.map((p) => p.close()));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('mean pooling and normalisation equal a plain reference on the same model outputs', async () => {
    const p = make();
    assert.equal(await p.dimension(), 32);
    const got = await p.embed(TEXTS);
    const want = await reference(model, 'onnx/model.onnx', TEXTS, 'mean');
    got.forEach((v, i) => assert.ok(maxDiff(v, want[i]) < 1e-5, `text ${i}: ${maxDiff(v, want[i])}`));
    for (const v of got) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, 'L2-normalised');
  });

  it('CLS pooling equals the reference too', async () => {
    const p = make({ spec: { onnxFile: 'onnx/model.onnx', pooling: 'cls' } });
    const got = await p.embed(TEXTS);
    const want = await reference(model, 'onnx/model.onnx', TEXTS, 'cls');
    got.forEach((v, i) => assert.ok(maxDiff(v, want[i]) < 1e-5, `text ${i}`));
  });

  it('gives the same vectors batched (sorted by length, padded) as one by one, in the order asked', async () => {
    const p = make({ maxBatch: 4 });
    const batched = await p.embed(TEXTS);
    for (let i = 0; i < TEXTS.length; i++) {
      const [alone] = await p.embed([TEXTS[i]]);
      assert.ok(maxDiff(batched[i], alone) < 1e-5, `text ${i}`);
    }
    // Small requests to the worker (the cancel granularity) change nothing either.
    const split = await make({ requestSize: 2 }).embed(TEXTS);
    split.forEach((v, i) => assert.ok(maxDiff(v, batched[i]) < 1e-5));
  });

  it('int8 (DynamicQuantizeLinear) export: a text gets the same vector whatever its batch (one text per run)', async () => {
    // The activations' int8 scale is computed over the whole input tensor: batched, a text's
    // vector would depend on its neighbours (cosine 0.98-0.99 on the real models).
    const p = make({ spec: { onnxFile: 'onnx/model_quantized.onnx' }, maxBatch: 8 });
    const batched = await p.embed(TEXTS);
    for (let i = 0; i < TEXTS.length; i++) {
      const [alone] = await p.embed([TEXTS[i]]);
      assert.ok(maxDiff(batched[i], alone) < 1e-6, `text ${i}: ${maxDiff(batched[i], alone)}`);
    }
    const want = await reference(model, 'onnx/model_quantized.onnx', TEXTS, 'mean');
    batched.forEach((v, i) => assert.ok(maxDiff(v, want[i]) < 1e-5, `text ${i} vs a plain run`));
  });

  it('is deterministic across workers, and the int8 (MatMulInteger) export loads and gives unit vectors', async () => {
    const a = await make().embed(TEXTS);
    const b = await make().embed(TEXTS);
    a.forEach((v, i) => assert.deepEqual(v, b[i]));
    const q = await make({ spec: { onnxFile: 'onnx/model_quantized.onnx' } }).embed(TEXTS);
    for (const v of q) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    // Close to the fp32 model's vectors (same random weights up to int8 rounding): not noise.
    const cos = q.map((v, i) => v.reduce((s, x, d) => s + x * a[i][d], 0));
    assert.ok(
      cos.every((c) => c > 0.5),
      `cosines ${cos.map((c) => c.toFixed(2))}`,
    );
  });

  it('applies the query and passage prefixes by kind', async () => {
    const p = make({ spec: { onnxFile: 'onnx/model.onnx', queryPrefix: 'query: ', passagePrefix: 'passage: ' } });
    const plain = make();
    const [q] = await p.embed(['grain licences'], { kind: 'query' });
    const [d] = await p.embed(['grain licences'], { kind: 'passage' });
    const [d2] = await p.embed(['grain licences']);
    const [refQ, refD] = await plain.embed(['query: grain licences', 'passage: grain licences']);
    assert.ok(maxDiff(q, refQ) < 1e-5);
    assert.ok(maxDiff(d, refD) < 1e-5);
    assert.ok(maxDiff(d2, refD) < 1e-5, 'passages by default');
    assert.ok(maxDiff(q, d) > 1e-3);
    // The known-model table gives E5's prefixes to a folder named like it.
    const e5 = new LocalProvider({ model: 'multilingual-e5-small', modelDir: model, workerFile: WORKER });
    assert.equal(e5.spec.queryPrefix, 'query: ');
    assert.equal(e5.key, 'local-multilingual-e5-small');
  });

  it('embeds a query also as a passage and averages the two when the model says so', async () => {
    const spec = { onnxFile: 'onnx/model.onnx', queryPrefix: 'query: ', passagePrefix: 'passage: ' };
    const p = make({ spec: { ...spec, queryAlsoAsPassage: true } });
    const plain = make();
    const texts = ['grain licences', TEXTS[2]];
    const qs = await p.embed(texts, { kind: 'query' });
    const refs = await plain.embed(texts.flatMap((t) => [`query: ${t}`, `passage: ${t}`]));
    texts.forEach((_, i) => {
      const mean = refs[2 * i].map((x, d) => (x + refs[2 * i + 1][d]) / 2);
      const norm = Math.hypot(...mean);
      assert.ok(
        maxDiff(
          qs[i],
          mean.map((x) => x / norm),
        ) < 1e-5,
        `query ${i}`,
      );
    });
    // Passages are embedded once, as before; the query vectors get a key of their own.
    const [d] = await p.embed(['grain licences'], { kind: 'passage' });
    assert.ok(maxDiff(d, refs[1]) < 1e-5);
    const once = make({ spec });
    assert.equal(p.key, once.key);
    assert.notEqual(p.queryKey, once.queryKey);
    // The default model's table entry asks for it; the English e5 keeps one query vector.
    assert.equal(new LocalProvider({ model: 'multilingual-e5-small', modelDir: model, workerFile: WORKER }).spec.queryAlsoAsPassage, true);
    assert.notEqual(new LocalProvider({ model: 'e5-small-v2', modelDir: model, workerFile: WORKER }).spec.queryAlsoAsPassage, true);
  });

  it('truncates long texts at the model’s max tokens instead of failing', async () => {
    const p = make({ spec: { onnxFile: 'onnx/model.onnx', maxTokens: 16 } });
    const long = TEXTS.join(' ').repeat(50);
    const [v] = await p.embed([long]);
    const [want] = await reference(model, 'onnx/model.onnx', [long], 'mean', 16);
    assert.ok(maxDiff(v, want) < 1e-5);
  });

  it('cancels between requests and stays usable', async () => {
    const p = make({ requestSize: 1 });
    await p.dimension();
    const ac = new AbortController();
    const many = Array.from({ length: 200 }, (_, i) => `${TEXTS[i % TEXTS.length]} ${i}`);
    const run = p.embed(many, { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    const e = await run.then(
      () => undefined,
      (x: unknown) => x as ProviderError,
    );
    assert.ok(e instanceof ProviderError, 'rejected');
    assert.equal(e.reason, 'aborted');
    assert.equal((await p.embed(['again'])).length, 1);
  });

  it('serves a query before passages already waiting in the worker (background embedding never holds a search back)', async () => {
    const p = make();
    await p.dimension();
    const long = (n: number) => Array.from({ length: n }, (_, i) => `${TEXTS[i % TEXTS.length]} ${i} ${'archives '.repeat(40)}`);
    const order: string[] = [];
    // Two passage requests: the first runs, the second waits; the query arrives last.
    const a = p.embed(long(32), { kind: 'passage' }).then(() => order.push('passages A'));
    const b = p.embed(long(32), { kind: 'passage' }).then(() => order.push('passages B'));
    const q = p.embed(['a query'], { kind: 'query' }).then(() => order.push('query'));
    await Promise.all([a, b, q]);
    assert.deepEqual(order, ['passages A', 'query', 'passages B']);
  });

  it('reports a crashed worker with a clear error; a later call starts a new worker', async () => {
    // A stand-in worker that loads "fine", then dies on the first request, as a native crash would.
    const crashing = join(
      await standIn(
        'crash-after-load',
        "const { parentPort } = require('node:worker_threads');\nparentPort.postMessage({ type: 'ready', dimension: 32, loadMs: 1 });\nparentPort.on('message', () => process.exit(7));\n",
      ),
      LOCAL_WORKER_FILE,
    );
    const p = make({ workerFile: crashing });
    const e = await p.embed(['a']).then(
      () => undefined,
      (x: unknown) => x as ProviderError,
    );
    assert.ok(e instanceof ProviderError);
    assert.match(e.message, /local model "tiny-bert" .* failed: its worker stopped unexpectedly \(exit code 7\)\. .*switch the provider to "embedded"/);
    const again = await p.embed(['b']).then(
      () => undefined,
      (x: unknown) => x as ProviderError,
    );
    assert.match(again!.message, /exit code 7/);
  });

  it('says what is wrong with a broken or incomplete model folder', async () => {
    const broken = join(dir, 'broken');
    await fs.cp(model, broken, { recursive: true });
    await fs.writeFile(join(broken, 'onnx/model.onnx'), 'not an onnx file');
    const e = await make({ modelDir: broken })
      .dimension()
      .then(
        () => undefined,
        (x: unknown) => x as ProviderError,
      );
    assert.ok(e instanceof ProviderError);
    assert.equal(e.reason, 'unknown-model');
    assert.match(e.message, /could not load it: .*Check the model folder/);
    await fs.rm(join(broken, 'tokenizer.json'));
    await assert.rejects(make({ modelDir: broken }).dimension(), /is not complete in .*missing tokenizer\.json/);
  });

  it('the factory loads it, falls back to the embedded model when it cannot, and `auto` picks it only when installed', async () => {
    const ok = await createProvider({ provider: 'local', localModel: model, workerDir: DIST });
    assert.equal(ok.provider.id, 'local');
    assert.equal(ok.provider.key, 'local-tiny-bert');
    assert.equal(await ok.provider.dimension(), 32);
    await (ok.provider as LocalProvider).close();

    const crashDir = await standIn('crash-on-load', 'process.exit(9);\n');
    const warnings: string[] = [];
    const fb = await createProvider(
      { provider: 'local', localModel: model, workerDir: crashDir },
      { fallbackToEmbedded: true, onWarning: (w) => warnings.push(w) },
    );
    assert.ok(fb.provider instanceof EmbeddedProvider);
    assert.match(fb.warning!, /stopped unexpectedly \(exit code 9\).*Using the embedded offline model instead\./);
    assert.deepEqual(warnings, [fb.warning]);
    await assert.rejects(createProvider({ provider: 'local', localModel: model, workerDir: crashDir }), /exit code 9/);

    const missing = await createProvider(
      { provider: 'local', localModel: 'Xenova/gte-small', modelCacheDir: join(dir, 'empty-cache'), workerDir: DIST },
      { fallbackToEmbedded: true },
    );
    assert.ok(missing.provider instanceof EmbeddedProvider);
    assert.match(missing.warning!, /"Xenova\/gte-small" is not downloaded.*model download --model Xenova\/gte-small/);

    const autoNone = await createProvider({ provider: 'auto', modelCacheDir: join(dir, 'empty-cache') });
    assert.ok(autoNone.provider instanceof EmbeddedProvider);
    assert.equal(autoNone.warning, undefined);
    const autoLocal = await createProvider({ provider: 'auto', localModel: model, workerDir: DIST });
    assert.equal(autoLocal.provider.id, 'local');
    await (autoLocal.provider as LocalProvider).close();
  });

  it('indexes a library, keeps vectors per local model (switching model and back does not re-embed) and searches', async () => {
    const other = makeTestModel(join(dir, 'tiny-bert-b'), { layers: 1, hidden: 32, seed: 2 });
    const lib = join(dir, 'library');
    await writeFixtureLibrary(lib);
    const { inputs } = await libraryInputs({ folders: [lib], baseDir: dir });
    const a = () => make();
    const b = make({ model: 'tiny-bert-b', modelDir: other });
    const first = await updateIndex(inputs, { workspace: dir, provider: a() });
    assert.ok(first.embedded > 0);
    assert.equal((await updateIndex(inputs, { workspace: dir, provider: b })).embedded, first.embedded);
    assert.equal((await updateIndex(inputs, { workspace: dir, provider: a() })).embedded, 0, 'model A came back: nothing re-embedded');
    const m = (await readManifest(indexDir(dir)))!;
    // One vector set per model (keys name the fp32 file, chosen beside the folder's default int8 one).
    assert.deepEqual(Object.keys(m.vectors).sort(), [a().key, b.key].sort());
    assert.match(a().key, /^local-tiny-bert-w[0-9a-f]{8}$/);
    const hits = await (await LibraryIndex.open(dir, a())).search('history of the Annales', { k: 3 });
    assert.ok(hits.length > 0);
  });
});
