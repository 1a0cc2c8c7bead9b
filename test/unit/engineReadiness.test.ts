import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import type { EmbeddingProvider } from '../../src/core/embedding/provider';
import { DEFAULT_OPTIONS, resolveOptions } from '../../src/core/analysis/options';
import { analysisOptionsOf, createEngine, type EngineOptions, type IndexRunOptions } from '../../src/engine';
import { defaultSettings } from '../../src/shared/settings';
import { writeFixtureLibrary } from '../support/pdfCorpus';
import { SlowModel } from '../support/slowModel';

// What the extension's Find Similar Sources and the CLI's analyze and search used to decide each on
// its own: the engine instance's `ready` (src/engine/readiness.ts) and its one run at a time.
describe('engine instance: the index made ready before scoring, one run at a time, analysis options from settings', function () {
  this.timeout(120_000);
  let root: string;
  let lib: string;
  before(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'ss-ready-'));
    lib = join(root, 'library');
    await writeFixtureLibrary(lib);
  });
  after(() => fs.rm(root, { recursive: true, force: true }));

  async function engineOn(provider: EmbeddingProvider, o: Partial<EngineOptions> = {}, libraryFolders = [lib]) {
    const workspace = await fs.mkdtemp(join(root, 'ws-'));
    return createEngine({ workspace, settings: { ...defaultSettings(), libraryFolders, ocr: 'off' }, provider, ...o });
  }

  it("index missing: 'if-needed' asks, then indexes (declined: nothing); 'never' says not ready; 'always' indexes", async () => {
    const engine = await engineOn(new EmbeddedProvider());
    const never = await engine.ready();
    assert.deepEqual([never.ready, !never.ready && never.why, never.health?.state], [false, 'not-ready', 'missing']);
    const asked: string[] = [];
    const declined = await engine.ready({ index: 'if-needed', confirmIndex: (h) => (asked.push(h.state), false) });
    assert.deepEqual([declined.ready, !declined.ready && declined.why, asked], [false, 'declined', ['missing']]);
    assert.equal((await engine.health()).state, 'missing', 'declined: nothing indexed');
    const runs: IndexRunOptions[] = [];
    const made = await engine.ready({ index: 'if-needed', confirmIndex: () => true, runIndex: (o) => (runs.push(o), engine.index({ ...o, jobs: 0 })) });
    assert.ok(made.ready);
    assert.equal(made.health.state, 'ready');
    assert.equal(made.indexed?.sources, 3);
    assert.deepEqual(
      runs.map((o) => [o.rebuild, o.vectors]),
      [[false, 'later']],
      "the host's run, a fresh one, vectors left (the default 'partial')",
    );
    // Ready now: 'if-needed' makes no run, asks nothing.
    const again = await engine.ready({ index: 'if-needed', confirmIndex: () => assert.fail('not asked when the index serves') });
    assert.deepEqual([again.ready, again.indexed], [true, undefined]);
    // 'always' (the CLI, a library named): an incremental run first, which changes nothing here.
    const always = await engine.ready({ index: 'always', jobs: 0 });
    assert.ok(always.ready);
    assert.deepEqual([always.indexed?.sources, always.indexed?.added, always.indexed?.unchanged], [3, 0, 3]);
  });

  it('a damaged index is rebuilt; a library without a PDF is said (empty)', async () => {
    const engine = await engineOn(new EmbeddedProvider());
    await engine.index({ jobs: 0 });
    await fs.writeFile(join(engine.indexDir, 'manifest.json'), '{ "not": "a manifest"');
    assert.equal((await engine.health()).state, 'corrupt');
    const runs: IndexRunOptions[] = [];
    const r = await engine.ready({ index: 'if-needed', runIndex: (o) => (runs.push(o), engine.index({ ...o, jobs: 0 })) });
    assert.ok(r.ready);
    assert.equal(runs[0]?.rebuild, true);
    const emptyLib = await fs.mkdtemp(join(root, 'empty-lib-'));
    const empty = await engineOn(new EmbeddedProvider(), {}, [emptyLib]);
    const e = await empty.ready({ index: 'if-needed', jobs: 0 });
    assert.deepEqual([e.ready, !e.ready && e.why, e.indexed?.sources], [false, 'empty', 0]);
  });

  it('a run under way is waited for (the host is told), and a second index() gets it: one run at a time', async () => {
    const engine = await engineOn(new EmbeddedProvider());
    const run = engine.index({ jobs: 0 });
    assert.equal(engine.index({ rebuild: true }), run, 'the run under way, not a second one');
    assert.ok(engine.isIndexing());
    assert.equal(engine.whenIndexed(), run);
    let told = 0;
    let indexedBeside = 0;
    const r = await engine.ready({ index: 'if-needed', onWaitForRun: () => told++, runIndex: () => (indexedBeside++, engine.index()) });
    assert.equal(told, 1);
    assert.equal(indexedBeside, 0, 'the run it waited for made the index ready');
    assert.ok(r.ready);
    assert.ok(!engine.isIndexing());
    assert.equal(engine.whenIndexed(), undefined);
    assert.equal((await run).sources, 3);
  });

  it("pending vectors of a neural model: 'wait' computes them, 'partial' serves what there is, 'background' starts them", async () => {
    const model = new SlowModel();
    const engine = await engineOn(model);
    const report = await engine.index({ jobs: 0, vectors: 'later' });
    assert.equal(model.passages, 0);
    const partial = await engine.ready();
    assert.ok(partial.ready);
    assert.deepEqual(partial.health.state === 'ready' && partial.health.semantic, { model: model.key, embedded: 0, total: report.passages });
    assert.equal(model.passages, 0, 'partial: nothing embedded');
    assert.ok(!engine.embeddingState().running);
    const missing: number[] = [];
    const waited = await engine.ready({ vectors: 'wait', completeVectors: (p, m) => (missing.push(m.total - m.embedded), engine.completeVectors(p)) });
    assert.ok(waited.ready);
    assert.deepEqual(missing, [report.passages], 'the host is handed how many lack a vector');
    assert.equal(waited.vectors?.covered, report.passages);
    assert.equal(waited.health.state === 'ready' && waited.health.semantic, undefined, 'every passage has its vector now');
    assert.equal(model.passages, report.passages);

    const second = new SlowModel();
    const other = await engineOn(second);
    await other.index({ jobs: 0, vectors: 'later' });
    const bg = await other.ready({ vectors: 'background' });
    assert.ok(bg.ready);
    assert.ok(other.embeddingState().running, 'the background embedding started');
    await other.stopEmbedding();
  });

  it("cancelled vectors: not ready, what was committed said ('cancelled' with the vectors' report)", async () => {
    const model = new SlowModel();
    const engine = await engineOn(model);
    await engine.index({ jobs: 0, vectors: 'later' });
    const ac = new AbortController();
    ac.abort();
    const r = await engine.ready({ vectors: 'wait', signal: ac.signal });
    assert.deepEqual([r.ready, !r.ready && r.why, r.vectors?.cancelled], [false, 'cancelled', true]);
  });

  it("analysis options from settings: one function; the settings' defaults are the analysis' defaults", () => {
    const s = defaultSettings();
    assert.deepEqual(resolveOptions(analysisOptionsOf(s)), DEFAULT_OPTIONS);
    const custom = analysisOptionsOf({
      ...s,
      granularity: 'sentence',
      maxResults: 3,
      similarityThreshold: 0.4,
      sourceType: 'primary',
      collectionFilter: ['Thesis/Ch 1'],
      useReranking: 'off',
      useContextualEmbedding: false,
      minWords: 9,
    });
    assert.deepEqual(custom, {
      granularity: 'sentence',
      maxResults: 3,
      similarityThreshold: 0.4,
      sourceType: 'primary',
      collectionFilter: ['Thesis/Ch 1'],
      useReranking: 'off',
      useContextualEmbedding: false,
      minWords: 9,
    });
    assert.equal(analysisOptionsOf({ ...s, collectionFilter: [] }).collectionFilter, null, 'an empty filter is none');
  });
});
