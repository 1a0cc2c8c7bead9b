import * as assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LocalProvider } from '../../src/core/embedding/local/localProvider';
import { createProvider } from '../../src/core/embedding/providerFactory';
import { OllamaProvider } from '../../src/core/embedding/ollamaProvider';
import { OpenAIProvider } from '../../src/core/embedding/openaiProvider';
import { servedModelBase, servedModelPrefixes } from '../../src/core/embedding/servedModels';
import { providerConfigOf } from '../../src/engine/provider';
import { defaultSettings } from '../../src/shared/settings';
import { startFakeOllama } from '../support/fakeOllama';
import { startFakeOpenAI } from '../support/fakeOpenAI';

const E5 = { query: 'query: ', passage: 'passage: ' };
const BGE = { query: 'Represent this sentence for searching relevant passages: ', passage: '' };
const NOMIC = { query: 'search_query: ', passage: 'search_document: ' };

describe('served models: query/passage prefixes for ollama and openai', function () {
  this.timeout(60_000);
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => Promise.all(closers.splice(0).map((c) => c())));
  const openai = async (models: string[]) => {
    const s = await startFakeOpenAI({ models });
    closers.push(s.close);
    return s;
  };
  const ollama = async (models: string[]) => {
    const s = await startFakeOllama({ models });
    closers.push(() => s.close());
    return s;
  };

  it('matches a served model name loosely against the known models', () => {
    for (const name of [
      'intfloat/multilingual-e5-small',
      'multilingual-e5-small',
      'Xenova/multilingual-e5-small',
      'jeffh/intfloat-multilingual-e5-small:f16',
      'multilingual-e5-small-Q8_0.gguf',
      'intfloat/e5-base-v2',
      'multilingual-e5-large:latest',
    ]) {
      assert.deepEqual(servedModelPrefixes(name), E5, name);
    }
    for (const name of [
      'bge-small-en-v1.5',
      'BAAI/bge-small-en-v1.5',
      'Xenova/bge-small-en-v1.5',
      'bge-large-en-v1.5:f16',
      'mxbai-embed-large',
      'mixedbread-ai/mxbai-embed-large-v1',
      'mxbai-embed-large:335m',
    ]) {
      assert.deepEqual(servedModelPrefixes(name), BGE, name);
    }
    for (const name of [
      'nomic-embed-text',
      'nomic-embed-text:latest',
      'nomic-embed-text:v1.5',
      'nomic-ai/nomic-embed-text-v1.5',
      'nomic-embed-text-v1.5.f16.gguf',
    ]) {
      assert.deepEqual(servedModelPrefixes(name), NOMIC, name);
    }
    // Known to the local table, without prefixes.
    assert.deepEqual(servedModelPrefixes('thenlper/gte-small'), { query: '', passage: '' });
    // Unknown, another format (the instruct e5 takes a different query template), or a mere look-alike.
    for (const name of ['text-embedding-3-small', 'intfloat/multilingual-e5-large-instruct', 'bge-m3', 'mymultilingual-e5-small', 'all-minilm:l6-v2', '']) {
      assert.equal(servedModelPrefixes(name), undefined, name);
    }
    assert.equal(servedModelBase('hf.co/user/Multilingual-E5-Small-GGUF:Q4_K_M'), 'multilingual-e5-small');
  });

  it('openai: the server sees queries and passages each with its prefix, the documented ones by default', async () => {
    const model = 'intfloat/multilingual-e5-small';
    const s = await openai([model]);
    const p = new OpenAIProvider({ baseUrl: s.url, model });
    await p.embed(['q'], { kind: 'query' });
    await p.embed(['d1', 'd2'], { kind: 'passage' });
    assert.deepEqual(
      s.requests.map((r) => r.body.input),
      [['query: q'], ['passage: d1', 'passage: d2']],
    );

    // Explicit prefixes win; an explicit '' means none.
    const none = new OpenAIProvider({ baseUrl: s.url, model, queryPrefix: '', passagePrefix: '' });
    await none.embed(['q'], { kind: 'query' });
    await none.embed(['d'], { kind: 'passage' });
    const custom = new OpenAIProvider({ baseUrl: s.url, model, queryPrefix: 'Q> ', passagePrefix: 'P> ' });
    await custom.embed(['q'], { kind: 'query' });
    await custom.embed(['d'], { kind: 'passage' });
    assert.deepEqual(
      s.requests.slice(2).map((r) => r.body.input),
      [['q'], ['d'], ['Q> q'], ['P> d']],
    );

    // The passage prefix names the stored vectors; no prefix keeps the key of before (no re-embedding).
    assert.match(none.key, /^openai-intfloat_multilingual-e5-small_127\.0\.0\.1_\d+$/);
    assert.equal(none.queryKey, none.key);
    assert.notEqual(p.key, none.key);
    assert.notEqual(custom.key, p.key);
    assert.ok(p.key.startsWith(none.key));
    // The query prefix names the analyses (cache), not the vectors.
    const otherQuery = new OpenAIProvider({ baseUrl: s.url, model, queryPrefix: 'Q> ' });
    assert.equal(otherQuery.key, p.key);
    assert.notEqual(otherQuery.queryKey, p.queryKey);
    assert.equal(new OpenAIProvider({ baseUrl: s.url, model }).queryKey, p.queryKey);
  });

  it('ollama: defaults from the model name (an Ollama tag), overridable; nomic-embed-text keeps its key', async () => {
    const model = 'jeffh/intfloat-multilingual-e5-small:f16';
    const s = await ollama([model, 'bge-small-en-v1.5', 'nomic-embed-text']);
    const p = new OllamaProvider({ host: s.url, model });
    await p.embed(['q'], { kind: 'query' });
    await p.embed(['d'], { kind: 'passage' });
    const bge = new OllamaProvider({ host: s.url, model: 'bge-small-en-v1.5' });
    await bge.embed(['q'], { kind: 'query' });
    await bge.embed(['d'], { kind: 'passage' });
    const none = new OllamaProvider({ host: s.url, model, queryPrefix: '', passagePrefix: '' });
    await none.embed(['q'], { kind: 'query' });
    await none.embed(['d'], { kind: 'passage' });
    const embeds = s.requests.filter((r) => r.path === '/api/embed').map((r) => r.body.input);
    assert.deepEqual(embeds, [['query: q'], ['passage: d'], [BGE.query + 'q'], ['d'], ['q'], ['d']]);

    assert.equal(none.key, 'ollama-jeffh_intfloat-multilingual-e5-small_f16');
    assert.notEqual(p.key, none.key);
    // bge has no passage prefix: its vectors keep the key they had; the query instruction names its analyses.
    assert.equal(bge.key, 'ollama-bge-small-en-v1.5');
    assert.notEqual(bge.queryKey, bge.key);
    // nomic-embed-text had its prefixes before they could be set: vectors and cached analyses stay valid.
    const nomic = new OllamaProvider({ host: s.url });
    assert.equal(nomic.key, 'ollama-nomic-embed-text');
    assert.equal(nomic.queryKey, nomic.key);
    assert.notEqual(new OllamaProvider({ host: s.url, passagePrefix: '' }).key, nomic.key);
  });

  it("local: a prefix override other than the table's names other vectors (key) and analyses (queryKey)", () => {
    const make = (spec: { queryPrefix?: string; passagePrefix?: string } = {}) =>
      new LocalProvider({ model: 'Xenova/multilingual-e5-small', modelDir: '/nonexistent', spec });
    const plain = make();
    assert.equal(plain.key, 'local-xenova_multilingual-e5-small');
    // Its queries are embedded twice (queryAlsoAsPassage): analyses cached before that are not reused.
    assert.notEqual(plain.queryKey, plain.key);
    // The table's own prefixes, given explicitly, are the same model.
    assert.equal(make({ queryPrefix: 'query: ', passagePrefix: 'passage: ' }).queryKey, plain.queryKey);
    const noPassage = make({ passagePrefix: '' });
    assert.notEqual(noPassage.key, plain.key);
    const otherQuery = make({ queryPrefix: 'q: ' });
    assert.equal(otherQuery.key, plain.key);
    assert.notEqual(otherQuery.queryKey, plain.queryKey);
  });

  it('local: other weights in the same folder (the fp32 export beside the int8 one) name other vectors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-weights-'));
    mkdirSync(join(dir, 'onnx'));
    const make = (onnxFile?: string, modelDir = dir) => new LocalProvider({ model: 'Xenova/bge-small-en-v1.5', modelDir, spec: onnxFile ? { onnxFile } : {} });
    // A folder with only the fp32 file: one model, its key as before.
    writeFileSync(join(dir, 'onnx', 'model.onnx'), '');
    assert.equal(make('onnx/model.onnx').key, 'local-xenova_bge-small-en-v1.5');
    writeFileSync(join(dir, 'onnx', 'model_quantized.onnx'), '');
    assert.equal(make().key, 'local-xenova_bge-small-en-v1.5');
    assert.equal(make('onnx/model_quantized.onnx').key, make().key, 'the default file, named, is the same model');
    const fp32 = make('onnx/model.onnx');
    assert.notEqual(fp32.key, make().key);
    assert.notEqual(fp32.queryKey, make().queryKey);
  });

  it('settings: "auto" is the model\'s own prefix, "" none, anything else that text, through createProvider', async () => {
    const model = 'multilingual-e5-small';
    const s = await openai([model]);
    const o = await ollama([model]);
    const settings = { ...defaultSettings(), openaiBaseUrl: s.url, openaiModel: model, ollamaHost: o.url, ollamaModel: model };
    assert.equal(settings.openaiQueryPrefix, 'auto');
    const cfg = (over: Partial<typeof settings>) => providerConfigOf({ ...settings, ...over });
    assert.equal(cfg({}).openaiQueryPrefix, undefined);
    assert.equal(cfg({ openaiPassagePrefix: '' }).openaiPassagePrefix, '');

    const auto = (await createProvider(cfg({ provider: 'openai' }))).provider;
    await auto.embed(['x'], { kind: 'query' });
    const custom = (await createProvider(cfg({ provider: 'openai', openaiQueryPrefix: 'find: ', openaiPassagePrefix: '' }))).provider;
    await custom.embed(['x'], { kind: 'query' });
    await custom.embed(['y'], { kind: 'passage' });
    // The first request of each is the dimension probe (a query).
    assert.deepEqual(
      s.requests.map((r) => r.body.input),
      [['query: dimension probe'], ['query: x'], ['find: dimension probe'], ['find: x'], ['y']],
    );

    const ol = (await createProvider(cfg({ provider: 'ollama', ollamaPassagePrefix: 'doc: ' }))).provider;
    await ol.embed(['z'], { kind: 'passage' });
    assert.deepEqual(
      o.requests
        .filter((r) => r.path === '/api/embed')
        .map((r) => r.body.input)
        .at(-1),
      ['doc: z'],
    );
  });
});

