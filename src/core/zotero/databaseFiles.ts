/**
 * The files of a Zotero database (database.ts): its PDF attachments resolved to files on this
 * machine, and the annotations made on them. A stored file (`storage:<name>`) must lie in its
 * item's folder, `<data dir>/storage/<key>/`, and still in storage/ once links are followed: it is
 * looked at through confinedFiles with storage/ as its root, and carries that root to where its
 * bytes are read (ZoteroAttachment.within). A linked file may lie anywhere, by Zotero's design.
 */
import * as path from 'node:path';
import { FileRefused, statConfined, type FileRule } from '../util/confinedFiles';
import { FieldCuts, pageIndexOf, storedFile, ZOTERO_LIMITS as L } from './bounds';
import type { ZoteroAnnotation, ZoteroAttachment } from './model';
import { rows, type Database } from './sqlite';

const LINK_MODES = ['imported_file', 'imported_url', 'linked_file', 'linked_url', 'embedded_image'];
const ANNOTATION_TYPES: Record<number, string> = { 1: 'highlight', 2: 'note', 3: 'image', 4: 'ink', 5: 'underline', 6: 'text' };
/** Warnings named one by one before "and N more". */
const MAX_NAMED = 20;

/** An item as the database reader holds it before it becomes a ZoteroItem. */
export interface Raw {
  id: number;
  key: string;
  libraryId: string;
  type: string;
  dateModified?: string;
  fields: Partial<Record<'title' | 'date' | 'doi' | 'citekey' | 'extra', string>>;
}

type Row = Record<string, unknown>;
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
/** A column cut by SQLite to one character more than `max` (so a cut is seen) before sql.js copies it out. */
export const cutSql = (col: string, max: number) => `substr(${col}, 1, ${max + 1})`;

export interface DatabaseFiles {
  /** PDF attachments by parent item id, in Zotero's order. */
  attachmentsOf: Map<number, ZoteroAttachment[]>;
  /** PDFs without a parent item. */
  standalone: { raw: Raw; att: ZoteroAttachment }[];
  annotations: ZoteroAnnotation[];
}

export async function readAttachments(
  db: Database,
  opts: { dataDir: string; baseAttachmentPath?: string },
  c: { byId: Map<number, Raw>; badKeys: Map<number, string>; deleted: Set<number>; cuts: FieldCuts; warnings: string[]; signal?: AbortSignal },
): Promise<DatabaseFiles> {
  const { byId, deleted, cuts, warnings } = c;
  const storage = path.join(opts.dataDir, 'storage');
  const attachmentsOf = new Map<number, ZoteroAttachment[]>();
  const standalone: DatabaseFiles['standalone'] = [];
  const attachmentById = new Map<number, ZoteroAttachment>();
  const missingFiles: string[] = [];
  const unresolved: string[] = [];
  const refused: string[] = [];
  const checks: Promise<void>[] = [];
  // 'attachments:' + the longest path: a longer one is no file's, and is refused whole (a cut path is another file).
  const pathCut = L.path + 'attachments:'.length;
  for (const r of rows<Row>(
    db,
    `SELECT itemID AS id, parentItemID AS parent, linkMode AS mode, ${cutSql('contentType', 100)} AS ct, ${cutSql('path', pathCut)} AS path FROM itemAttachments ORDER BY itemID`,
  )) {
    const raw = byId.get(Number(r.id));
    if (!raw || deleted.has(raw.id)) {
      if (!raw && c.badKeys.has(Number(r.id)) && r.path) c.badKeys.set(Number(r.id), `${c.badKeys.get(Number(r.id))} (an attachment, not read)`);
      continue;
    }
    const parent = r.parent == null ? undefined : Number(r.parent);
    // The child of an item left out (its key is not Zotero's) goes with it, never as an item of its own.
    if (parent !== undefined && c.badKeys.has(parent)) continue;
    const stored = str(r.path);
    const contentType = str(r.ct);
    const isPdf = contentType === 'application/pdf' || (!contentType && /\.pdf$/i.test(stored ?? ''));
    if (!isPdf) continue;
    const linkMode = LINK_MODES[Number(r.mode)] ?? `linkMode${r.mode}`;
    const title = cuts.text(raw.fields.title, L.title, `attachment ${raw.key}`, 'title');
    const att: ZoteroAttachment = { key: raw.key, libraryId: raw.libraryId, linkMode, contentType, title };
    const named = `attachment ${raw.key}${title ? `, "${title.slice(0, 80)}"` : ''}`;
    if (linkMode === 'linked_url') continue;
    if (stored && stored.length > pathCut) {
      att.missing = true;
      refused.push(`a path of over ${L.path} characters (${named})`);
    } else if (stored?.startsWith('storage:')) {
      const file = storedFile(storage, raw.key, stored.slice('storage:'.length));
      if ('path' in file) {
        att.path = file.path;
        att.within = [storage];
      } else {
        att.missing = true;
        refused.push(`${named}: ${file.refused}`);
      }
    } else if (stored?.startsWith('attachments:')) {
      const rel = stored.slice('attachments:'.length);
      if (opts.baseAttachmentPath) att.path = path.join(opts.baseAttachmentPath, ...rel.split(/[\\/]/));
      else {
        att.missing = true;
        unresolved.push(`${raw.key} (${rel.slice(0, 200)})`);
      }
    } else if (stored && linkMode.startsWith('imported_')) {
      // A stored file is always `storage:<name>` in its item's folder; an absolute path in its
      // place (found by the fuzzer) would let the database name any file as a stored one.
      att.missing = true;
      refused.push(`${named}: a stored file's path is "storage:<name>", not ${JSON.stringify(stored.slice(0, 80))}`);
    } else if (stored && (path.isAbsolute(stored) || /^[A-Za-z]:[\\/]/.test(stored))) att.path = stored;
    else if (stored) {
      att.missing = true;
      unresolved.push(`${raw.key} (${stored.slice(0, 200)})`);
    } else continue;
    if (att.path) checks.push(lookAt(att, named, { missingFiles, refused }, c.signal));
    attachmentById.set(raw.id, att);
    if (parent !== undefined && byId.has(parent)) {
      const list = attachmentsOf.get(parent) ?? [];
      list.push(att);
      attachmentsOf.set(parent, list);
    } else standalone.push({ raw, att });
  }
  await Promise.all(checks);
  if (missingFiles.length) warnings.push(named('attachment files not found (not indexed; in Zotero, "Show File" or sync the library)', missingFiles));
  if (refused.length) warnings.push(named("attachment files refused (not indexed): a stored file must lie in its item's folder in Zotero's storage", refused));
  if (unresolved.length)
    warnings.push(named("linked files relative to the linked-attachment base directory, which Zotero's prefs.js does not name (not indexed)", unresolved));
  return { attachmentsOf, standalone, annotations: readAnnotations(db, byId, deleted, attachmentById, cuts) };
}

