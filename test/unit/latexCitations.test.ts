import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findLatexCitations } from '../../src/core/latex/citations';
import { latexBibliographies, readLatexProject } from '../../src/core/latex/project';
import { findCitations } from '../../src/core/citecheck/draftCitations';
import { citedElsewhere, latexDraftCitations, latexDraftSections, sectionName } from '../../src/shared/citedIn';
import { draftBibliographies } from '../../src/engine/library';

const DIR = resolve('test/fixtures/latex-thesis');
const MAIN = join(DIR, 'main.tex');
const read = (f: string) => readFileSync(join(DIR, f), 'utf8');

/** The citations of a snippet, as [key, locator, quote]. */
function cites(body: string): Array<[string, string | null, string | null]> {
  return findLatexCitations(body).map((c) => [c.key, c.locator?.text ?? null, c.quote]);
}

describe('LaTeX citations (core/latex/citations)', () => {
  it('a quotation in a quotation’s citation argument: its citations projected once, where the quotation closes (never the draft walked again)', () => {
    const doc = (body: string) => `\\begin{document}\n${body}\n\\end{document}\n`;
    const nested = findLatexCitations(doc('\\textquote[\\textquote[\\cite[1]{b}]{x}]{y} '.repeat(2_000)));
    assert.equal(nested.length, 2_000);
    assert.ok(nested.every((c) => c.key === 'b' && c.locator?.from === '1'));
    // Left open, and closed by the draft's braces far after: each once (this shape once made 18 MB of text from 218 KB).
    const open = findLatexCitations(doc('\\textquote[\\textquote[\\cite{b}]{'.repeat(300) + '}'.repeat(600)));
    assert.equal(new Set(open.map((c) => c.keyStart)).size, open.length);
    assert.equal(open.length, 300);
  });

  it('reads every command, its notes and keys, with the key’s line and columns', () => {
    const src = 'A \\cite[12]{a,b} B.\n\\Textcite*[see][xii]{c} and \\citep[p.~3]{d}\n\\autocites(cf.)()[3]{e}[see][14--16]{f}.';
    const found = findLatexCitations(src);
    assert.deepEqual(
      found.map((c) => [c.key, c.command, c.line, c.column, c.endColumn, c.locator?.text ?? null, c.prenote ?? null, c.postnote ?? null]),
      [
        ['a', 'cite', 1, 13, 14, null, null, '12'],
        ['b', 'cite', 1, 15, 16, '12', null, '12'],
        ['c', 'Textcite', 2, 22, 23, 'xii', 'see', 'xii'],
        ['d', 'citep', 2, 42, 43, 'p. 3', null, 'p.~3'],
        ['e', 'autocites', 3, 22, 23, '3', null, '3'],
        ['f', 'autocites', 3, 38, 39, '14–16', 'see', '14--16'],
      ],
    );
    // Offsets an editor can use: the key and the whole command.
    for (const c of found) assert.equal(src.slice(c.keyStart, c.keyEnd), c.key);
    assert.equal(src.slice(found[0].start, found[0].end), '\\cite[12]{a,b}');
    assert.deepEqual([found[5].locator?.from, found[5].locator?.to], ['14', '16']);
  });

  it('reads the locator of a post-note as Markdown’s: p.~12, pp.~12--14, 12, xii, chap.~3', () => {
    assert.deepEqual(
      cites('\\cite[p.~12]{a} \\cite[pp.~212--14]{b} \\cite[12]{c} \\cite[xii]{d} \\cite[chap.~3]{e} \\cite[12\\psq]{f} \\cite{g}').map((c) => c[1]),
      ['p. 12', 'pp. 212–14', '12', 'xii', 'chap. 3', '12 f.', null],
    );
    assert.deepEqual(findLatexCitations('\\cite[pp.~212--14]{b}')[0].locator, { text: 'pp. 212–14', from: '212', to: '214' });
  });

  it('finds the quotation each citation backs, in every way LaTeX quotes', () => {
    const src = [
      "``the sea was a plain of wheat'' \\autocite[p.~3]{a}.",
      '',
      'As \\textcite[12]{b} says, \\enquote{licences were sold by the \\emph{dozen}}.',
      '',
      '\\textquote[{\\cite[45]{c}}]{the price of rye~doubled within a year}.',
      '',
      '\\blockquote[\\cite[7]{d}]{grain was the measure of all wealth}',
      '',
      '« les prix du blé montaient sans cesse » \\parencite[p.~7]{e}, \\og le pain manquait partout \\fg{} \\cite[8]{f}.',
      '',
      "The years 1590--1600 were ``hard for the poor of the towns''.\\footcite[9]{g} A sentence \\cite{h}.",
      '',
      "\\enquote{Les r\\'ecoltes \\c{c}a et l\\`a manqu\\`erent} \\cite[2]{i}",
      '',
      'He wrote "the years 1590--1600 were hard~--- very hard" \\citep[p.~12]{j}.',
      '',
      'Braudel: \\textcquote[p.~214]{k}[.]{the sea was a plain of wheat} and \\foreignblockcquote{french}[see][12]{l}{la mer est une plaine}',
    ].join('\n');
    assert.deepEqual(cites(src), [
      ['a', 'p. 3', 'the sea was a plain of wheat'],
      ['b', '12', 'licences were sold by the dozen'],
      ['c', '45', 'the price of rye doubled within a year'],
      ['d', '7', 'grain was the measure of all wealth'],
      ['e', 'p. 7', 'les prix du blé montaient sans cesse'],
      ['f', '8', 'le pain manquait partout'],
      ['g', '9', 'hard for the poor of the towns'],
      ['h', null, null],
      ['i', '2', 'Les récoltes ça et là manquèrent'],
      ['j', 'p. 12', 'the years 1590–1600 were hard — very hard'],
      ['k', 'p. 214', 'the sea was a plain of wheat'],
      ['l', '12', 'la mer est une plaine'],
    ]);
    const c = findLatexCitations(src)[0];
    assert.deepEqual(c.quoteRange, { line: 1, column: 3, endLine: 1, endColumn: 31 });
  });

  it('quotation environments: the text of quote and displayquote[cite] backs its citation', () => {
    const src =
      '\\begin{quote}\nThe viceroy must choose between a full treasury\nand cheap loaves \\autocite[p.~214]{w}\n\\end{quote}\n\n\\begin{displayquote}[{\\cite[88]{b}}][.]\nNo statute could protect a community.\n\\end{displayquote}\n';
    const found = findLatexCitations(src);
    assert.deepEqual(
      found.map((c) => [c.key, c.quote, c.blockQuote ?? false, c.quoteRange?.line]),
      [
        ['w', 'The viceroy must choose between a full treasury and cheap loaves', true, 2],
        ['b', 'No statute could protect a community.', true, 7],
      ],
    );
  });

  it('ignores comments, verbatim, math, the preamble, \\nocite and thebibliography; a citation in a footnote counts', () => {
    const src = [
      '\\usepackage{biblatex} \\cite{preamble}',
      '\\begin{document}',
      'Text 100\\% \\cite{a} % \\cite{comment}',
      '\\verb|\\cite{verb}| $x = \\cite{math}$ \\[ \\cite{display} \\] \\nocite{silent}',
      '\\begin{verbatim}\n\\cite{verbatim}\n\\end{verbatim}',
      '\\begin{align}\\cite{align}\\end{align}',
      'A note.\\footnote{See \\cite[see][p.~4]{b}.}',
      '\\begin{thebibliography}{9}\\bibitem{x} \\cite{bib}\\end{thebibliography}',
      '\\end{document}',
      '\\cite{after}',
    ].join('\n');
    assert.deepEqual(cites(src), [
      ['a', null, null],
      ['b', 'p. 4', null],
    ]);
  });

  it('is the Markdown reader’s verdict for the same text written in Pandoc', () => {
    const md = 'Venice “consumed tens of thousands of tonnes of wheat a year” [@w, p. 213]. Then “the permit was the scarce good”.^[@w, p. 214]';
    const tex =
      "Venice ``consumed tens of thousands of tonnes of wheat a year'' \\autocite[p.~213]{w}. Then ``the permit was the scarce good''.\\footcite[p.~214]{w}";
    const strip = (c: { key: string; locator: unknown; quote: string | null; context?: string }) => [c.key, c.locator, c.quote, c.context ?? ''];
    assert.deepEqual(findLatexCitations(tex).map(strip), findCitations(md).map(strip));
  });

  it('keeps a key the Markdown reader would not take for one, and a BOM or CRLF draft keeps its columns', () => {
    assert.deepEqual(cites('Cross \\cite[12]{sec-2019}.'), [['sec-2019', '12', null]]);
    const crlf = findLatexCitations('\ufeffA line.\r\n\r\nSee \\cite[3]{k}.\r\n');
    assert.deepEqual([crlf[0].line, crlf[0].column], [3, 14]);
  });

  it('the thesis fixture: each file’s citations with their quotations', () => {
    const grain = findLatexCitations(read('chapters/grain.tex'), { file: 'chapters/grain.tex' });
    assert.ok(grain.every((c) => c.file === 'chapters/grain.tex'));
    assert.deepEqual(
      grain.map((c) => [c.line, c.key, c.locator?.text ?? null, c.quote]),
      [
        [5, 'whitfield2019grain', 'p. 214', 'no grain could leave a port without a tratta'],
        [6, 'whitfield2019grain', 'p. 214', 'came close to breaking in the last decade of the sixteenth century'],
        [7, 'whitfield2019grain', '213', 'consumed tens of thousands of tonnes of barley a year'],
        [8, 'whitfield2019grain', 'p. 215', 'was loaded on camels and carried across the Sahara to Timbuktu'],
        [9, 'whitfeld2019grain', null, null],
        [9, 'whitfield2019grain', 'p. 999', null],
        [14, 'whitfield2019grain', '214', 'read like weather reports'],
        [15, 'whitfield2019grain', '214', null],
        [19, 'whitfield2019grain', 'p. 214', 'It is no exaggeration to say that the licence functioned as the true currency of the trade'],
      ],
    );
    const hanse = findLatexCitations(read('chapters/hanse.tex'));
    assert.deepEqual(
      hanse.map((c) => [c.key, c.quote]),
      [
        ['bruckner2017kontore', 'small merchant republics planted on foreign soil'],
        ['bruckner2017kontore', 'No statute, however carefully drafted, could protect a community whose host decided it was no longer welcome.'],
        ['bruckner2017kontore', 'de petites républiques marchandes sur un sol étranger'],
        ['extra2020notes', null],
      ],
    );
  });
});

