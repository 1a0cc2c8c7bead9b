/**
 * The index's health (shared/health.ts), translated once for each view: the
 * status bar, the panel, and notifications. Nothing else in the host turns a
 * health into words.
 */
import * as vscode from 'vscode';
import { publishedOn, semanticPercent, type IndexHealth, type SemanticProgress } from '../shared/health';
import type { PanelState } from '../shared/protocol';

/** The host's view of the health: the engine's, or no workspace, or not read yet. */
export type HostHealth =
  | Exclude<IndexHealth, { state: 'ready' }>
  | (Extract<IndexHealth, { state: 'ready' }> & {
      /** Background embedding of the model's vectors: under way, or stopped by a failure (`embeddingError`). */
      embedding?: 'running' | 'stopped';
      embeddingError?: string;
    })
  | { state: 'no-workspace' }
  | { state: 'unknown' };

const t = vscode.l10n.t;

/** Status bar text and tooltip; undefined hides the item. */
export function statusBarText(h: HostHealth): { text: string; tooltip: string } | undefined {
  switch (h.state) {
    case 'no-workspace':
    case 'unknown':
      return undefined;
    case 'missing':
      if (h.server)
        return { text: `$(library) ${t('Nothing published')}`, tooltip: t('Similar Sources: nothing is published on the library server {0}.', h.dir) };
      return { text: `$(library) ${t('Library not indexed')}`, tooltip: t('Similar Sources: the PDF library has not been indexed. Click for details.') };
    case 'outdated':
      return {
        text: `$(library) ${t('Library index outdated')}`,
        tooltip: t('Similar Sources: the index was built by another version; indexing the library rebuilds it. Click for details.'),
      };
    case 'incomplete':
      return {
        text: `$(library) ${t('Library index incomplete')}`,
        tooltip: t('Similar Sources: the index is not complete for the configured model; indexing the library completes it. Click for details.'),
      };
    case 'indexing':
      return h.total
        ? {
            text: `$(sync~spin) ${t('Indexing {0}/{1}', Math.min((h.done ?? 0) + 1, h.total), h.total)}`,
            tooltip: t('Similar Sources is indexing the PDF library.'),
          }
        : { text: `$(sync~spin) ${t('Indexing…')}`, tooltip: t('Similar Sources is indexing the PDF library.') };
    case 'ready':
      if (h.semantic) return semanticStatus(h, h.semantic);
      if (h.ocr) {
        // Scanned pages wait for OCR; the rest of the library (text layers included) is searchable.
        return {
          text: h.ocr.total
            ? `$(sync~spin) ${t('{0} sources, OCR: {1} of {2} pages', h.sources, h.ocr.done ?? 0, h.ocr.total)}`
            : `$(library) ${t('{0} sources, OCR: {1} pages to go', h.sources, h.ocr.pending)}`,
          tooltip: t(
            'Similar Sources: {0} sources, {1} passages ({2}). {3} scanned pages in {4} files are still to be read by OCR; the library is searchable meanwhile.',
            h.sources,
            h.passages,
            h.model,
            h.ocr.pending,
            h.ocr.files,
          ),
        };
      }
      return {
        text: `$(library) ${t('{0} sources', h.sources)}`,
        tooltip: t('Similar Sources: {0} sources, {1} passages ({2}).', h.sources, h.passages, h.model),
      };
    case 'corrupt':
      return { text: `$(warning) ${t('Index damaged')}`, tooltip: h.detail };
    case 'unreachable':
      return {
        text: `$(debug-disconnect) ${t('Library server unreachable')}`,
        tooltip: h.copy
          ? t(
              "Similar Sources: {0}. Drafts are analysed with this machine's copy of generation {1} (published {2}); the server may have a newer one.",
              h.detail,
              h.copy.generation,
              publishedOn(h.copy.publishedAt),
            )
          : t('Similar Sources: {0}. The results found before, cached on this machine, are still shown; new analyses wait for the server.', h.detail),
      };
  }
}

