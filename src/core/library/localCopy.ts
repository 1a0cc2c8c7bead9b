/**
 * A source's PDF on this machine when the index was made on another (a lab's library server,
 * issue 37). The publisher indexed each file at a path of their machine; a member has it where
 * Zotero's group sync or a shared drive put it: under the same attachment key in their own Zotero
 * storage, or under one of their library folders with the same last folders. A copy counts only
 * inside those places (links followed) and with the size the publisher indexed. The published path
 * comes from the server, so it is never trusted as a path: only its last names are used, and never
 * `.` or `..`.
 */
import * as path from 'node:path';
import { statConfined } from '../util/confinedFiles';

export interface PublishedFile {
  /** The path on the publisher's machine (any platform's separators). */
  path: string;
  /** Its size as indexed; unknown when the server is out of reach (a copy is then taken by its place and name). */
  size?: number;
}

export interface CopyPlaces {
  /** The member's Zotero data folder (its `storage/<KEY>/` holds synced attachments). */
  zoteroDataDir?: string;
  /** The member's library folders. */
  folders: readonly string[];
}

/** Zotero's attachment folder names: 8 characters of its key alphabet. */
const ZOTERO_KEY = /^[23456789ABCDEFGHIJKLMNPQRSTUVWXYZ]{8}$/;
/** How many of the path's last names are tried under a library folder (the file and 3 folders). */
const TAIL = 4;

/** Where a copy may be, most specific first, each with the folder it must stay in. */
export function copyCandidates(published: string, places: CopyPlaces): Array<{ file: string; within: string }> {
  const parts = published.split(/[\\/]+/).filter(Boolean);
  const name = parts[parts.length - 1];
  if (!name || !/\.pdf$/i.test(name) || parts.some((p) => p === '.' || p === '..' || p.includes('\0'))) return [];
  const out: Array<{ file: string; within: string }> = [];
  // The same path, where it lies in one of the member's folders (a shared drive mounted alike).
  for (const folder of [...(places.zoteroDataDir ? [places.zoteroDataDir] : []), ...places.folders]) {
    const rel = path.relative(folder, published);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) out.push({ file: published, within: folder });
  }
  const key = parts[parts.length - 2];
  if (places.zoteroDataDir && parts[parts.length - 3]?.toLowerCase() === 'storage' && ZOTERO_KEY.test(key ?? '')) {
    const storage = path.join(places.zoteroDataDir, 'storage');
    out.push({ file: path.join(storage, key, name), within: storage });
  }
  for (let k = Math.min(TAIL, parts.length); k >= 1; k--)
    for (const folder of places.folders) out.push({ file: path.join(folder, ...parts.slice(-k)), within: folder });
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.file) && !!seen.add(c.file));
}

/** This machine's copy of a published file, or undefined when none of the places has it. */
export async function findLocalCopy(file: PublishedFile, places: CopyPlaces): Promise<string | undefined> {
  for (const c of copyCandidates(file.path, places)) {
    const found = await statConfined(c.file, { kind: 'pdf', within: [c.within] }).catch(() => undefined);
    if (found && (file.size === undefined || found.size === file.size)) return found.path;
  }
  return undefined;
}
