/**
 * The typed message protocol between the extension host and its webviews
 * (the Similar Sources panel and the PDF viewer). Shared by both bundles; no
 * imports, so the webview bundle stays free of Node and `vscode`.
 */

export type Granularity = 'section' | 'paragraph' | 'sentence';
export type SourceTypeFilter = 'secondary' | 'primary' | 'both';

export interface PanelOptions {
  granularity: Granularity;
  maxResults: number;
  similarityThreshold: number;
  sourceType: SourceTypeFilter;
  collectionFilter: string[];
  useReranking: boolean;
  useContextualEmbedding: boolean;
}

export interface CardPassage {
  page: number;
  pageLabel: string | null;
  heading: string | null;
  similarity: number;
  preview: string;
}

export interface SourceCard {
  sourceId: string;
  path: string;
  title: string;
  authors: string[];
  year: number | null;
  citekey: string | null;
  sourceType: 'primary' | 'secondary';
  page: number;
  pageLabel: string | null;
  /** Calibrated 0–1. */
  similarity: number;
  reranked: boolean;
  alreadyCited: boolean;
  preview: string;
  /** Words of the preview to highlight (untrusted text: the webview escapes everything). */
  highlights: string[];
  citation: string;
  passages: CardPassage[];
  duplicates: string[];
}

export interface SegmentView {
  id: string;
  type: string;
  title: string;
  startLine: number;
  endLine: number;
  status: 'analysed' | 'too-short' | 'outdated';
  cards: SourceCard[];
}

/** Everything the panel shows; the panel renders from this state alone. */
export type PanelState =
  | { kind: 'no-library'; message: string }
  | { kind: 'untrusted'; message: string }
  | { kind: 'not-indexed'; message: string }
  | { kind: 'indexing'; message: string; done: number; total: number }
  | { kind: 'analysing'; message: string; current: number; total: number }
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
    };

export interface PanelStrings {
  [key: string]: string;
}

/** Host → webview. */
export type HostMessage =
  | { type: 'state'; state: PanelState; options: PanelOptions; collections: string[]; strings: PanelStrings }
  | { type: 'focusSegment'; segmentId: string };

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'openPdf'; path: string; page: number; highlight: string }
  | { type: 'insertCitation'; segmentId: string; sourceId: string; page: number }
  | { type: 'copyCitation'; segmentId: string; sourceId: string; page: number }
  | { type: 'revealSegment'; segmentId: string }
  | { type: 'selectSegment'; segmentId: string | null }
  | { type: 'setOption'; option: keyof PanelOptions; value: PanelOptions[keyof PanelOptions] }
  | { type: 'run'; command: 'analyse' | 'index' | 'rebuild' | 'configureLibrary' | 'showLog' };

/** PDF viewer: host → webview. */
export type PdfHostMessage = { type: 'open'; url: string; name: string; page: number; highlight: string; strings: PanelStrings };

/** PDF viewer: webview → host. */
export type PdfWebviewMessage =
  | { type: 'ready' }
  | { type: 'loaded'; pages: number; page: number; highlighted: boolean }
  | { type: 'error'; message: string };
