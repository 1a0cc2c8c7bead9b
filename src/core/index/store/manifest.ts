/**
 * The manifest is the index's single commit point: shard files are written under
 * new generation names first, then the manifest is replaced atomically. Whatever
 * the manifest names is complete; anything else in the folder is garbage.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../util/atomicWrite';
import { isMissing, readConfinedText } from '../../util/confinedFiles';
import { sha256 } from '../../util/hash';
import { CHUNKER_VERSION } from '../../passages/chunker';
import { LEXICAL_VERSION } from './versions';

export const MANIFEST_FORMAT = 1;

/** Primary sources (archives, editions) and secondary literature, told apart by the library settings. */
export type SourceType = 'primary' | 'secondary';

/** A source's bibliographic metadata, as extraction resolves it (library/metadata.ts). */
export interface SourceMetadata {
  title: string;
  authors: string[];
  year?: number;
  citekey?: string;
  collections: string[];
  /** From Zotero, when it has them: the DOI, the item type ("journalArticle"), the item's tags. */
  doi?: string;
  itemType?: string;
  tags?: string[];
  /** Where the title came from, for diagnostics. */
  titleFrom: 'bibliography' | 'pdf-info' | 'first-page' | 'file-name';
}

/** A source as the manifest records it: its file, where its passages lie, and its metadata. */
export interface SourceRecord extends SourceMetadata {
  id: string;
  path: string;
  size: number;
  mtimeMs: number;
  contentHash: string;
  shard: number;
  passages: number;
  pageCount: number;
  sourceType: SourceType;
  /** What was lost when the file is damaged; kept until the file changes (status lists it). */
  problem?: string;
  /** Pages whose text comes from OCR. */
  ocrPages?: number;
  /**
   * Pages still to recognise: the file is indexed with its text layer meanwhile, and read
   * again by the next run when this one stopped before its OCR (status counts them).
   */
  ocrPending?: number;
}

export interface SkipRecord {
  path: string;
  size: number;
  mtimeMs: number;
  reason: string;
  /** The READER_VERSION that skipped it: a newer reader tries the file again. */
  reader?: number;
}

export interface ShardRecord {
  gen: number;
  file: string;
  sha256: string;
  passages: number;
  /**
   * The shard's postings file (postingsFile.ts), derived from `file`: absent in indexes
   * written before it existed, which are read from the JSON until the next indexing run adds it.
   */
  postings?: PostingsRecord;
}

export interface PostingsRecord {
  file: string;
  sha256: string;
  /** POSTINGS_VERSION of the file. */
  version: number;
}

export interface VectorShardRecord {
  /** The passage shard generation these vectors were synced with. */
  passagesGen: number;
  dir: string;
  sha256: string;
  items: number;
}

export interface VectorSetRecord {
  provider: string;
  model: string;
  dim: number;
  shards: Record<string, VectorShardRecord>;
}

export interface Manifest {
  format: number;
  chunker: number;
  lexical: string;
  fingerprint: string;
  updatedAt: string;
  /** Storage key of the provider the index was last built with. */
  activeModel?: string;
  nextGen: number;
  sources: Record<string, SourceRecord>;
  skipped: Record<string, SkipRecord>;
  shards: Record<string, ShardRecord>;
  vectors: Record<string, VectorSetRecord>;
}

/** A damaged index file (the indexer rebuilds what it names; LibraryIndex.open reports it as not ready). */
export class IndexCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IndexCorruptError';
  }
}

/**
 * A loaded index reads passage text on demand from its generation's shard files; a newer commit
 * removes them. Not damage: the caller opens the index again (the engine instance does, once).
 */
export class IndexGenerationGone extends IndexCorruptError {
  constructor(message: string) {
    super(message);
    this.name = 'IndexGenerationGone';
  }
}

export const INDEX_DIR = '.similar-sources';

export function indexDir(workspace: string): string {
  return path.join(path.resolve(workspace), INDEX_DIR);
}

/** Why an index cannot be read by this version (its passages or lexical terms are another version's). */
export function outdatedReason(m: Manifest): string | undefined {
  if (m.chunker === CHUNKER_VERSION && m.lexical === LEXICAL_VERSION) return undefined;
  return `built by another version of Similar Sources (passages v${m.chunker}, terms ${m.lexical}; this version reads v${CHUNKER_VERSION}, ${LEXICAL_VERSION})`;
}

export function emptyManifest(chunker: number, lexical: string): Manifest {
  return {
    format: MANIFEST_FORMAT,
    chunker,
    lexical,
    fingerprint: '',
    updatedAt: new Date(0).toISOString(),
    nextGen: 1,
    sources: {},
    skipped: {},
    shards: {},
    vectors: {},
  };
}

/** Reads the manifest; undefined when there is none, IndexCorruptError when it is unreadable. */
export async function readManifest(dir: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = (await readConfinedText(path.join(dir, 'manifest.json'), { kind: 'index', within: [dir] })).text;
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  let m: Manifest;
  try {
    m = JSON.parse(text) as Manifest;
  } catch {
    throw new IndexCorruptError(`the index manifest in ${dir} is not valid JSON (half-written or damaged)`);
  }
  if (!m || typeof m !== 'object' || m.format !== MANIFEST_FORMAT || typeof m.sources !== 'object' || typeof m.shards !== 'object') {
    throw new IndexCorruptError(`the index manifest in ${dir} has an unknown or damaged format`);
  }
  m.vectors ??= {};
  m.skipped ??= {};
  return m;
}

/** Changes whenever the set of indexed passages changes. */
export function computeFingerprint(m: Manifest): string {
  const parts = [`f${m.format}`, `c${m.chunker}`, `l${m.lexical}`];
  for (const id of Object.keys(m.sources).sort()) {
    const s = m.sources[id];
    parts.push(`${id}:${s.contentHash}:${s.sourceType}:${s.citekey ?? ''}:${s.collections.join('|')}:${s.title}`);
  }
  return sha256(parts.join('\n')).slice(0, 24);
}

export async function writeManifest(dir: string, m: Manifest): Promise<void> {
  m.fingerprint = computeFingerprint(m);
  m.updatedAt = new Date().toISOString();
  await writeFileAtomic(path.join(dir, 'manifest.json'), JSON.stringify(m));
}

/** The files the manifest names (passage shards, vector shard folders): everything else is garbage. */
export function liveFiles(m: Manifest): Set<string> {
  const keep = new Set<string>();
  for (const s of Object.values(m.shards)) {
    keep.add(s.file);
    if (s.postings) keep.add(s.postings.file);
  }
  for (const set of Object.values(m.vectors)) for (const v of Object.values(set.shards)) keep.add(v.dir);
  return keep;
}
