/**
 * One indexing run's hold on the index, under the writer lock: the manifest, the
 * shards loaded in memory and what changed in them, and the work on one file (read,
 * extract, chunk, embed, attach) and on the whole (vectors for every shard, commit).
 * The order of the work is the indexer's (indexer.ts); this is its state.
 */
import { ProviderError, type EmbeddingProvider } from '../../embedding/provider';
import { chunkPages, CHUNKER_VERSION } from '../../passages/chunker';
import { lexicalTerms, embeddingText } from '../../retrieval/representation';
import { LEXICAL_VERSION, READER_VERSION } from '../store/versions';
import type { Extracted, SourceInput } from '../source';
import { sha256 } from '../../util/hash';
import { writePageTexts } from '../../citecheck/pageTexts';
import { emptyManifest, IndexCorruptError, outdatedReason, readManifest, writeManifest, type Manifest, type ShardRecord, type SourceRecord } from '../store/manifest';
import { postingsUsable, readPassageShard, readVectorShard, shardVectorItems, upgradeShardPostings, writePassageShard, writeVectorShard, type ShardSource, type StoredPassage } from '../store/shards';
import type { IndexRunOptions } from './options';
import { cancelled, type FileOutcome, type IndexReport } from './report';

const DEFAULT_SHARD_CAPACITY = 2000;
const EMBED_BATCH = 64;

/** A source gone from the library, kept aside in case it only moved (same content hash). */
export interface Gone {
  rec: SourceRecord;
  passages?: StoredPassage[];
}

/** What readAndExtract found for one file. */
export interface Early {
  bytes?: Uint8Array;
  hash?: string;
  readError?: string;
  extracted?: ReturnType<SourceInput['extract']>;
}

export class IndexRun {
  /** The manifest this run writes (read by open()). */
  m!: Manifest;
  private readonly capacity: number;
  private readonly provider: EmbeddingProvider;
  private readonly modelKey: string;
  /** Shards whose contents are loaded in memory (all dirty shards are). */
  readonly loaded = new Map<number, ShardSource[]>();
  private readonly vectors = new Map<number, Map<string, Float32Array>>();
  private readonly dirty = new Set<number>();
  /** Passages embedded by this run. */
  embedded = 0;
  /** Files whose pages need OCR, indexed after all the others. */
  /** Files with pages to recognise; `counted`: indexed already with their text layer, in the main pass. */
  readonly deferred: Array<{ input: SourceInput; hash: string; extracted: Extracted; counted: boolean }> = [];
  /** A skip was recorded since the last commit (the manifest must be written, whether or not a shard changed). */
  private skipsDirty = false;
  /** The vector size of this run's model, when the index held none for it. */
  private runDim: number | undefined;

  constructor(
    readonly dir: string,
    readonly opts: IndexRunOptions,
    readonly warn: (m: string) => void,
  ) {
    this.capacity = opts.shardCapacity ?? DEFAULT_SHARD_CAPACITY;
    this.provider = opts.provider;
    this.modelKey = opts.provider.key;
  }

  /** Loads the manifest; a corrupt or outdated one means a rebuild, and the user is told. */
  async open(): Promise<void> {
    let m: Manifest | undefined;
    try {
      m = await readManifest(this.dir);
    } catch (err) {
      if (!(err instanceof IndexCorruptError)) throw err;
      this.warn(`${err.message}; rebuilding the index from the library`);
    }
    const outdated = m && outdatedReason(m);
    // Same passages, other lexical terms: the terms are recomputed from the stored text, so no
    // PDF is read again and stored vectors stay valid (an Ollama library is not re-embedded).
    const termsOnly = !!outdated && m!.chunker === CHUNKER_VERSION;
    if (outdated && !termsOnly) {
      this.warn(`the index was ${outdated}; rebuilding it`);
      m = undefined;
    }
    this.m = m ?? emptyManifest(CHUNKER_VERSION, LEXICAL_VERSION);
    await this.verifyShards();
    if (termsOnly) {
      this.warn(`the index was ${outdated}; recomputing its lexical terms from the stored passages (PDFs are not read again)`);
      this.recomputeTerms();
    }
  }

  /** Rewrites every stored passage's lexical terms with this version's tokenisation. */
  private recomputeTerms(): void {
    for (const [shard, list] of this.loaded) {
      for (const src of list) {
        const title = this.m.sources[src.id]?.title ?? '';
        for (const p of src.passages) p.k = lexicalTerms({ sourceTitle: title, heading: p.h, text: p.t }).join(' ');
      }
      this.dirty.add(shard);
    }
    this.m.lexical = LEXICAL_VERSION;
  }

