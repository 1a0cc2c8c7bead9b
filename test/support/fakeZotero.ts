/**
 * A real HTTP server on the loopback that answers as Zotero's local API does (shape learned from
 * Zotero's server_localAPI.js, not copied): `/api/users/0/…` and `/api/groups/<id>/…`, the
 * Zotero-Server-ID and Last-Modified-Version headers, `since=`, `start`/`limit` with Total-Results
 * and Link, `format=versions|keys`, If-Modified-Since-Version → 304, the trash left out of
 * `/items`, 403 while "Allow other applications…" is off, `items/<key>/file/view/url`; and a
 * Better BibTeX JSON-RPC (`item.citationkey`). Its library changes as the tests say.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';

export interface FakeObject {
  key: string;
  version: number;
  deleted?: boolean;
  dateAdded: string;
  data: Record<string, unknown>;
  /** Imported attachments: the file Zotero keeps (links.enclosure gives its file:// URL). */
  file?: string;
}

export interface FakeLibrary {
  name: string;
  groupId?: number;
  version: number;
  items: Map<string, FakeObject>;
  collections: Map<string, FakeObject>;
}

export class FakeZotero {
  serverId = 'FAKESERVER1';
  /** "Allow other applications on this computer to communicate with Zotero". */
  enabled = true;
  /** Better BibTeX's citekeys by item key ("KEY" or "libraryID:KEY"); undefined: Better BibTeX not installed (404). */
  bbt: Map<string, string> | undefined;
  readonly libraries = new Map<string, FakeLibrary>([['users/0', { name: 'My Library', version: 0, items: new Map(), collections: new Map() }]]);
  /** Requests whose path matches are answered 500 (a library Zotero fails to serve). */
  failPaths: RegExp | undefined;
  /** Requests whose path matches are never answered (until close()). */
  hangPaths: RegExp | undefined;
  /** Every request path (with its query), in order. */
  readonly requests: string[] = [];
  url = '';
  private server = createServer((req, res) => this.handle(req, res));
  private counter = 0;

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  addGroup(groupId: number, name: string): string {
    const id = `groups/${groupId}`;
    this.libraries.set(id, { name, groupId, version: 0, items: new Map(), collections: new Map() });
    return id;
  }

  newKey(): string {
    const alphabet = '23456789ABCDEFGHIJKLMNPQRSTUVWXYZ';
    let n = ++this.counter;
    let k = '';
    for (let i = 0; i < 8; i++) {
      k = alphabet[n % alphabet.length] + k;
      n = Math.floor(n / alphabet.length);
    }
    return k;
  }

