/**
 * The engine API: everything the VS Code host and the CLI use of the engine,
 * and nothing else of src/core (a dependency-cruiser rule keeps it so). Bundled
 * as dist/engine.js, which the extension loads on first use (remark, pdf.js and
 * the index code stay out of activation). Results are typed; failures are
 * EngineErrors whose `code` says what happened (shared/errors.ts).
 */
import { analyzeDocument, cachedAnalysis as cachedDocumentAnalysis, type AnalysisResult, type AnalyzeProgress } from '../core/analysis/analyze';
import { AnalysisCache } from '../core/analysis/cache';
import type { AnalysisOptionsInput } from '../core/analysis/options';
import { OllamaReranker } from '../core/analysis/rerank';
import { preview } from '../core/analysis/analyze';
import { loadBibliography } from '../core/library/bibliography';
import { queryTerms } from '../core/retrieval/representation';
import { createProvider as createConfiguredProvider, type CreateProviderOptions, type ProviderConfig } from '../core/embedding/providerFactory';
import type { EmbeddingProvider } from '../core/embedding/provider';
import { healthOf, indexHealth as workspaceHealth } from '../core/index/health';
import { damagedSources, LibraryIndex, type SearchFilter, type SearchHit } from '../core/index/libraryIndex';
import { indexDir, readManifest, sourceFields } from '../core/index/manifest';
import { abandonedLock, type AbandonedLock } from '../core/index/lock';
import { SegmentThread } from '../core/markdown/segmentThread';
import type { IndexHealth } from '../shared/health';
import type { Settings } from '../shared/settings';

import { EngineError } from '../shared/errors';
export { EngineError, errorCode, errorHealth, type EngineErrorCode } from '../shared/errors';
export type { IndexHealth } from '../shared/health';
export type { PassageResult, Recommendation } from '../shared/results';
export type { AnalysisResult, AnalyzeProgress, SegmentResult } from '../core/analysis/analyze';
export type { AnalysisOptions, AnalysisOptionsInput, RerankMode } from '../core/analysis/options';
export type { EmbeddingProvider } from '../core/embedding/provider';
export type { IndexProgress } from '../core/index/indexer';
export type { AbandonedLock } from '../core/index/lock';
export type { BeirEvalResult } from '../core/eval/beir';
export { runBeirEval } from '../core/eval/beir';
export { segmentMarkdown, type Segment, type SegmentedDocument } from '../core/markdown/segment';
export { removeIndex } from '../core/index/maintenance';
export { indexLibrary, type IndexLibraryOptions, type LibraryIndexReport } from './indexLibrary';
export { resolveLibrary, expandHome, type LibrarySpec } from './library';
export { readWorkspaceSettings } from './settingsFile';

/** Where this bundle lies: its PDF worker (pdf-extract-worker.js) lies beside it. */
export const bundleDir: string | undefined = typeof __dirname === 'string' ? __dirname : undefined;

/** The folder of a workspace's index (`.similar-sources/`). */
export { indexDir };

export { PROVIDER_NAMES, type ProviderConfig, type ProviderName } from '../core/embedding/providerFactory';
export { downloadModel } from '../core/embedding/local/download';
export { DEFAULT_LOCAL_MODEL, type LocalModelOverrides } from '../core/embedding/local/models';
import type { LocalModelOverrides } from '../core/embedding/local/models';
export { defaultModelCacheDir, modelStatus, removeModel } from '../core/embedding/local/modelStore';

/**
 * The embedding provider a configuration names. Servers and local models are
 * checked up front, so a failure is reported once, here (`provider-unreachable`…),
 * or, with `fallbackToEmbedded`, replaced by the embedded model with a `warning`.
 */
export function createProvider(config: ProviderConfig, opts: CreateProviderOptions = {}): Promise<{ provider: EmbeddingProvider; warning?: string }> {
  return createConfiguredProvider(config, opts);
}

/** What the host adds to the settings: where models are kept, where the workers lie, the secret key. */
export interface ProviderContext {
  /** Downloaded models (the extension's global storage; never the workspace). */
  modelCacheDir?: string;
  /** The folder of the bundled local-embed-worker.js (default: beside this bundle). */
  workerDir?: string;
  /** The OpenAI-compatible server's key, from VS Code's secret storage. */
  openaiApiKey?: string;
}

