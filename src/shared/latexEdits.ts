/**
 * Whether an edit of a LaTeX draft only wrote or removed a citation (Insert
 * citation, its undo, a merge into `\autocites`): the segment's results then
 * still describe its text (vscode/results.ts), as for a Pandoc citation.
 */
import { scanLatexCites } from './latexCite';

/** A LaTeX fragment joined to a cite command (`,b`; `[214]{b}`), or a `\href` to a PDF (a source without a key). */
const LATEX_CITATION_PART = /^\s*(?:,\s*[^\s,{}\[\]\\%]+|(?:\[[^\]\n]*\])+\{[^}\n]*\}|\\href\{[^}\n]*\}\{[^}\n]*\})\s*$/;

/** LaTeX cite commands and nothing else (`\autocites{a}[214]{b}`, natbib's `(\citealp{a}; \citealp{b})`), or a part of one. */
export function isLatexCitationText(text: string): boolean {
  if (LATEX_CITATION_PART.test(text)) return true;
  const cites = scanLatexCites(text);
  if (!cites.length || cites.some((c) => !c.closed)) return false;
  let rest = '';
  let at = 0;
  for (const c of cites) {
    rest += text.slice(at, c.start);
    at = c.end;
  }
  return /^[\s();~]*$/.test(rest + text.slice(at));
}
