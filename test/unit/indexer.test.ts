import assert from 'node:assert/strict';
import { promises as fs, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { storageKey, type EmbeddingProvider } from '../../src/core/embedding/provider';
import { updateIndex, type IndexReport } from '../../src/core/index/write/indexer';
import type { SourceInput } from '../../src/core/index/source';
import { indexHealth } from '../../src/core/index/health';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { errorHealth } from '../../src/shared/errors';
import { indexDir, readManifest, writeManifest } from '../../src/core/index/store/manifest';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { buildPdf } from '../support/pdfWriter';
import { LEXICAL_VERSION } from '../../src/core/index/store/versions';
import { readPassageShard, writePassageShard } from '../../src/core/index/store/shards';
import { extractPdf } from '../../src/core/pdf/extract';
import { lexicalTerms } from '../../src/core/retrieval/representation';
import { ENGLISH_HISTORY_HEADER, ENGLISH_HISTORY_TITLE, FRENCH_TITLE, writeFixtureLibrary } from '../support/pdfCorpus';

/** A second "model" so switching providers can be observed; counts what it embeds. */
class CountingProvider implements EmbeddingProvider {
  readonly id = 'test';
  readonly key: string;
  embedded = 0;
  constructor(
    readonly model: string,
    private readonly inner = new EmbeddedProvider(),
  ) {
    this.key = storageKey('test', model);
  }
  dimension() {
    return this.inner.dimension();
  }
  async embed(texts: string[], o?: { kind?: 'query' | 'passage' }) {
    if (o?.kind !== 'query') this.embedded += texts.length;
    return this.inner.embed(texts, o);
  }
}

async function setup() {
  const root = await fs.mkdtemp(join(tmpdir(), 'ss-index-'));
  const lib = join(root, 'library');
  await writeFixtureLibrary(lib);
  return { root, lib, workspace: root };
}

async function run(
  workspace: string,
  lib: string,
  provider: EmbeddingProvider = new EmbeddedProvider(),
  extra: Partial<Parameters<typeof updateIndex>[1]> = {},
  bib?: string,
): Promise<IndexReport> {
  const { inputs } = await libraryInputs({ folders: [lib], baseDir: workspace, bibliography: bib, primary: ['**/primary/**'] });
  return updateIndex(inputs, { workspace, provider, ...extra });
}

describe('index: build, search, incremental updates', function () {
  this.timeout(120_000);
  let ctx: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    ctx = await setup();
  });

  it('indexes the good PDFs and reports every broken one with its reason', async () => {
    const r = await run(ctx.workspace, ctx.lib);
    // truncated.pdf (the first half of a 4-page file) is indexed with what arrived, and reported.
    assert.equal(r.sources, 3);
    assert.equal(r.added, 3);
    assert.ok(r.passages >= 8, `passages: ${r.passages}`);
    const reasons = Object.fromEntries(r.skipped.map((s) => [s.path.split('/').pop(), s.reason]));
    assert.match(reasons['encrypted.pdf'], /encrypted/);
    assert.equal(reasons['truncated.pdf'], undefined);
    const damaged = r.damaged.find((d) => d.path.endsWith('truncated.pdf'));
    assert.match(damaged?.problem ?? '', /^read 2 of 4 pages \(missing: 3, 4\): truncated file/);
    assert.ok(
      r.warnings.some((w) => w.endsWith('truncated.pdf: ' + damaged!.problem)),
      r.warnings.join('\n'),
    );
    assert.match(reasons['not-a-pdf.pdf'], /not a valid PDF/);
    assert.match(reasons['empty.pdf'], /empty file/);
    assert.match(reasons['scanned.pdf'], /no text layer/);
    assert.match(r.fingerprint, /^[0-9a-f]{24}$/);
  });

  it('keeps pages, printed page labels, headings and metadata; drops running headers; joins hyphenation', async () => {
    const index = await LibraryIndex.open(ctx.workspace, new EmbeddedProvider());
    const en = index.sources.find((s) => s.path.endsWith('english-history.pdf'))!;
    assert.equal(en.title, ENGLISH_HISTORY_TITLE);
    assert.equal(en.year, 2019);
    const fr = index.sources.find((s) => s.path.endsWith('francais.pdf'))!;
    assert.equal(fr.title, FRENCH_TITLE);
    assert.equal(fr.titleFrom, 'first-page');
    const hits = await index.search('export licences tratte sold by the Sicilian crown viceroy', { k: 3 });
    assert.equal(hits[0].sourceRecord.path, en.path);
    assert.equal(hits[0].page, 3);
    assert.equal(hits[0].pageLabel, '13');
    assert.match(hits[0].heading ?? '', /Licences/);
    for (const p of index.passages) {
      assert.ok(!p.text.includes(ENGLISH_HISTORY_HEADER), 'running header left in a passage');
      assert.ok(!/historio- ?graphie/.test(p.text), 'hyphenation not joined');
    }
    assert.ok(index.passages.some((p) => p.text.includes('historiographie')));
    const frHits = await index.search('la longue durée de Braudel et les trois temps', { k: 1 });
    assert.equal(frHits[0].sourceRecord.path, fr.path);
  });

  it('does not re-read unchanged or merely touched files, and keeps the fingerprint', async () => {
    const before = (await readManifest(indexDir(ctx.workspace)))!.fingerprint;
    const r = await run(ctx.workspace, ctx.lib);
    assert.deepEqual([r.unchanged, r.added, r.updated, r.embedded], [3, 0, 0, 0]);
    const f = join(ctx.lib, 'english-history.pdf');
    const later = new Date(Date.now() + 5000);
    await fs.utimes(f, later, later);
    const t = await run(ctx.workspace, ctx.lib);
    assert.deepEqual([t.unchanged, t.updated, t.embedded], [3, 0, 0]);
    assert.equal(t.fingerprint, before);
  });

  it('replaces a changed PDF, drops a removed one, follows a moved one without re-embedding', async () => {
    const fp0 = (await readManifest(indexDir(ctx.workspace)))!.fingerprint;
    await fs.writeFile(
      join(ctx.lib, 'francais.pdf'),
      buildPdf({
        pages: [
          {
            heading: 'Les foires de Champagne',
            paragraphs: [
              'Les marchands italiens fréquentaient les foires de Champagne au XIIIe siècle. Les lettres de foire réglaient les dettes entre places.',
            ],
          },
        ],
      }),
    );
    const changed = await run(ctx.workspace, ctx.lib);
    assert.equal(changed.updated, 1);
    assert.notEqual(changed.fingerprint, fp0);
    const idx = await LibraryIndex.open(ctx.workspace, new EmbeddedProvider());
    const hit = (await idx.search('foires de Champagne lettres de foire', { k: 1 }))[0];
    assert.match(hit.text, /foires de Champagne/);
    assert.ok(!idx.passages.some((p) => p.text.includes('Braudel lui donne un nom')), 'old text of the changed file is gone');

    await fs.mkdir(join(ctx.lib, 'moved'), { recursive: true });
    await fs.rename(join(ctx.lib, 'english-history.pdf'), join(ctx.lib, 'moved', 'english-history.pdf'));
    const counting = new EmbeddedProvider();
    const moved = await run(ctx.workspace, ctx.lib, counting);
    assert.deepEqual([moved.moved, moved.removed, moved.embedded], [1, 0, 0]);

    await fs.rm(join(ctx.lib, 'francais.pdf'));
    const removed = await run(ctx.workspace, ctx.lib);
    assert.deepEqual([removed.removed, removed.sources], [1, 2]);
    const after = await LibraryIndex.open(ctx.workspace, new EmbeddedProvider());
    assert.ok(after.sources.every((s) => !s.path.endsWith('francais.pdf')));
    assert.ok(after.sources.some((s) => s.path.endsWith('moved/english-history.pdf')));
  });

  it('keeps embeddings per model: switching model and back does not re-embed', async () => {
    const other = new CountingProvider('other-v1');
    const r1 = await run(ctx.workspace, ctx.lib, other);
    assert.ok(other.embedded > 0 && r1.embedded === other.embedded);
    await assert.rejects(LibraryIndex.open(ctx.workspace, new CountingProvider('never-built')), (e: Error) => errorHealth(e)?.state === 'incomplete');
    const back = await run(ctx.workspace, ctx.lib, new EmbeddedProvider());
    assert.equal(back.embedded, 0);
    const again = new CountingProvider('other-v1');
    await run(ctx.workspace, ctx.lib, again);
    assert.equal(again.embedded, 0);
    const m = (await readManifest(indexDir(ctx.workspace)))!;
    assert.deepEqual(Object.keys(m.vectors).sort(), [new EmbeddedProvider().key, other.key].sort());
  });
});