  /** Drops shards whose files are damaged: their sources are re-read from the PDFs. */
  private async verifyShards(): Promise<void> {
    for (const [key, rec] of Object.entries(this.m.shards)) {
      const shard = Number(key);
      try {
        const sources = await readPassageShard(this.dir, rec);
        this.loaded.set(shard, sources);
        if (!(await postingsUsable(this.dir, rec))) await this.upgradePostings(key, rec, sources);
      } catch (err) {
        if (!(err instanceof IndexCorruptError)) throw err;
        this.warn(`${err.message}; its sources will be indexed again`);
        for (const [id, s] of Object.entries(this.m.sources)) if (s.shard === shard) delete this.m.sources[id];
        delete this.m.shards[key];
        for (const set of Object.values(this.m.vectors)) delete set.shards[key];
        this.loaded.delete(shard);
      }
    }
    const set = this.m.vectors[this.modelKey];
    for (const [key, rec] of Object.entries(set?.shards ?? {})) {
      try {
        this.vectors.set(Number(key), await readVectorShard(this.dir, rec));
      } catch (err) {
        if (!(err instanceof IndexCorruptError)) throw err;
        this.warn(`${err.message}; its vectors will be computed again`);
        delete set!.shards[key];
      }
    }
  }

  /**
   * Gives a shard without a usable postings file (an index from before them, or a damaged
   * one) its file, from the passages just read: no PDF is read again. Where the JSON's
   * bytes are not what this version writes, the shard is rewritten whole at the commit.
   */
  private async upgradePostings(key: string, rec: ShardRecord, sources: ShardSource[]): Promise<void> {
    const postings = await upgradeShardPostings(this.dir, key, rec, sources);
    if (postings) {
      rec.postings = postings;
      this.skipsDirty = true; // the manifest must name the new file
    } else this.dirty.add(Number(key));
  }

  /** Takes a kept source's metadata that can change without re-reading it (bibliography edits). */
  refresh(old: SourceRecord, input: SourceInput) {
    const patch = input.refreshMeta?.(old);
    if (patch) Object.assign(old, patch);
    old.sourceType = input.sourceType;
  }

  /**
   * The part of indexing a file that touches no index state, started ahead:
   * read, hash, and (unless the file turns out unchanged or moved) extraction.
   * Never rejects; the extraction promise is kept as is for indexOne to await.
   */
  async readAndExtract(input: SourceInput, old: SourceRecord | undefined, gone: Map<string, Gone>): Promise<Early> {
    let bytes: Uint8Array | undefined;
    let hash = input.contentHash;
    try {
      if (input.readBytes) {
        bytes = await input.readBytes();
        hash ??= sha256(bytes);
      }
    } catch (err) {
      return { readError: (err as Error).message };
    }
    if (!hash || (old && old.contentHash === hash && !old.ocrPending) || (!old && gone.get(hash)?.passages)) return { bytes, hash };
    const extracted = input.extract(bytes);
    extracted.catch(() => undefined); // awaited (and reported) by indexOne, unless the run is cancelled first
    return { bytes, hash, extracted };
  }

  async indexOne(
    input: SourceInput,
    old: SourceRecord | undefined,
    gone: Map<string, Gone>,
    pre: Early,
  ): Promise<FileOutcome> {
    if (pre.readError !== undefined) return this.skip(input, `cannot read the file: ${pre.readError}`);
    const { bytes, hash } = pre;
    if (!hash) throw new Error(`no content hash for ${input.path}`);
    if (old && old.contentHash === hash && !old.ocrPending) {
      // Touched but identical: no need to read the PDF again.
      old.size = input.size;
      old.mtimeMs = input.mtimeMs;
      this.refresh(old, input);
      return { kind: 'unchanged' };
    }
    const moved = gone.get(hash);
    if (moved?.passages && !old) {
      gone.delete(hash);
      const rec: SourceRecord = { ...moved.rec, id: sourceId(input.path), path: input.path, size: input.size, mtimeMs: input.mtimeMs };
      const from = this.vectors.get(moved.rec.shard);
      this.attach(rec, moved.passages);
      this.refresh(rec, input);
      // Same content, same vectors: carry them to the new shard instead of re-embedding.
      const to = this.shardVectors(rec.shard);
      for (let i = 0; i < moved.passages.length; i++) {
        const v = from?.get(`${hash}:${i}`);
        if (v) to.set(`${hash}:${i}`, v);
      }
      return { kind: 'moved' };
    }
    let extracted;
    try {
      // Started ahead in the usual case; a file whose twin was moved just now is extracted here.
      extracted = await (pre.extracted ?? input.extract(bytes));
    } catch (err) {
      // A cancel stops the PDF workers: the file is not skipped for it.
      if (this.opts.signal?.aborted) throw err;
      if (old) this.detach(old);
      return this.skip(input, (err as Error).message);
    }
    if (extracted.ocr?.pages.length) {
      // Recognised after every text-layer file (ocrPass.ts); bytes are read again then, not held.
      // Meanwhile the file is searchable by what its text layer holds, if anything.
      const counted = chunkPages(extracted.pages).length > 0;
      this.deferred.push({ input, hash, extracted, counted });
      return counted ? this.indexExtracted(input, old, hash, extracted, new Set(), extracted.ocr.pages.length) : {};
    }
    return this.indexExtracted(input, old, hash, extracted, new Set());
  }