  /** Adds or changes an item (any type); the library's version goes up, as on every Zotero write. */
  put(lib: string, data: Record<string, unknown> & { key?: string }, file?: string): string {
    const l = this.lib(lib);
    const key = data.key ?? this.newKey();
    const old = l.items.get(key);
    l.version++;
    l.items.set(key, {
      key,
      version: l.version,
      deleted: old?.deleted,
      dateAdded: old?.dateAdded ?? new Date(Date.UTC(2020, 0, 1) + this.counter * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
      data: { ...old?.data, ...data, key },
      file: file ?? old?.file,
    });
    return key;
  }

  putCollection(lib: string, name: string, parentKey?: string): string {
    const l = this.lib(lib);
    const key = this.newKey();
    l.version++;
    l.collections.set(key, { key, version: l.version, dateAdded: '', data: { key, name, parentCollection: parentKey ?? false } });
    return key;
  }

  trash(lib: string, key: string): void {
    const l = this.lib(lib);
    const o = l.items.get(key)!;
    l.version++;
    o.deleted = true;
    o.version = l.version;
  }

  erase(lib: string, key: string): void {
    const l = this.lib(lib);
    l.version++;
    l.items.delete(key);
  }

  private lib(id: string): FakeLibrary {
    const l = this.libraries.get(id);
    if (!l) throw new Error(`no library ${id}`);
    return l;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    this.requests.push(url.pathname + url.search);
    if (url.pathname === '/better-bibtex/json-rpc') return this.rpc(req, res);
    const send = (status: number, headers: Record<string, string | number>, body: string) => {
      res.writeHead(status, { 'Zotero-API-Version': 3, 'Zotero-Server-ID': this.serverId, ...headers });
      res.end(body);
    };
    if (this.hangPaths?.test(url.pathname)) return;
    if (this.failPaths?.test(url.pathname)) return send(500, { 'Content-Type': 'text/plain' }, 'An error occurred');
    if (!url.pathname.startsWith('/api/')) return send(404, { 'Content-Type': 'text/plain' }, 'Not found');
    if (!this.enabled) return send(403, { 'Content-Type': 'text/plain' }, 'Local API is not enabled');
    const m = /^\/api\/(users\/0|groups\/(\d+))\/(.*)$/.exec(url.pathname);
    if (!m) return send(404, { 'Content-Type': 'text/plain' }, 'Not found');
    const [, libId, , rest] = m;
    const q = url.searchParams;
    if (libId === 'users/0' && rest === 'groups') {
      const groups = [...this.libraries.values()].filter((l) => l.groupId !== undefined);
      if (q.get('format') === 'versions')
        return send(200, { 'Content-Type': 'application/json' }, JSON.stringify(Object.fromEntries(groups.map((g) => [g.groupId, 1]))));
      const json = groups.map((g) => ({ id: g.groupId, version: 1, data: { id: g.groupId, version: 1, name: g.name } }));
      return send(200, { 'Content-Type': 'application/json', 'Total-Results': json.length }, JSON.stringify(json));
    }
    const lib = this.libraries.get(libId);
    if (!lib) return send(404, { 'Content-Type': 'text/plain' }, 'Not found');
    const file = /^items\/([A-Z0-9]+)\/file\/view\/url$/.exec(rest);
    if (file) {
      const o = lib.items.get(file[1]);
      if (!o) return send(404, { 'Content-Type': 'text/plain' }, 'Not found');
      // Zotero resolves linked files (absolute, or relative to the base directory) to the file's URL.
      const p = o.file ?? (typeof o.data.path === 'string' && isAbsolute(o.data.path) ? o.data.path : undefined);
      if (o.data.itemType !== 'attachment' || !p) return send(400, { 'Content-Type': 'text/plain' }, `Not a file attachment: ${o.key}`);
      return send(200, { 'Content-Type': 'text/plain' }, pathToFileURL(p).href);
    }
    let list: FakeObject[];
    if (rest === 'items') list = [...lib.items.values()].filter((o) => !o.deleted || q.get('includeTrashed') === '1');
    else if (rest === 'items/trash') list = [...lib.items.values()].filter((o) => o.deleted);
    else if (rest === 'collections') list = [...lib.collections.values()];
    else if (rest === 'searches') list = [];
    else return send(404, { 'Content-Type': 'text/plain' }, 'Not found');
    const headers: Record<string, string | number> = { 'Last-Modified-Version': lib.version };
    const ims = Number(req.headers['if-modified-since-version']);
    if (ims && lib.version <= ims) return send(304, headers, '');
    if (q.has('since')) {
      const since = Number(q.get('since'));
      if (!Number.isFinite(since)) return send(400, { 'Content-Type': 'text/plain' }, `Invalid 'since' value '${q.get('since')}'`);
      if (since !== 0) list = list.filter((o) => o.version > since);
    }
    list.sort((a, b) => (a.dateAdded < b.dateAdded ? -1 : a.dateAdded > b.dateAdded ? 1 : 0));
    const total = list.length;
    const start = Math.min(Math.max(0, Number(q.get('start')) || 0), total);
    const limit = Number(q.get('limit')) || total - start;
    list = list.slice(start, start + limit);
    headers['Total-Results'] = total;
    const links: string[] = [];
    if (start + limit < total) {
      const p = new URLSearchParams(q);
      p.set('start', String(start + limit));
      links.push(`<${this.url}${url.pathname}?${p}>; rel="next"`);
    }
    if (links.length) headers.Link = links.join(', ');
    const format = q.get('format');
    if (format === 'versions')
      return send(200, { ...headers, 'Content-Type': 'application/json' }, JSON.stringify(Object.fromEntries(list.map((o) => [o.key, o.version]))));
    if (format === 'keys') return send(200, { ...headers, 'Content-Type': 'text/plain' }, list.map((o) => o.key).join('\n'));
    const body = list.map((o) => this.json(libId, lib, o));
    send(200, { ...headers, 'Content-Type': 'application/json' }, JSON.stringify(body, null, 4));
  }

  private json(libId: string, lib: FakeLibrary, o: FakeObject): unknown {
    const links: Record<string, unknown> = { self: { href: `${this.url}/api/${libId}/items/${o.key}`, type: 'application/json' } };
    if (o.data.itemType === 'attachment' && String(o.data.linkMode).startsWith('imported') && o.file) {
      const enclosure: Record<string, unknown> = { href: pathToFileURL(o.file).href, type: o.data.contentType, title: o.data.filename };
      if (existsSync(o.file)) enclosure.length = statSync(o.file).size;
      links.enclosure = enclosure;
    }
    const data: Record<string, unknown> = { ...o.data, version: o.version, dateAdded: o.dateAdded };
    if (o.deleted) data.deleted = true;
    const library = lib.groupId === undefined ? { type: 'user', id: 0, name: lib.name } : { type: 'group', id: lib.groupId, name: lib.name };
    return { key: o.key, version: o.version, library, links, meta: {}, data };
  }

  private rpc(req: IncomingMessage, res: ServerResponse): void {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (!this.bbt) {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        return res.end('Not found');
      }
      const call = JSON.parse(raw) as { id: unknown; method: string; params: [string[]] };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (call.method !== 'item.citationkey')
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not found' } }));
      const result = Object.fromEntries(call.params[0].map((k) => [k, this.bbt!.get(k) ?? null]));
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
    });
  }
}
