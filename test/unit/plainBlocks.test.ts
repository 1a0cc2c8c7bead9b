/**
 * Blocks of the plainest shapes are built without the Markdown parser (core/markdown/plainBlocks.ts,
 * issue 28): the tree, the segments and the warnings must be exactly what the parser gives, on
 * random drafts of those shapes mixed with ordinary Markdown (differential, fast-check).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseDraft } from '../../src/core/markdown/parse';
import { plainBlocks } from '../../src/core/markdown/plainBlocks';
import { segmentMarkdown } from '../../src/core/markdown/segment';

/** Lines of the shapes read without the parser. */
const PLAIN = [
  'a',
  'Title',
  'Some words here.',
  'Über café, naïve — “quoted”',
  'word 2 (b) > c ^ d',
  'C# and #1 here',
  'x  y',
  'end: done?',
  '# h',
  '## Heading two',
  '###### six',
  '# Title with words',
  '=====',
  '=',
  '-----',
  '--',
  '-',
  '---',
  '***',
  '___',
  '- a',
  '- b c',
  '* a',
  '+ a',
  '> a',
  '> quoted words',
  '>',
  '',
  '[a]: /u',
  '[B c]: http://x.y/z?q=1#f',
  '[^n]: note',
  '[^N7]: A note here.',
  '    code',
  '     deeper code',
  '    *not em* [x]',
  '| a | b |',
  '| - | - |',
  '| :-- | --: |',
  '| :-: | --- |',
  '| c d | e |',
  '| a |',
  '| - |',
  '| a | b | c |',
];
/** Those, their near misses, and ordinary Markdown. */
const LINES = [
  ...PLAIN,
  '|a|b|',
  '| a | b',
  '| a |b |',
  '|  a | b |',
  '| *a* | b |',
  '| a | b | ',
  '[a]: /u "t"',
  '[^n]:note',
  '[a]:/u',
  '[ a]: /u',
  '[a b]: <u>',
  '[a]: /u ',
  '[^n]: *em*',
  '[^a b]: x',
  '    code ',
  '    \tcode',
  '   three',
  '[a]: /(u)',
  // near misses
  '####### seven',
  '#nospace',
  '# ',
  '# trailing ',
  '#  two spaces',
  '# a # b',
  '# closed #',
  '* * *',
  '- - -',
  '-a',
  '- ',
  '-  a',
  '- [ ] task',
  '- [x] done',
  '1. one',
  '2. two',
  '1) one',
  '>a',
  '> > a',
  '>  a',
  '>',
  '> - a',
  '> # h',
  '    code',
  '\tcode',
  '  - nested',
  ' a',
  'a ',
  'a  ',
  'a\\',
  'tab\there',
  '&amp; x',
  'x | y',
  '| a | b |',
  '| - | - |',
  '[^n]: note',
  '[a]: /u',
  '[a] and [b]',
  'text with *em* and [@key]',
  '`code`',
  'a_b',
  '$x$',
  '$$',
  '<div>a</div>',
  '<!-- c -->',
  '```',
  '~~~',
  '+++',
  '===  ',
  '--- ',
  'ä',
  '\u00a0a',
  '\uFEFFa',
  'a\u0000b',
];

/** A GitHub table, its rows of as many cells as its header or not, plain or not. */
const tableArb = fc
  .record({
    header: fc.integer({ min: 1, max: 3 }),
    align: fc.constantFrom('-', ':-', '-:', ':-:', '---'),
    rows: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 4 }),
    cell: fc.constantFrom('a', 'b c', 'x', '*e*', 'é'),
  })
  .map(({ header, align, rows, cell }) =>
    [header, 0, ...rows]
      .map((n, i) =>
        i === 1
          ? `| ${Array(header).fill(align).join(' | ')} |`
          : `| ${Array(n)
              .fill(i === 2 ? cell : 'a')
              .join(' | ')} |`,
      )
      .join('\n'),
  );

