import assert from 'node:assert/strict';
import { errorCode } from '../../src/shared/errors';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeDocument } from '../../src/core/analysis/analyze';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import type { SourceInput } from '../../src/core/index/source';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { encode, EMBEDDED_DIM } from '../../src/core/embedding/embeddedEncoder';
import { Bm25Index } from '../../src/core/retrieval/bm25';
import { rankPassages, vectorHitsMany, type PassageCollection } from '../../src/core/retrieval/hybrid';
import { lexicalTerms } from '../../src/core/retrieval/representation';
import { allocateVectors, isKernelBacked } from '../../src/core/retrieval/simd/vectorStore';

// Small deterministic library: each source draws its sentences from one topic's words.
const TOPICS = [
  'grain harvest merchants licences export Sicily famine prices granary',
  'ships hull freight insurance shipwreck piracy voyage harbour cargo',
  'Braudel longue durée géographie événement histoire temps structure',
  'monastery abbey monks manuscripts scriptorium liturgy tithe estates',
  'printing press books booksellers censorship pamphlets readers Venice',
  'plague epidemic quarantine physicians mortality contagion hospitals',
].map((t) => t.split(' '));
const FILLER = 'the of and in a was were by for with from on their as this that'.split(' ');

function rng(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

function text(topic: number, r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const pool = r() < 0.45 ? TOPICS[topic] : r() < 0.15 ? TOPICS[(topic + 1) % TOPICS.length] : FILLER;
    out.push(pool[Math.floor(r() * pool.length)]);
  }
  return out.join(' ') + '.';
}

function sources(n: number): SourceInput[] {
  return Array.from({ length: n }, (_, i) => {
    const r = rng(i + 1);
    const topic = i % TOPICS.length;
    const pages = Array.from({ length: 3 }, (_, p) => ({ page: p + 1, blocks: [0, 1, 2].map(() => ({ kind: 'text' as const, text: text(topic, r, 70) })) }));
    return {
      path: join(tmpdir(), 'ss-batch-lib', `source-${i}.pdf`),
      size: 1000 + i,
      mtimeMs: 1_600_000_000_000,
      sourceType: i % 4 === 0 ? 'primary' : 'secondary',
      contentHash: `batch-${i}`,
      extract: async () => ({
        pages,
        pageCount: pages.length,
        meta: { title: `Source ${i} on ${TOPICS[topic][0]}`, authors: [`Author ${i}`], collections: i % 2 ? ['odd'] : [], titleFrom: 'pdf-info' as const },
      }),
    };
  });
}

