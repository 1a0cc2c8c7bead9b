/**
 * Which citation a draft's cards carry and Insert citation writes: a Markdown
 * draft the `citationTemplate` setting's (Pandoc `[@key, p. 12]`); a LaTeX
 * draft its project's style — biblatex `\autocite`, natbib `\citep` or plain
 * `\cite` — found from its preamble (`latexCitationStyle: auto`) or set. A
 * `citationTemplate` that is itself LaTeX (it starts with a command) is the
 * user's own LaTeX form and wins.
 */
import type { DraftFormat } from './draftLanguages';
import type { LatexCiteStyle } from './latexCite';
import { latexCiteStyle } from './latexCiteFormat';

export type LatexCitationStyle = LatexCiteStyle;

/** The template of each style (placeholders as in shared/citation.ts); the page is a post-note. */
export const LATEX_CITATION_TEMPLATES: Readonly<Record<LatexCitationStyle, string>> = {
  biblatex: '\\autocite[p.~{page}]{{key}}',
  natbib: '\\citep[p.~{page}]{{key}}',
  plain: '\\cite[p.~{page}]{{key}}',
};

/** The setting's style, or the one the draft's preamble loads when it says `auto` (or holds no known style). */
export function latexCitationStyle(setting: string, source: string): LatexCitationStyle {
  return setting === 'biblatex' || setting === 'natbib' || setting === 'plain' ? setting : latexCiteStyle(source);
}

/** Whether a `citationTemplate` is the user's own LaTeX form (it starts with a command). */
export function isLatexTemplate(template: string): boolean {
  return template.trimStart().startsWith('\\');
}

/**
 * The citation template of a draft of `format`: the setting's for Markdown; for
 * LaTeX, the setting's when it is LaTeX already, else the style's.
 */
export function draftCitationTemplate(format: DraftFormat, settings: { citationTemplate: string; latexCitationStyle: string }, source: string): string {
  if (format === 'markdown' || isLatexTemplate(settings.citationTemplate)) return settings.citationTemplate;
  return LATEX_CITATION_TEMPLATES[latexCitationStyle(settings.latexCitationStyle, source)];
}
