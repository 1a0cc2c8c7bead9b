import assert from 'node:assert/strict';
import { OllamaProvider } from '../../src/core/embedding/ollamaProvider';
import { ollamaGenerate } from '../../src/core/embedding/ollamaGenerate';
import { createProvider } from '../../src/core/embedding/providerFactory';
import { ProviderError } from '../../src/core/embedding/provider';
import { closedPortUrl, startFakeOllama, type FakeOllama } from '../support/fakeOllama';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

async function rejectsWith(p: Promise<unknown>, reason: ProviderError['reason']): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ProviderError, `expected ProviderError, got ${err}`);
    assert.equal(err.reason, reason, err.message);
    return err;
  }
  assert.fail('expected a rejection');
}

describe('OllamaProvider', () => {
  let fake: FakeOllama | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('batches by batchSize and keeps order', async () => {
    fake = await startFakeOllama();
    const p = new OllamaProvider({ host: fake.url, model: 'nomic-embed-text', batchSize: 32, passagePrefix: '' });
    const texts = Array.from({ length: 70 }, (_, i) => `passage number ${i} word${i}`);
    const vecs = await p.embed(texts, { kind: 'passage' });
    assert.deepEqual(fake.embedBatchSizes(), [32, 32, 6]);
    assert.equal(vecs.length, 70);
    // Order: each vector is closest to its own text embedded alone.
    const [v41] = await p.embed([texts[41]], { kind: 'passage' });
    assert.ok(Math.abs(cos(vecs[41], v41) - 1) < 1e-6);
    assert.ok(cos(vecs[40], v41) < 0.999);
    assert.deepEqual(await p.embed([]), []);
  });

  it('returns L2-normalised vectors where similar texts are close', async () => {
    fake = await startFakeOllama({ dimension: 128 });
    const p = new OllamaProvider({ host: fake.url });
    const [a, b, c] = await p.embed([
      'la Méditerranée au temps de Philippe II',
      'la Méditerranée et le monde méditerranéen au temps de Philippe II',
      'quantum chromodynamics lattice simulation',
    ]);
    for (const v of [a, b, c]) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    assert.ok(cos(a, b) > cos(a, c));
  });

  it('applies query/passage prefixes (nomic defaults, overridable)', async () => {
    fake = await startFakeOllama();
    const p = new OllamaProvider({ host: fake.url, model: 'nomic-embed-text' });
    await p.embed(['q'], { kind: 'query' });
    await p.embed(['d'], { kind: 'passage' });
    assert.deepEqual(
      fake.requests.map((r) => r.body.input),
      [['search_query: q'], ['search_document: d']],
    );
    const q = new OllamaProvider({ host: fake.url, model: 'nomic-embed-text', queryPrefix: 'Q: ', passagePrefix: '' });
    await q.embed(['x'], { kind: 'query' });
    await q.embed(['y']);
    assert.deepEqual(
      fake.requests.slice(2).map((r) => r.body.input),
      [['Q: x'], ['y']],
    );
  });

  it('reports the dimension with one probe, cached', async () => {
    fake = await startFakeOllama({ dimension: 48 });
    const p = new OllamaProvider({ host: fake.url });
    assert.deepEqual(await Promise.all([p.dimension(), p.dimension()]), [48, 48]);
    assert.equal(await p.dimension(), 48);
    assert.equal(fake.requests.length, 1);
    assert.equal(p.key, 'ollama-nomic-embed-text');
  });

  it('check() passes for an embedding model and rejects a chat model', async () => {
    fake = await startFakeOllama();
    await new OllamaProvider({ host: fake.url }).check();
    const err = await rejectsWith(new OllamaProvider({ host: fake.url, model: 'llama3.2' }).check(), 'unknown-model');
    assert.match(err.message, /cannot produce embeddings/);
  });

  it('unknown model → ProviderError naming host and model', async () => {
    fake = await startFakeOllama();
    const p = new OllamaProvider({ host: fake.url, model: 'bge-m3' });
    for (const call of [p.check(), p.embed(['x'])]) {
      const err = await rejectsWith(call, 'unknown-model');
      assert.equal(err.message, `Ollama at ${fake.url} has no model "bge-m3". Pull it with "ollama pull bge-m3".`);
      assert.equal(err.host, fake.url);
      assert.equal(err.model, 'bge-m3');
    }
  });

  it('unreachable server → ProviderError naming the host', async () => {
    const url = await closedPortUrl();
    const p = new OllamaProvider({ host: url });
    const err = await rejectsWith(p.check(), 'unreachable');
    assert.equal(err.message, `Ollama is not reachable at ${url} (connection refused). Start it with "ollama serve", or switch the provider to "embedded".`);
    await rejectsWith(p.embed(['x']), 'unreachable');
  });

  it('times out when the server is slower than timeoutMs', async () => {
    // The server would answer only after the test's own time limit: the call can
    // only settle through the provider's timeout (no wall-clock assertion needed).
    fake = await startFakeOllama({ latencyMs: 120_000 });
    const p = new OllamaProvider({ host: fake.url, timeoutMs: 150 });
    const err = await rejectsWith(p.embed(['slow']), 'timeout');
    assert.match(err.message, new RegExp(`Ollama at ${fake.url} did not answer within 0.2 s`));
  });

  it('aborts on the caller signal, before and during a request', async () => {
    fake = await startFakeOllama({ latencyMs: 120_000 });
    const p = new OllamaProvider({ host: fake.url, timeoutMs: 110_000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await rejectsWith(p.embed(['a', 'b'], { signal: ac.signal }), 'aborted');
    assert.match(err.message, /cancelled/);
    const n = fake.requests.length;
    await rejectsWith(p.embed(['c'], { signal: ac.signal }), 'aborted');
    assert.equal(fake.requests.length, n, 'no request sent with an aborted signal');
  });

  it('stops between batches when aborted', async () => {
    fake = await startFakeOllama({ latencyMs: 100 });
    const p = new OllamaProvider({ host: fake.url, batchSize: 2 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 150);
    await rejectsWith(p.embed(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], { signal: ac.signal }), 'aborted');
    assert.ok(fake.requests.length < 4);
  });

  it('server errors and malformed responses → bad-response', async () => {
    fake = await startFakeOllama({ failRequests: [2] });
    const p = new OllamaProvider({ host: fake.url, batchSize: 1 });
    const err = await rejectsWith(p.embed(['a', 'b', 'c']), 'bad-response');
    assert.match(err.message, /HTTP 500/);
    assert.match(err.message, /nomic-embed-text/);
    await fake.close();

    fake = await startFakeOllama({ embedOverride: (input) => ({ embeddings: input.slice(1).map(() => [1, 2]) }) });
    const e2 = await rejectsWith(new OllamaProvider({ host: fake.url }).embed(['a', 'b']), 'bad-response');
    assert.match(e2.message, /1 vectors for 2 texts/);
    await fake.close();

    fake = await startFakeOllama({ embedOverride: (input) => ({ embeddings: input.map((_, i) => new Array(3 + i).fill(1)) }) });
    const e3 = await rejectsWith(new OllamaProvider({ host: fake.url }).embed(['a', 'b']), 'bad-response');
    assert.match(e3.message, /different lengths/);
  });
});

describe('createProvider', () => {
  let fake: FakeOllama | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('returns a checked Ollama provider when the server is fine', async () => {
    fake = await startFakeOllama();
    const { provider, warning } = await createProvider({ provider: 'ollama', ollamaHost: fake.url });
    assert.equal(provider.id, 'ollama');
    assert.equal(warning, undefined);
  });

  it('falls back to the embedded model with a visible warning', async () => {
    const url = await closedPortUrl();
    const seen: string[] = [];
    const { provider, warning } = await createProvider(
      { provider: 'ollama', ollamaHost: url, ollamaModel: 'nomic-embed-text' },
      { fallbackToEmbedded: true, onWarning: (m) => seen.push(m) },
    );
    assert.equal(provider.id, 'embedded');
    assert.ok(warning?.startsWith(`Ollama is not reachable at ${url} (connection refused).`));
    assert.ok(warning?.endsWith('Using the embedded offline model instead.'));
    assert.deepEqual(seen, [warning]);
  });

  it('rethrows without fallback', async () => {
    fake = await startFakeOllama();
    await rejectsWith(createProvider({ provider: 'ollama', ollamaHost: fake.url, ollamaModel: 'missing' }), 'unknown-model');
  });

  it('does not fall back when the user cancelled', async () => {
    fake = await startFakeOllama();
    const ac = new AbortController();
    ac.abort();
    await rejectsWith(createProvider({ provider: 'ollama', ollamaHost: fake.url }, { fallbackToEmbedded: true, signal: ac.signal }), 'aborted');
  });

  it('builds the embedded provider without touching the network', async () => {
    const { provider } = await createProvider({ provider: 'embedded' });
    assert.equal(provider.id, 'embedded');
  });
});

describe('ollamaGenerate', () => {
  let fake: FakeOllama | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('returns the completion text (non-streamed)', async () => {
    fake = await startFakeOllama({ generate: (prompt, model) => `${model}: ${prompt.length}` });
    const out = await ollamaGenerate({ host: fake.url, model: 'llama3.2', prompt: 'rank these', timeoutMs: 5000 });
    assert.equal(out, 'llama3.2: 10');
    assert.equal(fake.requests[0].body.stream, false);
  });

  it('maps errors the same way as embedding', async () => {
    fake = await startFakeOllama();
    const err = await rejectsWith(ollamaGenerate({ host: fake.url, model: 'qwen3', prompt: 'x' }), 'unknown-model');
    assert.equal(err.message, `Ollama at ${fake.url} has no model "qwen3". Pull it with "ollama pull qwen3".`);
    const url = await closedPortUrl();
    const e2 = await rejectsWith(ollamaGenerate({ host: url, model: 'llama3.2', prompt: 'x' }), 'unreachable');
    assert.match(e2.message, /turn LLM reranking off/);
    await fake.close();
    fake = await startFakeOllama({ latencyMs: 1000 });
    await rejectsWith(ollamaGenerate({ host: fake.url, model: 'llama3.2', prompt: 'x', timeoutMs: 100 }), 'timeout');
  });
});
