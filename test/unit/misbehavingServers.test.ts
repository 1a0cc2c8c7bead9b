/**
 * Item 9 of issue 14: an embedding or reranking server (the Ollama API, served
 * by fakeOllama on 127.0.0.1) that hangs, answers slowly, sends malformed JSON,
 * vectors of the wrong size or NaN, or fails in the middle of a run. Every wait
 * is bounded, the error carries a code and says what happened, the embedded
 * fallback is used where configured, and the index is never half-written: it
 * stays at a commit whose every source equals a clean build's, and the next run
 * with a working server completes it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OllamaProvider } from '../../src/core/embedding/ollamaProvider';
import { createProvider } from '../../src/core/embedding/providerFactory';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir } from '../../src/core/index/store/manifest';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { OllamaReranker } from '../../src/core/analysis/rerank';
import { errorCode } from '../../src/shared/errors';
import { buildPdf } from '../support/pdfWriter';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../support/fakeOllama';
import { betweenBuilds, smallPdfSpec, snapshotIndex, type IndexSnapshot } from '../support/stressLibrary';

const MODEL = 'nomic-embed-text';

describe('misbehaving embedding server during indexing', function () {
  this.timeout(60_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-badsrv-'));
  const lib = join(root, 'library');
  let good: FakeOllama;
  let key: string;
  let cleanV1: IndexSnapshot;
  let cleanV2: IndexSnapshot;

  const writeV1 = () => {
    mkdirSync(lib, { recursive: true });
    for (let i = 1; i <= 6; i++) writeFileSync(join(lib, `p${i}.pdf`), buildPdf(smallPdfSpec(i, 2)));
    rmSync(join(lib, 'n1.pdf'), { force: true });
    rmSync(join(lib, 'n2.pdf'), { force: true });
  };
  const writeV2 = () => {
    for (const i of [2, 4]) writeFileSync(join(lib, `p${i}.pdf`), buildPdf(smallPdfSpec(100 + i, 3)));
    for (const n of [1, 2]) writeFileSync(join(lib, `n${n}.pdf`), buildPdf(smallPdfSpec(200 + n, 2)));
  };
  const provider = (host: string, timeoutMs = 1500) => new OllamaProvider({ host, model: MODEL, timeoutMs, batchSize: 8 });
  const index = async (ws: string, p: OllamaProvider) => {
    const { inputs } = await libraryInputs({ folders: [lib], baseDir: root });
    return updateIndex(inputs, { workspace: ws, provider: p, commitEvery: 2 });
  };

  before(async () => {
    good = await startFakeOllama({ dimension: 64 });
    key = provider(good.url).key;
    writeV1();
    await index(join(root, 'clean1'), provider(good.url));
    cleanV1 = (await snapshotIndex(join(root, 'clean1'), key))!;
    writeV2();
    await index(join(root, 'clean2'), provider(good.url));
    cleanV2 = (await snapshotIndex(join(root, 'clean2'), key))!;
    assert.equal(Object.keys(cleanV2.sources).length, 8);
  });
  after(async () => {
    await good.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Indexes v1 with the good server, then v2 with a bad one: returns the error and how long it took. */
  async function withBadServer(name: string, opts: FakeOllamaOptions, timeoutMs = 1500) {
    const ws = join(root, name);
    writeV1();
    await index(ws, provider(good.url));
    writeV2();
    const bad = await startFakeOllama({ dimension: 64, ...opts });
    const t0 = Date.now();
    let error: unknown;
    try {
      await index(ws, provider(bad.url, timeoutMs));
    } catch (err) {
      error = err;
    } finally {
      await bad.close();
    }
    const ms = Date.now() - t0;
    // Never half-written: a consistent commit between the two builds, searchable, no temp file, no lock.
    const snap = (await snapshotIndex(ws, key))!;
    assert.equal(betweenBuilds(snap, cleanV1, cleanV2), undefined);
    const idx = await LibraryIndex.open(ws, provider(good.url));
    assert.ok((await idx.search('grain harbour merchant', { k: 3 })).length > 0);
    assert.deepEqual(
      readdirSync(indexDir(ws), { recursive: true }).filter((f) => /\.tmp-|index\.lock/.test(String(f))),
      [],
    );
    // With a working server the next run completes it exactly.
    await index(ws, provider(good.url));
    assert.deepEqual(await snapshotIndex(ws, key), cleanV2);
    return { error, ms };
  }

  it('a server that never answers: provider-timeout after the timeout, not later', async () => {
    const { error, ms } = await withBadServer('hang', { latencyMs: 10 * 60_000 }, 800);
    assert.equal(errorCode(error), 'provider-timeout');
    assert.match((error as Error).message, /did not answer within 0\.8 s/);
    assert.ok(ms < 5000, `took ${ms} ms`);
  });

  it('a slow server within the timeout: the run completes', async () => {
    const { error } = await withBadServer('slow', { latencyMs: 150 }, 3000);
    assert.equal(error, undefined);
  });

  it('malformed JSON: provider-bad-response', async () => {
    const { error } = await withBadServer('malformed', { embedRaw: () => '{"model":"x","embeddings":[[0.1,0.2' });
    assert.equal(errorCode(error), 'provider-bad-response');
  });

  it('NaN in a vector (as bare NaN, or null): provider-bad-response', async () => {
    const nan = await withBadServer('nan', { embedRaw: (input) => `{"embeddings":[${input.map(() => `[NaN${',0.5'.repeat(63)}]`).join(',')}]}` });
    assert.equal(errorCode(nan.error), 'provider-bad-response');
    const nul = await withBadServer('null', { embedOverride: (input) => ({ embeddings: input.map(() => [null, ...new Array(63).fill(0.5)]) }) });
    assert.equal(errorCode(nul.error), 'provider-bad-response');
    assert.match((nul.error as Error).message, /not numeric/);
  });

  it('vectors of another size than the index holds for the model: provider-bad-response, nothing mixed in', async () => {
    const { error } = await withBadServer('wrong-dim', { dimension: 32 });
    assert.equal(errorCode(error), 'provider-bad-response');
    assert.match((error as Error).message, /32.*64|64.*32/);
  });

  it('fewer vectors than texts: provider-bad-response', async () => {
    const { error } = await withBadServer('short', { embedOverride: (input) => ({ embeddings: input.slice(1).map(() => new Array(64).fill(0.5)) }) });
    assert.equal(errorCode(error), 'provider-bad-response');
  });

  it('an HTTP 500 in the middle of the run: provider-bad-response, the sources embedded before it kept', async () => {
    const { error } = await withBadServer('mid-500', { failRequests: [3] });
    assert.equal(errorCode(error), 'provider-bad-response');
    assert.match((error as Error).message, /HTTP 500/);
  });

  it('the connection cut in the middle of the run: a provider error code', async () => {
    const { error } = await withBadServer('mid-drop', { dropRequests: [3] });
    assert.match(String(errorCode(error)), /^provider-/);
  });

  it('with the fallback configured, a hanging server gives the embedded model and a warning, in bounded time', async () => {
    const bad = await startFakeOllama({ latencyMs: 10 * 60_000 });
    const t0 = Date.now();
    const warnings: string[] = [];
    const { provider: p, warning } = await createProvider(
      { provider: 'ollama', ollamaHost: bad.url, timeoutMs: 500 },
      { fallbackToEmbedded: true, onWarning: (w) => warnings.push(w) },
    );
    await bad.close();
    assert.ok(p instanceof EmbeddedProvider);
    assert.match(warning!, /did not answer within 0\.5 s.*Using the embedded offline model instead/);
    // A hang guard, not a speed target: the server would take 10 minutes.
    assert.ok(Date.now() - t0 < 10_000);
  });
});

