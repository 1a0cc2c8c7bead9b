/**
 * What either Zotero reader (database.ts, localApi.ts) keeps of a field, at most: Zotero's fields
 * are the user's, or whoever wrote into the library (a shared group, a sync, an import), and
 * nothing bounds them there. One 10 MB title used to cost 20 s of CPU, 3.4 GB and a 20 MB manifest
 * (issue 35): every field is cut where it is read, to sizes far above any real library's, so
 * what follows (citekeys, terms, cards, the manifest) costs what an ordinary item costs.
 *
 * Also here: Zotero's object keys, the one shape a key may have before it names a folder
 * (storage/<key>/) or goes into a URL (items/<key>/file), and collection paths built without
 * recursion and to a bounded depth.
 */
import * as path from 'node:path';

export const ZOTERO_LIMITS = {
  /** Characters of a title (an item's, an attachment's): the longest real ones (laws, reports) run to a few hundred. */
  title: 1000,
  /** Of a creator's first, last or single-field name. */
  name: 200,
  /** Creators kept per item (cards show 30; a collaboration's thousands are not needed to cite it). */
  creators: 100,
  tags: 200,
  tag: 200,
  /** Collections one item is listed in. */
  collections: 100,
  collectionName: 200,
  /** Levels of a collection path: deeper chains keep their last levels after "…" (as the BBT JSON reader does). */
  collectionDepth: 32,
  /** Of a whole collection path. */
  collectionPath: 1000,
  /** Extra holds free text; only its "Citation Key:" and "DOI:" lines are read. */
  extra: 64 * 1024,
  doi: 200,
  date: 100,
  /** A citation key longer than this is no key anyone types: it is dropped and one is generated. */
  citekey: 200,
  /** No file system names a longer path: such an attachment is refused, never cut (a cut path is another file). */
  path: 4096,
  /** Highlighted text: a few pages (the sidecar keeps 2000 characters of it, matching uses its ends). */
  annotationText: 20_000,
  annotationComment: 4000,
  pageLabel: 40,
  color: 40,
  itemType: 64,
  libraryName: 200,
  /** Zotero's timestamps ("2026-01-02 03:04:05", ISO with zone). */
  timestamp: 40,
  /** Of an annotation's position (JSON), only its page index is read: an ink drawing's can be long. */
  position: 64 * 1024,
} as const;

/** Zotero's keys: 8 characters of this alphabet (Zotero.Utilities.generateObjectKey). */
const KEY = /^[23456789ABCDEFGHIJKLMNPQRSTUVWXYZ]{8}$/;

export const isZoteroKey = (k: unknown): k is string => typeof k === 'string' && KEY.test(k);

/** A key as a warning may show it: quoted, bounded (it can be anything). */
export const shownKey = (k: unknown) => JSON.stringify(String(k).slice(0, 40)) + (String(k).length > 40 ? '…' : '');

/** `s` cut to `max` UTF-16 units, an ellipsis marking the cut; O(max), whatever `s` holds. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // never half a surrogate pair
  return s.slice(0, end) + '…';
}

/**
 * Fields cut while a library is read, said once as one warning, by field with the first items
 * named: the user learns which items hold text no real item has, and that what is shown is its
 * beginning.
 */
export class FieldCuts {
  /** Per field cut ("title (over 1000 characters)"): the owners ("item ABCD2345"), each once. */
  private readonly byField = new Map<string, Set<string>>();

  /** `v` (a string, else undefined) cut to `max`, the cut noted against `owner` ("item ABCD2345"). */
  text(v: unknown, max: number, owner: string, field: string): string | undefined {
    if (typeof v !== 'string') return undefined;
    if (v.length <= max) return v;
    this.note(owner, `${field} (over ${max} characters)`);
    return clip(v, max);
  }

