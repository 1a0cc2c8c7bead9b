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
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectionPaths as pathsOf, FieldCuts, isZoteroKey, pageIndexOf, shownKey, ZOTERO_LIMITS as L } from './bounds';
import { ZOTERO_BASE_URL, ZoteroHttpError, zoteroRequest, type ZoteroHttpResponse } from './http';
import {
  ZoteroUnavailable,
  type ZoteroAnnotation,
  type ZoteroAttachment,
  type ZoteroCollection,
  type ZoteroCreator,
  type ZoteroItem,
  type ZoteroLibraryInfo,
  type ZoteroReader,
  type ZoteroSnapshot,
} from './model';

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

/** One object of an API answer, as the web API v3 shapes it. */
interface ApiObject {
  key: string;
  version: number;
  links?: { enclosure?: { href?: string; type?: string; title?: string; length?: number } };
  meta?: { parsedDate?: string };
  data: Record<string, unknown>;
}

/** What a library holds, per object key: the state merged from one read to the next. */
type Entry =
  | { kind: 'item'; item: ZoteroItem; collectionKeys: string[] }
  | {
      kind: 'attachment';
      parentKey?: string;
      attachment: ZoteroAttachment;
      dateAdded?: string;
      dateModified?: string;
      /** Zotero gave the file's size in this very answer (it does only for a file on disk): no need to look again now. */
      onDisk?: boolean;
    }
  | { kind: 'annotation'; annotation: ZoteroAnnotation };

interface LibraryState {
  info: ZoteroLibraryInfo;
  entries: Map<string, Entry>;
  collections: Map<string, { key: string; name: string; parentKey?: string }>;
}

