/**
 * One library file on its way into the index, as far as it needs no index state: read and
 * handed to extraction ahead of its turn (`readAndExtract`), its extracted text laid out as
 * stored passages and a source record, and its id. Apart from indexRun.ts, which holds what a
 * run changes (the manifest, the shards in memory); these touch none of it.
 */
import type { Passage } from '../../passages/chunker';
import { lexicalTerms } from '../../retrieval/representation';
import type { Extracted, SourceInput } from '../source';
import { sha256 } from '../../util/hash';
import type { SourceRecord } from '../store/manifest';
import type { StoredPassage } from '../store/shards';
import { zoteroMeta } from '../../../shared/results';

/** A source gone from the library, kept aside in case it only moved (same content hash). */
export interface Gone {
  rec: SourceRecord;
  passages?: StoredPassage[];
  /** Its vectors of the run's model, by passage (taken before its shard is rewritten). */
  vectors?: Array<Float32Array | undefined>;
}

/** What readAndExtract found for one file. */
export interface Early {
  bytes?: Uint8Array;
  hash?: string;
  readError?: string;
  extracted?: ReturnType<SourceInput['extract']>;
}

/**
 * The part of indexing a file that touches no index state, started ahead:
 * read, hash, and (unless the file turns out unchanged or moved) extraction.
 * Never rejects; the extraction promise is kept as is for indexOne to await.
 */
export async function readAndExtract(input: SourceInput, old: SourceRecord | undefined, gone: Map<string, Gone>): Promise<Early> {
  let bytes: Uint8Array | undefined;
  let hash = input.contentHash;
  try {
    if (input.readBytes) {
      bytes = await input.readBytes();
      hash ??= sha256(bytes);
    }
  } catch (err) {
    return { readError: (err as Error).message };
  }
  if (!hash || (old && old.contentHash === hash && !old.ocrPending) || (!old && gone.get(hash)?.passages)) return { bytes, hash };
  const extracted = input.extract(bytes);
  extracted.catch(() => undefined); // awaited (and reported) by indexOne, unless the run is cancelled first
  return { bytes, hash, extracted };
}

/** The chunker's passages as a shard stores them, with their lexical terms; `o` on those that touch an OCR page. */
export function storedPassages(chunks: Passage[], sourceTitle: string, ocrPages: Set<number>): StoredPassage[] {
  return chunks.map((c) => ({
    p: c.page,
    l: c.pageLabel,
    e: c.endPage,
    h: c.heading,
    t: c.text,
    k: lexicalTerms({ sourceTitle, heading: c.heading, text: c.text }).join(' '),
    ...(touchesAny(c.page, c.endPage, ocrPages) ? { o: 1 as const } : {}),
  }));
}

/** The record of an extracted file of `passages` passages, not yet in a shard (`shard` -1). */
export function newSourceRecord(
  input: SourceInput,
  hash: string,
  extracted: Extracted,
  passages: number,
  ocrPages: Set<number>,
  ocrPending: number,
): SourceRecord {
  const meta = extracted.meta;
  return {
    id: sourceId(input.path),
    path: input.path,
    size: input.size,
    mtimeMs: input.mtimeMs,
    contentHash: hash,
    shard: -1,
    passages,
    pageCount: extracted.pageCount,
    title: meta.title,
    authors: meta.authors,
    year: meta.year,
    citekey: meta.citekey,
    collections: meta.collections,
    ...zoteroMeta(meta),
    sourceType: input.sourceType,
    titleFrom: meta.titleFrom,
    ...(extracted.damage ? { problem: extracted.damage } : {}),
    ...(ocrPages.size ? { ocrPages: ocrPages.size } : {}),
    ...(ocrPending ? { ocrPending } : {}),
  };
}

function touchesAny(from: number, to: number, pages: Set<number>): boolean {
  if (pages.size === 0) return false;
  for (let p = from; p <= to; p++) if (pages.has(p)) return true;
  return false;
}

export function sourceId(p: string): string {
  return sha256(p).slice(0, 16);
}
