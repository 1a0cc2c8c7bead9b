import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve('dist/cli.js');

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Quotations from the example library's grain-trade.pdf (printed pages 213–217). */
const DRAFT = [
  '---',
  'title: "A chapter [@ignored]"',
  '---',
  '# Grain',
  '',
  'Whitfield writes that “no grain could leave a port without a tratta” [@whitfield2019grain, p. 214].', // 6: ok
  'The system “came close to breaking in the last decade of the sixteenth century” [@whitfield2019grain, p. 214].', // 7: wrong page (216)
  'Venice “consumed tens of thousands of tonnes of barley a year” [@whitfield2019grain, p. 213].', // 8: differs
  'Grain “was loaded on camels and carried across the Sahara to Timbuktu” [@whitfield2019grain, p. 215].', // 9: not found
  'See [@whitfeld2019grain, p. 214] and [@whitfield2019grain, p. 999].', // 10: unknown key, no such page
  'And the Hanse [@bruckner2017kontore, pp. 88-89].', // 11: ok
].join('\n');

describe('CLI check (bundled dist/cli.js)', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-check-'));
  const ws = join(root, 'examples');

  before(() => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    cpSync(resolve('examples'), ws, { recursive: true, filter: (src) => !src.includes('.similar-sources') });
    writeFileSync(join(ws, 'chapter.md'), DRAFT);
    writeFileSync(
      join(ws, 'clean.md'),
      'Fine: “no grain could leave a port without a tratta” [@whitfield2019grain, p. 214].\n\n' +
        // No quotation, cited at a page that says something else: a hint, not a problem.
        'Genoese merchant houses bought the licences months before the harvest and resold them when prices rose [@whitfield2019grain, p. 216].\n',
    );
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('--json lists every citation with its status, found page and source words; exit 1 when one is wrong', () => {
    const r = cli(['check', 'chapter.md', '--workspace', '.', '--json'], ws);
    assert.equal(r.code, 1, r.stderr);
    const { citations } = JSON.parse(r.stdout) as { citations: Array<Record<string, unknown>> };
    assert.deepEqual(
      citations.map((c) => [c.line, c.key, c.locator, c.status, c.foundPage]),
      [
        [6, 'whitfield2019grain', 'p. 214', 'ok', '214'],
        [7, 'whitfield2019grain', 'p. 214', 'wrong-page', '216'],
        [8, 'whitfield2019grain', 'p. 213', 'quote-differs', '213'],
        [9, 'whitfield2019grain', 'p. 215', 'quote-not-found', null],
        [10, 'whitfeld2019grain', 'p. 214', 'unknown-key', null],
        [10, 'whitfield2019grain', 'p. 999', 'no-such-page', null],
        [11, 'bruckner2017kontore', 'pp. 88-89', 'ok', null],
      ],
    );
    const differs = citations[2];
    assert.equal(differs.sourceText, 'consumed tens of thousands of tonnes of wheat a year');
    assert.deepEqual(differs.differences, [{ quote: 'barley', source: 'wheat' }]);
    assert.equal(citations[0].quote, 'no grain could leave a port without a tratta');
    assert.equal(citations[6].quote, null);
    assert.match(String(citations[0].path), /grain-trade\.pdf$/);
    assert.deepEqual(citations[4].suggestions, ['whitfield2019grain']);
    for (const c of citations) for (const k of ['line', 'column', 'key', 'locator', 'quote', 'status', 'foundPage', 'sourceText', 'path']) assert.ok(k in c, k);
  });

  it('prints one line per problem, file:line:column first', () => {
    const r = cli(['check', 'chapter.md', '--workspace', '.'], ws);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 5, r.stdout);
    assert.match(lines[0], /^chapter\.md:7:\d+ wrong-page @whitfield2019grain p\. 214 → found on p\. 216$/);
    assert.match(lines[1], /^chapter\.md:8:\d+ quote-differs @whitfield2019grain p\. 213 → .*“barley” for “wheat”/);
    assert.match(lines[3], /unknown-key @whitfeld2019grain p\. 214 → did you mean @whitfield2019grain\?/);
    assert.match(r.stderr, /7 citations checked/);
  });

  it('exit 0 when every citation is right; a page hint goes to stderr and to the JSON, never into the exit code', () => {
    const r = cli(['check', 'clean.md', '--workspace', '.'], ws);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^clean\.md:3:\d+ hint @whitfield2019grain p\. 216 → p\. 214 matches this sentence better: “.*licences/m);
    assert.match(r.stderr, /1 page hint/);
    const j = cli(['check', 'clean.md', '--workspace', '.', '--json'], ws);
    assert.equal(j.code, 0, j.stderr);
    const [quoted, hinted] = JSON.parse(j.stdout).citations;
    assert.equal(quoted.hint, null);
    assert.deepEqual([hinted.status, hinted.hint.page], ['ok', '214']);
  });

  it("checks in the engine's citation worker as in this thread, and a cancelled check stops", async () => {
    const engine = require(resolve('dist/engine.js')) as typeof import('../../src/engine');
    const draft = readFileSync(join(ws, 'chapter.md'), 'utf8');
    const opts = { workspace: ws, workerDir: resolve('dist') };
    const here = await engine.checkCitations(draft, { workspace: ws });
    const there = await engine.checkCitationsOffThread(draft, opts);
    assert.deepEqual(
      there.citations.map((c) => [c.line, c.status, c.foundPage]),
      here.citations.map((c) => [c.line, c.status, c.foundPage]),
    );
    // Cancelled before it starts, and while the worker is at it (it listens between citations).
    const before = new AbortController();
    before.abort();
    await assert.rejects(engine.checkCitationsOffThread(draft, { ...opts, signal: before.signal }));
    const long = Array.from({ length: 400 }, (_, i) => `Number ${i}: “no grain could leave the port number ${i}” [@whitfield2019grain, p. 214].`).join('\n\n');
    const during = new AbortController();
    const running = engine.checkCitationsOffThread(long, { ...opts, signal: during.signal });
    setImmediate(() => during.abort());
    await assert.rejects(running, /cancelled/);
    // Not indexed: the index's health comes back from the worker, as the editor reads it.
    const empty = join(root, 'unindexed');
    mkdirSync(empty, { recursive: true });
    const err = await engine.checkCitationsOffThread(draft, { workspace: empty, workerDir: resolve('dist') }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(engine.errorHealth(err)?.state, 'missing');
  });

  it('reads a PDF again when its page texts are missing (an index built before them) and stores them', () => {
    const pages = join(ws, '.similar-sources', 'pages');
    const before = readdirSync(pages).length;
    assert.ok(before >= 10);
    rmSync(pages, { recursive: true, force: true });
    const r = cli(['check', 'clean.md', '--workspace', '.', '--json'], ws);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).citations[0].status, 'ok');
    assert.equal(readdirSync(pages).length, 1);
  });

  it('a quotation copied across a page break with its running head is ok, and says what it forgave (stderr, JSON)', () => {
    // As MuPDF and pdf.js copy it from printing-reformation.pdf: the page's end, its number and the next page's head, the next page's start.
    writeFileSync(
      join(ws, 'viewer.md'),
      'Ellery concludes that “Its very lack of coordination made it remarkably hard to stop. 302 Reformation Studies Quarterly 14 (2010) 2. Reading aloud” [@ellery2010pamphlets, pp. 302–303].\n',
    );
    const text = cli(['check', 'viewer.md', '--workspace', '.'], ws);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.equal(text.stdout, '');
    assert.match(
      text.stderr,
      /viewer\.md:1:\d+ ok @ellery2010pamphlets pp\. 302–303 → a viewer's copy: the copy holds a running head, footer or page number of the PDF's page break \(“[^”]*reformation studies quarterly[^”]*”\)/,
    );
    const json = JSON.parse(cli(['check', 'viewer.md', '--workspace', '.', '--json'], ws).stdout) as {
      citations: Array<{ status: string; forgiven: Array<{ kind: string }> }>;
    };
    assert.equal(json.citations[0].status, 'ok');
    assert.deepEqual(
      json.citations[0].forgiven.map((f) => f.kind),
      ['page-furniture'],
    );
  });

  it('exit 2 on bad usage: no file, two files, an unknown option, no index', () => {
    assert.equal(cli(['check'], ws).code, 2);
    assert.equal(cli(['check', 'a.md', 'b.md'], ws).code, 2);
    assert.equal(cli(['check', 'clean.md', '--bogus', 'x'], ws).code, 2);
    assert.equal(cli(['check', 'missing.md', '--workspace', '.'], ws).code, 2);
    const empty = join(root, 'empty');
    cpSync(join(ws, 'clean.md'), join(empty, 'clean.md'));
    const r = cli(['check', 'clean.md'], empty);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--library/);
  });
});
