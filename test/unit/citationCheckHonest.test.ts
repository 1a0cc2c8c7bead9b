/**
 * `check` answers honestly (issue 35, item 7): a page range reads the same whatever its dash, in
 * Markdown as in LaTeX, and a page past the source's end is an impossible page; a quotation too long
 * for one alignment is compared in pieces, and one whose middle was not compared is never `ok`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkCitationList, checkDraft, MAX_QUOTE_WORDS, statusSeverity, type CheckedCitation, type CheckSources } from '../../src/core/citecheck/check';
import { findCitations, parseLocator } from '../../src/core/citecheck/draftCitations';
import type { PageText } from '../../src/core/citecheck/match';
import { findLatexCitations } from '../../src/core/latex/citations';
import { checkCitationsTool, createEngine, readWorkspaceSettings } from '../../src/engine';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { buildPdf } from '../support/pdfWriter';

/** Six pages of 300 pseudo-words (seeded: the same every run), printed as pages 101–106. */
function generatedPages(): string[][] {
  let seed = 20240535;
  // mulberry32
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const C = 'bdfgklmnprstvz';
  const V = 'aeiou';
  const vocab = Array.from({ length: 1500 }, () =>
    Array.from({ length: 2 + Math.floor(rnd() * 2) }, () => C[Math.floor(rnd() * C.length)] + V[Math.floor(rnd() * V.length)]).join(''),
  );
  // Frequent words repeat, as in prose.
  return Array.from({ length: 6 }, () => Array.from({ length: 300 }, () => vocab[Math.floor(vocab.length * rnd() ** 2)]));
}

const WORDS = generatedPages();
const ALL = WORDS.flat();
const PAGES: PageText[] = WORDS.map((w, i) => ({ page: i + 1, label: String(101 + i), ocr: false, text: w.join(' ') }));
const SOURCES: CheckSources = { keys: new Set(['gen2020']), pdfs: () => [{ path: '/lib/gen.pdf', pages: async () => PAGES }] };

const quoted = (w: string[]) => `“${w.join(' ')}”`;
/** The words with the one at `i` replaced by a word the source never prints. */
const changed = (w: string[], i: number) => w.map((x, k) => (k === i ? 'zzyzx' : x));
/** 450 words from page 101 into 102, and 1,000 from 101 to 104. */
const Q450 = ALL.slice(10, 460);
const Q1000 = ALL.slice(10, 1010);
const DASHES = ['--', '–', '—', '-', '---', ' -- '];

async function check1(draft: string): Promise<CheckedCitation> {
  const r = await checkDraft(draft, SOURCES);
  assert.equal(r.length, 1, JSON.stringify(r.map((c) => c.key)));
  return r[0];
}

describe('citation check answers honestly: page ranges in every dash', () => {
  it('reads a range written with --, –, —, -, --- or spaced dashes as the same two pages, keeping the text as written', () => {
    for (const d of DASHES) {
      const loc = parseLocator(`, pp. 9000${d}9999`);
      assert.deepEqual(loc, { text: `pp. 9000${d}9999`, from: '9000', to: '9999' }, JSON.stringify(d));
    }
    assert.deepEqual(parseLocator(', pp. 212--14'), { text: 'pp. 212--14', from: '212', to: '214' });
    assert.deepEqual(parseLocator(', pp. 12----14'), { text: 'pp. 12----14', from: '12', to: '14' });
    assert.deepEqual(parseLocator(', pp. S3--S5'), { text: 'pp. S3--S5', from: 'S3', to: 'S5' });
    assert.deepEqual(parseLocator(', pp. T-1 -- T-5'), { text: 'pp. T-1 -- T-5', from: 'T-1', to: 'T-5' });
    // A label's own hyphen is no range.
    assert.deepEqual(parseLocator(', p. T-1'), { text: 'p. T-1', from: 'T-1', to: 'T-1' });
  });

  it('a Markdown citation, bracketed or in text, has the pages of the same LaTeX citation', () => {
    for (const d of DASHES) {
      const tex = findLatexCitations(`See \\cite[pp.~9000${d}9999]{gen2020}.`)[0].locator;
      const md = findCitations(`See [@gen2020, pp. 9000${d}9999].`)[0].locator;
      const inText = findCitations(`See @gen2020 [pp. 9000${d}9999].`)[0].locator;
      assert.deepEqual([md?.from, md?.to], ['9000', '9999'], JSON.stringify(d));
      assert.deepEqual([inText?.from, inText?.to], [tex?.from, tex?.to], JSON.stringify(d));
      assert.deepEqual([md?.from, md?.to], [tex?.from, tex?.to], JSON.stringify(d));
    }
  });

  it('pages 9000–9999 of a six-page source are no-such-page in Markdown and LaTeX alike, with the same note', async () => {
    const expected = { status: 'no-such-page', note: "the source's pages are 101–106 (6 in the PDF)" };
    for (const d of DASHES) {
      const md = await check1(`See [@gen2020, pp. 9000${d}9999].`);
      assert.deepEqual({ status: md.status, note: md.note }, expected, JSON.stringify(d));
      const [tex] = await checkCitationList(findLatexCitations(`See \\cite[pp.~9000${d}9999]{gen2020}.`), SOURCES);
      assert.deepEqual({ status: tex.status, note: tex.note }, expected, JSON.stringify(d));
    }
    // The end of the range counts too: a range that runs past the last page is impossible.
    assert.equal((await check1('See [@gen2020, pp. 105--9999].')).status, 'no-such-page');
    assert.equal((await check1('See [@gen2020, pp. 102--104].')).status, 'ok');
  });
});

