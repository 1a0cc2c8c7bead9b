/**
 * The heart of the product: for each segment of a Markdown draft, the library
 * sources worth citing there. One card per source (best passage first, up to
 * two more), near-duplicates across sources collapsed, a calibrated similarity
 * that the threshold applies to, optional LLM reranking, already-cited flags.
 * Data flows one way: document → segments → queries → passages → sources.
 */
import type { SemanticProgress } from '../../shared/health';
import { EngineError } from '../../shared/errors';
import { zoteroMeta, type Recommendation, type SegmentStatus } from '../../shared/results';
import { present, SOURCE_FIELDS } from '../../shared/nulls';
import { formatPassageCitation, DEFAULT_CITATION_TEMPLATE } from '../../shared/citation';
import type { LibraryIndex, SearchHit } from '../index/search/libraryIndex';
import { loadMarkdownParser } from '../markdown/parse';
import { segmentMarkdown, type Segment } from '../markdown/segment';
import { citedKeys } from '../markdown/plainText';
import { queryTerms } from '../retrieval/representation';
import { languageOf } from '../text/tokenize';
import { sha256 } from '../util/hash';
import { AnalysisCache, segmentCacheKey, type CachedSegment } from './cache';
import { bandOf, bandsFor, type Band, type BandCuts } from '../../shared/bands';
import { optionsKey, resolveOptions, type AnalysisOptions, type AnalysisOptionsInput, type RerankMode } from './options';
import type { Reranker } from './rerank';
import { calibratedSimilarity, evidenceOf } from './similarity';
import { preview, wordsToHighlight } from './preview';

export interface SegmentResult extends Segment {
  status: SegmentStatus;
  fromCache: boolean;
  recommendations: Recommendation[];
}

export interface AnalysisResult {
  fromCache: boolean;
  documentTitle: string | null;
  fingerprint: string;
  model: string;
  options: AnalysisOptions;
  segments: SegmentResult[];
  /**
   * `mode`: the option; `requested`: the user asked for it ('on');
   * `note`: why reranking the user asked for did not run, to show;
   * `hint`: how to get it, when 'auto' found no reranker (a quiet hint, never a warning).
   */
  reranking: { mode: RerankMode; requested: boolean; used: boolean; note?: string; hint?: string };
  stats: { segments: number; segmentsAnalyzed: number; segmentsFromCache: number; ms: number };
  /**
   * Set when the model's vectors were still being computed: only `embedded` of the
   * `total` passages could match by meaning, the others by their words only.
   */
  semantic?: SemanticProgress;
}

export interface AnalyzeProgress {
  /** 1-based index of the segment being analysed, among those that need analysing. */
  current: number;
  total: number;
  segment: Segment;
}

export interface AnalyzeContext {
  /** The loaded index, or a loader (called once). */
  index: LibraryIndex | (() => Promise<LibraryIndex>);
  workspace: string;
  /** Where the document lives (cache file name); any stable string. */
  documentPath?: string;
  reranker?: Reranker;
  cache?: AnalysisCache | false;
  citationTemplate?: string;
  /** How the draft is segmented: in this thread by default, or a worker's (SegmentThread). */
  segmenter?: typeof segmentMarkdown;
  /** What keys the draft's cached segmentation, when more than its text decides it (a LaTeX project's \input files); default its hash. */
  documentHash?: string;
  onProgress?: (p: AnalyzeProgress) => void;
  signal?: AbortSignal;
  /** Log lines; 'debug' ones are details a terminal need not print (e.g. an optional service not found). */
  log?: (line: string, level?: 'info' | 'debug') => void;
}

/** A cancelled analysis (code `cancelled`): nothing of it is cached. */
function cancelled(): EngineError {
  return new EngineError('cancelled', 'analysis cancelled');
}

/** Near-duplicate passages from different sources (seed 003). */
const DUPLICATE_COSINE = 0.9;
const CANDIDATE_PASSAGES = 60;
const RERANK_TOP = 10;
const PASSAGES_PER_CARD = 3;
/** Segments searched together: one embedding call, one pass of the 8-query SIMD scan. */
const SEARCH_BATCH = 8;

