import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { latexCitationTemplate, segmentLatex } from '../../src/core/latex/segment';
import type { Segment } from '../../src/core/markdown/segment';
import { citationSnippet, formatPassageCitation } from '../../src/shared/citation';

const THESIS = readFileSync(resolve('test/fixtures/drafts/thesis.tex'), 'utf8');
const DRAFT = readFileSync(resolve('examples/draft.tex'), 'utf8');

/** What no segment's query may hold: markup, math, verbatim, listings, floats' bodies, tables, the bibliography, \input. */
const NOT_PROSE = [
  /\\/,
  /\$/,
  /[{}]/,
  /propto|alpha|p_t/,
  /not a section|verbatim text/,
  /read\.csv/,
  /includegraphics|figures\/prices/,
  /fig:prices|eq:price|ch:licences/,
  /Salme|1200/,
  /Licensed Abundance/,
  /chapter2/,
  /whitfield2019grain|braudel1949|lindqvist2016/,
  /comment/,
];

function assertProse(segments: Segment[]) {
  for (const s of segments) for (const re of NOT_PROSE) assert.doesNotMatch(s.query, re, `L${s.startLine}: ${s.query}`);
}

describe('LaTeX drafts', () => {
  describe('segmentation', () => {
    it('paragraphs by blank lines under sectioning commands (starred, \\paragraph); math, verbatim, listings, floats, tables, comments, citations and the bibliography left out', async () => {
      const { title, segments } = await segmentLatex(THESIS);
      assert.equal(title, 'Grain, Credit and the Tratta');
      assertProse(segments);
      assert.deepEqual(
        segments.map((s) => [s.type, s.startLine, s.headingPath.join(' > ')]),
        [
          ['paragraph', 16, 'Licences and markets > A note on method'],
          ['paragraph', 22, 'Licences and markets > A note on method'],
          ['paragraph', 28, 'Licences and markets > A note on method'],
          ['paragraph', 35, 'Licences and markets > A note on method'],
          ['paragraph', 42, 'Licences and markets > A note on method > The registers > Sources.'],
          ['list-item', 53, 'Licences and markets > A note on method > The registers > Sources.'],
          ['list-item', 54, 'Licences and markets > A note on method > The registers > Sources.'],
          ['blockquote', 58, 'Licences and markets > A note on method > The registers > Sources.'],
        ],
      );
      const [first, second, figure, table] = segments.map((s) => s.query);
      assert.match(
        first,
        /^The tratta was a licence to export grain, and the licence, not the wheat, was the scarce good\./,
        '\\emph text kept, the citation dropped',
      );
      assert.match(first, /The notarial registers of Palermo record the sales\./, 'the footnote’s text in its paragraph');
      assert.match(
        first,
        /rose\. As puts it, the sea was a plain of wheat, and the price of bread followed the permits\.$/,
        '\\enquote and \\textquote text kept; a comment keeps words apart',
      );
      assert.equal(second, 'The price of a salma rose with the square of the shortfall, as the model shows for the years 1590–1600.');
      assert.equal(figure, 'Grain prices in Palermo, 1590–1600.', 'a figure’s caption is a paragraph of its own');
      assert.equal(table, 'Exports by year.');
      assert.equal(segments[0].endLine, 20);
      assert.ok(segments[0].text.startsWith('The tratta was a licence'), 'the text shown is the source');
    });

    it('sections and sentences of the same prose', async () => {
      const sections = (await segmentLatex(THESIS, 'section')).segments;
      assertProse(sections);
      assert.deepEqual(
        sections.map((s) => s.title),
        ['A note on method', 'Sources.'],
      );
      const sentences = (await segmentLatex(THESIS, 'sentence')).segments;
      assertProse(sentences);
      assert.ok(sentences.some((s) => s.query === 'The registers survive for most years after 1580, in two series kept by different offices.'));
    });

    it('examples/draft.tex: the paragraphs of draft.md (its footnote inside its paragraph), plus the figure’s caption', async () => {
      const tex = (await segmentLatex(DRAFT)).segments;
      assertProse(tex);
      assert.equal(tex.length, 24);
      assert.ok(
        tex.some(
          (s) => s.query.startsWith('Consider first the great Mediterranean cities') && s.query.endsWith('as much work for ambassadors as for shipowners.'),
        ),
      );
    });

    it('\\cites with pre- and post-notes leaves no key nor note behind', async () => {
      const { segments } = await segmentLatex('Prices rose \\cites(see)()[12]{a}[14]{b}. They fell \\autocites[3]{c}{d} again.\n');
      assert.equal(segments[0].query, 'Prices rose. They fell again.');
    });

    it('csquotes’ \\textcquote and \\foreignblockcquote keep their quotation, not their key or notes', async () => {
      const { segments } = await segmentLatex(
        'Braudel: \\textcquote[p.~214]{k}[.]{the sea was a plain of wheat} and \\foreignblockcquote{french}[see][12]{l}{la mer est une plaine} today.\n',
      );
      assert.equal(segments[0].query, 'Braudel: the sea was a plain of wheat and la mer est une plaine today.');
    });
  });

  it('a draft nested thousands deep is refused as unreadable, not half read', async () => {
    for (const src of ['{'.repeat(5000) + 'x' + '}'.repeat(5000), '\\begin{itemize} \\item x '.repeat(3000), '\\emph{'.repeat(3000) + 'x' + '}'.repeat(3000)]) {
      await assert.rejects(segmentLatex(src), (e: Error & { code?: string }) => e.code === 'unreadable' && /too deeply/.test(e.message));
    }
  });

  describe('citations in the project’s style', () => {
    it('biblatex \\autocite, natbib \\citep, plain \\cite, from the preamble (not from a comment)', () => {
      assert.equal(latexCitationTemplate(DRAFT), '\\autocite[p.~{page}]{{key}}');
      assert.equal(latexCitationTemplate(THESIS), '\\citep[p.~{page}]{{key}}');
      assert.equal(
        latexCitationTemplate('\\documentclass{article}\n% \\usepackage{biblatex}\n\\begin{document}\\usepackage{natbib}\\end{document}'),
        '\\cite[p.~{page}]{{key}}',
      );
    });

    it('a page or a range, and the page as the snippet’s tab stop', () => {
      const source = { citekey: 'whitfield2019grain', title: 'Licensed Abundance', authors: ['Whitfield, Margaret'], year: 2019, path: '/lib/grain.pdf' };
      const t = latexCitationTemplate(DRAFT);
      assert.equal(formatPassageCitation(source, { page: 2, pageLabel: '214' }, t), '\\autocite[p.~214]{whitfield2019grain}');
      assert.equal(formatPassageCitation(source, { page: 2, pageLabel: '214', endPage: 4 }, t), '\\autocite[pp.~214–216]{whitfield2019grain}');
      assert.equal(
        formatPassageCitation({ ...source, citekey: undefined, path: '/lib/grain_2019.pdf' }, { page: 2, pageLabel: '214' }, t),
        '\\href{file:///lib/grain_2019.pdf\\#page=2}{Whitfield 2019, p. 214}',
        'no key: a hyperref link to the PDF',
      );
      assert.equal(citationSnippet(source, { page: 2, pageLabel: '214' }, t), '\\\\autocite[p.~${1:214}]{whitfield2019grain\\}$0');
    });
  });

  describe('CLI', function () {
    this.timeout(300_000);
    const CLI = resolve('dist/cli.js');
    const cli = (args: string[], cwd?: string) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 280_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const root = mkdtempSync(join(tmpdir(), 'ss-latex-'));
    before(() => {
      if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' }).status, 0);
    });
    after(() => rmSync(root, { recursive: true, force: true }));

    it('segment chooses LaTeX by extension, or as --format says', () => {
      const byExtension = cli(['segment', 'test/fixtures/drafts/thesis.tex', '--json']);
      assert.equal(byExtension.code, 0, byExtension.stderr);
      const { segments } = JSON.parse(byExtension.stdout) as { segments: Segment[] };
      assert.equal(segments.length, 8);
      assertProse(segments);
      const txt = join(root, 'thesis.txt');
      writeFileSync(txt, THESIS);
      assert.deepEqual(JSON.parse(cli(['segment', txt, '--format', 'tex', '--json']).stdout).segments, segments);
      assert.notDeepEqual(JSON.parse(cli(['segment', txt, '--json']).stdout).segments, segments, 'read as Markdown without --format');
      const bad = cli(['segment', txt, '--format', 'docx']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--format must be one of md, qmd, rmd, tex/);
    });

    it('check reads a LaTeX draft (without a library: exit 2 with the hint, not a refusal of the format)', () => {
      const r = cli(['check', 'test/fixtures/drafts/thesis.tex', '--workspace', root]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--library/);
      assert.doesNotMatch(r.stderr, /not checked yet/);
    });

    it('analyze examples/draft.tex: cards cite in biblatex’s \\autocite[p.~…]{…}', () => {
      const ws = join(root, 'examples');
      cpSync(resolve('examples'), ws, { recursive: true, filter: (src) => !src.includes('.similar-sources') });
      const r = cli(['analyze', join(ws, 'draft.tex'), '--workspace', ws, '--provider', 'embedded', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout) as { segments: Array<{ recommendations: Array<{ citation: string }> }> };
      const citations = report.segments.flatMap((s) => s.recommendations.map((c) => c.citation));
      assert.ok(citations.length > 10, `${citations.length} cards`);
      const keyed = citations.filter((c) => !c.startsWith('\\href'));
      for (const c of citations) assert.ok(!c.startsWith('['), `no Markdown link in a LaTeX draft: ${c}`);
      assert.ok(keyed.length > 5);
      for (const c of keyed) assert.match(c, /^\\autocite\[pp?\.~[^\]]+\]\{[\w:-]+\}$/);
      assert.ok(keyed.includes('\\autocite[p.~214]{whitfield2019grain}') || keyed.some((c) => c.endsWith('{whitfield2019grain}')));
    });
  });
});
