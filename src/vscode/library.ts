/**
 * The library of the workspace: where its PDFs are, indexing (cancellable,
 * in a notification or quietly in the status bar), the provider (Ollama with
 * fallback to the embedded model), and the loaded index, reused until the
 * index changes.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readSettings, type Settings } from './config';
import { loadEngine, type Engine } from './engine';

type LibraryIndex = import('../core/index/libraryIndex').LibraryIndex;
type Provider = Awaited<ReturnType<Engine['createProvider']>>['provider'];
type IndexReport = Awaited<ReturnType<Engine['updateIndex']>>;

export type IndexState =
  | { kind: 'no-workspace' }
  | { kind: 'unknown' }
  | { kind: 'missing' }
  /** Built by another version of Similar Sources: the next indexing run rebuilds it. */
  | { kind: 'outdated'; message: string }
  | { kind: 'indexing'; done: number; total: number }
  | { kind: 'ready'; sources: number; passages: number; model: string }
  | { kind: 'error'; message: string };

export class LibraryService implements vscode.Disposable {
  private readonly stateEmitter = new vscode.EventEmitter<IndexState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private current: IndexState = { kind: 'unknown' };
  private loaded?: { key: string; index: LibraryIndex };
  private running?: Promise<IndexReport | undefined>;
  /** A visible warning when Ollama failed and the embedded model is used instead. */
  providerNotice?: string;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  get state(): IndexState {
    return this.current;
  }

  private setState(s: IndexState) {
    this.current = s;
    this.stateEmitter.fire(s);
  }

  workspaceFolder(uri?: vscode.Uri): vscode.WorkspaceFolder | undefined {
    return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
  }

  /** Library folders: the setting, else the workspace itself (it is searched for PDFs). */
  libraryFolders(folder: vscode.WorkspaceFolder, s: Settings = readSettings(folder.uri)): { folders: string[]; fromSettings: boolean } {
    const root = folder.uri.fsPath;
    if (s.libraryFolders.length) return { folders: s.libraryFolders.map((f) => path.resolve(root, expandHome(f))), fromSettings: true };
    return { folders: [root], fromSettings: false };
  }

  async provider(folder: vscode.WorkspaceFolder): Promise<Provider> {
    const s = readSettings(folder.uri);
    const { createProvider } = loadEngine();
    const { provider, warning } = await createProvider(
      { provider: s.provider, ollamaHost: s.ollamaHost, ollamaModel: s.ollamaModel },
      { fallbackToEmbedded: true, onWarning: (w) => this.log.warn(w) },
    );
    this.providerNotice = warning;
    return provider;
  }

  async refreshState(folder = this.workspaceFolder()): Promise<IndexState> {
    if (!folder) {
      this.setState({ kind: 'no-workspace' });
      return this.current;
    }
    if (this.running) return this.current;
    const st = await loadEngine().indexStatus(folder.uri.fsPath);
    if (st.state === 'missing') this.setState({ kind: 'missing' });
    else if (st.state === 'corrupt') this.setState({ kind: 'error', message: st.detail });
    else if (st.state === 'outdated') this.setState({ kind: 'outdated', message: st.detail });
    else {
      const m = st.manifest!;
      this.setState({ kind: 'ready', sources: Object.keys(m.sources).length, passages: Object.values(m.shards).reduce((n, x) => n + x.passages, 0), model: m.activeModel ?? '' });
    }
    return this.current;
  }

  isIndexing(): boolean {
    return !!this.running;
  }