describe('citation check answers honestly: quotations over 400 words', () => {
  it(`compares a quotation of up to ${2 * MAX_QUOTE_WORDS} words whole, in two halves: a correct one of 450 words is ok where it was found`, async () => {
    const r = await check1(`${quoted(Q450)} [@gen2020, pp. 101–102].`);
    assert.equal(r.status, 'ok');
    assert.equal(r.foundPage, '101–102');
    assert.equal(r.note, null);
    assert.equal(r.sourceText?.split(' ').length, 450);
    // On pages it does not name, it is on another page.
    const elsewhere = await check1(`${quoted(Q450)} [@gen2020, p. 105].`);
    assert.deepEqual([elsewhere.status, elsewhere.foundPage], ['wrong-page', '101–102']);
  });

  it('flags one word changed anywhere in a 450-word quotation: its middle, the split between the halves, a word dropped or repeated there', async () => {
    for (const i of [1, 200, 224, 225, 226, 448]) {
      const r = await check1(`${quoted(changed(Q450, i))} [@gen2020, pp. 101–102].`);
      assert.equal(r.status, 'quote-differs', `word ${i}`);
      assert.deepEqual(r.differences, [{ quote: 'zzyzx', source: Q450[i] }], `word ${i}`);
    }
    const dropped = Q450.filter((_, k) => k !== 225);
    assert.deepEqual((await check1(`${quoted(dropped)} [@gen2020, pp. 101–102].`)).differences, [{ quote: '', source: Q450[225] }]);
    const repeated = [...Q450.slice(0, 226), Q450[225], ...Q450.slice(226)];
    const r = await check1(`${quoted(repeated)} [@gen2020, pp. 101–102].`);
    assert.equal(r.status, 'quote-differs');
    assert.equal(r.differences.length, 1);
  });

  it('a correct 1,000-word quotation is quote-partly-checked (information, not ok): only its ends were compared, and the note says how much', async () => {
    const r = await check1(`${quoted(Q1000)} [@gen2020, pp. 101–104].`);
    assert.equal(r.status, 'quote-partly-checked');
    assert.equal(statusSeverity(r.status), 'info');
    assert.equal(r.foundPage, '101–104');
    assert.equal(r.note, 'a quotation of 1000 words: only its first and last 400 words were compared, not the 200 between them');
  });

  it('a word changed in the middle of a 1,000-word quotation is not seen: the result is quote-partly-checked, never ok', async () => {
    const r = await check1(`${quoted(changed(Q1000, 500))} [@gen2020, pp. 101–104].`);
    assert.equal(r.status, 'quote-partly-checked');
    assert.match(r.note ?? '', /not the 200 between them/);
  });

  it('a wrong word in the first or the last 400 words of an over-long quotation is flagged, with the note', async () => {
    for (const i of [0, 100, 399, 600, 998, 999]) {
      const r = await check1(`${quoted(changed(Q1000, i))} [@gen2020, pp. 101–104].`);
      assert.equal(r.status, 'quote-differs', `word ${i}`);
      // The last word of any quotation, changed, reads as a word added at its end.
      assert.deepEqual(r.differences, [{ quote: 'zzyzx', source: i === 999 ? '' : Q1000[i] }], `word ${i}`);
      assert.match(r.note ?? '', /only its first and last 400 words were compared/);
    }
  });

  it('two passages pasted together are not found; a long quotation on other pages is wrong-page', async () => {
    const stitched = [...ALL.slice(10, 510), ...ALL.slice(1250, 1750)];
    assert.equal((await check1(`${quoted(stitched)} [@gen2020, pp. 101–106].`)).status, 'quote-not-found');
    const invented = Array.from({ length: 900 }, (_, i) => `mot${i}`);
    assert.equal((await check1(`${quoted(invented)} [@gen2020, p. 101].`)).status, 'quote-not-found');
    const wrong = await check1(`${quoted(Q1000)} [@gen2020, p. 106].`);
    assert.deepEqual([wrong.status, wrong.foundPage], ['wrong-page', '101–104']);
  });

  it('costs about two quotations of 400 words however long it is', async () => {
    // The source again and again: 24,000 words, its two ends compared.
    const huge = Array.from({ length: 40 }, () => ALL.slice(0, 600)).flat();
    const big: PageText[] = Array.from({ length: 80 }, (_, i) => ({
      page: i + 1,
      label: String(i + 1),
      ocr: false,
      text: huge.slice(i * 300, i * 300 + 300).join(' '),
    }));
    const src: CheckSources = { keys: new Set(['big']), pdfs: () => [{ path: '/big.pdf', pages: async () => big }] };
    const t = Date.now();
    const [r] = await checkCitationList(findCitations(`${quoted(huge)} [@big, pp. 1–80].`), src);
    assert.equal(r.status, 'quote-partly-checked');
    assert.ok(Date.now() - t < 5000, `${Date.now() - t} ms`);
  });
});

