import assert from 'node:assert/strict';
import { segmentMarkdown } from '../../src/core/markdown/segment';
import { citedKeys, stripCitationMarkup } from '../../src/core/markdown/plainText';

const DOC = `---
title: "Grain, Power and the Sea"
author: A. Historian
---

Opening words before any heading, long enough to count.

# Grain, Power and the Sea

## The licences

The tratta was a licence to export grain [@whitfield2019grain, p. 214], as [Braudel](https://example.org/braudel) saw it.[^1]

- First item about Sicilian barons and their grain.
- Second item about the Venetian Senate.
  - Nested point about bread prices in Venice.

> A quoted passage about the sea of wheat and its edges.

\`\`\`python
# not a heading
print("code")
\`\`\`

| a | b |
|---|---|
| 1 | 2 |

$$
x^2
$$

<div>html block</div>

## Empty section

## Setext title
Paragraph under it.

Setext heading
--------------

Short one.

The tratta was a licence to export grain [@whitfield2019grain, p. 214], as [Braudel](https://example.org/braudel) saw it.[^1]

[^1]: A footnote about the Spinola family and its agents in Palermo.
`;

describe('segmentMarkdown', () => {
  it('paragraph granularity: paragraphs, list items, quotes and footnotes; never code, tables, math, HTML or headings', async () => {
    const { title, segments } = await segmentMarkdown(DOC, 'paragraph');
    assert.equal(title, 'Grain, Power and the Sea');
    const types = segments.map((s) => s.type);
    assert.deepEqual(types, ['paragraph', 'paragraph', 'list-item', 'list-item', 'list-item', 'blockquote', 'paragraph', 'paragraph', 'paragraph', 'footnote']);
    assert.ok(!segments.some((s) => /not a heading|print|x\^2|html block|\| a \|/.test(s.text)));
    const p = segments[1];
    assert.equal(p.startLine, 12);
    assert.equal(p.endLine, 12);
    assert.deepEqual(p.headingPath, ['Grain, Power and the Sea', 'The licences']);
    assert.equal(p.query, 'The tratta was a licence to export grain, as Braudel saw it.');
    assert.match(p.text, /\[@whitfield2019grain, p\. 214\]/, 'display text keeps the markup');
    const nested = segments[4];
    assert.equal(nested.query, 'Nested point about bread prices in Venice.');
    assert.equal(nested.startLine, 16);
  });

  it('gives unique ids to identical paragraphs, stable when other parts change', async () => {
    const a = (await segmentMarkdown(DOC)).segments;
    const twins = a.filter((s) => s.text.startsWith('The tratta'));
    assert.equal(twins.length, 2);
    assert.notEqual(twins[0].id, twins[1].id);
    assert.equal(new Set(a.map((s) => s.id)).size, a.length);
    const edited = DOC.replace('Opening words before any heading', 'Opening words, rewritten, before any heading');
    const b = (await segmentMarkdown(edited)).segments;
    assert.notEqual(a[0].id, b[0].id);
    assert.deepEqual(
      a.slice(1).map((s) => s.id),
      b.slice(1).map((s) => s.id),
    );
    const shifted = (await segmentMarkdown(DOC.replace('Opening words', 'New first paragraph here, with words.\n\nOpening words'))).segments;
    assert.deepEqual(
      shifted.slice(1).map((s) => s.id),
      a.map((s) => s.id),
    );
    assert.equal(shifted[2].startLine, a[1].startLine + 2);
  });

  it('section granularity: each heading with its content, text before the first heading, no empty sections, code # is not a heading', async () => {
    const { segments } = await segmentMarkdown(DOC, 'section');
    const titles = segments.map((s) => s.title);
    assert.deepEqual(titles, ['Opening words before any heading, long enough to…', 'The licences', 'Setext title', 'Setext heading']);
    const lic = segments[1];
    assert.equal(lic.startLine, 10);
    assert.match(lic.text, /# not a heading/, 'the code block belongs to the section text');
    assert.ok(!lic.query.includes('not a heading'));
    assert.equal(segments[3].endLine, DOC.split('\n').findIndex((l) => l.startsWith('[^1]:')) + 1, 'the footnote definition belongs to the last section');
  });

  it('sentence granularity: sentences of prose blocks with their own lines, case kept', async () => {
    const md = '# T\n\nM. Dupont cite J.-P. Sartre, p. 45.\nIl conclut : « Qui ? » demanda-t-il.[^1] La suite vient.\n\n[^1]: Note.\n';
    const { segments } = await segmentMarkdown(md, 'sentence');
    assert.deepEqual(
      segments.map((s) => s.text),
      ['M. Dupont cite J.-P. Sartre, p. 45.', 'Il conclut : « Qui ? » demanda-t-il.[^1]', 'La suite vient.', 'Note.'],
    );
    assert.deepEqual(
      segments.map((s) => [s.startLine, s.endLine]),
      [
        [3, 3],
        [4, 4],
        [4, 4],
        [6, 6],
      ],
    );
    assert.equal(segments[1].query, 'Il conclut : « Qui ? » demanda-t-il.');
  });

  it('lists short segments as not searchable', async () => {
    const { segments } = await segmentMarkdown(DOC, 'paragraph', { minWords: 4 });
    const short = segments.find((s) => s.text === 'Short one.')!;
    assert.equal(short.searchable, false);
    assert.ok(segments.filter((s) => s.searchable).length >= 8);
  });
});

describe('citation markup', () => {
  it('strips Pandoc citations and footnote markers, keeps prose', () => {
    assert.equal(stripCitationMarkup('As shown [@a; @b, pp. 3-4], and @c argues.[^n]'), 'As shown, and argues.');
    assert.equal(stripCitationMarkup('Write to me@example.org today'), 'Write to me@example.org today');
  });
  it('finds cited keys', () => {
    assert.deepEqual([...citedKeys('See [@whitfield2019grain, p. 2; -@braudel1949] and @smith:2020.')].sort(), [
      'braudel1949',
      'smith:2020',
      'whitfield2019grain',
    ]);
  });
});
