/**
 * The index loaded for searching: all passages of all shards in memory, their
 * lexical index and their vectors (of one provider+model) packed in one
 * Float32Array, so a query is one BM25 lookup plus one flat scan. The rows are
 * read from the shards by loadRows.ts.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { EmbeddingProvider } from '../../embedding/provider';
import { PostingsIndex } from '../../retrieval/postingsIndex';
import { fusionFor, rankPassages, rankSources, vectorHitsMany, type HybridParams, type PassageCollection, type RankedPassage } from '../../retrieval/hybrid';
import { queryTerms } from '../../retrieval/representation';
import { languageHint, type Lang } from '../../text/tokenize';
import { runInSlices } from '../../util/timeSlices';
import { dotRow, sampledDots } from '../../retrieval/vectorScan';
import { allocateVectors } from '../../retrieval/simd/vectorStore';
import { rowTieKeys, sampleRows, sourceTieKeys } from '../../retrieval/tieKeys';
import { corruptError, healthOf, notReadyError } from '../health';
import {
  IndexCorruptError,
  IndexGenerationGone,
  indexDir,
  readManifest,
  type Manifest,
  type SourceRecord,
  type SourceType,
  type VectorSetRecord,
} from '../store/manifest';
import type { SemanticProgress } from '../../../shared/health';
import type { Passage } from '../../passages/chunker';
import type { PassageReader } from '../store/passageReader';
import { HIGHLIGHTS_FILE, highlightsFingerprint, parseHighlights, readHighlights, type PassageHighlight } from '../store/highlights';
import { loadRows, type LoadedRows } from './loadRows';

/** A passage as the loaded index holds it: the chunker's passage, with its source's number. */
export interface PassageRecord extends Passage {
  source: number;
  /** The text comes from OCR of a scanned page. */
  ocr?: true;
}

export interface OpenOptions {
  /**
   * The provider's vectors are computed in the background (embedPending): an index
   * that has only some of them opens, and `semantic` says how many.
   */
  partial?: boolean;
  signal?: AbortSignal;
}

export interface SearchFilter {
  sourceType?: SourceType | 'both';
  /** Keep sources in any of these collections (case-insensitive; full path or leaf name). */
  collections?: string[];
}

export interface SearchOptions {
  k: number;
  filter?: SearchFilter;
  vectorText?: string;
  signal?: AbortSignal;
}

/** One query of a batch: `vectorText` is what gets embedded (default `text`). */
export interface SearchItem {
  text: string;
  vectorText?: string;
}

export interface SearchHit extends PassageRecord {
  /** Row of the passage in the loaded index. */
  row: number;
  sourceRecord: SourceRecord;
  score: number;
  cosine: number;
  /**
   * How far the cosine stands above this query's cosines with the library at
   * large, in standard deviations: comparable across queries of any length.
   */
  standout: number;
  lexicalRank?: number;
  vectorRank?: number;
  /** The user highlighted (part of) this passage in Zotero. */
  highlight?: PassageHighlight;
}

export interface SourceHit {
  sourceRecord: SourceRecord;
  score: number;
  passages: SearchHit[];
}

/** Changes whenever the manifest is replaced (a commit renames a new file over it). */
async function manifestStamp(dir: string): Promise<string> {
  const st = await fs.stat(path.join(dir, 'manifest.json')).catch(() => undefined);
  return st ? `${st.ino}:${st.mtimeMs}:${st.size}` : 'none';
}

/** Changes whenever the highlights sidecar is replaced ('none' when there is none). */
async function highlightsFileStamp(dir: string): Promise<string> {
  const st = await fs.stat(path.join(dir, HIGHLIGHTS_FILE)).catch(() => undefined);
  return st ? `${st.ino}:${st.mtimeMs}:${st.size}` : 'none';
}

/** Each passage's language (languageHint of its text), computed when the fusion first asks for it. */
function rowLanguages(count: number, textOf: (row: number) => string): (row: number) => Lang | undefined {
  const known = new Int8Array(count); // 0 not yet, 1 en, 2 fr, 3 undecided
  return (row) => {
    let v = known[row];
    if (v === 0) {
      const l = row < count ? languageHint(textOf(row)) : undefined;
      known[row] = v = l === 'en' ? 1 : l === 'fr' ? 2 : 3;
    }
    return v === 1 ? 'en' : v === 2 ? 'fr' : undefined;
  };
}

