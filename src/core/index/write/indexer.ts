/**
 * Builds or updates the workspace index incrementally. Unchanged files (same
 * size and mtime, or same content hash) are not re-read; removed ones are
 * dropped; changed ones replaced; a moved file keeps its passages and vectors.
 * Work is committed every few sources so a cancelled or crashed run resumes
 * where it stopped. One writer at a time (lock.ts).
 */
import { promises as fs } from 'node:fs';
import { ProviderError, type EmbeddingProvider } from '../../embedding/provider';
import type { CleanPage } from '../../pdf/cleanPages';
import { chunkPages, CHUNKER_VERSION } from '../../passages/chunker';
import { lexicalTerms, embeddingText } from '../../retrieval/representation';
import { LEXICAL_VERSION, READER_VERSION } from '../store/versions';
import type { Extracted, SourceInput } from '../source';
import { sha256 } from '../../util/atomicWrite';
import { acquireLock } from '../store/lock';
import { prunePageTexts, writePageTexts } from '../../citecheck/pageTexts';
import {
  emptyManifest,
  IndexCorruptError,
  indexDir,
  liveFiles,
  outdatedReason,
  readManifest,
  writeManifest,
  type Manifest,
  type SourceRecord,
} from '../store/manifest';
import {
  collectGarbage,
  readPassageShard,
  readVectorShard,
  shardVectorItems,
  writePassageShard,
  writeVectorShard,
  type ShardSource,
  type StoredPassage,
} from '../store/shards';

export interface IndexProgress {
  /** 'ocr': done/total count pages to recognise across the files that need OCR. */
  phase: 'scan' | 'read' | 'embed' | 'save' | 'ocr';
  done: number;
  total: number;
  file?: string;
}

export interface IndexRunOptions {
  workspace: string;
  provider: EmbeddingProvider;
  shardCapacity?: number;
  commitEvery?: number;
  lockWaitMs?: number;
  /**
   * Files read and handed to `extract` ahead of the one being embedded, so a
   * PDF worker pool extracts while this thread embeds and commits (default 8),
   * as long as their bytes stay within `readAheadBytes` (default 64 MiB; the
   * next file is always read).
   */
  readAhead?: number;
  readAheadBytes?: number;
  signal?: AbortSignal;
  onProgress?: (p: IndexProgress) => void;
  onWarning?: (msg: string) => void;
  /**
   * Commit passages and their lexical terms without computing the provider's vectors:
   * a slow model (local, a server) embeds them afterwards, in the background
   * (embedPending), while the index already serves lexical results. Vectors already
   * stored for the model are kept, and carried with moved files.
   */
  deferEmbedding?: boolean;
  /**
   * Keep each source's page texts beside the index for the citation check (pageTexts.ts):
   * a library of PDFs (indexLibrary) does; a benchmark corpus (BEIR, generated inputs) need not.
   */
  keepPageTexts?: boolean;
}

export interface IndexReport {
  sources: number;
  passages: number;
  added: number;
  updated: number;
  moved: number;
  removed: number;
  unchanged: number;
  embedded: number;
  skipped: Array<{ path: string; reason: string }>;
  /** Files indexed with what could be read: what was lost (also in `warnings`). */
  damaged: Array<{ path: string; problem: string }>;
  /** OCR in this run: files and pages that needed it, pages recognised now and taken from the cache. */
  ocr: { files: number; pages: number; recognised: number; fromCache: number };
  warnings: string[];
  fingerprint: string;
  cancelled: boolean;
  ms: number;
}

const DEFAULT_SHARD_CAPACITY = 2000;

interface Gone {
  rec: SourceRecord;
  passages?: StoredPassage[];
}
const EMBED_BATCH = 64;
/** A file being read for this long lets the files behind it that are ready be indexed first. */
const OVERTAKE_MS = 2_000;
/** Work done and not yet committed is committed after waiting this long for the next file. */
const COMMIT_WHEN_IDLE_MS = 1_000;

/** A promise settled when the signal aborts (never, without one); dispose() drops the listener. */
function abortPromise(signal: AbortSignal | undefined): { promise: Promise<void>; dispose(): void } {
  if (!signal) return { promise: new Promise<void>(() => undefined), dispose: () => undefined };
  let onAbort: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** A timer as a promise, cancellable (a cancelled one never settles and keeps nothing alive). */
function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** What readAndExtract found for one file. */
interface Early {
  bytes?: Uint8Array;
  hash?: string;
  readError?: string;
  extracted?: ReturnType<SourceInput['extract']>;
}

export async function updateIndex(inputs: SourceInput[], opts: IndexRunOptions): Promise<IndexReport> {
  const started = Date.now();
  const dir = indexDir(opts.workspace);
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    opts.onWarning?.(m);
  };
  const release = await acquireLock(dir, {
    waitMs: opts.lockWaitMs,
    what: 'indexing',
    onWait: (holder) => warn(`waiting for another process to finish updating the index (${holder})`),
  });
  try {
    const run = new IndexRun(dir, opts, warn);
    await run.open();
    return await run.execute(inputs, started, warnings);
  } finally {
    await release();
  }
}

