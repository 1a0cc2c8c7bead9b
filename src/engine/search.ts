/**
 * The loaded index and what is asked of it directly: passages for a text,
 * citekeys for a paragraph, the library's citekeys and collections.
 */
import { preview } from '../core/analysis/preview';
import type { EmbeddingProvider } from '../core/embedding/provider';
import { LibraryIndex, type PassageRecord, type SearchFilter, type SearchHit } from '../core/index/search/libraryIndex';
import { indexDir, IndexGenerationGone, type SourceRecord } from '../core/index/store/manifest';
import { loadBibliography } from '../core/library/bibliography';
import { queryTerms } from '../core/retrieval/representation';
import { readZoteroEntries } from '../core/zotero/entriesFile';
import { EngineError } from '../shared/errors';
import type { SemanticProgress } from '../shared/health';
import { present, SOURCE_FIELDS, type Present } from '../shared/nulls';
import { zoteroMeta, type HighlightMark, type Recommendation } from '../shared/results';
import { embedsInBackground } from './provider';

export type { SearchFilter } from '../core/index/search/libraryIndex';

/**
 * An index loaded for searching, as hosts hold it: handed back to `search`, `analyze`,
 * `rankCitekeys`…; what it says of itself is its size and, with a model that embeds in
 * the background, how many passages have their vector yet (`semantic`).
 */
export interface SearchIndex {
  readonly fingerprint: string;
  /** Passages. */
  readonly size: number;
  readonly semantic?: SemanticProgress;
}

/** The core's index behind each handle this engine gave out (the handle is the index, seen through SearchIndex). */
const loaded = new WeakMap<SearchIndex, LibraryIndex>();

/** Closes the files a loaded index keeps open for reading passages (an index replaced by a newer one). */
export function closeIndex(index: SearchIndex): void {
  loaded.get(index)?.close();
}

/** A loaded index whose generation a newer commit removed while it was read: open it again. */
export function isGenerationGone(err: unknown): boolean {
  return err instanceof IndexGenerationGone;
}

/** The core index of a handle; one this engine did not open is a caller's mistake. */
export function coreIndex(index: SearchIndex): LibraryIndex {
  const core = loaded.get(index);
  if (!core) throw new EngineError('invalid-options', 'not an index opened by this engine (openIndex)');
  return core;
}

/** The index loaded for searching; `index-not-ready` (with its health) when it cannot serve `provider`. */
export async function openIndex(workspace: string, provider: EmbeddingProvider): Promise<SearchIndex> {
  // A model whose vectors are being computed serves already: passages without one match by their words.
  return servedIndex(await LibraryIndex.open(workspace, provider, { partial: embedsInBackground(provider) }));
}

/** A core index handed out as a SearchIndex (a workspace's, or a library server's: libraryServer.ts). */
export function servedIndex(core: LibraryIndex): SearchIndex {
  loaded.set(core, core);
  return core;
}

/**
 * Reads the Zotero highlights beside the index again when highlightsForIndex replaced them, so a
 * loaded index follows new highlights without reloading its passages; says whether they changed.
 */
export function refreshHighlights(index: SearchIndex): Promise<boolean> {
  return coreIndex(index).refreshHighlights();
}

/** Collections named in a loaded index (for a filter's choices), sorted. */
export function indexCollections(index: SearchIndex): string[] {
  return [...new Set(coreIndex(index).sources.flatMap((s) => s.collections))].sort((a, b) => a.localeCompare(b));
}

/** What a result says of its source, and of a passage (absent fields are null: shared/nulls.ts). */
const PASSAGE_FIELDS = ['page', 'pageLabel', 'heading'] as const;
export type SourceFields = Pick<Present<SourceRecord>, (typeof SOURCE_FIELDS)[number]>;
export type PassageFields = Pick<Present<PassageRecord>, (typeof PASSAGE_FIELDS)[number]>;

/** One passage found by `search`, with its source: plain data (JSON as it is). */
export interface PassageHit extends SourceFields, PassageFields, Pick<SearchHit, 'text' | 'ocr'>, Pick<Recommendation, 'doi' | 'itemType' | 'tags'> {
  /** Fused rank score, and the cosine of the passage's vector with the query's. */
  score: number;
  cosine: number;
  /** The user's Zotero highlight on this passage; null when none. Untrusted text. */
  highlight: HighlightMark | null;
}

export interface SearchOptions {
  k: number;
  filter?: SearchFilter;
  signal?: AbortSignal;
}