export async function analyzeDocument(document: string, partialOptions: AnalysisOptionsInput, ctx: AnalyzeContext): Promise<AnalysisResult> {
  const started = Date.now();
  // The Markdown parser's modules load while the index does (a first analysis in a fresh process).
  if (!ctx.segmenter) loadMarkdownParser().catch(() => undefined);
  const index = await loadIndex(ctx);
  return (await analyzeOrRestore(
    document,
    partialOptions,
    ctx,
    { index, fingerprint: index.fingerprint, model: index.provider.key, queryKey: index.provider.queryKey, semantic: index.semantic },
    started,
  ))!;
}

/**
 * The document's results when the cache holds all of them, without loading the
 * index (results come back at once when a document is reopened); undefined
 * otherwise. `fingerprint` and `model` are the current index's (its manifest)
 * and provider's (`queryKey`: its key with the query prefix, when it has one): a cache
 * written for another index state or query prefix does not count.
 */
export function cachedAnalysis(
  document: string,
  partialOptions: AnalysisOptionsInput,
  ctx: Omit<AnalyzeContext, 'index' | 'onProgress'> & { fingerprint: string; model: string; queryKey?: string; semantic?: SemanticProgress },
): Promise<AnalysisResult | undefined> {
  return analyzeOrRestore(
    document,
    partialOptions,
    ctx,
    { fingerprint: ctx.fingerprint, model: ctx.model, queryKey: ctx.queryKey, semantic: ctx.semantic },
    Date.now(),
  );
}

