import assert from 'node:assert/strict';
import { splitSentences } from '../../src/core/text/sentences';

const texts = (s: string) => splitSentences(s).map((x) => x.text);

describe('splitSentences', () => {
  it('splits plain English and French sentences without altering text', () => {
    assert.deepEqual(texts('The harvest failed. Prices doubled! Why? Nobody knew.'), ['The harvest failed.', 'Prices doubled!', 'Why?', 'Nobody knew.']);
    assert.deepEqual(texts('La récolte fut mauvaise. Les prix doublèrent.'), ['La récolte fut mauvaise.', 'Les prix doublèrent.']);
  });

  it('does not split after abbreviations, page locators or initials', () => {
    const s = 'M. Dupont cite J.-P. Sartre, p. 45 et pp. 12-14, cf. Braudel. Il conclut.';
    assert.deepEqual(texts(s), ['M. Dupont cite J.-P. Sartre, p. 45 et pp. 12-14, cf. Braudel.', 'Il conclut.']);
    assert.deepEqual(texts('As J. R. R. Tolkien wrote, e.g. in his letters, it was so. Dr. Smith et al. Agreed later.'), [
      'As J. R. R. Tolkien wrote, e.g. in his letters, it was so.',
      'Dr. Smith et al. Agreed later.',
    ]);
  });

  it('keeps decimals and closing quotes with their sentence', () => {
    assert.deepEqual(texts('Prices rose by 3.5 per cent. « Qui ? » demanda-t-il. “Enough.” Then silence.'), [
      'Prices rose by 3.5 per cent.',
      '« Qui ? » demanda-t-il.',
      '“Enough.”',
      'Then silence.',
    ]);
  });

  it('gives offsets that slice the original text', () => {
    const s = '  First one.  Second one.  ';
    for (const span of splitSentences(s)) assert.equal(s.slice(span.start, span.end), span.text);
  });
});
