import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findCitations } from '../../src/core/citecheck/draftCitations';
import { draftFrontMatter, pandocAsMarkdown } from '../../src/core/markdown/pandoc';
import { citedKeys } from '../../src/core/markdown/plainText';
import { segmentMarkdown, type Segment } from '../../src/core/markdown/segment';
import { draftBibliography } from '../../src/engine/library';
import { draftCitations, draftSections } from '../../src/shared/citedIn';
import { citekeyAt } from '../../src/shared/citekeyCompletion';
import { isCrossReference } from '../../src/shared/crossref';
import { allDraftLanguageIds, DRAFT_LANGUAGES, draftFormatOf, draftLanguageIds, LATEX_LANGUAGES } from '../../src/shared/draftLanguages';

const fixture = (name: string) => readFileSync(resolve('test/fixtures/drafts', name), 'utf8');
const QMD = fixture('chapter.qmd');
const RMD = fixture('paper.Rmd');

/** What no query (what is searched) may hold: code of a chunk, a chunk option, raw HTML, Pandoc marks, inline R. */
const NOT_PROSE = [/library\(/, /#\|/, /import pandas/, /<div/, /:::/, /\{\{</, /\{[#.]/, /nrow\(/, /\\@ref/, /knitr/, /%>%/];
/**
 * Nor the text shown of a segment, of what lies outside its prose: chunks, chunk options, raw blocks,
 * div fences. Within its lines the text is what the author wrote, inline R and shortcodes included
 * (segment.ts: the draft is blanked for the parser and the queries only).
 */
const NOT_IN_TEXT = [/library\(/, /#\|/, /import pandas/, /<div/, /^:::/m, /knitr/];
/** Nor may a query (what is searched) hold a cross-reference; the text shown keeps the author's words. */
const CROSS_REFERENCE = /@(fig|sec|tbl)-/;

function assertProseOnly(segments: Segment[]) {
  for (const s of segments) {
    assert.doesNotMatch(s.query, CROSS_REFERENCE, `query of L${s.startLine}: ${s.query}`);
    assert.ok(s.query.trim(), `L${s.startLine} has words`);
    for (const re of NOT_PROSE) assert.doesNotMatch(s.query, re, `query of L${s.startLine}: ${s.query}`);
    for (const re of NOT_IN_TEXT) assert.doesNotMatch(s.text, re, `text of L${s.startLine}: ${s.text}`);
  }
}

describe('Quarto and R Markdown drafts', () => {
  describe('pandocAsMarkdown', () => {
    it('blanks fenced div marks, shortcodes, inline chunks, raw inline content and attributes, keeping every offset', () => {
      const src = [
        '::: {.callout-note}',
        'Prose in a callout, with `r nrow(df)` rows and `{python} len(x)` items {{< kbd Ctrl-C >}}.',
        '::::',
        '![A map](map.png){#fig-map width=80%} and [small caps]{.smallcaps} and `<b>`{=html}.',
        '## Prices {#sec-prices}',
        '# Appendix {-}',
        ': The ledger {#tbl-ledger}',
        'Table: Prices by year',
        ': a definition, left alone',
        'Figure \\@ref(fig:deaths) shows it.',
        '',
      ].join('\r\n');
      const out = pandocAsMarkdown(src);
      assert.equal(out.length, src.length);
      assert.deepEqual(
        out.split('\r\n').map((l) => l.replace(/ +/g, ' ').trimEnd()),
        [
          '',
          'Prose in a callout, with rows and items .',
          '',
          '![A map](map.png) and [small caps] and .',
          '## Prices',
          '# Appendix',
          ' The ledger',
          ' Prices by year',
          ': a definition, left alone',
          'Figure shows it.',
          '',
        ],
      );
    });

    it('leaves executable chunks, raw blocks, front matter and plain Markdown as they are', () => {
      const chunk = '---\ntitle: "{.x} `r 1`"\n---\n\n```{r}\n#| label: fig-x\n`r 1` {{< x >}}\n:::\n```\n\n```{=html}\n<b>{{< y >}}</b>\n```\n';
      assert.equal(pandocAsMarkdown(chunk), chunk);
      const plain = '# Title\n\nA paragraph with `code`, a [link](https://example.org) and {braces}.\n';
      assert.equal(pandocAsMarkdown(plain), plain);
    });

    it('stays linear on a hostile line (an unclosed shortcode, thousands of attribute-like braces)', () => {
      const line = '{{< '.repeat(20_000) + ']{.x'.repeat(20_000) + ' {#a'.repeat(20_000);
      const out = pandocAsMarkdown(line);
      assert.equal(out.length, line.length);
    });
  });

  describe('segmentation', () => {
    it('a .qmd: prose of callouts and figure divs segmented; chunks, raw blocks, shortcodes and cross-references are not', async () => {
      const { title, segments } = await segmentMarkdown(QMD);
      assert.equal(title, 'Bread and the Public Authority');
      assertProseOnly(segments);
      const queries = segments.map((s) => s.query);
      assert.ok(
        queries.includes('The price series comes from the municipal accounts, which record what the city paid, not what the bakers charged.'),
        'the callout’s prose is a segment',
      );
      assert.ok(queries.includes('The grain routes of the western Mediterranean around 1590.'), 'the figure div’s caption is a segment');
      assert.ok(queries.includes('The municipal ledger'), 'a table caption is read without its mark and id');
      const permits = segments.find((s) => s.query.startsWith('The Sicilian crown'));
      assert.deepEqual(permits?.headingPath, ['Prices and permits'], 'a heading is read without its {#sec-…} id');
      assert.equal(permits?.startLine, 15, 'lines are the draft’s');
      for (const s of segments) assert.ok(s.startLine < 17 || s.startLine > 22 || !s.searchable, 'no segment inside the R chunk (lines 17–23)');
    });

    it('a .Rmd: setup and figure chunks, inline R and bookdown references are not prose', async () => {
      const { title, segments } = await segmentMarkdown(RMD);
      assert.equal(title, 'Famine and Markets in the 1690s');
      assertProseOnly(segments);
      assert.deepEqual(
        segments.map((s) => s.startLine),
        [16, 22],
      );
    });

    it('sentence granularity reads the same prose', async () => {
      const { segments } = await segmentMarkdown(QMD, 'sentence');
      assertProseOnly(segments);
      assert.ok(segments.some((s) => s.query === 'As shows, the price of bread in Palermo followed the permits rather than the harvest.'));
    });
  });

  it('a segment’s text is what the author wrote on its lines, inline R included; only the query is blanked (found by the segment fuzzer, seed 1020251113)', async () => {
    const draft = '_a_ `r é` <span>x</span>\n\n*A*\n\n';
    for (const granularity of ['paragraph', 'sentence', 'section'] as const) {
      const { segments } = await segmentMarkdown(draft, granularity, { minWords: 1 });
      const first = segments.find((x) => x.startLine === 1)!;
      const written = granularity === 'section' ? draft.trimEnd() : '_a_ `r é` <span>x</span>';
      assert.equal(first.text, written, granularity);
      assert.doesNotMatch(first.query, /é/, granularity);
    }
  });

  describe('cross-references are not citations', () => {
    it('Quarto’s reserved prefixes, and nothing else', () => {
      for (const k of ['fig-prices', 'sec-permits', 'tbl-ledger', 'eq-1', 'thm-main', 'lst-code']) assert.ok(isCrossReference(k), k);
      for (const k of ['whitfield2019grain', 'figueroa2001', 'section-x', 'secret2020', 'fig']) assert.ok(!isCrossReference(k), k);
    });

    it('not in "cited in", the citation check, the cited keys, nor completion', () => {
      assert.deepEqual(
        draftCitations(QMD).map((c) => c.key),
        ['whitfield2019grain', 'braudel1949'],
      );
      assert.deepEqual(
        findCitations(QMD).map((c) => [c.key, c.locator?.text]),
        [
          ['whitfield2019grain', 'p. 214'],
          ['braudel1949', '312'],
        ],
      );
      assert.deepEqual(
        draftSections(QMD).map((s) => s.heading),
        ['Prices and permits', 'A note on sources'],
        'headings without their {#sec-…} ids',
      );
      assert.deepEqual([...citedKeys('As @fig-map shows [@a; @sec-x]; see @b.')], ['a', 'b']);
      assert.equal(citekeyAt('see [@fig-ma', 12), undefined);
      assert.equal(citekeyAt('see [@fi', 8)?.prefix, 'fi', 'a key is completed until it is one');
    });
  });

  describe('front matter', () => {
    it('reads title, bibliography (one, a list in brackets, or - lines) and csl', () => {
      assert.deepEqual(draftFrontMatter(QMD), { title: 'Bread and the Public Authority', bibliography: ['references.bib'], csl: 'chicago-author-date.csl' });
      assert.deepEqual(draftFrontMatter(RMD), { title: 'Famine and Markets in the 1690s', bibliography: ['famine.bib', 'climate.bib'] });
      assert.deepEqual(draftFrontMatter('---\nbibliography: [a.bib, "b c.bib"] # two\n---\n').bibliography, ['a.bib', 'b c.bib']);
      assert.deepEqual(draftFrontMatter('No front matter.\nbibliography: x.bib\n'), { bibliography: [] });
      assert.deepEqual(draftFrontMatter('---\nparams:\n  bibliography: nested.bib\n---\n'), { bibliography: [] }, 'top-level keys only');
    });

    it('the draft’s bibliography is used when the settings name none, relative to the draft', () => {
      const draft = join('/ws', 'chapters', 'one.qmd');
      assert.equal(draftBibliography({ bibliography: undefined }, QMD, draft), resolve('/ws/chapters/references.bib'));
      assert.equal(draftBibliography({ bibliography: '/lib/export.bib' }, QMD, draft), '/lib/export.bib');
      assert.equal(draftBibliography({ bibliography: undefined }, '# No front matter\n', draft), undefined);
    });
  });

  it('draft languages: markdown, quarto, rmd, then the user’s extra ids, each once', () => {
    assert.deepEqual([...DRAFT_LANGUAGES], ['markdown', 'quarto', 'rmd']);
    assert.deepEqual(draftLanguageIds([' pandoc ', 'quarto', '', 'pandoc']), ['markdown', 'quarto', 'rmd', 'pandoc']);
  });

  it('draft formats: LaTeX is never read as Markdown, even when the user lists it among the Markdown ids', () => {
    assert.deepEqual(allDraftLanguageIds(['pandoc', 'latex']), ['markdown', 'quarto', 'rmd', 'pandoc', 'latex']);
    assert.deepEqual(draftLanguageIds(['latex']), ['markdown', 'quarto', 'rmd']);
    assert.equal(draftFormatOf('latex', ['latex']), 'latex');
    assert.equal(draftFormatOf('quarto', []), 'markdown');
    assert.equal(draftFormatOf('pandoc', ['pandoc']), 'markdown');
    assert.equal(draftFormatOf('pandoc', []), undefined);
    assert.equal(draftFormatOf('bibtex', []), undefined);
  });

  it('package.json: activation, menus and languages name the same draft languages', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    for (const id of [...DRAFT_LANGUAGES, ...LATEX_LANGUAGES]) {
      assert.ok(pkg.activationEvents.includes(`onLanguage:${id}`), id);
      for (const m of [...pkg.contributes.menus['editor/title'], ...pkg.contributes.menus.commandPalette, ...pkg.contributes.keybindings].filter(
        (x: { command: string }) => x.command === 'similarSources.findSimilarSources',
      )) {
        assert.match(m.when, new RegExp(`editorLangId == ${id}\\b`));
        assert.match(m.when, /editorLangId in similarSources\.draftLanguages/);
      }
    }
    assert.deepEqual(
      pkg.contributes.languages.map((l: { id: string; extensions: string[] }) => [l.id, l.extensions]),
      [
        ['quarto', ['.qmd']],
        ['rmd', ['.Rmd', '.rmd']],
      ],
    );
  });

  describe('CLI', function () {
    this.timeout(120_000);
    const CLI = resolve('dist/cli.js');
    const cli = (args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    before(() => {
      if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' }).status, 0);
    });

    for (const draft of ['test/fixtures/drafts/chapter.qmd', 'test/fixtures/drafts/paper.Rmd', 'examples/draft.qmd']) {
      it(`segment ${draft} --json: no segment made of code or a cross-reference`, () => {
        const r = cli(['segment', draft, '--json']);
        assert.equal(r.code, 0, r.stderr);
        const { segments } = JSON.parse(r.stdout) as { segments: Segment[] };
        assert.ok(segments.length >= 2);
        assertProseOnly(segments);
      });
    }
  });
});
