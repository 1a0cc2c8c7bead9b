import assert from 'node:assert/strict';
import { citekeyAt, paragraphAround } from '../../src/shared/citekeyCompletion';

describe('citekey completion: where a key is typed', () => {
  it('finds the key after [@, after ; and after a space inside brackets', () => {
    assert.deepEqual(citekeyAt('text [@', 7), { prefix: '', start: 7, end: 7 });
    assert.deepEqual(citekeyAt('text [@whi', 10), { prefix: 'whi', start: 7, end: 10 });
    assert.deepEqual(citekeyAt('text [@a, p. 3; @br', 19), { prefix: 'br', start: 17, end: 19 });
    assert.deepEqual(citekeyAt('text [see @', 11), { prefix: '', start: 11, end: 11 });
    assert.deepEqual(citekeyAt('[-@key', 6), { prefix: 'key', start: 3, end: 6 });
  });
  it('covers the rest of the key when the cursor is inside it, stopping at ]', () => {
    assert.deepEqual(citekeyAt('x [@whitfield2019]', 7), { prefix: 'whi', start: 4, end: 17 });
  });
  it('is not a key outside brackets, in an e-mail address, or after a closed citation', () => {
    assert.equal(citekeyAt('mail me @', 9), undefined);
    assert.equal(citekeyAt('[me@x', 5), undefined);
    assert.equal(citekeyAt('[@a] then @', 11), undefined);
    assert.equal(citekeyAt('[@a, p. 3', 9), undefined);
  });
});

describe('citekey completion: the paragraph being written', () => {
  const lines = ['# Grain', '', 'Venice was fed by **ship** [@a, p. 3], as', '@whitfield2019 shows; permits [@', '', 'Next paragraph.'];
  it('joins the lines between blank lines, without citations, keys or emphasis', () => {
    assert.equal(paragraphAround(lines, 3), 'Venice was fed by ship , as shows; permits');
    assert.equal(paragraphAround(lines, 0), 'Grain');
    assert.equal(paragraphAround(lines, 5), 'Next paragraph.');
    assert.equal(paragraphAround(lines, 9), '');
  });
});
