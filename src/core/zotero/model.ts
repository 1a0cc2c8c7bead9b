/**
 * What a Zotero library gives the engine, whichever way it was read (the local API or a copy
 * of the database): one shape, so that the rest of the engine sees one library. The readers
 * (localApi.ts, database.ts) fill it; library.ts turns it into the files to index and the
 * bibliography entries that give them citekeys, titles and collections.
 */

/** A Zotero library: the user's own ("My Library") or a group's. */
export interface ZoteroLibraryInfo {
  /** Zotero's libraryID (database) or a stable id built from the API prefix ("users/0", "groups/123"). */
  id: string;
  type: 'user' | 'group';
  name: string;
  /** The group's id, for group libraries. */
  groupId?: number;
  /** Zotero's library version: what `since=` is given next time (API), or the database's. */
  version?: number;
}

export interface ZoteroCreator {
  creatorType: string;
  firstName?: string;
  lastName?: string;
  /** Single-field creators (institutions). */
  name?: string;
}

export interface ZoteroAttachment {
  key: string;
  libraryId: string;
  /** 'imported_file' | 'imported_url' | 'linked_file' | 'linked_url' | 'embedded_image' */
  linkMode: string;
  contentType?: string;
  title?: string;
  /** Absolute path of the file on this machine (storage/<KEY>/<file>, or the linked file resolved); undefined for links. */
  path?: string;
  /** True when the file named is not on disk: reported, never indexed. */
  missing?: boolean;
  /**
   * Folders the file must lie in once links are followed, where its bytes are read: Zotero's
   * storage/ for a stored file; undefined for a linked file, which may lie anywhere.
   */
  within?: string[];
}

export interface ZoteroAnnotation {
  key: string;
  /** The PDF attachment annotated. */
  attachmentKey: string;
  /** 'highlight' | 'underline' | 'note' | 'text' | 'image' | 'ink' */
  type: string;
  /** The highlighted or underlined text. */
  text?: string;
  comment?: string;
  /** The page label Zotero shows ("12", "xii"). */
  pageLabel?: string;
  /** 0-based page index, from the annotation's position. */
  pageIndex?: number;
  color?: string;
  dateModified?: string;
}

export interface ZoteroItem {
  key: string;
  libraryId: string;
  itemType: string;
  title?: string;
  creators: ZoteroCreator[];
  /** Zotero's `date` field as stored ("1973-05-01", "c. 1949"). */
  date?: string;
  year?: number;
  doi?: string;
  /** The citation key used on cards: Zotero's `citationKey` field, else Better BibTeX's, else the export's, else generated. */
  citekey: string;
  /** Where `citekey` came from; `generated` keys are not pinned and may change when metadata does. */
  citekeyFrom: 'zotero' | 'better-bibtex' | 'export' | 'generated';
  /** Collection paths ("Thesis/Chapter 2"), nested names joined by '/'. */
  collections: string[];
  tags: string[];
  /** In the trash: never indexed, never listed. */
  deleted: boolean;
  /** PDF attachments (child items), in Zotero's order; the first one is the one a card shows. */
  attachments: ZoteroAttachment[];
  dateModified?: string;
}

export interface ZoteroCollection {
  key: string;
  libraryId: string;
  name: string;
  parentKey?: string;
  /** "Thesis/Chapter 2". */
  path: string;
}

/** A Zotero library as read, and what went wrong reading it (per item or file, never fatal for the rest). */
export interface ZoteroSnapshot {
  via: 'local-api' | 'database';
  dataDir?: string;
  libraries: ZoteroLibraryInfo[];
  items: ZoteroItem[];
  collections: ZoteroCollection[];
  annotations: ZoteroAnnotation[];
  /**
   * A stamp that changes whenever the library does (the API's library versions, or the
   * database and WAL sizes and times): equal stamps mean nothing to re-read.
   */
  stamp: string;
  warnings: string[];
}

/** Each way of reading Zotero implements this; the first that answers is used (local API, then the database). */
export interface ZoteroReader {
  readonly name: 'local-api' | 'database';
  /** Reads the library; throws a ZoteroUnavailable when this path cannot be used now (the next is tried). */
  read(opts?: { signal?: AbortSignal; previous?: ZoteroSnapshot }): Promise<ZoteroSnapshot>;
}

/** This path cannot answer now (API off or 403, Zotero not running, no database): the message says what to do. */
export class ZoteroUnavailable extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ZoteroUnavailable';
  }
}
