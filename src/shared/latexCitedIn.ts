/**
 * "cited in § 2" for a LaTeX draft: where it cites each key, by section, as
 * citedIn.ts does for Markdown. Read from the text on every edit, without the
 * LaTeX parser (which loads with the engine and takes seconds on a thesis):
 * comments and verbatim environments are skipped, `\cite…{a,b}` commands
 * (biblatex, natbib and plain, multi-cites `\cites(…)[12]{a}[14]{b}` too, read
 * by latexCite.ts) give the keys, `\chapter` … `\subsubsection` the sections, numbered as LaTeX
 * numbers them (starred ones unnumbered; `\part` apart, as LaTeX counts it).
 */
import type { Citing, DraftSection } from './citedIn';
import { LATEX_SILENT_CITES, scanLatexCites } from './latexCite';

const SECTION = /\\(part|chapter|section|subsection|subsubsection)\b(\*?)/g;
const LEVELS: Record<string, number> = { part: 0, chapter: 1, section: 2, subsection: 3, subsubsection: 4 };
const VERBATIM = /\\begin\s*\{(verbatim\*?|Verbatim|lstlisting|minted|comment)\}/g;

/**
 * The text with comments and verbatim environments blanked (spaces; line
 * breaks and every offset kept), so neither gives citations nor sections.
 */
export function latexProse(text: string): string {
  let out = text.replace(/(^|[^\\])((?:\\\\)*)%[^\n\r]*/g, (m, a: string, b: string) => a + b + ' '.repeat(m.length - a.length - b.length));
  for (const m of out.matchAll(VERBATIM)) {
    const end = out.indexOf(`\\end{${m[1]}}`, m.index + m[0].length);
    const stop = end < 0 ? out.length : end;
    out = out.slice(0, m.index) + out.slice(m.index, stop).replace(/[^\n\r]/g, ' ') + out.slice(stop);
  }
  return out;
}

/** The offset one past the group opening at `at` (`{`, `[` or `(`), braces nested; -1 when it never closes. */
function closeOf(text: string, at: number): number {
  const open = text[at];
  const close = open === '{' ? '}' : open === '[' ? ']' : ')';
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '{' && open !== '{') depth++;
    else if (c === '}' && open !== '{' && depth > 0) depth--;
    else if (c === open && open === '{') depth++;
    else if (c === close && depth === 0) return i + 1;
    else if (c === close && open === '{' && --depth === 0) return i + 1;
  }
  return -1;
}

/** Offset after blanks (one line break at most, as LaTeX reads arguments). */
function skipBlanks(text: string, i: number): number {
  let breaks = 0;
  while (i < text.length && /\s/.test(text[i])) {
    if (text[i] === '\n' && ++breaks > 1) break;
    i++;
  }
  return i;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The draft's sectioning commands, numbered as LaTeX numbers them. */
export function latexSections(text: string): DraftSection[] {
  const prose = latexProse(text);
  const starts = lineStartsOf(prose);
  const found: Array<{ level: number; starred: boolean; heading: string; line: number }> = [];
  for (const m of prose.matchAll(SECTION)) {
    let i = skipBlanks(prose, m.index + m[0].length);
    if (prose[i] === '[') i = skipBlanks(prose, Math.max(i, closeOf(prose, i)));
    if (prose[i] !== '{') continue;
    const k = closeOf(prose, i);
    const heading = prose
      .slice(i + 1, k < 0 ? undefined : k - 1)
      .replace(/\\[A-Za-z]+\*?|[{}~]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    found.push({ level: LEVELS[m[1]], starred: m[2] === '*', heading, line: lineAt(starts, m.index) });
  }
  const numbered = found.filter((h) => h.level > 0 && !h.starred);
  const top = numbered.length ? Math.min(...numbered.map((h) => h.level)) : 1;
  const counters: number[] = [];
  return found.map((h) => {
    if (h.starred || h.level === 0 || h.level < top) return { number: '', heading: h.heading, line: h.line };
    const depth = h.level - top;
    counters.length = depth + 1;
    for (let d = 0; d < depth; d++) counters[d] ??= 0;
    counters[depth] = (counters[depth] ?? 0) + 1;
    return { number: `§ ${counters.join('.')}`, heading: h.heading, line: h.line };
  });
}

/** Every citation of the LaTeX draft (`\nocite` is none: it prints nothing there), with the section it stands in. */
export function latexDraftCitations(text: string): Citing[] {
  const starts = lineStartsOf(text);
  const sections = latexSections(text);
  const before: DraftSection = { number: '', heading: '', line: -1 };
  const out: Citing[] = [];
  for (const cite of scanLatexCites(text)) {
    if (LATEX_SILENT_CITES.has(cite.command)) continue;
    for (const k of cite.items.flatMap((x) => x.keys)) {
      const line = lineAt(starts, k.start);
      let s = -1;
      while (s + 1 < sections.length && sections[s + 1].line <= line) s++;
      out.push({ key: k.key, line, section: s >= 0 ? sections[s] : before });
    }
  }
  return out;
}