describe('batched search (searchMany) and batched analysis', function () {
  this.timeout(120_000);
  let ws: string;
  before(async () => {
    ws = await fs.mkdtemp(join(tmpdir(), 'ss-batch-'));
    await updateIndex(sources(40), { workspace: ws, provider: new EmbeddedProvider() });
  });
  after(() => fs.rm(ws, { recursive: true, force: true }));

  const open = () => LibraryIndex.open(ws, new EmbeddedProvider());

  it('loads the vectors into kernel memory', async () => {
    const index = await open();
    assert.ok(isKernelBacked((index as unknown as { collection: PassageCollection }).collection.vectors));
  });

  it('returns for each item exactly what search() returns, with any filter', async () => {
    const index = await open();
    const r = rng(77);
    const items = Array.from({ length: 11 }, (_, i) => ({
      text: text(i % TOPICS.length, r, 25),
      vectorText: i % 3 ? `Context ${i}\n${text(i % TOPICS.length, r, 25)}` : undefined,
    }));
    for (const filter of [undefined, { sourceType: 'primary' as const }, { sourceType: 'both' as const, collections: ['odd'] }]) {
      const many = await index.searchMany(items, { k: 20, filter });
      assert.equal(many.length, items.length);
      for (const [i, it] of items.entries()) {
        const one = await index.search(it.text, { k: 20, filter, vectorText: it.vectorText });
        assert.ok(one.length > 0);
        assert.deepEqual(many[i], one, `item ${i}, filter ${JSON.stringify(filter)}`);
      }
    }
    assert.deepEqual(await index.searchMany([], { k: 5 }), []);
  });

  it('analyses a long draft in batches: progress per segment, same results as a JS-scanned index', async () => {
    const r = rng(5);
    const draft = ['# Trade and the sea', '', ...Array.from({ length: 19 }, (_, i) => [text(i % TOPICS.length, r, 30), '']).flat()].join('\n');
    const progress: number[] = [];
    const kernel = await analyzeDocument(
      draft,
      { useReranking: false },
      { index: await open(), workspace: ws, cache: false, onProgress: (p) => progress.push(p.current) },
    );
    assert.deepEqual(
      progress,
      Array.from({ length: 19 }, (_, i) => i + 1),
    );
    assert.equal(kernel.stats.segmentsAnalyzed, 19);
    // The same index loaded where WebAssembly SIMD is "unavailable": plain arrays, JS scans.
    const wasm = WebAssembly as { validate: typeof WebAssembly.validate };
    const validate = wasm.validate;
    let plain: LibraryIndex;
    try {
      wasm.validate = () => false;
      plain = await open();
    } finally {
      wasm.validate = validate;
    }
    assert.ok(!isKernelBacked((plain as unknown as { collection: PassageCollection }).collection.vectors));
    const js = await analyzeDocument(draft, { useReranking: false }, { index: plain, workspace: ws, cache: false });
    assert.deepEqual(kernel.segments, js.segments);
    assert.ok(kernel.segments.some((s) => s.recommendations.length > 0));
  });

  it('stops between segments of a batch when cancelled', async () => {
    const r = rng(6);
    const draft = Array.from({ length: 12 }, (_, i) => text(i % TOPICS.length, r, 30)).join('\n\n');
    const ac = new AbortController();
    const seen: number[] = [];
    await assert.rejects(
      analyzeDocument(
        draft,
        { useReranking: false },
        {
          index: await open(),
          workspace: ws,
          cache: false,
          signal: ac.signal,
          onProgress: (p) => {
            seen.push(p.current);
            if (p.current === 3) ac.abort();
          },
        },
      ),
      (e: Error) => errorCode(e) === 'cancelled',
    );
    assert.deepEqual(seen, [1, 2, 3]);
  });
});

describe('precomputed vector lists (vectorHitsMany)', () => {
  it('rank exactly as the query scanning alone, with or without feedback, filter or a foreign vector', () => {
    const r = rng(9);
    const texts = Array.from({ length: 300 }, (_, i) => text(i % TOPICS.length, r, 40));
    const lexical = new Bm25Index();
    const vectors = allocateVectors(texts.length, EMBEDDED_DIM);
    texts.forEach((t, i) => {
      lexical.add(i, lexicalTerms({ sourceTitle: `Source ${i % 30}`, text: t }));
      vectors.set(encode(t, 'passage'), i * EMBEDDED_DIM);
    });
    const c: PassageCollection = { lexical, vectors, dim: EMBEDDED_DIM, count: texts.length, sourceOfRow: Int32Array.from(texts, (_, i) => i % 30) };
    const queries = Array.from({ length: 10 }, (_, i) => {
      const t = text(i % TOPICS.length, r, 20);
      return { text: t, vector: i === 4 ? new Float32Array(3) : encode(t, 'query') };
    });
    const accept = (row: number) => row % 7 !== 0;
    for (const params of [{}, { prfRows: 5, prfWeight: 0.5 }, { vectorWeight: 0 }]) {
      const lists = vectorHitsMany(
        c,
        queries.map((q) => q.vector),
        { accept, params },
      );
      assert.equal(lists[4], undefined, 'a vector of another dimension takes no list');
      queries.forEach((q, i) => {
        assert.deepEqual(rankPassages(c, q, { k: 15, accept, params, vectorHits: lists[i] }), rankPassages(c, q, { k: 15, accept, params }));
      });
    }
  });
});
