/**
 * Property-based tests of the BibTeX loader (reliability issue, item 4): whatever the input, the
 * API answers with entries and warnings; what is written comes back; how the text is cut into
 * chunks for the parser never changes the result.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseBibtex } from '../../src/core/library/bibliography';

const BASE = '/home/historian/export';

/** Text made of the pieces BibTeX syntax is built from, so that the parser's error paths run. */
const bibLike = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '@',
        '@book{',
        '@string{',
        '@preamble{',
        '@comment{',
        '{',
        '}',
        '"',
        ',',
        '=',
        '#',
        '\\',
        "\\'",
        '\\"{',
        '$',
        '%',
        '\n',
        ' ',
        'and',
        'title',
        'author',
        'file',
        '~',
        '--',
        '\\newcommand{\\x}{\\x}',
        '\\def\\y{\\y}',
      ),
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

function assertWellFormed(r: Awaited<ReturnType<typeof parseBibtex>>): void {
  assert.ok(Array.isArray(r.entries) && Array.isArray(r.warnings));
  for (const w of r.warnings) assert.equal(typeof w, 'string');
  for (const e of r.entries) {
    assert.equal(typeof e.citekey, 'string');
    assert.ok(e.citekey.length > 0);
    assert.ok(Array.isArray(e.authors) && e.authors.every((a) => typeof a === 'string'));
    assert.ok(Array.isArray(e.files) && Array.isArray(e.collections));
    assert.ok(e.title === undefined || typeof e.title === 'string');
    assert.ok(e.year === undefined || Number.isInteger(e.year));
  }
  assert.equal(new Set(r.entries.map((e) => e.citekey)).size, r.entries.length, 'citation keys are unique');
}

describe('parseBibtex properties', function () {
  this.timeout(120_000);

  it('never throws on arbitrary text; answers entries and warnings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(bibLike, fc.string({ unit: 'binary', maxLength: 200 })), async (text) => {
        assertWellFormed(await parseBibtex(text, BASE));
      }),
      { numRuns: 300 },
    );
  });

  // The warnings' wording may differ (the parser quotes what follows an error, which depends on
  // where the chunk ends); the entries, and whether there is anything to warn about, may not.
  it('gives the same entries however the text is cut into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(bibLike, fc.constant('@book{k1, title={A}}\n'), fc.constant('@book{k2, title={B}\n')), { maxLength: 6 }),
        async (parts) => {
          const text = parts.join('\n');
          const [small, whole] = [await parseBibtex(text, BASE, 1), await parseBibtex(text, BASE)];
          assert.deepEqual(small.entries, whole.entries);
          assert.equal(small.warnings.length === 0, whole.warnings.length === 0);
        },
      ),
      { numRuns: 100 },
    );
  });

  // Letters a library's titles and names are written with, and how an export may spell them.
  const LATEX: Record<string, string[]> = {
    é: ["{\\'e}", "\\'{e}", "\\'e"],
    è: ['{\\`e}', '\\`{e}'],
    à: ['{\\`a}'],
    ç: ['{\\c c}', '\\c{c}'],
    ü: ['{\\"u}', '\\"{u}'],
    ö: ['\\"{o}', '{\\"o}'],
    É: ["{\\'E}"],
    ø: ['{\\o}'],
    ß: ['{\\ss}'],
  };
  const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz', ...Object.keys(LATEX));
  const word = fc.array(letter, { minLength: 1, maxLength: 10 }).map((l) => l.join(''));
  const capitalised = fc
    .tuple(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), fc.array(letter, { minLength: 1, maxLength: 9 }))
    .map(([c, l]) => c + l.join(''))
    .filter((w) => w.toLowerCase() !== 'and' && w.toLowerCase() !== 'others');
  const entry = fc.record({
    citekey: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_:-]{0,20}$/),
    words: fc.array(fc.oneof(word, capitalised), { minLength: 1, maxLength: 8 }),
    protect: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    authors: fc.array(fc.record({ last: capitalised, first: capitalised }), { minLength: 1, maxLength: 4 }),
    year: fc.integer({ min: 1000, max: 2999 }),
    spelling: fc.nat(),
    quoted: fc.boolean(),
  });
  type Generated = typeof entry extends fc.Arbitrary<infer T> ? T : never;

  const spell = (s: string, choice: number) => [...s].map((ch) => (LATEX[ch] ? LATEX[ch][choice % LATEX[ch].length] : ch)).join('');
  function render(e: Generated): string {
    const title = e.words.map((w, i) => (e.protect[i] ? `{${spell(w, e.spelling)}}` : spell(w, e.spelling))).join(' ');
    const authors = e.authors.map((a) => `${spell(a.last, e.spelling)}, ${spell(a.first, e.spelling + 1)}`).join(' and ');
    const open = e.quoted ? '"' : '{';
    const close = e.quoted ? '"' : '}';
    return `@article{${e.citekey},\n  title = ${open}${title}${close},\n  author = {${authors}},\n  year = ${e.year}\n}\n`;
  }

  it('gives back the title, authors, year and citation key of generated entries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(entry, { selector: (e) => e.citekey, minLength: 1, maxLength: 5 }), async (entries) => {
        const r = await parseBibtex(entries.map(render).join('\n'), BASE);
        assert.deepEqual(r.warnings, []);
        assert.deepEqual(
          r.entries.map((e) => [e.citekey, e.title, e.authors, e.year]),
          entries.map((e) => [e.citekey, e.words.join(' ').normalize('NFC'), e.authors.map((a) => `${a.last}, ${a.first}`), e.year]),
        );
      }),
      { numRuns: 150 },
    );
  });
});
