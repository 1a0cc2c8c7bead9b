/**
 * Property-based tests (fast-check) for the parts that read untrusted text:
 * segmentation of a draft, the citation formatter and the tokenizer (issue 14, item 4).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { segmentMarkdown } from '../../src/core/markdown/segment';
import { formatCitation } from '../../src/shared/citation';
import { tokenize } from '../../src/core/text/tokenize';

const word = fc.stringMatching(/^[a-zA-Zéèàç]{1,10}$/);
const sentence = fc.array(word, { minLength: 1, maxLength: 14 }).map((w) => w.join(' '));
/** A Markdown block and whether it yields a paragraph-level segment. */
const block = fc.oneof(
  sentence.map((s) => `${s[0].toUpperCase()}${s.slice(1)} paragraph.`),
  sentence.map((s) => `## ${s}`),
  fc.array(sentence, { minLength: 1, maxLength: 4 }).map((items) => items.map((i) => `- ${i} item`).join('\n')),
  sentence.map((s) => `> ${s} quoted`),
  sentence.map((s) => '```\n' + s + '\n```'),
  fc.array(word, { minLength: 1, maxLength: 3 }).map((cells) => `| ${cells.join(' | ')} |\n|${cells.map(() => '---').join('|')}|\n| ${cells.join(' | ')} |`),
);
const draft = fc.array(block, { minLength: 1, maxLength: 25 });

describe('segmentation properties', function () {
  this.timeout(60_000);

  it('segments lie inside the document, their lines hold their text exactly, ids are unique', async () => {
    await fc.assert(
      // Line endings: LF, CRLF, lone CR (a line break for CommonMark and for VS Code alike), or mixed.
      fc.asyncProperty(
        draft,
        fc.constantFrom('\n', '\r\n', '\r', 'mixed'),
        fc.boolean(),
        fc.constantFrom('paragraph', 'sentence', 'section'),
        async (blocks, eol, bom, granularity) => {
          let n = 0;
          const body = blocks.join('\n\n').replace(/\n/g, () => (eol === 'mixed' ? ['\n', '\r', '\r\n'][n++ % 3] : eol));
          const source = (bom ? '\uFEFF' : '') + body;
          const lines = source.split(/\r\n|\r|\n/);
          const { segments } = await segmentMarkdown(source, granularity as 'paragraph');
          const ids = new Set<string>();
          for (const s of segments) {
            assert.ok(s.startLine >= 1 && s.endLine <= lines.length && s.startLine <= s.endLine, `lines ${s.startLine}-${s.endLine} of ${lines.length}`);
            assert.ok(!ids.has(s.id), `duplicate id ${s.id}`);
            ids.add(s.id);
            const span = lines.slice(s.startLine - 1, s.endLine).join('\n');
            const text = s.text.replace(/\r\n|\r/g, '\n');
            assert.ok(span.includes(text), `segment text not on its lines ${s.startLine}-${s.endLine}`);
            // First and last lines are exact: the text starts on startLine and ends on endLine.
            assert.ok(lines[s.startLine - 1].includes(text.split('\n')[0]));
            assert.ok(lines[s.endLine - 1].includes(text.split('\n').at(-1)!));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('ids of the other segments are stable when one paragraph is edited, or one is added', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(sentence, { minLength: 2, maxLength: 15, selector: (s) => s.toLowerCase() }),
        fc.nat(),
        sentence,
        async (paras, at, replacement) => {
          const blocks = paras.map((p) => `${p} paragraph.`);
          const before = await segmentMarkdown(blocks.join('\n\n'));
          const k = at % blocks.length;
          const edited = [...blocks];
          edited[k] = `Edited ${replacement} uniquely.`;
          const after = await segmentMarkdown(edited.join('\n\n'));
          before.segments.forEach((s, i) => {
            if (i !== k) assert.equal(after.segments[i].id, s.id);
          });
          const added = await segmentMarkdown([...blocks.slice(0, k), `Inserted ${replacement} newly.`, ...blocks.slice(k)].join('\n\n'));
          const ids = new Set(added.segments.map((s) => s.id));
          for (const s of before.segments) assert.ok(ids.has(s.id), 'an id changed after an insertion elsewhere');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('never throws on arbitrary text (binary garbage, control characters, lone surrogates)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 400 }), async (text) => {
        const { segments } = await segmentMarkdown(text);
        for (const s of segments) assert.ok(s.startLine >= 1);
      }),
      { numRuns: 200 },
    );
  });
});

describe('citation formatter properties', () => {
  const source = fc.record({
    citekey: fc.option(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }), { nil: undefined }),
    title: fc.string({ unit: 'grapheme', maxLength: 80 }),
    authors: fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }), { maxLength: 5 }),
    year: fc.option(fc.integer({ min: 1000, max: 2100 }), { nil: undefined }),
    path: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).map((s) => `/library/${s}.pdf`),
  });

  it('with a citekey: exactly the template with the key and page put in', () => {
    fc.assert(
      fc.property(source, fc.integer({ min: 1, max: 5000 }), (src, page) => {
        fc.pre(src.citekey !== undefined);
        assert.equal(formatCitation(src, page), `[@${src.citekey}, p. ${page}]`);
        assert.equal(formatCitation(src, page, undefined, '{key}|{page}'), `${src.citekey}|${page}`);
      }),
    );
  });

  it('without a citekey: one Markdown link whose label holds no bracket and whose target holds no space or angle bracket', () => {
    fc.assert(
      fc.property(source, fc.integer({ min: 1, max: 5000 }), fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), (src, page, label) => {
        const c = formatCitation({ ...src, citekey: undefined }, page, label);
        const m = /^\[([^\][]*)\]\(<([^<>\s]*)>\)$/.exec(c);
        assert.ok(m, `not one link: ${JSON.stringify(c)}`);
        assert.ok(m[2].endsWith(`#page=${page}`));
        assert.ok(m[2].startsWith('file:///'));
      }),
    );
  });
});

describe('tokenizer properties', () => {
  it('never throws; tokens are non-empty and hold no white space; the same text gives the same tokens', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const t = tokenize(text);
        for (const w of t) assert.ok(w.length > 0 && !/\s/.test(w), JSON.stringify(w));
        assert.deepEqual(tokenize(text), t);
      }),
      { numRuns: 500 },
    );
  });

  it('tokenizing two texts joined by a space gives the tokens of each, in order (language fixed)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 120 }),
        fc.string({ unit: 'grapheme', maxLength: 120 }),
        fc.constantFrom('en', 'fr'),
        (a, b, lang) => {
          const l = lang as 'en' | 'fr';
          assert.deepEqual(tokenize(`${a} ${b}`, l), [...tokenize(a, l), ...tokenize(b, l)]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is blind to ASCII case and to accents', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ]{0,60}$/), (text) => {
        assert.deepEqual(tokenize(text.toUpperCase(), 'en'), tokenize(text, 'en'));
        const accented = text.replace(/e/g, 'é').replace(/a/g, 'à');
        assert.deepEqual(tokenize(accented, 'fr'), tokenize(text, 'fr'));
      }),
      { numRuns: 300 },
    );
  });
});
