/**
 * Fuzzing the draft segmenter (issue 28, item 4): grammar-shaped drafts (fast-check) and
 * mutations of real drafts (splicing, repeating, cutting pieces of examples/draft.md and the
 * test drafts), each for FUZZ_BUDGET_MS. Every input must segment without a throw (a draft
 * nested past MAX_NESTING is refused with `unreadable`, by design), in time bounded by its
 * size, into segments that lie inside the document with their exact text; and parsing block
 * by block must give what parsing the whole draft at once gives. Prints the inputs tried and
 * the worst time per KB; a failure prints its input's seed (FUZZ_SEED) and shape.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { segmentMarkdown, type Granularity } from '../../src/core/markdown/segment';
import { errorCode } from '../../src/shared/errors';
import { cpuMs, FUZZ_BUDGET_MS, fuzzParams, seededRandom } from './budget';

/** CPU milliseconds allowed per input: a hang guard, not a benchmark (the machine may be shared). */
const allowedMs = (bytes: number) => 3_000 + 30 * (bytes / 1024);

interface Tally {
  tried: number;
  refused: number;
  bytes: number;
  worst: { msPerKb: number; ms: number; bytes: number; shape: string };
}
const newTally = (): Tally => ({ tried: 0, refused: 0, bytes: 0, worst: { msPerKb: 0, ms: 0, bytes: 0, shape: '' } });

/** Segments `source`, checks every property, and counts it in `tally`. */
async function check(source: string, granularity: Granularity, tally: Tally, shape: string, compareBlocks: boolean): Promise<void> {
  const c0 = process.cpuUsage();
  let doc;
  try {
    doc = await segmentMarkdown(source, granularity);
  } catch (err) {
    assert.equal(errorCode(err), 'unreadable', `${shape}: threw ${(err as Error).stack}`);
    assert.match((err as Error).message, /\(line \d+\)/);
    tally.refused++;
    tally.tried++;
    return;
  }
  const ms = cpuMs(c0);
  const kb = Math.max(1, source.length / 1024);
  tally.tried++;
  tally.bytes += source.length;
  if (ms / kb > tally.worst.msPerKb && source.length >= 1024) tally.worst = { msPerKb: ms / kb, ms, bytes: source.length, shape };
  assert.ok(ms <= allowedMs(source.length), `${shape}: ${Math.round(ms)} ms of CPU for ${source.length} characters`);
  // Segments inside the document, with their exact text on their lines.
  const starts = [0];
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || (c === 13 && source.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  const body = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (const s of doc.segments) {
    assert.ok(s.startLine >= 1 && s.startLine <= s.endLine && s.endLine <= starts.length, `${shape}: lines ${s.startLine}–${s.endLine} of ${starts.length}`);
    const from = Math.max(body, starts[s.startLine - 1]);
    const to = s.endLine < starts.length ? starts[s.endLine] : source.length;
    const at = source.indexOf(s.text, from);
    assert.ok(at >= 0 && at + s.text.length <= to, `${shape}: segment text not on lines ${s.startLine}–${s.endLine}: ${JSON.stringify(s.text.slice(0, 80))}`);
    assert.ok(s.text.length > 0);
  }
  for (const w of doc.warnings ?? []) assert.match(w, /^(line [\d,]+: |and [\d,]+ more such places$)/);
  // Three known, accepted differences: a block with too many emphasis marks is read without
  // emphasis as a whole, so the whole draft at once loses more; a draft opening with an
  // unclosed `---`/`+++` makes micromark's front-matter extension read every list of the
  // draft as a paragraph ("---\n\n* a" is one thematic break and the paragraph "* a"), which
  // blocks after the first are spared; and micromark itself reads a quote of a bare list
  // marker after indented code as a paragraph ("    a\n\n> *": the paragraph "*"; alone, "> *"
  // is an empty list item, as CommonMark says), which the block read on its own gets right.
  const quotedBareMarker = /^ {0,3}(?:>[ \t]*)+(?:[*+-]|\d{1,9}[.)])[ \t]*$/m.test(source);
  if (compareBlocks && !doc.warnings && !quotedBareMarker && !/^\uFEFF?(---|\+\+\+)/.test(source)) {
    // Block by block (every possible cut) = the whole draft at once.
    const whole = await segmentMarkdown(source, granularity, { blockBytes: Infinity });
    const cut = await segmentMarkdown(source, granularity, { blockBytes: 1 });
    try {
      assert.deepEqual(cut.segments, whole.segments, `${shape}: parsing block by block changed the segments`);
    } catch (err) {
      if (process.env.FUZZ_DUMP) writeFileSync(process.env.FUZZ_DUMP, source);
      throw err;
    }
  }
}

