/**
 * One indexing run's hold on the index, under the writer lock: the manifest, the
 * shards loaded in memory and what changed in them, and the work on one file (extract,
 * chunk, embed, attach) and on the whole (vectors for every shard, commit). The order
 * of the work is the indexer's (indexer.ts); this is its state. What a file needs no
 * state for (its reading ahead, its passages and record) is sourceFile.ts.
 */
import { ProviderError, type EmbeddingProvider } from '../../embedding/provider';
import { chunkPages, CHUNKER_VERSION } from '../../passages/chunker';
import { lexicalTerms, embeddingText } from '../../retrieval/representation';
import { LEXICAL_VERSION, READER_VERSION } from '../store/versions';
import type { Extracted, SourceInput } from '../source';
import { writePageTexts } from '../store/pageTexts';
import {
  emptyManifest,
  IndexCorruptError,
  outdatedReason,
  readManifest,
  writeManifest,
  type Manifest,
  type ShardRecord,
  type SourceRecord,
} from '../store/manifest';
import {
  readPassageShard,
  readVectorShard,
  shardVectorItems,
  upgradeShardPostings,
  VECTOR_FILE,
  writePassageShard,
  writeVectorShard,
  type ShardSource,
  type StoredPassage,
} from '../store/shards';
import { POSTINGS_VERSION } from '../store/versions';
import { ShardChecks } from '../store/shardChecks';
import type { IndexRunOptions } from './options';
import { cancelled, type FileOutcome, type IndexReport } from './report';
import { newSourceRecord, sourceId, storedPassages, type Early, type Gone } from './sourceFile';

const DEFAULT_SHARD_CAPACITY = 2000;
const EMBED_BATCH = 64;

