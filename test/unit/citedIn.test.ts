import assert from 'node:assert/strict';
import { citedElsewhere, draftCitations, draftSections, sectionName } from '../../src/shared/citedIn';

const draft = [
  '---', // 0
  'title: "X @notakey"', // 1
  '---', // 2
  '# The title', // 3
  '', // 4
  '## Introduction', // 5
  'Opening [@a, p. 3]. Mail x@y.org.', // 6
  '```text', // 7
  '# Not a heading [@b]', // 8
  '```', // 9
  '## Grain', // 10
  'Ships [see @b, p. 2; @a].', // 11
  '### Permits', // 12
  'Sold [@c], as @a says.', // 13
].join('\n');

describe('citedIn', () => {
  it('numbers sections as a reader does: the lone opening heading is the title', () => {
    assert.deepEqual(
      draftSections(draft).map((s) => [s.number, s.heading, s.line]),
      [
        ['', 'The title', 3],
        ['§ 1', 'Introduction', 5],
        ['§ 2', 'Grain', 10],
        ['§ 2.1', 'Permits', 12],
      ],
    );
  });
  it('numbers top-level headings when there are several', () => {
    assert.deepEqual(
      draftSections('# A\n## a1\n# B').map((s) => s.number),
      ['§ 1', '§ 1.1', '§ 2'],
    );
    assert.deepEqual(draftSections('no headings'), []);
  });
  it('finds citations (bracketed and in-text, not e-mail addresses) outside code and front matter, with their section', () => {
    const c = draftCitations(draft);
    assert.deepEqual(
      c.map((x) => [x.key, x.line, sectionName(x.section)]),
      [
        ['a', 6, '§ 1'],
        ['b', 11, '§ 2'],
        ['a', 11, '§ 2'],
        ['c', 13, '§ 2.1'],
        ['a', 13, '§ 2.1'],
      ],
    );
  });
  it('lists the other sections that cite a key, once each, leaving out the segment itself', () => {
    const c = draftCitations(draft);
    const fromGrain = citedElsewhere(c, 11, 11);
    assert.deepEqual(fromGrain.get('a')?.map(sectionName), ['§ 1', '§ 2.1']);
    assert.equal(fromGrain.get('b'), undefined);
    assert.deepEqual(citedElsewhere(c, 13, 13).get('a')?.map(sectionName), ['§ 1', '§ 2']);
    assert.deepEqual(citedElsewhere(c, 6, 6).get('a')?.map(sectionName), ['§ 2', '§ 2.1']);
  });
  it('names a section without a number by its heading', () => {
    const c = draftCitations('## Only\ntext [@k]\n\nmore');
    assert.equal(sectionName(c[0].section), '§ 1');
    assert.equal(sectionName(draftCitations('before [@k]\n# T')[0].section), '');
  });
});
