/**
 * Notices that the Zotero library changed, cheaply, while the user works: the local API's
 * library versions when Zotero answers (one small request per library, answered 304 while
 * nothing changed), else the sizes and times of `zotero.sqlite` and `zotero.sqlite-wal` (Zotero
 * writes new items to the WAL first). The callback comes debounced, within ≤ 10 s of a change
 * with the defaults; re-reading and re-indexing only what changed is the caller's job.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ZOTERO_BASE_URL, ZoteroHttpError, zoteroRequest } from './http';

export interface WatchZoteroOptions {
  /** Zotero's local API (default: at Zotero's address); false: watch the database files only. */
  localApi?: { baseUrl?: string; timeoutMs?: number } | false;
  /**
   * Zotero's data directory: its database files are watched when the API does not answer. A
   * function is asked on each look that needs it (the directory found from Zotero's profile can change).
   */
  dataDir?: string | (() => Promise<string | undefined>);
  /** Between two looks (default 2 s). */
  intervalMs?: number;
  /** Quiet time after a change before the callback (default 1.5 s): a sync or an import is one change. */
  debounceMs?: number;
  /** Longest wait from the first change to the callback while changes keep coming (default 6 s). */
  maxWaitMs?: number;
  /** The stamp the caller's snapshot was read at (ZoteroSnapshot.stamp): a different first look is a change. */
  since?: string;
  /** Called with the new stamp once the library changed and settled. */
  onChange: (stamp: string) => void | Promise<void>;
  onError?: (err: Error) => void;
}

export interface ZoteroWatch {
  stop(): void;
  /** The latest stamp seen (undefined before the first look). */
  readonly stamp: string | undefined;
}

export function watchZotero(o: WatchZoteroOptions): ZoteroWatch {
  const interval = o.intervalMs ?? 2000;
  const debounce = o.debounceMs ?? 1500;
  const maxWait = o.maxWaitMs ?? 6000;
  const controller = new AbortController();
  let stopped = false;
  let last = o.since;
  let reported = o.since;
  let firstChangeAt: number | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let fireTimer: NodeJS.Timeout | undefined;

  const fire = async () => {
    fireTimer = undefined;
    firstChangeAt = undefined;
    if (stopped || last === undefined || last === reported) return;
    reported = last;
    try {
      await o.onChange(last);
    } catch (err) {
      o.onError?.(err instanceof Error ? err : new Error(String(err)));
    }
  };

  const look = async () => {
    pollTimer = undefined;
    if (stopped) return;
    try {
      const stamp = await zoteroStamp(o, controller.signal);
      if (stamp !== undefined && !stopped) {
        if (reported === undefined) reported = last = stamp;
        else if (stamp !== last) {
          last = stamp;
          const now = Date.now();
          firstChangeAt ??= now;
          clearTimeout(fireTimer);
          const wait = Math.max(0, Math.min(debounce, firstChangeAt + maxWait - now));
          fireTimer = setTimeout(() => void fire(), wait);
        }
      }
    } catch (err) {
      if (!stopped) o.onError?.(err instanceof Error ? err : new Error(String(err)));
    }
    if (!stopped) pollTimer = setTimeout(() => void look(), interval);
  };
  void look();

  return {
    stop() {
      stopped = true;
      controller.abort();
      clearTimeout(pollTimer);
      clearTimeout(fireTimer);
    },
    get stamp() {
      return last;
    },
  };
}

/**
 * The library's change stamp now: the local API's (same form as LocalApiReader's snapshot
 * stamps) when Zotero answers, else the database files'; undefined when neither can be looked at.
 */
export async function zoteroStamp(o: Pick<WatchZoteroOptions, 'localApi' | 'dataDir'>, signal?: AbortSignal): Promise<string | undefined> {
  if (o.localApi !== false) {
    const api = await localApiStamp(o.localApi?.baseUrl ?? ZOTERO_BASE_URL, o.localApi?.timeoutMs ?? 5000, signal);
    if (api) return api;
  }
  const dataDir = typeof o.dataDir === 'function' ? await o.dataDir() : o.dataDir;
  return dataDir ? databaseStamp(dataDir) : undefined;
}

async function localApiStamp(baseUrl: string, timeoutMs: number, signal?: AbortSignal): Promise<string | undefined> {
  const base = `${baseUrl.replace(/\/+$/, '')}/api/`;
  const get = (p: string) => zoteroRequest(base + p, { headers: { 'Zotero-API-Version': '3' } }, { timeoutMs, maxBytes: 4 * 1024 * 1024, signal });
  try {
    const groups = await get('users/0/groups?format=versions');
    if (groups.status !== 200) return undefined;
    const serverId = groups.headers.get('zotero-server-id') ?? 'unknown';
    const ids = ['users/0', ...Object.keys(JSON.parse(groups.body) as Record<string, unknown>).map((id) => `groups/${id}`)];
    const versions: string[] = [];
    for (const id of ids) {
      // The saved searches: a list Zotero holds in memory and a few bytes as keys, whose answer
      // carries the library's version (any list does) without Zotero searching its items.
      const res = await get(`${id}/searches?format=keys`);
      if (res.status !== 200) return undefined;
      versions.push(`${id}@${res.headers.get('last-modified-version') ?? '?'}`);
    }
    return `local-api:${serverId}:${versions.join(',')}`;
  } catch (err) {
    if (err instanceof ZoteroHttpError && err.reason === 'aborted') throw err;
    return undefined;
  }
}

/** Sizes and modification times of zotero.sqlite and its WAL; a missing WAL (checkpointed, Zotero closed) counts as empty. */
export async function databaseStamp(dataDir: string): Promise<string | undefined> {
  const look = async (f: string) => {
    try {
      const s = await fs.stat(path.join(dataDir, f));
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  const [db, wal] = await Promise.all([look('zotero.sqlite'), look('zotero.sqlite-wal')]);
  return db === '-' ? undefined : `database:${db}:${wal}`;
}
