import * as assert from 'node:assert/strict';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { OpenAIProvider } from '../../src/core/embedding/openaiProvider';
import { ProviderError } from '../../src/core/embedding/provider';
import { createProvider } from '../../src/core/embedding/providerFactory';
import { fakeEmbedding } from '../support/fakeOllama';
import { startFakeOpenAI } from '../support/fakeOpenAI';

const MODEL = 'nomic-embed-text-v1.5';
const failure = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e as ProviderError,
  );

describe('OpenAIProvider (/v1/embeddings, fake server on 127.0.0.1)', function () {
  this.timeout(20_000);
  const servers: { close(): Promise<void> }[] = [];
  const start = async (o: Parameters<typeof startFakeOpenAI>[0] = {}) => {
    const s = await startFakeOpenAI(o);
    servers.push(s);
    return s;
  };
  afterEach(async () => Promise.all(servers.splice(0).map((s) => s.close())));

  it('embeds in batches with the API key, in input order, L2-normalised, keyed per model and host', async () => {
    const s = await start({ apiKey: 'sk-test', reverse: true });
    const p = new OpenAIProvider({ baseUrl: s.url, model: MODEL, apiKey: 'sk-test', batchSize: 2, passagePrefix: '' });
    const texts = ['grain licences in Sicily', 'the longue durée', 'Annales'];
    const v = await p.embed(texts);
    assert.equal(v.length, 3);
    v.forEach((x, i) => {
      const want = fakeEmbedding(texts[i], 48);
      const n = Math.hypot(...want);
      assert.ok(
        x.every((y, d) => Math.abs(y - want[d] / n) < 1e-6),
        `text ${i} in place`,
      );
    });
    assert.deepEqual(
      s.requests.map((r) => r.body.input.length),
      [2, 1],
    );
    assert.ok(s.requests.every((r) => r.auth === 'Bearer sk-test' && r.body.model === MODEL));
    await p.embed(['q'], { kind: 'query' });
    assert.deepEqual(s.requests.at(-1)!.body.input, ['search_query: q']);
    assert.equal(await p.dimension(), 48);
    assert.match(p.key, /^openai-nomic-embed-text-v1\.5_127\.0\.0\.1_\d+$/);
  });

  it('says the key is wrong on 401, and names the model on 404', async () => {
    const s = await start({ apiKey: 'sk-right' });
    const e = await failure(new OpenAIProvider({ baseUrl: s.url, model: MODEL, apiKey: 'sk-wrong' }).embed(['a']));
    assert.ok(e instanceof ProviderError);
    assert.match(e.message, /refused the request \(HTTP 401\): the API key is missing or wrong/);
    const m = await failure(new OpenAIProvider({ baseUrl: s.url, model: 'nope', apiKey: 'sk-right' }).embed(['a']));
    assert.equal(m.reason, 'unknown-model');
    assert.match(m.message, /no model "nope" \(HTTP 404\)/);
  });

  it('rejects malformed JSON, NaN or missing values and a changed dimension with a clear error', async () => {
    const bad = async (rawBody: (input: string[]) => string) => {
      const s = await start({ rawBody });
      return failure(new OpenAIProvider({ baseUrl: s.url, model: MODEL }).embed(['a', 'b']));
    };
    assert.match((await bad(() => '{"data": [')).message, /unusable answer .*not JSON/);
    assert.match((await bad(() => '{"data":[{"index":0,"embedding":[NaN,1]},{"index":1,"embedding":[1,1]}]}')).message, /not JSON/);
    assert.match(
      (await bad(() => '{"data":[{"index":0,"embedding":[null,1]},{"index":1,"embedding":[1,1]}]}')).message,
      /vector 0 holds values that are not finite numbers/,
    );
    assert.match(
      (await bad(() => '{"data":[{"index":0,"embedding":[1,2,3]},{"index":1,"embedding":[1,2]}]}')).message,
      /a vector of 2 values where the model gave 3/,
    );
    assert.match((await bad(() => '{"data":[{"index":0,"embedding":[1,2]}]}')).message, /1 vectors for 2 texts/);
    assert.match((await bad(() => '{"object":"list"}')).message, /no "data" array/);
  });

  it('gives up on a slow server within the timeout, and on a cancel at once', async () => {
    const s = await start({ latencyMs: 5_000 });
    const t0 = Date.now();
    const e = await failure(new OpenAIProvider({ baseUrl: s.url, model: MODEL, timeoutMs: 300 }).embed(['a']));
    assert.equal(e.reason, 'timeout');
    assert.ok(Date.now() - t0 < 3_000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const c = await failure(new OpenAIProvider({ baseUrl: s.url, model: MODEL }).embed(['a'], { signal: ac.signal }));
    assert.equal(c.reason, 'aborted');
  });

  it('the factory checks the server, and falls back to the embedded model when asked', async () => {
    const s = await start();
    const ok = await createProvider({ provider: 'openai', openaiBaseUrl: s.url, openaiModel: MODEL });
    assert.equal(ok.provider.id, 'openai');
    await s.close();
    const fb = await createProvider({ provider: 'openai', openaiBaseUrl: s.url, openaiModel: MODEL }, { fallbackToEmbedded: true });
    assert.ok(fb.provider instanceof EmbeddedProvider);
    assert.match(fb.warning!, /not reachable at .*ECONNREFUSED.*Using the embedded offline model instead/);
    await assert.rejects(createProvider({ provider: 'openai', openaiBaseUrl: s.url }), /No model set/);
  });
});
