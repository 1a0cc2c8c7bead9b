/**
 * A neural model's vectors, computed after the passages are committed (the engine instance's
 * part, instance.ts): in the background, committed every few seconds under the writer lock and
 * released in between, tried again later when another process holds the lock; or at once, for a
 * command that scores with the model's figures. The instance stops it for its own indexing runs
 * and model changes.
 */
import { embedPending } from '../core/index/write/embedPending';
import { errorCode } from '../shared/errors';
import type { EmbeddingChange, EngineProgress, VectorsReport } from './engineTypes';
import { embedsInBackground, type EmbeddingProvider } from './provider';

/** The background embedding waits this long for the writer lock before each slice… */
const BACKGROUND_LOCK_WAIT_MS = 5_000;
/** …and, when another process holds it, tries again after this long. */
const BACKGROUND_RETRY_MS = 30_000;

/** What the embedding needs of its engine instance. */
export interface EmbeddingOwner {
  readonly workspace: string;
  log(line: string, level: 'info' | 'warn' | 'error'): void;
  warn(warning: string): void;
  /** A progress reporter throttled to the host's rate for vectors. */
  embedProgress(): (p: EngineProgress, always: boolean) => void;
  onEmbedding?(e: EmbeddingChange): void;
  /** Whether an indexing run holds the index: no background embedding starts beside it. */
  isIndexing(): boolean;
}

export class BackgroundEmbedding {
  private current?: { key: string; ac: AbortController; done: Promise<void> };
  private error?: string;
  private retry?: ReturnType<typeof setTimeout>;

  constructor(private readonly owner: EmbeddingOwner) {}

  /** The provider key it computes vectors for, while it runs. */
  get key(): string | undefined {
    return this.current?.key;
  }

  /**
   * Computes every vector the index lacks for `provider` now; a cancel keeps what was committed.
   * A failure says that the lexical index stands.
   */
  complete(provider: EmbeddingProvider, signal?: AbortSignal): Promise<VectorsReport> {
    const progress = this.owner.embedProgress();
    return embedPending({
      workspace: this.owner.workspace,
      provider,
      signal,
      onWarning: (w) => this.owner.warn(w),
      onProgress: (p) => progress({ kind: 'embed', ...p, model: provider.key, modelName: provider.model }, p.embedded >= p.total),
    }).catch((e: unknown) => {
      // What was embedded before the failure (a server gone, a model that crashed) is committed.
      this.owner.warn(`the library's passages are indexed and searchable by their words; computing their vectors stopped`);
      throw e;
    });
  }

  /** Starts it for `provider`: a no-op for the embedded model, while indexing, or when it runs already for this model. */
  start(provider: EmbeddingProvider): void {
    if (!embedsInBackground(provider) || this.owner.isIndexing() || this.current?.key === provider.key) return;
    void this.stop();
    clearTimeout(this.retry);
    this.error = undefined;
    const ac = new AbortController();
    this.owner.log(`embedding the library's passages in the background with ${provider.id} ${provider.model}`, 'info');
    const progress = this.owner.embedProgress();
    const done = embedPending({
      workspace: this.owner.workspace,
      provider,
      signal: ac.signal,
      lockWaitMs: BACKGROUND_LOCK_WAIT_MS,
      onWarning: (w) => this.owner.log(w, 'warn'),
      onProgress: (p) => progress({ kind: 'embed', ...p, model: provider.key, modelName: provider.model }, p.embedded >= p.total),
    })
      .then((r) => {
        if (r.cancelled) this.owner.log(`background embedding paused: ${r.covered} of ${r.total} passages have their vector`, 'info');
        else if (r.complete) this.owner.log(`semantic index complete: ${r.total} passages (${r.embedded} embedded now, ${(r.ms / 1000).toFixed(1)} s)`, 'info');
      })
      .catch((e: unknown) => {
        const message = (e as Error).message;
        if (errorCode(e) === 'locked') {
          // Another process (the CLI, another window) is writing the index: try again later.
          this.owner.log(`background embedding waits: ${message}`, 'info');
          this.retry = setTimeout(() => this.start(provider), BACKGROUND_RETRY_MS);
          return;
        }
        if (errorCode(e) === 'cancelled') return;
        this.error = message;
        this.owner.log(`background embedding stopped: ${message}`, 'warn');
      })
      .finally(() => {
        if (this.current?.ac === ac) this.current = undefined;
        this.owner.onEmbedding?.({ running: false, provider, error: this.error });
      });
    this.current = { key: provider.key, ac, done };
    this.owner.onEmbedding?.({ running: true, provider });
  }

  /** Under way, and why the last one stopped. */
  state(): { running: boolean; error?: string } {
    return { running: !!this.current, error: this.error };
  }

  /** Stops it (what it did is committed); resolves when it has stopped. */
  stop(): Promise<void> {
    clearTimeout(this.retry);
    const e = this.current;
    if (!e) return Promise.resolve();
    this.current = undefined;
    e.ac.abort();
    return e.done;
  }
}
