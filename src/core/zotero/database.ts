/**
 * Reads a Zotero library from its database, when Zotero is closed or its local API is off.
 * zotero.sqlite and its zotero.sqlite-wal are copied to a temporary folder and read from there
 * (databaseCopy.ts): the live file is never opened by SQLite (Zotero may hold it locked, and a
 * reader must not disturb it), and never with immutable=1, which ignores the WAL and so the newest
 * items. The WAL is applied in memory (wal.ts) and the result opened with sql.js.
 *
 * Nothing in the database is trusted (issue 35): every field is cut to a bound as it is read
 * (bounds.ts; SQLite cuts the text before it becomes a JavaScript string), an item whose key is
 * not a Zotero key is left out, and a stored file must lie in its item's folder in storage/, links
 * followed. Problems with one item or file are warnings naming it; the rest of the library is read.
 * A database that cannot be read at all (not a database, damaged, from a Zotero whose tables
 * differ) is a ZoteroUnavailable saying so.
 */
import * as path from 'node:path';
import { parseYear, stripRichText } from '../library/bibEntry';
import { collectionPaths, FieldCuts, isZoteroKey, shownKey, ZOTERO_LIMITS as L } from './bounds';
import { assignCitekeys, type CitekeySources } from './citekey';
import { copyDatabase, stampOf } from './databaseCopy';
import { cutSql, named, readAttachments, str, type Raw } from './databaseFiles';
import type { ZoteroAttachment, ZoteroCollection, ZoteroCreator, ZoteroItem, ZoteroLibraryInfo, ZoteroReader, ZoteroSnapshot } from './model';
import { ZoteroUnavailable } from './model';
import { openDatabase, rows, type Database } from './sqlite';
import { applyWal, type WalResult } from './wal';

/** The newest userdata schema this reader was written against (Zotero's userdata.sql, "-- 129"). */
export const KNOWN_USERDATA_VERSION = 129;

/** Tables without which nothing sensible can be read. */
const REQUIRED = ['items', 'itemData', 'itemDataValues', 'itemAttachments', 'libraries'];
/** Tables whose absence costs one kind of metadata (said once). */
const OPTIONAL = [
  'creators',
  'itemCreators',
  'creatorTypes',
  'collections',
  'collectionItems',
  'tags',
  'itemTags',
  'deletedItems',
  'itemAnnotations',
  'groups',
];

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
const ITEM_FIELDS = { title: L.title, date: L.date, doi: L.doi, citekey: L.citekey, extra: L.extra } as const;
type Role = keyof typeof ITEM_FIELDS;

async function readSnapshot(db: Database, opts: DatabaseReaderOptions, warnings: string[]): Promise<ZoteroSnapshot> {
  const has = checkTables(db, opts, warnings);
  const cuts = new FieldCuts();
  const libraries = readLibraries(db, has, cuts);
  const libraryIds = new Set(libraries.map((l) => l.id));
  const { typeNames, roleOf } = fieldRoles(db, has);
  const deleted = new Set(has('deletedItems') ? rows<Row>(db, 'SELECT itemID AS id FROM deletedItems').map((r) => Number(r.id)) : []);
  const { byId, badKeys } = readItems(db, libraryIds, typeNames, roleOf, cuts);
  // Per item, what was over a list's bound (said once the lists are done).
  const over = { creators: new Map<number, number>(), collections: new Map<number, number>(), tags: new Map<number, number>() };
  const lists: ItemLists = {
    creators: readCreators(db, has, byId, cuts, over.creators),
    ...readCollections(db, has, byId, libraryIds, cuts, over.collections),
    tags: readTags(db, has, byId, cuts, over.tags),
    deleted,
  };
  for (const [what, counts] of Object.entries(over)) {
    const max = L[what as keyof typeof over];
    for (const id of counts.keys()) cuts.note(`item ${byId.get(id)!.key}`, `${what} (over ${max}: the first kept)`);
  }

  const files = await readAttachments(db, opts, { byId, badKeys, deleted, cuts, warnings });
  if (badKeys.size)
    warnings.push(named('items whose key is not a Zotero key (8 characters of 23456789ABCDEFGHIJKLMNPQRSTUVWXYZ) were left out', [...badKeys.values()]));

  const items: ZoteroItem[] = [];
  for (const raw of byId.values()) {
    if (raw.type === 'attachment' || raw.type === 'note' || raw.type === 'annotation') continue;
    items.push(itemOf(raw, files.attachmentsOf.get(raw.id) ?? [], lists));
  }
  // A PDF with no parent item is a top-level item of its own in Zotero.
  for (const { raw, att } of files.standalone) items.push(itemOf(raw, [att], lists));
  const cut = cuts.warning();
  if (cut) warnings.push(cut);

  return { via: 'database', dataDir: opts.dataDir, libraries, items, collections: lists.collections, annotations: files.annotations, stamp: '', warnings };
}

