/**
 * The drafts Similar Sources reads, in one list: each kind's file extensions,
 * its VS Code language id, its `--format` name on the CLI, and how it is read.
 * Markdown, Quarto and R Markdown (Pandoc Markdown all three, with the same
 * `[@key, p. 12]` citations) and any id the user adds
 * (`similarSources.draftLanguages`) are read as Markdown; LaTeX as LaTeX
 * (`\cite{key}`), which the Markdown parser must never be given. Every feature
 * that answers to a draft — the extension's commands, CodeLens, hover,
 * completion, citation check and watch for deleted drafts, the CLI's draft
 * argument, the agent tools' draft path, the engine's reading of a draft by its
 * file name — asks this list; package.json's languages and activation events
 * are checked against it by a test.
 */

/** How a draft is written: what segments it, and how its citations look. */
export type DraftFormat = 'markdown' | 'latex';

export interface DraftKind {
  /** As the user names it ("R Markdown"). */
  name: string;
  format: DraftFormat;
  /** Its file extensions as usually written (compared without case: `.Rmd` and `.rmd` alike). */
  extensions: readonly string[];
  /** VS Code's language id (LaTeX's is VS Code's own, LaTeX Workshop's too). */
  languageId: string;
  /** Its name for the CLI's `--format`. */
  flag: string;
}

export const DRAFT_KINDS: readonly DraftKind[] = [
  { name: 'Markdown', format: 'markdown', extensions: ['.md', '.markdown'], languageId: 'markdown', flag: 'md' },
  { name: 'Quarto', format: 'markdown', extensions: ['.qmd'], languageId: 'quarto', flag: 'qmd' },
  { name: 'R Markdown', format: 'markdown', extensions: ['.Rmd'], languageId: 'rmd', flag: 'rmd' },
  { name: 'LaTeX', format: 'latex', extensions: ['.tex', '.ltx'], languageId: 'latex', flag: 'tex' },
];

/** The Markdown language ids built in. */
export const DRAFT_LANGUAGES: readonly string[] = DRAFT_KINDS.filter((k) => k.format === 'markdown').map((k) => k.languageId);

/** LaTeX drafts' language ids. */
export const LATEX_LANGUAGES: readonly string[] = DRAFT_KINDS.filter((k) => k.format === 'latex').map((k) => k.languageId);

/** Every draft extension, as written (`.md, .markdown, .qmd, .Rmd, .tex, .ltx`). */
export const DRAFT_EXTENSIONS: readonly string[] = DRAFT_KINDS.flatMap((k) => k.extensions);

/** A glob of every draft file (each extension as written and in lower case: file watchers match case). */
export function draftFileGlob(): string {
  const exts = [...new Set(DRAFT_EXTENSIONS.flatMap((e) => [e.slice(1), e.slice(1).toLowerCase()]))];
  return `**/*.{${exts.join(',')}}`;
}

/** The Markdown ids: the built-in ones, then the user's extra ones (trimmed, each once; a LaTeX id stays LaTeX). */
export function draftLanguageIds(extra: readonly string[]): string[] {
  const ids = [...DRAFT_LANGUAGES];
  for (const raw of extra) {
    const id = raw.trim();
    if (id && !ids.includes(id) && !LATEX_LANGUAGES.includes(id)) ids.push(id);
  }
  return ids;
}

/** Every draft id, Markdown then LaTeX. */
export function allDraftLanguageIds(extra: readonly string[]): string[] {
  return [...draftLanguageIds(extra), ...LATEX_LANGUAGES];
}

/** The format of a document of `languageId`; undefined when it is no draft. */
export function draftFormatOf(languageId: string, extra: readonly string[]): DraftFormat | undefined {
  if (LATEX_LANGUAGES.includes(languageId)) return 'latex';
  return draftLanguageIds(extra).includes(languageId) ? 'markdown' : undefined;
}

/** The draft kind of a file by its extension (either separator; no Node path here: the webviews bundle this). */
export function draftKindOfPath(file: string): DraftKind | undefined {
  const ext = /(\.[^./\\]+)$/.exec(file)?.[1].toLowerCase();
  return ext === undefined ? undefined : DRAFT_KINDS.find((k) => k.extensions.some((e) => e.toLowerCase() === ext));
}

/** The format of a draft file by its extension; undefined for an extension no draft kind has. */
export function draftFormatOfPath(file: string): DraftFormat | undefined {
  return draftKindOfPath(file)?.format;
}

/** A LaTeX draft by its extension (`.tex`, `.ltx`): the engine reads it as LaTeX, with its `\input` files. */
export function isLatexPath(file: string): boolean {
  return draftFormatOfPath(file) === 'latex';
}

/** The format a CLI `--format` name gives (`md`, `qmd`, `rmd`, `tex`, any case); undefined for another name. */
export function draftFormatOfFlag(flag: string): DraftFormat | undefined {
  return DRAFT_KINDS.find((k) => k.flag === flag.toLowerCase())?.format;
}