export class IndexRun {
  /** The manifest this run writes (read by open()). */
  m!: Manifest;
  private readonly capacity: number;
  private readonly provider: EmbeddingProvider;
  private readonly modelKey: string;
  /**
   * Shards whose contents are loaded in memory: the dirty ones and the one being filled.
   * The others stay on disk until a change touches them (the run's memory stays bounded
   * by a few shards whatever the library's size), and are let go after each commit.
   */
  private readonly loaded = new Map<number, ShardSource[]>();
  /** The run's model's vectors of the loaded shards. */
  private readonly vectors = new Map<number, Map<string, Float32Array>>();
  private readonly dirty = new Set<number>();
  /** Shards were written since the manifest was (it must be, even with nothing dirty). */
  private unsaved = false;
  private checks!: ShardChecks;
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
    this.checks = await ShardChecks.read(this.dir);
    await this.verifyShards();
    if (termsOnly) {
      this.warn(`the index was ${outdated}; recomputing its lexical terms from the stored passages (PDFs are not read again)`);
      await this.recomputeTerms();
    }
  }

  /** Rewrites every stored passage's lexical terms with this version's tokenisation, a shard at a time. */
  private async recomputeTerms(): Promise<void> {
    for (const shard of this.shardNumbers()) {
      for (const src of await this.load(shard)) {
        const title = this.m.sources[src.id]?.title ?? '';
        for (const p of src.passages) p.k = lexicalTerms({ sourceTitle: title, heading: p.h, text: p.t }).join(' ');
      }
      await this.vectorsOf(shard); // rewritten with the shard, still valid
      this.dirty.add(shard);
      await this.writeDirty();
    }
    this.m.lexical = LEXICAL_VERSION;
    this.unsaved = true;
  }

  /**
   * Drops shards whose files are missing or damaged: their sources are re-read from the
   * PDFs. Checksums (shardChecks.ts), without parsing: shards are read when a change needs them.
   */
  private async verifyShards(): Promise<void> {
    for (const [key, rec] of Object.entries(this.m.shards)) {
      try {
        await this.checks.verify(rec.file, rec.sha256, `passage shard ${rec.file}`);
        if (!(await this.postingsIntact(rec))) await this.upgradePostings(key, rec, await this.load(Number(key)));
      } catch (err) {
        if (!(err instanceof IndexCorruptError)) throw err;
        this.dropShard(Number(key), err);
      }
    }
    const set = this.m.vectors[this.modelKey];
    for (const [key, rec] of Object.entries(set?.shards ?? {})) {
      try {
        await this.checks.verify(`${rec.dir}/${VECTOR_FILE}`, rec.sha256, `vector shard ${rec.dir}`);
      } catch (err) {
        if (!(err instanceof IndexCorruptError)) throw err;
        this.warn(`${err.message}; its vectors will be computed again`);
        delete set!.shards[key];
      }
    }
  }

  /** Forgets a damaged shard and its sources (they are indexed again as new files). */
  private dropShard(shard: number, err: Error) {
    const key = String(shard);
    this.warn(`${err.message}; its sources will be indexed again`);
    for (const [id, s] of Object.entries(this.m.sources)) if (s.shard === shard) delete this.m.sources[id];
    delete this.m.shards[key];
    for (const set of Object.values(this.m.vectors)) delete set.shards[key];
    this.loaded.delete(shard);
    this.vectors.delete(shard);
  }

  /** Every shard of the index, on disk or only in memory so far. */
  private shardNumbers(): number[] {
    const all = new Set([...Object.keys(this.m.shards).map(Number), ...this.loaded.keys()]);
    return [...all].sort((a, b) => a - b);
  }

  /** A shard's sources, read from disk when not in memory. */
  private async load(shard: number): Promise<ShardSource[]> {
    let list = this.loaded.get(shard);
    if (list) return list;
    const rec = this.m.shards[String(shard)];
    list = [];
    if (rec) {
      try {
        list = await readPassageShard(this.dir, rec);
      } catch (err) {
        // Changed on disk since open() checked it: its sources are indexed again by the next run.
        if (!(err instanceof IndexCorruptError)) throw err;
        this.dropShard(shard, err);
        this.unsaved = true;
      }
    }
    this.loaded.set(shard, list);
    return list;
  }

  /** The run's model's vectors of a shard, read from disk when not in memory. */
  private async vectorsOf(shard: number): Promise<Map<string, Float32Array>> {
    let v = this.vectors.get(shard);
    if (v) return v;
    const set = this.m.vectors[this.modelKey];
    const rec = set?.shards[String(shard)];
    v = new Map();
    if (rec) {
      try {
        v = await readVectorShard(this.dir, rec);
      } catch (err) {
        if (!(err instanceof IndexCorruptError)) throw err;
        this.warn(`${err.message}; its vectors will be computed again`);
        delete set!.shards[String(shard)];
      }
    }
    this.vectors.set(shard, v);
    return v;
  }

  /** A gone source's passages and vectors, kept aside (in case it moved), and the source detached. */
  async takeAside(rec: SourceRecord): Promise<Gone> {
    const passages = (await this.load(rec.shard)).find((x) => x.id === rec.id)?.passages;
    const have = await this.vectorsOf(rec.shard);
    const vectors = passages?.map((_, i) => have.get(`${rec.contentHash}:${i}`));
    await this.detach(rec);
    return { rec, passages, vectors };
  }

  /** Whether a shard's postings file is of this version and intact (checksum, through the checks' record). */
  private async postingsIntact(rec: ShardRecord): Promise<boolean> {
    if (!rec.postings || rec.postings.version !== POSTINGS_VERSION) return false;
    try {
      await this.checks.verify(rec.postings.file, rec.postings.sha256, `postings file ${rec.postings.file}`);
      return true;
    } catch (err) {
      if (err instanceof IndexCorruptError) return false;
      throw err;
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
      await this.checks.wrote(postings.file, postings.sha256);
      this.skipsDirty = true; // the manifest must name the new file
      // Read only for this: let go, so upgrading a large index holds one shard at a time.
      this.loaded.delete(Number(key));
    } else this.dirty.add(Number(key));
  }

  /** Takes a kept source's metadata that can change without re-reading it (bibliography edits). */
  refresh(old: SourceRecord, input: SourceInput) {
    const patch = input.refreshMeta?.(old);
    if (patch) Object.assign(old, patch);
    old.sourceType = input.sourceType;
  }

  async indexOne(input: SourceInput, old: SourceRecord | undefined, gone: Map<string, Gone>, pre: Early): Promise<FileOutcome> {
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
      await this.attach(rec, moved.passages);
      this.refresh(rec, input);
      // Same content, same vectors: carry them to the new shard instead of re-embedding.
      const to = await this.vectorsOf(rec.shard);
      for (let i = 0; i < moved.passages.length; i++) {
        const v = moved.vectors?.[i];
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
      if (old) await this.detach(old);
      return this.skip(input, (err as Error).message);
    }
    if (extracted.ocr?.pages.length) {
      // Recognised after every text-layer file (ocrPass.ts); bytes are read again then, not held.
      // Meanwhile the file is searchable by what its text layer holds, if anything.
      const counted = chunkPages(extracted.pages, this.opts.chunk).length > 0;
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
    const chunks = chunkPages(extracted.pages, this.opts.chunk);
    if (chunks.length === 0) {
      if (old) await this.detach(old);
      return this.skip(input, extracted.ocr ? 'no text layer, and OCR found no text on its pages' : 'no text layer (a scanned PDF? run OCR on it first)');
    }
    delete this.m.skipped[input.path];
    const passages = storedPassages(chunks, extracted.meta.title, ocrPages);
    const rec = newSourceRecord(input, hash, extracted, passages.length, ocrPages, ocrPending);
    // Embed before touching the index, so a cancel or a provider failure leaves the old version in place.
    const vectors = new Map<string, Float32Array>();
    if (!this.opts.deferEmbedding) await this.embedSource(rec, passages, vectors);
    // Each page's text, for the citation checker: derived data beside the index (pageTexts.ts).
    // A full disk fails the run here as at any other write (`unwritable`), before the index changes.
    if (this.opts.keepPageTexts) await writePageTexts(this.dir, hash, extracted.pages, ocrPages);
    if (old) await this.detach(old);
    await this.attach(rec, passages);
    const have = await this.vectorsOf(rec.shard);
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
  async detach(rec: SourceRecord) {
    delete this.m.sources[rec.id];
    const list = await this.load(rec.shard);
    const i = list.findIndex((s) => s.id === rec.id);
    if (i >= 0) list.splice(i, 1);
    this.dirty.add(rec.shard);
  }

  /** Passages in a shard: counted in memory when loaded, else as the manifest records them. */
  private shardSize(shard: number): number {
    const list = this.loaded.get(shard);
    return list ? list.reduce((n, s) => n + s.passages.length, 0) : (this.m.shards[String(shard)]?.passages ?? 0);
  }

  /** Places a source in the last shard with room, or a new one. */
  private async attach(rec: SourceRecord, passages: StoredPassage[]) {
    const all = this.shardNumbers();
    let shard = -1;
    for (const no of all) {
      const size = this.shardSize(no);
      if (size + passages.length <= this.capacity || size === 0) shard = Math.max(shard, no);
    }
    if (shard < 0) shard = all.length ? all[all.length - 1] + 1 : 0;
    const list = await this.load(shard);
    rec.shard = shard;
    rec.passages = passages.length;
    list.push({ id: rec.id, contentHash: rec.contentHash, passages });
    this.m.sources[rec.id] = rec;
    this.dirty.add(shard);
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
    const stale = this.shardNumbers().filter((s) => this.dirty.has(s) || set?.shards[s]?.passagesGen !== this.m.shards[s]?.gen);
    let done = 0;
    for (const shard of stale) {
      this.opts.onProgress?.({ phase: 'embed', done: done++, total: stale.length });
      if (cancelled(report, this.opts.signal)) return;
      try {
        const have = await this.vectorsOf(shard);
        for (const src of await this.load(shard)) {
          const rec = this.m.sources[src.id];
          if (rec) await this.embedSource(rec, src.passages, have);
        }
      } catch (err) {
        if (cancelled(report, this.opts.signal)) return;
        throw err;
      }
      this.dirty.add(shard);
      // Written (not committed) shard by shard, so a model switch holds one shard's vectors at a time.
      await this.writeDirty();
    }
  }

  async commit() {
    if (this.dirty.size || this.unsaved || this.skipsDirty || this.m.activeModel !== this.modelKey || !this.m.fingerprint) {
      this.skipsDirty = false;
      await this.writeDirty();
      this.m.activeModel = this.modelKey;
      await writeManifest(this.dir, this.m);
      this.unsaved = false;
    }
    // Files hashed by open() are remembered even when nothing changed.
    const live = new Set<string>();
    for (const s of Object.values(this.m.shards)) {
      live.add(s.file);
      if (s.postings) live.add(s.postings.file);
    }
    for (const set of Object.values(this.m.vectors)) for (const v of Object.values(set.shards)) live.add(`${v.dir}/${VECTOR_FILE}`);
    await this.checks.save(live);
  }

  /**
   * Writes the dirty shards under new generations (the manifest, written by commit(), is what
   * makes them current), then lets go of every shard but the one being filled.
   */
  private async writeDirty() {
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
      const rec = (this.m.shards[key] = await writePassageShard(this.dir, shard, gen, list));
      await this.checks.wrote(rec.file, rec.sha256);
      if (rec.postings) await this.checks.wrote(rec.postings.file, rec.postings.sha256);
      const have = await this.vectorsOf(shard);
      const { items, complete } = shardVectorItems(list, have);
      // Drop vectors of passages no longer in the shard.
      const live = new Set(items.map((x) => x.id));
      for (const id of have.keys()) if (!live.has(id)) have.delete(id);
      const vrec = (set.shards[key] = await writeVectorShard(this.dir, this.modelKey, shard, complete ? gen : -1, gen, items));
      await this.checks.wrote(`${vrec.dir}/${VECTOR_FILE}`, vrec.sha256);
      this.unsaved = true;
    }
    this.dirty.clear();
    const all = this.shardNumbers();
    const filling = all[all.length - 1];
    for (const shard of [...this.loaded.keys()]) {
      if (shard === filling) continue;
      this.loaded.delete(shard);
      this.vectors.delete(shard);
    }
  }
}