  /** Chunks, embeds and attaches an extracted file (replacing `old`). */
  async indexExtracted(
    input: SourceInput,
    old: SourceRecord | undefined,
    hash: string,
    extracted: Extracted,
    ocrPages: Set<number>,
    ocrPending = 0,
  ): Promise<FileOutcome & { kind?: 'added' | 'updated' }> {
    const chunks = chunkPages(extracted.pages);
    if (chunks.length === 0) {
      if (old) this.detach(old);
      return this.skip(input, extracted.ocr ? 'no text layer, and OCR found no text on its pages' : 'no text layer (a scanned PDF? run OCR on it first)');
    }
    delete this.m.skipped[input.path];
    const meta = extracted.meta;
    const passages: StoredPassage[] = chunks.map((c) => ({
      p: c.page,
      l: c.pageLabel,
      e: c.endPage,
      h: c.heading,
      t: c.text,
      k: lexicalTerms({ sourceTitle: meta.title, heading: c.heading, text: c.text }).join(' '),
      ...(touchesAny(c.page, c.endPage, ocrPages) ? { o: 1 as const } : {}),
    }));
    const rec: SourceRecord = {
      id: sourceId(input.path),
      path: input.path,
      size: input.size,
      mtimeMs: input.mtimeMs,
      contentHash: hash,
      shard: -1,
      passages: passages.length,
      pageCount: extracted.pageCount,
      title: meta.title,
      authors: meta.authors,
      year: meta.year,
      citekey: meta.citekey,
      collections: meta.collections,
      sourceType: input.sourceType,
      titleFrom: meta.titleFrom,
      ...(extracted.damage ? { problem: extracted.damage } : {}),
      ...(ocrPages.size ? { ocrPages: ocrPages.size } : {}),
      ...(ocrPending ? { ocrPending } : {}),
    };
    // Embed before touching the index, so a cancel or a provider failure leaves the old version in place.
    const vectors = new Map<string, Float32Array>();
    if (!this.opts.deferEmbedding) await this.embedSource(rec, passages, vectors);
    // Each page's text, for the citation checker: derived data beside the index (pageTexts.ts).
    // A full disk fails the run here as at any other write (`unwritable`), before the index changes.
    if (this.opts.keepPageTexts) await writePageTexts(this.dir, hash, extracted.pages, ocrPages);
    if (old) this.detach(old);
    this.attach(rec, passages);
    const have = this.shardVectors(rec.shard);
    for (const [id, v] of vectors) have.set(id, v);
    if (extracted.damage) this.warn(`${input.path}: ${extracted.damage}`);
    return { kind: old ? 'updated' : 'added', damage: extracted.damage };
  }

  skip(input: SourceInput, reason: string): { skipped: string } {
    // Written even when no shard changed (the files around it already committed): a skip is remembered until the file changes.
    this.skipsDirty = true;
    this.m.skipped[input.path] = { path: input.path, size: input.size, mtimeMs: input.mtimeMs, reason, reader: READER_VERSION };
    return { skipped: reason };
  }

  /** Removes a source from its shard (the shard is rewritten at the next commit). */
  detach(rec: SourceRecord) {
    delete this.m.sources[rec.id];
    const list = this.loaded.get(rec.shard);
    if (list) {
      const i = list.findIndex((s) => s.id === rec.id);
      if (i >= 0) list.splice(i, 1);
    }
    this.dirty.add(rec.shard);
  }

  /** Places a source in the last shard with room, or a new one. */
  private attach(rec: SourceRecord, passages: StoredPassage[]) {
    let shard = -1;
    for (const [no, list] of this.loaded) {
      const size = list.reduce((n, s) => n + s.passages.length, 0);
      if (size + passages.length <= this.capacity || size === 0) shard = Math.max(shard, no);
    }
    if (shard < 0) {
      shard = this.loaded.size ? Math.max(...this.loaded.keys()) + 1 : 0;
      this.loaded.set(shard, []);
    }
    rec.shard = shard;
    rec.passages = passages.length;
    this.loaded.get(shard)!.push({ id: rec.id, contentHash: rec.contentHash, passages });
    this.m.sources[rec.id] = rec;
    this.dirty.add(shard);
  }