/** `rows` of `matrix`, in that order, in a matrix of their own (in the kernel's memory where it can be). */
function packRows(matrix: Float32Array, dim: number, rows: Int32Array): Float32Array {
  const out = allocateVectors(rows.length, dim);
  rows.forEach((r, i) => out.set(matrix.subarray(r * dim, (r + 1) * dim), i * dim));
  return out;
}

/** Rows sampled to estimate a query's cosine distribution. */
const STATS_SAMPLE = 2000;

export class LibraryIndex {
  private constructor(
    readonly workspace: string,
    readonly manifest: Manifest,
    readonly provider: EmbeddingProvider,
    readonly sources: SourceRecord[],
    private readonly reader: PassageReader,
    private readonly passageIndex: Uint32Array,
    private readonly collection: PassageCollection,
    /** Content hash → the row of the first passage of each source with that content (a source's passages are consecutive rows). */
    private readonly firstRows: Map<string, number[]>,
    /** Set while the model's vectors are being computed: passages without one are matched by their words only. */
    readonly semantic?: SemanticProgress,
  ) {
    this.fusion = fusionFor(provider.id);
    // Equal scores, and the rows a query's cosines are sampled on, by what a passage is (its PDF's content and place in it), not by its row.
    collection.sourceTieKeys = sourceTieKeys(sources);
    collection.tieKeys = rowTieKeys(sources, collection.sourceOfRow, passageIndex, collection.count);
    collection.lexical.tie = collection.tieKeys;
    this.statsRows = sampleRows(collection.tieKeys, collection.count, STATS_SAMPLE);
  }

  /** The rows cosineStats samples, in their key order (tieKeys.ts), and their vectors packed in that order. */
  private readonly statsRows: Int32Array;
  private statsMatrix?: Float32Array;

  /** Row → the user's Zotero highlight there (highlights.json beside the index). */
  private highlightOfRow = new Map<number, PassageHighlight>();
  /** Why the highlights sidecar was not used, when it was damaged (it is rebuilt with the next highlightsForIndex). */
  highlightsProblem?: string;
  private highlightsStamp?: string;
  /** The sidecar file as last read (inode, time, size): refreshHighlights reads it again only when it changed. */
  private highlightsFile = '';

  /** Reads the highlights sidecar again when the file changed since it was read; says whether it did. */
  async refreshHighlights(): Promise<boolean> {
    // A server's generation carries its highlights: a new publication is a new index.
    if (this.publishedHighlights !== undefined) return false;
    if ((await highlightsFileStamp(indexDir(this.workspace))) === this.highlightsFile) return false;
    await this.reloadHighlights();
    return true;
  }

  /** The highlights sidecar's text as a library server published it (undefined: the local sidecar is read). */
  private publishedHighlights?: string;

  /** Passages the user highlighted. */
  get highlightedPassages(): number {
    return this.highlightOfRow.size;
  }

  /**
   * Reads the highlights sidecar again (after highlightsForIndex wrote a new one): marks and
   * boosts follow it without reloading the passages. A damaged sidecar leaves no highlight.
   */
  async reloadHighlights(): Promise<void> {
    const dir = indexDir(this.workspace);
    const published = this.publishedHighlights;
    const file = published === undefined ? await highlightsFileStamp(dir) : 'published';
    const h =
      published === undefined
        ? await readHighlights(dir)
        : published
          ? parseHighlights(published)
          : { byHash: new Map(), problem: undefined, stamp: undefined };
    const rows = new Map<number, PassageHighlight>();
    // Rows by their source number and passage index only: no passage text is read.
    const { sourceOfRow } = this.collection;
    const marked = new Uint8Array(this.size);
    for (const [hash, byIndex] of h.byHash) {
      for (const first of this.firstRows.get(hash) ?? []) {
        const source = sourceOfRow[first];
        for (const [i, hl] of byIndex) {
          const row = first + i;
          // A sidecar from before the PDF changed names passages it no longer has.
          if (row >= this.size || sourceOfRow[row] !== source || this.passageIndex[row] !== i) continue;
          rows.set(row, hl);
          marked[row] = 1;
        }
      }
    }
    this.highlightOfRow = rows;
    this.highlightsProblem = h.problem;
    this.highlightsStamp = rows.size ? h.stamp : undefined;
    this.highlightsFile = file;
    this.collection.highlighted = rows.size ? marked : undefined;
    // The highlighted words, in the query's representation, computed when the fusion first asks.
    const termsOf = new Map<number, readonly string[]>();
    this.collection.highlightTerms = rows.size
      ? (row) => {
          let t = termsOf.get(row);
          if (!t) termsOf.set(row, (t = queryTerms(rows.get(row)?.text ?? '')));
          return t;
        }
      : undefined;
  }

