/**
 * One writer at a time per index: an exclusive lock file, created atomically (a
 * hard link, which fails when the name exists). A second process waits (up to
 * `waitMs`) and then refuses with a message that says who holds the lock; a lock
 * left by a dead process is taken over.
 *
 * Creating can never replace a lock; only removing one can let two writers in. So
 * every removal of a lock file — a dead holder's taken over, or a holder's own at
 * release — happens under a short-lived guard (`index.lock.guard`, held for a few
 * milliseconds) and after reading the lock again under it: a lock judged stale a
 * moment earlier that a live process has replaced meanwhile is left alone.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EngineError } from '../../../shared/errors';
import { makeDir, writeFailure } from '../../util/atomicWrite';
import { isMissing, readConfinedSync, readConfinedText } from '../../util/confinedFiles';

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
  /** Tells this acquisition's lock file from any other (release removes only its own). */
  token?: string;
}

/** Held only while a lock file is removed; one left by a killed process is stale after this long. */
export const GUARD_FILE = 'index.lock.guard';
const GUARD_STALE_MS = 10_000;
const GUARD_WAIT_MS = 30_000;

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
  const info: LockInfo = {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
    what: opts.what ?? 'index',
    token: randomBytes(8).toString('hex'),
  };
  const content = JSON.stringify(info);
  const deadline = Date.now() + (opts.waitMs ?? 30_000);
  let told = false;
  for (;;) {
    try {
      if (await createLockFile(file, content)) break;
    } catch (err) {
      throw writeFailure(err, file);
    }
    // Unreadable (permissions): another process's, to wait for.
    const holder = await readHolder(file).catch(() => 'another process');
    if (holder === GONE) continue; // released meanwhile: try again at once
    if (holder === 'stale') {
      await takeOver(dir, file);
      continue;
    }
    if (!told) {
      opts.onWait?.(holder);
      told = true;
    }
    if (Date.now() >= deadline) {
      throw new IndexBusyError(`The index in ${dir} is being updated by another process (${holder}). Try again when it has finished.`);
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
    // Only our own lock: a holder suspended past STALE_MS may have been taken over since.
    const removeOwn = async () => {
      if ((await readLock(file).catch(() => undefined)) === content) await fs.rm(file, { force: true });
    };
    // Under the guard; where the guard's few bytes cannot be written (a full disk, the run
    // failing on it), without: a live holder's lock is never stale, so no one removes it meanwhile.
    await withGuard(dir, removeOwn).catch(removeOwn);
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
 * Removes a stale lock without racing other processes that judged it stale too: under
 * the guard, the lock is read again and removed only if it is still stale. (Renaming it
 * away first, as this did before, could move a live lock that had just replaced the stale
 * one, and a third process could take the free name before it was put back: two holders,
 * seen by the stress suite.)
 */
async function takeOver(dir: string, file: string): Promise<void> {
  await withGuard(dir, async () => {
    // Only a lock that is there and stale: a lock can appear at any moment (creating needs no
    // guard), so "not there" must never lead to a removal by name — that would remove the new one.
    if ((await readHolder(file).catch(() => 'unreadable')) === 'stale') await fs.rm(file, { force: true });
  });
}

/**
 * Runs `fn` holding the guard. The guard is taken like the lock (an atomic link); a
 * guard left by a killed process (dead pid on this host, or older than GUARD_STALE_MS)
 * is removed after it has been read again. The index folder gone (a removed workspace):
 * nothing to guard, `fn` is not run.
 */
async function withGuard(dir: string, fn: () => Promise<void>): Promise<void> {
  const guard = path.join(dir, GUARD_FILE);
  const mine = JSON.stringify({ pid: process.pid, host: os.hostname(), token: randomBytes(8).toString('hex') });
  const deadline = Date.now() + GUARD_WAIT_MS;
  for (;;) {
    try {
      if (await createLockFile(guard, mine)) break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw writeFailure(err, guard);
    }
    const seen = await readLock(guard).catch(() => undefined);
    if (seen !== undefined && (await guardIsStale(guard, seen))) {
      // Read again just before: a live process's new guard is never removed for a dead one's.
      if ((await readLock(guard).catch(() => undefined)) === seen) await fs.rm(guard, { force: true });
      continue;
    }
    if (Date.now() >= deadline)
      throw new IndexBusyError(`The lock of the index in ${dir} could not be checked: ${guard} has been held for ${GUARD_WAIT_MS / 1000} s.`);
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
  }
  try {
    await fn();
  } finally {
    await fs.rm(guard, { force: true });
  }
}

async function guardIsStale(guard: string, text: string): Promise<boolean> {
  try {
    const g = JSON.parse(text) as { pid: number; host: string };
    if (g.host === os.hostname() && !pidAlive(g.pid)) return true;
  } catch {
    /* judged by age */
  }
  const st = await fs.stat(guard).catch(() => undefined);
  return !!st && Date.now() - st.mtimeMs > GUARD_STALE_MS;
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
  const holder = await readHolder(file).catch(() => 'stale');
  return holder === 'stale' || holder === GONE ? undefined : holder;
}

/** A lock whose holder ended without releasing it (killed, crashed): who it was. */
export interface AbandonedLock {
  pid: number;
  host: string;
  since: string;
  what: string;
}

/**
 * The lock of the index in `dir` when its holder is gone (its process has ended, on this host, or
 * it has not refreshed the lock for STALE_MS): the next writer takes it over. Undefined when
 * there is no lock or a live process holds it.
 */
export async function abandonedLock(dir: string): Promise<AbandonedLock | undefined> {
  const file = path.join(dir, LOCK_FILE);
  if ((await readHolder(file).catch(() => undefined)) !== 'stale') return undefined;
  try {
    const info = JSON.parse(await readLock(file)) as LockInfo;
    return { pid: info.pid, host: info.host, since: info.since, what: info.what };
  } catch {
    return { pid: 0, host: '', since: '', what: 'index' };
  }
}

/** A lock or guard file's text (the product's own file, in the index folder). */
const readLock = async (file: string): Promise<string> => (await readConfinedText(file, { kind: 'index', maxBytes: 1 << 20 })).text;

/** readHolder's answer for a lock file that is not there (released, or never made). */
const GONE = 'gone';

/** 'stale' (a dead or silent holder), GONE, or who holds the lock. */
async function readHolder(file: string): Promise<string> {
  let text: string;
  let st: Awaited<ReturnType<typeof fs.stat>>;
  try {
    [text, st] = await Promise.all([readLock(file), fs.stat(file)]);
  } catch (err) {
    if (isMissing(err)) return GONE;
    throw err;
  }
  try {
    const info = JSON.parse(text) as LockInfo;
    const sameHost = info.host === os.hostname();
    if (sameHost && !pidAlive(info.pid)) return 'stale';
    if (Date.now() - st.mtimeMs > STALE_MS) return 'stale';
    return `pid ${info.pid} on ${info.host}, ${info.what} since ${info.since}`;
  } catch {
    // A half-written lock (where locks are created without hard links): judged by age only.
    return Date.now() - st.mtimeMs > STALE_MS ? 'stale' : 'another process';
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A process that has ended but that its parent has not reaped yet (a zombie) still answers
  // signal 0: on Linux its state says it is gone.
  try {
    const stat = readConfinedSync(`/proc/${pid}/stat`, { kind: 'system' }).bytes.toString('latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
