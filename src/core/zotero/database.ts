/**
 * Reads a Zotero library from its database, when Zotero is closed or its local API is off.
 * zotero.sqlite and its zotero.sqlite-wal are copied to a temporary folder and read from there
 * (databaseCopy.ts): the live file is never opened by SQLite (Zotero may hold it locked, and a
 * reader must not disturb it), and never with immutable=1, which ignores the WAL and so the newest
 * items. The WAL is applied in memory (wal.ts) and the result opened with sql.js.
 *
 * Problems with one item or file (a missing PDF, a linked file outside any known folder) are
 * warnings naming it; the rest of the library is read. A database that cannot be read at all (not
 * a database, damaged, from a Zotero whose tables differ) is a ZoteroUnavailable saying so.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseYear, stripRichText } from '../library/bibEntry';
import { assignCitekeys, type CitekeySources } from './citekey';
import { copyDatabase, stampOf } from './databaseCopy';
import type { ZoteroAnnotation, ZoteroAttachment, ZoteroCollection, ZoteroCreator, ZoteroItem, ZoteroLibraryInfo, ZoteroReader, ZoteroSnapshot } from './model';
import { ZoteroUnavailable } from './model';
import { openDatabase, rows, type Database } from './sqlite';
import { applyWal, type WalResult } from './wal';

/** The newest userdata schema this reader was written against (Zotero's userdata.sql, "-- 129"). */
export const KNOWN_USERDATA_VERSION = 129;

const LINK_MODES = ['imported_file', 'imported_url', 'linked_file', 'linked_url', 'embedded_image'];
const ANNOTATION_TYPES: Record<number, string> = { 1: 'highlight', 2: 'note', 3: 'image', 4: 'ink', 5: 'underline', 6: 'text' };
/** Tables without which nothing sensible can be read. */
const REQUIRED = ['items', 'itemData', 'itemDataValues', 'itemAttachments', 'libraries'];
/** Tables whose absence costs one kind of metadata (said once). */
const OPTIONAL = ['creators', 'itemCreators', 'creatorTypes', 'collections', 'collectionItems', 'tags', 'itemTags', 'deletedItems', 'itemAnnotations', 'groups'];
/** Warnings named one by one before "and N more". */
const MAX_NAMED = 20;

export interface DatabaseReaderOptions {
  dataDir: string;
  /** `extensions.zotero.baseAttachmentPath`: the folder `attachments:` paths are relative to. */
  baseAttachmentPath?: string;
  /** Keys given from outside (Better BibTeX), and the export to take keys from; or a function giving them per read. */
  citekeys?: CitekeySources | (() => Promise<CitekeySources>);
  /** Where the copy is made (default: the system's temporary folder). */
  tempDir?: string;
}

/** Timings of the last read, for the benchmark. */
export interface DatabaseReadTimings {
  copyMs: number;
  readMs: number;
  walFrames: number;
}

export class ZoteroDatabaseReader implements ZoteroReader {
  readonly name = 'database' as const;
  lastTimings?: DatabaseReadTimings;

  constructor(private readonly opts: DatabaseReaderOptions) {}

  /** The change stamp of the live files (sizes and times of the database and its WAL), without copying. */
  async stamp(): Promise<string> {
    return stampOf(this.opts.dataDir);
  }

  async read(o: { signal?: AbortSignal; previous?: ZoteroSnapshot } = {}): Promise<ZoteroSnapshot> {
    const { dataDir } = this.opts;
    // Nothing changed since the previous read (same sizes and times of the database and its WAL): it stands.
    if (o.previous?.via === 'database' && o.previous.dataDir === dataDir && o.previous.stamp === (await stampOf(dataDir))) return o.previous;
    const t0 = performance.now();
    // The copy's folder is gone once this returns: its bytes are in memory.
    const copy = await copyDatabase(dataDir, { tempRoot: this.opts.tempDir, signal: o.signal });
    const copyMs = performance.now() - t0;
    o.signal?.throwIfAborted();
    const t1 = performance.now();
    const warnings = [...copy.warnings];
    const { db: bytes, frames, note } = withWal(copy.db, copy.wal);
    if (note) warnings.push(`${path.join(dataDir, 'zotero.sqlite-wal')}: ${note}; the newest changes may be missing`);
    let db: Database;
    try {
      db = await openDatabase(bytes);
    } catch (err) {
      throw unreadable(dataDir, err);
    }
    try {
      const snapshot = await readSnapshot(db, this.opts, warnings);
      snapshot.stamp = copy.stamp;
      const keys = typeof this.opts.citekeys === 'function' ? await this.opts.citekeys() : this.opts.citekeys;
      assignCitekeys(snapshot.items, keys);
      this.lastTimings = { copyMs, readMs: performance.now() - t1, walFrames: frames };
      return snapshot;
    } catch (err) {
      if (err instanceof ZoteroUnavailable) throw err;
      throw unreadable(dataDir, err);
    } finally {
      db.close();
    }
  }
}