  /** How the vector ranking weighs against BM25: depends on what kind of vectors the provider makes. */
  private readonly fusion: Partial<HybridParams>;

  /** The ranking's inputs, for evaluation and tuning scripts (scripts/tune-fusion.ts): not for the views. */
  get retrieval(): PassageCollection {
    return this.collection;
  }

  /** The manifest's fingerprint, with the Zotero highlights' stamp when there are any (they change rankings and cards). */
  get fingerprint(): string {
    return highlightsFingerprint(this.manifest.fingerprint, this.highlightsStamp);
  }

  get size(): number {
    return this.collection.count;
  }

  /**
   * The passage at `row`, read from its shard on demand (recent ones are kept). A passage
   * whose bytes are damaged is an EngineError `index-not-ready` (corrupt), one whose
   * generation a newer commit removed an IndexGenerationGone; never another passage's text.
   */
  passage(row: number): PassageRecord {
    let p;
    try {
      p = this.reader.read(row);
    } catch (err) {
      // Gone (a newer commit removed this generation's files) is not damage: the engine instance opens the index again.
      if (err instanceof IndexCorruptError && !(err instanceof IndexGenerationGone)) throw corruptError(indexDir(this.workspace), err);
      throw err;
    }
    const source = this.collection.sourceOfRow[row];
    return { source, index: this.passageIndex[row], page: p.p, pageLabel: p.l, endPage: p.e, heading: p.h, text: p.t, ...(p.o ? { ocr: true as const } : {}) };
  }

  /**
   * Every passage, in row order: reads the whole library's text (tests, tools). Searching
   * reads only the passages it returns (`passage`).
   */
  get passages(): PassageRecord[] {
    return Array.from({ length: this.size }, (_, row) => this.passage(row));
  }

  /** Closes the shard files kept open for reading passages (also done when the index is garbage-collected). */
  close(): void {
    this.reader.close();
  }

  /**
   * Loads the index of `workspace` for `provider`. An index that cannot serve
   * (missing, outdated, incomplete for this model, being built, damaged) is an
   * EngineError `index-not-ready` with its health: never an empty index that
   * would look like "no result".
   */
  static async open(workspace: string, provider: EmbeddingProvider, opts: OpenOptions = {}): Promise<LibraryIndex> {
    const dir = indexDir(workspace);
    for (let attempt = 0; ; attempt++) {
      const before = await manifestStamp(dir);
      try {
        return await LibraryIndex.load(dir, workspace, provider, opts);
      } catch (err) {
        if (!(err instanceof IndexCorruptError)) throw err;
        // A writer committed meanwhile and removed the generation being read: read the new one.
        if (attempt < 3 && (await manifestStamp(dir)) !== before) continue;
        throw corruptError(dir, err);
      }
    }
  }

  /**
   * A copy of a library server's generation kept on this machine (server/memberCopy.ts), loaded as
   * a local index is; `highlights` are the generation's, as published.
   */
  static async openCopy(dir: string, workspace: string, provider: EmbeddingProvider, highlights: string): Promise<LibraryIndex> {
    return LibraryIndex.load(dir, workspace, provider, {}, highlights);
  }

