/**
 * What a host and an engine instance (instance.ts) say to each other: the options a host makes
 * it with, what it tells the host (progress, warnings, the background embedding), and the
 * reports of its indexing runs, vectors and readiness. Types only.
 */
import type { ProviderConfig } from '../core/embedding/providerFactory';
import type { EmbedPendingReport } from '../core/index/write/embedPending';
import type { AbandonedLock } from '../core/index/store/lock';
import type { IndexProgress } from '../core/index/write/indexer';
import type { IndexHealth, SemanticProgress } from '../shared/health';
import type { Settings } from '../shared/settings';
import type { LibraryIndexReport } from './indexLibrary';
import type { EmbeddingProvider, ProviderContext } from './provider';

/** Progress of an indexing run (`index`), or of the vectors computed after it (`embed`). */
export type EngineProgress =
  | ({ kind: 'index' } & IndexProgress)
  | {
      kind: 'embed';
      /** Passages of the index with a vector of the model, of all. */
      embedded: number;
      total: number;
      /** The provider's `key` (SemanticProgress.model) and its model's name. */
      model: string;
      modelName: string;
    };

/** The background embedding started (`running`) or ended (`error`: why it stopped, when it failed). */
export interface EmbeddingChange {
  running: boolean;
  provider: Pick<EmbeddingProvider, 'id' | 'key' | 'model'>;
  error?: string;
}

/** What the host gives the engine: where its lines go, and what only the host knows. */
export interface EngineHost {
  /** What the engine does on its own (indexing, background embedding, retries), for a log. */
  log?(line: string, level: 'info' | 'warn' | 'error'): void;
  /** Each warning as it comes: a library folder not found, a damaged shard, the lock held by another process… */
  onWarning?(warning: string): void;
  /** Indexing and embedding progress, no more often than `progressEveryMs` says. */
  onProgress?(p: EngineProgress): void;
  onEmbedding?(e: EmbeddingChange): void;
  /** Where models are kept, where the workers lie, the secret key: asked at each provider creation, so a key set meanwhile counts. */
  providerContext?(): ProviderContext | Promise<ProviderContext>;
  /** The library server's password, from the host's secret storage (never settings): asked at each connection. */
  serverPassword?(): string | undefined | Promise<string | undefined>;
}

export interface EngineOptions {
  workspace: string;
  /** The workspace's settings; a function is asked again at each use (the extension's, which the user edits). */
  settings: Settings | (() => Settings);
  /** The provider to use instead of the settings': a configuration (the CLI's flags), or one made already (a test, a benchmark). */
  provider?: ProviderConfig | EmbeddingProvider;
  /** Use the embedded model, with a warning, when the configured one fails. */
  fallbackToEmbedded?: boolean;
  /**
   * Which providers are kept while the configuration stays: 'always' (a command), or only those holding
   * resources (a window: a server that comes back, or a model downloaded meanwhile, is taken up by the next call).
   */
  keepProviders?: 'always' | 'holding-resources';
  /** At most one progress report per this many ms (default 0: each); the first and last of a phase always come. */
  progressEveryMs?: { index?: number; embed?: number };
  host?: EngineHost;
}

export interface IndexRunOptions {
  /** Start from an empty index (the analysis cache is kept: its keys stop matching). */
  rebuild?: boolean;
  /** PDF worker threads (indexLibrary's `jobs`). */
  jobs?: number;
  signal?: AbortSignal;
  /**
   * What follows for a model that embeds in the background, once the passages are committed:
   * 'background' (embedInBackground, the index serving lexical results meanwhile), 'wait' (the
   * vectors computed within this call, under the same signal), or 'later' (nothing: the report
   * says how many passages have their vector).
   */
  vectors?: 'background' | 'wait' | 'later';
}

/** An indexing run's report; `semantic`: with a model that embeds in the background, the passages with a vector after it, of all. */
export interface IndexRunReport extends LibraryIndexReport {
  semantic?: { embedded: number; total: number };
}

export type VectorsReport = EmbedPendingReport;

export interface IndexStatus {
  health: IndexHealth;
  /** Indexed files that were damaged, with what was lost; listed until the file changes. */
  damaged: Array<{ path: string; problem: string }>;
  /** The writer lock left by a run that ended without finishing (the next run takes it over). */
  interrupted?: AbandonedLock;
}

/** What `ready` is asked to make of the index before something is scored on it. */
export interface ReadyOptions {
  /** The provider the index must serve (default: the configured one). */
  provider?: EmbeddingProvider;
  /**
   * Indexing first: 'always' (an incremental run, as the CLI makes for a library it is named),
   * 'if-needed' (only when the index cannot serve: missing, outdated, incomplete for the model,
   * damaged — rebuilt then — after `confirmIndex`), 'never' (the default: the index as it is).
   */
  index?: 'always' | 'if-needed' | 'never';
  /**
   * Passages still without the model's vector (a model that embeds in the background): 'wait'
   * computes them now, so that scores are the model's; 'background' starts the background
   * embedding and serves what there is; 'partial' (the default) serves what there is. Either
   * of the last two: the results say how many passages had their vector (`semantic`).
   * Also what an indexing run made here does once its passages are committed.
   */
  vectors?: 'wait' | 'background' | 'partial';
  /** PDF worker threads of an indexing run made here. */
  jobs?: number;
  signal?: AbortSignal;
  /** Told before this engine's indexing run under way is waited for (until its library is committed). */
  onWaitForRun?(): void;
  /** Asked before the run the index needs ('if-needed'); false: not ready (`declined`). */
  confirmIndex?(health: IndexHealth): boolean | Promise<boolean>;
  /** Makes an indexing run as the host shows it (a notification, its own Ctrl-C); default `index(opts)`. Undefined: none was made. */
  runIndex?(opts: IndexRunOptions): Promise<IndexRunReport | undefined>;
  /** Computes the missing vectors ('wait') as the host shows it; default `completeVectors` under `signal`. */
  completeVectors?(provider: EmbeddingProvider, missing: SemanticProgress): Promise<VectorsReport>;
}

/**
 * Whether the index can serve the provider now. Not ready: `not-ready` (the index as it is cannot
 * serve: its `health` says why — another process indexing, missing with no run asked…; an open would
 * throw `index-not-ready`), `declined` (`confirmIndex` said no), `cancelled` (the run or the vectors
 * were cancelled: what was done is committed), `empty` (a run made here found no source).
 * `indexed`: the run made here; `vectors`: the vectors computed here.
 */
export type Readiness = {
  provider: EmbeddingProvider;
  health?: IndexHealth;
  indexed?: IndexRunReport;
  vectors?: VectorsReport;
} & ({ ready: true; health: IndexHealth } | { ready: false; why: 'not-ready' | 'declined' | 'cancelled' | 'empty' });