/** While a model's vectors are computed: "Semantic index 43%", and what that means for results. */
function semanticStatus(h: Extract<HostHealth, { state: 'ready' }>, p: SemanticProgress): { text: string; tooltip: string } {
  const pct = semanticPercent(p);
  const what = t(
    'Similar Sources: {0} sources, {1} passages. {2} of {3} passages have their vector of {4}; until all do, the others are matched by their words only.',
    h.sources,
    h.passages,
    p.embedded,
    p.total,
    p.model,
  );
  if (h.embedding === 'running') return { text: `$(sync~spin) ${t('Semantic index {0}%', pct)}`, tooltip: what };
  if (h.embedding === 'stopped') return { text: `$(warning) ${t('Semantic index {0}% (stopped)', pct)}`, tooltip: `${what}\n${h.embeddingError ?? ''}` };
  return { text: `$(library) ${t('Semantic index {0}%', pct)}`, tooltip: what };
}

/** What the panel says over results made while the model's vectors were being computed. */
export function semanticNote(p: SemanticProgress): string {
  return t(
    'Semantic index {0}%: {1} of {2} passages could match by meaning, the others by their words only. Results improve as the background embedding goes on; run Find Similar Sources again later.',
    semanticPercent(p),
    p.embedded,
    p.total,
  );
}

/** The panel's state for an index that cannot serve an analysis (undefined when it can). */
export function panelStateOf(h: HostHealth): PanelState | undefined {
  switch (h.state) {
    case 'missing':
      if (h.server) return { kind: 'not-indexed', message: t('Nothing is published on the library server yet.') };
      return { kind: 'not-indexed', message: t('The library has not been indexed yet.') };
    case 'outdated':
    case 'incomplete':
      return { kind: 'not-indexed', message: t('The library index must be updated before this analysis.') };
    case 'corrupt':
      return { kind: 'index-error', message: h.detail };
    case 'unreachable':
      // The detail names the server and says what failed ("postgres://… cannot be reached: …").
      return { kind: 'index-error', message: t('{0}. New analyses wait for the server.', h.detail) };
    case 'indexing':
      return { kind: 'indexing', message: t('Indexing PDFs'), done: h.done ?? 0, total: h.total ?? 0 };
    default:
      return undefined;
  }
}

/** What a notification says about the health, for "Show Index Status". */
export function statusMessage(h: HostHealth): string {
  switch (h.state) {
    case 'no-workspace':
    case 'unknown':
      return t('Open a folder first: the index is stored inside the workspace.');
    case 'ready':
      return (
        t('Index in {0}: {1} sources, {2} passages, model {3}.', h.dir, h.sources, h.passages, h.model) +
        (h.semantic ? ` ${t('Semantic index {0}%: {1} of {2} passages embedded.', semanticPercent(h.semantic), h.semantic.embedded, h.semantic.total)}` : '') +
        (h.embeddingError ? ` ${h.embeddingError}` : '')
      );
    case 'missing':
      if (h.server) return t('Nothing is published on the library server {0}: a member publishes it with similar-sources index --server.', h.dir);
      return t('The library has not been indexed yet ({0}).', h.dir);
    case 'outdated':
      return t('The index in {0} was built by another version of Similar Sources; indexing the library rebuilds it.', h.dir);
    case 'incomplete':
      return t('The index in {0} is not complete for the configured model; indexing the library completes it.', h.dir);
    case 'indexing':
      return t('The library is being indexed; the analysis will use it when indexing has finished.');
    case 'corrupt':
      return t('The index in {0} is damaged: {1}', h.dir, h.detail);
    case 'unreachable':
      return h.copy
        ? t(
            "{0}. This machine's copy of generation {1} (published {2}) is searched meanwhile; the server may have a newer one.",
            h.detail,
            h.copy.generation,
            publishedOn(h.copy.publishedAt),
          )
        : t('{0}. The results found before, cached on this machine, are still shown.', h.detail);
  }
}

/** The question asked before indexing so that an analysis can run (the index cannot serve it yet). */
export function indexQuestion(h: IndexHealth): string {
  switch (h.state) {
    case 'missing':
      return t('Similar Sources needs to index your PDF library first. Index it now?');
    case 'corrupt':
      return t('The library index is damaged ({0}). Rebuild it now?', h.detail);
    default:
      return t('The library index was built by another version of Similar Sources or for another model. Index the library now?');
  }
}
