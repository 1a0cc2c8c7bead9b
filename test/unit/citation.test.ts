import assert from 'node:assert/strict';
import { formatCitation, shortAuthors, authorSurname } from '../../src/shared/citation';

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
