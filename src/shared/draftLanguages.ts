/**
 * The language ids whose documents are drafts: Markdown, Quarto and R Markdown
 * (Pandoc Markdown all three, with the same `[@key, p. 12]` citations), and any
 * id the user adds (`similarSources.draftLanguages`). Every feature that answers
 * to a draft — commands, CodeLens, hover, completion, the citation check —
 * asks this one list.
 */
export const DRAFT_LANGUAGES: readonly string[] = ['markdown', 'quarto', 'rmd'];

/** The built-in ids, then the user's extra ones (trimmed, each once). */
export function draftLanguageIds(extra: readonly string[]): string[] {
  const ids = [...DRAFT_LANGUAGES];
  for (const raw of extra) {
    const id = raw.trim();
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}