/** The WAL applied; whatever it holds that applyWal did not foresee costs the WAL, never the library. */
function withWal(db: Uint8Array, wal: Uint8Array | undefined): WalResult {
  try {
    return applyWal(db, wal);
  } catch (err) {
    return { ...applyWal(db, undefined), note: `the WAL was ignored: it could not be applied (${(err as Error).message})` };
  }
}

function unreadable(dataDir: string, err: unknown): ZoteroUnavailable {
  return new ZoteroUnavailable(
    `Zotero's database ${path.join(dataDir, 'zotero.sqlite')} could not be read (${(err as Error).message}).`,
    "If Zotero was writing it, it is read again at the next change; if this stays, run Zotero's Help → Troubleshooting → Check Database Integrity.",
  );
}

type Row = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

async function readSnapshot(db: Database, opts: DatabaseReaderOptions, warnings: string[]): Promise<ZoteroSnapshot> {
  const tables = new Set(rows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name));
  const version = tables.has('version') ? Number(rows<{ version: number }>(db, "SELECT version FROM version WHERE schema = 'userdata'")[0]?.version ?? NaN) : NaN;
  const missing = REQUIRED.filter((t) => !tables.has(t));
  if (!tables.has('fields') && !tables.has('fieldsCombined')) missing.push('fields');
  if (!tables.has('itemTypes') && !tables.has('itemTypesCombined')) missing.push('itemTypes');
  if (missing.length) {
    throw new ZoteroUnavailable(
      `${path.join(opts.dataDir, 'zotero.sqlite')} has no ${missing.join(', ')} table${missing.length > 1 ? 's' : ''}: it is not a Zotero database${Number.isFinite(version) ? `, or is from a Zotero whose schema (${version}) this version of Similar Sources cannot read` : ''}.`,
      'Update Similar Sources, or enable Zotero’s local API (Settings → Advanced → "Allow other applications on this computer to communicate with Zotero").',
    );
  }
  if (Number.isFinite(version) && version > KNOWN_USERDATA_VERSION) {
    warnings.push(`Zotero's database is from a newer Zotero (schema ${version}; this reader knows up to ${KNOWN_USERDATA_VERSION}): what it reads is read, anything new is left out.`);
  }
  const absent = OPTIONAL.filter((t) => !tables.has(t));
  if (absent.length) warnings.push(`Zotero's database has no ${absent.join(', ')} table${absent.length > 1 ? 's' : ''}: what they hold (creators, collections, tags, trash, annotations, groups) is left out.`);
  const has = (t: string) => tables.has(t);

  const libraries: ZoteroLibraryInfo[] = rows<Row>(db, `SELECT l.libraryID AS id, l.type AS type, l.version AS version${has('groups') ? ', g.groupID AS groupID, g.name AS name' : ''} FROM libraries l${has('groups') ? ' LEFT JOIN groups g ON g.libraryID = l.libraryID' : ''} WHERE l.type IN ('user', 'group')`).map((r) => ({
    id: String(r.id),
    type: r.type === 'group' ? 'group' : 'user',
    name: r.type === 'group' ? (str(r.name) ?? `Group ${str(r.groupID) ?? r.id}`) : 'My Library',
    groupId: r.groupID == null ? undefined : Number(r.groupID),
    version: Number(r.version ?? 0),
  }));
  const libraryIds = new Set(libraries.map((l) => l.id));

  const typeTable = has('itemTypesCombined') ? 'itemTypesCombined' : 'itemTypes';
  const typeNames = new Map(rows<Row>(db, `SELECT itemTypeID AS id, typeName AS name FROM ${typeTable}`).map((r) => [Number(r.id), String(r.name)]));
  const fieldTable = has('fieldsCombined') ? 'fieldsCombined' : 'fields';
  const fieldIds = new Map(rows<Row>(db, `SELECT fieldID AS id, fieldName AS name FROM ${fieldTable}`).map((r) => [String(r.name), Number(r.id)]));
  // Type-specific fields standing for title and date (caseName, nameOfAct, dateDecided, issueDate…).
  const mapped = (base: string): number[] => {
    const id = fieldIds.get(base);
    if (id === undefined) return [];
    const table = has('baseFieldMappingsCombined') ? 'baseFieldMappingsCombined' : has('baseFieldMappings') ? 'baseFieldMappings' : undefined;
    return [id, ...(table ? rows<Row>(db, `SELECT fieldID AS id FROM ${table} WHERE baseFieldID = ?`, [id]).map((r) => Number(r.id)) : [])];
  };
  const roleOf = new Map<number, 'title' | 'date' | 'doi' | 'citekey' | 'extra'>();
  for (const id of mapped('title')) roleOf.set(id, 'title');
  for (const id of mapped('date')) roleOf.set(id, 'date');
  for (const [name, role] of [['DOI', 'doi'], ['citationKey', 'citekey'], ['extra', 'extra']] as const) {
    const id = fieldIds.get(name);
    if (id !== undefined) roleOf.set(id, role);
  }

  const deleted = new Set(has('deletedItems') ? rows<Row>(db, 'SELECT itemID AS id FROM deletedItems').map((r) => Number(r.id)) : []);

  interface Raw {
    id: number;
    key: string;
    libraryId: string;
    type: string;
    dateModified?: string;
    fields: Partial<Record<'title' | 'date' | 'doi' | 'citekey' | 'extra', string>>;
  }
  const byId = new Map<number, Raw>();
  for (const r of rows<Row>(db, 'SELECT itemID AS id, itemTypeID AS t, libraryID AS lib, key, dateModified AS dm FROM items')) {
    const lib = String(r.lib);
    if (!libraryIds.has(lib)) continue; // feeds
    byId.set(Number(r.id), { id: Number(r.id), key: String(r.key), libraryId: lib, type: typeNames.get(Number(r.t)) ?? `itemType${r.t}`, dateModified: str(r.dm), fields: {} });
  }
  if (roleOf.size) {
    const stmt = db.prepare(`SELECT d.itemID, d.fieldID, v.value FROM itemData d JOIN itemDataValues v ON v.valueID = d.valueID WHERE d.fieldID IN (${[...roleOf.keys()].join(',')})`);
    try {
      while (stmt.step()) {
        const [itemId, fieldId, value] = stmt.get() as [number, number, unknown];
        const raw = byId.get(itemId);
        const role = roleOf.get(fieldId);
        const v = str(value);
        if (raw && role && v !== undefined) raw.fields[role] = v;
      }
    } finally {
      stmt.free();
    }
  }

  const creators = new Map<number, ZoteroCreator[]>();
  if (has('creators') && has('itemCreators')) {
    const join = has('creatorTypes') ? 'LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID' : '';
    const stmt = db.prepare(`SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, ${join ? 'ct.creatorType' : "'author'"} FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID ${join} ORDER BY ic.itemID, ic.orderIndex`);
    try {
      while (stmt.step()) {
        const [itemId, first, last, mode, type] = stmt.get() as [number, unknown, unknown, unknown, unknown];
        const list = creators.get(itemId) ?? [];
        const creatorType = str(type) ?? 'author';
        // fieldMode 1: a single-field name (an institution), kept in lastName.
        list.push(Number(mode) === 1 ? { creatorType, name: str(last) } : { creatorType, firstName: str(first), lastName: str(last) });
        creators.set(itemId, list);
      }
    } finally {
      stmt.free();
    }
  }

  // Collections: nested names joined into paths; those in the trash are left out.
  const collections: ZoteroCollection[] = [];
  const collectionPath = new Map<number, string>();
  const itemCollections = new Map<number, string[]>();
  if (has('collections')) {
    const trashed = new Set(has('deletedCollections') ? rows<Row>(db, 'SELECT collectionID AS id FROM deletedCollections').map((r) => Number(r.id)) : []);
    const all = rows<Row>(db, 'SELECT collectionID AS id, collectionName AS name, parentCollectionID AS parent, libraryID AS lib, key FROM collections');
    const byCid = new Map(all.map((c) => [Number(c.id), c]));
    const pathOf = (id: number, seen = new Set<number>()): string | undefined => {
      if (collectionPath.has(id)) return collectionPath.get(id);
      const c = byCid.get(id);
      if (!c || trashed.has(id) || seen.has(id)) return undefined;
      seen.add(id);
      const parent = c.parent == null ? '' : pathOf(Number(c.parent), seen);
      if (parent === undefined) return undefined;
      const p = (parent ? parent + '/' : '') + String(c.name);
      collectionPath.set(id, p);
      return p;
    };
    for (const c of all) {
      const p = pathOf(Number(c.id));
      if (p === undefined || !libraryIds.has(String(c.lib))) continue;
      const parent = c.parent == null ? undefined : byCid.get(Number(c.parent));
      collections.push({ key: String(c.key), libraryId: String(c.lib), name: String(c.name), parentKey: parent ? String(parent.key) : undefined, path: p });
    }
    if (has('collectionItems')) {
      for (const r of rows<Row>(db, 'SELECT collectionID AS c, itemID AS i FROM collectionItems ORDER BY collectionID, orderIndex')) {
        const p = collectionPath.get(Number(r.c));
        if (p === undefined) continue;
        const list = itemCollections.get(Number(r.i)) ?? [];
        list.push(p);
        itemCollections.set(Number(r.i), list);
      }
    }
  }

  const tags = new Map<number, string[]>();
  if (has('tags') && has('itemTags')) {
    for (const r of rows<Row>(db, 'SELECT it.itemID AS i, t.name AS name FROM itemTags it JOIN tags t ON t.tagID = it.tagID')) {
      const list = tags.get(Number(r.i)) ?? [];
      list.push(String(r.name));
      tags.set(Number(r.i), list);
    }
  }

  // Attachments: PDFs only, resolved to files on this machine.
  const storage = path.join(opts.dataDir, 'storage');
  const attachmentsOf = new Map<number, ZoteroAttachment[]>();
  const standalone: { raw: Raw; att: ZoteroAttachment }[] = [];
  const attachmentById = new Map<number, ZoteroAttachment>();
  const missingFiles: string[] = [];
  const unresolved: string[] = [];
  const checks: Promise<void>[] = [];
  for (const r of rows<Row>(db, 'SELECT itemID AS id, parentItemID AS parent, linkMode AS mode, contentType AS ct, path FROM itemAttachments ORDER BY itemID')) {
    const raw = byId.get(Number(r.id));
    if (!raw || deleted.has(raw.id)) continue;
    const stored = str(r.path);
    const contentType = str(r.ct);
    const isPdf = contentType === 'application/pdf' || (!contentType && /\.pdf$/i.test(stored ?? ''));
    if (!isPdf) continue;
    const linkMode = LINK_MODES[Number(r.mode)] ?? `linkMode${r.mode}`;
    const att: ZoteroAttachment = { key: raw.key, libraryId: raw.libraryId, linkMode, contentType, title: raw.fields.title };
    if (linkMode === 'linked_url') continue;
    if (stored?.startsWith('storage:')) att.path = path.join(storage, raw.key, stored.slice('storage:'.length));
    else if (stored?.startsWith('attachments:')) {
      const rel = stored.slice('attachments:'.length);
      if (opts.baseAttachmentPath) att.path = path.join(opts.baseAttachmentPath, ...rel.split(/[\\/]/));
      else {
        att.missing = true;
        unresolved.push(`${raw.key} (${rel})`);
      }
    } else if (stored && (path.isAbsolute(stored) || /^[A-Za-z]:[\\/]/.test(stored))) att.path = stored;
    else if (stored) {
      att.missing = true;
      unresolved.push(`${raw.key} (${stored})`);
    } else continue;
    if (att.path) {
      const p = att.path;
      checks.push(
        fs.stat(p).then(
          (s) => {
            if (!s.isFile()) throw new Error('not a file');
          },
          () => {
            att.missing = true;
            missingFiles.push(`${p} (attachment ${raw.key}${raw.fields.title ? `, "${raw.fields.title}"` : ''})`);
          },
        ).catch(() => {
          att.missing = true;
          missingFiles.push(`${p} (attachment ${raw.key})`);
        }),
      );
    }
    attachmentById.set(raw.id, att);
    const parent = r.parent == null ? undefined : Number(r.parent);
    if (parent !== undefined && byId.has(parent)) {
      const list = attachmentsOf.get(parent) ?? [];
      list.push(att);
      attachmentsOf.set(parent, list);
    } else standalone.push({ raw, att });
  }
  await Promise.all(checks);
  if (missingFiles.length) warnings.push(named('attachment files not found (not indexed; in Zotero, "Show File" or sync the library)', missingFiles));
  if (unresolved.length) warnings.push(named("linked files relative to the linked-attachment base directory, which Zotero's prefs.js does not name (not indexed)", unresolved));

  const annotations: ZoteroAnnotation[] = [];
  if (has('itemAnnotations')) {
    for (const r of rows<Row>(db, 'SELECT itemID AS id, parentItemID AS parent, type, text, comment, color, pageLabel, position FROM itemAnnotations')) {
      const raw = byId.get(Number(r.id));
      const parent = byId.get(Number(r.parent));
      if (!raw || !parent || deleted.has(raw.id) || !attachmentById.has(parent.id)) continue;
      let pageIndex: number | undefined;
      try {
        const pos = JSON.parse(String(r.position)) as { pageIndex?: unknown };
        if (typeof pos.pageIndex === 'number' && Number.isInteger(pos.pageIndex) && pos.pageIndex >= 0) pageIndex = pos.pageIndex;
      } catch {
        // A position Zotero wrote in another form: the annotation is kept without its page index.
      }
      annotations.push({
        key: raw.key,
        attachmentKey: parent.key,
        type: ANNOTATION_TYPES[Number(r.type)] ?? `type${r.type}`,
        text: str(r.text),
        comment: str(r.comment),
        pageLabel: str(r.pageLabel),
        pageIndex,
        color: str(r.color),
        dateModified: raw.dateModified,
      });
    }
  }

  const items: ZoteroItem[] = [];
  const itemOf = (raw: Raw, attachments: ZoteroAttachment[]): ZoteroItem => {
    const f = raw.fields;
    const pinned = f.citekey?.trim() || undefined;
    // Better BibTeX before Zotero 8 pinned keys as "Citation Key: …" in Extra.
    const fromExtra = !pinned && f.extra ? /^\s*Citation Key\s*:\s*(\S+)\s*$/im.exec(f.extra)?.[1] : undefined;
    return {
      key: raw.key,
      libraryId: raw.libraryId,
      itemType: raw.type,
      title: f.title ? stripRichText(f.title) : undefined,
      creators: creators.get(raw.id) ?? [],
      date: f.date?.replace(/^\d{4}-\d{2}-\d{2} /, ''),
      year: parseYear(f.date),
      doi: f.doi,
      citekey: pinned ?? fromExtra ?? '',
      citekeyFrom: pinned ? 'zotero' : fromExtra ? 'better-bibtex' : 'generated',
      collections: itemCollections.get(raw.id) ?? [],
      tags: tags.get(raw.id) ?? [],
      deleted: deleted.has(raw.id),
      attachments,
      dateModified: raw.dateModified,
    };
  };
  for (const raw of byId.values()) {
    if (raw.type === 'attachment' || raw.type === 'note' || raw.type === 'annotation') continue;
    items.push(itemOf(raw, attachmentsOf.get(raw.id) ?? []));
  }
  // A PDF with no parent item is a top-level item of its own in Zotero.
  for (const { raw, att } of standalone) items.push(itemOf(raw, [att]));

  return { via: 'database', dataDir: opts.dataDir, libraries, items, collections, annotations, stamp: '', warnings };
}

function named(what: string, list: string[]): string {
  const shown = list.slice(0, MAX_NAMED).join('; ');
  return `${what}: ${shown}${list.length > MAX_NAMED ? `; and ${list.length - MAX_NAMED} more` : ''}`;
}