/** Both of the above: without an index, only a complete cache hit gives a result. */
async function analyzeOrRestore(
  document: string,
  partialOptions: AnalysisOptionsInput,
  ctx: Omit<AnalyzeContext, 'index'>,
  from: { index?: LibraryIndex; fingerprint: string; model: string; queryKey?: string; semantic?: SemanticProgress },
  started: number,
): Promise<AnalysisResult | undefined> {
  const options = resolveOptions(partialOptions);
  const log = ctx.log ?? (() => undefined);

  const { reranker, note: rerankNote, hint: rerankHint } = await chooseReranker(options.useReranking, ctx, log, !from.index);

  const cache = ctx.cache === false ? undefined : (ctx.cache ?? new AnalysisCache(ctx.workspace));
  const docKey = ctx.documentPath ?? 'untitled';
  const key = {
    // A LaTeX project's segmentation depends on the files it reads too (engine/analysis.ts gives their hash).
    docHash: ctx.documentHash ?? sha256(document),
    fingerprint: from.fingerprint,
    // The same passages with more of their vectors give other results: a result made while the
    // model's vectors were being computed is not served once more of them are there.
    // The query prefix changes the query vectors (queryKey), the passage prefix the model's key.
    model: from.semantic ? `${from.queryKey ?? from.model}@${from.semantic.embedded}/${from.semantic.total}` : (from.queryKey ?? from.model),
    options: optionsKey(options),
    reranker: reranker ? reranker.description : 'none',
  };
  const cached = cache ? await cache.load(docKey, key, log) : undefined;
  const template = ctx.citationTemplate ?? DEFAULT_CITATION_TEMPLATE;
  const index = from.index;
  if (!index && !(cached?.complete && cached.layout)) return undefined;
  // An unchanged document keeps its segmentation: no Markdown parse on a cache hit.
  const segment = ctx.segmenter ?? segmentMarkdown;
  const layout = cached?.layout ?? (await segment(document, options.granularity, { minWords: options.minWords }));
  const { title, segments } = layout;
  // Parts of the draft read otherwise than as Markdown (issue 28), each with its line.
  if (!cached?.layout) for (const w of (layout as { warnings?: string[] }).warnings ?? []) log(`draft: ${w}`);

  const contextOf = (s: Segment) => (options.useContextualEmbedding ? contextualText(title, s) : s.query);
  // Each searchable segment's cache key, hashed once for the lookup and the save below.
  const keyOf = new Map(segments.filter((s) => s.searchable).map((s) => [s, segmentCacheKey(s, contextOf(s))]));
  const toAnalyze = segments.filter((s) => s.searchable && !cached?.segments[keyOf.get(s)!]);
  if (toAnalyze.length && !index) throw new Error('analysis without an index'); // unreachable: a complete cache hit leaves nothing to analyse
  const filter = { sourceType: options.sourceType, collections: options.collectionFilter ?? undefined };
  const analyzed = new Map<Segment, CachedSegment>();
  let current = 0;
  // In batches: one embedding call and one pass over the vectors serve several
  // segments; progress and cancellation stay per segment.
  for (let b = 0; b < toAnalyze.length; b += SEARCH_BATCH) {
    if (ctx.signal?.aborted) throw cancelled();
    const batch = toAnalyze.slice(b, b + SEARCH_BATCH);
    const hits = await cancellable(ctx, () =>
      index!.searchMany(
        batch.map((s) => ({ text: s.query, vectorText: contextOf(s) })),
        { k: CANDIDATE_PASSAGES, filter, signal: ctx.signal },
      ),
    );
    for (const [i, s] of batch.entries()) {
      if (ctx.signal?.aborted) throw cancelled();
      current++;
      ctx.onProgress?.({ current, total: toAnalyze.length, segment: s });
      const recs = await cancellable(ctx, () => recommend(index!, s, hits[i], options, reranker, ctx, log));
      if (ctx.signal?.aborted) throw cancelled();
      analyzed.set(s, { recommendations: recs, at: Date.now() });
    }
  }

  // Results (and the cache entries) in document order.
  const results: SegmentResult[] = [];
  const fresh: Record<string, CachedSegment> = {};
  let fromCache = 0;
  for (const s of segments) {
    if (!s.searchable) {
      results.push({ ...s, status: 'too-short', fromCache: false, recommendations: [] });
      continue;
    }
    const segKey = keyOf.get(s)!;
    const done = analyzed.get(s);
    if (done) {
      fresh[segKey] = done;
      results.push({ ...s, status: 'analysed', fromCache: false, recommendations: withCitations(done.recommendations, s, template, bandsFor(from.model)) });
      continue;
    }
    const hit = cached!.segments[segKey];
    fromCache++;
    fresh[segKey] = hit;
    results.push({ ...s, status: 'analysed', fromCache: true, recommendations: withCitations(hit.recommendations, s, template, bandsFor(from.model)) });
  }
  const allFromCache = current === 0 && (cached?.complete ?? false);
  if (cache && current > 0) await cache.save(docKey, key, fresh, log, layout);
  else if (cache && (!cached?.complete || !cached.layout) && segments.length) await cache.save(docKey, key, fresh, log, layout);

  return {
    fromCache: allFromCache,
    documentTitle: title ?? null,
    fingerprint: from.fingerprint,
    model: from.model,
    options,
    segments: results,
    reranking: {
      mode: options.useReranking,
      requested: options.useReranking === 'on',
      used: !!reranker,
      ...(rerankNote ? { note: rerankNote } : {}),
      ...(rerankHint ? { hint: rerankHint } : {}),
    },
    stats: { segments: segments.length, segmentsAnalyzed: current, segmentsFromCache: fromCache, ms: Date.now() - started },
    ...(from.semantic ? { semantic: from.semantic } : {}),
  };
}

/**
 * Reranking is an optional service. 'auto': used when a reranker is configured
 * and reachable, otherwise not, quietly (one debug log line and a hint in the
 * result). 'on': the user asked for it, so a note says why it did not run.
 */
async function chooseReranker(
  mode: AnalysisOptions['useReranking'],
  ctx: { reranker?: Reranker; signal?: AbortSignal },
  log: (line: string, level?: 'info' | 'debug') => void,
  /** Only the cache is read: a local model is not loaded to key it (the analysis that wrote it did). */
  cacheOnly = false,
): Promise<{ reranker?: Reranker; note?: string; hint?: string }> {
  if (mode === 'off') return {};
  const r = ctx.reranker;
  const why = !r ? 'no LLM is configured' : cacheOnly && r.unavailableBeforeLoading ? r.unavailableBeforeLoading() : await r.unavailable(ctx.signal);
  if (!why) return { reranker: r };
  if (mode === 'on') {
    const note = `reranking skipped: ${why}; retrieval order kept`;
    log(note);
    return { note };
  }
  log(`reranking (auto) not used: ${why}`, 'debug');
  return {
    hint: !r
      ? 'LLM reranking needs an LLM (Ollama)'
      : r.kind === 'cross-encoder'
        ? `reranking is available once ${r.description} can be loaded (${why})`
        : `LLM reranking is available when ${r.description} is reachable`,
  };
}

