import assert from 'node:assert/strict';
import { cleanPages, joinLines } from '../../src/core/pdf/cleanPages';

const page = (n: number, body: string) => `Journal of Modern History\n${body}\n${n}`;

describe('cleanPages', () => {
  it('removes running headers and bare page numbers that repeat across pages', () => {
    const bodies = ['Grain came from Sicily.', 'Ships were chartered in Genoa.', 'Licences were sold by the crown.', 'Prices doubled in the dearth.'];
    const pages = bodies.map((b, i) => page(i + 12, `${b}\nA second line of prose follows here.`));
    const clean = cleanPages(pages, ['12', '13', '14', '15']);
    for (const p of clean) {
      const all = p.blocks.map((b) => b.text).join('\n');
      assert.ok(!all.includes('Journal of Modern History'), all);
      assert.ok(!/^\d+$/m.test(all), all);
      assert.ok(
        bodies.some((b) => all.includes(b)),
        all,
      );
    }
    assert.equal(clean[1].label, '13');
    assert.equal(clean[1].page, 2);
  });

  it('keeps a line that appears on a few pages only', () => {
    const pages = ['Intro\nAlpha text here.', 'Alpha text here.\nMore.', 'Other.', 'Other again.', 'Yet another.'];
    const text = cleanPages(pages)
      .map((p) => p.blocks.map((b) => b.text).join(' '))
      .join(' ');
    assert.equal((text.match(/Alpha text here/g) ?? []).length, 2);
  });

  it('joins end-of-line hyphenation but keeps real compounds', () => {
    assert.equal(joinLines(['Leur historio-', 'graphie se veut totale.']), 'Leur historiographie se veut totale.');
    assert.equal(joinLines(['selon Jean-', 'Paul Sartre']), 'selon Jean-Paul Sartre');
    assert.equal(joinLines(['two', 'lines']), 'two lines');
  });

  it('marks probable headings and keeps prose as text', () => {
    const [p] = cleanPages(['II. Licences and the Fiscal Logic of Grain\nThe tratta was a licence to export grain.\nIt was sold by the crown.']);
    assert.deepEqual(p.blocks[0], { kind: 'heading', text: 'II. Licences and the Fiscal Logic of Grain' });
    assert.equal(p.blocks[1].kind, 'text');
    assert.match(p.blocks[1].text, /^The tratta was a licence to export grain\. It was sold/);
  });

  it('reads numbered lines in a row (code, verse) as text, a numbered line before prose as a heading', () => {
    const [p] = cleanPages([
      "Poems\n1 Shall I compare thee to a summer's day?\n2 Thou art more lovely and more temperate\n3 Rough winds do shake the darling buds of May",
    ]);
    assert.deepEqual(
      p.blocks.map((b) => b.kind),
      ['heading', 'text'],
    );
    assert.match(p.blocks[1].text, /^1 Shall I compare .* 3 Rough winds/);
    const [q] = cleanPages(['2 Licences and the Fiscal Logic of Grain\nThe tratta was a licence to export grain.']);
    assert.deepEqual(
      q.blocks.map((b) => b.kind),
      ['heading', 'text'],
    );
  });
});
