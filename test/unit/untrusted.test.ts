import assert from 'node:assert/strict';
import { bounded, lineText, markdownText, safeCard, visibleText } from '../../src/shared/untrusted';

const RLO = '\u202E';

describe('untrusted text (shared/untrusted.ts)', () => {
  it('removes bidi overrides, isolates, zero-width characters, NUL and controls, and keeps the text in its written order', () => {
    assert.equal(visibleText(`Title ${RLO}reversed\u202C and\u200B hidden\u0000 bell\u0007 isolate\u2067x\u2069`), 'Title reversed and hidden bell isolatex');
    assert.equal(visibleText('Une société\tà\nParis'), 'Une société\tà\nParis', 'letters, accents, tab and newline stay');
    assert.equal(visibleText('שלום and مرحبا'), 'שלום and مرحبا', 'right-to-left scripts stay');
  });

  it('bounds length by code points, with an ellipsis', () => {
    assert.equal(bounded('x'.repeat(5000), 40).length, 40);
    assert.ok(bounded('x'.repeat(5000), 40).endsWith('…'));
    assert.equal(bounded('short', 40), 'short');
    assert.equal(Array.from(bounded('😀'.repeat(10), 5)).length, 5, 'no broken surrogate pair');
  });

  it('makes one bounded line', () => {
    assert.equal(lineText('  a\n\n b\t c  ', 80), 'a b c');
    assert.equal(Array.from(lineText('w'.repeat(100_000), 60)).length, 60);
  });

  it('writes Markdown in which nothing is markup or a link, and every character reads as written', () => {
    const hostile = '**bold** [x](javascript:alert(1)) ![i](https://e.com/i.png) <img src=x onerror=alert(1)> https://example.com/a.png www.example.com me@example.com `code` # h';
    const md = markdownText(hostile, 1000);
    assert.doesNotMatch(md.replace(/&#\d+;/g, ''), /[*[\]()<>`#!:@&]/, 'no structural character is left literal');
    assert.doesNotMatch(md, /https?:\/\//);
    assert.doesNotMatch(md, /www\./);
    // Decoding the references gives the text back exactly.
    const decoded = md.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    assert.equal(decoded, hostile);
  });

  it('cleans and bounds every untrusted field of a card, and leaves its path alone', () => {
    const card = {
      path: `/lib/${RLO}odd.pdf`,
      title: `${RLO}evil title ${'x'.repeat(5000)}`,
      authors: ['<iframe src="https://example.com"></iframe>', ...Array.from({ length: 100 }, (_, i) => `A${i}`)],
      pageLabel: `12${RLO}`,
      preview: `pre\u0000view ${RLO}`,
      highlights: ['\u200B', 'word'],
      duplicates: [`dup${RLO}`],
      citekey: `key\u200B1`,
      passages: [{ page: 3, pageLabel: null, heading: `Head${RLO}ing`, preview: 'p', similarity: 0.2 }],
    };
    const safe = safeCard(card);
    assert.equal(safe.path, card.path);
    assert.ok(!safe.title.includes(RLO) && Array.from(safe.title).length <= 400);
    assert.equal(safe.authors.length, 30);
    assert.equal(safe.authors[0], '<iframe src="https://example.com"></iframe>', 'markup is kept as text (escaped where shown)');
    assert.equal(safe.pageLabel, '12');
    assert.equal(safe.preview, 'preview');
    assert.deepEqual(safe.highlights, ['word']);
    assert.deepEqual(safe.duplicates, ['dup']);
    assert.equal(safe.citekey, 'key1');
    assert.equal(safe.passages[0].heading, 'Heading');
    assert.equal(safe.passages[0].page, 3);
  });
});
