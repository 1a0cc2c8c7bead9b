import assert from 'node:assert/strict';
import { promises as fs, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeDocument, cachedAnalysis, type AnalysisResult } from '../../src/core/analysis/analyze';
import { errorCode, errorHealth } from '../../src/shared/errors';
import { AnalysisCache } from '../../src/core/analysis/cache';
import { OptionsError, resolveOptions } from '../../src/core/analysis/options';
import { OllamaReranker, parseOrder } from '../../src/core/analysis/rerank';
import { bandOf } from '../../src/shared/bands';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { startFakeOllama } from '../support/fakeOllama';
import { buildPdf } from '../support/pdfWriter';
import { writeFixtureLibrary } from '../support/pdfCorpus';

const DRAFT = `---
title: Bread and the Sea
---
# Bread and the Sea

## Licences

The viceroys of Sicily sold export licences for grain, and Genoese merchants speculated on them before the harvest [@whitfield2019, p. 13].

## Historiographie

Braudel a organisé le temps historique en trois étages, de la géographie à l'événement, et la longue durée est devenue le langage commun des sciences sociales.

## Ships

Grain carriers were small ships owned in shares, freighted for one voyage, insured against shipwreck, piracy and the slow ruin of a wet hold.

Too short.
`;

async function fixtureWorkspace(extra?: (lib: string) => Promise<void>) {
  const ws = await fs.mkdtemp(join(tmpdir(), 'ss-analyze-'));
  const lib = join(ws, 'library');
  await writeFixtureLibrary(lib);
  await extra?.(lib);
  const bib = join(ws, 'library.json');
  await fs.writeFile(
    bib,
    JSON.stringify({
      items: [
        {
          itemID: 1,
          citationKey: 'whitfield2019',
          itemType: 'journalArticle',
          title: 'Bread, Ships and Sovereigns',
          creators: [{ firstName: 'Margaret', lastName: 'Whitfield' }],
          date: '2019',
          attachments: [{ path: join(lib, 'english-history.pdf') }],
        },
      ],
      collections: {},
    }),
  );
  const { inputs } = await libraryInputs({ folders: [lib], baseDir: ws, bibliography: bib });
  await updateIndex(inputs, { workspace: ws, provider: new EmbeddedProvider() });
  return ws;
}

const open = (ws: string) => () => LibraryIndex.open(ws, new EmbeddedProvider());

