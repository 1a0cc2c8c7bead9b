/**
 * What the LaTeX segmenter knows of commands and environments (issue 25): the nodes of
 * @unified-latex's tree it reads, the commands whose text is prose, those it drops, the
 * environments it leaves out, and the signatures (`s o m`: star, optional, mandatory argument)
 * it gives the parser, so that a command's arguments are read as LaTeX reads them. `plain.ts`
 * reads the plainest paragraphs without the parser, by the same signatures.
 */

export type Node = { type: string; content?: string | Node[]; env?: string; args?: Arg[]; position?: { start: { offset: number }; end: { offset: number } } };
export type Arg = { type: 'argument'; content: Node[]; openMark: string; closeMark: string };

export const SECTIONS: Record<string, number> = { part: 0, chapter: 1, section: 2, subsection: 3, subsubsection: 4, paragraph: 5, subparagraph: 6 };
export const CITES = [
  'cite',
  'citep',
  'citet',
  'parencite',
  'textcite',
  'autocite',
  'footcite',
  'smartcite',
  'supercite',
  'citeauthor',
  'citeyear',
  'citetitle',
  'nocite',
  'Cite',
  'Parencite',
  'Textcite',
  'Autocite',
  'citealp',
  'citealt',
];
export const MULTI_CITES = ['cites', 'parencites', 'textcites', 'autocites', 'footcites', 'Cites', 'Parencites', 'Textcites', 'Autocites'];
/** Macros whose last argument is prose. */
export const TEXT = [
  'textcquote',
  'blockcquote',
  'foreigntextcquote',
  'foreignblockcquote',
  'hyphentextcquote',
  'hyphenblockcquote',
  'hybridblockcquote',
  'emph',
  'textit',
  'textbf',
  'textsc',
  'textsl',
  'textup',
  'textrm',
  'textsf',
  'texttt',
  'textmd',
  'underline',
  'enquote',
  'mbox',
  'textquote',
  'foreignquote',
  'hyphenquote',
  'foreignlanguage',
  'footnote',
  'footnotetext',
  'caption',
  'hbox',
  'uline',
  'textnormal',
  'emph*',
];
/** Macros whose arguments are no prose (read, so their braces are not taken for text). */
export const DROPPED: Record<string, string> = {
  label: 'm',
  ref: 'm',
  eqref: 'm',
  pageref: 'm',
  autoref: 'm',
  cref: 'm',
  Cref: 'm',
  nameref: 'm',
  url: 'm',
  input: 'm',
  include: 'm',
  includegraphics: 'o m',
  addbibresource: 'o m',
  bibliography: 'm',
  bibliographystyle: 'm',
  printbibliography: 'o',
  vspace: 's m',
  hspace: 's m',
  index: 'm',
  glossary: 'm',
};
export const SKIPPED_ENVS = new Set([
  'thebibliography',
  'verbatim',
  'Verbatim',
  'lstlisting',
  'minted',
  'comment',
  'tikzpicture',
  'tabular',
  'tabular*',
  'tabularx',
  'longtable',
  'equation',
  'equation*',
  'align',
  'align*',
  'gather',
  'gather*',
  'multline',
  'multline*',
  'eqnarray',
  'eqnarray*',
  'displaymath',
  'math',
]);
/** Environments the parser reads as math (a `mathenv`: no prose). */
export const MATH_ENVS = new Set([
  'equation',
  'equation*',
  'align',
  'align*',
  'alignat',
  'alignat*',
  'gather',
  'gather*',
  'multline',
  'multline*',
  'flalign',
  'flalign*',
  'split',
  'math',
  'displaymath',
]);
export const FLOATS = new Set(['figure', 'figure*', 'table', 'table*', 'wrapfigure', 'sidewaysfigure', 'sidewaystable']);
export const QUOTES = new Set(['quote', 'quotation', 'displayquote', 'verse']);
export const LISTS = new Set(['itemize', 'enumerate', 'description']);