/** The database's tables checked: a ZoteroUnavailable without the required ones, a warning for a newer schema or missing optional ones. */
function checkTables(db: Database, opts: DatabaseReaderOptions, warnings: string[]): (table: string) => boolean {
  const tables = new Set(rows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name));
  const version = tables.has('version')
    ? Number(rows<{ version: number }>(db, "SELECT version FROM version WHERE schema = 'userdata'")[0]?.version ?? NaN)
    : NaN;
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
    warnings.push(
      `Zotero's database is from a newer Zotero (schema ${version}; this reader knows up to ${KNOWN_USERDATA_VERSION}): what it reads is read, anything new is left out.`,
    );
  }
  const absent = OPTIONAL.filter((t) => !tables.has(t));
  if (absent.length)
    warnings.push(
      `Zotero's database has no ${absent.join(', ')} table${absent.length > 1 ? 's' : ''}: what they hold (creators, collections, tags, trash, annotations, groups) is left out.`,
    );
  return (t: string) => tables.has(t);
}

/** The user's library and the groups (feeds are not read). */
function readLibraries(db: Database, has: (table: string) => boolean, cuts: FieldCuts): ZoteroLibraryInfo[] {
  return rows<Row>(
    db,
    `SELECT l.libraryID AS id, l.type AS type, l.version AS version${has('groups') ? `, g.groupID AS groupID, ${cutSql('g.name', L.libraryName)} AS name` : ''} FROM libraries l${has('groups') ? ' LEFT JOIN groups g ON g.libraryID = l.libraryID' : ''} WHERE l.type IN ('user', 'group')`,
  ).map((r) => ({
    id: String(r.id),
    type: r.type === 'group' ? 'group' : 'user',
    name:
      r.type === 'group'
        ? (cuts.text(str(r.name), L.libraryName, `group ${str(r.groupID) ?? r.id}`, 'name') ?? `Group ${str(r.groupID) ?? r.id}`)
        : 'My Library',
    groupId: r.groupID == null ? undefined : Number(r.groupID),
    version: Number(r.version ?? 0),
  }));
}

/** Item type names by id, and the fields read (title, date, DOI, citation key, Extra) by field id. */
function fieldRoles(db: Database, has: (table: string) => boolean): { typeNames: Map<number, string>; roleOf: Map<number, Role> } {
  const typeTable = has('itemTypesCombined') ? 'itemTypesCombined' : 'itemTypes';
  const typeNames = new Map(
    rows<Row>(db, `SELECT itemTypeID AS id, ${cutSql('typeName', L.itemType)} AS name FROM ${typeTable}`).map((r) => [
      Number(r.id),
      String(r.name).slice(0, L.itemType),
    ]),
  );
  const fieldTable = has('fieldsCombined') ? 'fieldsCombined' : 'fields';
  const fieldIds = new Map(
    rows<Row>(db, `SELECT fieldID AS id, ${cutSql('fieldName', 64)} AS name FROM ${fieldTable}`).map((r) => [String(r.name), Number(r.id)]),
  );
  // Type-specific fields standing for title and date (caseName, nameOfAct, dateDecided, issueDate…).
  const mapped = (base: string): number[] => {
    const id = fieldIds.get(base);
    if (id === undefined) return [];
    const table = has('baseFieldMappingsCombined') ? 'baseFieldMappingsCombined' : has('baseFieldMappings') ? 'baseFieldMappings' : undefined;
    return [id, ...(table ? rows<Row>(db, `SELECT fieldID AS id FROM ${table} WHERE baseFieldID = ?`, [id]).map((r) => Number(r.id)) : [])];
  };
  const roleOf = new Map<number, Role>();
  for (const id of mapped('title')) roleOf.set(id, 'title');
  for (const id of mapped('date')) roleOf.set(id, 'date');
  for (const [name, role] of [
    ['DOI', 'doi'],
    ['citationKey', 'citekey'],
    ['extra', 'extra'],
  ] as const) {
    const id = fieldIds.get(name);
    if (id !== undefined) roleOf.set(id, role);
  }
  return { typeNames, roleOf };
}

