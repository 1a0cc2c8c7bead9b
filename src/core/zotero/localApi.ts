/**
 * Reads Zotero through its local API (Zotero 7 and later: `http://127.0.0.1:23119/api/`, the
 * web API v3 served by the desktop app), once the user has allowed other applications to talk
 * to Zotero. Read-only: only GET requests, nothing is ever written into Zotero.
 *
 * Incremental: the versions the API gives are only meaningful for one Zotero instance (its
 * `Zotero-Server-ID`), so the last snapshot is kept per server ID; the next read asks each
 * library `If-Modified-Since-Version` (304: nothing to fetch), else fetches `since=<version>`
 * and finds what left (trashed or deleted) by the key list of `format=versions`. The local API
 * has no `/deleted` endpoint, unlike the web API; the key list is its cheap stand-in.
 *
 * What the API answers is bounded as the database reader bounds it (bounds.ts): each field cut,
 * each list capped, and an object whose key is not a Zotero key left out (a key goes into the
 * URL `items/<key>/file`).
 */
import * as path from 'node:path';
import { FieldCuts, isZoteroKey, shownKey, ZOTERO_LIMITS as L } from './bounds';
import { ZOTERO_BASE_URL, ZoteroHttpError, zoteroRequest, type ZoteroHttpResponse } from './http';
import { ZoteroUnavailable, type ZoteroAttachment, type ZoteroLibraryInfo, type ZoteroReader, type ZoteroSnapshot } from './model';
import { assemble, dataDirOf, filePath, toEntry, type ApiObject, type Entry, type LibraryState, type ServerState } from './localApiItems';

export const ENABLE_LOCAL_API_HINT =
  'To let Similar Sources read Zotero while it runs, enable Zotero → Settings → Advanced → "Allow other applications on this computer to communicate with Zotero" (Zotero 7 or later).';

export interface LocalApiOptions {
  /** Default http://127.0.0.1:23119 (tests give their fake server's). */
  baseUrl?: string;
  /** Per request (default 15 s). */
  timeoutMs?: number;
  /** Largest response read (default 64 MiB). */
  maxBytes?: number;
  /** Objects asked per page (default 1000): bounds each response. */
  pageSize?: number;
  /**
   * The data directory the user chose: when the Zotero that answers keeps its files elsewhere
   * (another profile, another data directory), this path is not used and the next one reads the one chosen.
   */
  dataDir?: string;
}

const shared = new Map<string, LocalApiReader>();

/**
 * One reader per address and data directory for the whole process: a host that re-reads Zotero
 * on every index run (the VS Code extension) reads only what changed since its last run.
 */
export function sharedLocalApiReader(o: LocalApiOptions = {}): LocalApiReader {
  const id = JSON.stringify([o.baseUrl ?? ZOTERO_BASE_URL, o.dataDir ? path.resolve(o.dataDir) : '', o.timeoutMs, o.maxBytes, o.pageSize]);
  let reader = shared.get(id);
  if (!reader) shared.set(id, (reader = new LocalApiReader(o)));
  return reader;
}

const PATH_CONCURRENCY = 8;

export class LocalApiReader implements ZoteroReader {
  readonly name = 'local-api' as const;
  private readonly base: string;
  private readonly states = new Map<string, ServerState>();

  constructor(private readonly o: LocalApiOptions = {}) {
    this.base = (o.baseUrl ?? ZOTERO_BASE_URL).replace(/\/+$/, '');
  }

  async read(opts: { signal?: AbortSignal; previous?: ZoteroSnapshot } = {}): Promise<ZoteroSnapshot> {
    const groupsRes = await this.get('users/0/groups', opts.signal, true);
    const serverId = groupsRes.headers.get('zotero-server-id') ?? 'unknown';
    const known = this.states.get(serverId) ?? fromSnapshot(opts.previous, serverId);
    const cuts = new FieldCuts();
    const badKeys: string[] = [];
    const libraries: ZoteroLibraryInfo[] = [{ id: 'users/0', type: 'user', name: 'My Library' }];
    const groups = parseJson(groupsRes, 'users/0/groups');
    for (const g of Array.isArray(groups) ? (groups as { id?: unknown; data?: { id?: unknown; name?: unknown } }[]) : []) {
      const id = Number(g?.id ?? g?.data?.id);
      if (!Number.isInteger(id)) continue;
      const name = typeof g.data?.name === 'string' ? (cuts.text(g.data.name, L.libraryName, `group ${id}`, 'name') ?? '') : `Group ${id}`;
      libraries.push({ id: `groups/${id}`, type: 'group', name, groupId: id });
    }
    // Groups in id order: the stamp then reads the same as watch.ts's.
    libraries.sort((a, b) => (a.groupId ?? -1) - (b.groupId ?? -1));
    const warnings: string[] = [];
    const next: ServerState = { serverId, libraries: new Map() };
    for (const info of libraries) {
      try {
        next.libraries.set(info.id, await this.readLibrary(info, known?.libraries.get(info.id), { cuts, badKeys }, opts.signal));
      } catch (err) {
        // The user's own library is the one that matters: when it cannot be read, this path is not usable.
        if (info.type === 'user' || err instanceof ZoteroHttpError || !(err instanceof ZoteroUnavailable)) throw err;
        warnings.push(`Zotero group "${info.name}" could not be read through the local API: ${err.message}`);
        const old = known?.libraries.get(info.id);
        if (old) next.libraries.set(info.id, old);
      }
    }
    const cut = cuts.warning();
    if (cut) warnings.push(cut);
    if (badKeys.length)
      warnings.push(
        `objects whose key is not a Zotero key were left out: ${badKeys.slice(0, 20).join('; ')}${badKeys.length > 20 ? `; and ${badKeys.length - 20} more` : ''}`,
      );
    const snapshot = assemble(next, warnings);
    snapshot.dataDir = dataDirOf(snapshot.items);
    if (this.o.dataDir && snapshot.dataDir && path.resolve(snapshot.dataDir) !== path.resolve(this.o.dataDir)) {
      throw new ZoteroUnavailable(`The Zotero that is running keeps its library in ${snapshot.dataDir}, not in ${this.o.dataDir}.`);
    }
    this.states.set(serverId, next);
    return snapshot;
  }

