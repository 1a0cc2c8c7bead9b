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
    const url = `${encodeURI(fileUrl(source.path))}#page=${page}`;
    // A LaTeX template (it starts with a command) gets a hyperref link; Markdown, a link.
    if (template.startsWith('\\')) return `\\href{${url.replace(/[%#]/g, '\\$&')}}{${label.replace(/[&%$#_{}]/g, '\\$&')}}`;
    return `[${label}](<${url}>)`;
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

// ---------------------------------------------------------------------------
// Page ranges, snippets and merging into an existing Pandoc citation

/**
 * The end page's label, when it can be told from the start's: a numeric label
 * moves with the PDF page ("214" on page 230 → "216" on page 232). Otherwise
 * (roman numerals, "A-3") unknown: the citation then names the start page only.
 */
export function endPageLabel(page: number, pageLabel: string | undefined, endPage: number | undefined): string | undefined {
  if (endPage === undefined || !(endPage > page)) return undefined;
  const label = pageLabel?.trim();
  if (!label) return String(endPage);
  return /^\d+$/.test(label) ? String(Number(label) + (endPage - page)) : undefined;
}

/** The locator of a passage: "214", or "214–216" when it runs over several pages (en dash, as Pandoc styles print it). */
export function pageRangeLocator(page: number, pageLabel?: string, endPage?: number): { locator: string; range: boolean } {
  const start = pageLocator(page, pageLabel);
  const end = endPageLabel(page, pageLabel, endPage);
  return end && end !== start ? { locator: `${start}–${end}`, range: true } : { locator: start, range: false };
}

/** Where a passage is: its first page, and its last when it runs on. */
export interface PassagePages {
  page: number;
  pageLabel?: string;
  endPage?: number;
}

/** The template for a range: "p. {page}" (LaTeX's "p.~{page}") becomes "pp. {page}" (and "S. {page}" stays, other languages' styles being the user's). */
function rangeTemplate(template: string, range: boolean): string {
  return range ? template.replace(/(^|[^\p{L}])p\.([ ~])\{page\}/gu, '$1pp.$2{page}') : template;
}

/**
 * formatCitation for a passage that may span pages: `[@key, pp. 214–216]`.
 * A source without a citekey gets its PDF link (to the first page).
 */
export function formatPassageCitation(source: CitableSource, at: PassagePages, template = DEFAULT_CITATION_TEMPLATE): string {
  const { locator, range } = pageRangeLocator(at.page, at.pageLabel, at.endPage);
  if (!source.citekey) return formatCitation(source, at.page, range ? locator : at.pageLabel, template).replace(/, p\. (?=\S+–)/, ', pp. ');
  return formatCitation(source, at.page, locator, rangeTemplate(template, range));
}

/** Escapes text for a VS Code snippet (TextMate syntax): `$`, `}` and `\` are literal. */
export function escapeSnippet(text: string): string {
  return text.replace(/[$}\\]/g, (c) => '\\' + c);
}

/**
 * A citation as snippet text: the page locator is the first tab stop, with
 * the page as its placeholder, so Tab selects it for adjusting; the cursor ends
 * after the citation. A template without `{page}` (or a source without a key)
 * gets only the final stop.
 */
export function citationSnippet(source: CitableSource, at: PassagePages, template = DEFAULT_CITATION_TEMPLATE): string {
  const { locator, range } = pageRangeLocator(at.page, at.pageLabel, at.endPage);
  if (!source.citekey || !template.includes('{page}')) return escapeSnippet(formatPassageCitation(source, at, template)) + '$0';
  // Format with a marker for the page, then escape everything but the marker.
  const MARK = '\u0000PAGE\u0000';
  const text = formatCitation(source, at.page, MARK, rangeTemplate(template, range));
  let first = true;
  return (
    text
      .split(MARK)
      .map(escapeSnippet)
      .reduce((acc, part) => {
        const stop = first ? `\${1:${escapeSnippet(locator)}}` : escapeSnippet(locator);
        first = false;
        return acc + stop + part;
      }) + '$0'
  );
}

/** A Pandoc bracketed citation in a line: `[see @a, p. 3; @b]`; offsets of `[` and one past `]`. */
export interface CitationSpan {
  start: number;
  end: number;
}

/** Bracketed citations of a line (`[…@key…]`, not a link `[…](…)` and not `[^note]`). */
export function citationSpans(line: string): CitationSpan[] {
  const spans: CitationSpan[] = [];
  for (const m of line.matchAll(/\[([^\[\]\n]*)\]/g)) {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    const inner = m[1];
    if (!/(?:^|[\s;\[(-])-?@[\p{L}\p{N}_]/u.test(inner) || inner.startsWith('^') || line[end] === '(' || line[end] === '[') continue;
    spans.push({ start, end });
  }
  return spans;
}

/**
 * The citation a new one at `col` should join: the one the column is inside,
 * or the one ending right before it (spaces between allowed), or beginning
 * right after it. Undefined: insert a citation of its own.
 */
export function adjacentCitation(line: string, col: number): CitationSpan | undefined {
  // One pass, then at most two gaps tested: of the spans before the column only the last can
  // be followed by blanks up to it, of those after it only the first (testing every span's gap
  // was quadratic on a long line of citations).
  let before: CitationSpan | undefined;
  let after: CitationSpan | undefined;
  for (const s of citationSpans(line)) {
    if (col > s.start && col < s.end) return s;
    if (col >= s.end) before = s;
    else if (col <= s.start && !after) after = s;
  }
  if (before && !/\S/.test(line.slice(before.end, col))) return before;
  if (after && !/\S/.test(line.slice(col, after.start))) return after;
  return undefined;
}

/**
 * What to insert, and where, to add `citation` (one bracketed Pandoc citation,
 * text or snippet) to the adjacent one: "; @b, p. 214" before its closing `]`.
 * Undefined when the new citation is not bracketed (a link, an author-year
 * template) or no citation is adjacent.
 */
export function mergeInsertion(line: string, col: number, citation: string): { at: number; text: string } | undefined {
  // `^\[(.*@.*)\](\$0)?$`, without the expression's backtracking over every `@` of a long citation.
  const tail = citation.endsWith(']$0') ? '$0' : citation.endsWith(']') ? '' : undefined;
  if (tail === undefined || !citation.startsWith('[') || citation.length < tail.length + 2) return undefined;
  const inner = citation.slice(1, citation.length - tail.length - 1);
  if (!inner.includes('@')) return undefined;
  const span = adjacentCitation(line, col);
  if (!span) return undefined;
  return { at: span.end - 1, text: `; ${inner}${tail}` };
}
