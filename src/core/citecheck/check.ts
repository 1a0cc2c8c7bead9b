/**
 * Judges each citation of a draft against its source: the key exists, the
 * cited page exists, the quotation is on that page word for word. One status
 * per citation (see CitationStatus). The sources' page texts come from a
 * loader (the page-text store, or the PDF read again), each loaded once. A
 * quotation longer than one alignment may compare is compared in two pieces,
 * and one whose middle was left out says so: never `ok` for words not read.
 */
import { findCitations, type DraftCitation } from './draftCitations';
import { align, candidates, GAP, levenshtein, quoteTokens, SourceText, type Alignment, type Difference, type PageText } from './match';
import type { Forgiven } from './viewerCopies';
import { betterPage, type PageHint } from './pageHint';

/**
 * `quote-partly-checked`: a quotation too long to compare whole (over 2 × MAX_QUOTE_WORDS words)
 * whose first and last MAX_QUOTE_WORDS words are in the source word for word, on the cited pages
 * when it names some; the words between were not compared.
 */
export type CitationStatus = 'ok' | 'unknown-key' | 'no-such-page' | 'quote-not-found' | 'wrong-page' | 'quote-differs' | 'quote-partly-checked';

/**
 * Errors: the citation is wrong; warnings: it is probably wrong in a way that is easy to fix;
 * info: nothing wrong was found, but not all of it was checked (said, never counted as a problem).
 */
export function statusSeverity(s: CitationStatus): 'error' | 'warning' | 'info' | 'ok' {
  return s === 'ok' ? 'ok' : s === 'quote-partly-checked' ? 'info' : s === 'wrong-page' || s === 'quote-differs' ? 'warning' : 'error';
}

export interface CheckedCitation {
  key: string;
  /** The file the citation is in, when not the draft itself (a LaTeX chapter read through `\input`). */
  file?: string;
  /** 1-based line and column of the key's `@` (in LaTeX: of the key's first character); endColumn just after the key. */
  line: number;
  column: number;
  endColumn: number;
  /** The locator as written ("p. 214"), or null. */
  locator: string | null;
  quote: string | null;
  quoteRange: DraftCitation['quoteRange'] | null;
  status: CitationStatus;
  /** Where the quotation is in the source: a printed label ("215"), or "214–215" across two pages. */
  foundPage: string | null;
  /** The source's words where the quotation was found (for quote-differs: what it says instead). */
  sourceText: string | null;
  /** For quote-differs (and a wrong page that differs too): the quotation's words and the source's, span by span. */
  differences: Difference[];
  /** Differences a PDF viewer's copy makes, not the writer (a running head caught at a page break, a logo…), accepted: viewerCopies.ts. */
  forgiven?: Forgiven[];
  /** For unknown-key: the closest keys of the library and bibliography. */
  suggestions: string[];
  /** The source's PDF, or null (no PDF for the key). */
  path: string | null;
  /** The matched text comes from OCR (compared more loosely). */
  ocr: boolean;
  /** What was not checked, and why; or what was loosened. */
  note: string | null;
  /** For an `ok` citation without a quotation: another page of the source matches its sentence far better (information, never a problem). */
  hint: PageHint | null;
}

export interface CheckSources {
  /** PDFs for a key (a key may name several files). */
  pdfs(key: string): Array<{ path: string; pages(): Promise<PageText[] | undefined> }>;
  /** Every key known (library and bibliography), for unknown keys and suggestions. */
  keys: ReadonlySet<string>;
}

export interface Loaded {
  path: string;
  src?: SourceText;
}

/** Quotation words compared; fewer is a term in quotation marks, not a quotation. */
const MIN_WORDS = 3;
/**
 * Most quotation words one alignment compares: its cost is words × window (the window a little
 * longer than the quotation), so a longer quotation is compared in two pieces of at most this many.
 */
export const MAX_QUOTE_WORDS = 400;

/**
 * What one check keeps for the next on the same index: each key's loaded sources, and each
 * verdict by citation (key, locator, quotation), so that an edit re-judges only the citations
 * it changed. Valid while the index and the bibliography are unchanged (the caller's to say).
 */