describe('misbehaving reranking server', function () {
  this.timeout(30_000);
  const candidates = [
    { id: 'a', text: 'grain licences in Sicily' },
    { id: 'b', text: 'shipping insurance in Genoa' },
    { id: 'c', text: 'bread prices in Venice' },
  ];
  const reranker = (host: string) => new OllamaReranker({ host, model: 'llama3.2', timeoutMs: 700, checkTimeoutMs: 400 });

  it('hangs: the availability check and the rerank both give up in bounded time, with a code', async () => {
    const s = await startFakeOllama({ latencyMs: 10 * 60_000 });
    try {
      const r = reranker(s.url);
      const t0 = Date.now();
      assert.match((await r.unavailable())!, /did not answer within 0\.4 s/);
      // Hang guards, not speed targets (the server would take 10 minutes; the machine is shared).
      assert.ok(Date.now() - t0 < 10_000);
      const t1 = Date.now();
      await assert.rejects(r.rerank('grain', candidates), (e) => errorCode(e) === 'provider-timeout');
      assert.ok(Date.now() - t1 < 10_000);
    } finally {
      await s.close();
    }
  });

  it('slow within the timeout: reranks', async () => {
    const s = await startFakeOllama({ latencyMs: 100, generate: () => '3, 1' });
    try {
      assert.deepEqual(await reranker(s.url).rerank('bread', candidates), ['c', 'a', 'b']);
    } finally {
      await s.close();
    }
  });

  it('malformed JSON, HTTP 500, or an answer naming no passage: a clear error (the analysis keeps retrieval order)', async () => {
    const bad = await startFakeOllama({ generateRaw: '{"response": "1, 2' });
    await assert.rejects(reranker(bad.url).rerank('grain', candidates), (e) => errorCode(e) === 'provider-bad-response');
    await bad.close();
    const failing = await startFakeOllama({ failRequests: [1] });
    await assert.rejects(
      reranker(failing.url).rerank('grain', candidates),
      (e) => errorCode(e) === 'provider-bad-response' && /HTTP 500/.test((e as Error).message),
    );
    await failing.close();
    const chatty = await startFakeOllama({ generate: () => 'I would rather not say.' });
    await assert.rejects(reranker(chatty.url).rerank('grain', candidates), /names no passage/);
    await chatty.close();
  });
});
