/**
 * "Find Similar Sources": analyse the active Markdown document with the
 * current settings, in a cancellable notification ("segment i of n"),
 * offering to index the library first when it has never been indexed.
 */
import * as vscode from 'vscode';
import { indexDir, readManifest } from '../core/index/manifest';
import type { SourceCard } from '../shared/protocol';
import { readSettings, type Settings } from './config';
import type { Ctx } from './ctx';
import { loadEngine, type Engine } from './engine';
import type { TrackedSegment } from './results';

type AnalysisResult = Awaited<ReturnType<Engine['analyzeDocument']>>;

export interface FindResult {
  segments: number;
  analysed: number;
  fromCache: boolean;
}

export async function findSimilarSources(ctx: Ctx, target?: vscode.TextDocument): Promise<FindResult | undefined> {
  const document = target ?? vscode.window.activeTextEditor?.document;
  if (!document || document.languageId !== 'markdown') {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a Markdown document to find similar sources.'));
    return undefined;
  }
  if (!vscode.workspace.isTrusted) {
    ctx.panel.showUntrusted();
    void vscode.window.showWarningMessage(ctx.untrustedMessage());
    return undefined;
  }
  const folder = ctx.library.workspaceFolder(document.uri);
  if (!folder) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open the folder that holds your draft (and its library) to find similar sources.'));
    return undefined;
  }
  const settings = readSettings(folder.uri);

  let state = await ctx.library.refreshState(folder);
  // An index made for another model (the provider was switched) cannot serve this analysis yet.
  const unusable = state.kind === 'ready' ? await ctx.library.unusableReason(folder) : undefined;
  if (unusable) ctx.log.info(`the index needs an indexing run first: ${unusable}`);
  if (state.kind === 'missing' || state.kind === 'error' || state.kind === 'outdated' || unusable) {
    ctx.panel.showState({
      kind: 'not-indexed',
      message: state.kind === 'missing' ? vscode.l10n.t('The library has not been indexed yet.') : vscode.l10n.t('The library index must be updated before this analysis.'),
    });
    const index = vscode.l10n.t('Index Library');
    const question =
      state.kind === 'missing'
        ? vscode.l10n.t('Similar Sources needs to index your PDF library first. Index it now?')
        : state.kind === 'error'
          ? vscode.l10n.t('The library index is damaged ({0}). Rebuild it now?', state.message)
          : vscode.l10n.t('The library index was built by another version of Similar Sources or for another model. Index the library now?');
    const go = settings.autoIndex ? index : await vscode.window.showInformationMessage(question, index);
    if (go !== index) return undefined;
    try {
      const report = await ctx.library.index(folder, { visible: true, rebuild: state.kind === 'error' });
      if (!report || report.cancelled) return undefined;
      if (report.sources === 0) {
        const fromSettings = ctx.library.libraryFolders(folder, settings).fromSettings;
        ctx.panel.showState({
          kind: 'no-library',
          message: fromSettings ? vscode.l10n.t('No readable PDF was found in the library folders.') : vscode.l10n.t('No library is configured and the workspace holds no readable PDF. Set “similarSources.libraryFolders”.'),
        });
        return undefined;
      }
    } catch (err) {
      ctx.panel.showState({ kind: 'index-error', message: (err as Error).message });
      void vscode.window.showErrorMessage(vscode.l10n.t('Indexing failed: {0}', (err as Error).message));
      return undefined;
    }
    state = ctx.library.state;
  } else if (state.kind === 'indexing') {
    void vscode.window.showInformationMessage(vscode.l10n.t('The library is being indexed; the analysis will use it when indexing has finished.'));
    await ctx.library.index(folder, { visible: false });
  }

  const engine = loadEngine();
  let result: AnalysisResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Finding similar sources'), cancellable: true },
      async (progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        let last = 0;
        const { options, shared } = analysisInputs(ctx, engine, folder, document, settings);
        return engine.analyzeDocument(
          document.getText(),
          options,
          {
            ...shared,
            index: () => ctx.library.open(folder),
            signal: ac.signal,
            onProgress: (p) => {
              ctx.panel.showState({ kind: 'analysing', message: vscode.l10n.t('Analysing segment {0} of {1}', p.current, p.total), current: p.current, total: p.total });
              progress.report({ message: vscode.l10n.t('segment {0} of {1}', p.current, p.total), increment: ((p.current - last) / Math.max(1, p.total)) * 100 });
              last = p.current;
            },
          },
        );
      },
    );
  } catch (err) {
    const e = err as Error & { state?: string };
    if (e.name === 'AbortError') {
      ctx.log.info('analysis cancelled; nothing cached');
      ctx.panel.refresh();
      return undefined;
    }
    ctx.panel.showState(
      e.name === 'IndexNotReadyError' && e.state === 'building'
        ? { kind: 'indexing', message: e.message, done: 0, total: 0 }
        : e.name === 'IndexNotReadyError' && e.state === 'missing'
          ? { kind: 'not-indexed', message: e.message }
          : { kind: 'index-error', message: e.message },
    );
    ctx.log.error(`analysis failed: ${e.message}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Similar Sources: {0}', e.message));
    return undefined;
  }

  publish(ctx, document, result);
  ctx.log.info(
    `analysed ${document.uri.fsPath}: ${result.stats.segments} segments, ${result.stats.segmentsAnalyzed} analysed, ${result.stats.segmentsFromCache} from cache, ${result.stats.ms} ms`,
  );
  ctx.panel.showDocument(document.uri, vscode.window.activeTextEditor?.selection.active.line);
  // `analysed`: segments that have results (searched now or served from the cache).
  return { segments: result.stats.segments, analysed: result.segments.filter((x) => x.status === 'analysed').length, fromCache: result.fromCache };
}

/**
 * What an analysis of `document` takes from the settings: its options, and the
 * context the command and the restore from the cache share (so both key the
 * cache alike).
 */
function analysisInputs(ctx: Ctx, engine: Engine, folder: vscode.WorkspaceFolder, document: vscode.TextDocument, settings: Settings) {
  return {
    options: { ...settings.options, collectionFilter: settings.options.collectionFilter.length ? settings.options.collectionFilter : null, minWords: settings.minWords },
    shared: {
      workspace: folder.uri.fsPath,
      documentPath: document.uri.toString(),
      cache: new engine.AnalysisCache(folder.uri.fsPath, settings.cacheLifetimeHours * 3600 * 1000),
      reranker: new engine.OllamaReranker({ host: settings.ollamaHost, model: settings.rerankModel }),
      citationTemplate: settings.citationTemplate,
      log: (l: string) => ctx.log.info(l),
    },
  };
}

/** Results go to the store; the CodeLenses, hovers and panel follow it. */
function publish(ctx: Ctx, document: vscode.TextDocument, result: AnalysisResult): void {
  ctx.results.set({
    uri: document.uri.toString(),
    documentTitle: result.documentTitle,
    fromCache: result.fromCache,
    threshold: result.options.similarityThreshold,
    notice: ctx.library.providerNotice,
    rerankNote: result.reranking.note,
    segments: result.segments.map(toTracked),
  });
}

/**
 * A Markdown document shown again (after a reload, or reopened) gets its
 * results back when the cache holds all of them for the current index and
 * settings: no index load, no analysis, nothing shown when they are not there.
 */
export async function restoreFromCache(ctx: Ctx, document: vscode.TextDocument): Promise<boolean> {
  if (document.languageId !== 'markdown' || !vscode.workspace.isTrusted || ctx.results.get(document.uri)) return false;
  const folder = ctx.library.workspaceFolder(document.uri);
  if (!folder || ctx.library.isIndexing()) return false;
  // Without an index there is nothing to restore: the engine is not even loaded.
  const manifest = await readManifest(indexDir(folder.uri.fsPath)).catch(() => undefined);
  if (!manifest) return false;
  const engine = loadEngine();
  const provider = await ctx.library.provider(folder);
  const version = document.version;
  const { options, shared } = analysisInputs(ctx, engine, folder, document, readSettings(folder.uri));
  const result = await engine.cachedAnalysis(document.getText(), options, { ...shared, fingerprint: manifest.fingerprint, model: provider.key });
  // Typed into meanwhile, or analysed by the command meanwhile: leave it.
  if (!result || document.version !== version || ctx.results.get(document.uri)) return false;
  publish(ctx, document, result);
  ctx.log.info(`restored the results of ${document.uri.fsPath} from the cache`);
  return true;
}

function toTracked(s: AnalysisResult['segments'][number]): TrackedSegment {
  return {
    id: s.id,
    type: s.type,
    title: s.title,
    start: s.startLine - 1,
    end: s.endLine - 1,
    status: s.status,
    cards: s.recommendations.map(
      (r): SourceCard => ({
        sourceId: r.sourceId,
        path: r.path,
        title: r.title,
        authors: r.authors,
        year: r.year,
        citekey: r.citekey,
        sourceType: r.sourceType,
        page: r.page,
        pageLabel: r.pageLabel,
        similarity: r.similarity,
        reranked: r.reranked,
        alreadyCited: r.alreadyCited,
        preview: r.preview,
        highlights: r.highlights,
        citation: r.citation,
        passages: r.passages.map((p) => ({ page: p.page, pageLabel: p.pageLabel, heading: p.heading, similarity: p.similarity, preview: p.preview })),
        duplicates: r.duplicates,
      }),
    ),
  };
}
