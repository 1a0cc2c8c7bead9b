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
    this.current = h;
    this.healthEmitter.fire(h);
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
    // A provider that holds resources (a local model loaded in its worker) is made once and kept
    // until the settings change; the others are cheap, and made again so that a server that comes
    // back, or a model downloaded meanwhile, is taken up by the next call.
    if (typeof (provider as { close?: unknown }).close === 'function') this.hold({ key, provider });
    return provider;
  }

  private held?: { key: string; provider: Provider };

  private hold(next: { key: string; provider: Provider } | undefined): void {
    const old = this.held?.provider as { close?(): Promise<void> } | undefined;
    this.held = next;
    old?.close?.().catch((e: Error) => this.log.warn(`closing the previous embedding model: ${e.message}`));
  }

  /**
   * Reads the index's health again (from the manifest; `modelKey`: for that
   * model). While this window indexes, its own progress stands.
   */
  async refresh(folder = this.workspaceFolder(), modelKey?: string): Promise<HostHealth> {
    if (!folder) {
      this.setHealth({ state: 'no-workspace' });
      return this.current;
    }
    if (this.running) return this.current;
    this.setHealth(await loadEngine().indexHealth(folder.uri.fsPath, modelKey));
    return this.current;
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
    const run = async (progress?: vscode.Progress<{ message?: string; increment?: number }>, token?: vscode.CancellationToken) => {
      const engine = loadEngine();
      const ac = new AbortController();
      token?.onCancellationRequested(() => ac.abort());
      const dir = engine.indexDir(folder.uri.fsPath);
      try {
        const provider = await this.provider(folder);
        const library = this.library(folder);
        this.log.info(`indexing ${library.folders.join(', ')} with ${provider.id} ${provider.model}`);
        this.setHealth({ state: 'indexing', dir, done: 0, total: 0 });
        let last = 0;
        // PDFs are read in worker threads: the extension host stays responsive while indexing.
        const report = await engine.indexLibrary({
          library,
          provider,
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
      void this.refresh(folder).catch((e: Error) => this.log.warn(e.message));
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
    this.hold(undefined);
    this.healthEmitter.dispose();
  }
}