export interface CheckMemo {
  sources: Map<string, Promise<Loaded[]>>;
  verdicts: Map<string, CheckedCitation>;
}

export function newCheckMemo(): CheckMemo {
  return { sources: new Map(), verdicts: new Map() };
}

export async function checkCitationList(
  citations: DraftCitation[],
  sources: CheckSources,
  opts: { signal?: AbortSignal; memo?: CheckMemo } = {},
): Promise<CheckedCitation[]> {
  const memo = opts.memo ?? newCheckMemo();
  const cache = memo.sources;
  const load = (key: string) => {
    let p = cache.get(key);
    if (!p) {
      p = Promise.all(
        sources.pdfs(key).map(async (f) => {
          const pages = await f.pages();
          return { path: f.path, src: pages && new SourceText(pages) };
        }),
      );
      cache.set(key, p);
    }
    return p;
  };
  const out: CheckedCitation[] = [];
  for (const c of citations) {
    // Now and then a turn of the event loop, so that a cancel (a worker's message) is heard.
    if (opts.signal && out.length % 50 === 49) await new Promise((r) => setImmediate(r));
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('cancelled');
    // Without a quotation the sentence is what the page hint reads.
    const sig = `${c.key}\u0000${c.locator?.text ?? ''}\u0000${c.quote ?? `\u0001${c.context ?? ''}`}`;
    const seen = memo.verdicts.get(sig);
    if (seen) {
      const { file: _file, ...verdict } = seen;
      out.push({
        ...verdict,
        ...(c.file !== undefined ? { file: c.file } : {}),
        line: c.line,
        column: c.column,
        endColumn: c.endColumn,
        quoteRange: c.quoteRange ?? null,
      });
      continue;
    }
    const at = out.length;
    const base: CheckedCitation = {
      key: c.key,
      ...(c.file !== undefined ? { file: c.file } : {}),
      line: c.line,
      column: c.column,
      endColumn: c.endColumn,
      locator: c.locator?.text ?? null,
      quote: c.quote,
      quoteRange: c.quoteRange ?? null,
      status: 'ok',
      foundPage: null,
      sourceText: null,
      differences: [],
      suggestions: [],
      path: null,
      ocr: false,
      note: null,
      hint: null,
    };
    const files = await load(c.key);
    if (!files.length) {
      if (!sources.keys.has(c.key)) out.push({ ...base, status: 'unknown-key', suggestions: closestKeys(c.key, sources.keys) });
      else out.push({ ...base, note: 'no PDF of this source in the library: its page and quotation are not checked' });
      memo.verdicts.set(sig, out[at]);
      continue;
    }
    // Several PDFs for one key (a book and its supplement): the best verdict of any.
    let best: CheckedCitation | undefined;
    for (const f of files) {
      const r = f.src ? judge(c, f.src, { ...base, path: f.path }) : { ...base, path: f.path, note: 'the text of this PDF could not be read: not checked' };
      if (!best || rank(r.status) < rank(best.status)) best = r;
    }
    out.push(best!);
    memo.verdicts.set(sig, best!);
  }
  return out;
}

export async function checkDraft(draft: string, sources: CheckSources, opts: { signal?: AbortSignal } = {}): Promise<CheckedCitation[]> {
  return checkCitationList(findCitations(draft), sources, opts);
}

/** Which verdict wins among a key's PDFs: ok, then the nearest misses. */
function rank(s: CitationStatus): number {
  return ['ok', 'quote-partly-checked', 'quote-differs', 'wrong-page', 'no-such-page', 'quote-not-found', 'unknown-key'].indexOf(s);
}

/** The keys closest to `key` by edit distance (case-insensitive), at most 3. */
export function closestKeys(key: string, keys: Iterable<string>): string[] {
  const k = key.toLowerCase();
  const max = Math.max(2, Math.floor(k.length / 3));
  const scored: Array<{ key: string; d: number }> = [];
  for (const other of keys) {
    const d = levenshtein(k, other.toLowerCase(), max);
    if (d <= max) scored.push({ key: other, d });
  }
  return scored
    .sort((a, b) => a.d - b.d || a.key.localeCompare(b.key))
    .slice(0, 3)
    .map((x) => x.key);
}

