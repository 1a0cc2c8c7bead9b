/**
 * Analysing a draft: the options the settings give, for each segment the sources
 * worth citing there, the cached results of a reopened draft, clearing the cache;
 * and a draft's segments on their own (the CLI's `segment`).
 */
import { analyzeDocument, cachedAnalysis as cachedDocumentAnalysis, type AnalysisResult, type AnalyzeProgress } from '../core/analysis/analyze';
import { AnalysisCache } from '../core/analysis/cache';
import type { AnalysisOptionsInput } from '../core/analysis/options';
import { healthOf } from '../core/index/health';
import { recordServerRead } from '../core/index/server/lastRead';
import type { LibraryIndex } from '../core/index/search/libraryIndex';
import { indexDir, readManifest } from '../core/index/store/manifest';
import { readLatexProject } from '../core/latex/project';
import { segmentLatexProject } from '../core/latex/projectSegments';
import { segmentLatex } from '../core/latex/segment';
import { sha256 } from '../core/util/hash';
import { segmentMarkdown, type SegmentedDocument } from '../core/markdown/segment';
import { SegmentThread } from '../core/markdown/segmentThread';
import type { DraftFormat } from '../shared/draftLanguages';
import type { Granularity, Settings } from '../shared/settings';
import { highlightsFingerprint, readHighlights } from '../core/index/store/highlights';
import { bundleDir } from './bundle';
import { rerankerFor, type RerankerConfig } from './reranker';
import { embedsInBackground, type EmbeddingProvider } from './provider';
import { serverCacheState, type LibraryServer } from './libraryServer';
import { coreIndex, type SearchIndex } from './search';
import type { SemanticProgress } from '../shared/health';

/** The settings an analysis reads its options from (`analysisOptionsOf`). */
export type AnalysisSettings = Pick<
  Settings,
  'granularity' | 'maxResults' | 'similarityThreshold' | 'sourceType' | 'collectionFilter' | 'useReranking' | 'useContextualEmbedding' | 'minWords'
>;

/**
 * The analysis options the settings give: the one mapping, so that the editor's analysis, its
 * restore from the cache (both keyed alike) and the agent tools read the same settings the same way.
 * An empty collection filter is none.
 */
export function analysisOptionsOf(s: AnalysisSettings): AnalysisOptionsInput {
  return {
    granularity: s.granularity,
    maxResults: s.maxResults,
    similarityThreshold: s.similarityThreshold,
    sourceType: s.sourceType,
    collectionFilter: s.collectionFilter.length ? s.collectionFilter : null,
    useReranking: s.useReranking,
    useContextualEmbedding: s.useContextualEmbedding,
    minWords: s.minWords,
  };
}

/**
 * A draft's segments as an analysis cuts them, by the parser of its format (in this thread). A LaTeX
 * draft with its path (`draftPath`, in `workspace`) brings those of the files it `\input`s, each
 * with its file.
 */
export function segmentDraft(
  text: string,
  format: DraftFormat,
  granularity: Granularity,
  opts: { minWords?: number; draftPath?: string; workspace?: string } = {},
): Promise<SegmentedDocument> {
  if (format === 'latex' && opts.draftPath && opts.workspace)
    return segmentLatexProject(readLatexProject(opts.draftPath, text, opts.workspace), granularity, { minWords: opts.minWords });
  return (format === 'latex' ? segmentLatex : segmentMarkdown)(text, granularity, { minWords: opts.minWords });
}

/**
 * A LaTeX draft's project (the files it `\input`s, read once), as the analysis segments it: the
 * segmenter, and the hash of every file's text that keys its cached segmentation.
 */
function latexProjectOf(
  r: Pick<AnalysisRequest, 'draftPath' | 'workspace' | 'format'>,
  text: string,
): { segmenter: typeof segmentMarkdown; hash: string } | undefined {
  if (r.format !== 'latex' || !r.draftPath) return undefined;
  const project = readLatexProject(r.draftPath, text, r.workspace);
  if (project.files.length < 2 && !project.warnings.length) return undefined;
  return {
    segmenter: (_text, granularity, opts) => segmentLatexProject(project, granularity, opts),
    hash: sha256(project.files.map((f) => `${f.name}\0${f.text}`).join('\0')),
  };
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
  /** What reranks when the options ask for it: a local cross-encoder when one is set, else the Ollama model (when reachable). */
  reranker?: RerankerConfig;
  citationTemplate?: string;
  /**
   * Segment the draft in a worker thread (the extension: remark never holds the extension host,
   * whatever the draft's size); in this thread otherwise, or where the bundle has no worker file.
   */
  segmentInWorker?: boolean;
  /** How the draft is written: Markdown (Quarto and R Markdown too; the default) or LaTeX (segmented in this thread). */
  format?: 'markdown' | 'latex';
  /** The draft's file: a LaTeX draft's `\input` files are segmented with it (each segment names its file). */
  draftPath?: string;
  signal?: AbortSignal;
  onProgress?: (p: AnalyzeProgress) => void;
  /** Log lines; 'debug' ones are details a terminal need not print (an optional service not found). */
  log?: (line: string, level?: 'info' | 'debug') => void;
}