export type ProviderSettings = Pick<
  Settings,
  'provider' | 'ollamaHost' | 'ollamaModel' | 'localModel' | 'localModelPooling' | 'localModelQueryPrefix' | 'localModelPassagePrefix' | 'localModelMaxTokens' | 'openaiBaseUrl' | 'openaiModel'
  | 'openaiQueryPrefix' | 'openaiPassagePrefix' | 'ollamaQueryPrefix' | 'ollamaPassagePrefix'
>;

/**
 * The provider configuration the settings give (an empty value means the default, or the model's
 * own; for the ollama/openai prefixes, 'auto' means the model's own and '' none).
 */
export function providerConfigOf(s: ProviderSettings, ctx: ProviderContext = {}): ProviderConfig {
  return {
    provider: s.provider,
    ollamaHost: s.ollamaHost || undefined,
    ollamaModel: s.ollamaModel || undefined,
    localModel: s.localModel || undefined,
    localModelOverrides: localOverridesOf(s),
    modelCacheDir: ctx.modelCacheDir,
    workerDir: ctx.workerDir ?? bundleDir,
    openaiBaseUrl: s.openaiBaseUrl || undefined,
    openaiModel: s.openaiModel || undefined,
    openaiApiKey: ctx.openaiApiKey,
    ollamaQueryPrefix: servedPrefixOf(s.ollamaQueryPrefix),
    ollamaPassagePrefix: servedPrefixOf(s.ollamaPassagePrefix),
    openaiQueryPrefix: servedPrefixOf(s.openaiQueryPrefix),
    openaiPassagePrefix: servedPrefixOf(s.openaiPassagePrefix),
  };
}

/** A served model's prefix setting: 'auto' (the model's documented prefix) is undefined; '' is no prefix. */
export function servedPrefixOf(setting: string): string | undefined {
  return setting === 'auto' ? undefined : setting;
}

/** The local model's explicit settings (for a model the known-model table lacks). */
export function localOverridesOf(s: Pick<Settings, 'localModelPooling' | 'localModelQueryPrefix' | 'localModelPassagePrefix' | 'localModelMaxTokens'>): LocalModelOverrides {
  return {
    ...(s.localModelPooling ? { pooling: s.localModelPooling } : {}),
    ...(s.localModelQueryPrefix ? { queryPrefix: s.localModelQueryPrefix } : {}),
    ...(s.localModelPassagePrefix ? { passagePrefix: s.localModelPassagePrefix } : {}),
    ...(s.localModelMaxTokens ? { maxTokens: s.localModelMaxTokens } : {}),
  };
}

/** The provider and model the index was last built with, if any. */
export async function indexedModel(workspace: string): Promise<{ provider: string; model: string } | undefined> {
  const m = await readManifest(indexDir(workspace)).catch(() => undefined);
  const set = m?.activeModel ? m.vectors[m.activeModel] : undefined;
  return set && { provider: set.provider, model: set.model };
}

/**
 * The index's health for `modelKey` (a provider's `key`; without one, whether it
 * is readable at all). From the manifest and the lock only; never throws.
 */
export function indexHealth(workspace: string, modelKey?: string, opts: { partial?: boolean } = {}): Promise<IndexHealth> {
  return workspaceHealth(workspace, modelKey, opts);
}

/**
 * Whether a provider's vectors are computed in the background, after the lexical
 * index is committed: every neural model (local, Ollama, OpenAI-compatible) is far
 * slower than reading PDFs; the embedded hashed n-grams are computed inline.
 */
export function embedsInBackground(provider: Pick<EmbeddingProvider, 'id'>): boolean {
  return provider.id !== 'embedded';
}

/** The index's health for a provider: one that embeds in the background serves before its vectors are complete. */
export function providerHealth(workspace: string, provider: Pick<EmbeddingProvider, 'id' | 'key'>): Promise<IndexHealth> {
  return workspaceHealth(workspace, provider.key, { partial: embedsInBackground(provider) });
}

export { embedPending, type EmbedPendingOptions, type EmbedPendingReport } from '../core/index/embedPending';

/** The index's state for the analysis cache key, from the manifest alone (no index load). */
export async function indexState(workspace: string): Promise<{ fingerprint: string; updatedAt: string } | undefined> {
  const m = await readManifest(indexDir(workspace)).catch(() => undefined);
  return m && { fingerprint: m.fingerprint, updatedAt: m.updatedAt };
}

/** The index loaded for searching; `index-not-ready` (with its health) when it cannot serve `provider`. */
export type SearchIndex = LibraryIndex;
export function openIndex(workspace: string, provider: EmbeddingProvider): Promise<SearchIndex> {
  // A model whose vectors are being computed serves already: passages without one match by their words.
  return LibraryIndex.open(workspace, provider, { partial: embedsInBackground(provider) });
}

