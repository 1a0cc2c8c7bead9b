/**
 * The highlights sidecar beside the index (highlights.json): which passages the user
 * highlighted (in Zotero), by PDF content hash and passage index. zotero/highlights.ts matches
 * and writes it; the search-time index and the analysis cache read it here, so the index
 * knows no Zotero.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CHUNKER_VERSION } from '../../passages/chunker';
import { sha256 } from '../../util/hash';
import { isMissing, readConfinedText } from '../../util/confinedFiles';
import type { HighlightMark } from '../../../shared/results';
import { safeColor } from '../../../shared/untrusted';

export const HIGHLIGHTS_FILE = 'highlights.json';
/** Bump when the sidecar's shape changes: an older file is then read as absent and rebuilt. */
export const HIGHLIGHTS_FORMAT = 1;

/** What a card or a search hit says of a passage the user highlighted (shared/results.ts). Untrusted text (Zotero's). */
export type PassageHighlight = HighlightMark;

export interface StoredHighlight extends PassageHighlight {
  key: string;
  /** Indices of the passages it was matched to, in the PDF's passage order. */
  passages: number[];
}

export interface HighlightsFile {
  format: number;
  /** Passage indices are the chunker's: another chunker version's file means nothing. */
  chunker: number;
  updatedAt: string;
  /** Hash of `sources`: changes exactly when the marks do (the analysis cache and loaded indexes follow it). */
  stamp: string;
  /** Content hash of the PDF → its highlights. */
  sources: Record<string, { path: string; highlights: StoredHighlight[] }>;
}

/** The highlights of the index's passages: content hash → passage index → its (first) highlight. */
export interface IndexHighlights {
  byHash: Map<string, Map<number, PassageHighlight>>;
  /** Why the sidecar was not used (damaged, another version's): it is rebuilt by the next highlightsForIndex. */
  problem?: string;
  /** The sidecar's stamp when it marks any passage (highlightsFingerprint). */
  stamp?: string;
}

/**
 * The index fingerprint with the highlights' stamp: analyses cached before the marks changed
 * (a new highlight, one removed) no longer match. Unchanged without highlights.
 */
export function highlightsFingerprint(fingerprint: string, stamp: string | undefined): string {
  return stamp ? `${fingerprint}+h${stamp}` : fingerprint;
}

const isStr = (x: unknown): x is string => typeof x === 'string';

/** Reads the sidecar of the index in `dir` (indexDir); a missing one is empty, a damaged one empty with a `problem`. */
export async function readHighlights(dir: string): Promise<IndexHighlights> {
  const byHash = new Map<string, Map<number, PassageHighlight>>();
  let text: string;
  try {
    text = (await readConfinedText(path.join(dir, HIGHLIGHTS_FILE), { kind: 'index', within: [dir] })).text;
  } catch (err) {
    if (isMissing(err)) return { byHash };
    return { byHash, problem: `${HIGHLIGHTS_FILE} cannot be read (${(err as Error).message})` };
  }
  return parseHighlights(text);
}

/** The highlights of a sidecar's text (highlights.json as a library server holds it, too). */
export function parseHighlights(text: string): IndexHighlights {
  const byHash = new Map<string, Map<number, PassageHighlight>>();
  let f: HighlightsFile;
  try {
    f = JSON.parse(text) as HighlightsFile;
  } catch {
    return { byHash, problem: `${HIGHLIGHTS_FILE} is not valid JSON (damaged): Zotero's highlights are left out until it is rebuilt` };
  }
  if (!f || typeof f !== 'object' || f.format !== HIGHLIGHTS_FORMAT || typeof f.sources !== 'object' || f.sources === null) {
    return { byHash, problem: `${HIGHLIGHTS_FILE} has an unknown or damaged format: Zotero's highlights are left out until it is rebuilt` };
  }
  if (f.chunker !== CHUNKER_VERSION)
    return { byHash, problem: `${HIGHLIGHTS_FILE} was written for other passages (v${f.chunker}): it is rebuilt with the index` };
  for (const [hash, entry] of Object.entries(f.sources)) {
    if (!entry || !Array.isArray(entry.highlights)) continue;
    const map = new Map<number, PassageHighlight>();
    for (const h of entry.highlights) {
      if (!h || !isStr(h.page) || !isStr(h.text) || !Array.isArray(h.passages)) continue;
      const shown: PassageHighlight = {
        page: h.page,
        text: h.text,
        ...(isStr(h.comment) ? { comment: h.comment } : {}),
        ...(safeColor(h.color) ? { color: safeColor(h.color) } : {}),
      };
      for (const i of h.passages) if (Number.isInteger(i) && i >= 0 && !map.has(i)) map.set(i, shown);
    }
    if (map.size) byHash.set(hash, map);
  }
  return byHash.size ? { byHash, stamp: isStr(f.stamp) && f.stamp ? f.stamp : sha256(JSON.stringify(f.sources)).slice(0, 16) } : { byHash };
}
