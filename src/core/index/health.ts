/**
 * The index's health (shared/health.ts) from its manifest and lock: whether it
 * can serve a model, or why not. Read from the manifest alone (no shard), so
 * status displays and pre-analysis checks stay cheap.
 */
import { EngineError } from '../../shared/errors';
import type { IndexHealth } from '../../shared/health';
import { lockHolder } from './store/lock';
import { IndexCorruptError, indexDir, outdatedReason, readManifest, type Manifest } from './store/manifest';

/**
 * The health of the index in `dir` for the model stored under `modelKey` (a
 * provider's `key`); without a model, whether it is readable at all.
 */
export async function healthOf(dir: string, manifest: Manifest | undefined, modelKey?: string, opts: HealthOptions = {}): Promise<IndexHealth> {
  const notReady = manifestHealth(dir, manifest, modelKey, opts);
  if (notReady.state === 'ready') return notReady;
  // Not usable yet, and another process is writing it: it is being built, not missing.
  const holder = await lockHolder(dir);
  return holder && notReady.state !== 'corrupt' ? { state: 'indexing', dir, holder } : notReady;
}

export interface HealthOptions {
  /**
   * The model's vectors are computed in the background (embedPending): an index with
   * some or none of them is `ready` with its `semantic` progress, not `incomplete`.
   */
  partial?: boolean;
}

/** How many of the index's passages have a vector of `modelKey` (from the manifest alone). */
export function vectorProgress(m: Manifest, modelKey: string): { embedded: number; total: number } {
  const set = m.vectors[modelKey];
  let embedded = 0;
  let total = 0;
  for (const [key, shard] of Object.entries(m.shards)) {
    total += shard.passages;
    const v = set?.shards[key];
    if (!v) continue;
    embedded += v.passagesGen === shard.gen ? shard.passages : Math.min(v.items, shard.passages);
  }
  return { embedded, total };
}

function manifestHealth(dir: string, m: Manifest | undefined, modelKey: string | undefined, opts: HealthOptions): IndexHealth {
  if (!m) return { state: 'missing', dir };
  // Stored terms and passages must be this version's, or queries would miss them silently.
  const outdated = outdatedReason(m);
  if (outdated) return { state: 'outdated', dir, detail: outdated };
  if (modelKey === undefined && m.activeModel && m.vectors[m.activeModel] && m.vectors[m.activeModel].provider !== 'embedded') {
    // The model the index was last written for: its vectors may still be computed in the background
    // (the embedded model's never are: an index without all of them is incomplete for it).
    const progress = vectorProgress(m, m.activeModel);
    const ready = readyHealth(dir, m);
    return progress.embedded < progress.total ? { ...ready, semantic: { model: m.activeModel, ...progress } } : ready;
  }
  if (modelKey !== undefined && opts.partial) {
    const progress = vectorProgress(m, modelKey);
    const ready = readyHealth(dir, m);
    return progress.embedded < progress.total ? { ...ready, model: modelKey, semantic: { model: modelKey, ...progress } } : { ...ready, model: modelKey };
  }
  if (modelKey !== undefined) {
    const set = m.vectors[modelKey];
    if (!set) {
      const built = m.activeModel ? ` (it was built with ${m.activeModel})` : '';
      return { state: 'incomplete', dir, model: modelKey, detail: `the index in ${dir} has no vectors for the model ${modelKey}${built}` };
    }
    for (const key of Object.keys(m.shards)) {
      if (set.shards[key]?.passagesGen !== m.shards[key].gen) {
        return {
          state: 'incomplete',
          dir,
          model: modelKey,
          detail: `the index in ${dir} is not complete for the model ${modelKey} (an indexing run was interrupted)`,
        };
      }
    }
  }
  return readyHealth(dir, m);
}

function readyHealth(dir: string, m: Manifest): Extract<IndexHealth, { state: 'ready' }> {
  const passages = Object.values(m.shards).reduce((n, s) => n + s.passages, 0);
  const ready: Extract<IndexHealth, { state: 'ready' }> = {
    state: 'ready',
    dir,
    sources: Object.keys(m.sources).length,
    passages,
    model: m.activeModel ?? '',
    skipped: Object.keys(m.skipped).length,
  };
  const waiting = Object.values(m.sources).filter((s) => s.ocrPending);
  if (waiting.length) ready.ocr = { pending: waiting.reduce((n, s) => n + (s.ocrPending ?? 0), 0), files: waiting.length };
  return ready;
}

/** The health of a workspace's index; never throws (a damaged manifest is `corrupt`). */
export async function indexHealth(workspace: string, modelKey?: string, opts: HealthOptions = {}): Promise<IndexHealth> {
  const dir = indexDir(workspace);
  try {
    return await healthOf(dir, await readManifest(dir), modelKey, opts);
  } catch (err) {
    return { state: 'corrupt', dir, detail: (err as Error).message };
  }
}

/** The error for an index that cannot serve: its message says what to do. */
export function notReadyError(h: IndexHealth): EngineError {
  // A server out of reach is not an index to build: its own code, as when a connection fails.
  return new EngineError(h.state === 'unreachable' ? 'server-unreachable' : 'index-not-ready', notReadyMessage(h), h);
}

export function notReadyMessage(h: IndexHealth): string {
  switch (h.state) {
    case 'missing':
      if (h.server) return `Nothing is published on ${h.dir}. Publish the library there first (similar-sources index --server <url>).`;
      return `No library index in ${h.dir}. Index the library first (similar-sources index --library <folder>).`;
    case 'outdated':
      return `The index in ${h.dir} was ${h.detail}. Index the library again to bring it up to date.`;
    case 'incomplete':
      return `${capitalise(h.detail)}. Index the library with this model (similar-sources index) to complete it.`;
    case 'corrupt':
      return `The library index is damaged: ${h.detail}. Index the library again to rebuild it.`;
    case 'unreachable':
      return `${capitalise(h.detail)}. Try again when it can be reached (the analyses cached here are still shown in the editor).`;
    case 'indexing':
      return 'The library is being indexed; try again when indexing has finished.';
    case 'ready':
      return 'The library index is ready.';
  }
}

/** A damaged file found while reading: the same error as a damaged manifest. */
export function corruptError(dir: string, err: IndexCorruptError): EngineError {
  return notReadyError({ state: 'corrupt', dir, detail: err.message });
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
