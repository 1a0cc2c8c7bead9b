import assert from 'node:assert/strict';
import { bounded, lineText, markdownText, safeCard, terminalText, visibleText } from '../../src/shared/untrusted';

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
    const hostile =
      '**bold** [x](javascript:alert(1)) ![i](https://e.com/i.png) <img src=x onerror=alert(1)> https://example.com/a.png www.example.com me@example.com `code` # h';
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

  describe('terminalText: one line of a terminal', () => {
    // C0 but none allowed, DEL, C1, bidi controls, zero-width and other format characters, line separators.
    const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u2028\u2029]/u;
    const NAME = `evil\u001b[2J\u001b]8;;mailto:a@x.example\u0007link\u001b]8;;\u0007${RLO}txt.exe\nfake line\r.pdf`;

    it('escapes what a name holds, so that it reads as it is and can do nothing', () => {
      const shown = terminalText(NAME, 1000);
      assert.doesNotMatch(shown, UNSAFE);
      assert.equal(shown, 'evil\\x1b[2J\\x1b]8;;mailto:a@x.example\\x07link\\x1b]8;;\\x07\\u202etxt.exe\\nfake line\\r.pdf');
      assert.equal(
        terminalText('a\u009b2Jb\u0000c\u007f\td\u2028\u{e0041}\u00ad', 100),
        'a\\x9b2Jb\\x00c\\x7f\\td\\u2028\\u{e0041}\\xad',
        'C1, NUL, DEL, tab, separators, tags',
      );
      assert.equal(terminalText('x\ud800y', 100), 'x\\ud800y', 'a lone surrogate');
      assert.equal(terminalText('Une société — שלום, 😀 C:\\dir', 100), 'Une société — שלום, 😀 C:\\dir', 'letters, scripts, emoji and backslashes stay');
    });

    it('bounds what it prints, escapes counted, never cutting one in two', () => {
      assert.equal(terminalText('abcdefghij', 10), 'abcdefghij');
      assert.equal(terminalText('abcdefghijk', 10), 'abcdefghi…');
      assert.equal(terminalText('\u001b'.repeat(100_000), 10), '\\x1b\\x1b…');
      assert.equal(Array.from(terminalText('😀'.repeat(50), 10)).length, 10);
      assert.equal(Array.from(terminalText('1'.repeat(100_000), 200)).length, 200);
    });

    it('prose: line breaks and tabs are spaces, invisible and control characters are gone', () => {
      assert.equal(terminalText(`Bib\u0000title\u001b[31mRED\u009b1m ${RLO}x\u200b\r\n\tnext\u2029line\u00ad`, 100, 'prose'), 'Bibtitle[31mRED1m x next line');
      assert.equal(terminalText(NAME, 1000, 'prose'), 'evil[2J]8;;mailto:a@x.examplelink]8;;txt.exe fake line .pdf');
      assert.equal(Array.from(terminalText('w '.repeat(100_000), 60, 'prose')).length, 60);
    });
  });
});
