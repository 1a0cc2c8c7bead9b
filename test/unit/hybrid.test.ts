import assert from 'node:assert/strict';
import { encode, EMBEDDED_DIM } from '../../src/core/embedding/embeddedEncoder';
import { Bm25Index } from '../../src/core/retrieval/bm25';
import { tokenize } from '../../src/core/text/tokenize';
import { fusionFor, rankPassages, rankSources, type PassageCollection } from '../../src/core/retrieval/hybrid';
import { embeddingText, lexicalTerms, type PassageText } from '../../src/core/retrieval/representation';

const PASSAGES: Array<PassageText & { source: number }> = [
  { source: 0, sourceTitle: 'Vitamin D and bone health', text: 'Vitamin D supplementation reduced hip fractures in older women.' },
  { source: 0, sourceTitle: 'Vitamin D and bone health', text: 'Calcium intake was recorded with a food questionnaire.' },
  { source: 1, sourceTitle: 'Graphene electronics', text: 'Graphene transistors operate at terahertz frequencies.' },
  { source: 2, sourceTitle: 'Le tabac et les poumons', text: 'Le tabagisme augmente le risque de cancer du poumon chez les fumeurs.' },
];

function collection(): PassageCollection {
  const lexical = new Bm25Index();
  const vectors = new Float32Array(PASSAGES.length * EMBEDDED_DIM);
  PASSAGES.forEach((p, i) => {
    lexical.add(i, lexicalTerms(p));
    vectors.set(encode(embeddingText(p), 'passage'), i * EMBEDDED_DIM);
  });
  return { lexical, vectors, dim: EMBEDDED_DIM, count: PASSAGES.length, sourceOfRow: Int32Array.from(PASSAGES.map((p) => p.source)) };
}

const q = (text: string) => ({ text, vector: encode(text, 'query') });

describe('hybrid ranking', () => {
  it('ranks the matching passage first with ranks from both lists and its cosine', () => {
    const c = collection();
    const res = rankPassages(c, q('Does vitamin D prevent fractures?'), { k: 3 });
    assert.equal(res[0].row, 0);
    assert.equal(res[0].lexicalRank, 1);
    assert.equal(res[0].vectorRank, 1);
    assert.ok(res[0].cosine > 0.2 && res[0].cosine <= 1.0001);
    assert.ok(res.length <= 3);
  });

  it('finds French text from a French query', () => {
    const res = rankSources(collection(), q('les fumeurs et le cancer des poumons'), { k: 2 });
    assert.equal(res[0].source, 2);
  });

  it('aggregates passages to sources, best passage first', () => {
    const res = rankSources(collection(), q('vitamin D calcium intake'), { k: 5 });
    assert.equal(res[0].source, 0);
    assert.equal(res[0].passages.length, 2);
    assert.ok(res[0].passages[0].score >= res[0].passages[1].score);
    assert.equal(new Set(res.map((r) => r.source)).size, res.length);
  });

  it('respects the accept filter in both lists', () => {
    const res = rankPassages(collection(), q('vitamin D fractures'), { k: 5, accept: (row) => row !== 0 });
    assert.ok(res.every((r) => r.row !== 0));
  });

  it('works with a vector of another dimension (lexical only)', () => {
    const res = rankPassages(collection(), { text: 'graphene transistors', vector: new Float32Array(3) }, { k: 2 });
    assert.equal(res[0].row, 2);
    assert.equal(res[0].vectorRank, undefined);
  });

  it('lets a neural embedder decide between lexical matches, where the hashed vectors only break ties', () => {
    // Rows 0 and 1 both match "graphene"; BM25 prefers row 0 (the word twice), while the
    // query's meaning (its vector, e1) is row 1's. Rows 2 and 3 only touch the query's vector.
    const lexical = new Bm25Index();
    ['graphene graphene transistors', 'graphene devices: a physics review', 'silicon', 'copper'].forEach((t, i) => lexical.add(i, tokenize(t)));
    const dim = 4;
    const rows = [[0, 1, 0, 0], [1, 0, 0, 0], [0.1, 0, 0.995, 0], [0.2, 0, 0, 0.98]];
    const c: PassageCollection = { lexical, vectors: Float32Array.from(rows.flat()), dim, count: 4, sourceOfRow: Int32Array.from([0, 1, 2, 3]) };
    const query = { text: 'graphene', vector: Float32Array.from([1, 0, 0, 0]) };
    assert.equal(lexical.search(tokenize('graphene'), 2)[0].id, 0);
    assert.equal(rankPassages(c, query, { k: 4, params: fusionFor('embedded') })[0].row, 0);
    assert.equal(rankPassages(c, query, { k: 4, params: fusionFor('ollama') })[0].row, 1);
    assert.deepEqual(fusionFor('embedded'), {});
    assert.equal(fusionFor('ollama').vectorWeight, 1);
  });
});
