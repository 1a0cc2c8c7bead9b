import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { citedElsewhere, latexDraftCitations, latexDraftSections as latexSections, sectionName } from '../../src/shared/citedIn';
import { latexParagraphAround } from '../../src/shared/citekeyCompletion';
import { formatLatexCitation, mergeLatexCitation } from '../../src/shared/latexCiteFormat';
import { isLatexCitationText } from '../../src/shared/latexEdits';
import { draftCitationTemplate, LATEX_CITATION_TEMPLATES, latexCitationStyle } from '../../src/shared/latexStyle';
import { latexCitationTemplate } from '../../src/core/latex/segment';

const tex = [
  '\\documentclass{article}', // 0
  '\\usepackage[style=authoryear]{biblatex} % \\cite{preamblecomment}', // 1
  '\\begin{document}', // 2
  '\\section*{Preface}', // 3
  'Opening \\autocite[p.~3]{a}. % \\cite{commented}', // 4
  '\\section{Grain}', // 5
  'Ships \\parencite[see][12]{b, a} and \\textcite{c}.', // 6
  '\\begin{verbatim}', // 7
  '\\cite{verbatimkey}', // 8
  '\\end{verbatim}', // 9
  '\\subsection[Short]{Permits and \\emph{licences}}', // 10
  'Sold \\autocites(see)()[14]{d}[16]{a}, \\nocite{silent}', // 11
  '\\section{Weather}', // 12
  'Cold \\citep[p.~5]{e} and 50\\% \\cite', // 13
  '{f}.', // 14
  '\\end{document}', // 15
].join('\n');

