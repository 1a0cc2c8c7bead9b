/**
 * Hostile drafts at ordinary sizes (issue 14, item 4); the huge ones, with
 * time, memory and event-loop delay, are in test/stress/drafts.stress.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MAX_NESTING, segmentMarkdown } from '../../src/core/markdown/segment';
import { errorCode } from '../../src/shared/errors';

const nestedList = (n: number) => Array.from({ length: n }, (_, i) => '  '.repeat(i) + `- item ${i} has a few words`).join('\n');
const nestedQuote = (n: number) => Array.from({ length: n }, (_, i) => '>'.repeat(i + 1) + ` quote ${i} has a few words`).join('\n');

describe('hostile drafts', () => {
  it('1,000 levels of nested lists or quotes: refused at once with the line, not parsed for a minute', async () => {
    for (const src of [nestedList(1000), nestedQuote(1000)]) {
      const t0 = Date.now();
      await assert.rejects(
        segmentMarkdown(src),
        (e) => errorCode(e) === 'unreadable' && /more than 100 levels deep \(line 10[12]\)/.test((e as Error).message),
      );
      // A hang guard (the parse would take a minute), not a speed target: the machine is shared.
      assert.ok(Date.now() - t0 < 10_000);
    }
  });

  it(`${MAX_NESTING} levels are still segmented`, async () => {
    const { segments } = await segmentMarkdown(nestedList(MAX_NESTING));
    assert.equal(segments.length, MAX_NESTING);
    assert.equal(segments.at(-1)!.startLine, MAX_NESTING);
  });

  it('a byte-order mark: segment texts and lines exact', async () => {
    const { segments } = await segmentMarkdown('\uFEFF# Title\n\nFirst paragraph has words.\n\nSecond paragraph has words.\n');
    assert.deepEqual(
      segments.map((s) => [s.startLine, s.text]),
      [
        [3, 'First paragraph has words.'],
        [5, 'Second paragraph has words.'],
      ],
    );
  });

  it('mixed line endings (LF, CRLF, lone CR): lines counted as the editor counts them, in every granularity', async () => {
    const src = 'First paragraph has words.\r\n\r\nSecond paragraph has words.\r\rThird paragraph has words.\n\nFourth one. It has two sentences.';
    for (const g of ['paragraph', 'sentence'] as const) {
      const { segments } = await segmentMarkdown(src, g);
      const lines = src.split(/\r\n|\r|\n/);
      for (const s of segments) assert.ok(lines[s.startLine - 1].includes(s.text.split(/\r\n|\r|\n/)[0]), `${g}: ${s.text} not on line ${s.startLine}`);
      assert.deepEqual(
        segments.slice(0, 4).map((s) => s.startLine),
        [1, 3, 5, 7],
      );
    }
  });

  it('binary garbage and NUL bytes: segmented without error, nothing outside the document', async () => {
    let seed = 7;
    const bytes = Buffer.alloc(20_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
    const src = bytes.toString('utf8') + '\n\nA real paragraph after the garbage.\u0000';
    const { segments } = await segmentMarkdown(src);
    const lineCount = src.split(/\r\n|\r|\n/).length;
    for (const s of segments) assert.ok(s.endLine <= lineCount);
    assert.ok(segments.some((s) => s.text.startsWith('A real paragraph after the garbage.')));
  });
});

/** CPU milliseconds of `f` (hang guards below: CPU time, so a shared machine does not fail them). */
async function cpu(f: () => Promise<unknown>): Promise<number> {
  const c0 = process.cpuUsage();
  await f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

/**
 * Issue 28: drafts whose shape made segmentation super-linear or overflowed the stack, found
 * by fuzzing (test/fuzz), at sizes that keep this suite fast; the figures at 1 MB are in
 * scripts/bench-drafts.ts. The time checks are hang guards only (CPU time, generous).
 */
describe('hostile drafts: shapes that were super-linear (issue 28)', function () {
  this.timeout(60_000);

  it('setext headings with no blank line, 60 KB: linear (3,000 took 2.3 s before, 30,000 over a minute)', async () => {
    const ms = await cpu(() => segmentMarkdown('Title\n=====\n'.repeat(5_000)));
    assert.ok(ms < 15_000, `${ms} ms`);
  });

  it('*a × 30,000 in one paragraph: read without emphasis, with a warning naming the line', async () => {
    const src = 'A first paragraph of ordinary words.\n\n' + '*a'.repeat(30_000);
    let doc!: Awaited<ReturnType<typeof segmentMarkdown>>;
    const ms = await cpu(async () => (doc = await segmentMarkdown(src)));
    assert.ok(ms < 15_000, `${ms} ms`);
    assert.equal(doc.segments.length, 2);
    assert.equal(doc.segments[1].text, '*a'.repeat(30_000));
    assert.match(doc.warnings![0], /^line 3: a paragraph with 30,000 emphasis, bracket and code marks was read without emphasis/);
  });

  it('`a × 20,000 in one paragraph: read without code spans, with a warning; a technical paragraph of 500 code spans keeps them', async () => {
    const src = 'A first paragraph of ordinary words.\n\n' + '`a'.repeat(20_000);
    const doc = await segmentMarkdown(src, 'sentence');
    assert.equal(doc.segments.at(-1)!.query.length > 20_000, true, 'its backticks stay in the search text');
    assert.match(
      doc.warnings![0],
      /^line 3: a paragraph with 20,000 emphasis, bracket and code marks was read without emphasis, links, footnote calls and code spans/,
    );
    const technical = Array.from({ length: 500 }, (_, i) => `call \`f${i}()\` then`).join(' ');
    const kept = await segmentMarkdown(technical);
    assert.equal(kept.warnings, undefined);
    assert.ok(!kept.segments[0].query.includes('`'), 'its code spans are read as such');
    // An HTML block dense with `<` has no inline Markdown to lose: no warning.
    assert.equal((await segmentMarkdown('<div>a</div>\n'.repeat(20_000))).warnings, undefined);
  });

  it("'- ' × 10,000 on one line: refused at once with the line (it overflowed the stack after 35 s)", async () => {
    for (const src of ['Intro words here.\n\n' + '- '.repeat(10_000) + 'x', '> - '.repeat(3_000) + 'x', '1. '.repeat(5_000) + 'x']) {
      const t0 = Date.now();
      await assert.rejects(segmentMarkdown(src), (e) => errorCode(e) === 'unreadable' && /more than 100 levels deep \(line [13]\)/.test((e as Error).message));
      assert.ok(Date.now() - t0 < 10_000, 'a hang guard: it overflowed the stack after 35 s');
    }
    // A thematic break of spaced dashes, however long, and 100 markers before text, are still read.
    assert.equal((await segmentMarkdown('- - -\n\nSome words here.')).segments.length, 1);
    assert.equal((await segmentMarkdown('- '.repeat(10_000) + '\n\nSome words here.')).segments.length, 1);
    assert.equal((await segmentMarkdown('- '.repeat(MAX_NESTING) + 'deep words here')).segments.length, 1);
  });

  it('a 150 KB line of citations: linear (1 MB took 23 s)', async () => {
    const ms = await cpu(() => segmentMarkdown('[@a; @b, p. 3] '.repeat(10_000), 'sentence'));
    assert.ok(ms < 15_000, `${ms} ms`);
  });

  it('the text passes are linear too: long runs of periods, spaces, `[^`, `[@` and newlines', async () => {
    for (const src of [
      '.'.repeat(200_000),
      'Word.' + ' '.repeat(200_000) + 'a',
      '.[^x'.repeat(50_000),
      '[@a '.repeat(50_000),
      '\n'.repeat(200_000),
      '# a' + ' #'.repeat(100_000) + ' b',
      `---\ntitle: a${' '.repeat(100_000)}b\n---\n\nWords here.`,
    ]) {
      for (const g of ['paragraph', 'sentence', 'section'] as const) {
        const ms = await cpu(() => segmentMarkdown(src, g));
        assert.ok(ms < 10_000, `${JSON.stringify(src.slice(0, 12))} (${g}): ${ms} ms`);
      }
    }
  });
});

describe('drafts segment exactly as before the block-by-block parse (issue 28)', function () {
  this.timeout(60_000);
  const files = ['examples/draft.md', 'test/fixtures/drafts/thesis-chapter.md', 'test/fixtures/drafts/notes-crlf.md', 'test/fixtures/drafts/french.md'];
  const texts: Record<string, string> = Object.fromEntries(files.map((f) => [f, readFileSync(f, 'utf8')]));
  texts['all ×12'] = Array.from({ length: 12 }, () => files.map((f) => texts[f]).join('\n\n')).join('\n\n');
  /** Segment count and a hash of `{ title, segments }`, by the code before issue 28 (whole-draft parse). */
  const BEFORE: Record<string, Record<string, string>> = {
    'examples/draft.md': { section: '6 531c08885d6ecc78', paragraph: '24 a04b663c5a475395', sentence: '72 d7797c8acbb92d1a' },
    'test/fixtures/drafts/thesis-chapter.md': { section: '2 391a5d959df97029', paragraph: '13 adc4753273d23eec', sentence: '23 69b19c2dbe1a40a3' },
    'test/fixtures/drafts/notes-crlf.md': { section: '2 060a072a4c856b56', paragraph: '5 548375ca3ddb40e5', sentence: '8 851347dae76899e0' },
    'test/fixtures/drafts/french.md': { section: '2 7cbb07f7223b2343', paragraph: '5 850b0abc6204fabf', sentence: '7 0f4c5d90a09e5349' },
    'all ×12': { section: '144 cd6237b12d74ad64', paragraph: '564 05a4886f644f47f1', sentence: '1320 8dc3884cb9067fa7' },
  };
  for (const name of Object.keys(BEFORE)) {
    it(`${name}: the same segments as before, and the same cut at every block or at none`, async () => {
      for (const g of ['section', 'paragraph', 'sentence'] as const) {
        const d = await segmentMarkdown(texts[name], g);
        assert.equal(d.warnings, undefined);
        assert.equal(
          `${d.segments.length} ${createHash('sha256')
            .update(JSON.stringify({ title: d.title, segments: d.segments }))
            .digest('hex')
            .slice(0, 16)}`,
          BEFORE[name][g],
          `${name} (${g})`,
        );
        for (const blockBytes of [1, 100, Infinity])
          assert.deepEqual((await segmentMarkdown(texts[name], g, { blockBytes })).segments, d.segments, `${name} (${g}, blocks of ${blockBytes})`);
      }
    });
  }

  it('a reference, a footnote call and a setext heading whose definitions lie in other blocks read as in one parse', async () => {
    const filler = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} has a few ordinary words in it.`).join('\n\n');
    const src = `See the [police reports][police] and the [price series], and a note.[^n]\n\n${filler}\n\nHeading Text\n============\n\n[police]: https://example.org/police\n[price series]: <https://example.org/p>\n\n[^n]: The note.\n`;
    const whole = await segmentMarkdown(src, 'paragraph', { blockBytes: Infinity });
    const cut = await segmentMarkdown(src, 'paragraph', { blockBytes: 1 });
    assert.equal(cut.segments[0].query, 'See the police reports and the price series, and a note.');
    assert.deepEqual(cut.segments, whole.segments);
    assert.deepEqual((await segmentMarkdown(src)).segments, whole.segments);
  });
});

