import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { loadTokenizer } from '../../src/core/embedding/local/tokenizer';
import { WordPieceReference } from '../support/wordpieceReference';

const DIR = resolve('test/fixtures/bert-base-uncased-tokenizer');

describe('local model tokenizer (the model’s tokenizer.json through @lenml/tokenizers)', () => {
  const tok = loadTokenizer(DIR);
  const ref = new WordPieceReference(join(DIR, 'vocab.txt'));
  const sentences = [
    'The Annales school was founded in Strasbourg in 1929.',
    "Braudel's longue durée: slow-moving structures, e.g. climate & geography (pp. 12–15)!",
    "L'économie médiévale à Paris, été 1929 — « la longue durée » selon Fernand Braudel.",
    'Où sont les neiges d’antan ? Çà et là, naïveté, cœur, Ærø, façade.',
    'TNF-α and IL-6 in COVID-19 patients: 95% CI [0.8, 1.2]; p<0.001.',
    'Tabs\tand\nnew lines, 東京 characters, and an emoji 🙂 (unknown to the vocabulary).',
  ];

  it('gives the ids of a second, plain WordPiece implementation (English, French with accents, symbols)', () => {
    for (const s of sentences) assert.deepEqual(tok.encode(s, 512).ids, ref.encode(s), s);
  });

  it('truncates at max tokens and keeps [CLS] … [SEP]', () => {
    const long = sentences.join(' ').repeat(20);
    for (const max of [8, 16, 128, 512]) {
      const { ids, typeIds } = tok.encode(long, max);
      assert.equal(ids.length, max);
      assert.deepEqual(ids, ref.encode(long, max));
      assert.equal(ids[0], 101);
      assert.equal(ids.at(-1), 102);
      assert.deepEqual(typeIds, new Array(max).fill(0));
    }
    assert.equal(tok.encode('short', 512).ids.length, 3);
    assert.equal(tok.padId, 0);
  });
});