class IndexRun {
  private m!: Manifest;
  private readonly capacity: number;
  private readonly provider: EmbeddingProvider;
  private readonly modelKey: string;
  /** Shards whose contents are loaded in memory (all dirty shards are). */
  private readonly loaded = new Map<number, ShardSource[]>();
  private readonly vectors = new Map<number, Map<string, Float32Array>>();
  private readonly dirty = new Set<number>();
  private embedded = 0;
  /** Files whose pages need OCR, indexed after all the others. */
  private readonly deferred: Array<{ input: SourceInput; hash: string; extracted: Extracted }> = [];
  /** A skip was recorded since the last commit (the manifest must be written, whether or not a shard changed). */
  private skipsDirty = false;
  /** The vector size of this run's model, when the index held none for it. */
  private runDim: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly opts: IndexRunOptions,
    private readonly warn: (m: string) => void,
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
        this.loaded.set(shard, await readPassageShard(this.dir, rec));
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

  async execute(inputs: SourceInput[], started: number, warnings: string[]): Promise<IndexReport> {
    const report: IndexReport = {
      sources: 0,
      passages: 0,
      added: 0,
      updated: 0,
      moved: 0,
      removed: 0,
      unchanged: 0,
      embedded: 0,
      skipped: [],
      damaged: [],
      ocr: { files: 0, pages: 0, recognised: 0, fromCache: 0 },
      warnings,
      fingerprint: '',
      cancelled: false,
      ms: 0,
    };
    const byPath = new Map<string, SourceRecord>();
    for (const s of Object.values(this.m.sources)) byPath.set(s.path, s);
    const seen = new Set(inputs.map((i) => i.path));

    // Sources gone from the library; kept aside by hash in case they only moved.
    const gone = new Map<string, Gone>();
    for (const s of Object.values(this.m.sources)) {
      if (!seen.has(s.path)) {
        const passages = this.loaded.get(s.shard)?.find((x) => x.id === s.id)?.passages;
        gone.set(s.contentHash, { rec: s, passages });
        this.detach(s);
      }
    }
    for (const p of Object.keys(this.m.skipped)) if (!seen.has(p)) delete this.m.skipped[p];

    const todo: SourceInput[] = [];
    for (const input of inputs) {
      const old = byPath.get(input.path);
      if (old && old.size === input.size && old.mtimeMs === input.mtimeMs && (!input.contentHash || input.contentHash === old.contentHash)) {
        this.refresh(old, input);
        report.unchanged++;
        continue;
      }
      const skip = this.m.skipped[input.path];
      if (!old && skip && skip.size === input.size && skip.mtimeMs === input.mtimeMs && skip.reader === READER_VERSION) {
        report.skipped.push({ path: input.path, reason: `${skip.reason} (unchanged since the last attempt)` });
        continue;
      }
      todo.push(input);
    }

    const commitEvery = this.opts.commitEvery ?? 25;
    // Far enough ahead that the extraction workers keep going through a commit (measured on 100
    // PDFs: 2 files ahead ×0.87 of bare pdf-parse, 6 ahead ×0.92), bounded in bytes for large PDFs.
    const readAhead = Math.max(0, this.opts.readAhead ?? 8);
    const readAheadBytes = this.opts.readAheadBytes ?? 64 * 1024 * 1024;
    // Files started (read, extraction handed to the workers) and not yet indexed, by their place in `todo`.
    const pending = new Map<number, { early: Promise<Early>; ready: Promise<void>; settled: boolean; since: number }>();
    let next = 0;
    const fill = () => {
      let bytes = 0;
      for (const j of pending.keys()) bytes += todo[j].size;
      while (next < todo.length && pending.size <= readAhead) {
        if (pending.size > 0 && bytes + todo[next].size > readAheadBytes) break;
        bytes += todo[next].size;
        const j = next++;
        const early = this.readAndExtract(todo[j], byPath.get(todo[j].path), gone);
        const entry = { early, settled: false, since: Date.now(), ready: Promise.resolve() };
        entry.ready = early.then((e) => e.extracted?.then(() => undefined, () => undefined)).then(() => {
          entry.settled = true;
        });
        pending.set(j, entry);
      }
    };
    const aborted = abortPromise(this.opts.signal);
    let sinceCommit = 0;
    let done = 0;
    let announced = -1;
    try {
      while (done < todo.length) {
        if (this.opts.signal?.aborted) {
          report.cancelled = true;
          break;
        }
        // Files are indexed in order; one that has been read for longer than OVERTAKE_MS lets the
        // files behind it that are ready go first, so a slow or hostile file holds back no other
        // (and the work done meanwhile is committed, below).
        const head = pending.size ? Math.min(...pending.keys()) : next;
        if (announced !== head) {
          announced = head;
          this.opts.onProgress?.({ phase: 'read', done, total: todo.length, file: todo[head].path });
        }
        fill();
        const h = pending.get(head)!;
        let pick: number | undefined = h.settled ? head : undefined;
        const overtake = Date.now() - h.since >= OVERTAKE_MS;
        if (pick === undefined && overtake) pick = [...pending.keys()].sort((a, b) => a - b).find((j) => pending.get(j)!.settled);
        if (pick === undefined) {
          // Nothing to index yet: wait for a file, the cancel, or the moment to commit what is done.
          const waits: Array<Promise<unknown>> = [h.ready, aborted.promise];
          const overtakeDue = overtake ? undefined : delay(h.since + OVERTAKE_MS - Date.now());
          if (overtakeDue) waits.push(overtakeDue.promise);
          else waits.push(...[...pending.values()].map((e) => e.ready));
          const commitDue = sinceCommit > 0 ? delay(COMMIT_WHEN_IDLE_MS) : undefined;
          if (commitDue) waits.push(commitDue.promise.then(() => 'commit'));
          const why = await Promise.race(waits).finally(() => {
            overtakeDue?.cancel();
            commitDue?.cancel();
          });
          if (why === 'commit' && !this.opts.signal?.aborted) {
            await this.commit();
            sinceCommit = 0;
          }
          continue;
        }
        const input = todo[pick];
        const pre = await pending.get(pick)!.early;
        pending.delete(pick);
        if (pick !== head) this.opts.onProgress?.({ phase: 'read', done, total: todo.length, file: input.path });
        done++;
        let outcome;
        try {
          outcome = await this.indexOne(input, byPath.get(input.path), gone, pre);
        } catch (err) {
          // Cancelled mid-file: keep everything committed so far, drop the half-done file.
          if (this.opts.signal?.aborted) {
            report.cancelled = true;
            break;
          }
          throw err;
        }
        if (outcome.skipped) report.skipped.push({ path: input.path, reason: outcome.skipped });
        else if (outcome.kind) report[outcome.kind]++;
        if (outcome.damage) report.damaged.push({ path: input.path, problem: outcome.damage });
        if (++sinceCommit >= commitEvery) {
          await this.commit();
          sinceCommit = 0;
        }
      }
    } finally {
      aborted.dispose();
    }
    // Scanned pages last: the born-digital library is committed (searchable) before OCR starts.
    if (!report.cancelled && this.deferred.length) {
      await this.commit();
      sinceCommit = 0;
      await this.runOcr(report);
    }
    report.removed = [...gone.values()].length;
    if (!report.cancelled && !this.opts.deferEmbedding) await this.syncVectors(report);
    await this.commit();
    await collectGarbage(this.dir, liveFiles(this.m));
    if (!report.cancelled && this.opts.keepPageTexts) await prunePageTexts(this.dir, Object.values(this.m.sources).map((s) => s.contentHash));
    this.opts.onProgress?.({ phase: 'save', done: 1, total: 1 });

    const sources = Object.values(this.m.sources);
    report.sources = sources.length;
    report.passages = sources.reduce((n, s) => n + s.passages, 0);
    report.embedded = this.embedded;
    report.fingerprint = this.m.fingerprint;
    report.ms = Date.now() - started;
    return report;
  }