/** The pages (indexes into src.pages) a locator names; 'none' when it names a page the source lacks; undefined without a page locator. */
export function citedPages(c: DraftCitation, src: SourceText): { from: number; to: number } | 'none' | undefined {
  const loc = c.locator;
  if (!loc?.from) return undefined;
  const find = (label: string): number => {
    const l = label.toLowerCase();
    const byLabel = src.pages.findIndex((p) => p.label.toLowerCase() === l);
    if (byLabel >= 0) return byLabel;
    // Arabic labels that are not the page numbers ("201"…), or none: the PDF's page number.
    if (/^\d+$/.test(label)) {
      const n = Number(label);
      const byNumber = src.pages.findIndex((p) => p.page === n);
      if (byNumber >= 0 && !src.pages.some((p) => /^\d+$/.test(p.label) && p.label !== String(p.page))) return byNumber;
    }
    return -1;
  };
  const a = find(loc.from);
  const b = loc.to && loc.to !== loc.from ? find(loc.to) : a;
  if (a < 0 || b < 0) return 'none';
  return { from: Math.min(a, b), to: Math.max(a, b) };
}

function pagesLabel(src: SourceText, a: Alignment): string {
  const p = src.pages[src.pageOf[a.start]];
  const q = src.pages[src.pageOf[a.end]];
  return p === q ? p.label : `${p.label}–${q.label}`;
}

function alignmentOcr(src: SourceText, a: Alignment): boolean {
  for (let i = src.pageOf[a.start]; i <= src.pageOf[a.end]; i++) if (src.pages[i].ocr) return true;
  return false;
}

type Cited = { from: number; to: number };

function judge(c: DraftCitation, src: SourceText, base: CheckedCitation): CheckedCitation {
  const cited = citedPages(c, src);
  if (cited === 'none') {
    const first = src.pages[0]?.label ?? '1';
    const last = src.pages[src.pages.length - 1]?.label ?? '1';
    return { ...base, status: 'no-such-page', note: `the source's pages are ${first}–${last} (${src.pages.length} in the PDF)` };
  }
  const q = c.quote === null ? [] : quoteTokens(c.quote);
  const words = q.filter((t) => t !== GAP).length;
  if (words < MIN_WORDS) {
    const hint = cited && c.quote === null && c.context ? betterPage(src, cited, c.context) : undefined;
    return hint ? { ...base, hint } : base;
  }
  if (words > MAX_QUOTE_WORDS) return judgeLong(src, base, cited, q, words);
  return verdict(src, base, cited, pick(search(q, src, cited), src, cited));
}

/** The alignment touches the cited pages. */
function onPages(src: SourceText, cited: Cited | undefined, a: Alignment): boolean {
  if (!cited) return false;
  const [first, last] = [src.pageOf[a.start], src.pageOf[a.end]];
  if (last >= cited.from && first <= cited.to) return true;
  // A label the PDF gives two pages (a cover's "1" and "2" before the body's): either is the page cited.
  if (cited.to - cited.from > 50 || last - first > 50) return false;
  for (let p = first; p <= last; p++) for (let c = cited.from; c <= cited.to; c++) if (src.pages[p].label === src.pages[c].label) return true;
  return false;
}

/**
 * Alignments of `q` (at most MAX_QUOTE_WORDS words: each costs words × window) where the index
 * finds its words, the cited pages first, then on the cited pages themselves; `near`: a source
 * token where it should begin, tried first (a long quotation's second piece, after its first);
 * `continues`: `q` is a long quotation's first piece.
 */
