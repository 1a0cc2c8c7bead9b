/**
 * Background embedding: computes the vectors a model lacks (after an indexing run
 * with `deferEmbedding`, or after switching to a slow model), shard by shard, in
 * small batches. It commits every few seconds and holds the writer lock only for
 * one slice at a time, so an indexing run, the CLI or another window gets in
 * between. Resumable: whatever was committed stays, and the next call goes on
 * from there; an index meanwhile serves lexical results for the passages that
 * have no vector yet (LibraryIndex.open with `partial`).
 */
import { ProviderError, type EmbeddingProvider } from '../../embedding/provider';
import { embeddingText } from '../../retrieval/representation';
import { vectorProgress } from '../health';
import { acquireLock } from '../store/lock';
import { indexDir, liveFiles, outdatedReason, readManifest, writeManifest, IndexCorruptError, type Manifest } from '../store/manifest';
import { collectGarbage, readPassageShard, readVectorShard, shardVectorItems, writeVectorShard, type ShardSource } from '../store/shards';

export interface EmbedPendingOptions {
  workspace: string;
  provider: EmbeddingProvider;
  /**
   * Passages per embedding call (default 16): with a local model, a query embedded
   * meanwhile waits for at most one such call in the model's worker.
   */
  batch?: number;
  /** Commit (and release the lock) after this much embedding (default 10 s). */
  commitMs?: number;
  /** How long to wait for the writer lock before each slice (default 30 s). */
  lockWaitMs?: number;
  signal?: AbortSignal;
  /** After each batch and each commit: passages of the index with a vector of this model, of all. */
  onProgress?: (p: { embedded: number; total: number }) => void;
  onWarning?: (msg: string) => void;
}

export interface EmbedPendingReport {
  /** Vectors computed by this call. */
  embedded: number;
  /** Passages of the index that have a vector of this model now, of all. */
  covered: number;
  total: number;
  /** Every passage has its vector. */
  complete: boolean;
  cancelled: boolean;
  /** Why there was nothing to embed: no index, or one another version must rebuild first. */
  notIndexed?: string;
  commits: number;
  ms: number;
}

const DEFAULT_BATCH = 16;
const DEFAULT_COMMIT_MS = 10_000;

export async function embedPending(o: EmbedPendingOptions): Promise<EmbedPendingReport> {
  const started = Date.now();
  const run = new PendingEmbedder(o);
  const report: EmbedPendingReport = { embedded: 0, covered: 0, total: 0, complete: false, cancelled: false, commits: 0, ms: 0 };
  for (;;) {
    if (o.signal?.aborted) {
      report.cancelled = true;
      break;
    }
    const slice = await run.slice();
    report.embedded += slice.embedded;
    report.covered = slice.covered;
    report.total = slice.total;
    if (slice.committed) report.commits++;
    if (slice.notIndexed) report.notIndexed = slice.notIndexed;
    if (slice.cancelled) report.cancelled = true;
    if (slice.done || slice.cancelled) break;
  }
  report.complete = !report.notIndexed && report.covered >= report.total;
  report.ms = Date.now() - started;
  return report;
}

interface SliceResult {
  embedded: number;
  covered: number;
  total: number;
  committed: boolean;
  done: boolean;
  cancelled: boolean;
  notIndexed?: string;
}

/** One slice under the lock: the first incomplete shard, embedded for `commitMs` at most, then committed. */
class PendingEmbedder {
  private readonly dir: string;
  private readonly key: string;
  /** The shard being worked on, kept between slices while the manifest still names it. */
  private cached?: { file: string; sources: ShardSource[]; vectorDir?: string; vectors: Map<string, Float32Array> };

  constructor(private readonly o: EmbedPendingOptions) {
    this.dir = indexDir(o.workspace);
    this.key = o.provider.key;
  }

  async slice(): Promise<SliceResult> {
    const release = await acquireLock(this.dir, {
      waitMs: this.o.lockWaitMs ?? 30_000,
      what: 'embedding',
      onWait: (holder) => this.o.onWarning?.(`waiting for another process to finish updating the index (${holder})`),
    });
    try {
      return await this.sliceLocked();
    } finally {
      await release();
    }
  }

