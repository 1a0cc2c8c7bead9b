import assert from 'node:assert/strict';
import {
  adjacentCitation,
  authorSurname,
  citationSnippet,
  citationSpans,
  endPageLabel,
  formatCitation,
  formatPassageCitation,
  mergeInsertion,
  shortAuthors,
} from '../../src/shared/citation';

const src = { citekey: 'braudel1949', title: 'La Méditerranée', authors: ['Braudel, Fernand'], year: 1949, path: '/lib/braudel.pdf' };

describe('formatCitation', () => {
  it('writes a Pandoc citation with the printed page label when known', () => {
    assert.equal(formatCitation(src, 330, '312'), '[@braudel1949, p. 312]');
    assert.equal(formatCitation(src, 12), '[@braudel1949, p. 12]');
  });
  it('follows a template: footnote or author-year', () => {
    assert.equal(formatCitation(src, 5, 'xii', '^[@{key}, p. {page}]'), '^[@braudel1949, p. xii]');
    assert.equal(formatCitation(src, 5, undefined, '({author} {year}, p. {page})'), '(Braudel 1949, p. 5)');
    assert.equal(formatCitation({ ...src, year: undefined }, 5, undefined, '{author} {year}'), 'Braudel n.d.');
  });
  it('falls back to a valid Markdown link to the PDF page when there is no citekey', () => {
    const c = formatCitation({ ...src, citekey: undefined, path: '/lib/my file [v2].pdf' }, 7, '213');
    assert.equal(c, '[Braudel 1949, p. 213](<file:///lib/my%20file%20%5Bv2%5D.pdf#page=7>)');
    const untitled = formatCitation({ title: 'Grain [draft]', authors: [], path: 'C:\\lib\\g.pdf' }, 2);
    assert.equal(untitled, '[Grain draft, p. 2](<file:///C:/lib/g.pdf#page=2>)');
  });
  it('shortens author lists', () => {
    assert.equal(shortAuthors(['Febvre, Lucien', 'Marc Bloch']), 'Febvre and Bloch');
    assert.equal(shortAuthors(['A, X', 'B, Y', 'C, Z']), 'A et al.');
    assert.equal(authorSurname('Jean-Pierre Vernant'), 'Vernant');
  });
});

describe('authorSurname on hostile metadata', () => {
  it('takes no markup, URL or number for a surname', () => {
    assert.equal(authorSurname('<iframe src="https://example.com"></iframe>'), undefined);
    assert.equal(authorSurname('https://example.com/a.png'), undefined);
    assert.equal(authorSurname('1234'), undefined);
    assert.equal(shortAuthors(['<script>alert(1)</script>', 'Le Roy Ladurie, Emmanuel']), 'Le Roy Ladurie');
    assert.equal(authorSurname("O'Brien, Ann"), "O'Brien");
  });
});

describe('page ranges', () => {
  it('writes pp. with an en dash when a passage runs over pages, moving a numeric label with the page', () => {
    assert.equal(formatPassageCitation(src, { page: 230, pageLabel: '214', endPage: 232 }), '[@braudel1949, pp. 214–216]');
    assert.equal(formatPassageCitation(src, { page: 12, endPage: 13 }), '[@braudel1949, pp. 12–13]');
    assert.equal(formatPassageCitation(src, { page: 12, endPage: 12 }), '[@braudel1949, p. 12]');
    assert.equal(formatPassageCitation(src, { page: 12 }), '[@braudel1949, p. 12]');
  });
  it('keeps the start page alone when the end label cannot be told (roman numerals)', () => {
    assert.equal(endPageLabel(5, 'xii', 6), undefined);
    assert.equal(formatPassageCitation(src, { page: 5, pageLabel: 'xii', endPage: 6 }), '[@braudel1949, p. xii]');
  });
  it('follows the template and the link fallback for ranges', () => {
    assert.equal(formatPassageCitation(src, { page: 3, endPage: 4 }, '({author} {year}, p. {page})'), '(Braudel 1949, pp. 3–4)');
    assert.equal(formatPassageCitation({ ...src, citekey: undefined }, { page: 3, endPage: 4 }), '[Braudel 1949, pp. 3–4](<file:///lib/braudel.pdf#page=3>)');
  });
});

describe('citationSnippet', () => {
  it('makes the page locator the first tab stop, with the page as placeholder, and ends after the citation', () => {
    assert.equal(citationSnippet(src, { page: 330, pageLabel: '312' }), '[@braudel1949, p. ${1:312}]$0');
    assert.equal(citationSnippet(src, { page: 230, pageLabel: '214', endPage: 232 }), '[@braudel1949, pp. ${1:214–216}]$0');
  });
  it('escapes snippet syntax in the other fields', () => {
    assert.equal(citationSnippet({ ...src, title: 'Price $ and {value}' }, { page: 2 }, '{title}, p. {page}'), 'Price \\$ and {value\\}, p. ${1:2}$0');
  });
  it('has only the final stop without a page in the template or without a key', () => {
    assert.equal(citationSnippet(src, { page: 2 }, '[@{key}]'), '[@braudel1949]$0');
    assert.equal(citationSnippet({ ...src, citekey: undefined }, { page: 2 }), '[Braudel 1949, p. 2](<file:///lib/braudel.pdf#page=2>)$0');
  });
});

describe('merging into an adjacent Pandoc citation', () => {
  const line = 'Bread came by ship [@a, p. 3]. Then more [see @c] and a [link](x) and [^1].';
  it('finds citations, not links nor footnotes', () => {
    assert.deepEqual(
      citationSpans(line).map((s) => line.slice(s.start, s.end)),
      ['[@a, p. 3]', '[see @c]'],
    );
    assert.deepEqual(
      citationSpans('mail me at [x@y.org] [@k]').map((s) => s.start),
      [21],
    );
  });
  it('joins the citation the cursor is inside, right after, or right before', () => {
    const end = line.indexOf('].') + 1;
    assert.equal(adjacentCitation(line, end)?.start, line.indexOf('[@a'));
    assert.equal(adjacentCitation(line, line.indexOf('p. 3'))?.start, line.indexOf('[@a'));
    assert.equal(adjacentCitation(line, line.indexOf('[see') - 1)?.start, line.indexOf('[see'));
    assert.equal(adjacentCitation(line, line.indexOf('Then')), undefined);
  });
  it('inserts "; @b, p. 214" before the closing bracket', () => {
    const col = line.indexOf('].') + 1;
    const m = mergeInsertion(line, col, '[@b, p. ${1:214}]$0');
    assert.ok(m);
    assert.equal(
      line.slice(0, m.at) + m.text.replace(/\$\{1:([^}]*)\}|\$0/g, '$1') + line.slice(m.at),
      'Bread came by ship [@a, p. 3; @b, p. 214]. Then more [see @c] and a [link](x) and [^1].',
    );
  });
  it('does not merge a citation that is not bracketed Pandoc', () => {
    assert.equal(mergeInsertion(line, line.indexOf('].') + 1, '(Braudel 1949, p. 3)'), undefined);
    assert.equal(mergeInsertion(line, line.indexOf('].') + 1, '[Braudel 1949, p. 2](<file:///b.pdf#page=2>)'), undefined);
  });
});
