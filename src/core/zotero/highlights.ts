/**
 * Zotero's PDF highlights as signal: each highlight or underline is matched to the indexed
 * passages of its PDF (same page, text compared folded), and the result is kept beside the
 * index in a small sidecar (`highlights.json`), keyed by the PDF's content hash and the
 * passage's index, so that search and analysis read it cheaply when the index is opened.
 *
 * The sidecar is always rebuilt whole from the annotations (never merged with the previous
 * one): a damaged or outdated file is simply replaced by the next call, and read as "no
 * highlights" until then. The annotations are Zotero's; nothing is written into Zotero.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CHUNKER_VERSION } from '../passages/chunker';
import { IndexCorruptError, indexDir, readManifest, type Manifest, type SourceRecord } from '../index/store/manifest';
import { readPassageShard, type ShardSource } from '../index/store/shards';
import { foldText } from '../text/tokenize';
import { writeFileAtomic } from '../util/atomicWrite';
import { sha256 } from '../util/hash';
import { safeColor } from '../../shared/untrusted';
import { HIGHLIGHTS_FILE, HIGHLIGHTS_FORMAT, type HighlightsFile, type StoredHighlight } from '../index/store/highlights';
import type { ZoteroAnnotation } from './model';

/** Longest highlighted text kept in the sidecar (a card shows far less). */
const MAX_TEXT = 2000;
const MAX_COMMENT = 1000;

/** A passage as matching needs it (the index's stored passage, or the chunker's). */
export interface MatchPassage {
  index: number;
  /** 1-based PDF pages where it starts and ends. */
  page: number;
  endPage: number;
  pageLabel?: string;
  text: string;
}

export interface HighlightMatch {
  passages: number[];
  /** Found on the annotation's page, on the page before or after it, or anywhere (no page known). */
  where: 'page' | 'neighbour' | 'anywhere';
}

/** What highlightsForIndex did: every highlight is either matched or counted as why not. */
export interface HighlightReport {
  /** Highlights and underlines with text, of PDFs the caller named. */
  highlights: number;
  matched: number;
  /** Of `matched`, found on the page before or after the annotation's. */
  onNeighbouringPage: number;
  /** Text not found on its page nor beside it: left out. */
  dropped: number;
  /** The attachment's PDF is not (yet) in the index, or no path was given for it. */
  notIndexed: number;
  /** Passages marked. */
  passages: number;
  /** Written to (undefined when there is no index to write beside). */
  file?: string;
}

// ---------------------------------------------------------------------------
// Matching

/**
 * Letters and digits only, folded as the engine folds (ligatures, accents, case): line breaks,
 * hyphenation at a line's end ("inter-\nnational"), soft hyphens and spacing then compare equal.
 */
export function foldForMatch(s: string): string {
  return foldText(String(s ?? '')).replace(/[^\p{L}\p{N}]+/gu, '');
}