  /** The first `max` of `list`, the rest noted. */
  list<T>(list: T[], max: number, owner: string, field: string): T[] {
    if (list.length <= max) return list;
    this.note(owner, `${field} (over ${max}: the first kept)`);
    return list.slice(0, max);
  }

  note(owner: string, what: string): void {
    let owners = this.byField.get(what);
    if (!owners) this.byField.set(what, (owners = new Set()));
    owners.add(owner);
  }

  warning(): string | undefined {
    if (!this.byField.size) return undefined;
    const parts = [...this.byField].map(([what, owners]) => {
      const named = [...owners].slice(0, 3).join(', ');
      return `${what}: ${named}${owners.size > 3 ? ` and ${owners.size - 3} more` : ''}`;
    });
    return `fields longer than Similar Sources reads were cut (what is shown is their beginning): ${parts.join('; ')}`;
  }
}

/**
 * Each collection's path ("Thesis/Chapter 2"), walking up its parents without recursion: a
 * parent cycle (a damaged library) ends the walk, and a chain deeper than the limit keeps its
 * last levels after "…". `trashed` collections have no path (nor do those below them).
 */
export function collectionPaths<K>(cols: Map<K, { name: string; parent?: K }>, trashed: (k: K) => boolean = () => false): Map<K, string> {
  const out = new Map<K, string>();
  for (const key of cols.keys()) {
    const names: string[] = [];
    const seen = new Set<K>();
    let cut = false;
    let gone = false;
    for (let cur: K | undefined = key; cur !== undefined;) {
      const c = cols.get(cur);
      if (!c || seen.has(cur)) break;
      if (trashed(cur)) {
        gone = true;
        break;
      }
      seen.add(cur);
      if (names.length >= ZOTERO_LIMITS.collectionDepth) {
        cut = true;
        break;
      }
      names.push(c.name);
      cur = c.parent;
    }
    if (gone) continue;
    if (cut) names.push('…');
    const p = names.reverse().join('/');
    out.set(key, p.length <= ZOTERO_LIMITS.collectionPath ? p : '…' + p.slice(p.length - ZOTERO_LIMITS.collectionPath + 1));
  }
  return out;
}

/**
 * The file of a stored attachment (`storage:<name>`): `<storage>/<key>/<name>`, which must stay
 * in its item's folder (Zotero writes a file name there, never `..`). Linked files may lie
 * anywhere, by Zotero's design; stored ones may not. The read is confined to `storage` again once
 * links are followed (the attachment's `within`): a link in storage/ to a file elsewhere is refused then.
 */
export function storedFile(storage: string, key: string, name: string): { path: string } | { refused: string } {
  if (!isZoteroKey(key)) return { refused: `its key ${shownKey(key)} is not a Zotero key` };
  if (name.length > ZOTERO_LIMITS.path || name.includes('\0')) return { refused: 'its file name is not one a file system has' };
  const folder = path.join(storage, key);
  const file = path.resolve(folder, ...name.split(/[\\/]/));
  const rel = path.relative(folder, file);
  if (!rel || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    return { refused: `its file ${shownKey(name)} is outside its folder in Zotero's storage` };
  }
  return { path: file };
}

/** An annotation position's page index (JSON text or object); one too long to parse gives it from its text. */
export function pageIndexOf(position: unknown): number | undefined {
  let i: unknown;
  if (typeof position === 'string') {
    const text = position.slice(0, ZOTERO_LIMITS.position);
    try {
      i = (JSON.parse(text) as { pageIndex?: unknown } | null)?.pageIndex;
    } catch {
      // Cut, or written in another form: its first "pageIndex", if any.
      const m = /"pageIndex"\s*:\s*(\d{1,9})\b/.exec(text);
      i = m ? Number(m[1]) : undefined;
    }
  } else if (position && typeof position === 'object') i = (position as { pageIndex?: unknown }).pageIndex;
  return typeof i === 'number' && Number.isInteger(i) && i >= 0 ? i : undefined;
}
