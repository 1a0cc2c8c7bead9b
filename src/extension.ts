/**
 * Activation: registers commands and providers only. The engine (remark,
 * vectra, pdf-parse) lives in dist/engine.js and is loaded on first use.
 */
import * as vscode from 'vscode';
import { findSimilarSources, restoreFromCache } from './vscode/analysis';
import { copyCitation, insertCitation, type CitationArgs } from './vscode/citations';
import { SourcesCodeLensProvider } from './vscode/codelens';
import type { Ctx } from './vscode/ctx';
import { loadEngine } from './vscode/engine';
import { SourcesHoverProvider } from './vscode/hover';
import { LibraryService } from './vscode/library';
import { PanelHost } from './vscode/panel';
import { PdfViewer, type OpenPdfArgs } from './vscode/pdfViewer';
import { ResultStore } from './vscode/results';
import { IndexStatusBar } from './vscode/statusBar';
import { LibraryWatcher } from './vscode/watcher';

const MARKDOWN: vscode.DocumentSelector = [{ language: 'markdown', scheme: 'file' }, { language: 'markdown', scheme: 'untitled' }];

export function activate(context: vscode.ExtensionContext) {
  const started = Date.now();
  const log = vscode.window.createOutputChannel('Similar Sources', { log: true });
  const results = new ResultStore();
  const library = new LibraryService(log);
  const flash = vscode.window.createTextEditorDecorationType({ backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'), isWholeLine: true });
  const ctx = { extensionUri: context.extensionUri, memento: context.workspaceState, log, results, library } as Ctx;
  ctx.untrustedMessage = () =>
    vscode.l10n.t('Similar Sources is disabled in Restricted Mode: it reads and indexes the PDFs named by this workspace and may contact the Ollama server its settings name. Trust the workspace to use it.');
  ctx.highlightSegment = (editor, range) => {
    editor.setDecorations(flash, [range]);
    setTimeout(() => editor.setDecorations(flash, []), 1500);
  };
  ctx.panel = new PanelHost(ctx);
  ctx.pdf = new PdfViewer(ctx);

  const trusted = <A extends unknown[], R>(fn: (...a: A) => R | Promise<R>) =>
    async (...a: A): Promise<R | undefined> => {
      if (!vscode.workspace.isTrusted) {
        ctx.panel.showUntrusted();
        void vscode.window.showWarningMessage(ctx.untrustedMessage());
        return undefined;
      }
      return fn(...a);
    };
  const folderOrWarn = () => {
    const f = library.workspaceFolder(vscode.window.activeTextEditor?.document.uri);
    if (!f) void vscode.window.showInformationMessage(vscode.l10n.t('Open a folder first: the index is stored inside the workspace.'));
    return f;
  };

  context.subscriptions.push(
    log,
    results,
    library,
    flash,
    ctx.panel,
    ctx.pdf,
    new IndexStatusBar(library),
    new LibraryWatcher(library, log),
    vscode.languages.registerCodeLensProvider(MARKDOWN, new SourcesCodeLensProvider(ctx)),
    vscode.languages.registerHoverProvider(MARKDOWN, new SourcesHoverProvider(ctx)),
    vscode.commands.registerCommand('similarSources.findSimilarSources', async (uri?: vscode.Uri) =>
      findSimilarSources(ctx, uri instanceof vscode.Uri ? await vscode.workspace.openTextDocument(uri) : undefined),
    ),
    vscode.commands.registerCommand(
      'similarSources.indexLibrary',
      trusted(async () => {
        const f = folderOrWarn();
        return f ? library.index(f, { visible: true }) : undefined;
      }),
    ),
    vscode.commands.registerCommand(
      'similarSources.rebuildIndex',
      trusted(async () => {
        const f = folderOrWarn();
        if (!f) return undefined;
        results.clear();
        // A rebuild is a fresh start: results cached against the old index go too.
        await new (loadEngine().AnalysisCache)(f.uri.fsPath).clear();
        return library.index(f, { visible: true, rebuild: true });
      }),
    ),
    vscode.commands.registerCommand(
      'similarSources.clearCache',
      trusted(async () => {
        const f = folderOrWarn();
        if (!f) return 0;
        const n = await new (loadEngine().AnalysisCache)(f.uri.fsPath).clear();
        void vscode.window.showInformationMessage(vscode.l10n.t('Similarity cache cleared ({0} documents).', n));
        return n;
      }),
    ),
    vscode.commands.registerCommand('similarSources.showIndexStatus', async () => {
      const f = library.workspaceFolder();
      if (!f) return undefined;
      const st = await loadEngine().indexStatus(f.uri.fsPath);
      const where = loadEngine().indexDir(f.uri.fsPath);
      const msg =
        st.state === 'ready'
          ? vscode.l10n.t('Index in {0}: {1}.', where, st.detail)
          : st.state === 'missing'
            ? vscode.l10n.t('The library has not been indexed yet ({0}).', where)
            : st.state === 'outdated'
              ? vscode.l10n.t('The index in {0} was built by another version of Similar Sources; indexing the library rebuilds it.', where)
              : vscode.l10n.t('The index in {0} is damaged: {1}', where, st.detail);
      const indexNow = vscode.l10n.t('Index Library');
      const showLog = vscode.l10n.t('Show log');
      void vscode.window.showInformationMessage(msg, indexNow, showLog).then((a) => {
        if (a === indexNow) void vscode.commands.executeCommand('similarSources.indexLibrary');
        if (a === showLog) log.show();
      });
      return st;
    }),
    vscode.commands.registerCommand('similarSources.showPanel', () => ctx.panel.show()),
    vscode.commands.registerCommand('similarSources.showSegment', (a?: { uri: string; segmentId: string }) => {
      if (a) ctx.panel.showDocument(vscode.Uri.parse(a.uri), undefined, a.segmentId);
    }),
    vscode.commands.registerCommand('similarSources.insertCitation', trusted((a: CitationArgs) => insertCitation(ctx, a))),
    vscode.commands.registerCommand('similarSources.copyCitation', trusted((a: CitationArgs) => copyCitation(ctx, a))),
    vscode.commands.registerCommand('similarSources.openPdf', trusted((a: OpenPdfArgs) => ctx.pdf.open(a))),
    vscode.commands.registerCommand('similarSources.showLog', () => log.show()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void library.refreshState()),
  );

  // Results of a draft shown again come back from the cache (no analysis), after activation has returned.
  const restoring = new Set<string>();
  const restore = (editors: readonly vscode.TextEditor[]) => {
    for (const e of editors) {
      const key = e.document.uri.toString();
      if (e.document.languageId !== 'markdown' || restoring.has(key) || results.get(e.document.uri)) continue;
      restoring.add(key);
      restoreFromCache(ctx, e.document)
        .catch((err: Error) => log.info(`no results restored for ${e.document.uri.fsPath}: ${err.message}`))
        .finally(() => restoring.delete(key));
    }
  };
  context.subscriptions.push(vscode.window.onDidChangeVisibleTextEditors(restore));

  // The status bar shows the index state once the window has settled; never during activation.
  if (vscode.workspace.isTrusted) {
    setTimeout(() => {
      void library.refreshState().catch((e: Error) => log.warn(e.message));
      restore(vscode.window.visibleTextEditors);
    }, 1500);
  }
  log.info(`activated in ${Date.now() - started} ms`);
  return { ctx };
}

export function deactivate() {}
