/**
 * Differences a PDF viewer's copy makes and the citation check accepts (issue 38; found by
 * core/citecheck/viewerCopies.ts), and how the CLI and the agent tools say them (the editor says
 * them in the user's language: vscode/citationCheck.ts).
 */
export type ForgivenKind = 'page-furniture' | 'logo' | 'small-caps' | 'glyph' | 'footnote-mark' | 'cut-word';

/** A difference the check accepted: the quotation's words and the source's there (folded). */
export interface Forgiven {
  kind: ForgivenKind;
  quote: string;
  source: string;
}

/** Why each is not the writer's, as said after "ok — ". */
export const FORGIVEN_WHY: Record<ForgivenKind, string> = {
  'page-furniture': "the copy holds a running head, footer or page number of the PDF's page break",
  logo: "the PDF's text layer spells a logo out in letters",
  'small-caps': 'the PDF sets a word in small capitals, whose first letter viewers read apart',
  glyph: "the PDF's symbol font decodes a glyph through another encoding",
  'footnote-mark': 'the copy holds a footnote number glued to a word',
  'cut-word': 'the copy starts or ends inside a hyphenated word',
};

/** "the copy holds a running head … (“chapter 7 reference 42”)": one accepted difference in a line. */
export function forgivenText(f: Forgiven): string {
  const words = [f.quote && `“${f.quote}”`, f.source && `the PDF: “${f.source}”`].filter(Boolean).join(', ');
  return `${FORGIVEN_WHY[f.kind]}${words ? ` (${words})` : ''}`;
}
