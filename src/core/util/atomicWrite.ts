/**
 * Atomic file replacement: write a temp file beside the target, fsync, rename.
 * A crash leaves either the old file or the new one, never a truncated one.
 * `durable: false` skips the fsync, for files that can be rebuilt (the analysis
 * cache): readers there must treat an empty or truncated file as absent.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';

export async function writeFileAtomic(file: string, data: string | Uint8Array, opts: { durable?: boolean } = {}): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const handle = await fs.open(tmp, 'w');
  try {
    await handle.writeFile(data);
    if (opts.durable !== false) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
