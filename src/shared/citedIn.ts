/**
 * Where a draft cites each key, by section: "cited in § 2" on a card whose
 * source the draft cites elsewhere. Read from the Markdown text line by line
 * (front matter and fenced code skipped), so it follows every edit without an
 * analysis. Sections are numbered as a reader counts them: a lone top heading
 * that opens the draft is its title, not § 1.
 */
import { lineOf, lineStarts } from './lines';
import { isCrossReference } from './crossref';
import { delimited, LATEX_SILENT_CITES, scanLatexCites, skipOpaque } from './latexCite';

export interface DraftSection {
  /** "§ 2", "§ 2.1"; "" before the first numbered heading. */
  number: string;
  heading: string;
  /** 0-based line of the heading (-1: the text before any heading). */
  line: number;
  /** The file the heading is in, when not the draft itself (a LaTeX chapter read through `\input`). */
  file?: string;
}

export interface Citing {
  key: string;
  /** 0-based line of the citation. */
  line: number;
  section: DraftSection;
  /** The file the citation is in, when not the draft itself. */
  file?: string;
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
 * For each key, the sections citing it outside lines `from`–`to` (a segment of the draft, or of
 * `file` when the segment is in a file the draft includes), in draft order, each once.
 */
export function citedElsewhere(citations: readonly Citing[], from: number, to: number, file?: string): Map<string, DraftSection[]> {
  const out = new Map<string, DraftSection[]>();
  for (const c of citations) {
    if (c.file === file && c.line >= from && c.line <= to) continue;
    const list = out.get(c.key) ?? [];
    if (!list.some((x) => x.line === c.section.line && x.file === c.section.file)) list.push(c.section);
    out.set(c.key, list);
  }
  return out;
}

// ---------------------------------------------------------------------------
// LaTeX drafts

/**
 * A stretch of a LaTeX file in reading order: the draft up to an `\input`, the file read there,
 * the rest of the draft (core/latex/project.ts). `file` is absent for the draft itself.
 */
export interface LatexPart {
  file?: string;
  text: string;
  /** Offsets of the stretch (default: the whole text). */
  from?: number;
  to?: number;
}

/** Sectioning commands by depth; `\part` is not counted in a section's number (LaTeX numbers chapters across parts). */
const LATEX_LEVELS: Record<string, number> = { part: 0, chapter: 1, section: 2, subsection: 3, subsubsection: 4 };
const LATEX_HEADING = /^\\(part|chapter|section|subsection|subsubsection)(\*?)\s*(?:\[[^\]]*\])?\s*(?=\{)/;
/** What changes how headings are numbered: a book's front and back matter are not, an appendix counts A, B… */
const LATEX_MATTER = /^\\(frontmatter|mainmatter|backmatter|appendix)(?![a-zA-Z])/;

type LatexHeading = {
  kind: 'heading';
  level: number;
  star: boolean;
  title: string;
  line: number;
  file?: string;
  matter: 'front' | 'main' | 'back' | 'appendix';
};

function lineCounter(text: string): (offset: number) => number {
  const starts = lineStarts(text);
  return (offset) => lineOf(starts, offset) - 1;
}

/** A heading's title as text: commands and braces dropped, `~` a space. */
function latexTitle(s: string): string {
  return s
    .replace(/\\[a-zA-Z]+\*?/g, '')
    .replace(/[{}]/g, '')
    .replace(/~/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function asParts(draft: string | readonly LatexPart[]): readonly LatexPart[] {
  return typeof draft === 'string' ? [{ text: draft }] : draft;
}

/** Headings and citations of LaTeX parts, in reading order (comments, verbatim and math skipped). */
function latexEvents(parts: readonly LatexPart[]): Array<LatexHeading | { kind: 'cite'; keys: string[]; line: number; file?: string }> {
  const out: ReturnType<typeof latexEvents> = [];
  const counters = new Map<string, (o: number) => number>();
  let matter: LatexHeading['matter'] = 'main';
  for (const p of parts) {
    const lineOf = counters.get(p.text) ?? lineCounter(p.text);
    counters.set(p.text, lineOf);
    const from = p.from ?? 0;
    const to = p.to ?? p.text.length;
    const cites = scanLatexCites(p.text, from, to);
    let c = 0;
    const flushCites = (upTo: number) => {
      for (; c < cites.length && cites[c].start < upTo; c++) {
        if (LATEX_SILENT_CITES.has(cites[c].command)) continue;
        out.push({ kind: 'cite', keys: cites[c].items.flatMap((x) => x.keys.map((k) => k.key)), line: lineOf(cites[c].start), file: p.file });
      }
    };
    for (let i = from; i < to; i++) {
      const ch = p.text[i];
      if (ch !== '\\' && ch !== '%' && ch !== '$') continue;
      const skip = skipOpaque(p.text, i);
      if (skip >= 0) {
        i = skip - 1;
        continue;
      }
      if (ch !== '\\') continue;
      const m = LATEX_HEADING.exec(p.text.slice(i, i + 200));
      if (!m) {
        const mm = LATEX_MATTER.exec(p.text.slice(i, i + 20));
        if (mm) matter = mm[1] === 'appendix' ? 'appendix' : (mm[1].replace('matter', '') as LatexHeading['matter']);
        i++;
        continue;
      }
      // A title is short: an unclosed one is not looked for to the end of the draft at each heading.
      const arg = delimited(p.text.slice(i + m[0].length, i + m[0].length + 2000), 0, '{', '}');
      flushCites(i);
      out.push({
        kind: 'heading',
        level: LATEX_LEVELS[m[1]],
        star: m[2] === '*',
        title: latexTitle(arg?.content ?? ''),
        line: lineOf(i),
        file: p.file,
        matter,
      });
      i += m[0].length;
    }
    flushCites(Infinity);
  }
  return out;
}

/**
 * A LaTeX draft's headings, numbered as LaTeX numbers them: from the top level used (chapters in a
 * book, sections in an article), `\\part`, starred headings and a book's front and back matter
 * unnumbered, an appendix's top level lettered (§ A, § A.1). `draft`: its text, or its parts in
 * reading order with the files it includes.
 */
export function latexDraftSections(draft: string | readonly LatexPart[]): DraftSection[] {
  return numberLatex(latexEvents(asParts(draft)).filter((e): e is LatexHeading => e.kind === 'heading'));
}

function numberLatex(found: LatexHeading[]): DraftSection[] {
  const counted = (h: LatexHeading) => h.level > 0 && !h.star && (h.matter === 'main' || h.matter === 'appendix');
  const numbered = found.filter(counted);
  const top = numbered.length ? Math.min(...numbered.map((h) => h.level)) : 1;
  const counters: number[] = [];
  let appendix = false;
  return found.map((h) => {
    const base = { heading: h.title, line: h.line, ...(h.file !== undefined ? { file: h.file } : {}) };
    if (!counted(h) || h.level < top) return { number: '', ...base };
    if (h.matter === 'appendix' && !appendix) {
      // LaTeX's \appendix starts the top level again, in letters.
      appendix = true;
      counters.length = 0;
    }
    const depth = h.level - top;
    counters.length = depth + 1;
    for (let d = 0; d < depth; d++) counters[d] ??= 0;
    counters[depth] = (counters[depth] ?? 0) + 1;
    const parts = counters.map((n, d) => (d === 0 && appendix ? letter(n) : String(n)));
    return { number: `§ ${parts.join('.')}`, ...base };
  });
}

/** 1 → A, 26 → Z, 27 → AA. */
function letter(n: number): string {
  let s = '';
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** Every citation of a LaTeX draft (`\cite{a,b}`, `\autocites{a}{b}`…; not `\nocite`), with the section it stands in. */
export function latexDraftCitations(draft: string | readonly LatexPart[]): Citing[] {
  const events = latexEvents(asParts(draft));
  const sections = numberLatex(events.filter((e): e is LatexHeading => e.kind === 'heading'));
  const before: DraftSection = { number: '', heading: '', line: -1 };
  const out: Citing[] = [];
  let s = -1;
  for (const e of events) {
    if (e.kind === 'heading') {
      s++;
      continue;
    }
    for (const key of e.keys) out.push({ key, line: e.line, section: s >= 0 ? sections[s] : before, ...(e.file !== undefined ? { file: e.file } : {}) });
  }
  return out;
}
