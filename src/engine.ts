/**
 * The engine bundle (dist/engine.js): everything heavy (remark, vectra,
 * pdf-parse), loaded by the extension on first use so activation stays cheap.
 */
export { analyzeDocument, cachedAnalysis, IndexNotReadyError, contextualText } from './core/analysis/analyze';
export type { AnalysisResult, Recommendation, SegmentResult, AnalyzeProgress } from './core/analysis/analyze';
export { AnalysisCache } from './core/analysis/cache';
export { OllamaReranker } from './core/analysis/rerank';
export { createProvider } from './core/embedding/providerFactory';
export { updateIndex } from './core/index/indexer';
export type { IndexReport, IndexProgress } from './core/index/indexer';
export { LibraryIndex, indexStatus, unusableFor } from './core/index/libraryIndex';
export { indexDir, INDEX_DIR, readManifest } from './core/index/manifest';
export { IndexBusyError } from './core/index/lock';
export { libraryInputs } from './core/library/pdfSource';
export { PdfExtractPool } from './core/pdf/extractPool';
/** Where the bundle lies: its PDF worker (pdf-extract-worker.js) lies beside it. */
export const bundleDir: string | undefined = typeof __dirname === 'string' ? __dirname : undefined;
export { segmentMarkdown } from './core/markdown/segment';
export { removeIndex } from './core/index/maintenance';
