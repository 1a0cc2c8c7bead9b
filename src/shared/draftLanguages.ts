/**
 * The language ids whose documents are drafts, and each draft's format.
 * Markdown, Quarto and R Markdown (Pandoc Markdown all three, with the same
 * `[@key, p. 12]` citations) and any id the user adds
 * (`similarSources.draftLanguages`) are read as Markdown; `latex` as LaTeX
 * (`\cite{key}`), which the Markdown parser must never be given. Every feature
 * that answers to a draft — commands, CodeLens, hover, completion, the
 * citation check — asks these lists.
 */
export const DRAFT_LANGUAGES: readonly string[] = ['markdown', 'quarto', 'rmd'];

/** LaTeX drafts: VS Code's own id for `.tex` files (LaTeX Workshop's too). */
export const LATEX_LANGUAGES: readonly string[] = ['latex'];

/** How a draft is written: what segments it, and how its citations look. */
export type DraftFormat = 'markdown' | 'latex';

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