const CLI = resolve('dist/cli.js');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, OPENAI_API_KEY: '' }, timeout: 120_000 }, (error, stdout, stderr) =>
      res({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('CLI: --query-prefix / --passage-prefix for openai and ollama', function () {
  this.timeout(180_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-prefix-cli-'));
  const beir = join(root, 'beir');
  before(() => {
    if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs']).status, 0);
    const docs = ['grain ships Sicily', 'railway clocks', 'plague quarantine'].map((t, i) =>
      JSON.stringify({ _id: `d${i}`, title: `Note ${i}`, text: `An account of ${t}.` }),
    );
    mkdirSync(join(beir, 'qrels'), { recursive: true });
    writeFileSync(join(beir, 'corpus.jsonl'), docs.join('\n') + '\n');
    writeFileSync(join(beir, 'queries.jsonl'), JSON.stringify({ _id: 'q0', text: 'grain' }) + '\n');
    writeFileSync(join(beir, 'qrels', 'train.tsv'), 'query-id\tcorpus-id\tscore\nq0\td0\t1\n');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('openai: the known model\'s prefixes by default, the flags\' otherwise ("" = none)', async () => {
    const model = 'Xenova/multilingual-e5-small';
    const s = await startFakeOpenAI({ models: [model] });
    try {
      const a = await cli(['eval', '--beir', beir, '--split', 'train', '--provider', 'openai', '--openai-url', s.url, '--openai-model', model, '--json']);
      assert.equal(a.code, 0, a.stderr);
      const inputs = s.requests.flatMap((r) => r.body.input as string[]);
      assert.ok(inputs.includes('query: grain'), inputs.join(' | '));
      assert.ok(
        inputs.some((t) => t.startsWith('passage: ') && t.includes('grain ships Sicily')),
        inputs.join(' | '),
      );
      s.requests.length = 0;
      const b = await cli([
        'eval',
        '--beir',
        beir,
        '--split',
        'train',
        '--provider',
        'openai',
        '--openai-url',
        s.url,
        '--openai-model',
        model,
        '--query-prefix',
        'Q: ',
        '--passage-prefix',
        '',
        '--json',
      ]);
      assert.equal(b.code, 0, b.stderr);
      const again = s.requests.flatMap((r) => r.body.input as string[]);
      assert.ok(again.includes('Q: grain'), again.join(' | '));
      assert.ok(
        again.some((t) => t.includes('grain ships Sicily') && !t.startsWith('passage: ')),
        again.join(' | '),
      );
      assert.notEqual(JSON.parse(a.stdout).provider, JSON.parse(b.stdout).provider);
    } finally {
      await s.close();
    }
  });

  it('ollama: the flags apply too', async () => {
    const s = await startFakeOllama({ models: ['nomic-embed-text'] });
    try {
      const r = await cli(['eval', '--beir', beir, '--split', 'train', '--provider', 'ollama', '--ollama-host', s.url, '--query-prefix', 'Q: ', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const inputs = s.requests.filter((x) => x.path === '/api/embed').flatMap((x) => x.body.input as string[]);
      assert.ok(inputs.includes('Q: grain'), inputs.join(' | '));
      assert.ok(
        inputs.some((t) => t.startsWith('search_document: ')),
        inputs.join(' | '),
      );
    } finally {
      await s.close();
    }
  });
});
