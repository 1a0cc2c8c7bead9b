/**
 * Rankings, cards and similarity figures that do not depend on the order the rows are loaded in
 * (core/retrieval/tieKeys.ts): the same library indexed in two orders, with two copies of one PDF
 * (whose passages always tie), gives the same hits, scores, cosines and standouts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeDocument } from '../../src/core/analysis/analyze';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { LibraryIndex, type SearchHit } from '../../src/core/index/search/libraryIndex';
import type { SourceInput } from '../../src/core/index/source';
import { updateIndex } from '../../src/core/index/write/indexer';
import { sampleRows, tieCompare } from '../../src/core/retrieval/tieKeys';
import { syntheticDraft, draftMarkdown, syntheticSource } from '../../scripts/bench/corpus';

const LIB = join(tmpdir(), 'ss-tie-order-lib');

/** Sources numbered `numbers` (600 words each); source 1000 is a second copy of source 3, under another name. */
function inputs(numbers: number[]): SourceInput[] {
  return numbers.map((i) => {
    const of = i === 1000 ? 3 : i;
    return {
      path: join(LIB, `source-${i}.pdf`),
      size: 1000 + of,
      mtimeMs: 1_600_000_000_000,
      sourceType: 'secondary',
      contentHash: `tie-order-${of}`,
      extract: async () => {
        const g = syntheticSource(of, 600);
        return {
          pages: g.pages,
          pageCount: g.pages.length,
          meta: { title: g.title, authors: [g.author], year: g.year, collections: [], titleFrom: 'pdf-info' as const },
        };
      },
    };
  });
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('rankings that do not depend on the rows’ order (tieKeys)', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-tie-order-'));
  const provider = new EmbeddedProvider();
  let a: LibraryIndex;
  let b: LibraryIndex;

  before(async () => {
    // A: in one run. B: the second half first, then the first half and the copy: other rows.
    const wa = join(root, 'a');
    const wb = join(root, 'b');
    await updateIndex(inputs([...range(0, 600), 1000]), { workspace: wa, provider });
    await updateIndex(inputs(range(300, 600)), { workspace: wb, provider });
    await updateIndex(inputs([1000, ...range(0, 600)]), { workspace: wb, provider });
    a = await LibraryIndex.open(wa, provider);
    b = await LibraryIndex.open(wb, provider);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const what = (index: LibraryIndex, row: number) => {
    const p = index.passage(row);
    return `${index.sources[p.source].path}#${p.index}`;
  };
  const hits = (index: LibraryIndex, list: SearchHit[]) =>
    list.map((h) => ({
      what: what(index, h.row),
      score: h.score,
      cosine: h.cosine,
      standout: h.standout,
      lexicalRank: h.lexicalRank,
      vectorRank: h.vectorRank,
    }));

  it('indexes the same passages in another order, more of them than the cosines are sampled on', () => {
    assert.equal(a.size, b.size);
    assert.ok(a.size > 2000, `${a.size} passages`);
    const rowsA = Array.from({ length: a.size }, (_, r) => what(a, r));
    const rowsB = Array.from({ length: b.size }, (_, r) => what(b, r));
    assert.notDeepEqual(rowsA, rowsB);
    assert.deepEqual([...rowsA].sort(), [...rowsB].sort());
  });

  it('the same hits, scores, cosines and standouts, copies of one PDF in the same order', async () => {
    // A sentence of source 3, which has two copies: their passages tie.
    const three = syntheticSource(3, 600)
      .pages[0].blocks.map((x) => ('text' in x ? x.text : ''))
      .join(' ')
      .split(' ')
      .slice(0, 40)
      .join(' ');
    const queries = [three, 'trade and taxation of grain', ...syntheticDraft(6, 3)];
    let ties = 0;
    for (const q of queries) {
      const [x, y] = [await a.search(q, { k: 30 }), await b.search(q, { k: 30 })];
      assert.deepEqual(hits(b, y), hits(a, x), q);
      // The copies' passages tie in BM25's and the vectors' lists; their order there gives their ranks.
      const copy = (h: SearchHit) => a.sources[h.source].path.endsWith('source-1000.pdf');
      for (const h of x.filter(copy))
        if (x.some((o) => !copy(o) && o.index === h.index && o.cosine === h.cosine && o.sourceRecord.contentHash === h.sourceRecord.contentHash)) ties++;
    }
    assert.ok(ties > 0, 'the two copies of source 3 are among the hits');
    const many = [
      await a.searchMany(
        queries.map((text) => ({ text })),
        { k: 20 },
      ),
      await b.searchMany(
        queries.map((text) => ({ text })),
        { k: 20 },
      ),
    ];
    many[0].forEach((list, i) => assert.deepEqual(hits(b, many[1][i]), hits(a, list)));
    const sources = async (index: LibraryIndex) =>
      (await index.searchSources(queries[1], { k: 10 })).map((s) => ({ path: s.sourceRecord.path, score: s.score, passages: hits(index, s.passages) }));
    assert.deepEqual(await sources(b), await sources(a));
  });

  it('the same cards for a draft', async () => {
    const draft = draftMarkdown(syntheticDraft(8, 601));
    const cards = async (index: LibraryIndex, ws: string) =>
      (await analyzeDocument(draft, { useReranking: false }, { index, workspace: ws, cache: false })).segments.map((s) => s.recommendations);
    assert.deepEqual(await cards(b, join(root, 'b')), await cards(a, join(root, 'a')));
  });

  it('samples about the target number of rows, by content, in key order', () => {
    const keys = Float64Array.from({ length: 100_000 }, (_, i) => ((i * 2654435761) % 2 ** 32) * 2 ** 21 + (i % 7));
    const rows = sampleRows(keys, keys.length, 2000);
    assert.ok(rows.length > 1800 && rows.length < 2200, `${rows.length}`);
    for (let i = 1; i < rows.length; i++) assert.ok(tieCompare(keys, rows[i - 1], rows[i]) < 0);
    assert.equal(sampleRows(keys, 1500, 2000).length, 1500);
  });
});
