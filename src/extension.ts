/**
 * Activation: builds the host's services once, in dependency order, and
 * registers commands and providers. The engine (dist/engine.js) is loaded on
 * first use, never during activation.
 */
import * as vscode from 'vscode';
import { registerAgentTools } from './vscode/agentTools';
import { findSimilarSources, restoreFromCache } from './vscode/analysis';
import { CitationChecker } from './vscode/citationCheck';
import { copyCitation, insertCitation } from './vscode/citations';
import { SourcesCodeLensProvider } from './vscode/codelens';
import { CitekeyCompletionProvider } from './vscode/completion';
import { isDraft, registerForDrafts } from './vscode/drafts';
import { statusMessage } from './vscode/healthText';
import { SourcesHoverProvider } from './vscode/hover';
import { LibraryService } from './vscode/library';
import { LocalModelCommands } from './vscode/localModel';
import { PanelHost } from './vscode/panel';
import { PdfViewer } from './vscode/pdfViewer';
import { ResultStore } from './vscode/results';
import type { Services } from './vscode/services';
import { draftFileGlob } from './shared/draftLanguages';
import { checkSegmentArgs } from './shared/messages';
import { IndexStatusBar } from './vscode/statusBar';
import { Trust } from './vscode/trust';
import { LibraryWatcher } from './vscode/watcher';

export function activate(context: vscode.ExtensionContext) {
  const started = Date.now();
  const log = vscode.window.createOutputChannel('Similar Sources', { log: true });
  const results = new ResultStore();
  const library = new LibraryService(log, vscode.Uri.joinPath(context.globalStorageUri, 'models').fsPath, context.secrets);
  const localModel = new LocalModelCommands(library, log, context.globalState, context.secrets);
  const trust = new Trust();
  const panel = new PanelHost({ extensionUri: context.extensionUri, memento: context.workspaceState, log, results, library, trust });
  const pdf = new PdfViewer({
    extensionUri: context.extensionUri,
    log,
    allowedRoots: () => allowedRoots(library),
    locate: (f) => pdfOnThisMachine(library, f),
  });
  const s: Services = Object.freeze({ extensionUri: context.extensionUri, log, trust, results, library, panel, pdf, localModel });
  const watcher = new LibraryWatcher(library, log);
  const lenses = new SourcesCodeLensProvider(results);
  const citationChecker = new CitationChecker(s);
  const draftDeletions = vscode.workspace.createFileSystemWatcher(draftFileGlob(), true, true, false);
  const citekeys = new CitekeyCompletionProvider(s);
  const restore = restorer(s);

  context.subscriptions.push(
    log,
    trust,
    results,
    library,
    s.panel,
    s.pdf,
    watcher,
    new IndexStatusBar(library),
    s.panel.onDidRequestRestore((uri) => {
      vscode.workspace.openTextDocument(uri).then(restore, (err: Error) => log.info(`panel restore: ${err.message}`));
    }),
    vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => restore(e.document))),
    lenses,
    citekeys,
    // Markdown, Quarto, R Markdown and the user's extra draft languages (shared/draftLanguages.ts).
    registerForDrafts((drafts) => [
      vscode.languages.registerCodeLensProvider(drafts, lenses),
      vscode.languages.registerHoverProvider(drafts, new SourcesHoverProvider(results)),
      // '@' opens a Pandoc key; '{' and ',' a LaTeX one (\cite{, \cite{a,).
      vscode.languages.registerCompletionItemProvider(drafts, citekeys, '@', '{', ','),
      vscode.languages.registerCodeActionsProvider(drafts, citationChecker, { providedCodeActionKinds: CitationChecker.kinds }),
    ]),
    ...libraryCommands(s),
    ...citationCheckWiring(s, citationChecker, draftDeletions),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void library.refresh().catch((e: Error) => log.warn(e.message))),
    // The library as language-model tools for Copilot's agent mode and other chat participants (read-only).
    registerAgentTools(s),
  );

  context.subscriptions.push(settleLater(s, watcher, restore));
  log.info(`activated in ${Date.now() - started} ms`);
  return { services: s };
}

/** The active editor's workspace folder; without one, the user is told the index needs a folder. */
function folderOrWarn(library: LibraryService): vscode.WorkspaceFolder | undefined {
  const f = library.workspaceFolder(vscode.window.activeTextEditor?.document.uri);
  if (!f) void vscode.window.showInformationMessage(vscode.l10n.t('Open a folder first: the index is stored inside the workspace.'));
  return f;
}

/** Results of a draft shown again come back from the cache (no analysis), after activation has returned. */
function restorer(s: Services): (document: vscode.TextDocument) => void {
  const restoring = new Set<string>();
  return (document) => {
    const key = document.uri.toString();
    if (!isDraft(document) || restoring.has(key) || s.results.get(document.uri)) return;
    restoring.add(key);
    restoreFromCache(s, document)
      .catch((err: Error) => s.log.info(`no results restored for ${document.uri.fsPath}: ${err.message}`))
      .finally(() => restoring.delete(key));
  };
}

