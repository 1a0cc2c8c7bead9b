import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeDocument } from '../../src/core/analysis/analyze';
import { embedPending } from '../../src/core/index/write/embedPending';
import { indexHealth } from '../../src/core/index/health';
import { updateIndex } from '../../src/core/index/write/indexer';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { readVectorShard } from '../../src/core/index/store/shards';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { errorCode, errorHealth } from '../../src/shared/errors';
import { writeFixtureLibrary } from '../support/pdfCorpus';
import { SlowModel } from '../support/slowModel';

async function library() {
  const root = await fs.mkdtemp(join(tmpdir(), 'ss-embed-pending-'));
  const lib = join(root, 'library');
  await writeFixtureLibrary(lib);
  const { inputs } = await libraryInputs({ folders: [lib], baseDir: root });
  return { root, inputs };
}

/** Every vector of a model in the index, by passage id. */
async function vectorsOf(workspace: string, key: string): Promise<Map<string, number[]>> {
  const dir = indexDir(workspace);
  const m = (await readManifest(dir))!;
  const out = new Map<string, number[]>();
  for (const rec of Object.values(m.vectors[key]?.shards ?? {})) for (const [id, v] of await readVectorShard(dir, rec)) out.set(id, [...v]);
  return out;
}

describe('background embedding (embedPending): lexical first, vectors after, resumable', function () {
  this.timeout(120_000);

  it('serves lexical results before any vector, then reaches exactly the index an inline run builds', async () => {
    const deferred = await library();
    const inline = await library();
    const model = new SlowModel();
    const report = await updateIndex(deferred.inputs, { workspace: deferred.root, provider: model, deferEmbedding: true });
    assert.equal(report.embedded, 0);
    assert.equal(model.passages, 0, 'nothing embedded while indexing');

    // Not ready for an inline provider; ready (with its progress) for one that embeds in the background.
    assert.equal((await indexHealth(deferred.root, model.key)).state, 'incomplete');
    const health = await indexHealth(deferred.root, model.key, { partial: true });
    assert.equal(health.state, 'ready');
    assert.deepEqual(health.state === 'ready' && health.semantic, { model: model.key, embedded: 0, total: report.passages });
    await assert.rejects(LibraryIndex.open(deferred.root, model), (e) => errorHealth(e)?.state === 'incomplete');

    const index = await LibraryIndex.open(deferred.root, model, { partial: true });
    assert.deepEqual(index.semantic, { model: model.key, embedded: 0, total: report.passages });
    const hits = await index.search('grain trade Mediterranean', { k: 5 });
    assert.ok(hits.length > 0, 'lexical results are served');
    assert.ok(
      hits.every((h) => h.vectorRank === undefined && h.lexicalRank !== undefined),
      'rows without a vector are not in the vector ranking',
    );

    const done = await embedPending({ workspace: deferred.root, provider: model, batch: 3 });
    assert.equal(done.complete, true);
    assert.equal(done.embedded, report.passages);
    assert.equal(model.passages, report.passages, 'each passage embedded once');

    await updateIndex(inline.inputs, { workspace: inline.root, provider: new SlowModel() });
    const a = await vectorsOf(deferred.root, model.key);
    const b = await vectorsOf(inline.root, model.key);
    assert.equal(a.size, report.passages);
    assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort());
    for (const [id, v] of a) assert.deepEqual(v, b.get(id), id);
    const after = await indexHealth(deferred.root, model.key);
    assert.equal(after.state, 'ready', 'complete for the model: ready even for an inline reader');
    assert.equal(after.state === 'ready' && after.semantic, undefined);
    const full = await LibraryIndex.open(deferred.root, model, { partial: true });
    assert.equal(full.semantic, undefined);
    assert.ok((await full.search('grain trade Mediterranean', { k: 5 })).some((h) => h.vectorRank !== undefined));
  });

  it('stops when cancelled, keeps what it committed, and the next call goes on from there', async () => {
    const { root, inputs } = await library();
    const model = new SlowModel();
    const report = await updateIndex(inputs, { workspace: root, provider: model, deferEmbedding: true });
    const ac = new AbortController();
    const seen: number[] = [];
    const first = await embedPending({
      workspace: root,
      provider: model,
      batch: 2,
      commitMs: 0,
      signal: ac.signal,
      onProgress: (p) => {
        seen.push(p.embedded);
        if (seen.length === 2) ac.abort();
      },
    });
    assert.equal(first.cancelled, true);
    assert.equal(first.complete, false);
    assert.deepEqual(seen, [2, 4], 'one commit per slice');
    assert.equal(first.covered, 4);
    const h = await indexHealth(root, model.key, { partial: true });
    assert.deepEqual(h.state === 'ready' && h.semantic, { model: model.key, embedded: 4, total: report.passages });
    // A partial index opens, with the embedded rows in the vector ranking.
    const partial = await LibraryIndex.open(root, model, { partial: true });
    assert.equal(partial.semantic?.embedded, 4);

    const second = await embedPending({ workspace: root, provider: model, batch: 2 });
    assert.equal(second.complete, true);
    assert.equal(second.embedded, report.passages - 4);
    assert.equal(model.passages, report.passages, 'nothing committed was embedded again');
  });

  it('a provider failing midway: what was embedded is committed, the error says so, the next call resumes', async () => {
    const { root, inputs } = await library();
    const model = new SlowModel();
    const report = await updateIndex(inputs, { workspace: root, provider: model, deferEmbedding: true });
    model.failAfter = 3;
    await assert.rejects(embedPending({ workspace: root, provider: model, batch: 2, commitMs: 60_000 }), (e) => errorCode(e) === 'provider-unreachable');
    const h = await indexHealth(root, model.key, { partial: true });
    assert.deepEqual(h.state === 'ready' && h.semantic, { model: model.key, embedded: 2, total: report.passages });
    await fs.access(join(indexDir(root), 'index.lock')).then(
      () => assert.fail('the lock is released'),
      () => undefined,
    );
    model.failAfter = Infinity;
    const r = await embedPending({ workspace: root, provider: model, batch: 2 });
    assert.equal(r.complete, true);
    assert.equal(model.passages, report.passages);
  });

  it('refuses vectors that are not numbers or of another size, writing nothing of the batch', async () => {
    const { root, inputs } = await library();
    const model = new SlowModel();
    await updateIndex(inputs, { workspace: root, provider: model, deferEmbedding: true });
    await embedPending({ workspace: root, provider: model, batch: 2, commitMs: 0, signal: AbortSignal.abort() }).then((r) => assert.equal(r.cancelled, true));
    const dim = await model.dimension();
    const returning = (v: () => Float32Array) => Object.assign(new SlowModel(), { embed: async (texts: string[]) => texts.map(v) });
    await assert.rejects(
      embedPending({ workspace: root, provider: returning(() => new Float32Array(dim).fill(Number.NaN)), batch: 2 }),
      (e) => errorCode(e) === 'provider-bad-response' && /not numbers/.test((e as Error).message),
    );
    await assert.rejects(
      embedPending({ workspace: root, provider: returning(() => new Float32Array(dim + 1).fill(0.1)), batch: 2 }),
      (e) => errorCode(e) === 'provider-bad-response' && new RegExp(`${dim + 1} dimensions where the index holds ${dim}`).test((e as Error).message),
    );
    assert.equal((await vectorsOf(root, model.key)).size, 0);
    assert.equal((await embedPending({ workspace: root, provider: model })).complete, true, 'a sound model completes it afterwards');
  });

  it('an analysis made before the vectors are complete says so, and is not served from the cache once more are there', async () => {
    const { root, inputs } = await library();
    const model = new SlowModel();
    const report = await updateIndex(inputs, { workspace: root, provider: model, deferEmbedding: true });
    const draft = '# Notes\n\nThe grain trade of the Mediterranean and the licences granted by the Spanish crown in Sicily.\n';
    const analyze = async () =>
      analyzeDocument(draft, { minWords: 3 }, { workspace: root, documentPath: 'draft.md', index: await LibraryIndex.open(root, model, { partial: true }) });
    const before = await analyze();
    assert.deepEqual(before.semantic, { model: model.key, embedded: 0, total: report.passages });
    assert.equal((await analyze()).fromCache, true, 'same state: from the cache');
    await embedPending({ workspace: root, provider: model, batch: 2, commitMs: 0, signal: AbortSignal.timeout(60_000), onProgress: () => undefined });
    const after = await analyze();
    assert.equal(after.fromCache, false, 'more vectors: analysed again');
    assert.equal(after.semantic, undefined);
  });
});
