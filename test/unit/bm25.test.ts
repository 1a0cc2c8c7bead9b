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
    assert.deepEqual(idx.search(tokenize('coral'), 5).map((h) => h.id).sort(), [1, 3]);
  });

  it('applies the accept filter', () => {
    const idx = build();
    const hits = idx.search(tokenize('insulin protein'), 5, (id) => id !== 0);
    assert.deepEqual(hits.map((h) => h.id), [1]);
  });

  it('gives higher idf to rarer terms', () => {
    const idx = new Bm25Index();
    idx.add(0, ['a', 'b']);
    idx.add(1, ['a']);
    idx.add(2, ['a']);
    assert.ok(idx.idf('b') > idx.idf('a'));
    assert.ok(idx.idf('a') > 0);
  });

  it('searches 100k passages quickly', function () {
    this.timeout(60000);
    const idx = new Bm25Index();
    let seed = 1;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    // Zipf-like vocabulary of 50k terms, 120 terms per passage.
    for (let d = 0; d < 100_000; d++) {
      const terms: string[] = [];
      for (let j = 0; j < 120; j++) terms.push('t' + Math.floor(Math.exp(rnd() * Math.log(50_000))));
      idx.add(d, terms);
    }
    const q = Array.from({ length: 20 }, (_, i) => 't' + (i * 37 + 5));
    idx.search(q, 100);
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) idx.search(q, 100);
    const ms = (performance.now() - t0) / 10;
    assert.ok(ms < 60, `search took ${ms.toFixed(1)} ms`);
  });
});