  /**
   * Indexes (incrementally). `visible`: a cancellable notification; otherwise
   * only the status bar shows progress (background re-indexing by the watcher).
   */
  index(folder: vscode.WorkspaceFolder, opts: { visible: boolean; rebuild?: boolean }): Promise<IndexReport | undefined> {
    if (this.running) return this.running;
    const run = async (progress?: vscode.Progress<{ message?: string; increment?: number }>, token?: vscode.CancellationToken) => {
      const engine = loadEngine();
      const s = readSettings(folder.uri);
      const root = folder.uri.fsPath;
      const ac = new AbortController();
      token?.onCancellationRequested(() => ac.abort());
      // PDFs are read in worker threads: the extension host stays responsive while indexing.
      const pool = engine.PdfExtractPool.beside(engine.bundleDir);
      try {
        if (opts.rebuild) await engine.removeIndex(root);
        const provider = await this.provider(folder);
        const { folders } = this.libraryFolders(folder, s);
        const { inputs, warnings } = await engine.libraryInputs({
          extractor: pool && ((bytes) => pool.extract(bytes)),
          folders,
          include: s.include,
          exclude: s.exclude,
          primary: s.primarySourceFolders.map(expandHome),
          baseDir: root,
          bibliography: s.bibliographyFile ? path.resolve(root, expandHome(s.bibliographyFile)) : undefined,
        });
        for (const w of warnings) this.log.warn(w);
        this.log.info(`indexing ${inputs.length} PDFs from ${folders.join(', ')} with ${provider.id} ${provider.model}`);
        this.setState({ kind: 'indexing', done: 0, total: inputs.length });
        let last = 0;
        const report = await engine.updateIndex(inputs, {
          workspace: root,
          provider,
          signal: ac.signal,
          onWarning: (w) => this.log.warn(w),
          onProgress: (p) => {
            if (p.phase !== 'read') return;
            this.setState({ kind: 'indexing', done: p.done, total: p.total });
            progress?.report({
              message: vscode.l10n.t('{0} of {1}: {2}', p.done + 1, p.total, p.file ? path.basename(p.file) : ''),
              increment: p.total ? ((p.done - last) / p.total) * 100 : undefined,
            });
            last = p.done;
          },
        });
        for (const sk of report.skipped) this.log.warn(`skipped ${sk.path}: ${sk.reason}`);
        this.log.info(`index: ${report.sources} sources, ${report.passages} passages, ${report.added} added, ${report.updated} updated, ${report.removed} removed, ${report.skipped.length} skipped, ${report.ms} ms`);
        this.loaded = undefined;
        return report;
      } catch (err) {
        this.log.error(`indexing failed: ${(err as Error).message}`);
        this.setState({ kind: 'error', message: (err as Error).message });
        throw err;
      } finally {
        await pool?.close();
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
      void this.refreshState(folder);
    });
    return this.running;
  }

  /** The index loaded for searching, reused while the index and provider stay the same. */
  async open(folder: vscode.WorkspaceFolder): Promise<LibraryIndex> {
    const engine = loadEngine();
    const provider = await this.provider(folder);
    const manifest = await engine.readManifest(engine.indexDir(folder.uri.fsPath)).catch(() => undefined);
    const key = `${provider.key}:${manifest?.fingerprint ?? 'none'}:${manifest?.updatedAt ?? ''}`;
    if (this.loaded?.key === key) return this.loaded.index;
    const index = await engine.LibraryIndex.open(folder.uri.fsPath, provider);
    this.loaded = { key, index };
    return index;
  }

  /**
   * Why the index cannot serve an analysis with the configured model (it holds no
   * vectors for it yet, or another version built it), or undefined when it can.
   * Read from the manifest alone: the index itself loads inside the analysis's progress.
   */
  async unusableReason(folder: vscode.WorkspaceFolder): Promise<string | undefined> {
    const engine = loadEngine();
    const dir = engine.indexDir(folder.uri.fsPath);
    // A damaged manifest is reported by the analysis itself.
    const manifest = await engine.readManifest(dir).catch(() => undefined);
    return manifest && engine.unusableFor(dir, manifest, await this.provider(folder));
  }

  /** Collections named in the index, for the panel's filter. */
  collections(): string[] {
    const index = this.loaded?.index;
    if (!index) return [];
    return [...new Set(index.sources.flatMap((s) => s.collections))].sort((a, b) => a.localeCompare(b));
  }

  dispose(): void {
    this.stateEmitter.dispose();
  }
}

function expandHome(p: string): string {
  return p.startsWith('~/') ? path.join(process.env.HOME ?? process.env.USERPROFILE ?? '', p.slice(2)) : p;
}