/** The commands of the library, the index, the panel and the citations (all but Check Citations). */
function libraryCommands(s: Services): vscode.Disposable[] {
  const { library, trust, results, log, localModel } = s;
  return [
    vscode.commands.registerCommand('similarSources.findSimilarSources', async (uri?: vscode.Uri) =>
      findSimilarSources(s, uri instanceof vscode.Uri ? await vscode.workspace.openTextDocument(uri) : undefined),
    ),
    vscode.commands.registerCommand(
      'similarSources.indexLibrary',
      trust.guard(async () => {
        const f = folderOrWarn(library);
        return f ? library.index(f, { visible: true }) : undefined;
      }),
    ),
    vscode.commands.registerCommand(
      'similarSources.rebuildIndex',
      trust.guard(async () => {
        const f = folderOrWarn(library);
        if (!f) return undefined;
        results.clear();
        // A rebuild is a fresh start: results cached against the old index go too.
        await library.engine(f).clearAnalysisCache();
        return library.index(f, { visible: true, rebuild: true });
      }),
    ),
    vscode.commands.registerCommand(
      'similarSources.clearCache',
      trust.guard(async () => {
        const f = folderOrWarn(library);
        if (!f) return 0;
        const n = await library.engine(f).clearAnalysisCache();
        void vscode.window.showInformationMessage(vscode.l10n.t('Similarity cache cleared ({0} documents).', n));
        return n;
      }),
    ),
    vscode.commands.registerCommand('similarSources.showIndexStatus', async () => {
      const health = await library.refresh();
      const indexNow = vscode.l10n.t('Index Library');
      const showLog = vscode.l10n.t('Show log');
      void vscode.window.showInformationMessage(statusMessage(health), indexNow, showLog).then((a) => {
        if (a === indexNow) void vscode.commands.executeCommand('similarSources.indexLibrary');
        if (a === showLog) log.show();
      });
      return health;
    }),
    vscode.commands.registerCommand('similarSources.showPanel', () => s.panel.show()),
    vscode.commands.registerCommand('similarSources.showSegment', (a: unknown) => {
      const checked = checkSegmentArgs(a);
      if (checked.ok) s.panel.showDocument(vscode.Uri.parse(checked.value.uri), undefined, checked.value.segmentId, true);
      else log.warn(`refused to show a segment: ${checked.reason}`);
    }),
    // Command arguments are checked by each command: a command: link elsewhere can call them too.
    vscode.commands.registerCommand(
      'similarSources.insertCitation',
      trust.guard((a: unknown) => insertCitation(s, a)),
    ),
    vscode.commands.registerCommand(
      'similarSources.copyCitation',
      trust.guard((a: unknown) => copyCitation(s, a)),
    ),
    vscode.commands.registerCommand(
      'similarSources.openPdf',
      trust.guard((a: unknown) => s.pdf.open(a)),
    ),
    vscode.commands.registerCommand('similarSources.showLog', () => log.show()),
    vscode.commands.registerCommand(
      'similarSources.downloadLocalModel',
      trust.guard(async () => {
        const f = folderOrWarn(library);
        return f ? localModel.download(f) : false;
      }),
    ),
    vscode.commands.registerCommand(
      'similarSources.downloadLocalReranker',
      trust.guard(async () => {
        const f = folderOrWarn(library);
        return f ? localModel.downloadReranker(f) : false;
      }),
    ),
    vscode.commands.registerCommand('similarSources.setOpenAiApiKey', () => localModel.setApiKey()),
    vscode.commands.registerCommand('similarSources.setLibraryServerPassword', () => localModel.setServerPassword()),
  ];
}

/** Check Citations: diagnostics on each wrong citation, with Quick Fixes; on save too (citationCheck). */
function citationCheckWiring(s: Services, citationChecker: CitationChecker, draftDeletions: vscode.FileSystemWatcher): vscode.Disposable[] {
  return [
    citationChecker,
    vscode.commands.registerCommand(
      'similarSources.checkCitations',
      s.trust.guard(async (uri?: vscode.Uri) => {
        const doc = uri instanceof vscode.Uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
        return doc ? citationChecker.check(doc, true) : undefined;
      }),
    ),
    vscode.workspace.onDidSaveTextDocument((doc) => void citationChecker.check(doc, false).catch((e: Error) => s.log.warn(e.message))),
    vscode.workspace.onDidCloseTextDocument((doc) => citationChecker.clear(doc.uri)),
    // A deleted draft keeps no problems (VS Code closes its document only minutes later).
    draftDeletions,
    draftDeletions.onDidDelete((uri) => citationChecker.clear(uri)),
  ];
}

/**
 * Once the window has settled (never during activation): the status bar's health, the
 * library watcher, results restored for the drafts on screen (these load the engine) and the
 * index loaded for the first analysis.
 */
function settleLater(s: Services, watcher: LibraryWatcher, restore: (document: vscode.TextDocument) => void): vscode.Disposable {
  const { library, trust, log } = s;
  const settle = setTimeout(() => {
    watcher.start();
    if (!trust.trusted) return;
    void library
      .refresh()
      .then(() => {
        // An index left partial (the window closed while embedding) goes on embedding for the configured model.
        const f = library.workspaceFolder();
        return f && library.engine(f).resumeEmbedding();
      })
      .then(() => library.preload())
      .catch((e: Error) => log.warn(e.message));
    vscode.window.visibleTextEditors.forEach((e) => restore(e.document));
  }, 1500);
  return { dispose: () => clearTimeout(settle) };
}

/** The folders whose PDFs the extension may open: the workspace's and its library's. */
function allowedRoots(library: LibraryService): string[] {
  const folders = vscode.workspace.workspaceFolders ?? [];
  return [...folders.map((f) => f.uri.fsPath), ...folders.flatMap((f) => library.engine(f).library().folders)];
}

/** Where this machine has a card's PDF: each folder's engine asked (a library server's paths are its publisher's). */
async function pdfOnThisMachine(library: LibraryService, file: string): Promise<{ path: string; copy?: boolean } | { problem: string }> {
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    const here = await library.engine(f).pdfOnThisMachine(file);
    if ('problem' in here || here.copy) return here;
  }
  return { path: file };
}

export function deactivate() {}
