/**
 * "cited in § 2" for a LaTeX draft: where it cites each key, by section, as
 * citedIn.ts does for Markdown. Read from the text on every edit, without the
 * LaTeX parser (which loads with the engine and takes seconds on a thesis):
 * comments and verbatim environments are skipped, `\cite…{a,b}` commands
 * (biblatex, natbib and plain, multi-cites `\cites(…)[12]{a}[14]{b}` too) give
 * the keys, `\chapter` … `\subsubsection` the sections, numbered as LaTeX
 * numbers them (starred ones unnumbered; `\part` apart, as LaTeX counts it).
 */
import type { Citing, DraftSection } from './citedIn';

/** A cite command in the text: `\autocite[p.~3]{a,b}`; offsets of `\` and one past the last `}`. */
export interface LatexCiteSpan {
  start: number;
  end: number;
  command: string;
  /** Each key with its offsets (inside the braces). */
  keys: Array<{ key: string; start: number; end: number }>;
}

/** Cite commands: biblatex's and natbib's families (`\parencite`, `\Textcite`, `\citep`, `\citealp`, `\autocites`…). */
const CITE = /\\((?:[A-Za-z]*cite[A-Za-z]*)|nocite)\b\*?/g;
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

/** Every cite command of `text` (give it latexProse's text to skip comments), with its keys. */
export function latexCiteSpans(text: string): LatexCiteSpan[] {
  const spans: LatexCiteSpan[] = [];
  for (const m of text.matchAll(CITE)) {
    const multi = /cites$/i.test(m[1]);
    const keys: LatexCiteSpan['keys'] = [];
    let i = m.index + m[0].length;
    let end = -1;
    for (;;) {
      const j = skipBlanks(text, i);
      const c = text[j];
      if (c === '[' || (c === '(' && multi)) {
        const k = closeOf(text, j);
        if (k < 0) break;
        i = k;
      } else if (c === '{') {
        const k = closeOf(text, j);
        if (k < 0) break;
        let at = j + 1;
        for (const part of text.slice(j + 1, k - 1).split(',')) {
          const lead = part.length - part.trimStart().length;
          const key = part.trim();
          if (key) keys.push({ key, start: at + lead, end: at + lead + key.length });
          at += part.length + 1;
        }
        i = end = k;
        if (!multi) break;
      } else break;
    }
    if (end > 0) spans.push({ start: m.index, end, command: m[1], keys });
  }
  return spans;
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
  const prose = latexProse(text);
  const starts = lineStartsOf(prose);
  const sections = latexSections(text);
  const before: DraftSection = { number: '', heading: '', line: -1 };
  const out: Citing[] = [];
  for (const span of latexCiteSpans(prose)) {
    if (span.command === 'nocite') continue;
    for (const k of span.keys) {
      const line = lineAt(starts, k.start);
      let s = -1;
      while (s + 1 < sections.length && sections[s + 1].line <= line) s++;
      out.push({ key: k.key, line, section: s >= 0 ? sections[s] : before });
    }
  }
  return out;
}
