/**
 * Atomic file replacement: write a temp file beside the target, fsync, rename.
 * A crash leaves either the old file or the new one, never a truncated one.
 * `durable: false` skips the fsync, for files that can be rebuilt (the analysis
 * cache): readers there must treat an empty or truncated file as absent.
 * A failed write (full disk, read-only folder) removes its temp file and throws
 * an `unwritable` EngineError that says why in words.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EngineError } from '../../shared/errors';

export async function writeFileAtomic(file: string, data: string | Uint8Array, opts: { durable?: boolean } = {}): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await makeDir(path.dirname(file));
    const handle = await fs.open(tmp, 'w');
    try {
      await handle.writeFile(data);
      if (opts.durable !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, file);
  } catch (err) {
    // A half-written temp file on a full disk would only make it fuller.
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw writeFailure(err, file);
  }
}

/**
 * mkdir -p that reports the real cause: Node's recursive mkdir says ENOENT on a
 * read-only file system, so the last level is retried alone to get EROFS.
 */
export async function makeDir(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await fs.mkdir(dir).catch((again: NodeJS.ErrnoException) => {
      throw again.code === 'ENOENT' ? err : again;
    });
  }
}

const WHY: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

/** An `unwritable` EngineError for a write that failed for want of space or rights; other errors unchanged. */
export function writeFailure(err: unknown, file: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (!code || !WHY[code]) return err;
  return new EngineError(
    'unwritable',
    `Cannot write ${file}: ${WHY[code]} (${code}). The index keeps its last complete state; free space or choose a writable folder, then run again.`,
  );
}
