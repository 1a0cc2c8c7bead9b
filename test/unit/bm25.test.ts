import assert from 'node:assert/strict';
import { Bm25Index } from '../../src/core/retrieval/bm25';
import { tokenize } from '../../src/core/text/tokenize';

const DOCS = [
  'Insulin resistance in skeletal muscle of obese patients',
  'Deep learning for protein structure prediction',
  'Les effets du tabac sur les poumons des fumeurs',
  'Climate change and coral reef bleaching events',
];

function build(): Bm25Index {
  const idx = new Bm25Index();
  DOCS.forEach((d, i) => idx.add(i, tokenize(d)));
  return idx;
}

describe('Bm25Index', () => {
  it('ranks the obviously matching document first', () => {
    const idx = build();
    assert.equal(idx.search(tokenize('protein structures predicted'), 3)[0].id, 1);
    assert.equal(idx.search(tokenize('muscle insulin'), 3)[0].id, 0);
    assert.equal(idx.search(tokenize('le tabac et le poumon'), 3)[0].id, 2);
  });

  it('returns nothing for unknown terms and respects k', () => {
    const idx = build();
    assert.deepEqual(idx.search(tokenize('zebra'), 5), []);
    assert.ok(idx.search(tokenize('insulin protein coral tabac'), 2).length === 2);
  });

  it('removes documents and updates document frequencies', () => {
    const idx = build();
    assert.equal(idx.size, 4);
    assert.equal(idx.docFreq('protein'), 1);
    assert.ok(idx.remove(1));
    assert.ok(!idx.remove(1));
    assert.equal(idx.size, 3);
    assert.deepEqual(idx.search(tokenize('protein structure'), 5), []);
    assert.equal(idx.docFreq('protein'), 0);
    // A re-used id does not revive old postings.
    idx.add(1, tokenize('coral reefs'));
    assert.deepEqual(idx.search(tokenize('protein'), 5), []);
    assert.deepEqual(
      idx
        .search(tokenize('coral'), 5)
        .map((h) => h.id)
        .sort(),
      [1, 3],
    );
  });

  it('measures idf-weighted term overlap both ways, forgetting removed documents', () => {
    const idx = new Bm25Index();
    idx.add(0, ['grain', 'ship', 'sicily', 'licence']);
    idx.add(1, ['grain', 'bread', 'paris']);
    idx.add(2, ['railway', 'time', 'clock']);
    const ov = idx.overlapWith(['grain', 'licence', 'unknownterm', 'grain']);
    assert.equal(ov.terms, 3);
    const idf = (t: string) => idx.idf(t);
    const unknown = Math.log(1 + (3 + 0.5) / 0.5);
    const shared0 = idf('grain') + idf('licence');
    const a = ov.of(0);
    assert.ok(Math.abs(a.query - shared0 / (shared0 + unknown)) < 1e-12, String(a.query));
    assert.ok(Math.abs(a.doc - shared0 / (shared0 + idf('ship') + idf('sicily'))) < 1e-12, String(a.doc));
    const b = ov.of(1);
    assert.ok(b.query > 0 && b.query < a.query, 'fewer shared terms, lower query coverage');
    assert.deepEqual(ov.of(2), { query: 0, doc: 0 });
    idx.remove(0);
    assert.deepEqual(idx.overlapWith(['grain']).of(0), { query: 0, doc: 0 });
    assert.equal(idx.overlapWith(['grain']).of(1).query, 1);
  });

  it('applies the accept filter', () => {
    const idx = build();
    const hits = idx.search(tokenize('insulin protein'), 5, (id) => id !== 0);
    assert.deepEqual(
      hits.map((h) => h.id),
      [1],
    );
  });

  it('gives higher idf to rarer terms', () => {
    const idx = new Bm25Index();
    idx.add(0, ['a', 'b']);
    idx.add(1, ['a']);
    idx.add(2, ['a']);
    assert.ok(idx.idf('b') > idx.idf('a'));
    assert.ok(idx.idf('a') > 0);
  });

  // Speed lives in scripts/bench-retrieval.ts (no timed assertions here: shared, noisy machines).
  it('matches a naive BM25 over a larger random corpus', () => {
    const idx = new Bm25Index();
    let seed = 1;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const docs: string[][] = [];
    for (let d = 0; d < 3000; d++) {
      const terms: string[] = [];
      const len = 20 + Math.floor(rnd() * 100);
      for (let j = 0; j < len; j++) terms.push('t' + Math.floor(Math.exp(rnd() * Math.log(5000))));
      docs.push(terms);
      idx.add(d, terms);
    }
    const q = ['t3', 't40', 't41', 't777', 't1500', 't3'];
    const n = docs.length;
    const avg = docs.reduce((s, d) => s + d.length, 0) / n;
    const dfs = new Map<string, number>();
    for (const d of docs) for (const t of new Set(d)) dfs.set(t, (dfs.get(t) ?? 0) + 1);
    const df = (t: string) => dfs.get(t) ?? 0;
    const qw = new Map<string, number>();
    for (const t of q) qw.set(t, (qw.get(t) ?? 0) + 1);
    const naive = docs
      .map((d, id) => {
        let s = 0;
        for (const [t, w] of qw) {
          const tf = d.filter((x) => x === t).length;
          if (tf === 0) continue;
          const idf = Math.log(1 + (n - df(t) + 0.5) / (df(t) + 0.5));
          s += (w * idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.length) / avg));
        }
        return { id, score: s };
      })
      .filter((h) => h.score > 0)
      .sort((a, b) => b.score - a.score || a.id - b.id);
    const got = idx.search(q, 20);
    assert.deepEqual(
      got.map((h) => h.id),
      naive.slice(0, 20).map((h) => h.id),
    );
    for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i].score - naive[i].score) < 1e-3 * naive[i].score);
  });
});
