/**
 * Fuzzing what reads Pandoc citations and sentences in a draft's text (issue 28, item 4):
 * shared/citation.ts (spans, the adjacent citation, merging, formatting), shared/citedIn.ts
 * (sections and citations of a draft), the citation stripping of core/markdown/plainText.ts and
 * the sentence splitter. Grammar-shaped lines (fast-check) and mutations of real drafts, each for
 * FUZZ_BUDGET_MS: no throw, time bounded by the size, results inside their line; and, for inputs
 * small enough, the same answers as the former implementations (kept here as oracles), whose
 * regular expressions were quadratic on long lines.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { adjacentCitation, citationSnippet, citationSpans, formatPassageCitation, mergeInsertion } from '../../src/shared/citation';
import { draftCitations, draftSections } from '../../src/shared/citedIn';
import { citedKeys, stripCitationMarkup } from '../../src/core/markdown/plainText';
import { splitSentences } from '../../src/core/text/sentences';
import { cpuMs, FUZZ_BUDGET_MS, fuzzParams, seededRandom } from './budget';

// ------------------------------------------------------------------ oracles: the former code
function oldAdjacent(line: string, col: number) {
  for (const s of citationSpans(line)) {
    if (col > s.start && col < s.end) return s;
    if (col >= s.end && /^\s*$/.test(line.slice(s.end, col))) return s;
    if (col <= s.start && /^\s*$/.test(line.slice(col, s.start))) return s;
  }
  return undefined;
}
function oldMerge(line: string, col: number, citation: string) {
  const m = /^\[(.*@.*)\](\$0)?$/s.exec(citation);
  if (!m) return undefined;
  const span = oldAdjacent(line, col);
  if (!span) return undefined;
  return { at: span.end - 1, text: `; ${m[1]}${m[2] ?? ''}` };
}
function oldStrip(text: string): string {
  const KEY = String.raw`-?@[\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?`;
  return text
    .replace(new RegExp(String.raw`\s*\[[^\[\]]*?${KEY}[^\[\]]*\]`, 'gu'), '')
    .replace(/\s*\[\^[^\]]+\]/g, '')
    .replace(new RegExp(String.raw`(^|[\s(;])${KEY}(?=$|[\s.,;:!?)])`, 'gu'), '$1')
    .replace(/\(\s*\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
/** The former heading expression, on one line. */
function oldHeading(line: string): string | undefined {
  return /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/.exec(line)?.[2].trim();
}
const OLD_BOUNDARY = /([.!?…]+)((?:[»”"’')\]]|\[\^[^\]\s]+\])*)(\s+)(?=[«“"‘'(\[]?\s*[\p{Lu}\p{N}¿¡«“])/gu;

/** Inputs up to this size are also run through the oracles (quadratic: small only). */
const ORACLE_MAX = 3_000;
const allowedMs = (bytes: number) => 2_000 + 20 * (bytes / 1024);

interface Tally {
  tried: number;
  bytes: number;
  compared: number;
  worst: { msPerKb: number; ms: number; bytes: number; what: string };
}

function checkLine(line: string, col: number, tally: Tally, what: string) {
  const c0 = process.cpuUsage();
  const spans = citationSpans(line);
  for (const s of spans) {
    assert.ok(s.start >= 0 && s.end <= line.length && line[s.start] === '[' && line[s.end - 1] === ']', `${what}: span ${s.start}-${s.end}`);
  }
  const adj = adjacentCitation(line, col);
  if (adj) assert.ok(spans.some((s) => s.start === adj.start && s.end === adj.end));
  const cit = `[@key${line.length % 7}, p. ${col}]`;
  const merged = mergeInsertion(line, col, cit);
  if (merged) assert.ok(merged.at >= 0 && merged.at < line.length && line[merged.at] === ']');
  const stripped = stripCitationMarkup(line);
  citedKeys(line);
  const sections = draftSections(line);
  const citing = draftCitations(line);
  const lineCount = line.split(/\r?\n/).length;
  for (const c of citing) assert.ok(c.line >= 0 && c.line < lineCount);
  for (const s of sections) assert.ok(s.line >= 0 && s.line < lineCount);
  const sentences = splitSentences(line);
  for (const s of sentences) assert.equal(line.slice(s.start, s.end), s.text);
  const ms = cpuMs(c0);
  tally.tried++;
  tally.bytes += line.length;
  const kb = Math.max(1, line.length / 1024);
  if (line.length >= 1024 && ms / kb > tally.worst.msPerKb) tally.worst = { msPerKb: ms / kb, ms, bytes: line.length, what };
  assert.ok(ms <= allowedMs(line.length), `${what}: ${Math.round(ms)} ms of CPU for ${line.length} characters`);
  if (line.length <= ORACLE_MAX) {
    tally.compared++;
    assert.deepEqual(adj, oldAdjacent(line, col), `${what}: adjacentCitation`);
    assert.deepEqual(merged, oldMerge(line, col, cit), `${what}: mergeInsertion`);
    const raw = line + ' ' + line.replace(/\s+/g, ' ');
    assert.equal(mergeInsertion(line, col, raw)?.text, oldMerge(line, col, raw)?.text, `${what}: mergeInsertion of the line as a citation`);
    assert.equal(stripped, oldStrip(line), `${what}: stripCitationMarkup`);
    const lines = line.split(/\r?\n/);
    for (const s of sections) assert.equal(s.heading, oldHeading(lines[s.line]), `${what}: heading of line ${s.line}`);
    const old: number[] = [];
    for (const m of line.matchAll(OLD_BOUNDARY)) old.push(m.index! + m[1].length + m[2].length);
    const now: number[] = [];
    for (const m of line.matchAll(new RegExp(OLD_BOUNDARY.source.replace('([.!?…]+)', '(?<![.!?…])([.!?…]+)').replace('(\\s+)(?=', '(\\s+)(?!\\s)(?='), 'gu')))
      now.push(m.index! + m[1].length + m[2].length);
    // The footnote closer no longer takes a label holding `[`: the only boundaries allowed to differ.
    if (!/\[\^[^\]\s]*\[/.test(line)) assert.deepEqual(now, old, `${what}: sentence boundaries`);
  }
}

function report(name: string, t: Tally) {
  console.log(
    `      ${name}: ${t.tried.toLocaleString('en')} inputs (${(t.bytes / 1e6).toFixed(1)} MB), ${t.compared.toLocaleString('en')} compared with the former code; worst ${t.worst.msPerKb.toFixed(3)} ms/KB (${Math.round(t.worst.ms)} ms for ${(t.worst.bytes / 1024).toFixed(0)} KB: ${t.worst.what})`,
  );
}

// ------------------------------------------------------------------ grammar
const key = fc.stringMatching(/^[a-zA-Z0-9_][a-zA-Z0-9_:.#$%&+?<>~/-]{0,12}$/);
const locator = fc.oneof(
  fc.constant(''),
  fc.nat(999).map((n) => `, p. ${n}`),
  fc.constantFrom(', pp. 4–7', ', chap. 3', ', n. 2'),
);
const citation = fc
  .array(fc.tuple(fc.constantFrom('', '-', 'see '), key, locator), { minLength: 1, maxLength: 4 })
  .map((cs) => `[${cs.map(([p, k, l]) => `${p}@${k}${l}`).join('; ')}]`);
const piece = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-zé ]{1,30}$/) },
  citation,
  key.map((k) => `@${k}`),
  fc.constantFrom(
    '[^1]',
    '[^note]',
    '[link](http://x)',
    '[ref][x]',
    '. ',
    '? ',
    '! ',
    '… ',
    '» ',
    '« ',
    '(p. 3)',
    ' # ',
    '## ',
    '# ',
    '\n',
    '\r\n',
    '```',
    '---',
    '\t',
    '  ',
    'M. ',
    'J.-P. ',
    'e.g. ',
    'etc. ',
  ),
  fc.constantFrom('[', ']', '@', '^', '(', ')', ';', '#', '.', '-', '$', '`', '*'),
  fc
    .tuple(fc.constantFrom('[@a; @b, p. 3] ', '[', '[^', '@a.', '. ', ' ', '#', '[^a.', '.[^x', '@', ']', '[@a', 'a@b'), fc.integer({ min: 1, max: 20_000 }))
    .map(([p, n]) => p.repeat(n)),
);
const grammarLine = fc.array(piece, { minLength: 1, maxLength: 25 }).map((p) => p.join(''));

const REAL = ['examples/draft.md', 'test/fixtures/drafts/thesis-chapter.md', 'test/fixtures/drafts/french.md'].map((f) => readFileSync(f, 'utf8'));

describe('fuzz: citations and sentences in a draft', function () {
  this.timeout(FUZZ_BUDGET_MS * 3 + 60_000);

  it('grammar-shaped lines: no throw, bounded time, spans inside the line; same answers as before', async () => {
    const tally: Tally = { tried: 0, bytes: 0, compared: 0, worst: { msPerKb: 0, ms: 0, bytes: 0, what: '' } };
    await fc.assert(
      fc.asyncProperty(grammarLine, fc.nat(), async (line, c) => {
        checkLine(line, line.length ? c % (line.length + 1) : 0, tally, `grammar line of ${line.length} characters`);
      }),
      fuzzParams(),
    );
    report('grammar', tally);
  });

  it('mutations of real drafts: no throw, bounded time; same answers as before', () => {
    const tally: Tally = { tried: 0, bytes: 0, compared: 0, worst: { msPerKb: 0, ms: 0, bytes: 0, what: '' } };
    const rand = seededRandom(0xc17e);
    const end = Date.now() + FUZZ_BUDGET_MS;
    while (Date.now() < end) {
      const src = REAL[Math.floor(rand() * REAL.length)];
      const a = Math.floor(rand() * src.length);
      let s = src.slice(a, a + Math.floor(rand() ** 2 * 2_000));
      const ops: string[] = [];
      for (let r = 0; r < 1 + Math.floor(rand() * 3); r++) {
        const at = Math.floor(rand() * (s.length + 1));
        const b = Math.floor(rand() * s.length);
        const piece = s.slice(b, b + 1 + Math.floor(rand() * 40));
        const times = 1 + Math.floor(rand() ** 3 * 20_000);
        s = s.slice(0, at) + piece.repeat(Math.min(times, Math.floor(600_000 / Math.max(1, piece.length)))) + s.slice(at);
        ops.push(`${JSON.stringify(piece.slice(0, 20))}×${times}`);
      }
      checkLine(s, Math.floor(rand() * (s.length + 1)), tally, ops.join(', '));
    }
    report('mutation', tally);
  });

  it('formatting: any source and page make a citation in one piece, fast', async () => {
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          citekey: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
          title: fc.string({ maxLength: 2_000 }),
          authors: fc.array(fc.string({ maxLength: 200 }), { maxLength: 30 }),
          year: fc.option(fc.integer(), { nil: undefined }),
          path: fc.string({ maxLength: 300 }),
        }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
        fc.string({ maxLength: 200 }),
        async (source, page, pageLabel, endPage, template) => {
          tried++;
          const t = template.includes('{') ? template : undefined;
          const c = formatPassageCitation(source, { page, pageLabel, endPage }, t);
          assert.equal(typeof c, 'string');
          assert.ok(citationSnippet(source, { page, pageLabel, endPage }, t).endsWith('$0'));
        },
      ),
      fuzzParams({ interruptAfterTimeLimit: Math.min(FUZZ_BUDGET_MS, 10_000) }),
    );
    console.log(`      formatting: ${tried.toLocaleString('en')} sources`);
  });
});
