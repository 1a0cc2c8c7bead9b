import assert from 'node:assert/strict';
import { encode, EMBEDDED_DIM } from '../../src/core/embedding/embeddedEncoder';
import { Bm25Index } from '../../src/core/retrieval/bm25';
import { languageOf, tokenize } from '../../src/core/text/tokenize';
import { fusionFor, NEURAL_FUSION, queryLanguage, rankPassages, rankSources, type PassageCollection } from '../../src/core/retrieval/hybrid';
import { embeddingText, lexicalTerms, queryTerms, type PassageText } from '../../src/core/retrieval/representation';

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
    const rows = [
      [0, 1, 0, 0],
      [1, 0, 0, 0],
      [0.1, 0, 0.995, 0],
      [0.2, 0, 0, 0.98],
    ];
    const c: PassageCollection = { lexical, vectors: Float32Array.from(rows.flat()), dim, count: 4, sourceOfRow: Int32Array.from([0, 1, 2, 3]) };
    const query = { text: 'graphene', vector: Float32Array.from([1, 0, 0, 0]) };
    assert.equal(lexical.search(tokenize('graphene'), 2)[0].id, 0);
    assert.equal(rankPassages(c, query, { k: 4, params: fusionFor('embedded') })[0].row, 0);
    assert.equal(rankPassages(c, query, { k: 4, params: fusionFor('ollama') })[0].row, 1);
    assert.deepEqual(fusionFor('embedded'), {});
    assert.ok(fusionFor('ollama').vectorWeight! > fusionFor('ollama').lexicalWeight!);
  });
});