function foldedWords(s: string): string[] {
  return foldText(String(s ?? '')).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Anchor length for partial matches: long enough not to occur by chance on a page. */
const ANCHOR = 24;
/** Shortest highlight (folded characters) that is matched at all. */
const MIN_CHARS = 3;

/**
 * The part [from, to) of the highlight `h` that passage `s` holds (both folded), or undefined:
 * the whole of it, its start (at the passage's end), its end (at the passage's start), or a
 * middle part (the whole passage inside a long highlight).
 */
function coverage(h: string, s: string): [number, number] | undefined {
  if (s.includes(h)) return [0, h.length];
  if (h.includes(s) && s.length >= ANCHOR) return [0, 0]; // inside: counted by the caller from its neighbours
  const a = Math.min(ANCHOR, h.length);
  let best: [number, number] | undefined;
  // The highlight starts in this passage and runs past its end.
  const head = h.slice(0, a);
  for (let i = s.indexOf(head); i >= 0; i = s.indexOf(head, i + 1)) {
    const rest = s.slice(i);
    if (h.startsWith(rest)) {
      best = [0, rest.length];
      break;
    }
  }
  // The highlight ends in this passage, having begun before it.
  const tail = h.slice(h.length - a);
  for (let j = s.lastIndexOf(tail); j >= 0; j = j > 0 ? s.lastIndexOf(tail, j - 1) : -1) {
    const lead = s.slice(0, j + a);
    if (h.endsWith(lead)) {
      const part: [number, number] = [h.length - lead.length, h.length];
      if (!best || part[1] - part[0] > best[1] - best[0]) best = part;
      break;
    }
  }
  return best;
}

/** Exact (folded) match over the passages: those holding part of the highlight, when together they hold it all. */
function exactMatch(h: string, folded: Array<{ index: number; text: string }>): number[] | undefined {
  const parts: Array<{ index: number; from: number; to: number }> = [];
  for (const p of folded) {
    const c = coverage(h, p.text);
    if (!c) continue;
    // A passage wholly inside the highlight: its place in the highlight.
    if (c[0] === 0 && c[1] === 0) {
      const at = h.indexOf(p.text);
      parts.push({ index: p.index, from: at, to: at + p.text.length });
    } else parts.push({ index: p.index, from: c[0], to: c[1] });
  }
  if (!parts.length) return undefined;
  const whole = parts.filter((p) => p.from === 0 && p.to === h.length);
  if (whole.length) return whole.map((p) => p.index);
  // Pieces: their union must cover the highlight.
  const sorted = [...parts].sort((x, y) => x.from - y.from);
  let reach = 0;
  for (const p of sorted) {
    if (p.from > reach) return undefined;
    reach = Math.max(reach, p.to);
  }
  return reach >= h.length ? sorted.map((p) => p.index).sort((x, y) => x - y) : undefined;
}

/**
 * Word-trigram match, for text that extraction wrote differently (a running header inside the
 * passage, a word split otherwise): passages holding at least a quarter of the highlight's
 * trigrams, when together they hold at least 60 % of them.
 */
function fuzzyMatch(words: string[], passages: Array<{ index: number; words: Set<string> }>): number[] | undefined {
  if (words.length < 5) return undefined;
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i++) grams.add(words.slice(i, i + 3).join(' '));
  const covered = new Set<string>();
  const chosen: number[] = [];
  for (const p of passages) {
    const held = [...grams].filter((g) => p.words.has(g));
    if (held.length >= grams.size * 0.25) {
      chosen.push(p.index);
      for (const g of held) covered.add(g);
    }
  }
  return covered.size >= grams.size * 0.6 ? chosen.sort((a, b) => a - b) : undefined;
}

function trigramsOf(text: string): Set<string> {
  const w = foldedWords(text);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= w.length; i++) out.add(`${w[i]} ${w[i + 1]} ${w[i + 2]}`);
  return out;
}

/**
 * The passages a highlight marks: on its page (pageIndex is 0-based, passages' pages 1-based),
 * else on the page before or after (Zotero's page and the index's can differ by a cover page),
 * else undefined. Without a page index, any passage of the PDF.
 */
export function matchHighlight(a: Pick<ZoteroAnnotation, 'text' | 'pageIndex'>, passages: readonly MatchPassage[]): HighlightMatch | undefined {
  const h = foldForMatch(a.text ?? '');
  if (h.length < MIN_CHARS) return undefined;
  const words = foldedWords(a.text ?? '');
  const foldedCache = new Map<number, string>();
  const gramCache = new Map<number, Set<string>>();
  const tryOn = (ps: readonly MatchPassage[]): number[] | undefined => {
    if (!ps.length) return undefined;
    const folded = ps.map((p) => {
      let t = foldedCache.get(p.index);
      if (t === undefined) foldedCache.set(p.index, (t = foldForMatch(p.text)));
      return { index: p.index, text: t };
    });
    const exact = exactMatch(h, folded);
    if (exact) return exact;
    return fuzzyMatch(
      words,
      ps.map((p) => {
        let g = gramCache.get(p.index);
        if (!g) gramCache.set(p.index, (g = trigramsOf(p.text)));
        return { index: p.index, words: g };
      }),
    );
  };
  const onPage = (page: number) => passages.filter((p) => p.page <= page && page <= p.endPage);
  if (a.pageIndex === undefined || a.pageIndex === null || !Number.isFinite(a.pageIndex)) {
    const found = tryOn(passages);
    return found ? { passages: found, where: 'anywhere' } : undefined;
  }
  const page = a.pageIndex + 1;
  const here = tryOn(onPage(page));
  if (here) return { passages: here, where: 'page' };
  for (const near of [page - 1, page + 1]) {
    const found = tryOn(onPage(near));
    if (found) return { passages: found, where: 'neighbour' };
  }
  return undefined;
}

function clip(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length <= max ? s : chars.slice(0, max - 1).join('') + '…';
}

/** Annotations that carry highlighted text: highlights and underlines. */
export function isTextHighlight(a: ZoteroAnnotation): boolean {
  return (a.type === 'highlight' || a.type === 'underline') && typeof a.text === 'string' && a.text.trim().length > 0;
}

// ---------------------------------------------------------------------------
// The sidecar

/**
 * Matches Zotero's highlights to the indexed passages of `workspace` and writes the sidecar
 * beside the index (atomically), replacing the previous one. Call it after the library is
 * indexed (and again when the annotations change); `attachmentPathByKey` gives each PDF
 * attachment's absolute path, as the index recorded it.
 */