/** The top passages for a text, best first. */
export async function search(index: SearchIndex, text: string, opts: SearchOptions): Promise<PassageHit[]> {
  const hits = await coreIndex(index).search(text, opts);
  return hits.map(toPassageHit);
}

function toPassageHit(h: SearchHit): PassageHit {
  // Keys in the order the CLI's --json has always printed them.
  return {
    ...present(h.sourceRecord, SOURCE_FIELDS),
    ...present(h, PASSAGE_FIELDS),
    score: h.score,
    cosine: h.cosine,
    text: h.text,
    ...(h.ocr ? { ocr: true as const } : {}),
    ...present(h, ['highlight']),
    ...zoteroMeta(h.sourceRecord),
  };
}

const ENTRY_FIELDS = ['title', 'authors', 'year'] as const;

/** A citekey of the library, for completion. */
export interface CitekeyEntry extends Pick<SourceFields, (typeof ENTRY_FIELDS)[number]> {
  citekey: string;
}

/** A citekey ranked for a paragraph: its source's best passage there. */
export interface CitekeyHit extends CitekeyEntry, Pick<PassageFields, 'page' | 'pageLabel'> {
  /** The best passage, an excerpt around its rarest matched words. Untrusted text. */
  passage: string;
}

/**
 * The library's citekeys most relevant to a paragraph being written, best
 * first (the engine's source ranking, keeping sources that have a key): what
 * completion offers after `[@`. At most `k`.
 */
export async function rankCitekeys(handle: SearchIndex, paragraph: string, k: number, opts: { signal?: AbortSignal } = {}): Promise<CitekeyHit[]> {
  const index = coreIndex(handle);
  if (!paragraph.trim() || k <= 0) return [];
  const keyed = index.sources.filter((s) => s.citekey).length;
  if (keyed === 0) return [];
  // Sources without a key are skipped, so ask for more than k (all of them when few are keyed).
  const want = keyed === index.sources.length ? k : Math.min(index.sources.length, k * 3);
  const hits = await index.searchSources(paragraph, { k: want, signal: opts.signal });
  const terms = new Set(queryTerms(paragraph));
  const idf = (t: string) => index.termIdf(t);
  const out: CitekeyHit[] = [];
  for (const h of hits) {
    const s = h.sourceRecord;
    if (!s.citekey) continue;
    const best = h.passages[0];
    out.push({ citekey: s.citekey, ...present(s, ENTRY_FIELDS), ...present(best, ['page', 'pageLabel']), passage: preview(best.text, terms, idf, 280) });
    if (out.length >= k) break;
  }
  return out;
}

/** Every citekey of the loaded index's sources, alphabetical. */
export function indexCitekeys(index: SearchIndex): CitekeyEntry[] {
  return sortEntries(coreIndex(index).sources.flatMap((s) => (s.citekey ? [{ citekey: s.citekey, ...present(s, ENTRY_FIELDS) }] : [])));
}

/**
 * The entries of a Better BibTeX export (.bib or BBT JSON), alphabetical by
 * key: completion's list before the library is indexed. Entries it cannot
 * read are `warnings`; an unreadable file is `unreadable`.
 */
export async function readBibliography(file: string, opts: { draftWorkspace?: string } = {}): Promise<{ entries: CitekeyEntry[]; warnings: string[] }> {
  let parsed: Awaited<ReturnType<typeof loadBibliography>>;
  try {
    parsed = await loadBibliography(file, { draftWorkspace: opts.draftWorkspace });
  } catch (err) {
    throw new EngineError('unreadable', `the bibliography cannot be read: ${(err as Error).message}`);
  }
  // An entry without a title lists as '' (completion shows its key), as a source's title is never absent.
  const entries = parsed.entries.map((e) => ({ citekey: e.citekey, title: e.title ?? '', ...present(e, ['authors', 'year']) }));
  return { entries: sortEntries(entries), warnings: parsed.warnings };
}

/**
 * The Zotero library's entries as of the last indexing run (items without a PDF included),
 * alphabetical: completion lists them beside the index's keys. Empty without Zotero.
 */
export async function zoteroCitekeys(workspace: string): Promise<CitekeyEntry[]> {
  const read = await readZoteroEntries(indexDir(workspace));
  return sortEntries((read?.entries ?? []).map((e) => ({ citekey: e.citekey, title: e.title ?? '', ...present(e, ['authors', 'year']) })));
}

function sortEntries(entries: CitekeyEntry[]): CitekeyEntry[] {
  return entries.sort((a, b) => a.citekey.localeCompare(b.citekey));
}