  private static async load(dir: string, workspace: string, provider: EmbeddingProvider, opts: OpenOptions, highlights?: string): Promise<LibraryIndex> {
    const manifest = await readManifest(dir);
    const partial = !!opts.partial;
    const health = await healthOf(dir, manifest, provider.key, { partial });
    if (health.state !== 'ready') throw notReadyError(health);
    const m = manifest!;
    const set = m.vectors[provider.key] as VectorSetRecord | undefined;
    // No vector of this model yet (embedding has just started): the model says its size.
    const dim = set && Object.keys(set.shards).length ? set.dim : await provider.dimension(opts.signal);
    const rows = await loadRows(dir, m, set, dim, !!health.semantic);
    return LibraryIndex.fromRows(workspace, m, provider, rows, dim, health.semantic, highlights);
  }

  /** The library server's generation this index was read from, and that server's name (server/open.ts; undefined for a local index). */
  generation?: number;
  serverName?: string;

  /**
   * The index made of `rows` (loadRows, or a library server's: server/open.ts). `highlights`: the
   * sidecar's text (a server's); undefined: the sidecar beside the index in `workspace`.
   */
  static async fromRows(
    workspace: string,
    m: Manifest,
    provider: EmbeddingProvider,
    rows: LoadedRows,
    dim: number,
    semantic: SemanticProgress | undefined,
    highlights?: string,
  ): Promise<LibraryIndex> {
    const { reader, count } = rows;
    const lexical = await runInSlices(
      PostingsIndex.building(rows.parts, (r) => {
        const k = reader.read(r).k;
        return k ? k.split(' ') : [];
      }),
    );
    const collection: PassageCollection = {
      lexical,
      vectors: rows.vectors,
      dim,
      count,
      sourceOfRow: rows.sourceOfRow,
      ...(rows.embedded ? { embedded: rows.embedded } : {}),
    };
    const index = new LibraryIndex(workspace, m, provider, rows.sources, reader, rows.passageIndex, collection, rows.firstRows, semantic);
    collection.languageOfRow = rowLanguages(count, (r) => index.passage(r).text);
    index.publishedHighlights = highlights;
    await index.reloadHighlights();
    return index;
  }

  /**
   * Top passages for a text, best first. `vectorText` (e.g. the text with its
   * document context) is what gets embedded; the lexical ranking uses `text`.
   */
  async search(text: string, opts: SearchOptions): Promise<SearchHit[]> {
    const query = await this.query(text, opts.vectorText ?? text, opts.signal);
    const ranked = rankPassages(this.collection, query, { k: opts.k, accept: this.acceptor(opts.filter), params: this.fusion });
    const [stats] = this.cosineStats([query.vector]);
    return ranked.map((r) => this.hit(r, stats));
  }

  /**
   * search() for several texts at once, one list per item, equal to what
   * search() returns for each: one embedding call for the batch, and the vector
   * scans batched (eight queries share each pass over the vectors).
   */
  async searchMany(items: SearchItem[], opts: Omit<SearchOptions, 'vectorText'>): Promise<SearchHit[][]> {
    if (!items.length) return [];
    const vectors = await this.provider.embed(
      items.map((it) => it.vectorText ?? it.text),
      { kind: 'query', signal: opts.signal },
    );
    const accept = this.acceptor(opts.filter);
    const lists = vectorHitsMany(this.collection, vectors, { accept, params: this.fusion });
    const stats = this.cosineStats(vectors);
    return items.map((it, i) => {
      const ranked = rankPassages(this.collection, { text: it.text, vector: vectors[i] }, { k: opts.k, accept, vectorHits: lists[i], params: this.fusion });
      return ranked.map((r) => this.hit(r, stats[i]));
    });
  }

  /** Top sources for a text, each with its passages best first. */
  async searchSources(text: string, opts: SearchOptions): Promise<SourceHit[]> {
    const query = await this.query(text, opts.vectorText ?? text, opts.signal);
    const [stats] = this.cosineStats([query.vector]);
    return rankSources(this.collection, query, { k: opts.k, accept: this.acceptor(opts.filter), params: this.fusion }).map((s) => ({
      sourceRecord: this.sources[s.source],
      score: s.score,
      passages: s.passages.map((r) => this.hit(r, stats)),
    }));
  }

