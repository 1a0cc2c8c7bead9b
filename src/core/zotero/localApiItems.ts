/**
 * The local API's answers as the snapshot's items (for localApi.ts, which fetches them): each
 * object turned into an item, an attachment or an annotation, bounded as the database reader
 * bounds it (bounds.ts), and a server's state assembled into one snapshot. Pure: no request here.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectionPaths as pathsOf, FieldCuts, isZoteroKey, pageIndexOf, ZOTERO_LIMITS as L } from './bounds';
import type { ZoteroAnnotation, ZoteroAttachment, ZoteroCollection, ZoteroCreator, ZoteroItem, ZoteroLibraryInfo, ZoteroSnapshot } from './model';

/** One object of an API answer, as the web API v3 shapes it. */
export interface ApiObject {
  key: string;
  version: number;
  links?: { enclosure?: { href?: string; type?: string; title?: string; length?: number } };
  meta?: { parsedDate?: string };
  data: Record<string, unknown>;
}

/** What a library holds, per object key: the state merged from one read to the next. */
export type Entry =
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

export interface LibraryState {
  info: ZoteroLibraryInfo;
  entries: Map<string, Entry>;
  collections: Map<string, { key: string; name: string; parentKey?: string }>;
}

export interface ServerState {
  serverId: string;
  libraries: Map<string, LibraryState>;
}

/** Code-unit order: ISO dates and keys need no locale, and 10,000 locale compares cost. */
export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** A Zotero item JSON → what this reader keeps of it; undefined for what is never used (notes, trashed objects). */
export function toEntry(obj: ApiObject, libraryId: string, cuts: FieldCuts): Entry | undefined {
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
export function filePath(url: string): string | undefined {
  try {
    const p = fileURLToPath(url);
    return p.length <= L.path && !p.includes('\0') ? p : undefined;
  } catch {
    return undefined;
  }
}

/** Each collection's path ("Thesis/Chapter 2"), bounded in depth, a parent cycle ending it. */
export function collectionPaths(cols: LibraryState['collections']): Map<string, string> {
  return pathsOf(new Map([...cols].map(([k, c]) => [k, { name: c.name, parent: c.parentKey }])));
}

/** The merged state → the shared snapshot shape: attachments under their items, collection keys as paths. */
export function assemble(state: ServerState, warnings: string[]): ZoteroSnapshot {
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
export function dataDirOf(items: ZoteroItem[]): string | undefined {
  for (const item of items) {
    for (const a of item.attachments) {
      if (!a.path || !a.linkMode.startsWith('imported')) continue;
      const keyDir = path.dirname(a.path);
      if (path.basename(keyDir) === a.key && path.basename(path.dirname(keyDir)) === 'storage') return path.dirname(path.dirname(keyDir));
    }
  }
  return undefined;
}

/** What a read of this server gave: its ID and each library's version (a watcher compares stamps). */
export function stampOf(state: { serverId: string; libraries: Map<string, { info: ZoteroLibraryInfo }> }): string {
  return `local-api:${state.serverId}:${[...state.libraries.values()].map((l) => `${l.info.id}@${l.info.version ?? '?'}`).join(',')}`;
}
