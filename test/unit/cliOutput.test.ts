/**
 * The CLI's human output is text: file names, PDF text and bibliography fields that hold terminal
 * control sequences (ESC/CSI/OSC, BEL, C1 controls, bidi overrides, newlines) print escaped or
 * removed, bounded, and floods of warnings or skipped files are summed up; --json stays the exact data.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { listed, WarningLines, warningKind } from '../../src/cli/output';
import { buildPdf, truncatePdf } from '../support/pdfWriter';

const CLI = resolve('dist/cli.js');

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 180_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ESC = '\u001b';
const BEL = '\u0007';
const RLO = '\u202E';
/** Screen clearing, an OSC 8 link, a bell, a right-to-left override and a newline: a file name can hold all of them. */
const NAME = `evil${ESC}[2J${ESC}]8;;mailto:a@x.example${BEL}link${ESC}]8;;${BEL}${BEL}${RLO}txt.exe\nfake line.pdf`;
/** How the CLI shows it: every character there, escaped. */
const NAME_SHOWN = 'evil\\x1b[2J\\x1b]8;;mailto:a@x.example\\x07link\\x1b]8;;\\x07\\x07\\u202etxt.exe\\nfake line.pdf';
/** An 8-bit CSI (C1) and a bidi isolate, in a PDF cut in half (damaged). */
const DAMAGED = `half\u009b2J\u2066read.pdf`;
/** An OSC that sets the window title, in a file that is no PDF (skipped). */
const SKIPPED = `note${ESC}]0;pwned${BEL}${RLO}.pdf`;
const DRAFT = `draft${ESC}[2J${RLO}.md`;
/** A bibliography title with NUL, a colour and an 8-bit CSI. */
const TITLE = `Bib\u0000title${ESC}[31mRED\u009b1m`;
const WORDS = 'quillwort flumadiddle zorblax snickersnee gallimaufry';
const PARAGRAPH = `The ${WORDS} of the archive deserve a closer look: quillwort and flumadiddle recur in every zorblax ledger, and the snickersnee gallimaufry appears in each one of them.`;
const LOCATOR = `p. ${'1'.repeat(100_000)}`;