/** The signatures given to the parser (on top of those it knows from CTAN). */
export const PARSER_MACROS: Record<string, { signature: string }> = {
  ...Object.fromEntries(CITES.map((m) => [m, { signature: 's o o m' }])),
  // `\cites(pre)(post)[12]{a}[14]{b}`: read as a run of arguments, dropped whole.
  ...Object.fromEntries(MULTI_CITES.map((m) => [m, { signature: `d() d() ${'o o d{} '.repeat(8).trim()}` }])),
  ...Object.fromEntries(Object.entries(DROPPED).map(([m, signature]) => [m, { signature }])),
  textquote: { signature: 'o o m o' },
  // csquotes' quotation with its citation: `\textcquote[pre][post]{key}[punct]{text}`, the text kept.
  ...Object.fromEntries(['textcquote', 'blockcquote'].map((m) => [m, { signature: 's o o m o m' }])),
  ...Object.fromEntries(
    ['foreigntextcquote', 'foreignblockcquote', 'hyphentextcquote', 'hyphenblockcquote', 'hybridblockcquote'].map((m) => [m, { signature: 's m o o m o m' }]),
  ),
  foreignquote: { signature: 'm o o m o' },
  foreignlanguage: { signature: 'o m m' },
  enquote: { signature: 's m' },
  footnote: { signature: 'o m' },
  title: { signature: 'o m' },
};
export const PARSER_ENVIRONMENTS: Record<string, { signature: string }> = { displayquote: { signature: 'o o' } };

/**
 * Signatures the parser takes from CTAN for the commands above that PARSER_MACROS leaves out
 * (test/unit/latexUnits.test.ts checks each against the parser): the plain reader reads them alike.
 */
const CTAN_SIGNATURES: Record<string, string> = {
  ...Object.fromEntries(
    ['emph', 'textit', 'textbf', 'textsc', 'textsl', 'textup', 'textrm', 'textsf', 'texttt', 'textmd', 'underline', 'mbox', 'textnormal'].map((m) => [m, 'm']),
  ),
  ...Object.fromEntries(['part', 'section', 'subsection', 'subsubsection'].map((m) => [m, 's d<> o m'])),
  ...Object.fromEntries(['chapter', 'paragraph', 'subparagraph'].map((m) => [m, 's o m'])),
  caption: 'o m',
  footnotetext: 'o m',
};

/** Every command the plain reader reads with its arguments, and their signature. */
export const PLAIN_SIGNATURES: ReadonlyMap<string, string> = new Map([
  ...Object.entries(CTAN_SIGNATURES),
  ...Object.entries(PARSER_MACROS).map(([m, { signature }]) => [m, signature] as [string, string]),
]);

/** Commands the parser reads with no argument (neither CTAN nor PARSER_MACROS gives them one; tested alike). */
// prettier-ignore
export const PLAIN_NO_ARGS: ReadonlySet<string> = new Set([
  'ldots', 'dots', 'textellipsis', 'LaTeX', 'TeX', 'today', 'par', 'relax', 'S', 'P', 'dag', 'ddag', 'copyright', 'pounds', 'textendash', 'textemdash',
  'og', 'fg', 'ie', 'eg', 'xspace', 'hfill', 'protect', 'nobreak', 'ss', 'o', 'ae', 'oe', 'aa', 'i', 'j', 'l', 'L', 'AA', 'AE', 'OE', 'O',
  'guillemotleft', 'guillemotright', 'textquoteleft', 'textquoteright', 'textquotedblleft', 'textquotedblright', 'slash', 'noindent', 'indent',
  'centering', 'newpage', 'clearpage', 'smallskip', 'medskip', 'bigskip', 'vfill', 'newline', 'maketitle', 'appendix', 'frontmatter', 'mainmatter', 'backmatter',
  'textwidth', 'linewidth', 'columnwidth', 'textheight', 'small', 'footnotesize', 'scriptsize', 'large', 'Large', 'normalsize', 'raggedright', 'em', 'it', 'bf',
]);

/** Control symbols (`\%`, `\,`, `\'`) the parser reads with no argument. */
export const PLAIN_SYMBOLS = '%&#${},;:! \'`"~=.-/@|';

/** Environments the parser reads with no argument and no processing of their content (tested alike), besides lists, quotations and floats. */
export const PLAIN_ENVS: ReadonlySet<string> = new Set(['center', 'flushleft', 'flushright', 'abstract', 'otherlanguage', 'spacing']);