/** The items of the libraries read, by id, with their fields of a role; `badKeys`: those left out for their key. */
function readItems(
  db: Database,
  libraryIds: Set<string>,
  typeNames: Map<number, string>,
  roleOf: Map<number, Role>,
  cuts: FieldCuts,
): { byId: Map<number, Raw>; badKeys: Map<number, string> } {
  const byId = new Map<number, Raw>();
  // Keys Zotero never gives ("../x"): the item is left out, and so are its attachments and annotations.
  const badKeys = new Map<number, string>();
  for (const r of rows<Row>(
    db,
    `SELECT itemID AS id, itemTypeID AS t, libraryID AS lib, ${cutSql('key', 40)} AS key, ${cutSql('dateModified', L.timestamp)} AS dm FROM items`,
  )) {
    const lib = String(r.lib);
    if (!libraryIds.has(lib)) continue; // feeds
    if (!isZoteroKey(r.key)) {
      badKeys.set(Number(r.id), shownKey(r.key));
      continue;
    }
    const dm = str(r.dm);
    byId.set(Number(r.id), {
      id: Number(r.id),
      key: r.key,
      libraryId: lib,
      type: typeNames.get(Number(r.t)) ?? `itemType${r.t}`,
      dateModified: dm?.slice(0, L.timestamp),
      fields: {},
    });
  }
  if (roleOf.size) {
    const stmt = db.prepare(
      `SELECT d.itemID, d.fieldID, ${cutSql('v.value', L.extra)} FROM itemData d JOIN itemDataValues v ON v.valueID = d.valueID WHERE d.fieldID IN (${[...roleOf.keys()].join(',')})`,
    );
    try {
      while (stmt.step()) {
        const [itemId, fieldId, value] = stmt.get() as [number, number, unknown];
        const raw = byId.get(itemId);
        const role = roleOf.get(fieldId);
        if (!raw || !role) continue;
        const v = role === 'citekey' ? str(value) : cuts.text(str(value), ITEM_FIELDS[role], `item ${raw.key}`, role);
        if (v === undefined) continue;
        if (role === 'citekey' && v.trim().length > L.citekey)
          cuts.note(`item ${raw.key}`, `citation key (over ${L.citekey} characters: left out, one is made)`);
        else raw.fields[role] = v;
      }
    } finally {
      stmt.free();
    }
  }
  return { byId, badKeys };
}

/** Each item's creators, in order (up to the bound; `over` counts the rest). */
function readCreators(
  db: Database,
  has: (table: string) => boolean,
  byId: Map<number, Raw>,
  cuts: FieldCuts,
  over: Map<number, number>,
): Map<number, ZoteroCreator[]> {
  const creators = new Map<number, ZoteroCreator[]>();
  if (has('creators') && has('itemCreators')) {
    const join = has('creatorTypes') ? 'LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID' : '';
    const stmt = db.prepare(
      `SELECT ic.itemID, ${cutSql('c.firstName', L.name)}, ${cutSql('c.lastName', L.name)}, c.fieldMode, ${join ? cutSql('ct.creatorType', L.itemType) : "'author'"} FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID ${join} ORDER BY ic.itemID, ic.orderIndex`,
    );
    try {
      while (stmt.step()) {
        const [itemId, first, last, mode, type] = stmt.get() as [number, unknown, unknown, unknown, unknown];
        const raw = byId.get(itemId);
        if (!raw) continue;
        const creatorType = str(type)?.slice(0, L.itemType) ?? 'author';
        const name = (v: unknown) => cuts.text(str(v), L.name, `item ${raw.key}`, 'creator name');
        // fieldMode 1: a single-field name (an institution), kept in lastName.
        append(
          creators,
          over,
          itemId,
          () => (Number(mode) === 1 ? { creatorType, name: name(last) } : { creatorType, firstName: name(first), lastName: name(last) }),
          L.creators,
        );
      }
    } finally {
      stmt.free();
    }
  }
  return creators;
}

