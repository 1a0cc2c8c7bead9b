/**
 * The engine API: what the VS Code host, the CLI (and its MCP server) and the scripts use of the
 * engine, and nothing else of src/core. Bundled as dist/engine.js, which the extension loads on
 * first use (remark, pdf.js and the index code stay out of activation). Results are typed;
 * failures are EngineErrors whose `code` says what happened (shared/errors.ts).
 *
 * A host makes one engine per workspace (`createEngine`, instance.ts): the instance owns the
 * provider, the loaded index, indexing (one run at a time), background embedding, whether the
 * index is ready before scoring, search, analysis and the citation check. Besides it, only pure
 * helpers and what belongs to no workspace (the machine's local models, Zotero's folder, a BEIR
 * folder, the agent tools' schemas). Every value exported here is listed, with why, in
 * scripts/lint-engine-api.mjs (`npm run lint:deps`): a value added here, above all one re-exported
 * straight from src/core, fails the check until it is listed; hosts import src/engine through this
 * file only (.dependency-cruiser.cjs). Types are exported by name.
 */
export { errorCode, errorHealth } from '../shared/errors';
export type { EngineErrorCode } from '../shared/errors';
export type { IndexHealth, SemanticProgress } from '../shared/health';
export type { PassageResult, Recommendation } from '../shared/results';
export type { Present } from '../shared/nulls';

// The engine instance.
export { createEngine } from './instance';
export type { WorkspaceEngine } from './instance';
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
export type { LibrarySpec } from './library';
export type { LibraryServer, PublishReport, PublishRequest } from './libraryServer';
export type { LibraryIndexReport } from './indexLibrary';
export type { IndexProgress } from '../core/index/write/indexer';
export type { AbandonedLock } from '../core/index/store/lock';
export type { CitekeyEntry, CitekeyHit, PassageFields, PassageHit, SearchFilter, SearchIndex, SearchOptions, SourceFields } from './search';
export type { AnalysisRequest, AnalysisSettings, CachedAnalysisRequest } from './analysis';
export type { AnalysisResult, AnalyzeProgress, SegmentResult } from '../core/analysis/analyze';
export type { AnalysisOptions, AnalysisOptionsInput, RerankMode } from '../core/analysis/options';
export type { Segment, SegmentedDocument } from '../core/markdown/segment';

// A workspace's settings and drafts, read as the engine reads them (pure, or confined reads).
export { readWorkspaceSettings } from './settingsFile';
export { readDraftText } from './draftFile';
export { draftBibliographies } from './library';
export { readBibliography } from './search';
export { analysisOptionsOf, segmentDraft } from './analysis';

// The embedding provider, for a host that has flags rather than settings (the CLI) or no workspace (eval).
export { createProvider, embedsInBackground, localOverridesOf, type EmbeddingProvider, type ProviderContext, type ProviderSettings } from './provider';
// Whether this build carries ONNX Runtime for this machine (the universal VSIX does not).
export { localModelRuntime, type LocalRuntime } from './provider';
export { indexedModel } from './status';
export { PROVIDER_NAMES, type ProviderConfig, type ProviderName } from '../core/embedding/providerFactory';

// The machine's local models (no workspace's): the CLI's `model` command, the extension's download offer.
export { downloadModel } from '../core/embedding/local/download';
export { DEFAULT_LOCAL_MODEL, type LocalModelOverrides } from '../core/embedding/local/models';
export { defaultModelCacheDir, modelStatus, removeModel } from '../core/embedding/local/modelStore';

// Zotero's folder and its changes, before any engine reads its library (the CLI's --zotero, the extension's watcher).
export { locateZotero, type ZoteroLocation } from '../core/zotero/dataDir';
export { watchZotero, type WatchZoteroOptions, type ZoteroWatch } from '../core/zotero/watch';

// A LaTeX draft with the files it `\input`s, as the editor's "cited in" reads it (open editors' text first).
export { readLatexProject, type LatexProject, type LatexFile } from '../core/latex/project';

// Retrieval quality on a BEIR folder: no workspace library, so no instance.
export { runBeirEval, type BeirEvalResult } from '../core/eval/beir';
export { namesCrossEncoder, rerankerFor, type RerankerConfig } from './reranker';

// The citation check's verdicts, read by the hosts; the check itself, as the bundle runs it (the instance's `checkCitations` calls these).
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
  TOOL_SCHEMAS,
  type ToolAnswer,
  type ToolSchema,
} from './agentTools';