describe('LaTeX drafts in the editor', () => {
  describe('citation style (shared/latexStyle.ts)', () => {
    const doc = (pre: string) => `\\documentclass{article}\n${pre}\n\\begin{document}\nText.\n\\end{document}`;

    it('the setting wins over the preamble; auto reads the preamble', () => {
      const natbib = doc('\\usepackage[round]{natbib}');
      assert.equal(latexCitationStyle('biblatex', natbib), 'biblatex');
      assert.equal(latexCitationStyle('plain', natbib), 'plain');
      assert.equal(latexCitationStyle('auto', natbib), 'natbib');
      assert.equal(latexCitationStyle('nonsense', natbib), 'natbib');
      assert.equal(latexCitationStyle('auto', doc('\\usepackage[backend=biber]{biblatex}')), 'biblatex');
      assert.equal(latexCitationStyle('auto', doc('% \\usepackage{biblatex}')), 'plain');
    });

    it("a LaTeX draft's template: its style's, the user's own LaTeX template, never the Pandoc one", () => {
      const pandoc = { citationTemplate: '[@{key}, p. {page}]', latexCitationStyle: 'auto' };
      const biblatex = doc('\\usepackage{biblatex}');
      assert.equal(draftCitationTemplate('markdown', pandoc, biblatex), '[@{key}, p. {page}]');
      assert.equal(draftCitationTemplate('latex', pandoc, biblatex), '\\autocite[p.~{page}]{{key}}');
      assert.equal(draftCitationTemplate('latex', { ...pandoc, latexCitationStyle: 'natbib' }, biblatex), '\\citep[p.~{page}]{{key}}');
      assert.equal(draftCitationTemplate('latex', { ...pandoc, citationTemplate: '\\footcite[{page}]{{key}}' }, biblatex), '\\footcite[{page}]{{key}}');
    });

    it("the cards' template is the CLI's for the same preamble", () => {
      const pandoc = { citationTemplate: '[@{key}, p. {page}]', latexCitationStyle: 'auto' };
      for (const pre of ['\\usepackage{biblatex}', '\\usepackage{natbib}', ''])
        assert.equal(draftCitationTemplate('latex', pandoc, doc(pre)), latexCitationTemplate(doc(pre)));
      assert.deepEqual(Object.keys(LATEX_CITATION_TEMPLATES), ['biblatex', 'natbib', 'plain']);
    });
  });

  describe('"cited in § n" as the editor reads it (shared/citedIn.ts)', () => {
    it('numbers sections as LaTeX does: starred ones unnumbered, optional titles skipped, commands taken out of headings', () => {
      assert.deepEqual(
        latexSections(tex).map((s) => [s.number, s.heading, s.line]),
        [
          ['', 'Preface', 3],
          ['§ 1', 'Grain', 5],
          ['§ 1.1', 'Permits and licences', 10],
          ['§ 2', 'Weather', 12],
        ],
      );
    });

    it('numbers from chapters when the draft has them', () => {
      const book = '\\chapter{One}\n\\section{A}\n\\chapter{Two}\n\\section{B}\n\\section{C}';
      assert.deepEqual(
        latexSections(book).map((s) => s.number),
        ['§ 1', '§ 1.1', '§ 2', '§ 2.1', '§ 2.2'],
      );
    });

    it('finds every key of every cite command, multi-cites and a key list over two lines included, by section', () => {
      const cited = latexDraftCitations(tex).map((c) => [c.key, c.line, sectionName(c.section)]);
      assert.deepEqual(cited, [
        ['a', 4, 'Preface'],
        ['b', 6, '§ 1'],
        ['a', 6, '§ 1'],
        ['c', 6, '§ 1'],
        ['d', 11, '§ 1.1'],
        ['a', 11, '§ 1.1'],
        ['e', 13, '§ 2'],
        ['f', 13, '§ 2'], // the line of its command
      ]);
      const elsewhere = citedElsewhere(latexDraftCitations(tex), 6, 6);
      assert.deepEqual(elsewhere.get('a')?.map(sectionName), ['Preface', '§ 1.1']);
      assert.equal(elsewhere.get('silent'), undefined, '\\nocite prints no citation');
    });

    it('reads the example draft: Whitfield is cited in § 2 only', () => {
      const draft = readFileSync(resolve('examples/draft.tex'), 'utf8');
      const cited = latexDraftCitations(draft);
      assert.ok(cited.length >= 1);
      assert.deepEqual([...new Set(cited.filter((c) => c.key === 'whitfield2019grain').map((c) => sectionName(c.section)))], ['§ 2']);
    });
  });

  describe('completion query (latexParagraphAround)', () => {
    it('is the paragraph as written: cite commands, comments, labels and command names out, emphasised words kept', () => {
      const lines = [
        'Before.',
        '',
        'The \\emph{permit}, not the wheat, % a note to self',
        'was scarce \\autocite[p.~214]{whitfield2019grain}\\label{x} in 50\\% of ports~\\cite{',
        '',
        'After.',
      ];
      assert.equal(latexParagraphAround(lines, 3), 'The permit , not the wheat, was scarce in 50% of ports');
      assert.equal(latexParagraphAround(lines, 0), 'Before.');
      assert.equal(latexParagraphAround(lines, 9), '');
    });
  });

  describe('edits that only write a citation keep the results (isLatexCitationText)', () => {
    it('what Insert citation writes, in every style, and what a merge writes', () => {
      for (const style of ['biblatex', 'natbib', 'plain'] as const) {
        assert.ok(isLatexCitationText(' ' + formatLatexCitation(style, 'whitfield2019grain', '214–216', { snippet: false })), style);
        for (const existing of ['\\autocite{a}', '\\autocite[p.~3]{a}', '\\citep[p.~3]{a}', '\\cite{a}']) {
          const merged = mergeLatexCitation(existing, 'b', style === 'plain' && existing === '\\cite{a}' ? undefined : '214', style, { snippet: false });
          if (merged) assert.ok(isLatexCitationText(merged.text), `${style} ${existing} → ${merged.text}`);
        }
      }
      assert.ok(isLatexCitationText(',b'));
      assert.ok(isLatexCitationText('[214]{b}'));
      assert.ok(isLatexCitationText('\\href{file:///x.pdf\\#page=3}{Whitfield 2019, p. 3}'));
    });

    it('prose, or prose beside a citation, is an edit of the text', () => {
      for (const t of ['permits', 'the \\emph{tratta}', 'sold \\autocite{a}', '\\autocite{a} and more', '\\cite{unclosed', '{b}', ''])
        assert.equal(isLatexCitationText(t), false, t);
    });
  });
});
