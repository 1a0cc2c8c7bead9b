/**
 * Which citation a draft's cards carry and Insert citation writes: a Markdown
 * draft the `citationTemplate` setting's (Pandoc `[@key, p. 12]`); a LaTeX
 * draft its project's style — biblatex `\autocite`, natbib `\citep` or plain
 * `\cite` — found from its preamble (`latexCitationStyle: auto`) or set. A
 * `citationTemplate` that is itself LaTeX (it starts with a command) is the
 * user's own LaTeX form and wins.
 */
import type { DraftFormat } from './draftLanguages';

export type LatexCitationStyle = 'biblatex' | 'natbib' | 'plain';

/** The template of each style (placeholders as in shared/citation.ts); the page is a post-note. */
export const LATEX_CITATION_TEMPLATES: Readonly<Record<LatexCitationStyle, string>> = {
  biblatex: '\\autocite[p.~{page}]{{key}}',
  natbib: '\\citep[p.~{page}]{{key}}',
  plain: '\\cite[p.~{page}]{{key}}',
};

/** The style a template is (the preamble's detection gives a template); plain for any other. */
export function latexStyleOfTemplate(template: string): LatexCitationStyle {
  const hit = (Object.entries(LATEX_CITATION_TEMPLATES) as Array<[LatexCitationStyle, string]>).find(([, t]) => t === template);
  return hit ? hit[0] : 'plain';
}

/** The setting's style, or the one `detect()` finds in the preamble when it says `auto` (or holds no known style). */
export function latexCitationStyle(setting: string, detect: () => LatexCitationStyle): LatexCitationStyle {
  return setting === 'biblatex' || setting === 'natbib' || setting === 'plain' ? setting : detect();
}

/**
 * The citation template of a draft of `format`: the setting's for Markdown; for
 * LaTeX, the setting's when it is LaTeX already, else the style's.
 */
export function draftCitationTemplate(format: DraftFormat, settings: { citationTemplate: string; latexCitationStyle: string }, detect: () => LatexCitationStyle): string {
  if (format === 'markdown') return settings.citationTemplate;
  if (settings.citationTemplate.trimStart().startsWith('\\')) return settings.citationTemplate;
  return LATEX_CITATION_TEMPLATES[latexCitationStyle(settings.latexCitationStyle, detect)];
}
