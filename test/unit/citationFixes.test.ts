import assert from 'node:assert/strict';
import { citationFixes, type FixableCitation } from '../../src/shared/citationFixes';

const base: FixableCitation = { status: 'ok', key: 'k', line: 3, column: 10, endColumn: 12, locator: null, foundPage: null, quote: null, quoteRange: null, sourceText: null, suggestions: [] };

describe('citation check: Quick Fixes', () => {
  it('wrong-page: the locator becomes the page the quotation is on (pp. for two pages)', () => {
    const line = 'A “quote” [@k, p. 214].';
    const c = { ...base, status: 'wrong-page', column: 12, endColumn: 14, locator: 'p. 214', foundPage: '215' };
    assert.deepEqual(citationFixes(c, line), [{ kind: 'locator', label: 'p. 215', start: { line: 2, character: 15 }, end: { line: 2, character: 21 }, text: 'p. 215' }]);
    assert.equal(citationFixes({ ...c, foundPage: '215–216' }, line)[0].text, 'pp. 215–216');
  });
  it("quote-differs: the quotation's range becomes the source's words, unless it has elisions", () => {
    const c = { ...base, status: 'quote-differs', quote: 'the harbour', sourceText: 'the port', quoteRange: { line: 3, column: 4, endLine: 3, endColumn: 15 } };
    assert.deepEqual(citationFixes(c, ''), [{ kind: 'quotation', label: 'the port', start: { line: 2, character: 3 }, end: { line: 2, character: 14 }, text: 'the port' }]);
    assert.deepEqual(citationFixes({ ...c, quote: 'the […] harbour' }, ''), []);
  });
  it('unknown-key: one fix per suggested key, replacing the key after its @', () => {
    const c = { ...base, status: 'unknown-key', key: 'smyth', column: 2, endColumn: 8, suggestions: ['smith', 'smyth2'] };
    assert.deepEqual(
      citationFixes(c, '[@smyth]').map((f) => [f.text, f.start.character, f.end.character]),
      [
        ['smith', 2, 7],
        ['smyth2', 2, 7],
      ],
    );
  });
  it('an ok citation with a page hint: the locator becomes the hinted page', () => {
    const line = 'The crown closed the ports [@k, p. 212].';
    const c = { ...base, status: 'ok', column: 29, endColumn: 31, locator: 'p. 212', hint: { page: '215' } };
    assert.deepEqual(citationFixes(c, line), [{ kind: 'locator', label: 'p. 215', start: { line: 2, character: 32 }, end: { line: 2, character: 38 }, text: 'p. 215' }]);
  });
  it('no fix for the other statuses', () => {
    for (const status of ['ok', 'no-such-page', 'quote-not-found']) assert.deepEqual(citationFixes({ ...base, status }, '[@k]'), []);
  });
});