describe('index: shards, filters, bibliography', function () {
  this.timeout(120_000);

  it('splits a library into bounded shards and searches across them', async () => {
    const { workspace, lib } = await setup();
    const r = await run(workspace, lib, new EmbeddedProvider(), { shardCapacity: 4 });
    const m = (await readManifest(indexDir(workspace)))!;
    assert.ok(Object.keys(m.shards).length >= 2, `shards: ${Object.keys(m.shards).length}`);
    for (const s of Object.values(m.shards)) assert.ok(s.passages <= 4 || Object.values(m.sources).some((x) => x.passages > 4));
    const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
    assert.equal(idx.size, r.passages);
    const files = readdirSync(join(indexDir(workspace), 'passages'));
    assert.equal(files.filter((f) => f.endsWith('.json')).length, Object.keys(m.shards).length, 'old generations are collected');
    assert.equal(files.filter((f) => f.endsWith('.postings')).length, Object.keys(m.shards).length, 'one postings file per shard, old ones collected');
  });

  it('takes citekey, authors, year and collections from a Better BibTeX JSON export; filters by collection and source type', async () => {
    const { workspace, lib } = await setup();
    await fs.mkdir(join(lib, 'primary'), { recursive: true });
    await fs.rename(join(lib, 'francais.pdf'), join(lib, 'primary', 'francais.pdf'));
    const bib = join(workspace, 'library.json');
    await fs.writeFile(
      bib,
      JSON.stringify({
        items: [
          {
            itemID: 1,
            citationKey: 'whitfield2019',
            itemType: 'journalArticle',
            title: 'Bread, Ships and Sovereigns',
            creators: [{ firstName: 'Margaret', lastName: 'Whitfield', creatorType: 'author' }],
            date: '2019-03-14',
            attachments: [{ path: join(lib, 'english-history.pdf') }],
          },
        ],
        collections: { A: { key: 'A', name: 'Grain', parent: false, items: [1], collections: [] } },
      }),
    );
    await run(workspace, lib, new EmbeddedProvider(), {}, bib);
    const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
    const en = idx.sources.find((s) => s.citekey === 'whitfield2019')!;
    assert.deepEqual([en.title, en.year, en.authors[0]], ['Bread, Ships and Sovereigns', 2019, 'Whitfield, Margaret']);
    assert.ok(en.collections.includes('Grain'));
    const inGrain = await idx.search('Braudel longue durée grain', { k: 20, filter: { collections: ['grain'] } });
    assert.ok(inGrain.length > 0 && inGrain.every((h) => h.sourceRecord.citekey === 'whitfield2019'));
    const primary = await idx.search('grain Braudel', { k: 20, filter: { sourceType: 'primary' } });
    assert.ok(primary.length > 0 && primary.every((h) => h.sourceRecord.path.endsWith('primary/francais.pdf')));
    const secondary = await idx.search('grain Braudel', { k: 20, filter: { sourceType: 'secondary' } });
    assert.ok(secondary.every((h) => h.sourceRecord.sourceType === 'secondary'));
  });
});