function report(name: string, t: Tally) {
  console.log(
    `      ${name}: ${t.tried.toLocaleString('en')} inputs (${(t.bytes / 1e6).toFixed(1)} MB), ${t.refused} refused as nested too deep; worst ${t.worst.msPerKb.toFixed(2)} ms/KB (${Math.round(t.worst.ms)} ms for ${(t.worst.bytes / 1024).toFixed(0)} KB: ${t.worst.shape})`,
  );
}

// ------------------------------------------------------------------ grammar-shaped drafts
const word = fc.stringMatching(/^[a-zA-Zéà]{1,8}$/);
const words = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
const cite = fc.tuple(fc.array(word, { minLength: 1, maxLength: 3 }), fc.nat(400)).map(([keys, p]) => `[${keys.map((k) => `@${k}`).join('; ')}, p. ${p}]`);
const inline = fc.oneof(
  words,
  words.map((w) => `*${w}*`),
  words.map((w) => `**${w}**`),
  words.map((w) => `_${w}_`),
  words.map((w) => `~~${w}~~`),
  words.map((w) => `[${w}](https://example.org/${w.replace(/ /g, '_')})`),
  words.map((w) => `[${w}][ref]`),
  words.map((w) => `![${w}](img.png)`),
  words.map((w) => `\`${w}\``),
  words.map((w) => `$${w}$`),
  fc.constant('[^1]'),
  fc.constant('<span>x</span>'),
  cite,
  fc.constantFrom('*', '_', '[', ']', '`', '<', '~', '$', '\\', '@', '!', '(', ')', '&amp;', '|'),
);
const line = fc.array(inline, { minLength: 1, maxLength: 10 }).map((p) => p.join(' '));
const block: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: line },
  fc.tuple(line, fc.constantFrom('=', '-'), fc.integer({ min: 1, max: 8 })).map(([t, c, n]) => `${t}\n${c.repeat(n)}`),
  fc.tuple(fc.integer({ min: 1, max: 7 }), line).map(([n, t]) => `${'#'.repeat(n)} ${t}`),
  fc
    .array(fc.tuple(fc.nat(4), fc.constantFrom('-', '*', '+', '1.', '2)'), line), { minLength: 1, maxLength: 6 })
    .map((items) => items.map(([d, m, t]) => `${'  '.repeat(d)}${m} ${t}`).join('\n')),
  fc.tuple(fc.integer({ min: 1, max: 12 }), line).map(([n, t]) => `${'- '.repeat(n)}${t}`),
  fc.tuple(fc.integer({ min: 1, max: 5 }), line).map(([n, t]) => `${'> '.repeat(n)}${t}`),
  line.map((t) => `[^1]: ${t}\n\n    ${t}`),
  fc.constant('[ref]: https://example.org "Title"'),
  fc.array(word, { minLength: 1, maxLength: 4 }).map((c) => `| ${c.join(' | ')} |\n|${c.map(() => '---').join('|')}|\n| ${c.join(' | ')} |`),
  fc.tuple(fc.constantFrom('```', '~~~', '````', '$$'), line, fc.boolean()).map(([f, t, closed]) => `${f}\n${t}\n\n${t}${closed ? `\n${f}` : ''}`),
  line.map((t) => `    ${t}\n\n    ${t}`),
  fc
    .tuple(fc.constantFrom('<!--', '<div>', '<script>', '<?x', '<![CDATA['), line, fc.constantFrom('-->', '</div>', '</script>', '?>', ']]>', ''))
    .map(([o, t, c]) => `${o}\n${t}\n\n${t} ${c}`),
  fc.constantFrom('---', '***', '___', '+++', '- - -'),
  // Huge lines and runs: a piece repeated.
  fc
    .tuple(
      fc.constantFrom('*a', '_a ', '[x] ', '[@a; @b, p. 3] ', 'Title\n=====\n', '- ', '> ', '`', '<a', '~~a', '![', '[^', '. ', '  ', '\\', '&#', '|', '$'),
      fc.integer({ min: 1, max: 3_000 }),
    )
    .map(([p, n]) => p.repeat(n)),
);
const frontMatter = fc.oneof(
  fc.constant(''),
  words.map((w) => `---\ntitle: ${w}\n---\n\n`),
  words.map((w) => `+++\ntitle = "${w}"\n+++\n\n`),
);
const grammarDraft = fc
  .tuple(
    frontMatter,
    fc.array(block, { minLength: 1, maxLength: 30 }),
    fc.array(fc.constantFrom('\n\n', '\n', '\r\n\r\n', '\r\r', '\n\n\n'), { minLength: 1, maxLength: 30 }),
    fc.constantFrom('\n', '\r\n', '\r', 'keep'),
    fc.boolean(),
  )
  .map(([fm, blocks, seps, eol, bom]) => {
    let s = fm + blocks.map((b, i) => b + seps[i % seps.length]).join('');
    if (eol !== 'keep') s = s.replace(/\r\n|\r|\n/g, eol);
    return (bom ? '\uFEFF' : '') + s;
  });

