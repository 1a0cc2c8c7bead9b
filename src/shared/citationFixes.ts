/**
 * The Quick Fixes of a checked citation (issue 21), as plain edits: change the
 * locator to the page the quotation is on (or, for a citation without one, to
 * the page the page hint names), replace the quotation with the source's words,
 * use the closest key. Pure, so the host only turns each into
 * one undoable WorkspaceEdit; positions are 0-based.
 */

/** What a fix needs of a checked citation (the engine's CheckedCitation has all of it). */
export interface FixableCitation {
  status: string;
  key: string;
  /** 1-based line and column of the key's `@`; endColumn just after the key. */
  line: number;
  column: number;
  endColumn: number;
  locator: string | null;
  foundPage: string | null;
  quote: string | null;
  quoteRange?: { line: number; column: number; endLine: number; endColumn: number } | null;
  sourceText: string | null;
  suggestions: string[];
  /** An `ok` citation's page hint: another page matches its sentence better. */
  hint?: { page: string } | null;
}

export interface CitationFix {
  kind: 'locator' | 'quotation' | 'key';
  /** What the fix's title names: the new locator ("p. 215"), or the key. */
  label: string;
  /** 0-based range replaced. */
  start: { line: number; character: number };
  end: { line: number; character: number };
  text: string;
}

/** "p. 215", or "pp. 214–215" for a quotation over two pages. */
export function pageLocator(label: string): string {
  return label.includes('–') ? `pp. ${label}` : `p. ${label}`;
}

/** The fixes of `c`, given the text of its line. */
export function citationFixes(c: FixableCitation, lineText: string): CitationFix[] {
  const out: CitationFix[] = [];
  const l = c.line - 1;
  const page = c.status === 'wrong-page' ? c.foundPage : c.status === 'ok' ? c.hint?.page : undefined;
  if (page && c.locator) {
    const at = lineText.indexOf(c.locator, c.endColumn - 1);
    if (at >= 0) {
      const text = pageLocator(page);
      out.push({ kind: 'locator', label: text, start: { line: l, character: at }, end: { line: l, character: at + c.locator.length }, text });
    }
  }
  // A quotation with elisions or insertions is not replaced wholesale: the writer chose what to leave out.
  if (c.status === 'quote-differs' && c.sourceText && c.quote && c.quoteRange && !/\[|\.\.\.|…/.test(c.quote)) {
    const r = c.quoteRange;
    out.push({ kind: 'quotation', label: c.sourceText, start: { line: r.line - 1, character: r.column - 1 }, end: { line: r.endLine - 1, character: r.endColumn - 1 }, text: c.sourceText });
  }
  if (c.status === 'unknown-key') {
    for (const k of c.suggestions) out.push({ kind: 'key', label: k, start: { line: l, character: c.column }, end: { line: l, character: c.endColumn - 1 }, text: k });
  }
  return out;
}