const CLI = resolve('dist/cli.js');

describe('CLI check: what it prints for page ranges and over-long quotations (bundled dist/cli.js)', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-honest-'));
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', timeout: 180_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const lib = ['--workspace', '.', '--library', 'lib', '--bib', 'lib/lib.bib'];

  before(() => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    mkdirSync(join(root, 'lib'));
    writeFileSync(
      join(root, 'lib', 'gen.pdf'),
      buildPdf({
        info: { Title: 'Generated' },
        pages: WORDS.map((w) => ({ paragraphs: [w.join(' ')] })),
        pageLabels: [{ startPage: 0, style: 'D', start: 101 }],
      }),
    );
    writeFileSync(
      join(root, 'lib', 'lib.bib'),
      '@book{gen2020,\n  title = {Generated},\n  author = {Maker, Ann},\n  year = {2020},\n  file = {gen.pdf:gen.pdf:application/pdf}\n}\n',
    );
    const paras = [
      ...DASHES.slice(0, 4).map((d) => `Range [@gen2020, pp. 9000${d}9999].`), // lines 1, 3, 5, 7
      `${quoted(Q450)} [@gen2020, pp. 101–102].`, // 9: ok
      `${quoted(changed(Q450, 225))} [@gen2020, pp. 101–102].`, // 11: quote-differs
      `${quoted(Q1000)} [@gen2020, pp. 101–104].`, // 13: partly checked
      `${quoted(changed(Q1000, 500))} [@gen2020, pp. 101–104].`, // 15: partly checked (its middle not compared)
      `${quoted(changed(Q1000, 100))} [@gen2020, pp. 101–104].`, // 17: quote-differs
    ];
    writeFileSync(join(root, 'draft.md'), paras.join('\n\n') + '\n');
    writeFileSync(
      join(root, 'draft.tex'),
      DASHES.slice(0, 4)
        .map((d) => `Range \\cite[pp.~9000${d}9999]{gen2020}.`)
        .join('\n\n') + '\n',
    );
    writeFileSync(join(root, 'long.md'), `${quoted(Q1000)} [@gen2020, pp. 101–104].\n`);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a range in any dash past the end is no-such-page in Markdown and LaTeX alike', () => {
    const md = cli(['check', 'draft.md', ...lib]);
    assert.equal(md.code, 1, md.stderr);
    const ranges = md.stdout.split('\n').filter((l) => l.includes('no-such-page'));
    assert.deepEqual(
      ranges.map((l) => l.replace(/^draft\.md:(\d+):\d+ /, '$1 ')),
      DASHES.slice(0, 4).map((d, i) => `${2 * i + 1} no-such-page @gen2020 pp. 9000${d}9999 → the source's pages are 101–106 (6 in the PDF)`),
    );
    const tex = cli(['check', 'draft.tex', ...lib, '--json']);
    const citations = JSON.parse(tex.stdout).citations as CheckedCitation[];
    assert.deepEqual(new Set(citations.map((c) => `${c.status}: ${c.note}`)), new Set(["no-such-page: the source's pages are 101–106 (6 in the PDF)"]));
    assert.equal(citations.length, 4);
  });

  it('long quotations: problems on stdout, a quotation checked only at its ends on stderr and in the summary, never a silent ok', () => {
    const r = cli(['check', 'draft.md', ...lib]);
    const problems = r.stdout
      .trim()
      .split('\n')
      .filter((l) => !l.includes('no-such-page'));
    assert.equal(problems.length, 2, r.stdout);
    assert.match(problems[0], /^draft\.md:11:\d+ quote-differs @gen2020 pp\. 101–102 → .*“zzyzx” for “/);
    assert.match(problems[1], /^draft\.md:17:\d+ quote-differs @gen2020 pp\. 101–104 → .*“zzyzx” for “/);
    const partly = r.stderr.split('\n').filter((l) => l.includes('quote-partly-checked'));
    assert.deepEqual(
      partly.map((l) => l.replace(/^draft\.md:(\d+):\d+ /, '$1 ')),
      [13, 15].map(
        (n) =>
          `${n} quote-partly-checked @gen2020 pp. 101–104 → its ends are on pp. 101–104 word for word; a quotation of 1000 words: only its first and last 400 words were compared, not the 200 between them`,
      ),
    );
    assert.match(r.stderr, /9 citations checked in .* s: 4 errors, 2 warnings, 2 quotations partly checked/);
    const j = JSON.parse(cli(['check', 'draft.md', ...lib, '--json']).stdout) as {
      citations: Array<{ line: number; status: string; severity: string }>;
      partlyChecked: number;
    };
    assert.deepEqual(
      j.citations.slice(4).map((c) => [c.line, c.status, c.severity]),
      [
        [9, 'ok', 'ok'],
        [11, 'quote-differs', 'warning'],
        [13, 'quote-partly-checked', 'info'],
        [15, 'quote-partly-checked', 'info'],
        [17, 'quote-differs', 'warning'],
      ],
    );
    assert.equal(j.partlyChecked, 2);
  });

  it('a draft whose only citation was checked at its ends exits 0 and still says so; the agent tool says so too', async () => {
    const r = cli(['check', 'long.md', ...lib]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^long\.md:1:\d+ quote-partly-checked /m);
    assert.match(r.stderr, /1 citation checked in .* s: 0 errors, 0 warnings, 1 quotation partly checked/);
    const { settings } = await readWorkspaceSettings(root);
    const engine = createEngine({ workspace: root, settings: { ...settings, ocr: 'off', useReranking: 'off' }, provider: new EmbeddedProvider() });
    try {
      const a = await checkCitationsTool(engine, `${quoted(Q1000)} [@gen2020, pp. 101–104].\n`, { name: 'long.md' });
      const [sentence, json] = [a.text.slice(0, a.text.indexOf('\n')), JSON.parse(a.text.slice(a.text.indexOf('\n') + 1))];
      assert.match(sentence, /1 quotation \(status quote-partly-checked\) was too long to compare whole: only the first and last 400 words were compared/);
      assert.equal(json.partlyChecked, 1);
      assert.deepEqual(
        [json.citations[0].status, json.citations[0].note],
        ['quote-partly-checked', 'a quotation of 1000 words: only its first and last 400 words were compared, not the 200 between them'],
      );
    } finally {
      await engine.dispose();
    }
  });
});
