/**
 * UI strings handed to the webviews, localised by vscode.l10n (l10n/ bundles).
 * Keys are the English text's identifiers used by webview-ui.
 */
import * as vscode from 'vscode';

export function panelStrings(): Record<string, string> {
  const t = vscode.l10n.t;
  return {
    findSimilarSources: t('Find Similar Sources'),
    openPdf: t('Open PDF'),
    insertCitation: t('Insert citation'),
    copyCitation: t('Copy citation'),
    reranked: t('reranked'),
    alreadyCited: t('already cited'),
    primarySource: t('primary source'),
    lines: t('Lines'),
    page: t('p.'),
    similarity: t('similarity'),
    morePassages: t('More passages from this source'),
    revealInEditor: t('Reveal in editor'),
    allSegments: t('All segments'),
    granularity: t('Granularity'),
    section: t('Sections'),
    paragraph: t('Paragraphs'),
    sentence: t('Sentences'),
    maxResults: t('Max results'),
    threshold: t('Similarity threshold'),
    sourceType: t('Sources'),
    secondary: t('Secondary'),
    primary: t('Primary'),
    both: t('Both'),
    collections: t('Collections'),
    useReranking: t('Rerank with an LLM'),
    useContextualEmbedding: t('Add document context to queries'),
    noSourceAboveThreshold: t('No source above the threshold ({0}%).'),
    outdated: t('The text changed since the analysis: run it again.'),
    fromCache: t('from the cache'),
    indexLibrary: t('Index Library'),
    rebuildIndex: t('Rebuild Index'),
    configureLibrary: t('Configure library'),
    showLog: t('Show log'),
    tooShort: t('Too short to search'),
    previousPage: t('Previous page'),
    nextPage: t('Next page'),
    zoomIn: t('Zoom in'),
    zoomOut: t('Zoom out'),
    fitWidth: t('Fit width'),
    loading: t('Loading…'),
    passageNotFound: t('The passage could not be located on this page.'),
  };
}