/** What restoring a draft's results from the cache needs: the request without an index, and the model that would answer. */
export type CachedAnalysisRequest = Omit<AnalysisRequest, 'index' | 'onProgress'> & {
  /** A lab's library server the library is read from (the cache is then keyed by the generation last read here). */
  server?: LibraryServer;
};

/**
 * For each segment of a Markdown document, the library sources worth citing
 * there. Unchanged segments come from the cache; a cancel (`cancelled`) caches
 * nothing; an index that cannot answer is `index-not-ready`, never "no result".
 */
export async function analyze(document: string, options: AnalysisOptionsInput, r: AnalysisRequest): Promise<AnalysisResult> {
  const { index } = r;
  let used: LibraryIndex | undefined;
  const project = latexProjectOf(r, document);
  const result = await analyzeDocument(document, options, {
    ...r,
    index: typeof index === 'function' ? async () => (used = coreIndex(await index())) : (used = coreIndex(index)),
    cache: cacheOf(r),
    reranker: await rerankerFor(r.reranker),
    segmenter: project?.segmenter ?? segmenterOf(r),
    ...(project ? { documentHash: project.hash } : {}),
  });
  // Results cached from a library server's generation: the record that serves them while it is out of reach
  // (cachedAnalysis). A workspace that cannot be written to loses only that: the analysis is done.
  if (r.cache !== false && used?.serverName && used.generation !== undefined)
    await recordServerRead(r.workspace, { server: used.serverName, model: result.model, generation: used.generation, fingerprint: result.fingerprint }).catch(
      () => undefined,
    );
  return result;
}

let segmentThread: SegmentThread | undefined;

/** The worker's segmentation when asked for and bundled, else undefined (this thread's). */
function segmenterOf(r: Pick<AnalysisRequest, 'segmentInWorker' | 'format'>): SegmentThread['segment'] | undefined {
  if (r.format === 'latex') return segmentLatex;
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
  r: CachedAnalysisRequest,
  provider: Pick<EmbeddingProvider, 'id' | 'key' | 'queryKey'>,
): Promise<AnalysisResult | undefined> {
  if (r.cache === false) return undefined;
  const state = r.server ? await serverCacheState(r.workspace, r.server, provider.key) : await localCacheState(r.workspace, provider);
  if (!state) return undefined;
  const project = latexProjectOf(r, document);
  return cachedDocumentAnalysis(document, options, {
    ...r,
    cache: cacheOf(r),
    reranker: await rerankerFor(r.reranker),
    segmenter: project?.segmenter ?? segmenterOf(r),
    ...(project ? { documentHash: project.hash } : {}),
    fingerprint: state.fingerprint,
    model: provider.key,
    queryKey: provider.queryKey,
    semantic: state.semantic,
  });
}

/** The workspace index's fingerprint, when it is ready for the model. */
async function localCacheState(
  workspace: string,
  provider: Pick<EmbeddingProvider, 'id' | 'key'>,
): Promise<{ fingerprint: string; semantic?: SemanticProgress } | undefined> {
  // One read of the manifest for both the health and the fingerprint (it runs as a draft opens).
  const dir = indexDir(workspace);
  const m = await readManifest(dir).catch(() => undefined);
  if (!m) return undefined;
  const health = await healthOf(dir, m, provider.key, { partial: embedsInBackground(provider) });
  if (health.state !== 'ready') return undefined;
  // With the Zotero highlights' stamp, as the loaded index's fingerprint (they change rankings and cards).
  return { fingerprint: highlightsFingerprint(m.fingerprint, (await readHighlights(dir)).stamp), semantic: health.semantic };
}

/** Removes the workspace's cached analyses; says how many documents had one. */
export function clearAnalysisCache(workspace: string): Promise<number> {
  return new AnalysisCache(workspace).clear();
}

function cacheOf(r: Pick<AnalysisRequest, 'workspace' | 'cache'>): AnalysisCache | false {
  return r.cache === false ? false : new AnalysisCache(r.workspace, r.cache.ttlHours * 3600 * 1000);
}