  /** Recognises the deferred files' pages (cache first), then indexes each file; committed file by file. */
  private async runOcr(report: IndexReport): Promise<void> {
    const total = this.deferred.reduce((n, d) => n + d.extracted.ocr!.pages.length, 0);
    report.ocr.files = this.deferred.length;
    report.ocr.pages = total;
    let done = 0;
    for (const d of this.deferred.splice(0)) {
      if (this.opts.signal?.aborted) {
        report.cancelled = true;
        return;
      }
      const { input, hash, extracted } = d;
      let bytes: Uint8Array;
      try {
        bytes = input.readBytes ? await input.readBytes() : new Uint8Array();
      } catch (err) {
        report.skipped.push(this.skip(input, `cannot read the file: ${(err as Error).message}`, true));
        continue;
      }
      if (input.readBytes && sha256(bytes) !== hash) {
        this.warn(`${input.path} changed while it was being indexed; it will be read again next time`);
        continue;
      }
      this.opts.onProgress?.({ phase: 'ocr', done, total, file: input.path });
      let r;
      try {
        r = await extracted.ocr!.run(bytes, {
          hash,
          indexDir: this.dir,
          signal: this.opts.signal,
          onPage: () => this.opts.onProgress?.({ phase: 'ocr', done: ++done, total, file: input.path }),
        });
      } catch (err) {
        if (this.opts.signal?.aborted) {
          report.cancelled = true;
          return;
        }
        // OCR failing (a broken image, the engine unavailable) leaves the text-layer pages indexed.
        this.warn(`${input.path}: OCR failed (${(err as Error).message}); only its text layer is indexed`);
        r = undefined;
      }
      if (r) {
        report.ocr.recognised += r.recognised;
        report.ocr.fromCache += r.fromCache;
        for (const n of r.notes) this.warn(`${input.path}: OCR ${n}`);
      }
      const old = this.m.sources[sourceId(input.path)];
      let outcome;
      try {
        outcome = await this.indexExtracted(input, old, hash, r ? { ...extracted, pages: r.pages, meta: r.meta } : extracted, new Set(r?.ocrPages ?? []));
      } catch (err) {
        if (this.opts.signal?.aborted) {
          report.cancelled = true;
          return;
        }
        throw err;
      }
      if (outcome.skipped) report.skipped.push({ path: input.path, reason: outcome.skipped });
      else if (outcome.kind) report[outcome.kind]++;
      if (outcome.damage) report.damaged.push({ path: input.path, problem: outcome.damage });
      await this.commit();
    }
  }