/** Collections named in a loaded index (for a filter's choices), sorted. */
export function indexCollections(index: SearchIndex): string[] {
  return [...new Set(index.sources.flatMap((s) => s.collections))].sort((a, b) => a.localeCompare(b));
}

/** One passage found by `search`, with its source: plain data (JSON as it is). */
export interface PassageHit {
  path: string;
  title: string;
  authors: string[];
  year: number | null;
  citekey: string | null;
  page: number;
  pageLabel: string | null;
  heading: string | null;
  /** Fused rank score, and the cosine of the passage's vector with the query's. */
  score: number;
  cosine: number;
  text: string;
  /** The passage's text comes from OCR of a scanned page. */
  ocr?: true;
}

/** The top passages for a text, best first. */
export async function search(index: SearchIndex, text: string, opts: { k: number; filter?: SearchFilter; signal?: AbortSignal }): Promise<PassageHit[]> {
  const hits = await index.search(text, opts);
  return hits.map(toPassageHit);
}

function toPassageHit(h: SearchHit): PassageHit {
  return {
    ...sourceFields(h.sourceRecord),
    page: h.page,
    pageLabel: h.pageLabel ?? null,
    heading: h.heading ?? null,
    score: h.score,
    cosine: h.cosine,
    text: h.text,
    ...(h.ocr ? { ocr: true as const } : {}),
  };
}

/** Indexed files that were damaged, with what was lost; listed until the file changes. */
/**
 * The writer lock of the workspace's index when the run that held it ended without finishing
 * (killed, crashed): the next indexing run takes it over. Undefined when no lock is left, or a
 * live process holds it (the health says "indexing" then).
 */
export async function interruptedRun(workspace: string): Promise<AbandonedLock | undefined> {
  return abandonedLock(indexDir(workspace));
}

export async function damagedFiles(workspace: string): Promise<Array<{ path: string; problem: string }>> {
  return damagedSources(await readManifest(indexDir(workspace)).catch(() => undefined));
}

/** What an analysis needs besides the document and its options. */
export interface AnalysisRequest {
  workspace: string;
  /** Where the document lives (names its cache file); any stable string. */
  documentPath: string;
  /** The loaded index, or a loader called once when something must be searched. */
  index: SearchIndex | (() => Promise<SearchIndex>);
  /** How long results are kept; false: no cache. */
  cache: { ttlHours: number } | false;
  /** The Ollama model that reranks (when the options ask for it and it is reachable). */
  reranker?: { host?: string; model?: string };
  citationTemplate?: string;
  /**
   * Segment the draft in a worker thread (the extension: remark never holds the extension host,
   * whatever the draft's size); in this thread otherwise, or where the bundle has no worker file.
   */
  segmentInWorker?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: AnalyzeProgress) => void;
  /** Log lines; 'debug' ones are details a terminal need not print (an optional service not found). */
  log?: (line: string, level?: 'info' | 'debug') => void;
}

/**
 * For each segment of a Markdown document, the library sources worth citing
 * there. Unchanged segments come from the cache; a cancel (`cancelled`) caches
 * nothing; an index that cannot answer is `index-not-ready`, never "no result".
 */
export function analyse(document: string, options: AnalysisOptionsInput, r: AnalysisRequest): Promise<AnalysisResult> {
  return analyzeDocument(document, options, { ...r, cache: cacheOf(r), reranker: r.reranker && new OllamaReranker(r.reranker), segmenter: segmenterOf(r) });
}

let segmentThread: SegmentThread | undefined;

/** The worker's segmentation when asked for and bundled, else undefined (this thread's). */
function segmenterOf(r: Pick<AnalysisRequest, 'segmentInWorker'>): SegmentThread['segment'] | undefined {
  if (!r.segmentInWorker) return undefined;
  segmentThread ??= SegmentThread.beside(bundleDir);
  const thread = segmentThread;
  return thread && ((text, granularity, opts) => thread.segment(text, granularity, opts));
}

/**
 * The document's results when the cache holds all of them for the current
 * index and model, without loading the index (a reopened draft gets them back at
 * once); undefined otherwise.
 */