  private async sliceLocked(): Promise<SliceResult> {
    const m = await readManifest(this.dir);
    const none = { embedded: 0, covered: 0, total: 0, committed: false, done: true, cancelled: false };
    if (!m) return { ...none, notIndexed: 'the library has not been indexed' };
    const outdated = outdatedReason(m);
    if (outdated) return { ...none, notIndexed: `the index was ${outdated}` };
    const pending = Object.keys(m.shards)
      .filter((k) => m.vectors[this.key]?.shards[k]?.passagesGen !== m.shards[k].gen)
      .sort((a, b) => Number(a) - Number(b));
    if (pending.length === 0) {
      const p = vectorProgress(m, this.key);
      return { ...none, covered: p.embedded, total: p.total };
    }
    const shard = pending[0];
    const { sources, vectors } = await this.load(m, shard);
    const missing: Array<{ id: string; text: string }> = [];
    for (const src of sources) {
      const title = m.sources[src.id]?.title ?? '';
      src.passages.forEach((p, i) => {
        const id = `${src.contentHash}:${i}`;
        if (!vectors.has(id)) missing.push({ id, text: embeddingText({ sourceTitle: title, heading: p.h, text: p.t }) });
      });
    }
    const batch = Math.max(1, this.o.batch ?? DEFAULT_BATCH);
    // Progress after each batch too (a status bar that moves), committed at the end of the slice.
    const before = vectorProgress(m, this.key);
    let told = -1;
    const tell = (embeddedNow: number, total: number) => {
      if (embeddedNow === told) return;
      told = embeddedNow;
      this.o.onProgress?.({ embedded: embeddedNow, total });
    };
    const until = Date.now() + (this.o.commitMs ?? DEFAULT_COMMIT_MS);
    let embedded = 0;
    let cancelled = false;
    let failure: unknown;
    // At least one batch per slice, however short commitMs is.
    for (let i = 0; i < missing.length && (i === 0 || Date.now() < until); i += batch) {
      if (this.o.signal?.aborted) {
        cancelled = true;
        break;
      }
      const part = missing.slice(i, i + batch);
      let got: Float32Array[];
      try {
        got = await this.o.provider.embed(
          part.map((x) => x.text),
          { kind: 'passage', signal: this.o.signal },
        );
        this.check(m, got, part.length);
      } catch (err) {
        if (this.o.signal?.aborted) cancelled = true;
        else failure = err;
        break;
      }
      part.forEach((x, j) => vectors.set(x.id, got[j]));
      embedded += part.length;
      tell(Math.min(before.total, before.embedded + embedded), before.total);
    }
    // What was computed is committed even when the run stops here (cancel, a server gone):
    // the next call resumes after it.
    let committed = false;
    if (embedded > 0 || missing.length === 0) {
      await this.commit(m, shard, sources, vectors);
      committed = true;
    }
    if (failure) throw failure;
    const progress = vectorProgress(m, this.key);
    const done = progress.embedded >= progress.total;
    tell(progress.embedded, progress.total);
    return { embedded, covered: progress.embedded, total: progress.total, committed, done, cancelled };
  }

  /** The shard's passages and the vectors it has (a damaged vector file counts as none). */
  private async load(m: Manifest, shard: string): Promise<{ sources: ShardSource[]; vectors: Map<string, Float32Array> }> {
    const rec = m.shards[shard];
    const vrec = m.vectors[this.key]?.shards[shard];
    const c = this.cached;
    if (c && c.file === rec.file && c.vectorDir === vrec?.dir) return c;
    const sources = await readPassageShard(this.dir, rec);
    let vectors = new Map<string, Float32Array>();
    if (vrec) {
      try {
        vectors = new Map(await readVectorShard(this.dir, vrec));
      } catch (err) {
        if (!(err instanceof IndexCorruptError)) throw err;
        this.o.onWarning?.(`${err.message}; its vectors will be computed again`);
      }
    }
    // Vectors of passages no longer in the shard are dropped at the commit.
    this.cached = { file: rec.file, sources, vectorDir: vrec?.dir, vectors };
    return this.cached;
  }

  /** A model must keep its vector size: a server that changed model must not mix sizes into the index. */
  private check(m: Manifest, got: Float32Array[], want: number): void {
    const set = m.vectors[this.key];
    const dim = set && Object.keys(set.shards).length ? set.dim : got[0]?.length;
    let what: string | undefined;
    if (got.length !== want) what = `${got.length} vectors for ${want} texts`;
    else if (got.some((v) => v.length !== dim)) what = `vectors of ${got.find((v) => v.length !== dim)!.length} dimensions where the index holds ${dim}`;
    else if (got.some((v) => v.some((x) => !Number.isFinite(x)))) what = 'vectors that are not numbers (NaN or infinite)';
    if (!what) return;
    throw new ProviderError(
      `${this.o.provider.id} model "${this.o.provider.model}" returned ${what}. Nothing of that batch was written.`,
      this.o.provider.id,
      this.o.provider.model,
      undefined,
      'bad-response',
    );
  }

  private async commit(m: Manifest, shard: string, sources: ShardSource[], vectors: Map<string, Float32Array>): Promise<void> {
    const { items, complete } = shardVectorItems(sources, vectors);
    const dim = items[0]?.vector.length ?? (await this.o.provider.dimension(this.o.signal));
    const set = (m.vectors[this.key] ??= { provider: this.o.provider.id, model: this.o.provider.model, dim, shards: {} });
    set.dim = dim;
    const gen = m.nextGen++;
    set.shards[shard] = await writeVectorShard(this.dir, this.key, Number(shard), complete ? m.shards[shard].gen : -1, gen, items);
    m.activeModel = this.key;
    await writeManifest(this.dir, m);
    await collectGarbage(this.dir, liveFiles(m));
    this.cached = { file: m.shards[shard].file, sources, vectorDir: set.shards[shard].dir, vectors };
  }
}
