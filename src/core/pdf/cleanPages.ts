/**
 * Turns raw per-page PDF text into clean blocks: running headers/footers and bare
 * page numbers removed, end-of-line hyphenation joined, lines joined into
 * paragraphs, probable headings marked.
 */

export interface PageBlock {
  kind: 'heading' | 'text';
  text: string;
}

export interface CleanPage {
  /** 1-based page number in the PDF. */
  page: number;
  /** Printed page label when the PDF defines one. */
  label?: string;
  blocks: PageBlock[];
  /**
   * The lines taken off as running headers, footers and page numbers: not the page's text, but
   * what a viewer's copy across a page break holds (the citation check forgives them there).
   */
  furniture?: string[];
}

/** How many lines at each end of a page may hold a running header/footer. */
const EDGE_LINES = 2;

const PAGE_NUMBER = /^(?:page|p\.|seite|pagina)?\s*(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:\/|of|sur|de)\s*\d{1,4})?$/i;

export function cleanPages(pages: string[], labels?: (string | undefined)[]): CleanPage[] {
  const split = pages.map((p) =>
    p
      .replace(/\r\n?/g, '\n')
      .replace(/\u00ad/g, '') // soft hyphens are layout, not text
      .split('\n')
      .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim()),
  );
  const running = findRunningLines(split);
  return split.map((lines, i) => {
    const { kept, dropped } = stripEdges(lines, running);
    return { page: i + 1, label: labels?.[i], blocks: toBlocks(kept), ...(dropped.length ? { furniture: dropped } : {}) };
  });
}

/** Key that makes "Journal of History 12" and "Journal of History 13" equal. */
function edgeKey(line: string): string {
  return line.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

function edgeIndexes(lines: string[]): number[] {
  const nonEmpty: number[] = [];
  lines.forEach((l, i) => {
    if (l) nonEmpty.push(i);
  });
  const head = nonEmpty.slice(0, EDGE_LINES);
  const tail = nonEmpty.slice(Math.max(EDGE_LINES, nonEmpty.length - EDGE_LINES));
  return [...head, ...tail];
}

/** Lines seen at the top or bottom of many pages are running headers/footers. */
function findRunningLines(pages: string[][]): Set<string> {
  const running = new Set<string>();
  if (pages.length < 3) return running;
  const counts = new Map<string, number>();
  for (const lines of pages) {
    const seen = new Set<string>();
    for (const i of edgeIndexes(lines)) {
      const key = edgeKey(lines[i]);
      if (key.length === 0 || key.length > 100 || seen.has(key)) continue;
      seen.add(key);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const min = Math.max(3, Math.ceil(pages.length * 0.4));
  for (const [key, n] of counts) if (n >= min) running.add(key);
  return running;
}

function stripEdges(lines: string[], running: Set<string>): { kept: string[]; dropped: string[] } {
  const drop = new Set<number>();
  for (const i of edgeIndexes(lines)) {
    const line = lines[i];
    if (PAGE_NUMBER.test(line) || running.has(edgeKey(line))) drop.add(i);
  }
  return { kept: lines.filter((l, i) => !drop.has(i)), dropped: lines.filter((l, i) => drop.has(i)) };
}

/** A line that starts with a number, as numbered code or verse lines do. */
const NUMBERED_LINE = /^\d+\s/;

function isHeadingLine(line: string, next: string | undefined, typicalLength: number, prev?: string): boolean {
  if (line.length < 3 || line.length > 100) return false;
  // Numbered lines in a row are a listing (code, verse), not a run of headings.
  if (NUMBERED_LINE.test(line) && (NUMBERED_LINE.test(prev ?? '') || NUMBERED_LINE.test(next ?? ''))) return false;
  const numbered = /^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|chapter|chapitre|section|partie|part)\s/i.test(line);
  if (/[.,;:!?…»”"’)\]-]$/.test(line) && !numbered) return false;
  const words = line.split(' ');
  if (words.length > 14) return false;
  if (!/^[\p{Lu}\d]/u.test(line)) return false;
  if (!/\p{L}{3}/u.test(line)) return false;
  // A heading is followed by a new block, not by the rest of its own sentence.
  if (next !== undefined && next !== '' && /^\p{Ll}/u.test(next)) return false;
  if (numbered || line === line.toUpperCase()) return true;
  const capitalised = words.filter((w) => /^[\p{Lu}\d]/u.test(w)).length / words.length;
  // Sentence-case titles (usual in French) are recognised by being much shorter than body lines.
  return capitalised >= 0.6 || line.length <= typicalLength * 0.75 || (words.length <= 6 && next === '');
}

function typicalLineLength(lines: string[]): number {
  const lengths = lines
    .filter((l) => l.length > 0)
    .map((l) => l.length)
    .sort((a, b) => a - b);
  return lengths.length ? lengths[Math.floor(lengths.length * 0.75)] : 0;
}

function toBlocks(lines: string[]): PageBlock[] {
  const blocks: PageBlock[] = [];
  let para: string[] = [];
  const typical = typicalLineLength(lines);
  const flush = () => {
    if (para.length) blocks.push({ kind: 'text', text: joinLines(para) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) {
      flush();
      continue;
    }
    const prevEndsSentence = para.length === 0 || /[.!?:»”"]$/.test(para[para.length - 1]);
    if (prevEndsSentence && isHeadingLine(line, lines[i + 1], typical, lines[i - 1])) {
      flush();
      blocks.push({ kind: 'heading', text: line });
      continue;
    }
    para.push(line);
  }
  flush();
  return blocks;
}

/** Joins wrapped lines; "histo-" + "rique" becomes "historique", "Jean-" + "Paul" keeps its hyphen. */
export function joinLines(lines: string[]): string {
  let out = '';
  for (const line of lines) {
    if (!out) {
      out = line;
    } else if (/\p{L}-$/u.test(out) && /^\p{Ll}/u.test(line)) {
      out = out.slice(0, -1) + line;
    } else if (/[-–—/]$/.test(out)) {
      out += line;
    } else {
      out += ' ' + line;
    }
  }
  return out;
}
