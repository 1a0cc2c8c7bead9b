import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve('dist/cli.js');

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The citation check on LaTeX drafts: the example workspace, with the thesis fixture (main.tex and its \input chapters) in thesis/. */
describe('CLI check on LaTeX drafts (bundled dist/cli.js)', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-texcheck-'));
  const ws = join(root, 'examples');

  before(() => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    cpSync(resolve('examples'), ws, { recursive: true, filter: (src) => !src.includes('.similar-sources') });
    cpSync(resolve('test/fixtures/latex-thesis'), join(ws, 'thesis'), { recursive: true });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('examples/draft.tex: its quotations found on the pages its \\autocite and \\textquote name (exit 0)', () => {
    const r = cli(['check', 'draft.tex', '--workspace', '.', '--json'], ws);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const { citations } = JSON.parse(r.stdout) as { citations: Array<Record<string, unknown>> };
    const quoted = citations.filter((c) => c.quote !== null);
    assert.deepEqual(
      quoted.map((c) => [c.file, c.key, c.locator, c.status, c.foundPage, c.quote]),
      [
        ['draft.tex', 'whitfield2019grain', 'p. 214', 'ok', '214', 'no grain could leave a port without a tratta'],
        ['draft.tex', 'bruckner2017kontore', '87', 'ok', '87', 'small merchant republics planted on foreign soil'],
      ],
    );
    assert.deepEqual(
      citations.map((c) => c.key),
      [
        'whitfield2019grain',
        'whitfield2019grain',
        'bruckner2017kontore',
        'bruckner2017kontore',
        'oakenbrook1862report',
        'menard2021commune',
        'pemberton2004clocks',
      ],
    );
    // Where the editor finds the key: its line and column in the .tex file.
    const tex = readFileSync(join(ws, 'draft.tex'), 'utf8').split('\n');
    for (const c of citations) assert.equal(tex[(c.line as number) - 1].slice((c.column as number) - 1).split('}')[0], c.key);
  });

  it('a thesis: the chapters of \\include/\\input checked too, each problem named by its file and line; files not read are warned of', () => {
    const r = cli(['check', 'thesis/main.tex', '--workspace', '.', '--json'], ws);
    assert.equal(r.code, 1, r.stderr);
    const { citations } = JSON.parse(r.stdout) as { citations: Array<Record<string, unknown>> };
    assert.deepEqual(
      citations.map((c) => [c.file, c.line, c.key, c.locator, c.status, c.foundPage]),
      [
        ['thesis/main.tex', 19, 'whitfield2019grain', null, 'ok', null],
        ['thesis/chapters/grain.tex', 5, 'whitfield2019grain', 'p. 214', 'ok', '214'],
        ['thesis/chapters/grain.tex', 6, 'whitfield2019grain', 'p. 214', 'wrong-page', '216'],
        ['thesis/chapters/grain.tex', 7, 'whitfield2019grain', '213', 'quote-differs', '213'],
        ['thesis/chapters/grain.tex', 8, 'whitfield2019grain', 'p. 215', 'quote-not-found', null],
        ['thesis/chapters/grain.tex', 9, 'whitfeld2019grain', null, 'unknown-key', null],
        ['thesis/chapters/grain.tex', 9, 'whitfield2019grain', 'p. 999', 'no-such-page', null],
        ['thesis/chapters/grain.tex', 14, 'whitfield2019grain', '214', 'ok', '214'],
        ['thesis/chapters/grain.tex', 15, 'whitfield2019grain', '214', 'ok', null],
        ['thesis/chapters/grain.tex', 19, 'whitfield2019grain', 'p. 214', 'ok', '214'],
        ['thesis/chapters/hanse.tex', 5, 'bruckner2017kontore', '87', 'ok', '87'],
        ['thesis/chapters/hanse.tex', 7, 'bruckner2017kontore', '88', 'ok', '88'],
        ['thesis/chapters/hanse.tex', 12, 'bruckner2017kontore', '87', 'quote-not-found', null],
        // The settings name a bibliography: the thesis's own refs.bib is not read.
        ['thesis/chapters/hanse.tex', 13, 'extra2020notes', '12', 'unknown-key', null],
        ['thesis/chapters/loop.tex', 3, 'bruckner2017kontore', '88–89', 'ok', null],
        ['thesis/chapters/loop.tex', 3, 'whitfield2019grain', '214', 'ok', null],
      ],
    );
    assert.deepEqual(citations[3].differences, [{ quote: 'barley', source: 'wheat' }]);
    const text = cli(['check', 'thesis/main.tex', '--workspace', '.'], ws);
    const lines = text.stdout.trim().split('\n');
    assert.equal(lines.length, 7, text.stdout);
    assert.match(lines[0], /^thesis\/chapters\/grain\.tex:6:108 wrong-page @whitfield2019grain p\. 214 → found on p\. 216$/);
    assert.match(text.stderr, /warning: \\input\{chapters\/missing\} in thesis\/main\.tex: thesis\/chapters\/missing\.tex does not exist/);
    assert.match(text.stderr, /warning: \\input\{chapters\/loop\} in thesis\/chapters\/loop\.tex: thesis\/chapters\/loop\.tex includes itself/);
    assert.match(text.stderr, /16 citations checked/);
  });

  it('the keys of the draft’s \\addbibresource files are known when the settings name no bibliography', async () => {
    const engine = require(resolve('dist/engine.js')) as typeof import('../../src/engine');
    const main = join(ws, 'thesis', 'main.tex');
    const text = readFileSync(main, 'utf8');
    const bibs = engine.draftBibliographies({}, text, main);
    assert.deepEqual(bibs, [join(ws, 'thesis', 'refs.bib'), join(ws, 'library', 'library.bib')]);
    const warnings: string[] = [];
    const r = await engine.checkCitations(text, { workspace: ws, bibliography: bibs, format: 'latex', draftPath: main, onWarning: (w) => warnings.push(w) });
    const extra = r.citations.find((c) => c.key === 'extra2020notes');
    assert.equal(extra?.status, 'ok');
    assert.match(String(extra?.note), /no PDF of this source/);
    assert.equal(extra?.file, 'thesis/chapters/hanse.tex');
    assert.equal(warnings.length, 3, warnings.join('\n'));
  });

  it('segment and analyze follow \\input and \\include: the chapters’ paragraphs in reading order, each named by its file; a chapter edited is analysed again', () => {
    const seg = cli(['segment', 'thesis/main.tex', '--workspace', '.', '--json'], ws);
    assert.equal(seg.code, 0, seg.stderr);
    const segments = (JSON.parse(seg.stdout) as { segments: Array<{ file?: string; startLine: number; searchable: boolean }> }).segments;
    assert.deepEqual(
      segments.map((x) => [x.file ?? 'main', x.startLine]),
      [
        ['main', 19],
        ['thesis/chapters/grain.tex', 5],
        ['thesis/chapters/grain.tex', 13],
        ['thesis/chapters/grain.tex', 18],
        ['thesis/chapters/hanse.tex', 5],
        ['thesis/chapters/hanse.tex', 8],
        ['thesis/chapters/hanse.tex', 12],
        ['thesis/chapters/hanse.tex', 18],
        ['thesis/chapters/loop.tex', 3],
      ],
    );
    assert.match(seg.stderr, /chapters\/missing\.tex does not exist/);

    const analyse = () => cli(['analyze', 'thesis/main.tex', '--workspace', '.', '--json'], ws);
    const first = analyse();
    assert.equal(first.code, 0, first.stderr);
    type Seg = { file?: string; startLine: number; status: string; recommendations: Array<{ citekey: string | null }> };
    const r1 = (JSON.parse(first.stdout) as { segments: Seg[] }).segments;
    const grain = r1.find((x) => x.file === 'thesis/chapters/grain.tex' && x.startLine === 5)!;
    assert.equal(grain.status, 'analysed');
    assert.equal(grain.recommendations[0]?.citekey, 'whitfield2019grain', 'the Sicilian grain paragraph of chapters/grain.tex finds Whitfield');
    assert.ok(r1.find((x) => x.file === 'thesis/chapters/hanse.tex' && x.startLine === 5)?.recommendations.some((c) => c.citekey === 'bruckner2017kontore'));
    const text = cli(['analyze', 'thesis/main.tex', '--workspace', '.'], ws);
    assert.match(text.stdout, /^thesis\/chapters\/grain\.tex:L5–9 +paragraph: /m);

    // A paragraph added to a chapter (main.tex unchanged) is segmented and searched: the cache follows the project's files.
    const chapter = join(ws, 'thesis', 'chapters', 'hanse.tex');
    const before = readFileSync(chapter, 'utf8');
    writeFileSync(chapter, `${before}\n\nThe railway timetable and the standard time of the nation replaced the local noon of each town.\n`);
    try {
      const again = (JSON.parse(analyse().stdout) as { segments: Seg[] }).segments;
      assert.equal(again.length, r1.length + 1);
      const added = again.filter((x) => x.file === 'thesis/chapters/hanse.tex').at(-1)!;
      assert.equal(added.status, 'analysed');
    } finally {
      writeFileSync(chapter, before);
    }
  });
});