/** Collections: nested names joined into paths; those in the trash (and below them) are left out. */
function readCollections(
  db: Database,
  has: (table: string) => boolean,
  byId: Map<number, Raw>,
  libraryIds: Set<string>,
  cuts: FieldCuts,
  over: Map<number, number>,
): { collections: ZoteroCollection[]; itemCollections: Map<number, string[]> } {
  const collections: ZoteroCollection[] = [];
  const itemCollections = new Map<number, string[]>();
  let collectionPath = new Map<number, string>();
  if (has('collections')) {
    const trashed = new Set(has('deletedCollections') ? rows<Row>(db, 'SELECT collectionID AS id FROM deletedCollections').map((r) => Number(r.id)) : []);
    const all = rows<Row>(
      db,
      `SELECT collectionID AS id, ${cutSql('collectionName', L.collectionName)} AS name, parentCollectionID AS parent, libraryID AS lib, ${cutSql('key', 40)} AS key FROM collections`,
    );
    const byCid = new Map(
      all.map((c) => [
        Number(c.id),
        {
          row: c,
          name: cuts.text(String(c.name ?? ''), L.collectionName, `collection ${shownKey(c.key)}`, 'collection name')!,
          parent: c.parent == null ? undefined : Number(c.parent),
        },
      ]),
    );
    collectionPath = collectionPaths(byCid, (id) => trashed.has(id));
    for (const [id, c] of byCid) {
      const p = collectionPath.get(id);
      if (p === undefined || !libraryIds.has(String(c.row.lib))) continue;
      const parent = c.parent === undefined ? undefined : byCid.get(c.parent);
      collections.push({ key: String(c.row.key), libraryId: String(c.row.lib), name: c.name, parentKey: parent ? String(parent.row.key) : undefined, path: p });
    }
    if (has('collectionItems')) {
      for (const r of rows<Row>(db, 'SELECT collectionID AS c, itemID AS i FROM collectionItems ORDER BY collectionID, orderIndex')) {
        const p = collectionPath.get(Number(r.c));
        if (p !== undefined && byId.has(Number(r.i))) append(itemCollections, over, Number(r.i), () => p, L.collections);
      }
    }
  }
  return { collections, itemCollections };
}

/** Each item's tags (up to the bound; `over` counts the rest). */
function readTags(db: Database, has: (table: string) => boolean, byId: Map<number, Raw>, cuts: FieldCuts, over: Map<number, number>): Map<number, string[]> {
  const tags = new Map<number, string[]>();
  if (has('tags') && has('itemTags')) {
    for (const r of rows<Row>(db, `SELECT it.itemID AS i, ${cutSql('t.name', L.tag)} AS name FROM itemTags it JOIN tags t ON t.tagID = it.tagID`)) {
      const raw = byId.get(Number(r.i));
      if (raw) append(tags, over, raw.id, () => cuts.text(String(r.name), L.tag, `item ${raw.key}`, 'tag')!, L.tags);
    }
  }
  return tags;
}

/** What an item takes from the lists read beside it. */
interface ItemLists {
  creators: Map<number, ZoteroCreator[]>;
  collections: ZoteroCollection[];
  itemCollections: Map<number, string[]>;
  tags: Map<number, string[]>;
  deleted: Set<number>;
}

function itemOf(raw: Raw, attachments: ZoteroAttachment[], lists: ItemLists): ZoteroItem {
  const f = raw.fields;
  const pinned = f.citekey?.trim() || undefined;
  // Better BibTeX before Zotero 8 pinned keys as "Citation Key: …" in Extra ([ \t], not \s: no line is crossed).
  const extraKey = !pinned && f.extra ? /^[ \t]*Citation Key[ \t]*:[ \t]*(\S+)[ \t]*$/im.exec(f.extra)?.[1] : undefined;
  const fromExtra = extraKey && extraKey.length <= L.citekey ? extraKey : undefined;
  return {
    key: raw.key,
    libraryId: raw.libraryId,
    itemType: raw.type,
    title: f.title ? stripRichText(f.title) : undefined,
    creators: lists.creators.get(raw.id) ?? [],
    date: f.date?.replace(/^\d{4}-\d{2}-\d{2} /, ''),
    year: parseYear(f.date),
    doi: f.doi,
    citekey: pinned ?? fromExtra ?? '',
    citekeyFrom: pinned ? 'zotero' : fromExtra ? 'better-bibtex' : 'generated',
    collections: lists.itemCollections.get(raw.id) ?? [],
    tags: lists.tags.get(raw.id) ?? [],
    deleted: lists.deleted.has(raw.id),
    attachments,
    dateModified: raw.dateModified,
  };
}

/** Appends `make()` to `id`'s list up to `max` entries; beyond, only counts (nothing more is made). */
function append<T>(lists: Map<number, T[]>, over: Map<number, number>, id: number, make: () => T, max: number): void {
  let list = lists.get(id);
  if (!list) lists.set(id, (list = []));
  if (list.length < max) list.push(make());
  else over.set(id, (over.get(id) ?? 0) + 1);
}
