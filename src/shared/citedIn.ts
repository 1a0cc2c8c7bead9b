/**
 * Where a draft cites each key, by section: "cited in § 2" on a card whose
 * source the draft cites elsewhere. Read from the Markdown text line by line
 * (front matter and fenced code skipped), so it follows every edit without an
 * analysis. Sections are numbered as a reader counts them: a lone top heading
 * that opens the draft is its title, not § 1.
 */
import { isCrossReference } from './crossref';

export interface DraftSection {
  /** "§ 2", "§ 2.1"; "" before the first numbered heading. */
  number: string;
  heading: string;
  /** 0-based line of the heading (-1: the text before any heading). */
  line: number;
}

export interface Citing {
  key: string;
  /** 0-based line of the citation. */
  line: number;
  section: DraftSection;
}

/** An ATX heading's marks and text; the closing run of spaces and `#` is taken off by `headingText` (`(.*?)[ \t#]*$` was quadratic in a long run of them). */
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A citekey after `@` (Pandoc's rule: ends on a letter, digit or underscore). */
const KEY = /(?:^|[\s\[;(])-?@([\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?)/gu;

/** Lines that hold prose: not front matter, not fenced code. */
export function proseLines(lines: string[]): boolean[] {
  const prose = lines.map(() => true);
  let i = 0;
  if (lines[0]?.trim() === '---') {
    prose[0] = false;
    for (i = 1; i < lines.length; i++) {
      prose[i] = false;
      if (/^(---|\.\.\.)\s*$/.test(lines[i])) {
        i++;
        break;
      }
    }
  }
  let fence: string | undefined;
  for (; i < lines.length; i++) {
    const f = FENCE.exec(lines[i]);
    if (fence) {
      prose[i] = false;
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && lines[i].trim() === f[1].trim()) fence = undefined;
    } else if (f) {
      prose[i] = false;
      fence = f[1];
    }
  }
  return prose;
}

function headingText(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === ' ' || s[end - 1] === '\t' || s[end - 1] === '#')) end--;
  // Pandoc's attributes closing a heading (`## Prices {#sec-prices .unnumbered}`) are not its text.
  const text = s.slice(0, end).trim();
  const attrs = text.endsWith('}') ? text.lastIndexOf(' {') : -1;
  return attrs > 0 && /^ \{([#.]|-\}$)/.test(text.slice(attrs)) ? text.slice(0, attrs).trim() : text;
}

/** The draft's headings, numbered. */
export function draftSections(text: string): DraftSection[] {
  const lines = text.split(/\r?\n/);
  const prose = proseLines(lines);
  const found: Array<{ level: number; heading: string; line: number }> = [];
  lines.forEach((l, i) => {
    const m = prose[i] ? HEADING.exec(l) : null;
    if (m) found.push({ level: m[1].length, heading: headingText(m[2]), line: i });
  });
  if (found.length === 0) return [];
  let top = Math.min(...found.map((h) => h.level));
  const atTop = found.filter((h) => h.level === top);
  const title = atTop.length === 1 && found[0].level === top && found.length > 1 ? found[0] : undefined;
  if (title) top = Math.min(...found.slice(1).map((h) => h.level));
  const counters: number[] = [];
  return found.map((h) => {
    if (h === title || h.level < top) return { number: '', heading: h.heading, line: h.line };
    const depth = h.level - top;
    counters.length = depth + 1;
    for (let d = 0; d < depth; d++) counters[d] ??= 0;
    counters[depth] = (counters[depth] ?? 0) + 1;
    return { number: `§ ${counters.join('.')}`, heading: h.heading, line: h.line };
  });
}

/** Every citation of the draft, with the section it stands in. */
export function draftCitations(text: string): Citing[] {
  const lines = text.split(/\r?\n/);
  const prose = proseLines(lines);
  const sections = draftSections(text);
  const before: DraftSection = { number: '', heading: '', line: -1 };
  const out: Citing[] = [];
  let s = -1;
  lines.forEach((l, i) => {
    while (s + 1 < sections.length && sections[s + 1].line <= i) s++;
    if (!prose[i] || !l.includes('@')) return;
    // "[@a]", "[see @a, p. 3; @b]", and Pandoc's in-text "@a says" (an e-mail address is not a citation).
    // Quarto's cross-references (`@fig-map`, `@sec-intro`) name the draft's own figures and sections.
    for (const m of l.matchAll(KEY)) if (!isCrossReference(m[1])) out.push({ key: m[1], line: i, section: s >= 0 ? sections[s] : before });
  });
  return out;
}

/** A section as a card names it: "§ 2", or its heading when it has no number. */
export function sectionName(s: DraftSection): string {
  return s.number || s.heading;
}

/**
 * For each key, the sections citing it outside lines `from`–`to` (a segment),
 * in draft order, each once.
 */
export function citedElsewhere(citations: readonly Citing[], from: number, to: number): Map<string, DraftSection[]> {
  const out = new Map<string, DraftSection[]>();
  for (const c of citations) {
    if (c.line >= from && c.line <= to) continue;
    const list = out.get(c.key) ?? [];
    if (!list.some((x) => x.line === c.section.line)) list.push(c.section);
    out.set(c.key, list);
  }
  return out;
}