interface ServerState {
  serverId: string;
  libraries: Map<string, LibraryState>;
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

/** Code-unit order: ISO dates and keys need no locale, and 10,000 locale compares cost. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** A Zotero item JSON → what this reader keeps of it; undefined for what is never used (notes, trashed objects). */
function toEntry(obj: ApiObject, libraryId: string, cuts: FieldCuts): Entry | undefined {
  const d = obj.data;
  if (d.deleted === true || d.deleted === 1) return undefined;
  const itemType = str(d.itemType)?.slice(0, L.itemType) ?? '';
  if (itemType === 'note') return undefined;
  const text = (v: unknown, max: number, field: string, what = 'item') => cuts.text(str(v), max, `${what} ${obj.key}`, field);
  const dateModified = str(d.dateModified)?.slice(0, L.timestamp);
  if (itemType === 'annotation') {
    const attachmentKey = str(d.parentItem);
    if (!isZoteroKey(attachmentKey)) return undefined;
    return {
      kind: 'annotation',
      annotation: {
        key: obj.key,
        attachmentKey,
        type: str(d.annotationType)?.slice(0, L.itemType) ?? 'highlight',
        text: text(d.annotationText, L.annotationText, 'text', 'annotation'),
        comment: text(d.annotationComment, L.annotationComment, 'comment', 'annotation'),
        pageLabel: text(d.annotationPageLabel, L.pageLabel, 'page label', 'annotation'),
        pageIndex: pageIndexOf(d.annotationPosition),
        color: str(d.annotationColor)?.slice(0, L.color),
        dateModified,
      },
    };
  }
  if (itemType === 'attachment') {
    const linkMode = str(d.linkMode)?.slice(0, L.itemType) ?? 'imported_file';
    const contentType = str(d.contentType)?.slice(0, 100);
    const fileName = str(d.filename) ?? str(d.path) ?? '';
    if (contentType !== 'application/pdf' && !/\.pdf$/i.test(fileName)) return undefined;
    if (linkMode === 'linked_url' || linkMode === 'embedded_image') return undefined;
    const attachment: ZoteroAttachment = { key: obj.key, libraryId, linkMode, contentType, title: text(d.title, L.title, 'title', 'attachment') };
    const href = obj.links?.enclosure?.href;
    let onDisk = false;
    // A path longer than any file system's is no file: left without one (said as not on disk), never cut.
    if (typeof href === 'string' && href.startsWith('file:') && href.length <= 3 * L.path) {
      attachment.path = filePath(href);
      onDisk = typeof obj.links?.enclosure?.length === 'number';
    } else if (linkMode === 'linked_file' && str(d.path) && String(d.path).length <= L.path && path.isAbsolute(String(d.path)))
      attachment.path = String(d.path);
    const parentKey = str(d.parentItem);
    return {
      kind: 'attachment',
      parentKey: isZoteroKey(parentKey) ? parentKey : undefined,
      attachment,
      dateAdded: str(d.dateAdded)?.slice(0, L.timestamp),
      dateModified,
      onDisk,
    };
  }
  const list = (v: unknown, max: number, field: string): unknown[] => (Array.isArray(v) ? cuts.list(v, max, `item ${obj.key}`, field) : []);
  const creators: ZoteroCreator[] = list(d.creators, L.creators, 'creators')
    .filter((c): c is Record<string, unknown> => !!c && typeof c === 'object')
    .map((c) => ({
      creatorType: str(c.creatorType)?.slice(0, L.itemType) ?? 'author',
      firstName: text(c.firstName, L.name, 'creator name'),
      lastName: text(c.lastName, L.name, 'creator name'),
      name: text(c.name, L.name, 'creator name'),
    }));
  const extra = text(d.extra, L.extra, 'extra') ?? '';
  let zoteroKey = str(d.citationKey)?.trim();
  if (zoteroKey && zoteroKey.length > L.citekey) {
    cuts.note(`item ${obj.key}`, `citation key (over ${L.citekey} characters: left out, one is made)`);
    zoteroKey = undefined;
  }
  // Better BibTeX pins a key by writing "Citation Key: …" into Extra ([ \t], not \s: no line is crossed).
  const extraKey = /^[ \t]*Citation Key:[ \t]*(\S+)[ \t]*$/im.exec(extra)?.[1];
  const pinned = extraKey && extraKey.length <= L.citekey ? extraKey : undefined;
  const date = text(d.date, L.date, 'date');
  const year = Number((str(obj.meta?.parsedDate)?.slice(0, L.date) ?? date ?? '').match(/\b(\d{4})\b/)?.[1]);
  const item: ZoteroItem = {
    key: obj.key,
    libraryId,
    itemType,
    title: text(d.title, L.title, 'title') ?? text(d.caseName, L.title, 'title') ?? text(d.nameOfAct, L.title, 'title') ?? text(d.subject, L.title, 'title'),
    creators,
    date,
    year: Number.isFinite(year) ? year : undefined,
    doi: text(d.DOI, L.doi, 'DOI') ?? /^[ \t]*DOI:[ \t]*(\S+)[ \t]*$/im.exec(extra)?.[1]?.slice(0, L.doi),
    citekey: zoteroKey ?? pinned ?? '',
    citekeyFrom: zoteroKey ? 'zotero' : pinned ? 'better-bibtex' : 'generated',
    collections: [],
    tags: list(d.tags, L.tags, 'tags')
      .map((t) => (t && typeof t === 'object' ? text((t as { tag?: unknown }).tag, L.tag, 'tag') : undefined))
      .filter((t): t is string => !!t),
    deleted: false,
    attachments: [],
    dateModified,
  };
  const collectionKeys = list(d.collections, L.collections, 'collections').filter((k): k is string => typeof k === 'string');
  return { kind: 'item', item, collectionKeys };
}

/** A file: URL's path; undefined for one no file has (a host, a NUL, a path over the bound): never a thrown read. */
function filePath(url: string): string | undefined {
  try {
    const p = fileURLToPath(url);
    return p.length <= L.path && !p.includes('\0') ? p : undefined;
  } catch {
    return undefined;
  }
}

/** Each collection's path ("Thesis/Chapter 2"), bounded in depth, a parent cycle ending it. */
function collectionPaths(cols: LibraryState['collections']): Map<string, string> {
  return pathsOf(new Map([...cols].map(([k, c]) => [k, { name: c.name, parent: c.parentKey }])));
}

/** The merged state → the shared snapshot shape: attachments under their items, collection keys as paths. */
function assemble(state: ServerState, warnings: string[]): ZoteroSnapshot {
  const items: ZoteroItem[] = [];
  const collections: ZoteroCollection[] = [];
  const annotations: ZoteroAnnotation[] = [];
  const libraries: ZoteroLibraryInfo[] = [];
  for (const lib of state.libraries.values()) {
    libraries.push(lib.info);
    const paths = collectionPaths(lib.collections);
    for (const c of lib.collections.values())
      collections.push({ key: c.key, libraryId: lib.info.id, name: c.name, parentKey: c.parentKey, path: paths.get(c.key) ?? c.name });
    const byKey = new Map<string, ZoteroItem>();
    for (const e of lib.entries.values()) {
      if (e.kind !== 'item') continue;
      const item = { ...e.item, collections: e.collectionKeys.map((k) => paths.get(k)).filter((p): p is string => !!p), attachments: [] as ZoteroAttachment[] };
      byKey.set(item.key, item);
      items.push(item);
    }
    const attachments = [...lib.entries.values()].filter((e): e is Extract<Entry, { kind: 'attachment' }> => e.kind === 'attachment');
    // Zotero's order of child attachments: oldest first; the first is the one a card shows.
    attachments.sort((a, b) => cmp(a.dateAdded ?? '', b.dateAdded ?? '') || cmp(a.attachment.key, b.attachment.key));
    const pdfKeys = new Set<string>();
    for (const e of attachments) {
      const a = { ...e.attachment };
      delete a.missing;
      const parent = e.parentKey ? byKey.get(e.parentKey) : undefined;
      // A parent not listed is in the trash: its files are not indexed either.
      if (e.parentKey && !parent) continue;
      // Files known from an earlier read are looked at again: one may have gone since.
      const onDisk = e.onDisk;
      e.onDisk = false;
      if (!a.path || (!onDisk && !existsSync(a.path))) {
        a.missing = true;
        const owner = parent?.title ? ` of "${parent.title}"` : '';
        warnings.push(
          `Zotero attachment ${a.key}${a.title ? ` ("${a.title}")` : ''}${owner}: ${a.path ? `file not found: ${a.path}` : 'no local file (not downloaded?)'}`,
        );
      }
      if (parent) {
        parent.attachments.push(a);
      } else {
        // A PDF on its own in the library: an item of itself.
        items.push({
          key: a.key,
          libraryId: lib.info.id,
          itemType: 'attachment',
          title: a.title,
          creators: [],
          citekey: '',
          citekeyFrom: 'generated',
          collections: [],
          tags: [],
          deleted: false,
          attachments: [a],
          dateModified: e.dateModified,
        });
      }
      pdfKeys.add(a.key);
    }
    for (const e of lib.entries.values()) if (e.kind === 'annotation' && pdfKeys.has(e.annotation.attachmentKey)) annotations.push(e.annotation);
  }
  return { via: 'local-api', libraries, items, collections, annotations, stamp: stampOf(state), warnings };
}

/** Where Zotero keeps its files, from a stored attachment's path (<dataDir>/storage/<attachment key>/<file>). */
function dataDirOf(items: ZoteroItem[]): string | undefined {
  for (const item of items) {
    for (const a of item.attachments) {
      if (!a.path || !a.linkMode.startsWith('imported')) continue;
      const keyDir = path.dirname(a.path);
      if (path.basename(keyDir) === a.key && path.basename(path.dirname(keyDir)) === 'storage') return path.dirname(path.dirname(keyDir));
    }
  }
  return undefined;
}

export function stampOf(state: { serverId: string; libraries: Map<string, { info: ZoteroLibraryInfo }> }): string {
  return `local-api:${state.serverId}:${[...state.libraries.values()].map((l) => `${l.info.id}@${l.info.version ?? '?'}`).join(',')}`;
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
