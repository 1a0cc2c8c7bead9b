/**
 * The one reader of a citation's locator, for every draft format: the text after a
 * Pandoc key (`, pp. 12–14`), a LaTeX post-note projected to plain text
 * (`pp.~12--14` → "pp. 12–14"), the page in parentheses after a quotation. A page
 * range is read alike whatever its dash: `-`, `--`, `---`, `–`, `—` or "to" (a
 * Markdown writer types `--` as often as LaTeX's), so that no form loses its pages
 * and passes unchecked. Pure: no I/O.
 */

export interface Locator {
  /** As written: "p. 12", "pp. 12–14", "chap. 3". */
  text: string;
  /** First and last page named (printed labels: "xii", "214"); absent for a locator that is not a page (chap. 3). */
  from?: string;
  to?: string;
}

const LOCATOR_WORD =
  /^(?:§|(?:chap(?:ter)?s?|ch|sec(?:tion)?s?|fig(?:ure)?s?|n|nn|notes?|vols?|para(?:graph)?s?|l|ll|lines?|col(?:umn)?s?|art|t|tome|livre|bk|book|fol|f|ff|no|nos|table|tab|app|appendix)\b\.?)/i;
/** A range's dash between two page numbers: a hyphen, TeX's `--` and `---`, an en or em dash (or a run of them: no range is lost to a typo). */
const DASH = '[-–—]+';
const PAGE_RE = new RegExp(
  `^(?:(pp?|pages?|S|s|Seite|ss)\\.?\\s*)?([0-9]+[a-z]?|[ivxlcdm]+|[IVXLCDM]+)(?:\\s*(?:${DASH}|to)\\s*([0-9]+[a-z]?|[ivxlcdm]+|[IVXLCDM]+))?(?:\\s*ff?\\.?)?(?=$|[\\s,;.\\]):])`,
  'u',
);
/** A label with a hyphen of its own ("T-1", "A.3"): only a double dash or a real dash makes a range of two of them. */
const LABEL = '[\\p{L}\\p{N}]+(?:[-.][\\p{L}\\p{N}]+)?';
const OTHER_RE = new RegExp(`^(?:pp?|pages?)\\.?\\s*(${LABEL})(?:\\s*(?:--|[–—])[-–—]*\\s*(${LABEL}))?(?=$|[\\s,;\\]):])`, 'u');

/** The locator in the text after a key (", p. 12", " pp. 12–14, emphasis added", ", chap. 3"). */
export function parseLocator(after: string): Locator | null {
  const s = after.replace(/^\s*,?\s*/, '');
  if (!s.trim()) return null;
  const m = PAGE_RE.exec(s);
  if (m && (m[1] || /^\d/.test(m[2]) || /^[ivxlcdm]+$/.test(m[2]))) {
    const roman = (x: string) => /^[ivxlcdm]+$/i.test(x);
    // A bare roman word ("I", "MD") after a key is a page only when a "p." says so.
    if (!m[1] && roman(m[2]) && m[2] !== m[2].toLowerCase()) return { text: s.trim() };
    const from = m[2];
    let to = m[3] ?? m[2];
    // "212–14" is 212–214.
    if (/^\d+$/.test(from) && /^\d+$/.test(to) && to.length < from.length && Number(to) < Number(from)) to = from.slice(0, from.length - to.length) + to;
    return { text: m[0].trim(), from, to };
  }
  // Another printed label after an explicit "p.": "p. T-1", "p. A12", "pp. S3–S5".
  const other = OTHER_RE.exec(s);
  if (other) return { text: other[0].trim(), from: other[1], to: other[2] ?? other[1] };
  if (LOCATOR_WORD.test(s)) return { text: s.trim().replace(/[.,;]+$/, '') };
  return null;
}
