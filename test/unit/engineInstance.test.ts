import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import type { EmbeddingProvider } from '../../src/core/embedding/provider';
import { createEngine, errorCode, type EmbeddingChange, type EngineOptions, type EngineProgress } from '../../src/engine';
import { defaultSettings } from '../../src/shared/settings';
import { warmUpDraft } from '../../src/engine/warmUp';
import { writeFixtureLibrary } from '../support/pdfCorpus';
import { SlowModel } from '../support/slowModel';

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  return ((await fs.readdir(dir, { recursive: true, withFileTypes: true })) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => join((e as unknown as { parentPath?: string; path: string }).parentPath ?? e.path, e.name).slice(dir.length + 1))
    .sort();
}

describe('engine instance (createEngine): one object per workspace owns indexing, vectors and the loaded index', function () {
  this.timeout(120_000);
  let root: string;
  let lib: string;
  before(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'ss-engine-'));
    lib = join(root, 'library');
    await writeFixtureLibrary(lib);
  });
  after(() => fs.rm(root, { recursive: true, force: true }));

  /** An engine on a fresh workspace whose settings name the fixture library; what its host hears is recorded. */
  async function engineOn(provider: EmbeddingProvider, o: Partial<EngineOptions> = {}) {
    const workspace = await fs.mkdtemp(join(root, 'ws-'));
    const heard = { progress: [] as EngineProgress[], warnings: [] as string[], embedding: [] as EmbeddingChange[] };
    const engine = createEngine({
      workspace,
      settings: { ...defaultSettings(), libraryFolders: [lib], ocr: 'off' },
      provider,
      ...o,
      host: { onProgress: (p) => heard.progress.push(p), onWarning: (w) => heard.warnings.push(w), onEmbedding: (e) => heard.embedding.push(e) },
    });
    return { engine, heard, workspace };
  }

  it('indexes once at a time: a second call gets the run under way; the loaded index is reused until it changes; status, search and the citation check', async () => {
    const { engine } = await engineOn(new EmbeddedProvider());
    const first = engine.index({ jobs: 0 });
    assert.equal(engine.index({ jobs: 0 }), first);
    assert.ok(engine.isIndexing());
    const report = await first;
    assert.equal(report.sources, 3);
    assert.equal(report.semantic, undefined, 'the embedded model embeds inline: nothing comes after');
    assert.ok(!engine.isIndexing());
    const index = await engine.open();
    assert.equal(await engine.open(), index, 'the same index while the manifest stays');
    assert.equal(index.size, report.passages);
    await engine.index({ jobs: 0, rebuild: true });
    assert.notEqual(await engine.open(), index, 'a new run: the index is loaded again');
    const status = await engine.status();
    assert.equal(status.health.state, 'ready');
    assert.deepEqual(
      status.damaged.map((d) => basename(d.path)),
      ['truncated.pdf'],
    );
    assert.equal(status.interrupted, undefined);
    const { hits } = await engine.search('Sicilian grain export licences', { k: 2 });
    assert.equal(hits.length, 2);
    const checked = await engine.checkCitations('As was said [@nobody2020, p. 3].\n');
    assert.deepEqual(
      checked.citations.map((c) => [c.key, c.status]),
      [['nobody2020', 'unknown-key']],
    );
    // The API's convention: what the core leaves out is there and null (no bibliography: no citekey).
    for (const h of hits) {
      assert.equal(h.citekey, null);
      for (const k of ['year', 'pageLabel', 'heading'] as const) assert.ok(h[k] !== undefined, k);
    }
  });

  it('preloads the index once it is ready and warms it with no cache written; a preload and a search under way share one load', async () => {
    const { engine, workspace } = await engineOn(new EmbeddedProvider());
    assert.equal(await engine.preload(), undefined, 'no index yet: nothing to load');
    const run = engine.index({ jobs: 0 });
    assert.equal(await engine.preload(), undefined, 'not while the library is being indexed');
    await run;
    const [opened, again] = await Promise.all([engine.open(), engine.open()]);
    assert.equal(again, opened, 'opened once: the second caller waits for the first load');
    const cacheBefore = await filesUnder(join(workspace, '.similar-sources'));
    const done = await engine.preload();
    assert.equal(typeof done?.loadMs, 'number');
    assert.equal(typeof done?.warmMs, 'number', 'the embedded model runs here: the search code is warmed');
    assert.deepEqual(await filesUnder(join(workspace, '.similar-sources')), cacheBefore, 'the warm-up writes nothing (no analysis cache)');
    assert.equal(await engine.open(), opened, 'the preloaded index is the one searches get');
    // After another run, the new index is loaded ahead again; the code is warm already.
    await engine.index({ jobs: 0, rebuild: true });
    const again2 = await engine.preload();
    assert.deepEqual([typeof again2?.loadMs, again2?.warmMs], ['number', undefined]);
    const current = await engine.open();
    assert.notEqual(current, opened, "the new run's index");
    // The warm-up's draft: the library's own passages, spread over it, one paragraph each.
    const draft = warmUpDraft(current, 3);
    assert.equal(draft.split('\n\n').length, 4, draft);
    assert.ok(current.size > 3);
  });

  it('starts no warm-up beside a search, and a search stops one under way', async () => {
    // The embedded model, whose next query embedding waits, when the test asks, until it is let go.
    const model = new EmbeddedProvider();
    const embed = model.embed.bind(model);
    let gate: { reached: () => void; go: Promise<void> } | undefined;
    const holdNextQuery = () => {
      let reached!: () => void;
      let release!: () => void;
      const held = new Promise<void>((r) => (reached = r));
      gate = { reached, go: new Promise<void>((r) => (release = r)) };
      return { held, release };
    };
    model.embed = async (texts, o) => {
      const g = o?.kind === 'query' ? gate : undefined;
      if (g) {
        gate = undefined;
        g.reached();
        await g.go;
      }
      return embed(texts, o);
    };
    const { engine } = await engineOn(model);
    await engine.index({ jobs: 0 });
    const first = holdNextQuery();
    const searching = engine.search('Sicilian grain export licences', { k: 2 });
    await first.held; // the search is under way
    const beside = await engine.preload();
    assert.deepEqual([typeof beside?.loadMs, beside?.warmMs], ['number', undefined], 'loaded, not warmed, while the search runs');
    first.release();
    assert.equal((await searching).hits.length, 2);
    const second = holdNextQuery();
    const warming = engine.preload();
    await second.held; // the warm-up is embedding its queries
    const { hits } = await engine.search('Sicilian grain export licences', { k: 2 });
    assert.equal(hits.length, 2, 'the search is answered while the warm-up waits');
    second.release();
    const stopped = await warming;
    assert.deepEqual([typeof stopped?.loadMs, stopped?.warmMs], ['number', undefined], 'the search stopped the warm-up');
    assert.equal(typeof (await engine.preload())?.warmMs, 'number', 'a preload with nothing beside it warms');
  });

  it('a warm-up that fails costs nothing but itself, and the next preload tries again', async () => {
    const model = new EmbeddedProvider();
    const embed = model.embed.bind(model);
    let fail = true;
    model.embed = (texts, o) => (o?.kind === 'query' && fail ? Promise.reject(new Error('the model went away')) : embed(texts, o));
    const { engine } = await engineOn(model);
    await engine.index({ jobs: 0 });
    const done = await engine.preload();
    assert.deepEqual([typeof done?.loadMs, done?.warmMs], ['number', undefined]);
    fail = false;
    assert.equal(typeof (await engine.preload())?.warmMs, 'number');
    assert.equal((await engine.search('Sicilian grain export licences', { k: 2 })).hits.length, 2);
  });

  it("does not warm a served model's index: the library's text is not sent to a server unasked", async () => {
    const model = new SlowModel();
    const { engine } = await engineOn(model);
    await engine.index({ jobs: 0, vectors: 'wait' });
    let queries = 0;
    const embed = model.embed.bind(model);
    model.embed = (texts, o) => {
      if (o?.kind === 'query') queries += texts.length;
      return embed(texts, o);
    };
    const done = await engine.preload();
    assert.equal(typeof done?.loadMs, 'number');
    assert.equal(done?.warmMs, undefined);
    assert.equal(queries, 0);
  });

  it("with a neural model, 'wait' commits the passages, then computes every vector within the call", async () => {
    const model = new SlowModel();
    const { engine, heard } = await engineOn(model);
    const report = await engine.index({ jobs: 0, vectors: 'wait' });
    assert.ok(report.passages > 0);
    assert.deepEqual(report.semantic, { embedded: report.passages, total: report.passages });
    assert.equal(model.passages, report.passages);
    assert.equal((await engine.health(model)).state, 'ready');
    assert.equal(await engine.missingVectors(model), undefined);
    const embeds = heard.progress.filter((p) => p.kind === 'embed');
    assert.ok(embeds.length > 0);
    assert.deepEqual(embeds.at(-1), { kind: 'embed', embedded: report.passages, total: report.passages, model: model.key, modelName: 'm1' });
  });

  it("'later' leaves the vectors to embedInBackground, which says when it starts and ends", async () => {
    const model = new SlowModel();
    const { engine, heard } = await engineOn(model);
    const report = await engine.index({ jobs: 0, vectors: 'later' });
    assert.deepEqual(report.semantic, { embedded: 0, total: report.passages });
    assert.equal(model.passages, 0);
    assert.equal((await engine.missingVectors(model))?.embedded, 0);
    engine.embedInBackground(model);
    assert.ok(engine.embeddingState().running);
    assert.equal(await engine.preload(), undefined, 'no preload while each commit of vectors makes a new index');
    engine.embedInBackground(model);
    assert.equal(heard.embedding.length, 1, 'one background embedding per model');
    await new Promise<void>((done) => {
      const wait = () => (engine.embeddingState().running ? setTimeout(wait, 20) : done());
      wait();
    });
    assert.deepEqual(
      heard.embedding.map((e) => [e.running, e.error]),
      [
        [true, undefined],
        [false, undefined],
      ],
    );
    assert.equal(await engine.missingVectors(model), undefined);
    assert.equal(model.passages, report.passages);
  });

  it('a provider failing while the vectors are computed: the error comes out, the warning says the lexical index stands', async () => {
    const model = new SlowModel();
    model.failAfter = 16;
    const { engine, heard } = await engineOn(model);
    await assert.rejects(engine.index({ jobs: 0, vectors: 'wait' }), (e) => errorCode(e) === 'provider-unreachable');
    assert.ok(
      heard.warnings.some((w) => /indexed and searchable by their words; computing their vectors stopped/.test(w)),
      heard.warnings.join('\n'),
    );
    const missing = await engine.missingVectors(model);
    assert.ok(missing && missing.embedded <= 16 && missing.total > 16, JSON.stringify(missing));
  });

  it('throttles the files read to the rate the host asks, the first file always told', async () => {
    const all = await engineOn(new EmbeddedProvider());
    await all.engine.index({ jobs: 0 });
    const reads = (h: typeof all.heard) => h.progress.filter((p) => p.kind === 'index' && p.phase === 'read');
    assert.ok(reads(all.heard).length > 1);
    const few = await engineOn(new EmbeddedProvider(), { progressEveryMs: { index: 3_600_000 } });
    await few.engine.index({ jobs: 0 });
    assert.deepEqual(
      reads(few.heard).map((p) => p.kind === 'index' && p.done),
      [0],
    );
    assert.ok(
      few.heard.progress.some((p) => p.kind === 'index' && p.phase === 'scan'),
      'other phases are not throttled',
    );
  });
});
