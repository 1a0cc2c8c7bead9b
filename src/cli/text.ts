/** Small pieces of the CLI's text output that several commands print. */
import { semanticPercent, type SemanticProgress } from '../shared/health';
import { terminalText } from '../shared/untrusted';

/** What an analysis or a search made before the model's vectors were complete says of itself. */
export function semanticNote(p: SemanticProgress): string {
  return `semantic index ${semanticPercent(p)}%: ${p.embedded} of ${p.total} passages have a vector of ${p.model}; the others were matched by their words only. Run "index" again to complete it`;
}

export const round = (x: number) => Math.round(x * 10000) / 10000;

/** The first `n` characters of a text, cut at a word. */
export function excerpt(t: string, n: number): string {
  return t.length <= n ? t : t.slice(0, n).replace(/\s+\S*$/, '') + '…';
}

/** Untrusted running text (a PDF's, a title, an author) on one terminal line: see terminalText. */
export const prose = (t: string, max: number) => terminalText(t, max, 'prose');
