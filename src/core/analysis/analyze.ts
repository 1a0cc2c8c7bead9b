/**
 * The heart of the product: for each segment of a Markdown draft, the library
 * sources worth citing there. One card per source (best passage first, up to
 * two more), near-duplicates across sources collapsed, a calibrated similarity
 * that the threshold applies to, optional LLM reranking, already-cited flags.
 * Data flows one way: document → segments → queries → passages → sources.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { formatCitation, DEFAULT_CITATION_TEMPLATE } from '../citation/format';
import { IndexCorruptError, IndexMissingError, indexDir } from '../index/manifest';
import type { LibraryIndex, SearchHit } from '../index/libraryIndex';
import { loadMarkdownParser } from '../markdown/parse';
import { segmentMarkdown, type Segment } from '../markdown/segment';
import { citedKeys } from '../markdown/plainText';
import { queryTerms } from '../retrieval/representation';
import { stem, detectLanguage, foldText } from '../text/tokenize';
import { sha256 } from '../util/atomicWrite';
import { AnalysisCache, segmentCacheKey, type CachedSegment } from './cache';
import { optionsKey, resolveOptions, type AnalysisOptions } from './options';
import type { Reranker } from './rerank';
import { calibratedSimilarity } from './similarity';

export interface PassageResult {
  page: number;
  pageLabel: string | null;
  heading: string | null;
  similarity: number;
  /** An excerpt around the matched words (the whole passage is in the index: search). */
  preview: string;
  /** The passage's text comes from OCR (check the quotation against the page). */
  ocr?: true;
}

export interface Recommendation {
  sourceId: string;
  path: string;
  title: string;
  authors: string[];
  year: number | null;
  citekey: string | null;
  sourceType: 'primary' | 'secondary';
  page: number;
  pageLabel: string | null;
  similarity: number;
  reranked: boolean;
  alreadyCited: boolean;
  preview: string;
  /** Words of the preview that match the query (for highlighting). */
  highlights: string[];
  citation: string;
  passages: PassageResult[];
  /** Other sources whose near-identical passage was folded into this card. */
  duplicates: string[];
  /** The best passage's text comes from OCR of a scanned page (a card says "text from OCR"). */
  ocr?: true;
}

