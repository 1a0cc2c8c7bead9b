/**
 * Removing an index (for "Rebuild Index"): under the writer lock, so a running
 * indexer is never pulled from under its feet. The analysis cache is kept
 * (its entries are keyed by the index fingerprint and simply stop matching).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { acquireLock } from './lock';
import { indexDir } from './manifest';

export async function removeIndex(workspace: string, opts: { lockWaitMs?: number } = {}): Promise<void> {
  const dir = indexDir(workspace);
  const release = await acquireLock(dir, { waitMs: opts.lockWaitMs, what: 'rebuilding' });
  try {
    await fs.rm(path.join(dir, 'manifest.json'), { force: true });
    await fs.rm(path.join(dir, 'passages'), { recursive: true, force: true });
    await fs.rm(path.join(dir, 'vectors'), { recursive: true, force: true });
  } finally {
    await release();
  }
}