function search(q: string[], src: SourceText, cited: Cited | undefined, opts: { near?: number; continues?: boolean } = {}): Alignment[] {
  const { near, continues } = opts;
  const words = q.filter((t) => t !== GAP).length;
  const hasGap = q.includes(GAP);
  const slack = 8 + Math.ceil(words * 0.3) + (hasGap ? 300 : 0);
  const tried: Alignment[] = [];
  const windows: Array<[number, number]> = [];
  const tryWindow = (from: number, to: number) => {
    from = Math.max(0, from);
    to = Math.min(src.tokens.length, to);
    if (windows.some(([a, b]) => a <= from && b >= to)) return;
    windows.push([from, to]);
    const loose = src.pages.slice(src.pageOf[from] ?? 0, (src.pageOf[to - 1] ?? 0) + 1).some((p) => p.ocr);
    const a = align(q, src, from, to, { loose, continues });
    if (a) tried.push(a);
  };
  const done = () => {
    const last = tried[tried.length - 1];
    return !!last && last.edits === 0 && (!cited || onPages(src, cited, last));
  };
  if (near !== undefined) tryWindow(near - slack, near + q.length + slack);
  if (!done()) {
    // Places on the cited pages first (kept whatever the votes elsewhere): an exact match there ends the search.
    const onCitedPage = (d: number) => !!cited && d + q.length >= src.pageStart[cited.from] && d <= src.pageStart[cited.to + 1];
    const starts = candidates(q, src, 6, onCitedPage);
    for (const d of starts) {
      tryWindow(d - slack, d + q.length + slack);
      if (done()) break;
    }
  }
  if (cited && !tried.some((a) => onPages(src, cited, a))) {
    // Nothing found there by the index: the cited pages themselves (and the start of the next, for a quote running over).
    const from = src.pageStart[cited.from];
    const to = src.pageStart[cited.to + 1] + words + 10;
    if (to - from <= 6000) tryWindow(from - words, to);
  }
  return tried;
}

/** The best alignment (fewest edits, the cited pages on ties) and the best on the cited pages. */
function pick(tried: Alignment[], src: SourceText, cited: Cited | undefined): { best?: Alignment; bestCited?: Alignment } {
  const on = (a: Alignment) => onPages(src, cited, a);
  let best: Alignment | undefined;
  let bestCited: Alignment | undefined;
  for (const a of tried) {
    if (!best || a.edits < best.edits || (a.edits === best.edits && on(a) && !on(best))) best = a;
    if (on(a) && (!bestCited || a.edits < bestCited.edits)) bestCited = a;
  }
  return { best, bestCited };
}

/**
 * The status from the alignments found. `partly`: a long quotation of which only the ends were
 * compared; word for word there, it is `quote-partly-checked`, never `ok`, and every verdict says so.
 */
function verdict(
  src: SourceText,
  base: CheckedCitation,
  cited: Cited | undefined,
  found: { best?: Alignment; bestCited?: Alignment },
  partly: string | null = null,
): CheckedCitation {
  const { best, bestCited } = found;
  const ocrOf = (a: Alignment) => alignmentOcr(src, a);
  const close = (a: Alignment | undefined): a is Alignment =>
    !!a && a.edits > 0 && a.words >= 4 && a.edits <= Math.max(1, Math.floor(a.words * (ocrOf(a) ? 0.35 : 0.25))) && a.words - a.edits >= 3;
  const exact = (a: Alignment | undefined): a is Alignment => !!a && a.edits === 0;
  const same: CitationStatus = partly ? 'quote-partly-checked' : 'ok';
  const at = (a: Alignment, status: CitationStatus, note: string | null = null): CheckedCitation => {
    const ocr = ocrOf(a);
    return {
      ...base,
      status,
      foundPage: pagesLabel(src, a),
      sourceText: src.textBetween(a.start, a.end),
      differences: a.edits ? a.differences : [],
      ...(a.forgiven.length ? { forgiven: a.forgiven } : {}),
      ocr,
      note: [partly, note, ocr ? 'text from OCR: compared loosely (letters misread by OCR are not counted)' : null].filter(Boolean).join('; ') || null,
    };
  };
  const notFound: CheckedCitation = { ...base, status: 'quote-not-found', note: partly };
  if (cited) {
    if (exact(bestCited)) return at(bestCited, same);
    if (exact(best)) return at(best, 'wrong-page');
    if (close(bestCited)) return at(bestCited, 'quote-differs');
    if (close(best)) return at(best, 'wrong-page', 'not word for word either');
    return notFound;
  }
  if (exact(best)) return at(best, same);
  if (close(best)) return at(best, 'quote-differs');
  return notFound;
}

