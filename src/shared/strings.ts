/**
 * Every string the webviews show, with its English default; the host localises
 * each through vscode.l10n (l10n/bundle.l10n.*.json) and sends them with the
 * state. `{name}` marks a placeholder the webview fills in.
 */

import { BAND_DESCRIPTIONS } from './bands';

/** Localised strings keyed as below. */
export interface UiStrings {
  [key: string]: string;
}

/** Every string key the panel uses, with its English default. `{name}` marks a placeholder. */
export const PANEL_STRING_KEYS = {
  'panel.title': 'Similar Sources',
  'action.find': 'Find Similar Sources',
  'action.configureLibrary': 'Configure library',
  'action.index': 'Index library',
  'action.rebuild': 'Rebuild index',
  'action.showLog': 'Show log',
  'action.reveal': 'Reveal in editor',
  'action.allSegments': 'All segments',
  'action.previousSegment': 'Previous segment',
  'action.nextSegment': 'Next segment',
  'action.openPdf': 'Open PDF',
  'action.insertCitation': 'Insert citation',
  'action.copyCitation': 'Copy citation',
  'action.openPassage': 'Open',
  'action.openPassageLabel': 'Open {title} at {page}',
  'action.openPdfLabel': 'Open {title} at {page}',
  'action.insertCitationLabel': 'Insert a citation of {title}',
  'action.copyCitationLabel': 'Copy a citation of {title}',
  'state.no-library': 'No PDF library is configured.',
  'state.untrusted': 'This workspace is not trusted. Similar Sources is disabled.',
  'state.not-indexed': 'Your library has not been indexed yet.',
  'state.indexing': 'Indexing the library…',
  'state.analyzing': 'Analysing the draft…',
  'state.index-error': 'The library index could not be read.',
  'state.no-document': 'Open a Markdown draft to see similar sources.',
  'progress.indexing': '{done} of {total} PDFs',
  'progress.analyzing': '{current} of {total} segments',
  'progress.label': 'Progress',
  'results.document': 'Draft',
  'results.fromCache': 'From cache',
  'results.noSegments': 'No segment to analyse in this draft.',
  'results.segments': 'Segments',
  'results.segmentSelector': 'Segment',
  'results.sources': 'Sources',
  'results.sourceCount': '{count} sources',
  'results.sourceCountOne': '1 source',
  'results.noneAboveThreshold': 'No source above the threshold ({threshold}).',
  'results.lowerThreshold': 'Lower the threshold or widen the filters to see weaker matches.',
  'results.tooShort': 'This passage is too short to analyse.',
  'results.outdated': 'The text changed since this analysis. Run Find Similar Sources again.',
  'results.notAnalyzed': 'not analysed',
  'segment.line': 'Line {line}',
  'segment.lines': 'Lines {start}–{end}',
  'segment.untitled': '(untitled)',
  'segment.count': '{count}',
  'segment.status.too-short': 'too short',
  'segment.status.outdated': 'outdated',
  'segment.status.analysed': 'analysed',
  'card.similarity': 'Similarity',
  'card.similarityValue': '{percent} similar',
  'card.similarityHint':
    'Estimated chance that this source is relevant here, from how much the passage shares with the text and how its meaning stands out from the rest of the library. Cards are in order of strength.',
  'band.strong': 'strong',
  'band.related': 'related',
  'band.weak': 'weak',
  'band.strong.description': BAND_DESCRIPTIONS.strong,
  'band.related.description': BAND_DESCRIPTIONS.related,
  'band.weak.description': BAND_DESCRIPTIONS.weak,
  'card.citedIn': 'cited in {sections}',
  'card.citedInTitle': 'This draft cites this source elsewhere: {sections}',
  'card.citedInOpening': 'the opening',
  'card.page': 'p. {page}',
  'card.pdfPage': 'PDF page {page}',
  'card.noAuthor': 'Unknown author',
  'card.noYear': 'n.d.',
  'card.reranked': 'reranked',
  'card.rerankedTitle': 'Order refined by the reranking model',
  'card.cited': 'already cited',
  'card.citedTitle': 'This draft already cites this source',
  'card.primary': 'primary source',
  'card.primaryTitle': 'A primary source (archive, edition of documents)',
  'card.morePassages': '{count} more passages',
  'card.morePassagesOne': '1 more passage',
  'card.duplicates': 'Also in: {files}',
  'card.ocr': 'text from OCR',
  'card.languageFr': 'in French',
  'card.languageFrTitle': 'This passage is in French, the paragraph in English.',
  'card.languageEn': 'in English',
  'card.languageEnTitle': 'This passage is in English, the paragraph in French.',
  'card.highlighted': 'you highlighted this, p. {page}',
  'card.highlightedTitle': 'Highlighted in Zotero: “{text}”',
  'card.ocrTitle': 'This passage was read from a scanned page by OCR: check the quotation against the page (Open PDF).',
  'options.title': 'Options',
  'options.granularity': 'Granularity',
  'options.granularity.section': 'Section',
  'options.granularity.paragraph': 'Paragraph',
  'options.granularity.sentence': 'Sentence',
  'options.maxResults': 'Max results',
  'options.threshold': 'Similarity threshold',
  'options.sourceType': 'Source type',
  'options.sourceType.secondary': 'Secondary sources',
  'options.sourceType.primary': 'Primary sources',
  'options.sourceType.both': 'Both',
  'options.collections': 'Collections',
  'options.collectionsHint': 'None checked: all collections.',
  'options.noCollections': 'No collections in the library.',
  'options.reranking': 'Rerank with a language model',
  'options.reranking.auto': 'When available',
  'options.reranking.on': 'On',
  'options.reranking.off': 'Off',
  'options.rerankHint': 'Not used now: {hint}.',
  'options.contextual': 'Contextual embedding',
} as const;

/** Strings of the PDF viewer (webview-ui/pdf). */
export const PDF_STRING_KEYS = {
  'pdf.toolbar': 'PDF toolbar',
  'pdf.previous': 'Previous page',
  'pdf.next': 'Next page',
  'pdf.page': 'Page',
  'pdf.of': 'of {total}',
  'pdf.zoomIn': 'Zoom in',
  'pdf.zoomOut': 'Zoom out',
  'pdf.zoom': 'Zoom',
  'pdf.fitWidth': 'Fit width',
  'pdf.loading': 'Loading {name}…',
  'pdf.error': 'This PDF could not be opened: {message}',
  'pdf.highlighted': 'Passage highlighted on page {page}.',
  'pdf.notFound': 'The passage was not found on page {page}; showing the page.',
  'pdf.pageLabel': 'Page {page}',
  'pdf.waiting': 'Waiting for a PDF…',
} as const;

export type PanelStringKey = keyof typeof PANEL_STRING_KEYS;
export type PdfStringKey = keyof typeof PDF_STRING_KEYS;

/** Looks a key up in the host's strings, falls back to English, fills `{placeholders}`. */
export function translate<K extends string>(english: Record<K, string>, strings: UiStrings, key: K, vars?: Record<string, string | number>): string {
  const own = strings && Object.prototype.hasOwnProperty.call(strings, key) ? strings[key] : undefined;
  const template = typeof own === 'string' ? own : english[key];
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole));
}
