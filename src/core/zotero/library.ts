/**
 * A Zotero snapshot as the library pipeline takes it: the files to index (every PDF attachment
 * of every item not in the trash, each with its item's citekey, title, authors, year and
 * collections) and the bibliography entries (every item not in the trash, with or without a PDF:
 * citekey completion and the citation check know them all). An item's first PDF, in Zotero's
 * order, is the one its card opens; the others are indexed as sources of the same item.
 */
import type { BibEntry } from '../library/bibEntry';
import type { BibMatch } from '../library/metadata';
import { assignCitekeys, type CitekeySources } from './citekey';
import { ZoteroDatabaseReader } from './database';
import { locateZotero, type ZoteroLocation } from './dataDir';
import { sharedLocalApiReader } from './localApi';
import { ZoteroUnavailable, type ZoteroCreator, type ZoteroItem, type ZoteroReader, type ZoteroSnapshot } from './model';
import { readZotero } from './open';
import { zoteroMeta } from '../../shared/results';

export interface ZoteroFile {
  path: string;
  bib: BibMatch;
  itemKey: string;
  /** Zotero item type and tags (primary sources may be named by tag or collection). */
  itemType: string;
  tags: string[];
  /** Folders the file must lie in once links are followed (Zotero's storage/ for a stored file). */
  within?: string[];
}

export interface ZoteroLibraryContent {
  files: ZoteroFile[];
  entries: BibEntry[];
  warnings: string[];
}

/** "Last, First" (or the single-field name), as the bibliography readers give authors. */
export function authorName(c: ZoteroCreator): string | undefined {
  if (c.name) return c.name;
  const last = c.lastName?.trim();
  const first = c.firstName?.trim();
  if (last && first) return `${last}, ${first}`;
  return last || first || undefined;
}

/** Authors, else editors, else whoever is named: a card never lacks a name when Zotero has one. */
function authorsOf(item: ZoteroItem): string[] {
  const names = (type?: string) =>
    item.creators
      .filter((c) => !type || c.creatorType === type)
      .map(authorName)
      .filter((n): n is string => !!n);
  const authors = names('author');
  if (authors.length) return authors;
  const editors = names('editor');
  return editors.length ? editors : names();
}

export function zoteroLibraryContent(snapshot: ZoteroSnapshot): ZoteroLibraryContent {
  const files: ZoteroFile[] = [];
  const entries: BibEntry[] = [];
  const seen = new Set<string>();
  const warnings = [...snapshot.warnings];
  for (const item of snapshot.items) {
    if (item.deleted) continue;
    const bib: BibMatch = {
      citekey: item.citekey,
      title: item.title,
      authors: authorsOf(item),
      year: item.year,
      collections: [...item.collections],
      ...zoteroMeta(item),
    };
    const pdfs = item.attachments.filter((a) => a.path && !a.missing);
    entries.push({
      citekey: item.citekey,
      title: item.title,
      authors: bib.authors,
      year: item.year,
      collections: bib.collections,
      files: pdfs.map((a) => a.path!),
      type: item.itemType,
    });
    for (const { path: p, within } of pdfs) {
      // One file attached to two items (a PDF linked twice) is indexed once, under the first.
      if (seen.has(p!)) continue;
      seen.add(p!);
      files.push({ path: p!, bib, itemKey: item.key, itemType: item.itemType, tags: item.tags, ...(within ? { within } : {}) });
    }
  }
  return { files, entries, warnings };
}

export interface ZoteroRequest {
  /** The data directory set (setting or --zotero <dir>); undefined: found from the profile, else ~/Zotero. */
  dataDir?: string;
  home?: string;
}

export interface LoadedZotero {
  location: ZoteroLocation;
  snapshot: ZoteroSnapshot;
  content: ZoteroLibraryContent;
}

export interface LoadZoteroOptions {
  /** Keys given from outside (Better BibTeX) and the export's entries, for items without Zotero's own key. */
  citekeys?: CitekeySources;
  /** The readers to try in order (default: the database copy); the first that answers is used. */
  readers?: (location: ZoteroLocation) => ZoteroReader[];
  signal?: AbortSignal;
}

/**
 * Zotero's library for indexing: located (dataDir.ts), read by the first reader that answers, and
 * turned into files and entries. Undefined, with no warning, when no data directory was named
 * and none exists (`auto` on a machine without Zotero); a named one that is missing, or a library
 * no reader can read, is a warning saying what to do, and the rest of the library is indexed.
 */
export async function loadZoteroLibrary(req: ZoteroRequest, opts: LoadZoteroOptions = {}): Promise<{ loaded?: LoadedZotero; warnings: string[] }> {
  const location = await locateZotero({ setting: req.dataDir, home: req.home });
  // A profile file that could not be read (a FIFO in its place) is said whatever follows.
  const profile = (location.warnings ?? []).map((w) => `Zotero: ${w}`);
  if (!location.exists) {
    if (location.from === 'default') return { warnings: profile };
    const from = location.from === 'setting' ? 'the folder set for Zotero' : `Zotero's profile (${location.prefsFile})`;
    return {
      warnings: [
        ...profile,
        `Zotero: no zotero.sqlite in ${location.dataDir}, ${from}. Set similarSources.zoteroDataDir (or --zotero <dir>) to the folder Zotero shows in Settings → Advanced → Files and Folders.`,
      ],
    };
  }
  // The local API first (Zotero running, with it enabled: incremental, nothing copied), then the
  // database copy; Better BibTeX's keys, then the export's and generated ones, fill what is empty.
  const readers = opts.readers?.(location) ?? [
    sharedLocalApiReader({ dataDir: location.dataDir }),
    new ZoteroDatabaseReader({ dataDir: location.dataDir, baseAttachmentPath: location.baseAttachmentPath, citekeys: opts.citekeys }),
  ];
  try {
    const read = await readZotero(readers, {
      signal: opts.signal,
      previous: lastSnapshot.get(location.dataDir),
      shownHints,
      fillCitekeys: (s) => assignCitekeys(s.items, opts.citekeys),
    });
    lastSnapshot.set(location.dataDir, read.snapshot);
    const content = zoteroLibraryContent(read.snapshot);
    return {
      loaded: { location, snapshot: read.snapshot, content },
      warnings: [...profile, ...read.hints.map((h) => `Zotero: ${h}`), ...content.warnings.map((w) => `Zotero: ${w}`)],
    };
  } catch (err) {
    if (!(err instanceof ZoteroUnavailable)) throw err;
    return { warnings: [...profile, `Zotero: ${err.message}${err.hint ? ` ${err.hint}` : ''}`] };
  }
}

/**
 * Per process: the last snapshot of each data directory (a re-read asks only what changed), and
 * the hints already given (how to enable the local API is said once, not on every re-index).
 */
const lastSnapshot = new Map<string, ZoteroSnapshot>();
const shownHints = new Set<string>();