// ------------------------------------------------------------------ mutations of real drafts
const REAL = ['examples/draft.md', 'test/fixtures/drafts/thesis-chapter.md', 'test/fixtures/drafts/notes-crlf.md', 'test/fixtures/drafts/french.md'].map((f) =>
  readFileSync(f, 'utf8'),
);

function mutate(rand: () => number): { source: string; shape: string } {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  let s = pick(REAL);
  const ops: string[] = [];
  const rounds = 1 + Math.floor(rand() * 4);
  for (let r = 0; r < rounds; r++) {
    const a = Math.floor(rand() * s.length);
    const len = Math.floor(rand() ** 3 * 400);
    const piece = s.slice(a, a + len);
    const at = Math.floor(rand() * (s.length + 1));
    const op = Math.floor(rand() * 6);
    if (op === 0) {
      s = s.slice(0, at) + piece + s.slice(at);
      ops.push(`splice ${len}`);
    } else if (op === 1) {
      const times = Math.floor(rand() ** 2 * 2_000) + 1;
      s = s.slice(0, at) + piece.repeat(Math.min(times, Math.floor(400_000 / Math.max(1, piece.length)))) + s.slice(at);
      ops.push(`repeat ${len}×${times}`);
    } else if (op === 2) {
      s = s.slice(0, a) + s.slice(a + len);
      ops.push(`cut ${len}`);
    } else if (op === 3) {
      s = s.slice(0, at) + pick(REAL).slice(0, Math.floor(rand() * 2_000)) + s.slice(at);
      ops.push('graft');
    } else if (op === 4) {
      s = s.replace(/\r?\n/g, () => pick(['\n', '\r\n', '\r', '\n\n', ' ']));
      ops.push('line endings');
    } else {
      const mark = pick(['*', '_', '[', ']', '`', '<', '>', '-', '=', '#', '|', '$', '~', '\\', '\u0000', '\uFEFF', '    ', '\t']);
      s = s.slice(0, at) + mark.repeat(1 + Math.floor(rand() ** 4 * 5_000)) + s.slice(at);
      ops.push(`insert ${JSON.stringify(mark)}`);
    }
  }
  return { source: s, shape: ops.join(', ') };
}

describe('fuzz: draft segmentation', function () {
  this.timeout(FUZZ_BUDGET_MS * 3 + 120_000);
  // Loads the parser and warms it: the first parse's module loading is no input's cost.
  before(async () => {
    for (const r of REAL) await segmentMarkdown(r, 'sentence');
  });

  it('grammar-shaped drafts: no throw, bounded time, segments exact; block by block = whole', async () => {
    const tally = newTally();
    await fc.assert(
      fc.asyncProperty(grammarDraft, fc.constantFrom<Granularity>('paragraph', 'sentence', 'section'), async (source, g) => {
        await check(source, g, tally, `grammar draft of ${source.length} characters (${g})`, source.length < 16_000);
      }),
      fuzzParams(),
    );
    report('grammar', tally);
    assert.ok(tally.tried > 0);
  });

  it('mutations of real drafts: no throw, bounded time, segments exact; block by block = whole', async () => {
    const tally = newTally();
    const rand = seededRandom(0x5e6);
    const end = Date.now() + FUZZ_BUDGET_MS;
    while (Date.now() < end) {
      const { source, shape } = mutate(rand);
      const g = (['paragraph', 'sentence', 'section'] as const)[tally.tried % 3];
      await check(source, g, tally, `${shape} (${g})`, source.length < 16_000);
    }
    report('mutation', tally);
    assert.ok(tally.tried > 0);
  });
});