describe('LaTeX projects: \\input, "cited in", bibliographies', () => {
  it('follows \\include and \\input from the main file’s folder, refusing a missing file, one outside the workspace and a cycle', () => {
    const p = readLatexProject(MAIN, read('main.tex'), DIR);
    assert.deepEqual(
      p.files.map((f) => f.name),
      ['main.tex', 'chapters/grain.tex', 'chapters/hanse.tex', 'chapters/loop.tex'],
    );
    assert.equal(p.warnings.length, 3, p.warnings.join('\n'));
    assert.match(p.warnings[0], /^\\input\{chapters\/missing\} in main\.tex: chapters\/missing\.tex does not exist$/);
    assert.match(p.warnings[1], /^\\input\{\.\.\/outside\} in main\.tex: .*outside\.tex is outside the workspace, not read$/);
    assert.match(
      p.warnings[2],
      /^\\input\{chapters\/loop\} in chapters\/loop\.tex: chapters\/loop\.tex includes itself \(main\.tex → chapters\/loop\.tex → chapters\/loop\.tex\)/,
    );
    // The text in reading order: main up to \include, the chapter, main again…
    assert.deepEqual(
      p.parts.map((x) => x.file ?? '(main)'),
      ['(main)', 'chapters/grain.tex', '(main)', 'chapters/hanse.tex', '(main)', 'chapters/loop.tex', '(main)'],
    );
  });

  it("an editor's unsaved buffers are read in place of the files, which still pass the workspace's rule", () => {
    const root = mkdtempSync(join(tmpdir(), 'ss-texbuf-'));
    try {
      const ws = join(root, 'ws');
      mkdirSync(ws);
      mkdirSync(join(root, 'out'));
      writeFileSync(join(root, 'out', 'secret.tex'), 'SECRET');
      writeFileSync(join(ws, 'two.tex'), 'on disk');
      symlinkSync(join(root, 'out', 'secret.tex'), join(ws, 'leak.tex'));
      const buffers: Record<string, string> = {
        [join(ws, 'two.tex')]: 'in the editor',
        [join(ws, 'new.tex')]: 'never saved',
        [join(ws, 'leak.tex')]: 'a buffer of the link',
      };
      const p = readLatexProject(join(ws, 'main.tex'), '\\input{two}\\input{new}\\input{leak}\\input{gone}', ws, (f) => buffers[f]);
      assert.deepEqual(
        p.files.map((f) => [f.name, f.text]),
        [
          ['main.tex', '\\input{two}\\input{new}\\input{leak}\\input{gone}'],
          ['two.tex', 'in the editor'],
          ['new.tex', 'never saved'],
        ],
      );
      assert.deepEqual(p.warnings, [
        '\\input{leak} in main.tex: leak.tex is a link to a file outside the workspace, not read; a LaTeX draft may not name a file elsewhere',
        '\\input{gone} in main.tex: gone.tex does not exist',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a cycle through two files and an include of an include are read once each', () => {
    const ws = mkdtempSync(join(tmpdir(), 'ss-texproj-'));
    try {
      writeFileSync(join(ws, 'main.tex'), '\\input{a}\n');
      writeFileSync(join(ws, 'a.tex'), '\\section{A}\\cite{x}\\input{b.tex}');
      writeFileSync(join(ws, 'b.tex'), '\\section{B}\\cite{y}\\input{a}');
      const p = readLatexProject(join(ws, 'main.tex'), '\\input{a}\n', ws);
      assert.deepEqual(
        p.files.map((f) => f.name),
        ['main.tex', 'a.tex', 'b.tex'],
      );
      assert.deepEqual(p.warnings, ['\\input{a} in b.tex: a.tex includes itself (main.tex → a.tex → b.tex → a.tex), not read again']);
      assert.deepEqual(
        latexDraftCitations(p.parts).map((c) => [c.key, c.file, sectionName(c.section)]),
        [
          ['x', 'a.tex', '§ 1'],
          ['y', 'b.tex', '§ 2'],
        ],
      );
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it('"cited in § n" across the files: chapters numbered in reading order, the preface unnumbered, the appendix lettered', () => {
    const p = readLatexProject(MAIN, read('main.tex'), DIR);
    assert.deepEqual(
      latexDraftSections(p.parts).map((s) => [s.number, s.heading, s.file ?? '']),
      [
        ['', 'Preface', ''],
        ['§ 1', 'Licences and the price of bread', 'chapters/grain.tex'],
        ['§ 1.1', 'The tratta', 'chapters/grain.tex'],
        ['§ 1.2', 'Licences as currency', 'chapters/grain.tex'],
        ['§ 2', 'Houses of strangers', 'chapters/hanse.tex'],
        ['§ 2.1', 'Novgorod', 'chapters/hanse.tex'],
        ['§ A', 'Sources', 'chapters/loop.tex'],
      ],
    );
    const citing = latexDraftCitations(p.parts);
    assert.equal(citing.filter((c) => c.key === 'whitfield2019grain').length, 10);
    // A paragraph of the grain chapter (lines 12–14, 0-based) sees the other places that cite its sources, not itself.
    const elsewhere = citedElsewhere(citing, 12, 14, 'chapters/grain.tex');
    assert.deepEqual(elsewhere.get('whitfield2019grain')?.map(sectionName), ['Preface', '§ 1.1', '§ 1.2', '§ A']);
    assert.deepEqual(elsewhere.get('bruckner2017kontore')?.map(sectionName), ['§ 2.1', '§ A']);
    // The same lines of another file are not that paragraph.
    assert.equal(citedElsewhere(citing, 12, 14, 'chapters/hanse.tex').get('extra2020notes'), undefined);
    assert.deepEqual(citedElsewhere(citing, 0, 1000).get('extra2020notes')?.map(sectionName), ['§ 2.1']);
  });

  it('a single file: sections of an article, starred ones unnumbered; \\nocite is no citation', () => {
    const src = '\\section{Intro}\n\\cite{a}\n\\section*{Aside}\n\\subsection{Deep}\\nocite{z}\n\\section{Two}\n\\autocites{b}{c}';
    assert.deepEqual(
      latexDraftSections(src).map((s) => s.number),
      ['§ 1', '', '§ 1.1', '§ 2'],
    );
    assert.deepEqual(
      latexDraftCitations(src).map((c) => [c.key, c.line, sectionName(c.section)]),
      [
        ['a', 1, '§ 1'],
        ['b', 5, '§ 2'],
        ['c', 5, '§ 2'],
      ],
    );
  });

  it('the bibliographies of \\addbibresource and \\bibliography, against the draft’s folder, unless the settings name one', () => {
    assert.deepEqual(latexBibliographies(read('main.tex'), MAIN), [join(DIR, 'refs.bib'), resolve(DIR, '../library/library.bib')]);
    const bibtex = '\\bibliography{refs, more/other.bib} % \\bibliography{commented}\n\\addbibresource[location=remote]{https://example.org/x.bib}';
    assert.deepEqual(latexBibliographies(bibtex, '/w/thesis/main.tex'), [resolve('/w/thesis/refs.bib'), resolve('/w/thesis/more/other.bib')]);
    assert.deepEqual(draftBibliographies({ bibliography: '/w/lib.bib' }, bibtex, '/w/thesis/main.tex'), ['/w/lib.bib']);
    assert.deepEqual(draftBibliographies({}, bibtex, '/w/thesis/main.tex').length, 2);
    // A Markdown draft's front matter, as before.
    assert.deepEqual(draftBibliographies({}, '---\nbibliography: refs.bib\n---\n', '/w/a.qmd'), [resolve('/w/refs.bib')]);
  });
});