export interface SegmentResult extends Segment {
  status: 'analysed' | 'too-short';
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
  reranking: { requested: boolean; used: boolean; note?: string };
  warnings: string[];
  stats: { segments: number; segmentsAnalyzed: number; segmentsFromCache: number; ms: number };
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
  onProgress?: (p: AnalyzeProgress) => void;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/** Thrown when the index cannot answer: never reported as "no similar source". */
export class IndexNotReadyError extends Error {
  constructor(
    message: string,
    readonly state: 'missing' | 'building' | 'corrupt' | 'incomplete',
  ) {
    super(message);
    this.name = 'IndexNotReadyError';
  }
}

export class AnalysisCancelledError extends Error {
  constructor() {
    super('analysis cancelled');
    this.name = 'AbortError';
  }
}

/** Near-duplicate passages from different sources (seed 003). */
const DUPLICATE_COSINE = 0.9;
const CANDIDATE_PASSAGES = 60;
const RERANK_TOP = 10;
const PASSAGES_PER_CARD = 3;
/** Segments searched together: one embedding call, one pass of the 8-query SIMD scan. */
const SEARCH_BATCH = 8;

export async function analyzeDocument(document: string, partialOptions: Partial<AnalysisOptions>, ctx: AnalyzeContext): Promise<AnalysisResult> {
  const started = Date.now();
  // The Markdown parser's modules load while the index does (a first analysis in a fresh process).
  loadMarkdownParser().catch(() => undefined);
  const index = await loadIndex(ctx);
  return (await analyse(document, partialOptions, ctx, { index, fingerprint: index.fingerprint, model: index.provider.key }, started))!;
}

/**
 * The document's results when the cache holds all of them, without loading the
 * index (results come back at once when a document is reopened); undefined
 * otherwise. `fingerprint` and `model` are the current index's (its manifest)
 * and provider's: a cache written for another index state does not count.
 */
export function cachedAnalysis(
  document: string,
  partialOptions: Partial<AnalysisOptions>,
  ctx: Omit<AnalyzeContext, 'index' | 'onProgress'> & { fingerprint: string; model: string },
): Promise<AnalysisResult | undefined> {
  return analyse(document, partialOptions, ctx, { fingerprint: ctx.fingerprint, model: ctx.model }, Date.now());
}

/** Both of the above: without an index, only a complete cache hit gives a result. */
async function analyse(
  document: string,
  partialOptions: Partial<AnalysisOptions>,
  ctx: Omit<AnalyzeContext, 'index'>,
  from: { index?: LibraryIndex; fingerprint: string; model: string },
  started: number,
): Promise<AnalysisResult | undefined> {
  const options = resolveOptions(partialOptions);
  const log = ctx.log ?? (() => undefined);
  const warnings: string[] = [];

  let rerankNote: string | undefined;
  let reranker: Reranker | undefined;
  if (options.useReranking) {
    if (!ctx.reranker) rerankNote = 'reranking requested but no LLM is configured; retrieval order kept';
    else {
      rerankNote = await ctx.reranker.unavailable(ctx.signal);
      if (rerankNote) rerankNote = `reranking skipped: ${rerankNote}`;
      else reranker = ctx.reranker;
    }
    if (rerankNote) log(rerankNote);
  }

  const cache = ctx.cache === false ? undefined : (ctx.cache ?? new AnalysisCache(ctx.workspace));
  const docKey = ctx.documentPath ?? 'untitled';
  const key = {
    docHash: sha256(document),
    fingerprint: from.fingerprint,
    model: from.model,
    options: optionsKey(options),
    reranker: reranker ? reranker.description : 'none',
  };
  const cached = cache ? await cache.load(docKey, key, log) : undefined;
  const template = ctx.citationTemplate ?? DEFAULT_CITATION_TEMPLATE;
  const index = from.index;
  if (!index && !(cached?.complete && cached.layout)) return undefined;
  // An unchanged document keeps its segmentation: no Markdown parse on a cache hit.
  const layout = cached?.layout ?? (await segmentMarkdown(document, options.granularity, { minWords: options.minWords }));
  const { title, segments } = layout;

  const contextOf = (s: Segment) => (options.useContextualEmbedding ? contextualText(title, s) : s.query);
  // Each searchable segment's cache key, hashed once for the lookup and the save below.
  const keyOf = new Map(segments.filter((s) => s.searchable).map((s) => [s, segmentCacheKey(s, contextOf(s))]));
  const toAnalyse = segments.filter((s) => s.searchable && !cached?.segments[keyOf.get(s)!]);
  if (toAnalyse.length && !index) throw new Error('analysis without an index'); // unreachable: a complete cache hit leaves nothing to analyse
  const filter = { sourceType: options.sourceType, collections: options.collectionFilter ?? undefined };
  const analysed = new Map<Segment, CachedSegment>();
  let current = 0;
  // In batches: one embedding call and one pass over the vectors serve several
  // segments; progress and cancellation stay per segment.
  for (let b = 0; b < toAnalyse.length; b += SEARCH_BATCH) {
    if (ctx.signal?.aborted) throw new AnalysisCancelledError();
    const batch = toAnalyse.slice(b, b + SEARCH_BATCH);
    const hits = await cancellable(ctx, () =>
      index!.searchMany(batch.map((s) => ({ text: s.query, vectorText: contextOf(s) })), { k: CANDIDATE_PASSAGES, filter, signal: ctx.signal }),
    );
    for (const [i, s] of batch.entries()) {
      if (ctx.signal?.aborted) throw new AnalysisCancelledError();
      current++;
      ctx.onProgress?.({ current, total: toAnalyse.length, segment: s });
      const recs = await cancellable(ctx, () => recommend(index!, s, hits[i], options, reranker, ctx, log));
      if (ctx.signal?.aborted) throw new AnalysisCancelledError();
      analysed.set(s, { recommendations: recs, at: Date.now() });
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
    const done = analysed.get(s);
    if (done) {
      fresh[segKey] = done;
      results.push({ ...s, status: 'analysed', fromCache: false, recommendations: withCitations(done.recommendations, s, template) });
      continue;
    }
    const hit = cached!.segments[segKey];
    fromCache++;
    fresh[segKey] = hit;
    results.push({ ...s, status: 'analysed', fromCache: true, recommendations: withCitations(hit.recommendations, s, template) });
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
    reranking: { requested: options.useReranking, used: !!reranker, note: rerankNote },
    warnings,
    stats: { segments: segments.length, segmentsAnalyzed: current, segmentsFromCache: fromCache, ms: Date.now() - started },
  };
}

/** Whatever failed because of a cancel (an aborted embedding, say) is a cancel. */
async function cancellable<T>(ctx: { signal?: AbortSignal }, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (ctx.signal?.aborted) throw new AnalysisCancelledError();
    throw err;
  }
}

async function loadIndex(ctx: AnalyzeContext): Promise<LibraryIndex> {
  if (typeof ctx.index !== 'function') return ctx.index;
  try {
    return await ctx.index();
  } catch (err) {
    const dir = indexDir(ctx.workspace);
    if (err instanceof IndexCorruptError) throw new IndexNotReadyError(`The library index is damaged: ${err.message}. Rebuild it (index command).`, 'corrupt');
    if (err instanceof IndexMissingError) {
      const building = await fs.stat(path.join(dir, 'index.lock')).then(() => true, () => false);
      if (building) throw new IndexNotReadyError('The library is being indexed; try again when indexing has finished.', 'building');
      const incomplete = /not complete|no vectors/.test(err.message);
      throw new IndexNotReadyError(err.message, incomplete ? 'incomplete' : 'missing');
    }
    throw err;
  }
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
  const overlap = index.overlap(s.query);
  const scored: Scored[] = hits.map((h) => {
    const o = overlap.of(h.row);
    const similarity = calibratedSimilarity({ standout: h.standout, queryCoverage: o.query, passageCoverage: o.doc, queryTerms: overlap.terms }, index.provider.key);
    return { ...h, similarity };
  });

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
  const terms = new Set(queryTerms(s.query));
  let recs: Recommendation[] = [...cards.values()]
    .filter((ps) => ps[0].similarity >= o.similarityThreshold)
    .map((ps) => {
      const best = ps[0];
      const r = best.sourceRecord;
      const dups = new Set<string>();
      for (const p of ps) for (const d of duplicatesOf.get(p) ?? []) dups.add(d);
      const prev = preview(best.text, terms);
      return {
        sourceId: r.id,
        path: r.path,
        title: r.title,
        authors: r.authors,
        year: r.year ?? null,
        citekey: r.citekey ?? null,
        sourceType: r.sourceType,
        page: best.page,
        pageLabel: best.pageLabel ?? null,
        similarity: best.similarity,
        reranked: false,
        alreadyCited: !!r.citekey && cited.has(r.citekey),
        preview: prev,
        highlights: matchedWords(prev, terms),
        citation: '',
        passages: ps.map((p) => ({ page: p.page, pageLabel: p.pageLabel ?? null, heading: p.heading ?? null, similarity: p.similarity, preview: preview(p.text, terms), ...(p.ocr ? { ocr: true as const } : {}) })),
        duplicates: [...dups],
        ...(best.ocr ? { ocr: true as const } : {}),
      };
    });

  if (reranker && recs.length > 1) {
    const top = recs.slice(0, RERANK_TOP);
    try {
      // The LLM reads each card's best passage whole; results (and the cache) keep only excerpts.
      const bestText = new Map([...cards.values()].map((ps) => [ps[0].sourceRecord.id, ps[0].text]));
      const order = await reranker.rerank(s.query, top.map((r) => ({ id: r.sourceId, text: `${r.title}: ${bestText.get(r.sourceId) ?? r.preview}` })), ctx.signal);
      const byId = new Map(top.map((r) => [r.sourceId, r]));
      const reordered = order.map((id) => byId.get(id)!).filter(Boolean);
      for (const r of reordered) r.reranked = true;
      recs = [...reordered, ...recs.slice(RERANK_TOP)];
    } catch (err) {
      if (ctx.signal?.aborted) throw new AnalysisCancelledError();
      log(`reranking failed for segment ${s.id} (${(err as Error).message}); retrieval order kept`);
    }
  }
  return recs.slice(0, o.maxResults);
}

function withCitations(recs: Recommendation[], s: Segment, template: string): Recommendation[] {
  const cited = citedKeys(s.text);
  return recs.map((r) => ({
    ...r,
    alreadyCited: !!r.citekey && cited.has(r.citekey),
    citation: formatCitation({ citekey: r.citekey ?? undefined, title: r.title, authors: r.authors, year: r.year ?? undefined, path: r.path }, r.page, r.pageLabel ?? undefined, template),
  }));
}


/** A window of the passage around its densest match with the query, at most `max` characters. */
export function preview(text: string, terms: Set<string>, max = 320): string {
  if (text.length <= max) return text;
  const sentences = text.split(/(?<=[.!?])\s+/);
  let best = 0;
  let bestScore = -1;
  sentences.forEach((sen, i) => {
    const score = matchedWords(sen, terms).length;
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  let out = sentences.slice(best).join(' ');
  if (out.length > max) out = out.slice(0, max).replace(/\s+\S*$/, '') + '…';
  return best > 0 ? '…' + out : out;
}

/** Words of `text` whose stem is among the query terms. */
export function matchedWords(text: string, terms: Set<string>): string[] {
  const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const lang = detectLanguage(words.map((w) => foldText(w)));
  const out = new Set<string>();
  for (const w of words) {
    const f = foldText(w);
    if (terms.has(stem(f, lang))) out.add(w);
  }
  return [...out];
}
