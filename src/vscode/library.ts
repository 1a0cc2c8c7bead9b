/**
 * The library of the workspace, as the editor shows it: one engine per workspace
 * folder (the engine owns the provider, the loaded index, indexing — one run at a
 * time, its guard — and the background embedding; callers reach it through
 * `engine(folder)`), its health for the status bar and the panel, and indexing
 * in a cancellable notification or quietly in the status bar.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EmbeddingProvider, EngineProgress, IndexRunReport, WorkspaceEngine } from '../engine';
import { readSettings } from './config';
import { loadEngine } from './engine';
import type { HostHealth } from './healthText';

/** The OpenAI-compatible server's key, in VS Code's secret storage (never in settings). */
export const OPENAI_KEY_SECRET = 'similarSources.openaiApiKey';
/** The library server's password (similarSources.libraryServer), in VS Code's secret storage. */
export const SERVER_PASSWORD_SECRET = 'similarSources.libraryServerPassword';

type Progress = vscode.Progress<{ message?: string; increment?: number }>;

export class LibraryService implements vscode.Disposable {
  private readonly healthEmitter = new vscode.EventEmitter<HostHealth>();
  readonly onDidChangeHealth = this.healthEmitter.event;
  private current: HostHealth = { state: 'unknown' };
  private readonly engines = new Map<string, WorkspaceEngine>();
  /** How each engine's indexing run is shown (its notification, the last file told): presentation only, the engine guards the run. */
  private readonly shown = new Map<WorkspaceEngine, { progress?: Progress; last: number }>();
  /** A visible warning when the configured provider failed and the embedded model is used instead. */
  providerNotice?: string;
  /** A folder removed from the workspace: its engine stops embedding and lets its model go. */
  private readonly folders = vscode.workspace.onDidChangeWorkspaceFolders((e) => {
    for (const f of e.removed) {
      void this.engines.get(f.uri.toString())?.dispose();
      this.engines.delete(f.uri.toString());
    }
  });

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** Where downloaded local models are kept: the extension's global storage, never the workspace. */
    readonly modelCacheDir: string,
    private readonly secrets: vscode.SecretStorage,
  ) {}

  get health(): HostHealth {
    return this.current;
  }

  private setHealth(h: HostHealth) {
    // The background embedding's state goes with a ready index: the status bar shows it.
    const states = [...this.engines.values()].map((e) => e.embeddingState());
    const error = states.find((e) => e.error)?.error;
    this.current =
      h.state === 'ready' ? { ...h, embedding: states.some((e) => e.running) ? 'running' : error ? 'stopped' : undefined, embeddingError: error } : h;
    this.healthEmitter.fire(this.current);
  }

  workspaceFolder(uri?: vscode.Uri): vscode.WorkspaceFolder | undefined {
    return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
  }

  /** The folder's engine, made on first use (this loads the engine bundle). */
  engine(folder: vscode.WorkspaceFolder): WorkspaceEngine {
    const key = folder.uri.toString();
    let engine = this.engines.get(key);
    if (!engine) {
      const made: WorkspaceEngine = loadEngine().createEngine({
        workspace: folder.uri.fsPath,
        settings: () => readSettings(folder.uri, this.log),
        fallbackToEmbedded: true,
        keepProviders: 'holding-resources',
        host: {
          log: (line, level) => this.log[level](line),
          // In the notification too: while another process holds the index, the wait says who it is.
          onWarning: (w) => {
            this.log.warn(w);
            this.shown.get(made)?.progress?.report({ message: w });
          },
          onProgress: (p) => this.onProgress(made, p),
          onEmbedding: (e) => {
            if (e.running) this.setHealth(this.current);
            else void this.refresh(folder, e.provider).catch((err: Error) => this.log.warn(err.message));
          },
          providerContext: async () => ({ modelCacheDir: this.modelCacheDir, openaiApiKey: (await this.secrets.get(OPENAI_KEY_SECRET)) ?? undefined }),
          serverPassword: async () => (await this.secrets.get(SERVER_PASSWORD_SECRET)) ?? undefined,
        },
      });
      engine = made;
      this.engines.set(key, engine);
    }
    return engine;
  }

  private onProgress(engine: WorkspaceEngine, p: EngineProgress): void {
    if (p.kind === 'embed') {
      if (this.current.state === 'ready')
        this.setHealth({ ...this.current, semantic: p.embedded < p.total ? { model: p.model, embedded: p.embedded, total: p.total } : undefined });
      return;
    }
    const run = this.shown.get(engine);
    if (!run) return;
    if (p.phase === 'ocr') {
      // Scanned pages come after the born-digital files, which are searchable already: the status
      // bar says so ("120 sources, OCR: 12 of 340 pages"); the engine no longer holds an analysis back.
      run.progress?.report({ message: vscode.l10n.t('OCR: page {0} of {1}, {2}', p.done, p.total, p.file ? path.basename(p.file) : '') });
      void engine.health().then(
        (h) => {
          if (this.shown.get(engine) === run && h.state === 'ready')
            this.setHealth({ ...h, ocr: { pending: Math.max(0, p.total - p.done), files: Math.max(1, h.ocr?.files ?? 0), done: p.done, total: p.total } });
        },
        (e: Error) => this.log.warn(e.message),
      );
      return;
    }
    if (p.phase !== 'read') return;
    this.setHealth({ state: 'indexing', dir: engine.indexDir, done: p.done, total: p.total });
    run.progress?.report({
      message: vscode.l10n.t('{0} of {1}: {2}', p.done + 1, p.total, p.file ? path.basename(p.file) : ''),
      increment: p.total ? ((p.done - run.last) / p.total) * 100 : undefined,
    });
    run.last = p.done;
  }

  /** The folder's embedding provider (a local model is loaded once and kept while the settings stay). */
  async provider(folder: vscode.WorkspaceFolder): Promise<EmbeddingProvider> {
    const engine = this.engine(folder);
    const provider = await engine.provider();
    this.providerNotice = engine.providerWarning;
    return provider;
  }

  /**
   * Reads the index's health again (from the manifest; with `provider`: for that
   * model). While this window indexes, its own progress stands.
   */
  async refresh(folder = this.workspaceFolder(), provider?: Pick<EmbeddingProvider, 'id' | 'key'>): Promise<HostHealth> {
    if (!folder) {
      this.setHealth({ state: 'no-workspace' });
      return this.current;
    }
    const engine = this.engine(folder);
    // Until its library is committed (the engine's whenIndexed), the run's own progress is what the status bar shows.
    if (engine.whenIndexed()) return this.current;
    this.setHealth(await engine.health(provider));
    return this.current;
  }

  /**
   * Loads the index for searching once the window has settled, so the first analysis does not
   * wait for it (seconds at a million passages), and warms the search code, so it runs at the
   * speed of later ones (engine preload: nothing without an index ready, or while indexing or
   * embedding). Again after each indexing run (the watcher's too), so a changed library costs the
   * next analysis no reload.
   */
  async preload(folder = this.workspaceFolder()): Promise<void> {
    if (!folder || !readSettings(folder.uri, this.log).preloadIndex) return;
    // Segmented as the analyses will be: the worker thread is started and warmed too.
    const done = await this.engine(folder).preload({ segmentInWorker: true });
    if (done)
      this.log.info(
        `index loaded for searching in ${done.loadMs} ms${done.warmMs === undefined ? '' : `, its search code warmed in ${done.warmMs} ms`}, before the first analysis`,
      );
  }

  /** Whether passages are being embedded in the background now. */
  isEmbedding(): boolean {
    return [...this.engines.values()].some((e) => e.embeddingState().running);
  }

  /**
   * Indexes (incrementally); the vectors of a neural model follow in the background.
   * `visible`: a cancellable notification; otherwise only the status bar shows
   * progress (background re-indexing by the watcher).
   */
  index(folder: vscode.WorkspaceFolder, opts: { visible: boolean; rebuild?: boolean }): Promise<IndexRunReport | undefined> {
    const engine = this.engine(folder);
    // One run at a time (the engine's guard): a second call gets the run under way, with no notification of its own.
    if (engine.isIndexing()) return engine.index();
    const ac = new AbortController();
    const run: { progress?: Progress; last: number } = { last: 0 };
    this.shown.set(engine, run);
    this.setHealth({ state: 'indexing', dir: engine.indexDir, done: 0, total: 0 });
    // Started now, so that the guard holds at once; the notification shows it. PDFs are read in
    // worker threads: the extension host stays responsive while indexing.
    const indexing = engine.index({ rebuild: opts.rebuild, signal: ac.signal, vectors: 'background' });
    // A run that fails before the notification takes it is still reported, through `task`.
    void indexing.catch(() => undefined);
    const task = opts.visible
      ? vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Similar Sources: indexing the library'), cancellable: true },
          (progress, token) => {
            run.progress = progress;
            token.onCancellationRequested(() => ac.abort());
            return indexing;
          },
        )
      : vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Indexing PDFs') }, () => indexing);
    return Promise.resolve(task)
      .then((report) => {
        this.providerNotice = engine.providerWarning;
        if (report.damaged.length) this.tellDamaged(report.damaged);
        return report;
      })
      .finally(() => {
        if (this.shown.get(engine) === run) this.shown.delete(engine);
        // The health is read again from the index ("Semantic index 0%" when vectors are to come; a
        // failed run commits nothing), and the new index loaded before the next analysis asks.
        void this.refresh(folder)
          .then(() => this.preload(folder))
          .catch((e: Error) => this.log.warn(e.message));
      });
  }

  /** Files indexed with what could be read: in the log, and a notification that names them. */
  private tellDamaged(damaged: Array<{ path: string; problem: string }>): void {
    for (const d of damaged) this.log.warn(`damaged: ${d.path}: ${d.problem}`);
    const names = damaged
      .slice(0, 3)
      .map((d) => `${path.basename(d.path)} (${d.problem})`)
      .join('; ');
    const more = damaged.length > 3 ? ` ${vscode.l10n.t('and {0} more', damaged.length - 3)}` : '';
    const showLog = vscode.l10n.t('Show log');
    void vscode.window
      .showWarningMessage(vscode.l10n.t('Some PDFs are damaged and were indexed with what could be read: {0}', names + more), showLog)
      .then((a) => {
        if (a === showLog) this.log.show();
      });
  }

  /** Collections named in the loaded indexes, for the panel's filter. */
  collections(): string[] {
    return [...new Set([...this.engines.values()].flatMap((e) => e.collections()))].sort((a, b) => a.localeCompare(b));
  }

  dispose(): void {
    for (const e of this.engines.values()) void e.dispose();
    this.folders.dispose();
    this.healthEmitter.dispose();
  }
}
