import assert from 'node:assert/strict';
import { chunkPages } from '../../src/core/passages/chunker';
import type { CleanPage } from '../../src/core/pdf/cleanPages';

function sentence(i: number, words = 12) {
  return `Sentence ${i} ` + Array.from({ length: words - 3 }, (_, j) => `w${i}x${j}`).join(' ') + ' end.';
}

describe('chunkPages', () => {
  it('makes sentence-respecting passages within the word budget, with overlap', () => {
    const body = Array.from({ length: 40 }, (_, i) => sentence(i)).join(' ');
    const pages: CleanPage[] = [{ page: 1, label: 'iv', blocks: [{ kind: 'text', text: body }] }];
    const ps = chunkPages(pages, { maxWords: 60, overlapWords: 15, minWords: 10 });
    assert.ok(ps.length >= 8, `got ${ps.length}`);
    for (const p of ps) {
      assert.ok(p.text.split(/\s+/).length <= 60, p.text);
      assert.match(p.text, /^Sentence \d+ /);
      assert.match(p.text, /end\.$/);
      assert.equal(p.pageLabel, 'iv');
    }
    // consecutive passages share a sentence
    const last = ps[0].text.split('. ').pop()!;
    assert.ok(ps[1].text.includes(last.replace(/\.$/, '')));
    // all sentences are covered
    for (let i = 0; i < 40; i++)
      assert.ok(
        ps.some((p) => p.text.includes(`Sentence ${i} `)),
        `sentence ${i}`,
      );
  });

  it('records the start page, end page and heading of each passage', () => {
    const pages: CleanPage[] = [
      {
        page: 1,
        label: '12',
        blocks: [
          { kind: 'heading', text: 'I. Surplus' },
          { kind: 'text', text: [1, 2, 3].map((i) => sentence(i)).join(' ') },
        ],
      },
      {
        page: 2,
        label: '13',
        blocks: [
          { kind: 'text', text: [4, 5].map((i) => sentence(i)).join(' ') },
          { kind: 'heading', text: 'II. Licences' },
          { kind: 'text', text: sentence(6) + ' ' + sentence(7) },
        ],
      },
    ];
    const ps = chunkPages(pages, { maxWords: 200, overlapWords: 20, minWords: 5 });
    assert.equal(ps.length, 2);
    assert.deepEqual([ps[0].page, ps[0].endPage, ps[0].pageLabel, ps[0].heading], [1, 2, '12', 'I. Surplus']);
    assert.deepEqual([ps[1].page, ps[1].pageLabel, ps[1].heading], [2, '13', 'II. Licences']);
    assert.ok(!ps[1].text.includes('Sentence 5 '), 'a heading starts a fresh passage');
  });

  it('cuts a sentence longer than a passage by words and returns nothing for empty pages', () => {
    const long = Array.from({ length: 130 }, (_, i) => `w${i}`).join(' ');
    const ps = chunkPages([{ page: 1, blocks: [{ kind: 'text', text: long }] }], { maxWords: 50, overlapWords: 0, minWords: 1 });
    assert.equal(ps.length, 3);
    assert.deepEqual(chunkPages([{ page: 1, blocks: [] }]), []);
  });
});
