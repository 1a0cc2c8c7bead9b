/**
 * The engine API: everything the VS Code host and the CLI use of the engine,
 * and nothing else of src/core (a dependency-cruiser rule keeps it so). Bundled
 * as dist/engine.js, which the extension loads on first use (remark, pdf.js and
 * the index code stay out of activation). Results are typed; failures are
 * EngineErrors whose `code` says what happened (shared/errors.ts).
 *
 * A host makes one engine per workspace (`createEngine`, instance.ts), which owns
 * the provider, the loaded index, indexing and background embedding; the free
 * functions below are its parts, for scripts, tests and one-off calls.
 */
export { EngineError, errorCode, errorHealth, type EngineErrorCode } from '../shared/errors';
export type { IndexHealth, SemanticProgress } from '../shared/health';
export type { PassageResult, Recommendation } from '../shared/results';

export { createEngine, WorkspaceEngine } from './instance';
export type {
  EmbeddingChange,
  EngineHost,
  EngineOptions,
  EngineProgress,
  IndexRunOptions,
  IndexRunReport,
  IndexStatus,
  Readiness,
  ReadyOptions,
  VectorsReport,
} from './engineTypes';
export { bundleDir } from './bundle';

// Settings → library.
export { resolveLibrary, expandHome, draftBibliography, draftBibliographies, type LibrarySpec } from './library';
export { isLatexPath } from '../shared/draftLanguages';
// LaTeX drafts: their citations, and the files they read through `\input`/`\include` ("cited in", the check).
export { findLatexCitations, type LatexCitation } from '../core/latex/citations';
export { readLatexProject, latexBibliographies, type LatexProject, type LatexFile } from '../core/latex/project';
export { locateZotero, type ZoteroLocation } from '../core/zotero/dataDir';
export { readWorkspaceSettings } from './settingsFile';
export { readDraftText } from './draftFile';
export { FileRefused, isFileRefused } from '../core/util/confinedFiles';

// The embedding provider, and local models.
export {
  createProvider,
  embedsInBackground,
  localOverridesOf,
  providerConfigOf,
  servedPrefixOf,
  type EmbeddingProvider,
  type ProviderContext,
  type ProviderSettings,
} from './provider';
export { PROVIDER_NAMES, type ProviderConfig, type ProviderName } from '../core/embedding/providerFactory';
export { downloadModel } from '../core/embedding/local/download';
export { DEFAULT_LOCAL_MODEL, type LocalModelOverrides } from '../core/embedding/local/models';
export { defaultModelCacheDir, modelStatus, removeModel } from '../core/embedding/local/modelStore';

// Indexing, and the index's state.
export { indexLibrary, type IndexLibraryOptions, type LibraryIndexReport } from './indexLibrary';
export type { IndexProgress } from '../core/index/write/indexer';
export { embedPending, type EmbedPendingOptions, type EmbedPendingReport } from '../core/index/write/embedPending';
export { removeIndex } from '../core/index/store/maintenance';
/** The folder of a workspace's index (`.similar-sources/`). */
export { indexDir } from '../core/index/store/manifest';
export type { AbandonedLock } from '../core/index/store/lock';
export { damagedFiles, indexedModel, indexHealth, indexState, interruptedRun, providerHealth } from './status';

// Searching and analysing.
export {
  indexCitekeys,
  indexCollections,
  openIndex,
  rankCitekeys,
  readBibliography,
  zoteroCitekeys,
  search,
  type CitekeyEntry,
  type CitekeyHit,
  type PassageFields,
  type PassageHit,
  type SearchFilter,
  type SearchIndex,
  type SearchOptions,
  type SourceFields,
} from './search';
export type { Present } from '../shared/nulls';
export { analysisOptionsOf, analyze, cachedAnalysis, clearAnalysisCache, segmentDraft, type AnalysisRequest, type AnalysisSettings, type CachedAnalysisRequest } from './analysis';
export type { AnalysisResult, AnalyzeProgress, SegmentResult } from '../core/analysis/analyze';
export type { AnalysisOptions, AnalysisOptionsInput, RerankMode } from '../core/analysis/options';
export { segmentMarkdown, type Segment, type SegmentedDocument } from '../core/markdown/segment';
export { latexCitationTemplate, segmentLatex } from '../core/latex/segment';

// Evaluation.
export type { BeirEvalResult } from '../core/eval/beir';
export { loadBeir, runBeirEval } from '../core/eval/beir';

// The citation check.
export {
  checkCitations,
  checkCitationsOffThread,
  draftCitationsOf,
  findCitations,
  MAX_QUOTE_WORDS,
  statusSeverity,
  type CheckCitationsOptions,
  type CitationCheckResult,
  type CheckedCitation,
  type CitationStatus,
  type Difference,
  type DraftCitation,
  type Locator,
} from './citations';

// The library as language-model tools (VS Code's LM tools, the CLI's MCP server).
export {
  checkCitationsTool,
  checkInput,
  indexStatusTool,
  readDraft,
  searchTool,
  sourcesForTool,
  toolErrorText,
  ToolInputError,
  TOOL_DESCRIPTIONS,
  TOOL_LIMITS,
  TOOL_SCHEMAS,
  type ToolAnswer,
  type ToolSchema,
} from './agentTools';

// Zotero, directly (issue 24): the local API reader, the reader chain, the live watch.
export { LocalApiReader, sharedLocalApiReader, ENABLE_LOCAL_API_HINT, type LocalApiOptions } from '../core/zotero/localApi';
export { readZotero, type ReadZoteroOptions, type ZoteroRead } from '../core/zotero/open';
export { watchZotero, zoteroStamp, type WatchZoteroOptions, type ZoteroWatch } from '../core/zotero/watch';
export { ZoteroUnavailable, type ZoteroReader, type ZoteroSnapshot } from '../core/zotero/model';