describe('index: damage, interruption and concurrent writers', function () {
  this.timeout(120_000);

  it('reports a missing index as missing, never as an empty result', async () => {
    const ws = await fs.mkdtemp(join(tmpdir(), 'ss-empty-'));
    await assert.rejects(
      LibraryIndex.open(ws, new EmbeddedProvider()),
      (e: Error) => errorHealth(e)?.state === 'missing' && /Index the library first/.test(e.message),
    );
  });

  it('detects a corrupt manifest, tells the user, and rebuilds', async () => {
    const { workspace, lib } = await setup();
    await run(workspace, lib);
    await fs.writeFile(join(indexDir(workspace), 'manifest.json'), '{"format":1,"sour');
    await assert.rejects(LibraryIndex.open(workspace, new EmbeddedProvider()), (e: Error) => errorHealth(e)?.state === 'corrupt');
    const warnings: string[] = [];
    const r = await run(workspace, lib, new EmbeddedProvider(), { onWarning: (w) => warnings.push(w) });
    assert.ok(
      warnings.some((w) => /not valid JSON.*rebuilding/.test(w)),
      warnings.join('\n'),
    );
    assert.deepEqual([r.sources, r.added], [3, 3]);
    await LibraryIndex.open(workspace, new EmbeddedProvider());
  });

  it('refuses an index another version built (other passages), says so, and the next run rebuilds it', async () => {
    const { workspace, lib } = await setup();
    await run(workspace, lib);
    const file = join(indexDir(workspace), 'manifest.json');
    const m = JSON.parse(await fs.readFile(file, 'utf8'));
    await fs.writeFile(file, JSON.stringify({ ...m, chunker: 0 }));
    await assert.rejects(
      LibraryIndex.open(workspace, new EmbeddedProvider()),
      (e: Error) => errorHealth(e)?.state === 'outdated' && /another version of Similar Sources \(passages v0/.test(e.message),
    );
    const st = await indexHealth(workspace);
    assert.equal(st.state, 'outdated');
    assert.match(st.state === 'outdated' ? st.detail : '', /passages v0/);
    const warnings: string[] = [];
    const r = await run(workspace, lib, new EmbeddedProvider(), { onWarning: (w) => warnings.push(w) });
    assert.ok(
      warnings.some((w) => /another version of Similar Sources.*rebuilding it/.test(w)),
      warnings.join('\n'),
    );
    assert.deepEqual([r.sources, r.added], [3, 3]);
    assert.equal((await indexHealth(workspace)).state, 'ready');
    await LibraryIndex.open(workspace, new EmbeddedProvider());
  });

  it('recomputes only the lexical terms an earlier version made: no PDF read again, no model re-embedded', async () => {
    const { workspace, lib } = await setup();
    const a = new CountingProvider('a');
    const b = new CountingProvider('b');
    await run(workspace, lib, b);
    await run(workspace, lib, a);
    // What an index from an earlier release looks like: other terms in every passage, another lexical version.
    const dir = indexDir(workspace);
    const m = (await readManifest(dir))!;
    for (const [key, rec] of Object.entries(m.shards)) {
      const list = await readPassageShard(dir, rec);
      for (const src of list) for (const p of src.passages) p.k = 'stale';
      m.shards[key] = await writePassageShard(dir, Number(key), rec.gen, list);
    }
    await writeManifest(dir, { ...m, lexical: 'lex-0' });
    await assert.rejects(
      LibraryIndex.open(workspace, a),
      (e: Error) => errorHealth(e)?.state === 'outdated' && /another version of Similar Sources.*terms lex-0/.test(e.message),
    );
    assert.equal((await indexHealth(workspace)).state, 'outdated');
    const embedded = [a.embedded, b.embedded];
    let extracted = 0;
    const { inputs } = await libraryInputs({
      folders: [lib],
      baseDir: workspace,
      primary: ['**/primary/**'],
      extractor: (bytes) => (extracted++, extractPdf(bytes)),
    });
    const warnings: string[] = [];
    const r = await updateIndex(inputs, { workspace, provider: a, onWarning: (w) => warnings.push(w) });
    assert.ok(
      warnings.some((w) => /another version.*recomputing its lexical terms/.test(w)),
      warnings.join('\n'),
    );
    assert.deepEqual([extracted, r.unchanged, r.added], [0, 3, 0]);
    assert.deepEqual([a.embedded, b.embedded], embedded, 'no passage embedded again');
    const after = (await readManifest(dir))!;
    assert.equal(after.lexical, LEXICAL_VERSION);
    for (const rec of Object.values(after.shards)) {
      for (const src of await readPassageShard(dir, rec)) {
        const title = after.sources[src.id].title;
        for (const p of src.passages) assert.equal(p.k, lexicalTerms({ sourceTitle: title, heading: p.h, text: p.t }).join(' '));
      }
    }
    assert.ok((await (await LibraryIndex.open(workspace, a)).search('foires de Champagne lettres de foire', { k: 1 })).length === 1);
    // Switching back to the other model re-links its stored vectors: nothing embedded either.
    await run(workspace, lib, b);
    assert.equal(b.embedded, embedded[1]);
    assert.ok((await (await LibraryIndex.open(workspace, b)).search('foires de Champagne lettres de foire', { k: 1 })).length === 1);
  });

  it('detects a damaged shard by checksum and re-indexes its sources', async () => {
    const { workspace, lib } = await setup();
    await run(workspace, lib);
    const m = (await readManifest(indexDir(workspace)))!;
    const shardFile = join(indexDir(workspace), Object.values(m.shards)[0].file);
    const text = await fs.readFile(shardFile, 'utf8');
    await fs.writeFile(shardFile, text.replace('grain', 'GRAIN'));
    // Opening reads the postings file, not the passages' text: the damaged passage is caught when it is read.
    const damaged = await LibraryIndex.open(workspace, new EmbeddedProvider());
    assert.throws(
      () => damaged.passages,
      (e: Error) => errorHealth(e)?.state === 'corrupt' && /damaged/.test(e.message),
    );
    damaged.close();
    const warnings: string[] = [];
    const r = await run(workspace, lib, new EmbeddedProvider(), { onWarning: (w) => warnings.push(w) });
    assert.ok(
      warnings.some((w) => /damaged.*indexed again/.test(w)),
      warnings.join('\n'),
    );
    assert.equal(r.sources, 3);
    await LibraryIndex.open(workspace, new EmbeddedProvider());
  });

  it('a cancelled run saves what it did and the next run finishes the rest', async () => {
    const { workspace, lib } = await setup();
    const ac = new AbortController();
    const { inputs } = await libraryInputs({ folders: [lib], baseDir: workspace });
    const r = await updateIndex(inputs, {
      workspace,
      provider: new EmbeddedProvider(),
      signal: ac.signal,
      commitEvery: 1,
      onProgress: (p) => {
        if (p.phase === 'read' && p.done === 3) ac.abort();
      },
    });
    assert.equal(r.cancelled, true);
    assert.ok(r.sources < 3 || r.skipped.length < 4);
    const next = await run(workspace, lib);
    assert.equal(next.sources, 3);
    assert.ok(next.unchanged + next.skipped.filter((s) => /unchanged since/.test(s.reason)).length >= 1, 'work of the cancelled run was kept');
  });

  it('serialises two writers on one workspace: neither clobbers the other', async () => {
    const { workspace, lib } = await setup();
    const [a, b] = await Promise.all([run(workspace, lib), run(workspace, lib)]);
    assert.equal(a.sources, 3);
    assert.equal(b.sources, 3);
    assert.equal(a.added + b.added, 3, "the second writer saw the first one's work");
    const idx = await LibraryIndex.open(workspace, new EmbeddedProvider());
    assert.equal(idx.sources.length, 3);
  });
});

describe('index: read-ahead', function () {
  this.timeout(30000);
  /** Twenty small sources; records how far ahead of the file being indexed each extraction starts. */
  function inputs(size: number) {
    const state = { current: -1, maxLead: 0, started: 0 };
    const list: SourceInput[] = Array.from({ length: 20 }, (_, i) => ({
      path: `mem:${i}`,
      size,
      mtimeMs: 0,
      sourceType: 'secondary' as const,
      contentHash: `hash-${i}`,
      extract: async () => {
        state.started++;
        state.maxLead = Math.max(state.maxLead, i - state.current);
        return {
          pages: [{ page: 1, blocks: [{ kind: 'text' as const, text: `Source ${i} discusses the grain trade of port ${i} in some detail.` }] }],
          pageCount: 1,
          meta: { title: `Source ${i}`, authors: [], collections: [], titleFrom: 'bibliography' as const },
        };
      },
    }));
    return { list, state };
  }
  const index = async (list: SourceInput[], state: { current: number }, extra: Partial<Parameters<typeof updateIndex>[1]>) => {
    const workspace = await fs.mkdtemp(join(tmpdir(), 'ss-ahead-'));
    try {
      return await updateIndex(list, {
        workspace,
        provider: new EmbeddedProvider(),
        onProgress: (p) => p.phase === 'read' && (state.current = p.done),
        ...extra,
      });
    } finally {
      await fs.rm(workspace, { recursive: true, force: true });
    }
  };

  it('extracts up to 8 files ahead by default, so the PDF workers keep going through commits', async () => {
    const { list, state } = inputs(1000);
    const r = await index(list, state, {});
    assert.equal(r.sources, 20);
    assert.equal(state.started, 20);
    assert.equal(state.maxLead, 8);
  });

  it('reads ahead only as many bytes as the budget allows, and always the file at hand', async () => {
    const small = inputs(1000);
    await index(small.list, small.state, { readAheadBytes: 2500 });
    assert.equal(small.state.maxLead, 1);
    const huge = inputs(10_000);
    const r = await index(huge.list, huge.state, { readAheadBytes: 2500 });
    assert.equal(r.sources, 20);
    assert.equal(huge.state.maxLead, 0);
  });
});

describe('index: skipped files', function () {
  this.timeout(60_000);
  it('are not read again while unchanged, unless the reader that skipped them is older than this one', async () => {
    const workspace = await fs.mkdtemp(join(tmpdir(), 'ss-skip-'));
    let reads = 0;
    const broken: SourceInput = {
      path: join(workspace, 'broken.pdf'),
      size: 10,
      mtimeMs: 1,
      sourceType: 'secondary',
      contentHash: 'b'.repeat(64),
      extract: async () => {
        reads++;
        throw new Error('not a valid PDF (test)');
      },
    };
    const first = await updateIndex([broken], { workspace, provider: new EmbeddedProvider() });
    assert.deepEqual(
      first.skipped.map((s) => s.reason),
      ['not a valid PDF (test)'],
    );
    const second = await updateIndex([broken], { workspace, provider: new EmbeddedProvider() });
    assert.match(second.skipped[0].reason, /unchanged since the last attempt/);
    assert.equal(reads, 1, 'an unchanged skipped file is not read again');
    // A record written by an older reader (before READER_VERSION existed): tried again.
    const dir = indexDir(workspace);
    const m = (await readManifest(dir))!;
    delete m.skipped[broken.path].reader;
    await writeManifest(dir, m);
    const third = await updateIndex([broken], { workspace, provider: new EmbeddedProvider() });
    assert.equal(reads, 2, 'read again by the newer reader');
    assert.deepEqual(
      third.skipped.map((s) => s.reason),
      ['not a valid PDF (test)'],
    );
  });
});
