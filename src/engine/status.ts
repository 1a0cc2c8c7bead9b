/**
 * What a workspace's index is, from its manifest and lock alone (no index load):
 * its health, the model it was built with, its state for the analysis cache key,
 * an interrupted run, damaged files.
 */
import type { EmbeddingProvider } from '../core/embedding/provider';
import { indexHealth as workspaceHealth } from '../core/index/health';
import { damagedSources } from '../core/index/search/libraryIndex';
import { abandonedLock, type AbandonedLock } from '../core/index/store/lock';
import { indexDir, readManifest } from '../core/index/store/manifest';
import type { IndexHealth } from '../shared/health';
import { embedsInBackground } from './provider';

/** The provider and model the index was last built with, if any. */
export async function indexedModel(workspace: string): Promise<{ provider: string; model: string } | undefined> {
  const m = await readManifest(indexDir(workspace)).catch(() => undefined);
  const set = m?.activeModel ? m.vectors[m.activeModel] : undefined;
  return set && { provider: set.provider, model: set.model };
}

/**
 * The index's health for `modelKey` (a provider's `key`; without one, whether it
 * is readable at all). From the manifest and the lock only; never throws.
 */
export function indexHealth(workspace: string, modelKey?: string, opts: { partial?: boolean } = {}): Promise<IndexHealth> {
  return workspaceHealth(workspace, modelKey, opts);
}

/** The index's health for a provider: one that embeds in the background serves before its vectors are complete. */
export function providerHealth(workspace: string, provider: Pick<EmbeddingProvider, 'id' | 'key'>): Promise<IndexHealth> {
  return workspaceHealth(workspace, provider.key, { partial: embedsInBackground(provider) });
}

/** The index's state for the analysis cache key, from the manifest alone (no index load). */
export async function indexState(workspace: string): Promise<{ fingerprint: string; updatedAt: string } | undefined> {
  const m = await readManifest(indexDir(workspace)).catch(() => undefined);
  return m && { fingerprint: m.fingerprint, updatedAt: m.updatedAt };
}

/**
 * The writer lock of the workspace's index when the run that held it ended without finishing
 * (killed, crashed): the next indexing run takes it over. Undefined when no lock is left, or a
 * live process holds it (the health says "indexing" then).
 */
export async function interruptedRun(workspace: string): Promise<AbandonedLock | undefined> {
  return abandonedLock(indexDir(workspace));
}

/** Indexed files that were damaged, with what was lost; listed until the file changes. */
export async function damagedFiles(workspace: string): Promise<Array<{ path: string; problem: string }>> {
  return damagedSources(await readManifest(indexDir(workspace)).catch(() => undefined));
}