/**
 * A quotation of over MAX_QUOTE_WORDS words, compared in two pieces of at most that many words, so
 * that it costs at most two quotations of MAX_QUOTE_WORDS: up to twice that, its two halves (every
 * word compared); beyond, its first and last MAX_QUOTE_WORDS words, those between not compared
 * (`quote-partly-checked` when the two ends are word for word; the note says so whatever the
 * status). The second piece must follow the first in the source as it follows it in the quotation.
 */
function judgeLong(src: SourceText, base: CheckedCitation, cited: Cited | undefined, q: string[], words: number): CheckedCitation {
  const halves = words <= 2 * MAX_QUOTE_WORDS;
  const headWords = halves ? Math.ceil(words / 2) : MAX_QUOTE_WORDS;
  const tailFrom = halves ? headWords : words - MAX_QUOTE_WORDS;
  // Token indexes: the head is q[0, headEnd), the tail q[tailStart, end); elisions between them are neither's.
  let headEnd = 0;
  let tailStart = 0;
  for (let i = 0, w = 0; i < q.length; i++) {
    if (q[i] === GAP) continue;
    if (w === headWords - 1) headEnd = i + 1;
    if (w === tailFrom) tailStart = i;
    w++;
  }
  const head = q.slice(0, headEnd);
  const tail = q.slice(tailStart);
  const gaps = q.slice(headEnd, tailStart).filter((t) => t === GAP).length;
  const middle = tailFrom - headWords;
  const h = pick(search(head, src, cited, { continues: true }), src, cited);
  const anchor = h.bestCited ?? h.best;
  const tails = search(tail, src, cited, anchor ? { near: anchor.end + 1 + middle } : {});
  const joined: Alignment[] = [];
  for (const a of new Set([h.best, h.bestCited])) {
    if (!a) continue;
    for (const b of tails) {
      const j = joinPieces(src, a, b, middle, gaps);
      if (j) joined.push(j);
    }
  }
  const partly = halves
    ? null
    : `a quotation of ${words} words: only its first and last ${MAX_QUOTE_WORDS} words were compared, not the ${middle} between them`;
  return verdict(src, base, cited, pick(joined, src, cited), partly);
}

/**
 * A long quotation's two pieces as one alignment, when the second lies after the first where the
 * quotation puts it: right after it (halves: each source word between is one the quotation
 * dropped, each one both pieces took one it added), or `middle` words on, give or take the slack
 * a search allows (and an elision's reach for each elision between them); undefined otherwise.
 */
function joinPieces(src: SourceText, a: Alignment, b: Alignment, middle: number, gaps: number): Alignment | undefined {
  const between = b.start - a.end - 1;
  if (middle === 0 && gaps === 0) {
    if (Math.abs(between) > 8 || b.end <= a.end) return undefined;
    const differences = [...a.differences];
    if (between > 0) differences.push({ quote: '', source: src.textBetween(a.end + 1, b.start - 1) });
    if (between < 0) differences.push({ quote: src.textBetween(b.start, a.end), source: '' });
    return {
      edits: a.edits + b.edits + Math.abs(between),
      words: a.words + b.words,
      start: a.start,
      end: b.end,
      differences: [...differences, ...b.differences],
      forgiven: [...a.forgiven, ...b.forgiven],
    };
  }
  const slack = 8 + Math.ceil(middle * 0.3) + 300 * gaps;
  if (between < Math.max(0, middle - slack) || between > middle + slack) return undefined;
  return {
    edits: a.edits + b.edits,
    words: a.words + b.words,
    start: a.start,
    end: b.end,
    differences: [...a.differences, ...b.differences],
    forgiven: [...a.forgiven, ...b.forgiven],
  };
}