/** Whether the attachment's file is there and may be read (a stored one: in storage/, links followed). */
async function lookAt(att: ZoteroAttachment, named: string, out: { missingFiles: string[]; refused: string[] }, signal?: AbortSignal): Promise<void> {
  const p = att.path!;
  const rule: FileRule = { kind: 'pdf', within: att.within, rootName: "Zotero's storage folder", signal };
  try {
    await statConfined(p, rule);
  } catch (e) {
    if (e instanceof FileRefused && e.code === 'cancelled') throw e;
    att.missing = true;
    if (e instanceof FileRefused && e.code !== 'missing') out.refused.push(`${e.message} (${named})`);
    else out.missingFiles.push(`${p} (${named})`);
  }
}

function readAnnotations(
  db: Database,
  byId: Map<number, Raw>,
  deleted: Set<number>,
  attachmentById: Map<number, ZoteroAttachment>,
  cuts: FieldCuts,
): ZoteroAnnotation[] {
  const annotations: ZoteroAnnotation[] = [];
  const tables = new Set(rows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name));
  if (!tables.has('itemAnnotations')) return annotations;
  const sql = `SELECT itemID AS id, parentItemID AS parent, type, ${cutSql('text', L.annotationText)} AS text, ${cutSql('comment', L.annotationComment)} AS comment, ${cutSql('color', L.color)} AS color, ${cutSql('pageLabel', L.pageLabel)} AS pageLabel, ${cutSql('position', L.position)} AS position FROM itemAnnotations`;
  for (const r of rows<Row>(db, sql)) {
    const raw = byId.get(Number(r.id));
    const parent = byId.get(Number(r.parent));
    if (!raw || !parent || deleted.has(raw.id) || !attachmentById.has(parent.id)) continue;
    const owner = `annotation ${raw.key}`;
    annotations.push({
      key: raw.key,
      attachmentKey: parent.key,
      type: ANNOTATION_TYPES[Number(r.type)] ?? `type${r.type}`,
      text: cuts.text(str(r.text), L.annotationText, owner, 'text'),
      comment: cuts.text(str(r.comment), L.annotationComment, owner, 'comment'),
      pageLabel: cuts.text(str(r.pageLabel), L.pageLabel, owner, 'page label'),
      pageIndex: pageIndexOf(r.position),
      color: str(r.color)?.slice(0, L.color),
      dateModified: raw.dateModified,
    });
  }
  return annotations;
}

export function named(what: string, list: string[]): string {
  const shown = list.slice(0, MAX_NAMED).join('; ');
  return `${what}: ${shown}${list.length > MAX_NAMED ? `; and ${list.length - MAX_NAMED} more` : ''}`;
}
