/**
 * Citations for Markdown: Pandoc `[@key, p. 12]` by default (the printed page
 * label when the PDF has one), or a user template with placeholders
 * {key} {page} {author} {authors} {year} {title}. A source without a citekey
 * still yields valid Markdown: a link to the PDF at its page.
 */
import { SETTINGS } from './settings';

export interface CitableSource {
  citekey?: string;
  title: string;
  authors: string[];
  year?: number;
  path: string;
}

export const DEFAULT_CITATION_TEMPLATE: string = SETTINGS.citationTemplate.default;

export function pageLocator(page: number, pageLabel?: string): string {
  return pageLabel && pageLabel.trim() ? pageLabel.trim() : String(page);
}

/**
 * "Braudel" from "Braudel, Fernand" or "Fernand Braudel"; undefined when what
 * stands there is no name (metadata that holds markup, a URL, a bare number).
 */
export function authorSurname(author: string | undefined): string | undefined {
  if (!author) return undefined;
  const a = author.trim();
  const name = a.includes(',') ? a.split(',')[0].trim() : a.split(/\s+/).pop();
  return name && isNameLike(name) ? name : undefined;
}

/** Letters, with the marks names carry (hyphens, apostrophes, dots, spaces); no markup or URL characters. */
function isNameLike(s: string): boolean {
  return /\p{L}/u.test(s) && !/[<>="/\\{}[\]()@:;|]/.test(s) && Array.from(s).length <= 60;
}

export function shortAuthors(authors: string[]): string {
  const names = authors.map(authorSurname).filter((x): x is string => !!x);
  if (names.length === 0) return '';
  if (names.length === 1) return names[0];
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  return `${names[0]} et al.`;
}

export function formatCitation(source: CitableSource, page: number, pageLabel?: string, template = DEFAULT_CITATION_TEMPLATE): string {
  const loc = pageLocator(page, pageLabel);
  if (!source.citekey) {
    // No key: a Markdown link that opens the PDF at the page, with author-year text.
    const who = [shortAuthors(source.authors), source.year].filter(Boolean).join(' ');
    const label = `${who || source.title}, p. ${loc}`.replace(/[[\]]/g, '');
    return `[${label}](<${encodeURI(fileUrl(source.path))}#page=${page}>)`;
  }
  const values: Record<string, string> = {
    key: source.citekey,
    page: loc,
    author: shortAuthors(source.authors) || source.title,
    authors: source.authors.join('; '),
    year: source.year ? String(source.year) : 'n.d.',
    title: source.title,
  };
  return template.replace(/\{(key|page|author|authors|year|title)\}/g, (_, k: string) => values[k]);
}

function fileUrl(p: string): string {
  const norm = p.replace(/\\/g, '/');
  return norm.startsWith('/') ? `file://${norm}` : `file:///${norm}`;
}
