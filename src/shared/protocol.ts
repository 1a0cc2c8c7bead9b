/**
 * The typed message protocol between the extension host and its webviews
 * (the Similar Sources panel and the PDF viewer). Shared by both bundles; it
 * imports only from src/shared, so the webview bundle stays free of Node and `vscode`.
 */

import type { Recommendation, SegmentStatus } from './results';
import type { PanelOptions } from './settings';
import type { UiStrings } from './strings';

/**
 * A segment as the panel shows it: deliberately slimmer than the engine's
 * SegmentResult (no text, query or heading path: the panel names a segment by
 * its title and lines), with the engine's cards as they are. `outdated`: the
 * text changed since the analysis.
 */
export interface SegmentView {
  id: string;
  type: string;
  title: string;
  startLine: number;
  endLine: number;
  status: SegmentStatus | 'outdated';
  cards: Recommendation[];
}

/** Everything the panel shows; the panel renders from this state alone. */
export type PanelState =
  | { kind: 'no-library'; message: string }
  | { kind: 'untrusted'; message: string }
  | { kind: 'not-indexed'; message: string }
  | { kind: 'indexing'; message: string; done: number; total: number }
  | { kind: 'analyzing'; message: string; current: number; total: number }
  | { kind: 'index-error'; message: string }
  | { kind: 'no-document'; message: string }
  | {
      kind: 'results';
      document: string;
      documentTitle: string | null;
      /** The segment shown; null lists all segments. */
      segment: SegmentView | null;
      segments: Array<{ id: string; title: string; startLine: number; endLine: number; count: number; status: SegmentView['status'] }>;
      fromCache: boolean;
      threshold: number;
      /** e.g. "Ollama unreachable: using the embedded model" */
      notice?: string;
      rerankNote?: string;
      /** "Semantic index 43%: …": the results were made before the model's vectors were all computed. */
      semanticNote?: string;
      /** How to get reranking, when 'auto' found none: shown quietly in the options, never as a warning. */
      rerankHint?: string;
    };

/** Host → webview. */
export type HostMessage =
  | { type: 'state'; state: PanelState; options: PanelOptions; collections: string[]; strings: UiStrings }
  | {
      type: 'focusSegment';
      segmentId: string;
      /**
       * The user asked for this segment in the panel (a CodeLens, a hover's link): the keyboard
       * moves to it. After an analysis it is only scrolled to: the keyboard stays in the editor.
       */
      takeFocus: boolean;
    };

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'openPdf'; path: string; page: number; highlight: string }
  | { type: 'insertCitation'; segmentId: string; sourceId: string; page: number }
  | { type: 'copyCitation'; segmentId: string; sourceId: string; page: number }
  | { type: 'revealSegment'; segmentId: string }
  | { type: 'selectSegment'; segmentId: string | null }
  | { type: 'setOption'; option: keyof PanelOptions; value: PanelOptions[keyof PanelOptions] }
  | { type: 'run'; command: 'analyze' | 'index' | 'rebuild' | 'configureLibrary' | 'showLog' };

/** PDF viewer: host → webview. */
export type PdfHostMessage = { type: 'open'; url: string; name: string; page: number; highlight: string; strings: UiStrings };

/** PDF viewer: webview → host. */
export type PdfWebviewMessage = { type: 'ready' } | { type: 'loaded'; pages: number; page: number; highlighted: boolean } | { type: 'error'; message: string };