describe('a paragraph dense with marks is read without emphasis on its own (issue 28)', () => {
  it('its neighbours keep emphasis and links, a table of bold cells counts as no paragraph, the warning names the line', async () => {
    const table = '| a | b |\n|---|---|\n' + Array.from({ length: 100 }, (_, i) => `| **x${i}** _y_ | *z* [w] |`).join('\n');
    const src = `Before the *table* and a [link](http://x) here.\n\n${table}\n\nAfter the *table* words here.\n${'*a'.repeat(2_000)}\n\nFinal *para* words here.\n`;
    const d = await segmentMarkdown(src);
    assert.deepEqual(
      d.segments.map((s) => s.query.slice(0, 30)),
      ['Before the table and a link he', 'After the *table* words here. ', 'Final para words here.'],
    );
    assert.deepEqual(d.warnings, [
      'line 106: a paragraph with 2,002 emphasis, bracket and code marks was read without emphasis, links, footnote calls and code spans (its marks stay in the search text)',
    ]);
  });
});

describe('a dense stretch opening with an indented line', () => {
  // Fuzz seed 1678632028: no block could start at ` <div>`, so the dense block ran from wherever the
  // last block had started (the draft's start when read whole): `*b*` lost its emphasis read whole, not block by block.
  it('is read on its own from the last blank line where a block may start, block by block as whole', async () => {
    for (const src of ['A *b* c.\n\nD.\n\n <div>' + '~'.repeat(300) + '\n</div>\n\nE *f*.\n', 'A *b* c.\n\nD.\n\n x' + '*a'.repeat(300) + '\n']) {
      for (const g of ['paragraph', 'section'] as const) {
        const d = await segmentMarkdown(src, g);
        assert.match(d.segments[0].query, /^A b c\./, `${JSON.stringify(src.slice(0, 20))} (${g})`);
        for (const blockBytes of [1, Infinity])
          assert.deepEqual(
            (await segmentMarkdown(src, g, { blockBytes })).segments,
            d.segments,
            `${JSON.stringify(src.slice(0, 20))} (${g}, blocks of ${blockBytes})`,
          );
        // "D." shares the dense block and is read without emphasis: said, though the stretch is HTML.
        assert.match(d.warnings?.[0] ?? '', /^line 5: a paragraph with 30\d emphasis/);
      }
    }
  });
});

describe('containers that cannot be cut (issue 28)', function () {
  this.timeout(60_000);
  it('setext headings inside one block quote: read as text with a warning, linear (quadratic before: 72 KB in 5.6 s)', async () => {
    let doc!: Awaited<ReturnType<typeof segmentMarkdown>>;
    const ms = await cpu(async () => (doc = await segmentMarkdown('> T\n> ==\n'.repeat(8_000))));
    assert.ok(ms < 15_000, `${ms} ms`);
    assert.equal(doc.warnings![0], 'line 2: 8,000 setext headings inside a block quote or list were read as text');
  });
  it('a quoted paragraph of 8,000 lines of citations: cut into quotes of 16 KB, linear', async () => {
    let doc!: Awaited<ReturnType<typeof segmentMarkdown>>;
    const ms = await cpu(async () => (doc = await segmentMarkdown('> Words [@a; @b, p. 3]\n'.repeat(8_000))));
    assert.ok(ms < 15_000, `${ms} ms`);
    assert.ok(doc.segments.length > 5 && doc.segments.every((s) => s.type === 'blockquote'));
    assert.ok(doc.warnings!.some((w) => /a paragraph longer than 16 KB was cut/.test(w)));
  });
});