export async function highlightsForIndex(
  workspace: string,
  annotations: readonly ZoteroAnnotation[],
  attachmentPathByKey: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
): Promise<HighlightReport> {
  const dir = indexDir(workspace);
  const pathOf = (key: string) => (attachmentPathByKey instanceof Map ? attachmentPathByKey.get(key) : (attachmentPathByKey as Record<string, string>)[key]);
  const wanted = annotations.filter(isTextHighlight);
  const report: HighlightReport = { highlights: wanted.length, matched: 0, onNeighbouringPage: 0, dropped: 0, notIndexed: 0, passages: 0 };
  for (let attempt = 0; ; attempt++) {
    const m = await readManifest(dir).catch((err) => {
      if (err instanceof IndexCorruptError) return undefined;
      throw err;
    });
    if (!m) {
      report.notIndexed = wanted.length;
      return report;
    }
    try {
      const file = await buildSidecar(dir, m, wanted, pathOf, report);
      await writeFileAtomic(path.join(dir, HIGHLIGHTS_FILE), JSON.stringify(file));
      return { ...report, file: path.join(dir, HIGHLIGHTS_FILE) };
    } catch (err) {
      // A writer committed meanwhile and removed the shard generation being read: read the new one.
      if (!(err instanceof IndexCorruptError) || attempt >= 2) throw err;
      Object.assign(report, { matched: 0, onNeighbouringPage: 0, dropped: 0, notIndexed: 0, passages: 0 });
    }
  }
}

async function buildSidecar(
  dir: string,
  m: Manifest,
  wanted: readonly ZoteroAnnotation[],
  pathOf: (key: string) => string | undefined,
  report: HighlightReport,
): Promise<HighlightsFile> {
  const byPath = new Map<string, SourceRecord>();
  for (const s of Object.values(m.sources)) byPath.set(path.resolve(s.path), s);
  // The highlights of each indexed PDF.
  const bySource = new Map<SourceRecord, ZoteroAnnotation[]>();
  for (const a of wanted) {
    const p = pathOf(a.attachmentKey);
    const rec = p ? byPath.get(path.resolve(p)) : undefined;
    if (!rec) {
      report.notIndexed++;
      continue;
    }
    const list = bySource.get(rec);
    if (list) list.push(a);
    else bySource.set(rec, [a]);
  }
  // The shards that hold those PDFs' passages, each read once.
  const shardsNeeded = new Set([...bySource.keys()].map((r) => String(r.shard)));
  const stored = new Map<string, ShardSource>();
  for (const key of shardsNeeded) {
    const rec = m.shards[key];
    if (!rec) continue;
    for (const s of await readPassageShard(dir, rec)) stored.set(s.id, s);
  }
  const out: HighlightsFile = { format: HIGHLIGHTS_FORMAT, chunker: CHUNKER_VERSION, updatedAt: new Date().toISOString(), stamp: '', sources: {} };
  for (const [rec, list] of bySource) {
    const shard = stored.get(rec.id);
    if (!shard) {
      report.notIndexed += list.length;
      continue;
    }
    const passages: MatchPassage[] = shard.passages.map((p, i) => ({ index: i, page: p.p, endPage: p.e ?? p.p, pageLabel: p.l, text: p.t }));
    const marked = new Set<number>();
    const highlights: StoredHighlight[] = [];
    for (const a of list) {
      const match = matchHighlight(a, passages);
      if (!match) {
        report.dropped++;
        continue;
      }
      report.matched++;
      if (match.where === 'neighbour') report.onNeighbouringPage++;
      for (const i of match.passages) marked.add(i);
      const first = passages[match.passages[0]];
      const label = a.pageLabel?.trim() || first.pageLabel || String(a.pageIndex !== undefined ? a.pageIndex + 1 : first.page);
      const comment = a.comment?.trim();
      const color = safeColor(a.color);
      highlights.push({
        key: a.key,
        page: clip(label, 40),
        text: clip(a.text!.trim(), MAX_TEXT),
        ...(comment ? { comment: clip(comment, MAX_COMMENT) } : {}),
        ...(color ? { color } : {}),
        passages: match.passages,
      });
    }
    report.passages += marked.size;
    if (highlights.length) {
      // In reading order: a passage with several highlights shows its first.
      highlights.sort((x, y) => x.passages[0] - y.passages[0]);
      out.sources[shard.contentHash] = { path: rec.path, highlights };
    }
  }
  out.stamp = sha256(JSON.stringify(out.sources)).slice(0, 16);
  return out;
}