describe('analyzeDocument', function () {
  this.timeout(120_000);
  let ws: string;
  before(async () => {
    ws = await fixtureWorkspace();
  });

  it('rejects out-of-range options with a clear message', () => {
    assert.throws(
      () => resolveOptions({ maxResults: 0 }),
      (e: Error) => e instanceof OptionsError && /maxResults must be a whole number from 1 to 20/.test(e.message),
    );
    assert.throws(() => resolveOptions({ maxResults: 21 }), OptionsError);
    assert.throws(() => resolveOptions({ similarityThreshold: 1.5 }), /similarityThreshold must be a number from 0 to 1/);
    assert.throws(() => resolveOptions({ granularity: 'chapter' as never }), /granularity/);
    assert.throws(() => resolveOptions({ sourceType: 'tertiary' as never }), /sourceType/);
    const d = resolveOptions();
    assert.deepEqual(
      [d.granularity, d.maxResults, d.similarityThreshold, d.sourceType, d.useReranking, d.useContextualEmbedding],
      ['paragraph', 5, 0, 'secondary', 'auto', true],
    );
    // The boolean of earlier versions: true is 'auto' (the old default), false 'off'.
    assert.equal(resolveOptions({ useReranking: true }).useReranking, 'auto');
    assert.equal(resolveOptions({ useReranking: false }).useReranking, 'off');
    assert.equal(resolveOptions({ useReranking: 'on' }).useReranking, 'on');
    assert.throws(() => resolveOptions({ useReranking: 'sometimes' as never }), /useReranking must be "auto", "on" or "off"/);
  });

  it('finds the source each paragraph is about, one card per source, with page labels, citations and cited flags', async () => {
    const r = await analyzeDocument(DRAFT, { useReranking: false }, { index: open(ws), workspace: ws, documentPath: 'draft.md', cache: false });
    const [licences, histo, ships, short] = r.segments;
    assert.equal(r.documentTitle, 'Bread and the Sea');
    assert.equal(short.status, 'too-short');
    assert.deepEqual(short.recommendations, []);
    const top = licences.recommendations[0];
    assert.ok(top.path.endsWith('english-history.pdf'));
    assert.equal(top.citekey, 'whitfield2019');
    assert.equal(top.alreadyCited, true, 'the paragraph cites @whitfield2019');
    assert.equal(top.pageLabel, '13');
    assert.equal(top.citation, '[@whitfield2019, p. 13]');
    assert.ok(top.passages.length >= 1 && top.passages.length <= 3);
    // "licences" is in nearly every passage of this library; the rare words carried the match.
    assert.ok(top.highlights.includes('Sicily') && top.highlights.some((w) => /^viceroy/i.test(w)), top.highlights.join(', '));
    assert.ok(!top.highlights.some((w) => /licen/i.test(w)), top.highlights.join(', '));
    assert.ok(histo.recommendations[0].path.endsWith('francais.pdf'));
    assert.equal(histo.recommendations[0].alreadyCited, false);
    // Its best passage runs over two pages: the link names both, and opens the first.
    const h = histo.recommendations[0];
    assert.match(h.citation, /^\[Dubreuil, (p\. \d+|pp\. \d+–\d+)\]\(<file:\/\/.*francais\.pdf#page=\d+>\)$/);
    assert.equal(/pp\./.test(h.citation), (h.endPage ?? h.page) > h.page);
    assert.ok(ships.recommendations[0].path.endsWith('english-history.pdf'));
    for (const s of r.segments) {
      const paths = s.recommendations.map((x) => x.path);
      assert.equal(new Set(paths).size, paths.length, 'one card per source');
      for (const rec of s.recommendations) assert.ok(rec.similarity >= 0 && rec.similarity <= 1);
    }
    assert.ok(top.similarity > licences.recommendations[1].similarity, 'the right source is also the more similar one');
    assert.deepEqual(r.stats, { ...r.stats, segments: 4, segmentsAnalyzed: 3, segmentsFromCache: 0 });
  });

  it('applies the threshold to the calibrated similarity and honours maxResults', async () => {
    const all = await analyzeDocument(DRAFT, { useReranking: false }, { index: open(ws), workspace: ws, cache: false });
    const sims = all.segments.flatMap((s) => s.recommendations.map((r) => r.similarity));
    const cut = (Math.min(...sims) + Math.max(...sims)) / 2;
    const high = await analyzeDocument(DRAFT, { useReranking: false, similarityThreshold: cut }, { index: open(ws), workspace: ws, cache: false });
    const kept = high.segments.flatMap((s) => s.recommendations);
    assert.ok(kept.length > 0 && kept.length < sims.length);
    assert.ok(kept.every((r) => r.similarity >= cut));
    const one = await analyzeDocument(DRAFT, { useReranking: false, maxResults: 1 }, { index: open(ws), workspace: ws, cache: false });
    assert.ok(one.segments.every((s) => s.recommendations.length <= 1));
  });

  it('reports progress as "segment i of n" and stops promptly when cancelled, caching nothing', async () => {
    const cws = await fixtureWorkspace();
    const progress: string[] = [];
    const ac = new AbortController();
    await assert.rejects(
      analyzeDocument(
        DRAFT,
        { useReranking: false },
        {
          index: open(cws),
          workspace: cws,
          documentPath: 'draft.md',
          signal: ac.signal,
          onProgress: (p) => {
            progress.push(`${p.current}/${p.total}`);
            if (p.current === 2) ac.abort();
          },
        },
      ),
      (e: Error) => errorCode(e) === 'cancelled',
    );
    assert.deepEqual(progress, ['1/3', '2/3']);
    assert.ok(!existsSync(join(indexDir(cws), 'cache')) || readdirSync(join(indexDir(cws), 'cache')).length === 0, 'nothing cached');
  });

  it('says when the index is missing or being built, instead of "no source"', async () => {
    const empty = await fs.mkdtemp(join(tmpdir(), 'ss-noindex-'));
    const ctx = { index: open(empty), workspace: empty, cache: false as const };
    await assert.rejects(analyzeDocument(DRAFT, {}, ctx), (e: Error) => errorCode(e) === 'index-not-ready' && errorHealth(e)?.state === 'missing');
    await fs.mkdir(indexDir(empty), { recursive: true });
    await fs.writeFile(join(indexDir(empty), 'index.lock'), JSON.stringify({ pid: process.pid, host: 'x', since: 'now', what: 'indexing' }));
    await assert.rejects(analyzeDocument(DRAFT, {}, ctx), (e: Error) => errorHealth(e)?.state === 'indexing' && /being indexed/.test(e.message));
  });

  it('collapses near-identical passages of different sources onto the higher-ranked one', async () => {
    const text =
      'The Hanseatic Kontor at Bergen traded stockfish for grain, and its German merchants lived apart in the Bryggen wharf under strict rules of celibacy and discipline.';
    const dws = await fixtureWorkspace(async (lib) => {
      await fs.writeFile(join(lib, 'hansa-a.pdf'), buildPdf({ info: { Title: 'The Kontor at Bergen' }, pages: [{ paragraphs: [text] }] }));
      await fs.writeFile(join(lib, 'hansa-b.pdf'), buildPdf({ info: { Title: 'Bergen and the Hansa (reprint)' }, pages: [{ paragraphs: [text] }] }));
    });
    const r = await analyzeDocument(
      'German merchants of the Hanseatic Kontor in Bergen traded stockfish and lived apart on the Bryggen wharf.',
      { useReranking: false },
      { index: open(dws), workspace: dws, cache: false },
    );
    const recs = r.segments[0].recommendations;
    const hansa = recs.filter((x) => /hansa-[ab]\.pdf$/.test(x.path));
    assert.equal(hansa.length, 1, recs.map((x) => x.path).join(', '));
    assert.equal(hansa[0].duplicates.length, 1);
  });
});

describe('analysis cache', function () {
  this.timeout(120_000);
  let ws: string;
  before(async () => {
    ws = await fixtureWorkspace();
  });
  const run = (doc: string, opts = {}, cache = new AnalysisCache(ws)): Promise<AnalysisResult> =>
    analyzeDocument(doc, { useReranking: false, ...opts }, { index: open(ws), workspace: ws, documentPath: 'draft.md', cache });

  it('serves an unchanged draft from the cache and re-analyses only an edited paragraph', async () => {
    const first = await run(DRAFT);
    assert.equal(first.fromCache, false);
    const second = await run(DRAFT);
    assert.equal(second.fromCache, true);
    assert.deepEqual([second.stats.segmentsAnalyzed, second.stats.segmentsFromCache], [0, 3]);
    assert.deepEqual(
      second.segments.map((s) => s.recommendations.map((r) => r.path)),
      first.segments.map((s) => s.recommendations.map((r) => r.path)),
    );
    const edited = DRAFT.replace('small ships owned in shares', 'modest vessels owned in shares');
    const third = await run(edited);
    assert.equal(third.fromCache, false);
    assert.deepEqual([third.stats.segmentsAnalyzed, third.stats.segmentsFromCache], [1, 2]);
    assert.equal(third.segments[2].fromCache, false);
  });

  it('keeps the segmentation of an unchanged document (no re-parse), and segments an edited one afresh', async () => {
    const first = await run(DRAFT);
    const dir = join(indexDir(ws), 'cache');
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.json'));
    const data = JSON.parse(await fs.readFile(join(dir, file), 'utf8'));
    assert.deepEqual(
      data.layout.segments,
      first.segments.map(({ status, fromCache, recommendations, ...seg }) => seg),
    );
    // A mark put in the stored layout shows up: the hit used it instead of parsing the draft again.
    data.layout.segments[0].title = 'stored layout';
    await fs.writeFile(join(dir, file), JSON.stringify(data));
    const hit = await run(DRAFT);
    assert.equal(hit.fromCache, true);
    assert.equal(hit.segments[0].title, 'stored layout');
    const edited = await run(`${DRAFT}\n`);
    assert.notEqual(edited.segments[0].title, 'stored layout');
    assert.deepEqual(
      edited.segments.map((s) => s.query),
      first.segments.map((s) => s.query),
    );
  });

  it('gives a fully cached document back without loading the index, and nothing otherwise', async () => {
    const manifest = (await readManifest(indexDir(ws)))!;
    const restoreCtx = {
      workspace: ws,
      documentPath: 'draft.md',
      cache: new AnalysisCache(ws),
      fingerprint: manifest.fingerprint,
      model: new EmbeddedProvider().key,
    };
    const other = `${DRAFT}\nA further paragraph about Genoese merchants and the grain licences of Sicily.\n`;
    assert.equal(await cachedAnalysis(other, { useReranking: false }, restoreCtx), undefined, 'never analysed');
    const analyzed = await run(DRAFT);
    const restored = await cachedAnalysis(DRAFT, { useReranking: false }, restoreCtx);
    assert.ok(restored, 'a complete cache hit');
    assert.equal(restored.fromCache, true);
    assert.equal(restored.stats.segmentsAnalyzed, 0);
    assert.deepEqual(
      restored.segments.map((x) => x.recommendations),
      analyzed.segments.map((x) => x.recommendations),
    );
    assert.equal(await cachedAnalysis(DRAFT, { useReranking: false }, { ...restoreCtx, fingerprint: 'another-index-state' }), undefined);
    assert.equal(await cachedAnalysis(DRAFT, { useReranking: false, maxResults: 1 }, restoreCtx), undefined, 'other options');
    assert.equal(await cachedAnalysis(DRAFT.replace('small ships', 'modest vessels'), { useReranking: false }, restoreCtx), undefined, 'edited');
  });

  it('misses when an option that changes results changes, and after the lifetime', async () => {
    await run(DRAFT);
    const other = await run(DRAFT, { maxResults: 2 });
    assert.equal(other.stats.segmentsFromCache, 0);
    const expired = await run(DRAFT, { maxResults: 2 }, new AnalysisCache(ws, 0));
    assert.equal(expired.stats.segmentsFromCache, 0);
  });

  it('misses when the library index changes (fingerprint)', async () => {
    await run(DRAFT);
    const lib = join(ws, 'library');
    await fs.writeFile(
      join(lib, 'extra.pdf'),
      buildPdf({ info: { Title: 'Extra' }, pages: [{ paragraphs: ['A new source about grain ships and licences in Sicily.'] }] }),
    );
    const { inputs } = await libraryInputs({ folders: [lib], baseDir: ws });
    await updateIndex(inputs, { workspace: ws, provider: new EmbeddedProvider() });
    const after = await run(DRAFT);
    assert.equal(after.stats.segmentsFromCache, 0);
  });

  it('ignores a corrupt cache file and rewrites it', async () => {
    await run(DRAFT);
    const dir = join(indexDir(ws), 'cache');
    for (const f of readdirSync(dir)) await fs.writeFile(join(dir, f), '{ not json');
    const logs: string[] = [];
    const r = await analyzeDocument(DRAFT, { useReranking: false }, { index: open(ws), workspace: ws, documentPath: 'draft.md', log: (l) => logs.push(l) });
    assert.equal(r.fromCache, false);
    assert.ok(logs.some((l) => /unreadable and will be rewritten/.test(l)));
    assert.equal((await run(DRAFT)).fromCache, true);
  });
});

describe('LLM reranking', function () {
  this.timeout(120_000);
  let ws: string;
  before(async () => {
    ws = await fixtureWorkspace();
  });

  it('reorders the top candidates, marks them reranked and keeps the retrieval similarity', async () => {
    const fake = await startFakeOllama({ chatModels: ['llama3.2'], generate: () => '2, 1' });
    try {
      const base = await analyzeDocument(DRAFT, { useReranking: false }, { index: open(ws), workspace: ws, cache: false });
      const r = await analyzeDocument(
        DRAFT,
        { useReranking: true },
        { index: open(ws), workspace: ws, cache: false, reranker: new OllamaReranker({ host: fake.url }) },
      );
      assert.equal(r.reranking.used, true);
      const b = base.segments[0].recommendations;
      const x = r.segments[0].recommendations;
      assert.equal(x[0].path, b[1].path);
      assert.equal(x[1].path, b[0].path);
      assert.ok(x.slice(0, 2).every((rec) => rec.reranked));
      // The LLM put the weaker card first: the shown similarity is made to agree with its order
      // (the two pooled to their mean), so no card comes before a stronger one.
      const pooled = Math.round(((b[0].similarity + b[1].similarity) / 2) * 1000) / 1000;
      assert.ok(b[0].similarity > b[1].similarity);
      assert.deepEqual([x[0].similarity, x[1].similarity], [pooled, pooled]);
      assert.equal(x[0].band, bandOf(pooled));
      for (const seg of r.segments)
        for (let i = 1; i < seg.recommendations.length; i++) assert.ok(seg.recommendations[i - 1].similarity >= seg.recommendations[i].similarity);
      assert.ok(fake.requests.some((q) => q.path === '/api/generate'));
    } finally {
      await fake.close();
    }
  });

  it('falls back to the retrieval order with a log line when the LLM fails or is absent', async () => {
    const fake = await startFakeOllama({ chatModels: ['llama3.2'], failRequests: [2, 3, 4, 5] });
    const logs: string[] = [];
    try {
      const base = await analyzeDocument(DRAFT, { useReranking: false }, { index: open(ws), workspace: ws, cache: false });
      const r = await analyzeDocument(
        DRAFT,
        {},
        { index: open(ws), workspace: ws, cache: false, reranker: new OllamaReranker({ host: fake.url }), log: (l) => logs.push(l) },
      );
      assert.deepEqual(
        r.segments[0].recommendations.map((x) => x.path),
        base.segments[0].recommendations.map((x) => x.path),
      );
      assert.ok(r.segments[0].recommendations.every((x) => !x.reranked));
      assert.ok(
        logs.some((l) => /reranking failed .* retrieval order kept/.test(l)),
        logs.join('\n'),
      );
    } finally {
      await fake.close();
    }
    // Asked for explicitly ('on'): a note says why it did not run.
    const closed = await analyzeDocument(
      DRAFT,
      { useReranking: 'on' },
      { index: open(ws), workspace: ws, cache: false, reranker: new OllamaReranker({ host: 'http://127.0.0.1:9' }) },
    );
    assert.equal(closed.reranking.used, false);
    assert.equal(closed.reranking.requested, true);
    assert.match(closed.reranking.note ?? '', /not reachable at http:\/\/127\.0\.0\.1:9/);
  });

  it("'auto' (the default) uses a reachable reranker, and otherwise stays quiet: a debug log line and a hint, no note", async () => {
    const logs: Array<[string, string | undefined]> = [];
    const log = (l: string, level?: 'info' | 'debug') => logs.push([l, level]);
    const base = await analyzeDocument(DRAFT, { useReranking: 'off' }, { index: open(ws), workspace: ws, cache: false });
    const quiet = await analyzeDocument(
      DRAFT,
      {},
      { index: open(ws), workspace: ws, cache: false, reranker: new OllamaReranker({ host: 'http://127.0.0.1:9' }), log },
    );
    assert.deepEqual(quiet.reranking, {
      mode: 'auto',
      requested: false,
      used: false,
      hint: 'LLM reranking is available when Ollama llama3.2 at http://127.0.0.1:9 is reachable',
    });
    assert.deepEqual(
      logs.map(([, level]) => level),
      ['debug'],
      'one log line, at debug level',
    );
    assert.match(logs[0][0], /reranking \(auto\) not used: .*not reachable/);
    assert.deepEqual(
      quiet.segments.map((s) => s.recommendations.map((x) => x.path)),
      base.segments.map((s) => s.recommendations.map((x) => x.path)),
    );
    const none = await analyzeDocument(DRAFT, {}, { index: open(ws), workspace: ws, cache: false });
    assert.equal(none.reranking.note, undefined);
    assert.match(none.reranking.hint ?? '', /needs an LLM/);
    assert.equal(
      (await analyzeDocument(DRAFT, { useReranking: 'on' }, { index: open(ws), workspace: ws, cache: false })).reranking.note,
      'reranking skipped: no LLM is configured; retrieval order kept',
    );
    const fake = await startFakeOllama({ chatModels: ['llama3.2'], generate: () => '2, 1' });
    try {
      const used = await analyzeDocument(DRAFT, {}, { index: open(ws), workspace: ws, cache: false, reranker: new OllamaReranker({ host: fake.url }) });
      assert.deepEqual([used.reranking.used, used.reranking.note, used.reranking.hint], [true, undefined, undefined]);
      assert.ok(used.segments[0].recommendations[0].reranked);
    } finally {
      await fake.close();
    }
    // 'off' never asks the reranker.
    let asked = false;
    const spy = { description: 'spy', unavailable: async () => ((asked = true), undefined), rerank: async () => [] };
    await analyzeDocument(DRAFT, { useReranking: 'off' }, { index: open(ws), workspace: ws, cache: false, reranker: spy });
    assert.equal(asked, false);
  });

  it('parses an LLM answer into a full order', () => {
    assert.deepEqual(parseOrder('3, 1', ['a', 'b', 'c']), ['c', 'a', 'b']);
    assert.deepEqual(parseOrder('Passage 2 then 2 then 9', ['a', 'b']), ['b', 'a']);
    assert.throws(() => parseOrder('none of them', ['a']), /names no passage/);
  });
});
