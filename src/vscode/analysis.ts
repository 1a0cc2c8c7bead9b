/**
 * "Find Similar Sources": analyse the active draft (Markdown or LaTeX) with the
 * current settings, in a cancellable notification ("segment i of n"), once the
 * engine has made its index ready (`ready`: it waits for this window's indexing,
 * indexes when the index cannot serve — after asking here —, starts a neural
 * model's missing vectors in the background); this module says so to the user.
 * Results go to the ResultStore; the views follow it.
 */
import * as vscode from 'vscode';
import { errorCode, errorHealth } from '../shared/errors';
import type { Settings } from '../shared/settings';
import { LIMITS, lineText, safeCard } from '../shared/untrusted';
import { readSettings } from './config';
import { draftFormat, draftTemplate, isDraft } from './drafts';
import { loadEngine } from './engine';
import { indexQuestion, panelStateOf, semanticNote, statusMessage } from './healthText';
import type { AnalysisResult, EmbeddingProvider } from '../engine';
import type { Services } from './services';

export interface FindResult {
  segments: number;
  analysed: number;
  fromCache: boolean;
}

export async function findSimilarSources(s: Services, target?: vscode.TextDocument): Promise<FindResult | undefined> {
  const document = target ?? vscode.window.activeTextEditor?.document;
  if (!document || !isDraft(document)) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a Markdown, Quarto, R Markdown or LaTeX document to find similar sources.'));
    return undefined;
  }
  if (!s.trust.check()) return undefined;
  const folder = s.library.workspaceFolder(document.uri);
  if (!folder) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open the folder that holds your draft (and its library) to find similar sources.'));
    return undefined;
  }
  const settings = readSettings(folder.uri, s.log);
  // With `provider: auto` and no local model yet, the download is offered once; this analysis goes on meanwhile.
  void s.localModel.offerOnce(folder).catch((e: Error) => s.log.warn(`local model offer: ${e.message}`));
  const provider = await s.library.provider(folder);
  if (!(await ensureIndexReady(s, folder, settings, provider))) {
    // The library server out of reach: this draft's results found before, from the cache, or the panel says why there are none.
    const h = s.library.health;
    if (h.state === 'unreachable' && !(await restoreFromCache(s, document)) && !s.results.get(document.uri)) s.panel.showState(panelStateOf(h)!);
    return undefined;
  }

  const options = loadEngine().analysisOptionsOf(settings);
  // A local reranker reads every paragraph with each of its top cards (a few tenths of a second a
  // paragraph on 2 cores): the cards come first, unreranked, and are reordered in the background.
  const rerankLater = !!settings.localReranker.trim() && options.useReranking !== 'off';
  stopBackgroundRerank(document);
  let result: AnalysisResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Finding similar sources'), cancellable: true },
      async (progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        let last = 0;
        return s.library.engine(folder).analyze(document.getText(), rerankLater ? { ...options, useReranking: 'off' } : options, {
          ...requestOf(s, document, settings),
          provider,
          signal: ac.signal,
          onProgress: (p) => {
            s.panel.showState({
              kind: 'analyzing',
              message: vscode.l10n.t('Analysing segment {0} of {1}', p.current, p.total),
              current: p.current,
              total: p.total,
            });
            progress.report({ message: vscode.l10n.t('segment {0} of {1}', p.current, p.total), increment: ((p.current - last) / Math.max(1, p.total)) * 100 });
            last = p.current;
          },
        });
      },
    );
  } catch (err) {
    if (errorCode(err) === 'cancelled') {
      s.log.info('analysis cancelled; nothing cached');
      s.panel.refresh();
      return undefined;
    }
    const health = errorHealth(err);
    s.panel.showState((health && panelStateOf(health)) ?? { kind: 'index-error', message: (err as Error).message });
    s.log.error(`analysis failed: ${(err as Error).message}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Similar Sources: {0}', (err as Error).message));
    return undefined;
  }

  publish(s, document, result);
  s.log.info(
    `analysed ${document.uri.fsPath}: ${result.stats.segments} segments, ${result.stats.segmentsAnalyzed} analysed, ${result.stats.segmentsFromCache} from cache, ${result.stats.ms} ms`,
  );
  s.panel.showDocument(document.uri, vscode.window.activeTextEditor?.selection.active.line);
  if (rerankLater) void rerankInBackground(s, folder, document, settings, provider);
  // `analysed`: segments that have results (searched now or served from the cache).
  return { segments: result.stats.segments, analysed: result.segments.filter((x) => x.status === 'analysed').length, fromCache: result.fromCache };
}

/**
 * Makes the index able to serve `provider` (the engine's `ready`): waits for this window's
 * indexing, or offers to index (a never-indexed, outdated, incomplete or damaged index); missing
 * vectors are computed in the background while this analysis runs on what is there, and says so.
 * False when the analysis cannot run (declined, cancelled, failed, empty library, another process
 * indexing).
 */
async function ensureIndexReady(s: Services, folder: vscode.WorkspaceFolder, settings: Settings, provider: EmbeddingProvider): Promise<boolean> {
  const index = vscode.l10n.t('Index Library');
  let r;
  try {
    r = await s.library.engine(folder).ready({
      provider,
      index: 'if-needed',
      vectors: 'background',
      onWaitForRun: () =>
        void vscode.window.showInformationMessage(vscode.l10n.t('The library is being indexed; the analysis will use it when indexing has finished.')),
      confirmIndex: async (health) => {
        s.log.info(`the index needs an indexing run first (${health.state})`);
        s.panel.showState(panelStateOf(health)!);
        return settings.autoIndex || (await vscode.window.showInformationMessage(indexQuestion(health), index)) === index;
      },
      // In a cancellable notification, the status bar following it.
      runIndex: (o) => s.library.index(folder, { visible: true, rebuild: o.rebuild }),
    });
  } catch (err) {
    s.panel.showState({ kind: 'index-error', message: (err as Error).message });
    void vscode.window.showErrorMessage(vscode.l10n.t('Indexing failed: {0}', (err as Error).message));
    return false;
  } finally {
    // The status bar follows the index's health for this model.
    await s.library.refresh(folder, provider).catch((e: Error) => s.log.warn(e.message));
  }
  if (r.ready) {
    // Out of reach, this machine's copy of a generation serves: the writer is told the results may not be the newest.
    if (r.health.state === 'unreachable') void vscode.window.showWarningMessage(vscode.l10n.t('Similar Sources: {0}', statusMessage(r.health)));
    return true;
  }
  if (r.why === 'empty') {
    s.panel.showState({
      kind: 'no-library',
      message: s.library.engine(folder).library().fromSettings
        ? vscode.l10n.t('No readable PDF was found in the library folders.')
        : vscode.l10n.t('No library is configured and the workspace holds no readable PDF. Set “similarSources.libraryFolders”.'),
    });
  } else if (r.why === 'not-ready' && r.health?.state === 'unreachable') {
    void vscode.window.showWarningMessage(vscode.l10n.t('Similar Sources: {0}', statusMessage(r.health)));
  } else if (r.why === 'not-ready' && r.health) {
    // Another process (the CLI, another window) holds the index: the analysis waits for nothing.
    const state = panelStateOf(r.health);
    if (state) s.panel.showState(state);
    if (r.health.state === 'indexing')
      void vscode.window.showInformationMessage(vscode.l10n.t('The library is being indexed by another process; try again when it has finished.'));
  }
  return false;
}

/** What the command and the restore from the cache share, so both key the cache alike. */
function requestOf(s: Services, document: vscode.TextDocument, settings: Settings) {
  return {
    documentPath: document.uri.toString(),
    cache: { ttlHours: settings.cacheLifetimeHours },
    reranker: { host: settings.ollamaHost, model: settings.rerankModel, local: settings.localReranker, cacheDir: s.library.modelCacheDir },
    // A LaTeX draft's cards cite in its project's style (biblatex, natbib or plain).
    citationTemplate: draftTemplate(document, settings),
    // remark never runs on the extension host's thread: a large draft would hold the editor for seconds.
    segmentInWorker: true,
    // LaTeX is segmented by the LaTeX parser: the Markdown one never sees it.
    format: draftFormat(document) ?? 'markdown',
    // A LaTeX draft's \input files are analysed with it: their results go to their own documents (publish).
    ...(document.uri.scheme === 'file' ? { draftPath: document.uri.fsPath } : {}),
    log: (l: string) => s.log.info(l),
  };
}

/** The background reranking of each draft, stopped when the draft is analysed again. */
const reranking = new Map<string, AbortController>();

function stopBackgroundRerank(document: vscode.TextDocument): void {
  reranking.get(document.uri.toString())?.abort();
}

/**
 * The draft analysed again with its reranker (its retrieval is quick; the reranker's reading is
 * what takes time), in the background: the cards already shown are replaced by the reranked ones
 * when it is done, unless the draft changed meanwhile or was analysed again. Its results are
 * cached, so a reopened draft gets the reranked cards.
 */
async function rerankInBackground(s: Services, folder: vscode.WorkspaceFolder, document: vscode.TextDocument, settings: Settings, provider: EmbeddingProvider) {
  const key = document.uri.toString();
  const ac = new AbortController();
  reranking.set(key, ac);
  const version = document.version;
  const status = vscode.window.setStatusBarMessage(vscode.l10n.t('$(sync~spin) Similar Sources: reranking the cards…'));
  const t0 = Date.now();
  try {
    const result = await s.library
      .engine(folder)
      .analyze(document.getText(), loadEngine().analysisOptionsOf(settings), { ...requestOf(s, document, settings), provider, signal: ac.signal });
    if (ac.signal.aborted || document.version !== version) return;
    publish(s, document, result);
    s.log.info(
      result.reranking.used
        ? `reranked the cards of ${document.uri.fsPath} in the background (${Date.now() - t0} ms)`
        : `the cards of ${document.uri.fsPath} were not reranked: ${result.reranking.note ?? result.reranking.hint ?? 'no reranker'}`,
    );
  } catch (err) {
    if (errorCode(err) !== 'cancelled')
      s.log.warn(`reranking the cards in the background failed: ${(err as Error).message}; the cards shown keep the retrieval order`);
  } finally {
    status.dispose();
    if (reranking.get(key) === ac) reranking.delete(key);
  }
}

/**
 * Results go to the store; the CodeLenses, hovers and panel follow it. A LaTeX draft's segments in
 * the files it `\input`s go to those files' documents (each a draft of its own when opened).
 */
function publish(s: Services, document: vscode.TextDocument, result: AnalysisResult): void {
  const folder = s.library.workspaceFolder(document.uri);
  const byFile = new Map<string | undefined, AnalysisResult['segments']>();
  for (const x of result.segments) {
    const key = folder ? x.file : undefined;
    byFile.set(key, [...(byFile.get(key) ?? []), x]);
  }
  if (!byFile.has(undefined)) byFile.set(undefined, []);
  for (const [file, segments] of byFile) {
    const uri = file === undefined || !folder ? document.uri : vscode.Uri.joinPath(folder.uri, ...file.split('/'));
    s.results.set({
      uri: uri.toString(),
      documentTitle: result.documentTitle,
      fromCache: result.fromCache,
      threshold: result.options.similarityThreshold,
      notice: s.library.providerNotice,
      rerankNote: result.reranking.note,
      rerankHint: result.reranking.hint,
      semanticNote: result.semantic && semanticNote(result.semantic),
      // Untrusted text (PDF and bibliography fields, the draft's headings) is made visible and bounded once, here, for every view.
      format: draftFormat(document) ?? 'markdown',
      segments: segments.map((x) => ({
        id: x.id,
        type: x.type,
        title: lineText(x.title, LIMITS.heading),
        start: x.startLine - 1,
        end: x.endLine - 1,
        status: x.status,
        cards: x.recommendations.map(safeCard),
      })),
    });
  }
}

/**
 * A draft shown again (after a reload, or reopened) gets its
 * results back when the cache holds all of them for the current index and
 * settings: no index load, no analysis, nothing shown when they are not there.
 */
export async function restoreFromCache(s: Services, document: vscode.TextDocument): Promise<boolean> {
  if (!isDraft(document) || !s.trust.trusted || s.results.get(document.uri)) return false;
  const folder = s.library.workspaceFolder(document.uri);
  if (!folder || s.library.engine(folder).isIndexing()) return false;
  const settings = readSettings(folder.uri, s.log);
  const provider = await s.library.provider(folder);
  const version = document.version;
  const result = await s.library
    .engine(folder)
    .cachedAnalysis(document.getText(), loadEngine().analysisOptionsOf(settings), requestOf(s, document, settings), provider);
  // Typed into meanwhile, or analysed by the command meanwhile: leave it.
  if (!result || document.version !== version || s.results.get(document.uri)) return false;
  publish(s, document, result);
  s.log.info(`restored the results of ${document.uri.fsPath} from the cache`);
  return true;
}