  private shardVectors(shard: number): Map<string, Float32Array> {
    let v = this.vectors.get(shard);
    if (!v) this.vectors.set(shard, (v = new Map()));
    return v;
  }

  /** Embeds the passages `have` lacks; `have` only changes when all of them succeeded. */
  private async embedSource(rec: SourceRecord, passages: StoredPassage[], have: Map<string, Float32Array>) {
    const missing = passages.map((p, i) => ({ p, id: `${rec.contentHash}:${i}` })).filter((x) => !have.has(x.id));
    const got: Array<[string, Float32Array]> = [];
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      const batch = missing.slice(i, i + EMBED_BATCH);
      const texts = batch.map((x) => embeddingText({ sourceTitle: rec.title, heading: x.p.h, text: x.p.t }));
      const vecs = await this.provider.embed(texts, { kind: 'passage', signal: this.opts.signal });
      for (const v of vecs) this.checkDim(v.length);
      batch.forEach((x, j) => got.push([x.id, vecs[j]]));
    }
    for (const [id, v] of got) have.set(id, v);
    this.embedded += got.length;
  }

  /**
   * Vectors must keep the size the index holds for this model: a server that changed
   * its answer (another model behind the same name, a broken build) must not mix sizes
   * into a shard, which would leave it unreadable.
   */
  private checkDim(got: number) {
    const set = this.m.vectors[this.modelKey];
    const want = set && Object.keys(set.shards).length ? set.dim : (this.runDim ??= got);
    if (got !== want) {
      throw new ProviderError(
        `${this.provider.id} model "${this.provider.model}" returned vectors of ${got} dimensions, but the index holds ${want}-dimension vectors for it. ` +
          'Nothing was written; if the model really changed, rebuild the index.',
        this.provider.id,
        this.provider.model,
        undefined,
        'bad-response',
      );
    }
  }

  /** Makes sure every shard has vectors of the active model (after a model switch, say). */
  async syncVectors(report: IndexReport) {
    const set = this.m.vectors[this.modelKey];
    const stale = [...this.loaded.keys()].filter((s) => this.dirty.has(s) || set?.shards[s]?.passagesGen !== this.m.shards[s]?.gen);
    let done = 0;
    for (const shard of stale) {
      this.opts.onProgress?.({ phase: 'embed', done: done++, total: stale.length });
      if (cancelled(report, this.opts.signal)) return;
      const bySource = new Map(Object.values(this.m.sources).map((s) => [s.id, s]));
      try {
        for (const src of this.loaded.get(shard) ?? []) {
          const rec = bySource.get(src.id);
          if (rec) await this.embedSource(rec, src.passages, this.shardVectors(shard));
        }
      } catch (err) {
        if (cancelled(report, this.opts.signal)) return;
        throw err;
      }
      this.dirty.add(shard);
    }
  }

  async commit() {
    if (this.dirty.size === 0 && !this.skipsDirty && this.m.activeModel === this.modelKey && this.m.fingerprint) return;
    this.skipsDirty = false;
    const dim = await this.provider.dimension(this.opts.signal);
    this.checkDim(dim);
    const set = (this.m.vectors[this.modelKey] ??= { provider: this.provider.id, model: this.provider.model, dim, shards: {} });
    set.dim = dim;
    for (const shard of this.dirty) {
      const list = this.loaded.get(shard) ?? [];
      const key = String(shard);
      if (list.length === 0) {
        this.loaded.delete(shard);
        delete this.m.shards[key];
        for (const s of Object.values(this.m.vectors)) delete s.shards[key];
        continue;
      }
      this.opts.onProgress?.({ phase: 'save', done: 0, total: this.dirty.size });
      const gen = this.m.nextGen++;
      this.m.shards[key] = await writePassageShard(this.dir, shard, gen, list);
      const have = this.shardVectors(shard);
      const { items, complete } = shardVectorItems(list, have);
      // Drop vectors of passages no longer in the shard.
      const live = new Set(items.map((x) => x.id));
      for (const id of have.keys()) if (!live.has(id)) have.delete(id);
      set.shards[key] = await writeVectorShard(this.dir, this.modelKey, shard, complete ? gen : -1, gen, items);
    }
    this.dirty.clear();
    this.m.activeModel = this.modelKey;
    await writeManifest(this.dir, this.m);
  }
}

function touchesAny(from: number, to: number, pages: Set<number>): boolean {
  if (pages.size === 0) return false;
  for (let p = from; p <= to; p++) if (pages.has(p)) return true;
  return false;
}

export function sourceId(p: string): string {
  return sha256(p).slice(0, 16);
}