  private refresh(old: SourceRecord, input: SourceInput) {
    const patch = input.refreshMeta?.(old);
    if (patch) Object.assign(old, patch);
    old.sourceType = input.sourceType;
  }

  /**
   * The part of indexing a file that touches no index state, started ahead:
   * read, hash, and (unless the file turns out unchanged or moved) extraction.
   * Never rejects; the extraction promise is kept as is for indexOne to await.
   */
  private async readAndExtract(input: SourceInput, old: SourceRecord | undefined, gone: Map<string, Gone>): Promise<Early> {
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
    if (!hash || (old && old.contentHash === hash) || (!old && gone.get(hash)?.passages)) return { bytes, hash };
    const extracted = input.extract(bytes);
    extracted.catch(() => undefined); // awaited (and reported) by indexOne, unless the run is cancelled first
    return { bytes, hash, extracted };
  }

  private async indexOne(
    input: SourceInput,
    old: SourceRecord | undefined,
    gone: Map<string, Gone>,
    pre: Early,
  ): Promise<{ kind?: 'added' | 'updated' | 'moved' | 'unchanged'; skipped?: string; damage?: string }> {
    if (pre.readError !== undefined) return this.skip(input, `cannot read the file: ${pre.readError}`);
    const { bytes, hash } = pre;
    if (!hash) throw new Error(`no content hash for ${input.path}`);
    if (old && old.contentHash === hash) {
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
      // Recognised after every text-layer file (runOcr); bytes are read again then, not held.
      this.deferred.push({ input, hash, extracted });
      return {};
    }
    return this.indexExtracted(input, old, hash, extracted, new Set());
  }

  /** Chunks, embeds and attaches an extracted file (replacing `old`). */
  private async indexExtracted(
    input: SourceInput,
    old: SourceRecord | undefined,
    hash: string,
    extracted: Extracted,
    ocrPages: Set<number>,
  ): Promise<{ kind?: 'added' | 'updated'; skipped?: string; damage?: string }> {
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

  private skip(input: SourceInput, reason: string): { skipped: string };
  private skip(input: SourceInput, reason: string, entry: true): { path: string; reason: string };
  private skip(input: SourceInput, reason: string, entry?: true) {
    // Written even when no shard changed (the files around it already committed): a skip is remembered until the file changes.
    this.skipsDirty = true;
    this.m.skipped[input.path] = { path: input.path, size: input.size, mtimeMs: input.mtimeMs, reason, reader: READER_VERSION };
    return entry ? { path: input.path, reason } : { skipped: reason };
  }

  /** Removes a source from its shard (the shard is rewritten at the next commit). */
  private detach(rec: SourceRecord) {
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
  private async syncVectors(report: IndexReport) {
    const set = this.m.vectors[this.modelKey];
    const stale = [...this.loaded.keys()].filter((s) => this.dirty.has(s) || set?.shards[s]?.passagesGen !== this.m.shards[s]?.gen);
    let done = 0;
    for (const shard of stale) {
      this.opts.onProgress?.({ phase: 'embed', done: done++, total: stale.length });
      if (this.opts.signal?.aborted) {
        report.cancelled = true;
        return;
      }
      const bySource = new Map(Object.values(this.m.sources).map((s) => [s.id, s]));
      try {
        for (const src of this.loaded.get(shard) ?? []) {
          const rec = bySource.get(src.id);
          if (rec) await this.embedSource(rec, src.passages, this.shardVectors(shard));
        }
      } catch (err) {
        if (!this.opts.signal?.aborted) throw err;
        report.cancelled = true;
        return;
      }
      this.dirty.add(shard);
    }
  }

  private async commit() {
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