/** Whatever failed because of a cancel (an aborted embedding, say) is a cancel. */
async function cancellable<T>(ctx: { signal?: AbortSignal }, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (ctx.signal?.aborted) throw cancelled();
    throw err;
  }
}

/** The index, loaded if need be. One that cannot serve throws `index-not-ready` with its health. */
async function loadIndex(ctx: AnalyzeContext): Promise<LibraryIndex> {
  return typeof ctx.index === 'function' ? ctx.index() : ctx.index;
}

/** The query embedded with its context: document title and heading path. */
export function contextualText(docTitle: string | undefined, s: Segment): string {
  const context = [docTitle, ...s.headingPath].filter((x, i, a) => x && a.indexOf(x) === i);
  return context.length ? `${context.join(' — ')}\n${s.query}` : s.query;
}

/** The cards for one segment, from its candidate passages (index.search/searchMany). */
async function recommend(
  index: LibraryIndex,
  s: Segment,
  hits: SearchHit[],
  o: AnalysisOptions,
  reranker: Reranker | undefined,
  ctx: { signal?: AbortSignal },
  log: (l: string) => void,
): Promise<Recommendation[]> {
  type Scored = SearchHit & { similarity: number };
  const evidence = evidenceOf(hits, index.overlap(s.query));
  const scored: Scored[] = hits.map((h, i) => ({ ...h, similarity: calibratedSimilarity(evidence[i], index.provider.key) }));

  // Collapse near-identical passages of different sources onto the higher-ranked one.
  const kept: Scored[] = [];
  const duplicatesOf = new Map<Scored, Set<string>>();
  for (const h of scored) {
    const twin = kept.find((k) => k.source !== h.source && index.passageCosine(k.row, h.row) >= DUPLICATE_COSINE);
    if (twin) {
      const set = duplicatesOf.get(twin) ?? new Set();
      set.add(h.sourceRecord.title);
      duplicatesOf.set(twin, set);
      continue;
    }
    kept.push(h);
  }

  // One card per source, in the order of its best passage.
  const cards = new Map<number, Scored[]>();
  for (const h of kept) {
    const list = cards.get(h.source);
    if (!list) cards.set(h.source, [h]);
    else if (list.length < PASSAGES_PER_CARD) list.push(h);
  }
  const cited = citedKeys(s.text);
  const segmentLanguage = languageOf(s.query);
  const terms = new Set(queryTerms(s.query));
  const idf = (t: string) => index.termIdf(t);
  // Sorted by similarity: it takes the retrieval rank into account and ranked as well as the
  // retrieval order on held-out paragraphs (scripts/calibrate-bands.ts); ties keep retrieval order.
  let recs: Recommendation[] = [...cards.values()]
    .sort((a, b) => b[0].similarity - a[0].similarity)
    .filter((ps) => ps[0].similarity >= o.similarityThreshold)
    // One card per work: the PDFs of one Zotero item (or one export entry) share its citekey, and the
    // card shows the one whose passage matched best.
    .filter(firstOfEachKey())
    // Only cards that can be shown get previews and highlights (the reranker sees its top ones).
    .slice(0, reranker ? Math.max(o.maxResults, RERANK_TOP) : o.maxResults)
    .map((ps) => {
      const best = ps[0];
      const r = best.sourceRecord;
      const dups = new Set<string>();
      for (const p of ps) for (const d of duplicatesOf.get(p) ?? []) dups.add(d);
      const prev = preview(best.text, terms, idf);
      const language = languageOf(best.text);
      return {
        sourceId: r.id,
        ...present(r, SOURCE_FIELDS),
        sourceType: r.sourceType,
        page: best.page,
        pageLabel: best.pageLabel ?? null,
        ...(best.endPage > best.page ? { endPage: best.endPage } : {}),
        similarity: best.similarity,
        band: bandOf(best.similarity, bandsFor(index.provider.key)),
        reranked: false,
        alreadyCited: !!r.citekey && cited.has(r.citekey),
        preview: prev,
        highlights: wordsToHighlight(prev, terms, idf),
        citation: '',
        passages: ps.map((p) => ({
          page: p.page,
          pageLabel: p.pageLabel ?? null,
          ...(p.endPage > p.page ? { endPage: p.endPage } : {}),
          heading: p.heading ?? null,
          similarity: p.similarity,
          preview: preview(p.text, terms, idf),
          ...(p.ocr ? { ocr: true as const } : {}),
        })),
        duplicates: [...dups],
        ...(best.ocr ? { ocr: true as const } : {}),
        // Only when it differs from the segment's: an English paragraph finding a French passage, or the reverse.
        ...(language && segmentLanguage && language !== segmentLanguage ? { language } : {}),
        // The user highlighted the best passage in Zotero (core/zotero/highlights.ts).
        ...(best.highlight ? { highlight: { ...best.highlight } } : {}),
        ...zoteroMeta(r),
      };
    });

  if (reranker && recs.length > 1) {
    const top = recs.slice(0, RERANK_TOP);
    try {
      // The LLM reads each card's best passage whole; results (and the cache) keep only excerpts.
      const bestText = new Map([...cards.values()].map((ps) => [ps[0].sourceRecord.id, ps[0].text]));
      const order = await reranker.rerank(
        s.query,
        top.map((r) => ({ id: r.sourceId, text: `${r.title}: ${bestText.get(r.sourceId) ?? r.preview}` })),
        ctx.signal,
      );
      const byId = new Map(top.map((r) => [r.sourceId, r]));
      const reordered = order.map((id) => byId.get(id)!).filter(Boolean);
      for (const r of reordered) r.reranked = true;
      recs = agreeingWithOrder([...reordered, ...recs.slice(RERANK_TOP)], bandsFor(index.provider.key));
    } catch (err) {
      if (ctx.signal?.aborted) throw cancelled();
      log(`reranking failed for segment ${s.id} (${(err as Error).message}); retrieval order kept`);
    }
  }
  return recs.slice(0, o.maxResults);
}