  private async readLibrary(
    info: ZoteroLibraryInfo,
    prev: LibraryState | undefined,
    seen: { cuts: FieldCuts; badKeys: string[] },
    signal?: AbortSignal,
  ): Promise<LibraryState> {
    const prefix = info.id;
    const entries = new Map<string, Entry>();
    let version: number | undefined;
    let since = '';
    if (prev?.info.version !== undefined) {
      const versionsRes = await this.get(`${prefix}/items?format=versions`, signal, true, { 'If-Modified-Since-Version': String(prev.info.version) });
      if (versionsRes.status === 304) return { ...prev, info: { ...info, version: prev.info.version } };
      version = Number(versionsRes.headers.get('last-modified-version'));
      const live = parseJson(versionsRes, `${prefix}/items?format=versions`) as Record<string, number>;
      // Unchanged objects are kept; those no longer listed were trashed or deleted.
      for (const [key, entry] of prev.entries) if (Object.hasOwn(live, key)) entries.set(key, entry);
      since = `&since=${prev.info.version}`;
    }
    // Oldest first: an item added while the pages are read lands on the last page, shifting none.
    const { objects: changed, version: listVersion } = await this.getAll(`${prefix}/items?sort=dateAdded&direction=asc${since}`, signal);
    // A full read takes the version its first page was answered at: what changes during the read is fetched again next time.
    version ??= listVersion;
    const unresolved: ZoteroAttachment[] = [];
    for (const obj of changed) {
      if (!isZoteroKey(obj.key)) {
        seen.badKeys.push(`${shownKey(obj.key)} in ${info.name}`);
        continue;
      }
      const entry = toEntry(obj, prefix, seen.cuts);
      if (!entry) {
        entries.delete(obj.key);
        continue;
      }
      entries.set(obj.key, entry);
      if (entry.kind === 'attachment' && !entry.attachment.path && entry.attachment.linkMode !== 'linked_url') {
        unresolved.push(entry.attachment);
      }
    }
    await inPool(unresolved, PATH_CONCURRENCY, (a) => this.resolvePath(prefix, a, signal));
    const collections = new Map<string, { key: string; name: string; parentKey?: string }>();
    for (const c of (await this.getAll(`${prefix}/collections`, signal)).objects) {
      // Zotero 7 keeps trashed collections with `deleted` set: their items are not filed there any more.
      if (c.data.deleted === true || c.data.deleted === 1) continue;
      const parent = c.data.parentCollection;
      const name = seen.cuts.text(String(c.data.name ?? c.key), L.collectionName, `collection ${shownKey(c.key)}`, 'collection name')!;
      collections.set(c.key, { key: c.key, name, parentKey: typeof parent === 'string' ? parent : undefined });
    }
    return { info: { ...info, version: version !== undefined && Number.isFinite(version) ? version : undefined }, entries, collections };
  }

  /** The file behind an attachment the item JSON gives no local path for (linked files relative to the base directory, files without an enclosure). */
  private async resolvePath(prefix: string, a: ZoteroAttachment, signal?: AbortSignal): Promise<void> {
    const res = await this.get(`${prefix}/items/${a.key}/file/view/url`, signal, false).catch((err) => {
      if (err instanceof ZoteroHttpError && (err.reason === 'aborted' || err.reason === 'refused')) throw err;
      return undefined;
    });
    const url = res?.status === 200 ? res.body.trim() : '';
    if (url.startsWith('file:') && url.length <= 3 * L.path) a.path = filePath(url);
  }

  /** Every page of a list: `start`/`limit` until `Total-Results` are read (or a short page says the end). */
  private async getAll(pathAndQuery: string, signal?: AbortSignal): Promise<{ objects: ApiObject[]; version?: number }> {
    const limit = this.o.pageSize ?? 1000;
    const objects: ApiObject[] = [];
    let version: number | undefined;
    const sep = pathAndQuery.includes('?') ? '&' : '?';
    for (let start = 0; ;) {
      const res = await this.get(`${pathAndQuery}${sep}start=${start}&limit=${limit}`, signal, true);
      if (start === 0) version = Number(res.headers.get('last-modified-version'));
      const page = parseArray(res, pathAndQuery);
      for (const o of page) objects.push(o);
      start += page.length;
      const total = Number(res.headers.get('total-results'));
      const hasNext = /rel="next"/.test(res.headers.get('link') ?? '');
      if (page.length === 0 || (!hasNext && !(Number.isFinite(total) && start < total))) return { objects, version };
    }
  }