/** What must never reach a terminal: C0 controls but the newline ending a line, DEL, C1, bidi and zero-width controls, line separators. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u2028\u2029]/u;
function assertTerminalSafe(text: string, what: string, opts: { tabs?: boolean } = {}) {
  const t = opts.tabs ? text.replace(/\t/g, ' ') : text;
  const bad = UNSAFE.exec(t);
  assert.equal(
    bad,
    null,
    `${what} holds U+${bad?.[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${bad?.index}: ${JSON.stringify(t.slice(Math.max(0, (bad?.index ?? 0) - 40), (bad?.index ?? 0) + 40))}`,
  );
  assert.doesNotMatch(text, /^fake line/m, `${what}: a newline in a name made a line of its own`);
}

describe('CLI output is text (bundled dist/cli.js)', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-cli-output-'));
  const lib = join(root, 'library');
  const args = ['--workspace', '.', '--library', 'library', '--bib', 'library/bib.json'];

  before(() => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    mkdirSync(lib, { recursive: true });
    writeFileSync(join(lib, NAME), buildPdf({ info: { Title: `Info title\u009b2J ${RLO}x` }, pages: [{ paragraphs: [PARAGRAPH, PARAGRAPH] }] }));
    const arsenal =
      'The Venetian Arsenal employed several thousand workers at the height of its activity, and visitors marvelled at the speed with which it could fit out a galley.';
    writeFileSync(join(lib, DAMAGED), truncatePdf(buildPdf({ pages: Array.from({ length: 4 }, () => ({ paragraphs: [arsenal, arsenal] })) }), 0.5));
    writeFileSync(join(lib, SKIPPED), 'not a PDF\n');
    const item = {
      itemID: 1,
      itemType: 'book',
      citationKey: 'evil2020',
      title: TITLE,
      creators: [{ creatorType: 'author', lastName: `Ev${RLO}il\nNext` }],
      date: '2020',
      attachments: [{ path: NAME }],
    };
    writeFileSync(join(lib, 'bib.json'), JSON.stringify({ items: [item] }));
    writeFileSync(
      join(root, DRAFT),
      `# Head${ESC}[2J${BEL}\n\n${PARAGRAPH} “quillwort ${ESC}]0;title${BEL} zorblax” [@evil2020, ${LOCATOR}].\n\nSee [@nokey2020, p. 3].\n`,
    );
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('index: skipped and damaged files are named, escaped; --json holds the exact names', () => {
    const r = cli(['index', ...args], root);
    assert.equal(r.code, 0, r.stderr);
    assertTerminalSafe(r.stdout, 'index stdout');
    assertTerminalSafe(r.stderr, 'index stderr');
    assert.ok(r.stdout.includes(`${join(lib, 'note')}\\x1b]0;pwned\\x07\\u202e.pdf — not a valid PDF`), r.stdout);
    assert.ok(r.stdout.includes(`${join(lib, 'half')}\\x9b2J\\u2066read.pdf — `), r.stdout);
    // A skip is reported by every run, a damaged file by the run that read it and by status.
    const j = JSON.parse(cli(['index', ...args, '--json'], root).stdout);
    assert.deepEqual(
      j.skipped.map((s: { path: string }) => s.path),
      [join(lib, SKIPPED)],
    );

    const st = cli(['status', '--workspace', '.'], root);
    assertTerminalSafe(st.stdout, 'status stdout');
    assert.ok(st.stdout.includes(`damaged: ${join(lib, 'half')}\\x9b2J\\u2066read.pdf — `), st.stdout);
    assert.deepEqual(
      JSON.parse(cli(['status', '--workspace', '.', '--json'], root).stdout).damaged.map((d: { path: string }) => d.path),
      [join(lib, DAMAGED)],
    );
  });

  it('search: the path escaped, the title as text; --json holds them exactly', () => {
    const r = cli(['search', WORDS, '--workspace', '.', '--k', '1'], root);
    assert.equal(r.code, 0, r.stderr);
    assertTerminalSafe(r.stdout, 'search stdout');
    assertTerminalSafe(r.stderr, 'search stderr');
    assert.ok(r.stdout.includes(`   ${join(lib, NAME_SHOWN)}\n`), r.stdout);
    assert.match(r.stdout, /^1\. Bibtitle\[31mRED1m — Evil Next, 2020, p\. 1 /m);
    const { results } = JSON.parse(cli(['search', WORDS, '--workspace', '.', '--k', '1', '--json'], root).stdout);
    assert.equal(results[0].path, join(lib, NAME));
    assert.equal(results[0].title, TITLE);
  });

  it('analyze: titles, headings and citations hold no control; --json the exact title', () => {
    const r = cli(['analyze', DRAFT, ...args], root);
    assert.equal(r.code, 0, r.stderr);
    assertTerminalSafe(r.stdout, 'analyze stdout');
    assertTerminalSafe(r.stderr, 'analyze stderr');
    assert.match(r.stdout, /^Head\[2J — /m);
    assert.match(r.stdout, /^ {2}1\. .*Bibtitle\[31mRED1m/m);
    assert.match(
      r.stderr,
      /library: 2 sources, \d+ passages( \(\d+ changed\))?, 1 skipped\n {2}skipped .*note\\x1b\]0;pwned\\x07\\u202e\.pdf: not a valid PDF/,
    );
    const j = JSON.parse(cli(['analyze', DRAFT, ...args, '--json'], root).stdout);
    assert.equal(j.segments.flatMap((s: { recommendations: Array<{ title: string }> }) => s.recommendations)[0].title, TITLE);
  });

  it('check: the draft named escaped, a 100,000-character locator and the quotation bounded; --json the exact locator', () => {
    const r = cli(['check', DRAFT, ...args], root);
    assert.equal(r.code, 1, r.stderr);
    assertTerminalSafe(r.stdout, 'check stdout');
    assertTerminalSafe(r.stderr, 'check stderr');
    const lines = r.stdout.trim().split('\n');
    assert.ok(lines.length >= 2, r.stdout);
    for (const line of lines) {
      assert.ok(line.startsWith('draft\\x1b[2J\\u202e.md:'), line);
      assert.ok(line.length < 600, `a line of ${line.length} characters`);
    }
    assert.ok(
      lines.some((l) => l.includes(` @evil2020 p. ${'1'.repeat(150)}`) && l.includes('…')),
      r.stdout,
    );
    assert.ok(
      lines.some((l) => l.includes('@nokey2020 p. 3 → ')),
      r.stdout,
    );
    const { citations } = JSON.parse(cli(['check', DRAFT, ...args, '--json'], root).stdout);
    assert.equal(citations.find((c: { key: string }) => c.key === 'evil2020').locator, LOCATOR);
    assert.ok(citations.every((c: { file: string }) => c.file === DRAFT));
  });

  it('segment: the draft’s text keeps to its three columns', () => {
    writeFileSync(join(root, 'tabs.md'), `# A\theading${ESC}[2J\nwith a break\n\nText\twith a tab and ${RLO}an override, long enough to be a segment.\n`);
    const r = cli(['segment', 'tabs.md'], root);
    assert.equal(r.code, 0, r.stderr);
    assertTerminalSafe(r.stdout, 'segment stdout', { tabs: true });
    for (const line of r.stdout.trim().split('\n')) assert.equal(line.split('\t').length, 3, line);
  });
});

describe('CLI output: floods are summed up', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-cli-flood-'));
  const lib = join(root, 'library');
  const N = 10_000;

  before(() => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    mkdirSync(lib, { recursive: true });
    writeFileSync(
      join(lib, 'real.pdf'),
      buildPdf({
        pages: [{ paragraphs: ['Grain ships crowded the harbour of Genoa every autumn, and the merchants of the city bought licences to export it.'] }],
      }),
    );
    // 10,000 files that are no PDF (each skipped) and 10,000 links to nothing (each a warning).
    for (let i = 0; i < N; i++) {
      writeFileSync(join(lib, `not-a-pdf-${i}.pdf`), 'not a PDF\n');
      symlinkSync(join(root, 'nowhere', `${i}.pdf`), join(lib, `gone-${i}.pdf`));
    }
    writeFileSync(join(root, 'draft.md'), '# Draft\n\nSome words about grain and ships in the harbour of Genoa, enough for a segment.\n');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('index: 20 warnings and 20 skipped files, then how many more; --json lists them all', () => {
    const r = cli(['index', '--library', 'library', '--workspace', '.'], root);
    assert.equal(r.code, 0, r.stderr);
    const warned = r.stderr.split('\n').filter((l) => l.startsWith('warning: '));
    assert.equal(warned.length, 21, r.stderr);
    assert.equal(warned[20], 'warning: … and 9,980 more “link not followed: …” warnings (index --json lists them in "warnings")');
    // Progress comes a line a second: the rest of stderr stays short whatever the machine's speed.
    assert.ok(r.stderr.split('\n').length < 200, `${r.stderr.split('\n').length} lines on stderr`);
    const out = r.stdout.trim().split('\n');
    assert.ok(out.length < 30, r.stdout);
    assert.ok(out.includes(`Skipped ${N} files:`), r.stdout);
    assert.equal(out.filter((l) => / — not a valid PDF/.test(l)).length, 20);
    assert.ok(out.includes('  … and 9,980 more skipped files (--json lists them all)'), r.stdout);

    const j = JSON.parse(cli(['index', '--library', 'library', '--workspace', '.', '--json'], root).stdout);
    assert.equal(j.skipped.length, N);
    assert.equal(j.warnings.filter((w: string) => w.startsWith('link not followed: ')).length, N);
  });

  it('analyze: the skipped files it indexed past, summed up on stderr', () => {
    const r = cli(['analyze', 'draft.md', '--library', 'library', '--workspace', '.'], root);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.split('\n');
    assert.equal(lines.filter((l) => l.startsWith('  skipped ')).length, 20);
    assert.ok(lines.includes('  … and 9,980 more skipped files (index --json lists them all)'), r.stderr);
    assert.ok(lines.length < 250, `${lines.length} lines on stderr`);
  });
});

describe('CLI output: warnings of one kind, lists (src/cli/output.ts)', () => {
  it('tells kinds apart by the words before a path, a number or a quoted name', () => {
    assert.equal(warningKind('link not followed: /lib/a.pdf points to nothing (ENOENT)'), 'link not followed:');
    assert.equal(warningKind('cannot read C:\\lib\\a.pdf: EACCES'), 'cannot read C:');
    assert.equal(warningKind('/lib/a.pdf: read 2 of 4 pages'), '');
    assert.equal(warningKind('bibliography: Duplicate citation key "k" at line 3: kept the first entry.'), 'bibliography: Duplicate citation key');
    assert.equal(warningKind('the index was outdated; rebuilding it'), 'the index was outdated; rebuilding it');
  });

  it('shows 20 of a kind and 100 in all, then sums up the rest by kind, escaped and bounded', () => {
    const lines: string[] = [];
    const w = new WarningLines((l) => lines.push(l));
    for (let i = 0; i < 50; i++) w.warn(`cannot read /lib/${i}${ESC}[2J.pdf: EACCES`);
    w.warn('the index was outdated; rebuilding it');
    for (let i = 0; i < 30; i++) w.warn(`/lib/${i}.pdf: ${'x'.repeat(5000)}`);
    // Kinds a and b shown whole, c up to the 100th line, d to g held back whole.
    for (const k of 'abcdefg') for (let i = 0; i < 20; i++) w.warn(`kind ${k}: /x/${i}`);
    assert.equal(lines.length, 100);
    assert.equal(lines[0], 'warning: cannot read /lib/0\\x1b[2J.pdf: EACCES');
    assert.equal(lines[20], 'warning: the index was outdated; rebuilding it', 'another kind is not held back by a flood');
    assert.ok(lines.every((l) => l.length <= 620));
    w.flush(' (see the report)');
    assert.deepEqual(lines.slice(100), [
      'warning: … and 30 more “cannot read …” warnings (see the report)',
      ...'defg'.split('').map((k) => `warning: … and 20 more “kind ${k}: …” warnings (see the report)`),
      'warning: … and 11 more warnings of 2 other kinds (see the report)',
    ]);
    w.flush();
    assert.equal(lines.length, 106, 'nothing left to sum up');
    w.warn('cannot read /lib/again.pdf');
    assert.equal(lines.length, 107, 'a flush starts the count again');
  });

  it('a process that lives on (mcp) sums up and starts again once its window has passed', () => {
    const lines: string[] = [];
    let now = 0;
    const w = new WarningLines((l) => lines.push(l), { windowMs: 30_000, now: () => now });
    for (let i = 0; i < 25; i++) w.warn(`waiting for another process (pid ${i})`);
    assert.equal(lines.length, 20);
    now = 29_000;
    w.warn('waiting for another process (pid 99)');
    assert.equal(lines.length, 20, 'within the window: held back');
    now = 31_000;
    w.warn('waiting for another process (pid 100)');
    assert.deepEqual(lines.slice(20), ['warning: … and 6 more “waiting for another process …” warnings', 'warning: waiting for another process (pid 100)']);
  });

  it('lists the first 20 items and says how many more', () => {
    const lines: string[] = [];
    listed(
      (l) => lines.push(l),
      Array.from({ length: 100_000 }, (_, i) => i),
      (i) => `item ${i}`,
      (n) => `… and ${n} more`,
    );
    assert.equal(lines.length, 21);
    assert.equal(lines[20], '… and 99,980 more');
    lines.length = 0;
    listed(
      (l) => lines.push(l),
      [1, 2],
      (i) => `item ${i}`,
      (n) => `… and ${n} more`,
    );
    assert.deepEqual(lines, ['item 1', 'item 2']);
  });
});
