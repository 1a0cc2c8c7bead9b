/**
 * `check` answers honestly (issue 35, item 7): a page range reads the same whatever its dash, in
 * Markdown as in LaTeX, and a page past the source's end is an impossible page.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkCitationList, checkDraft, type CheckedCitation, type CheckSources } from '../../src/core/citecheck/check';
import { findCitations, parseLocator } from '../../src/core/citecheck/draftCitations';
import type { PageText } from '../../src/core/citecheck/match';
import { findLatexCitations } from '../../src/core/latex/citations';
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
  const vocab = Array.from({ length: 1500 }, () => Array.from({ length: 2 + Math.floor(rnd() * 2) }, () => C[Math.floor(rnd() * C.length)] + V[Math.floor(rnd() * V.length)]).join(''));
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
    assert.deepEqual(parseLocator(', pp. S3--S5'), { text: 'pp. S3--S5', from: 'S3', to: 'S5' });
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
    writeFileSync(join(root, 'lib', 'gen.pdf'), buildPdf({ info: { Title: 'Generated' }, pages: WORDS.map((w) => ({ paragraphs: [w.join(' ')] })), pageLabels: [{ startPage: 0, style: 'D', start: 101 }] }));
    writeFileSync(join(root, 'lib', 'lib.bib'), '@book{gen2020,\n  title = {Generated},\n  author = {Maker, Ann},\n  year = {2020},\n  file = {gen.pdf:gen.pdf:application/pdf}\n}\n');
    const paras = [
      ...DASHES.slice(0, 4).map((d) => `Range [@gen2020, pp. 9000${d}9999].`), // lines 1, 3, 5, 7
      `${quoted(Q450)} [@gen2020, pp. 101–102].`, // 9: ok
      `${quoted(changed(Q450, 225))} [@gen2020, pp. 101–102].`, // 11: quote-differs
      `${quoted(Q1000)} [@gen2020, pp. 101–104].`, // 13: partly checked
      `${quoted(changed(Q1000, 500))} [@gen2020, pp. 101–104].`, // 15: partly checked (its middle not compared)
      `${quoted(changed(Q1000, 100))} [@gen2020, pp. 101–104].`, // 17: quote-differs
    ];
    writeFileSync(join(root, 'draft.md'), paras.join('\n\n') + '\n');
    writeFileSync(join(root, 'draft.tex'), DASHES.slice(0, 4).map((d) => `Range \\cite[pp.~9000${d}9999]{gen2020}.`).join('\n\n') + '\n');
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
});
