/**
 * Watches the library folders for added, changed and removed PDFs, and Zotero's
 * library (its local API's version, or its database files) when Zotero is used, and
 * re-indexes in the background (debounced; progress in the status bar only,
 * so typing is never blocked).
 */
import * as vscode from 'vscode';
import type { ZoteroWatch } from '../engine';
import { readSettings } from './config';
import { loadEngine } from './engine';
import type { LibraryService } from './library';

const DEBOUNCE_MS = 2500;

export class LibraryWatcher implements vscode.Disposable {
  private watchers: vscode.FileSystemWatcher[] = [];
  /** Zotero's library version (local API) or database stamp, polled while Zotero is used. */
  private zotero?: ZoteroWatch;
  private timer?: NodeJS.Timeout;
  private started = false;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly library: LibraryService,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        const keys = ['libraryFolders', 'watchLibrary', 'zotero', 'zoteroDataDir'];
        if (keys.some((k) => e.affectsConfiguration(`similarSources.${k}`))) this.rewatch();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.rewatch()),
    );
  }

  /** Starts watching (after activation: finding the folders loads the engine). */
  start(): void {
    this.started = true;
    this.rewatch();
  }

  private rewatch(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    this.zotero?.stop();
    this.zotero = undefined;
    if (!this.started) return;
    const folder = this.library.workspaceFolder();
    if (!folder || !vscode.workspace.isTrusted || !readSettings(folder.uri).watchLibrary) return;
    const settings = readSettings(folder.uri);
    if (settings.zotero !== 'off') {
      const engine = loadEngine();
      // The folder found as indexing finds it (setting, Zotero's profile, ~/Zotero), looked up on each poll.
      const setting = settings.zoteroDataDir.trim() || undefined;
      this.zotero = engine.watchZotero({
        dataDir: async () => (await engine.locateZotero({ setting })).dataDir,
        onChange: () => this.schedule(),
        onError: (e) => this.log.debug(`Zotero watch: ${e.message}`),
      });
    }
    for (const dir of this.library.engine(folder).library().folders) {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '**/*.{pdf,PDF}'));
      const onEvent = (uri: vscode.Uri) => this.schedule(uri);
      w.onDidCreate(onEvent);
      w.onDidChange(onEvent);
      w.onDidDelete(onEvent);
      this.watchers.push(w);
    }
  }

  private schedule(uri?: vscode.Uri): void {
    if (uri?.fsPath.includes('.similar-sources')) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), DEBOUNCE_MS);
  }

  private async run(): Promise<void> {
    const folder = this.library.workspaceFolder();
    if (!folder) return;
    // Only keep an index up to date: a never-indexed library is indexed on the user's request.
    const health = await this.library.refresh(folder);
    if (health.state !== 'ready') return;
    this.log.info('library changed: re-indexing in the background');
    await this.library.index(folder, { visible: false }).catch((e: Error) => this.log.warn(`background indexing failed: ${e.message}`));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.zotero?.stop();
    for (const w of this.watchers) w.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
