/** What a bibliography entry gives the library: the shape shared by the BibTeX and JSON readers. */

export interface BibEntry {
  citekey: string;
  title?: string;
  authors: string[];
  year?: number;
  collections: string[];
  /** Absolute (or, for another OS's absolute paths, as-given) paths of attached PDFs. */
  files: string[];
  type?: string;
}

export interface ParsedBibliography {
  entries: BibEntry[];
  warnings: string[];
}

/** The first four-digit year in a `year` or `date` value ("1973-05-01", "c. 1949", "1939-1940"). */
export function parseYear(v: string | undefined): number | undefined {
  const m = v ? /(?:^|[^0-9])([0-9]{4})(?![0-9])/.exec(v) : null;
  return m ? Number(m[1]) : undefined;
}

/**
 * Rich-text markup in titles: Zotero's (<i>, <sup>, <span class="nocase">) and the tags the
 * BibTeX parser writes for \emph, \textbf, \textsc, \url, \href. Only these tags go; other text
 * that looks like markup stays as text (escaping it is the views' job).
 */
export function stripRichText(t: string): string {
  return t
    .replace(/<\/?(?:i|b|em|strong|sup|sub|sc|span|code|a|p|br|ul|li|blockquote)(?:\s[^<>]*)?\/?>/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
}