const lineArb = fc.record({
  text: fc.oneof(
    { weight: 1, arbitrary: tableArb },
    { weight: 3, arbitrary: fc.constantFrom(...PLAIN) },
    { weight: 2, arbitrary: fc.constantFrom(...LINES) },
    { weight: 1, arbitrary: fc.constant('') },
  ),
  ending: fc.constantFrom('\n', '\n', '\n', '\n', '\r\n', '\r'),
  repeat: fc.oneof({ weight: 5, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 40 }) }),
});
const draftArb = fc
  .record({
    front: fc.constantFrom('', '', '---\ntitle: T\n---\n', '---\n---\n'),
    lines: fc.array(lineArb, { maxLength: 40 }),
    end: fc.boolean(),
  })
  .map(({ front, lines, end }) => {
    const body = lines.map((l) => (l.text + l.ending).repeat(l.repeat)).join('');
    return front + (end ? body : body.replace(/(\r\n|\r|\n)$/, ''));
  });

async function sameAsParser(src: string, maxBlock?: number): Promise<void> {
  const [fast, full] = [await parseDraft(src, { maxBlock }), await parseDraft(src, { maxBlock, plain: false })];
  assert.deepEqual(fast.tree.children, full.tree.children, JSON.stringify(src));
  assert.deepEqual(fast.warnings, full.warnings);
  for (const g of ['section', 'paragraph', 'sentence'] as const) {
    const [a, b] = [await segmentMarkdown(src, g, { blockBytes: maxBlock }), await segmentMarkdown(src, g, { blockBytes: maxBlock, plainBlocks: false })];
    assert.deepEqual(a, b, `${g}: ${JSON.stringify(src)}`);
  }
}

describe('plain blocks (built without the parser)', () => {
  it('the shapes of issue 28 give the parser’s tree and segments', async () => {
    for (const unit of [
      'a\n\n',
      'Title\n=====\n',
      'Title\n=====\n\n',
      'Title\n-----\n',
      '# h\n',
      '- a\n',
      '* a\n',
      '> a\n',
      '---\n',
      '***\n',
      'Some words here.\n\n',
      'Two lines\nof text\n\n',
      '[a]: /u\n',
      '[^n]: note\n',
      '    code\n',
      '# h\n[a]: /u\n[^n]: Note.\n\n',
      '| a | b |\n| - | :-: |\n| c | d |\n\n',
      '| a | b |\n',
      '> T\n> ==\n>\n',
    ]) {
      await sameAsParser(unit.repeat(300));
      // References before plain stretches, defined after them: every parse is handed the definitions.
      await sameAsParser('Intro [a] and a note[^n] *here*.\n\n' + unit.repeat(50) + '[a]: /u\n\n[^n]: The note.\n');
    }
  });

  it('references in one parse, definitions in a later one of the same block (parses of 1 KB): read as in one parse', async () => {
    await sameAsParser('Intro [a] and a note[^n].\n\n' + 'Words *em* here.\n\n'.repeat(150) + '[a]: /u\n\n[^n]: The note.\n');
    await sameAsParser('[a]: /u\n\n[a] and [b]\n\n'.repeat(300));
  });

  it('random drafts of those shapes and ordinary Markdown: the same tree, warnings and segments, whatever the block size', async () => {
    await fc.assert(
      fc.asyncProperty(draftArb, fc.constantFrom(undefined, undefined, 1, 64), async (src, maxBlock) => {
        await sameAsParser(src, maxBlock);
      }),
      { numRuns: 400 },
    );
  });

  it('takes the shapes it is for, and leaves anything else to the parser', () => {
    for (const t of [
      'a\n\n',
      'Two lines\nof text',
      'Title\n=====\n',
      '# h',
      '- a\n- b\n',
      '> a\n> b\n',
      '***\n---\n',
      'Über café\n',
      '[a]: /u\n[b]: /v',
      '[^n]: A note.\n[^m]: B.',
      '    code\n    more',
    ])
      assert.ok(plainBlocks(t, 0, t.length, 1, 0), JSON.stringify(t));
    for (const t of [
      'a *b*',
      '- [ ] task',
      '1. one',
      '> > a',
      '- a\nb',
      '> a\nb',
      'a\n\nb',
      '# a # b',
      'a  \nb',
      '&amp;',
      '---\n',
      'a\n[a]: /u',
      '[a]: /u "t"',
      '[^n]: x\ny',
    ])
      assert.equal(plainBlocks(t, 0, t.length, t === '---\n' ? 0 : 1, 0), undefined, JSON.stringify(t));
  });
});
