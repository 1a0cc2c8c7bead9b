/**
 * Analysis cache under .similar-sources/cache/, one file per document. An entry
 * is valid for the same index fingerprint, model, options and reranker, within
 * its lifetime (24 h by default). Beyond whole-document hits, each segment's
 * result is keyed by its own query, so after an edit only changed segments are
 * analysed again. A corrupt file is ignored and rewritten; writes are atomic.
 */
import { SETTINGS } from '../../shared/settings';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Segment } from '../markdown/segment';
import { indexDir } from '../index/store/manifest';
import { writeFileAtomic } from '../util/atomicWrite';
import { isMissing, readConfinedText } from '../util/confinedFiles';
import { sha256 } from '../util/hash';
import type { Recommendation } from '../../shared/results';
import { SIMILARITY_VERSION } from './similarity';

export interface CacheKey {
  docHash: string;
  fingerprint: string;
  model: string;
  options: string;
  reranker: string;
}

export interface CachedSegment {
  recommendations: Recommendation[];
  at: number;
}

/** The document's segmentation, reused while the document is unchanged (no Markdown parse). */
export interface CachedLayout {
  title?: string;
  segments: Segment[];
}

interface CacheFile {
  version: number;
  key: CacheKey;
  savedAt: number;
  segments: Record<string, CachedSegment>;
  layout?: CachedLayout;
}

// The file's layout (2: excerpts only, no whole passage texts; 3: cards and passages
// carry their end page), and the similarity curve: cached cards hold similarities,
// so a new curve is a new cache.
const FORMAT = 3;
const VERSION = FORMAT * 100 + SIMILARITY_VERSION;
export const DEFAULT_CACHE_TTL_MS = SETTINGS.cacheLifetimeHours.default * 3600 * 1000;

/** A segment's result depends on its type, its query and its context — not on where it sits. */
export function segmentCacheKey(s: Segment, vectorText: string): string {
  return sha256(`${s.type}\u0000${s.query}\u0000${vectorText}`).slice(0, 20);
}

export class AnalysisCache {
  constructor(
    readonly workspace: string,
    readonly ttlMs = DEFAULT_CACHE_TTL_MS,
  ) {}

  private file(docKey: string): string {
    return path.join(indexDir(this.workspace), 'cache', `${sha256(docKey).slice(0, 24)}.json`);
  }

  /**
   * Segments reusable under `key`: all of them when the whole document is
   * unchanged (`complete`), else those whose own key still matches.
   */
  async load(
    docKey: string,
    key: CacheKey,
    log: (l: string) => void = () => undefined,
  ): Promise<{ complete: boolean; segments: Record<string, CachedSegment>; layout?: CachedLayout } | undefined> {
    let data: CacheFile;
    try {
      data = JSON.parse((await readConfinedText(this.file(docKey), { kind: 'index' })).text) as CacheFile;
    } catch (err) {
      if (!isMissing(err)) log(`analysis cache for ${docKey} is unreadable and will be rewritten`);
      return undefined;
    }
    if (!data || data.version !== VERSION || typeof data.segments !== 'object' || !data.key) {
      log(`analysis cache for ${docKey} has an unknown format and will be rewritten`);
      return undefined;
    }
    const k = data.key;
    if (k.fingerprint !== key.fingerprint || k.model !== key.model || k.options !== key.options || k.reranker !== key.reranker) return undefined;
    const now = Date.now();
    const segments: Record<string, CachedSegment> = {};
    for (const [id, s] of Object.entries(data.segments)) {
      if (s && Array.isArray(s.recommendations) && now - s.at < this.ttlMs) segments[id] = s;
    }
    const complete = k.docHash === key.docHash && now - data.savedAt < this.ttlMs && Object.keys(segments).length === Object.keys(data.segments).length;
    const layout = k.docHash === key.docHash && Array.isArray(data.layout?.segments) ? data.layout : undefined;
    return { complete, segments, layout };
  }

  async save(
    docKey: string,
    key: CacheKey,
    segments: Record<string, CachedSegment>,
    log: (l: string) => void = () => undefined,
    layout?: CachedLayout,
  ): Promise<void> {
    const data: CacheFile = { version: VERSION, key, savedAt: Date.now(), segments, layout };
    try {
      // No fsync: a cache file lost in a crash is only recomputed (load ignores a damaged one).
      await writeFileAtomic(this.file(docKey), JSON.stringify(data), { durable: false });
    } catch (err) {
      log(`could not save the analysis cache: ${(err as Error).message}`);
    }
  }

  async clear(): Promise<number> {
    const dir = path.join(indexDir(this.workspace), 'cache');
    const files = await fs.readdir(dir).catch(() => [] as string[]);
    await fs.rm(dir, { recursive: true, force: true });
    return files.length;
  }
}
