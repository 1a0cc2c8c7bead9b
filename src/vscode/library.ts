/**
 * The library of the workspace: its health, indexing (cancellable, in a
 * notification or quietly in the status bar) through the engine's one indexing
 * workflow, the provider (Ollama with fallback to the embedded model), and the
 * loaded index, reused until the index changes.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readSettings } from './config';
import { loadEngine, type Engine } from './engine';
import type { HostHealth } from './healthText';

type Provider = Awaited<ReturnType<Engine['createProvider']>>['provider'];
type SearchIndex = Awaited<ReturnType<Engine['openIndex']>>;
type IndexReport = Awaited<ReturnType<Engine['indexLibrary']>>;
type LibrarySpec = ReturnType<Engine['resolveLibrary']>;

/** The OpenAI-compatible server's API key, in VS Code's secret storage (never in settings). */
export const OPENAI_KEY_SECRET = 'similarSources.openaiApiKey';

export class LibraryService implements vscode.Disposable {
  private readonly healthEmitter = new vscode.EventEmitter<HostHealth>();
  readonly onDidChangeHealth = this.healthEmitter.event;
  private current: HostHealth = { state: 'unknown' };
  private loaded?: { key: string; index: SearchIndex };
  private running?: Promise<IndexReport | undefined>;
  /** A visible warning when Ollama failed and the embedded model is used instead. */
  providerNotice?: string;

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
    this.current = h.state === 'ready' ? { ...h, embedding: this.embedding ? 'running' : this.embeddingError ? 'stopped' : undefined, embeddingError: this.embeddingError } : h;
    this.healthEmitter.fire(this.current);
  }

  workspaceFolder(uri?: vscode.Uri): vscode.WorkspaceFolder | undefined {
    return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
  }

  /** Where the library is, from the settings, resolved by the engine exactly as the CLI resolves it. */
  library(folder: vscode.WorkspaceFolder): LibrarySpec {
    return loadEngine().resolveLibrary(folder.uri.fsPath, readSettings(folder.uri, this.log));
  }

  async provider(folder: vscode.WorkspaceFolder): Promise<Provider> {
    const engine = loadEngine();
    const config = engine.providerConfigOf(readSettings(folder.uri, this.log), {
      modelCacheDir: this.modelCacheDir,
      workerDir: engine.bundleDir,
      openaiApiKey: (await this.secrets.get(OPENAI_KEY_SECRET)) ?? undefined,
    });
    const key = JSON.stringify(config);
    if (this.held?.key === key) {
      this.providerNotice = undefined;
      return this.held.provider;
    }
    const { provider, warning } = await engine.createProvider(config, {
      fallbackToEmbedded: true,
      onWarning: (w) => this.log.warn(w),
    });
    this.providerNotice = warning;
    // The settings name another model now: the background embedding of the previous one stops.
    if (this.embedding && this.embedding.key !== provider.key) void this.stopEmbedding();
    // A provider that holds resources (a local model loaded in its worker) is made once and kept
    // until the settings change; the others are cheap, and made again so that a server that comes
    // back, or a model downloaded meanwhile, is taken up by the next call.
    if (typeof (provider as { close?: unknown }).close === 'function') this.hold({ key, provider });
    return provider;
  }

  private held?: { key: string; provider: Provider };

  private hold(next: { key: string; provider: Provider } | undefined): void {
    const old = this.held?.provider as { close?(): Promise<void> } | undefined;
    // The background embedding of the model being replaced stops first (what it did is committed).
    if (old) this.stopEmbedding();
    this.held = next;
    old?.close?.().catch((e: Error) => this.log.warn(`closing the previous embedding model: ${e.message}`));
  }

  /**
   * Reads the index's health again (from the manifest; `modelKey`: for that
   * model). While this window indexes, its own progress stands.
   */
  async refresh(folder = this.workspaceFolder(), provider?: Pick<Provider, 'id' | 'key'>): Promise<HostHealth> {
    if (!folder) {
      this.setHealth({ state: 'no-workspace' });
      return this.current;
    }
    if (this.running) return this.current;
    const engine = loadEngine();
    this.setHealth(provider ? await engine.providerHealth(folder.uri.fsPath, provider) : await engine.indexHealth(folder.uri.fsPath));
    return this.current;
  }

  /** The background embedding under way (one at a time), and the last one's failure. */
  private embedding?: { key: string; ac: AbortController; done: Promise<void> };
  private embeddingError?: string;
  private embeddingRetry?: ReturnType<typeof setTimeout>;

  /**
   * Computes, in the background, the vectors the model lacks (after indexing, or an
   * index left partial by a reload): the index serves lexical results meanwhile, the
   * status bar shows "Semantic index 43%". Committed every few seconds under the writer
   * lock, released in between; resumed after a reload. A no-op for the embedded model.
   */
  embedInBackground(folder: vscode.WorkspaceFolder, provider: Provider): void {
    const engine = loadEngine();
    if (!engine.embedsInBackground(provider) || this.running || this.embedding?.key === provider.key) return;
    this.stopEmbedding();
    clearTimeout(this.embeddingRetry);
    this.embeddingError = undefined;
    const ac = new AbortController();
    const workspace = folder.uri.fsPath;
    this.log.info(`embedding the library's passages in the background with ${provider.id} ${provider.model}`);
    const done = engine
      .embedPending({
        workspace,
        provider,
        signal: ac.signal,
        lockWaitMs: 5_000,
        onWarning: (w) => this.log.warn(w),
        onProgress: (p) => {
          if (this.current.state === 'ready') this.setHealth({ ...this.current, semantic: p.embedded < p.total ? { model: provider.key, ...p } : undefined });
        },
      })
      .then((r) => {
        if (r.cancelled) this.log.info(`background embedding paused: ${r.covered} of ${r.total} passages have their vector`);
        else if (r.complete) this.log.info(`semantic index complete: ${r.total} passages (${r.embedded} embedded now, ${(r.ms / 1000).toFixed(1)} s)`);
      })
      .catch((e: unknown) => {
        const message = (e as Error).message;
        if (engine.errorCode(e) === 'locked') {
          // Another process (the CLI, another window) is writing the index: try again later.
          this.log.info(`background embedding waits: ${message}`);
          this.embeddingRetry = setTimeout(() => this.embedInBackground(folder, provider), 30_000);
          return;
        }
        if (engine.errorCode(e) === 'cancelled') return;
        this.embeddingError = message;
        this.log.warn(`background embedding stopped: ${message}`);
      })
      .finally(() => {
        if (this.embedding?.ac === ac) this.embedding = undefined;
        void this.refresh(folder, provider).catch((e: Error) => this.log.warn(e.message));
      });
    this.embedding = { key: provider.key, ac, done };
    this.setHealth(this.current);
  }

  /**
   * An index left partial (the window was closed while embedding) goes on embedding
   * for the configured model. The model is loaded only when the manifest says so.
   */
  async resumeEmbedding(folder = this.workspaceFolder()): Promise<void> {
    if (!folder || this.running || this.embedding) return;
    const h = await loadEngine().indexHealth(folder.uri.fsPath);
    if (h.state !== 'ready' || !h.semantic) return;
    const provider = await this.provider(folder);
    if (provider.key === h.semantic.model) this.embedInBackground(folder, provider);
  }

  /** Whether passages are being embedded in the background now. */
  isEmbedding(): boolean {
    return !!this.embedding;
  }

  /** Stops the background embedding (what it did is committed); resolves when it has stopped. */
  stopEmbedding(): Promise<void> {
    clearTimeout(this.embeddingRetry);
    const e = this.embedding;
    if (!e) return Promise.resolve();
    this.embedding = undefined;
    e.ac.abort();
    return e.done;
  }

  isIndexing(): boolean {
    return !!this.running;
  }

  /** The running indexing, if any (an analysis waits for it). */
  whenIndexed(): Promise<unknown> | undefined {
    return this.running;
  }

  /**
   * Indexes (incrementally). `visible`: a cancellable notification; otherwise
   * only the status bar shows progress (background re-indexing by the watcher).
   */
  index(folder: vscode.WorkspaceFolder, opts: { visible: boolean; rebuild?: boolean }): Promise<IndexReport | undefined> {
    if (this.running) return this.running;
    let afterRun: (() => void) | undefined;
    const run = async (progress?: vscode.Progress<{ message?: string; increment?: number }>, token?: vscode.CancellationToken) => {
      const engine = loadEngine();
      const ac = new AbortController();
      token?.onCancellationRequested(() => ac.abort());
      const dir = engine.indexDir(folder.uri.fsPath);
      try {
        const provider = await this.provider(folder);
        // One writer at a time: the background embedding yields (it resumes after the run).
        await this.stopEmbedding();
        const library = this.library(folder);
        this.log.info(`indexing ${library.folders.join(', ')} with ${provider.id} ${provider.model}`);
        this.setHealth({ state: 'indexing', dir, done: 0, total: 0 });
        let last = 0;
        // PDFs are read in worker threads: the extension host stays responsive while indexing.
        const report = await engine.indexLibrary({
          library,
          provider,
          // A neural model's vectors come after: the library serves lexical results meanwhile.
          deferEmbedding: engine.embedsInBackground(provider),
          rebuild: opts.rebuild,
          workerDir: engine.bundleDir,
          signal: ac.signal,
          // In the notification too: while another process holds the index, the wait says who it is.
          onWarning: (w) => (this.log.warn(w), progress?.report({ message: w })),
          onProgress: (p) => {
            if (p.phase === 'ocr') {
              // Scanned pages come after the born-digital files, which are searchable already.
              progress?.report({ message: vscode.l10n.t('OCR: page {0} of {1}, {2}', p.done, p.total, p.file ? path.basename(p.file) : '') });
              return;
            }
            if (p.phase !== 'read') return;
            this.setHealth({ state: 'indexing', dir, done: p.done, total: p.total });
            progress?.report({
              message: vscode.l10n.t('{0} of {1}: {2}', p.done + 1, p.total, p.file ? path.basename(p.file) : ''),
              increment: p.total ? ((p.done - last) / p.total) * 100 : undefined,
            });
            last = p.done;
          },
        });
        for (const sk of report.skipped) this.log.warn(`skipped ${sk.path}: ${sk.reason}`);
        if (report.damaged.length) this.tellDamaged(report.damaged);
        this.log.info(`index: ${report.files.length} PDFs, ${report.sources} sources, ${report.passages} passages, ${report.added} added, ${report.updated} updated, ${report.removed} removed, ${report.skipped.length} skipped, ${report.ms} ms`);
        this.loaded = undefined;
        if (!report.cancelled) afterRun = () => this.embedInBackground(folder, provider);
        return report;
      } catch (err) {
        // The health is read again from the index when the run ends (a failed run commits nothing).
        this.log.error(`indexing failed: ${(err as Error).message}`);
        throw err;
      }
    };
    const task = opts.visible
      ? vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Similar Sources: indexing the library'), cancellable: true },
          (progress, token) => run(progress, token),
        )
      : vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Indexing PDFs') }, () => run());
    this.running = Promise.resolve(task).finally(() => {
      this.running = undefined;
      // The health first ("Semantic index 0%" when vectors are to come), then the background embedding.
      void this.refresh(folder)
        .catch((e: Error) => this.log.warn(e.message))
        .then(() => afterRun?.());
    });
    return this.running;
  }

  /** Files indexed with what could be read: in the log, and a notification that names them. */
  private tellDamaged(damaged: Array<{ path: string; problem: string }>): void {
    for (const d of damaged) this.log.warn(`damaged: ${d.path}: ${d.problem}`);
    const names = damaged.slice(0, 3).map((d) => `${path.basename(d.path)} (${d.problem})`).join('; ');
    const more = damaged.length > 3 ? ` ${vscode.l10n.t('and {0} more', damaged.length - 3)}` : '';
    const showLog = vscode.l10n.t('Show log');
    void vscode.window.showWarningMessage(vscode.l10n.t('Some PDFs are damaged and were indexed with what could be read: {0}', names + more), showLog).then((a) => {
      if (a === showLog) this.log.show();
    });
  }

  /** The index loaded for searching, reused while the index and provider stay the same. */
  async open(folder: vscode.WorkspaceFolder, provider: Provider): Promise<SearchIndex> {
    const engine = loadEngine();
    const state = await engine.indexState(folder.uri.fsPath);
    const key = `${provider.key}:${state?.fingerprint ?? 'none'}:${state?.updatedAt ?? ''}`;
    if (this.loaded?.key === key) return this.loaded.index;
    const index = await engine.openIndex(folder.uri.fsPath, provider);
    this.loaded = { key, index };
    return index;
  }

  /** Collections named in the loaded index, for the panel's filter. */
  collections(): string[] {
    return this.loaded ? loadEngine().indexCollections(this.loaded.index) : [];
  }

  dispose(): void {
    void this.stopEmbedding();
    this.hold(undefined);
    this.healthEmitter.dispose();
  }
}