  /**
   * Mean and spread of each query's cosine with the library, estimated on a sample of about
   * STATS_SAMPLE rows chosen by what their passages are (statsRows), summed in one order: the same
   * figures whatever order the rows are loaded in.
   */
  private cosineStats(queries: Float32Array[]): Array<{ mean: number; sd: number }> {
    const { vectors, dim, count, embedded } = this.collection;
    const rows = this.statsRows;
    const usable = queries.filter((q) => count > 0 && q.length === dim);
    // Complete vectors: the sample's rows packed once, scored by the kernel (the values dotRow gives).
    // While vectors are being computed they change: each row is read where it lies.
    let packed: Float64Array[] | undefined;
    if (!embedded && rows.length) {
      this.statsMatrix ??= packRows(vectors, dim, rows);
      packed = sampledDots(this.statsMatrix, dim, rows.length, 1, usable);
    }
    let next = 0;
    return queries.map((q) => {
      if (count === 0 || q.length !== dim) return { mean: 0, sd: 1 };
      let sum = 0;
      let sq = 0;
      let n = 0;
      const ds = packed?.[next++];
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i];
        // Rows without a vector yet (background embedding) are not part of the distribution.
        if (embedded && embedded[row] !== 1) continue;
        const d = ds ? ds[i] : dotRow(vectors, dim, row, q);
        sum += d;
        sq += d * d;
        n++;
      }
      if (n === 0) return { mean: 0, sd: 1 };
      const mean = sum / n;
      const sd = Math.sqrt(Math.max(sq / n - mean * mean, 1e-8));
      return { mean, sd };
    });
  }

  /** A passage's stored vector. */
  passageVector(row: number): Float32Array {
    const d = this.collection.dim;
    return this.collection.vectors.subarray(row * d, (row + 1) * d);
  }

  /** Cosine between two passages' stored (normalised) vectors: near-duplicate detection. */
  passageCosine(a: number, b: number): number {
    const { vectors, dim } = this.collection;
    return dotRow(vectors, dim, a, this.passageVector(b));
  }

  /**
   * Term overlap of a text with passages (idf-weighted, both ways, 0–1): the
   * evidence besides the cosine behind the shown similarity.
   */
  overlap(queryText: string): { terms: number; of(row: number): { query: number; doc: number } } {
    return this.collection.lexical.overlapWith(queryTerms(queryText));
  }

  /** How rare an index term is in the library (BM25 idf): what makes a matched word worth highlighting. */
  termIdf(term: string): number {
    return this.collection.lexical.idf(term);
  }

  private async query(text: string, vectorText: string, signal?: AbortSignal) {
    const [vector] = await this.provider.embed([vectorText], { kind: 'query', signal });
    return { text, vector };
  }

  private hit(r: RankedPassage, stats: { mean: number; sd: number }): SearchHit {
    const p = this.passage(r.row);
    const standout = (r.cosine - stats.mean) / stats.sd;
    const highlight = this.highlightOfRow.get(r.row);
    return {
      ...p,
      row: r.row,
      sourceRecord: this.sources[p.source],
      score: r.score,
      cosine: r.cosine,
      standout,
      lexicalRank: r.lexicalRank,
      vectorRank: r.vectorRank,
      ...(highlight ? { highlight } : {}),
    };
  }

  private acceptor(filter?: SearchFilter): ((row: number) => boolean) | undefined {
    const type = filter?.sourceType && filter.sourceType !== 'both' ? filter.sourceType : undefined;
    const wanted = filter?.collections?.filter(Boolean).map((c) => c.toLowerCase());
    if (!type && !wanted?.length) return undefined;
    const ok = this.sources.map((s) => (!type || s.sourceType === type) && (!wanted?.length || s.collections.some((c) => wanted.includes(c.toLowerCase()))));
    const sourceOfRow = this.collection.sourceOfRow;
    return (row) => ok[sourceOfRow[row]];
  }
}

/** Indexed files that were damaged, with what was lost; listed until the file changes (its record is then replaced). */
export function damagedSources(m: Manifest | undefined): Array<{ path: string; problem: string }> {
  return Object.values(m?.sources ?? {})
    .filter((s) => s.problem)
    .map((s) => ({ path: s.path, problem: s.problem! }))
    .sort((a, b) => a.path.localeCompare(b.path));
}
