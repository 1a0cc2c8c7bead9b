/**
 * One writer at a time per index: an exclusive lock file created with O_EXCL.
 * A second process waits (up to `waitMs`) and then refuses with a message that
 * says who holds the lock; a lock left by a dead process is taken over.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EngineError } from '../../shared/errors';
import { makeDir, writeFailure } from '../util/atomicWrite';

/** Another process holds the writer lock (code `locked`); the message says who. */
export class IndexBusyError extends EngineError {
  constructor(message: string) {
    super('locked', message);
    this.name = 'IndexBusyError';
  }
}

/** The lock file, inside the index folder. */
export const LOCK_FILE = 'index.lock';

interface LockInfo {
  pid: number;
  host: string;
  since: string;
  what: string;
}

/** A holder refreshes the lock file this often; one not refreshed for STALE_MS is abandoned. */
const HEARTBEAT_MS = 5_000;
const STALE_MS = 60_000;

export interface LockOptions {
  waitMs?: number;
  what?: string;
  onWait?: (holder: string) => void;
}

export async function acquireLock(dir: string, opts: LockOptions = {}): Promise<() => Promise<void>> {
  await makeDir(dir).catch((err) => {
    throw writeFailure(err, dir);
  });
  const file = path.join(dir, LOCK_FILE);
  const info: LockInfo = { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), what: opts.what ?? 'index' };
  const deadline = Date.now() + (opts.waitMs ?? 30_000);
  let told = false;
  for (;;) {
    try {
      if (await createLockFile(file, JSON.stringify(info))) break;
    } catch (err) {
      throw writeFailure(err, file);
    }
    const holder = await readHolder(file);
    if (holder === 'stale') {
      await takeOver(file);
      continue;
    }
    if (!told) {
      opts.onWait?.(holder);
      told = true;
    }
    if (Date.now() >= deadline) {
      throw new IndexBusyError(
        `The index in ${dir} is being updated by another process (${holder}). Try again when it has finished.`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const beat = setInterval(() => {
    const now = new Date();
    fs.utimes(file, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  beat.unref();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    clearInterval(beat);
    await fs.rm(file, { force: true });
  };
}

/**
 * Creates the lock file with its content in one step: written to a temp file, then
 * hard-linked to the lock's name (link fails if the name exists). A process killed
 * midway leaves a temp file, never an empty lock that would hold off every writer
 * until it is STALE_MS old. Where hard links are not supported, O_EXCL create + write.
 * False when the lock exists.
 */
async function createLockFile(file: string, content: string): Promise<boolean> {
  await removeDeadTemps(file);
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await fs.writeFile(tmp, content);
    await fs.link(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
  } finally {
    await fs.rm(tmp, { force: true });
  }
  try {
    await fs.writeFile(file, content, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    await fs.rm(file, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Removes a stale lock without racing other processes that judged it stale too:
 * the lock is renamed away first (one process wins), judged again under its new
 * name, and given back if a live lock had replaced the stale one in between.
 * (Removing it by name could delete a lock another process had just created.)
 */
async function takeOver(file: string): Promise<void> {
  const grave = `${file}.tmp-${process.pid}-stale-${randomBytes(4).toString('hex')}`;
  try {
    await fs.rename(file, grave);
  } catch {
    return; // gone already: another process took it over
  }
  if ((await readHolder(grave)) !== 'stale') await fs.link(grave, file).catch(() => undefined);
  await fs.rm(grave, { force: true });
}

/** Temp files of lock attempts by processes of this host that are gone (killed while locking). */
async function removeDeadTemps(file: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.tmp-`;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (pid && pid !== process.pid && !pidAlive(pid)) await fs.rm(path.join(dir, name), { force: true }).catch(() => undefined);
  }
}

/** Who holds the writer lock of the index in `dir` ("pid 12 on host, index since …"), or undefined when nobody live does. */
export async function lockHolder(dir: string): Promise<string | undefined> {
  const file = path.join(dir, LOCK_FILE);
  if (!(await fs.stat(file).catch(() => undefined))) return undefined;
  const holder = await readHolder(file);
  return holder === 'stale' ? undefined : holder;
}

async function readHolder(file: string): Promise<string> {
  try {
    const [text, st] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    const info = JSON.parse(text) as LockInfo;
    const sameHost = info.host === os.hostname();
    if (sameHost && !pidAlive(info.pid)) return 'stale';
    if (Date.now() - st.mtimeMs > STALE_MS) return 'stale';
    return `pid ${info.pid} on ${info.host}, ${info.what} since ${info.since}`;
  } catch {
    // Half-written or vanished lock: judge by age only.
    const st = await fs.stat(file).catch(() => undefined);
    if (!st || Date.now() - st.mtimeMs > STALE_MS) return 'stale';
    return 'another process';
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