  private async get(pathAndQuery: string, signal: AbortSignal | undefined, fatal: boolean, headers?: Record<string, string>): Promise<ZoteroHttpResponse> {
    const url = `${this.base}/api/${pathAndQuery}`;
    let res: ZoteroHttpResponse;
    try {
      res = await zoteroRequest(
        url,
        { headers: { 'Zotero-API-Version': '3', ...headers } },
        { timeoutMs: this.o.timeoutMs, maxBytes: this.o.maxBytes, signal },
      );
    } catch (err) {
      if (!(err instanceof ZoteroHttpError)) throw err;
      if (err.reason === 'aborted') throw err;
      if (err.reason === 'refused') throw new ZoteroUnavailable(`Zotero is not running (nothing answers at ${new URL(this.base).host}).`);
      throw new ZoteroUnavailable(`Zotero's local API did not answer properly: ${err.message}.`);
    }
    if (res.status === 200 || res.status === 304) return res;
    if (res.status === 403) {
      throw new ZoteroUnavailable(`Zotero is running but its local API is off (${res.body.trim() || '403 Forbidden'}).`, ENABLE_LOCAL_API_HINT);
    }
    if (!fatal) return res;
    if (res.status === 404 && pathAndQuery.startsWith('users/0/')) {
      throw new ZoteroUnavailable('This Zotero has no local API (it came with Zotero 7).', ENABLE_LOCAL_API_HINT);
    }
    throw new ZoteroUnavailable(`Zotero's local API answered ${res.status} to ${pathAndQuery}: ${res.body.trim().slice(0, 200)}`);
  }
}

function parseJson(res: ZoteroHttpResponse, what: string): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    throw new ZoteroUnavailable(`Zotero's local API answered ${what} with something that is not JSON.`);
  }
}

function parseArray(res: ZoteroHttpResponse, what: string): ApiObject[] {
  const v = parseJson(res, what);
  if (!Array.isArray(v)) throw new ZoteroUnavailable(`Zotero's local API answered ${what} with something other than a list.`);
  return v.filter((o): o is ApiObject => !!o && typeof o === 'object' && typeof o.key === 'string' && !!o.data && typeof o.data === 'object');
}

/** Runs `f` over `xs` with at most `n` at a time. */
async function inPool<T>(xs: T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < xs.length) await f(xs[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(n, xs.length) }, worker));
}

/** A previous snapshot of this same Zotero (same server ID) → the state to merge into; undefined when it cannot be rebuilt faithfully. */
function fromSnapshot(prev: ZoteroSnapshot | undefined, serverId: string): ServerState | undefined {
  if (!prev || prev.via !== 'local-api' || !prev.stamp.startsWith(`local-api:${serverId}:`)) return undefined;
  const state: ServerState = { serverId, libraries: new Map() };
  for (const info of prev.libraries) {
    const cols = prev.collections.filter((c) => c.libraryId === info.id);
    const keyOfPath = new Map<string, string>();
    for (const c of cols) {
      // Two sibling collections of one name share a path: the items' keys cannot be told apart.
      if (keyOfPath.has(c.path)) return undefined;
      keyOfPath.set(c.path, c.key);
    }
    const entries = new Map<string, Entry>();
    const attachmentKeys = new Set<string>();
    for (const item of prev.items.filter((i) => i.libraryId === info.id)) {
      const standalone = item.itemType === 'attachment' && item.attachments.length === 1 && item.attachments[0].key === item.key;
      for (const a of item.attachments) {
        entries.set(a.key, {
          kind: 'attachment',
          parentKey: standalone ? undefined : item.key,
          attachment: { ...a },
          dateModified: standalone ? item.dateModified : undefined,
        });
        attachmentKeys.add(a.key);
      }
      if (standalone) continue;
      const collectionKeys = item.collections.map((p) => keyOfPath.get(p)).filter((k): k is string => !!k);
      // Keys given after the read (an export's, generated ones) are given again; the item's own stay.
      const own = item.citekeyFrom === 'zotero' || item.citekeyFrom === 'better-bibtex';
      const keyed = own ? {} : { citekey: '', citekeyFrom: 'generated' as const };
      entries.set(item.key, { kind: 'item', item: { ...item, ...keyed, collections: [], attachments: [] }, collectionKeys });
    }
    for (const a of prev.annotations) if (attachmentKeys.has(a.attachmentKey)) entries.set(a.key, { kind: 'annotation', annotation: a });
    state.libraries.set(info.id, {
      info,
      entries,
      collections: new Map(cols.map((c) => [c.key, { key: c.key, name: c.name, parentKey: c.parentKey }])),
    });
  }
  return state;
}