export async function cachedAnalysis(
  document: string,
  options: AnalysisOptionsInput,
  r: Omit<AnalysisRequest, 'index' | 'onProgress'> & { modelKey: string; providerId?: string; queryKey?: string },
): Promise<AnalysisResult | undefined> {
  if (r.cache === false) return undefined;
  // One read of the manifest for both the health and the fingerprint (it runs as a draft opens).
  const dir = indexDir(r.workspace);
  const m = await readManifest(dir).catch(() => undefined);
  if (!m) return undefined;
  const health = await healthOf(dir, m, r.modelKey, { partial: embedsInBackground({ id: r.providerId ?? 'embedded' }) });
  if (health.state !== 'ready') return undefined;
  return cachedDocumentAnalysis(document, options, {
    ...r,
    cache: cacheOf(r),
    reranker: r.reranker && new OllamaReranker(r.reranker),
    segmenter: segmenterOf(r),
    fingerprint: m.fingerprint,
    model: r.modelKey,
    queryKey: r.queryKey,
    semantic: health.semantic,
  });
}

/** Removes the workspace's cached analyses; says how many documents had one. */
export function clearAnalysisCache(workspace: string): Promise<number> {
  return new AnalysisCache(workspace).clear();
}

function cacheOf(r: Pick<AnalysisRequest, 'workspace' | 'cache'>): AnalysisCache | false {
  return r.cache === false ? false : new AnalysisCache(r.workspace, r.cache.ttlHours * 3600 * 1000);
}

/** A citekey of the library, for completion. */
export interface CitekeyEntry {
  citekey: string;
  title: string;
  authors: string[];
  year: number | null;
}

/** A citekey ranked for a paragraph: its source's best passage there. */
export interface CitekeyHit extends CitekeyEntry {
  page: number;
  pageLabel: string | null;
  /** The best passage, an excerpt around its rarest matched words. Untrusted text. */
  passage: string;
}

/**
 * The library's citekeys most relevant to a paragraph being written, best
 * first (the engine's source ranking, keeping sources that have a key): what
 * completion offers after `[@`. At most `k`.
 */
export async function rankCitekeys(index: SearchIndex, paragraph: string, k: number, opts: { signal?: AbortSignal } = {}): Promise<CitekeyHit[]> {
  if (!paragraph.trim() || k <= 0) return [];
  const keyed = index.sources.filter((s) => s.citekey).length;
  if (keyed === 0) return [];
  // Sources without a key are skipped, so ask for more than k (all of them when few are keyed).
  const want = keyed === index.sources.length ? k : Math.min(index.sources.length, k * 3);
  const hits = await index.searchSources(paragraph, { k: want, signal: opts.signal });
  const terms = new Set(queryTerms(paragraph));
  const idf = (t: string) => index.termIdf(t);
  const out: CitekeyHit[] = [];
  for (const h of hits) {
    const s = h.sourceRecord;
    if (!s.citekey) continue;
    const best = h.passages[0];
    out.push({ citekey: s.citekey, title: s.title, authors: s.authors, year: s.year ?? null, page: best.page, pageLabel: best.pageLabel ?? null, passage: preview(best.text, terms, idf, 280) });
    if (out.length >= k) break;
  }
  return out;
}

/** Every citekey of the loaded index's sources, alphabetical. */
export function indexCitekeys(index: SearchIndex): CitekeyEntry[] {
  return sortEntries(index.sources.filter((s) => s.citekey).map((s) => ({ citekey: s.citekey!, title: s.title, authors: s.authors, year: s.year ?? null })));
}

/**
 * The entries of a Better BibTeX export (.bib or BBT JSON), alphabetical by
 * key: completion's list before the library is indexed. Entries it cannot
 * read are `warnings`; an unreadable file is `unreadable`.
 */
export async function readBibliography(file: string): Promise<{ entries: CitekeyEntry[]; warnings: string[] }> {
  let parsed: Awaited<ReturnType<typeof loadBibliography>>;
  try {
    parsed = await loadBibliography(file);
  } catch (err) {
    throw new EngineError('unreadable', `the bibliography ${file} cannot be read: ${(err as Error).message}`);
  }
  const entries = parsed.entries.map((e) => ({ citekey: e.citekey, title: e.title ?? '', authors: e.authors, year: e.year ?? null }));
  return { entries: sortEntries(entries), warnings: parsed.warnings };
}

function sortEntries(entries: CitekeyEntry[]): CitekeyEntry[] {
  return entries.sort((a, b) => a.citekey.localeCompare(b.citekey));
}

export {
  checkCitations,
  checkCitationsOffThread,
  findCitations,
  statusSeverity,
  type CheckCitationsOptions,
  type CitationCheckResult,
  type CheckedCitation,
  type CitationStatus,
  type Difference,
  type DraftCitation,
  type Locator,
} from './citations';