/**
 * After the LLM reordered the cards, the similarity shown is made to agree with
 * its order: the closest non-increasing sequence (pool adjacent violators), so
 * a card is never shown above a stronger one and the numbers stay near the evidence.
 */
export function agreeingWithOrder<T extends { similarity: number; band: Band }>(recs: T[], cuts?: Readonly<BandCuts>): T[] {
  const blocks: Array<{ sum: number; n: number }> = [];
  for (const r of recs) {
    blocks.push({ sum: r.similarity, n: 1 });
    while (blocks.length > 1) {
      const [a, b] = blocks.slice(-2);
      if (a.sum / a.n >= b.sum / b.n) break;
      blocks.pop();
      a.sum += b.sum;
      a.n += b.n;
    }
  }
  const values = blocks.flatMap((b) => new Array<number>(b.n).fill(Math.round((b.sum / b.n) * 1000) / 1000));
  return recs.map((r, i) => (r.similarity === values[i] ? r : { ...r, similarity: values[i], band: bandOf(values[i], cuts) }));
}

function withCitations(recs: Recommendation[], s: Segment, template: string, cuts: Readonly<BandCuts>): Recommendation[] {
  const cited = citedKeys(s.text);
  return recs.map((r) => ({
    ...r,
    band: bandOf(r.similarity, cuts),
    alreadyCited: !!r.citekey && cited.has(r.citekey),
    citation: formatPassageCitation(
      { citekey: r.citekey ?? undefined, title: r.title, authors: r.authors, year: r.year ?? undefined, path: r.path },
      { page: r.page, pageLabel: r.pageLabel ?? undefined, endPage: r.endPage },
      template,
    ),
  }));
}

/** Keeps the first card of each citekey (cards without one are all kept). */
function firstOfEachKey(): (ps: { sourceRecord: { citekey?: string } }[]) => boolean {
  const seen = new Set<string>();
  return (ps) => {
    const key = ps[0].sourceRecord.citekey;
    if (!key) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}
