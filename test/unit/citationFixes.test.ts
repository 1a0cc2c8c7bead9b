import assert from 'node:assert/strict';
import { findLatexCitations } from '../../src/core/latex/citations';
import { citationFixes, latexText, type FixableCitation } from '../../src/shared/citationFixes';

const base: FixableCitation = {
  status: 'ok',
  key: 'k',
  line: 3,
  column: 10,
  endColumn: 12,
  locator: null,
  foundPage: null,
  quote: null,
  quoteRange: null,
  sourceText: null,
  suggestions: [],
};

describe('citation check: Quick Fixes', () => {
  it('wrong-page: the locator becomes the page the quotation is on (pp. for two pages)', () => {
    const line = 'A “quote” [@k, p. 214].';
    const c = { ...base, status: 'wrong-page', column: 12, endColumn: 14, locator: 'p. 214', foundPage: '215' };
    assert.deepEqual(citationFixes(c, line), [
      { kind: 'locator', label: 'p. 215', start: { line: 2, character: 15 }, end: { line: 2, character: 21 }, text: 'p. 215' },
    ]);
    assert.equal(citationFixes({ ...c, foundPage: '215–216' }, line)[0].text, 'pp. 215–216');
  });
  it("quote-differs: the quotation's range becomes the source's words, unless it has elisions", () => {
    const c = { ...base, status: 'quote-differs', quote: 'the harbour', sourceText: 'the port', quoteRange: { line: 3, column: 4, endLine: 3, endColumn: 15 } };
    assert.deepEqual(citationFixes(c, ''), [
      { kind: 'quotation', label: 'the port', start: { line: 2, character: 3 }, end: { line: 2, character: 14 }, text: 'the port' },
    ]);
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
    assert.deepEqual(citationFixes(c, line), [
      { kind: 'locator', label: 'p. 215', start: { line: 2, character: 32 }, end: { line: 2, character: 38 }, text: 'p. 215' },
    ]);
  });
  it('no fix for the other statuses', () => {
    for (const status of ['ok', 'no-such-page', 'quote-not-found']) assert.deepEqual(citationFixes({ ...base, status }, '[@k]'), []);
  });

  describe('LaTeX', () => {
    /** The checker's reading of the one citation of `key` on a line (its columns, its locator). */
    const cited = (line: string, key: string): FixableCitation => {
      const c = findLatexCitations(line).find((x) => x.key === key);
      assert.ok(c, `${key} found in ${line}`);
      return { ...base, key, line: 1, column: c.column, endColumn: c.endColumn, locator: c.locator?.text ?? null };
    };

    it('wrong-page: the post-note becomes the page in LaTeX (p.~, pp.~ with --), bare where it was bare', () => {
      const line = 'A quote \\autocite[p.~214]{k}.';
      const c = { ...cited(line, 'k'), status: 'wrong-page', foundPage: '215' };
      const [fix] = citationFixes(c, line, 'latex');
      assert.deepEqual([fix.label, fix.text, line.slice(fix.start.character, fix.end.character)], ['p. 215', 'p.~215', 'p.~214']);
      assert.equal(citationFixes({ ...c, foundPage: '215–216' }, line, 'latex')[0].text, 'pp.~215--216');
      const bare = 'A quote \\parencite[see][214]{k}.';
      const b = citationFixes({ ...cited(bare, 'k'), status: 'wrong-page', foundPage: '215' }, bare, 'latex')[0];
      assert.deepEqual([b.text, bare.slice(b.start.character, b.end.character)], ['215', '214']);
    });

    it('leaves a post-note that says more than a page alone', () => {
      const line = 'A quote \\autocite[p.~214, n.~3]{k}.';
      assert.deepEqual(citationFixes({ ...cited(line, 'k'), status: 'wrong-page', foundPage: '215' }, line, 'latex'), []);
    });

    it('unknown-key: the key itself is replaced (a LaTeX key has no @ before it)', () => {
      const line = 'See \\cite{a, smyth}.';
      const c = { ...cited(line, 'smyth'), status: 'unknown-key', suggestions: ['smith'] };
      const [fix] = citationFixes(c, line, 'latex');
      assert.equal(line.slice(0, fix.start.character) + fix.text + line.slice(fix.end.character), 'See \\cite{a, smith}.');
    });

    it("quote-differs: the source's words are escaped for LaTeX", () => {
      assert.equal(
        latexText('50% of A&B cost $5 #1 a_b ~ ^ {x} \\'),
        '50\\% of A\\&B cost \\$5 \\#1 a\\_b \\textasciitilde{} \\textasciicircum{} \\{x\\} \\textbackslash{}',
      );
      const c = { ...base, status: 'quote-differs', quote: 'half', sourceText: '50% of it', quoteRange: { line: 1, column: 3, endLine: 1, endColumn: 7 } };
      assert.equal(citationFixes(c, '', 'latex')[0].text, '50\\% of it');
      assert.equal(citationFixes(c, '')[0].text, '50% of it');
    });
  });
});