describe('fusion for neural models (issue 27)', () => {
  // Passages 0 and 1 are French, 2 and 3 English.
  const texts = [
    'Pasteur et la rage en 1885 : le premier essai fut un succès et les résultats sont encore discutés.',
    "L'immunisation contre la rage a été mise au point dans un laboratoire, puis adoptée par les médecins.",
    'The first clinical trials on patients were reported by the physicians of the hospital.',
    'Graphene transistors and the physics of the devices that were built with them.',
  ];
  function collectionOf(vectors: number[][]): PassageCollection {
    const lexical = new Bm25Index();
    texts.forEach((t, i) => lexical.add(i, tokenize(t)));
    return {
      lexical,
      vectors: Float32Array.from(vectors.flat()),
      dim: 4,
      count: 4,
      sourceOfRow: Int32Array.from([0, 1, 2, 3]),
      languageOfRow: (row) => languageOf(texts[row]),
    };
  }

  it('keeps the chosen parameters for every neural provider, and the embedded model its own', () => {
    assert.deepEqual(fusionFor('embedded'), {});
    for (const id of ['local', 'ollama', 'openai']) assert.deepEqual(fusionFor(id), { ...NEURAL_FUSION });
    assert.equal(NEURAL_FUSION.fusion, 'convex');
    assert.ok(NEURAL_FUSION.vectorWeight! > NEURAL_FUSION.lexicalWeight!);
    assert.ok(NEURAL_FUSION.crossLanguageLexical! < 1);
  });

  it('across languages, the vector list decides: BM25 on a shared name and number does not outvote it', () => {
    // The English query says what passage 1 says (its vector); BM25 finds only passage 0, on "Pasteur" and "1885".
    const c = collectionOf([
      [0.6, 0.8, 0, 0],
      [1, 0, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 1],
    ]);
    const query = { text: 'How Pasteur made the vaccine against rabies in 1885.', vector: Float32Array.from([1, 0, 0, 0]) };
    assert.equal(queryLanguage(query.text), 'en');
    assert.deepEqual(
      [0, 1].map((r) => c.languageOfRow!(r)),
      ['fr', 'fr'],
    );
    assert.deepEqual(
      c.lexical.search(queryTerms(query.text), 4).map((h) => h.id),
      [0],
    );
    const res = rankPassages(c, query, { k: 4, params: fusionFor('local') });
    assert.equal(res[0].row, 1, "the vectors' first passage comes first");
    // Counted in full, as within one language, BM25 would have put passage 0 first.
    const full = rankPassages(c, query, { k: 4, params: { ...fusionFor('local'), crossLanguageLexical: 1 } });
    assert.equal(full[0].row, 0);
  });

  it('in a library of both languages, a passage in the other language is not outranked for the BM25 support it cannot get', () => {
    // English query. Vectors: passage 1 (French) first, passage 2 (English) well below; BM25: passage 2 only.
    const c = collectionOf([
      [0, 0, 0, 1],
      [1, 0, 0, 0],
      [0.5, 0.866, 0, 0],
      [0, 0, 0, 1],
    ]);
    const query = { text: 'The first clinical trials on patients in the hospital.', vector: Float32Array.from([1, 0, 0, 0]) };
    assert.deepEqual(
      c.lexical.search(queryTerms(query.text), 4).map((h) => h.id),
      [2],
    );
    const res = rankPassages(c, query, { k: 4, params: fusionFor('local') });
    assert.equal(res[0].row, 1, "scored against the most a French passage can reach, the vectors' first comes first");
    // Against the most an English passage can reach, the English one would win on BM25 alone.
    const unscaled = rankPassages(c, query, { k: 4, params: { ...fusionFor('local'), crossLanguageRescale: false } });
    assert.equal(unscaled[0].row, 2);
    // Where every passage is in the other language, one factor for all: the order is the same with it or without.
    const allFrench = collectionOf([
      [1, 0, 0, 0],
      [0.8, 0.6, 0, 0],
      [0, 0, 0, 1],
      [0, 0, 0, 1],
    ]);
    const fr = { ...allFrench, count: 2, sourceOfRow: Int32Array.from([0, 1]), vectors: allFrench.vectors.slice(0, 8) };
    const frLexical = new Bm25Index();
    texts.slice(0, 2).forEach((t, i) => frLexical.add(i, tokenize(t)));
    fr.lexical = frLexical;
    const q2 = { text: 'How Pasteur made the vaccine against rabies in 1885.', vector: Float32Array.from([1, 0, 0, 0]) };
    const order = (rescale: boolean) => rankPassages(fr, q2, { k: 2, params: { ...fusionFor('local'), crossLanguageRescale: rescale } }).map((r) => r.row);
    assert.deepEqual(order(true), order(false));
  });

  it('in the same language, both lists count: a passage first in BM25 and second in the vectors wins over one first in the vectors alone', () => {
    // English query; passages 2 (English) and 3 (English). BM25: only 2 matches. Vectors: 3 a little above 2.
    const c = collectionOf([
      [0, 0, 0, 1],
      [0, 0, 0, 1],
      [0.9, 0.436, 0, 0],
      [1, 0, 0, 0],
    ]);
    const query = { text: 'The first clinical trials on patients in the hospital.', vector: Float32Array.from([1, 0, 0, 0]) };
    const res = rankPassages(c, query, { k: 4, params: fusionFor('local') });
    assert.equal(res[0].row, 2);
    assert.equal(res[0].lexicalRank, 1);
    assert.equal(res[0].vectorRank, 2);
  });

  it('convex fusion: min-max normalised scores, weighted; a row absent from a list gets nothing from it', () => {
    const c = collectionOf([
      [0, 0, 0, 1],
      [0, 0, 0, 1],
      [0.9, 0.436, 0, 0],
      [1, 0, 0, 0],
    ]);
    const query = { text: 'clinical trials on patients in the hospital', vector: Float32Array.from([1, 0, 0, 0]) };
    const p = { fusion: 'convex' as const, lexicalWeight: 0.3, vectorWeight: 0.7, vectorDepth: 4, lexicalDepth: 4 };
    const res = rankPassages(c, query, { k: 4, params: p });
    const lex = c.lexical.search(queryTerms(query.text), 4);
    const lmax = lex[0].score;
    const lmin = lex[lex.length - 1].score;
    const cos = [0, 0, 0.9, 1];
    for (const r of res) {
      const l = lex.find((h) => h.id === r.row);
      const expected = (l ? 0.3 * (lex.length > 1 ? (l.score - lmin) / (lmax - lmin) : 1) : 0) + 0.7 * ((cos[r.row] - 0) / (1 - 0));
      assert.ok(Math.abs(r.score - expected) < 1e-6, `row ${r.row}: ${r.score} vs ${expected}`);
    }
  });
});
