/**
 * Retrieval evaluation on a BEIR folder through the product's own passage,
 * index and retrieval code: each corpus record becomes one source, each query
 * ranks sources. A plain-BM25 baseline is computed in the same run.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineError } from '../../shared/errors';
import type { EmbeddingProvider } from '../embedding/provider';
import { embedPending } from '../index/write/embedPending';
import { updateIndex, type IndexProgress } from '../index/write/indexer';
import type { SourceInput } from '../index/source';
import { LibraryIndex } from '../index/search/libraryIndex';
import { joinLines } from '../pdf/cleanPages';
import { sha256 } from '../util/hash';
import { readConfinedText } from '../util/confinedFiles';
import { evaluateRun, parseQrels, type EvalSummary } from './metrics';
import { PlainBm25 } from './plainBm25';
import { fusionFor, rankSources, type HybridParams } from '../retrieval/hybrid';
import type { Reranker } from '../analysis/rerank';
import type { ChunkOptions } from '../passages/chunker';

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

export interface BeirEvalResult {
  'ndcg@10': number;
  'recall@10': number;
  'recall@100': number;
  'mrr@10': number;
  queries: number;
  docs: number;
  provider: string;
  split: string;
  indexMs: number;
  queryMs: number;
  baseline: EvalFigures;
  /** The same index and query vectors ranked by the model's vectors alone (lexical weight 0). */
  vectorOnly: EvalFigures;
  /** … and by the product's BM25 alone (vector weight 0). */
  lexicalOnly: EvalFigures;
  /**
   * Only with `partial`, when the model's vectors were not all there: the figures were computed
   * with `embedded` of `total` passages ranked by meaning, the others by their words only.
   */
  semantic?: { embedded: number; total: number };
  /**
   * With a reranker: the product's ranking with its top `top` sources reordered by it (each read
   * as the product's reranker reads a card: title and text), and its time per query.
   */
  reranked?: EvalFigures & { reranker: string; top: number; msPerQuery: { median: number; p95: number } };
}

export type EvalFigures = { 'ndcg@10': number; 'recall@10': number; 'recall@100': number; 'mrr@10': number };

export const BEIR_SCHEME = 'beir:';

async function readJsonl<T>(file: string): Promise<T[]> {
  const text = (await readConfinedText(file, { kind: 'dataset' })).text;
  const out: T[] = [];
  for (const line of text.split('\n')) if (line.trim()) out.push(JSON.parse(line) as T);
  return out;
}

export async function loadBeir(dir: string, split: string) {
  const corpus = (await readJsonl<{ _id: string; title?: string; text?: string }>(path.join(dir, 'corpus.jsonl'))).map((d): BeirDoc => ({
    id: String(d._id),
    title: (d.title ?? '').trim(),
    text: (d.text ?? '').trim(),
  }));
  const queries = new Map((await readJsonl<{ _id: string; text: string }>(path.join(dir, 'queries.jsonl'))).map((q) => [String(q._id), q.text]));
  const qrelsFile = path.join(dir, 'qrels', `${split}.tsv`);
  const qrels = parseQrels(
    (
      await readConfinedText(qrelsFile, { kind: 'dataset' }).catch((e: Error) => {
        throw new Error(`no qrels for split "${split}" (${e.message})`);
      })
    ).text,
  );
  return { corpus, queries, qrels };
}

/** A corpus record as an index input: one page, title as metadata. */
export function docInput(d: BeirDoc): SourceInput {
  const body = d.text || d.title;
  return {
    path: BEIR_SCHEME + d.id,
    size: body.length,
    mtimeMs: 0,
    sourceType: 'secondary',
    contentHash: sha256(`${d.title}\n${body}`),
    extract: async () => ({
      pages: [{ page: 1, blocks: [{ kind: 'text', text: joinLines(body.split('\n')) }] }],
      pageCount: 1,
      meta: { title: d.title || d.id, authors: [], collections: [], titleFrom: 'bibliography' },
    }),
  };
}

export interface BeirEvalOptions {
  dir: string;
  split: string;
  provider: EmbeddingProvider;
  workspace?: string;
  onProgress?: (msg: string) => void;
  /**
   * A model that embeds in the background (every neural one): the corpus is committed first,
   * then embedded by `embedPending` (committed every few seconds, with progress), so that a
   * cancel keeps the vectors computed in `workspace` and the next run goes on.
   */
  deferEmbedding?: boolean;
  /**
   * Score with the vectors there are, without computing the missing ones: the result says how
   * many there were (`semantic`). Without it, figures are only ever computed with all of them.
   */
  partial?: boolean;
  /** Stops indexing or embedding (what is committed stays in `workspace`); throws `cancelled`. */
  signal?: AbortSignal;
  /** Reorders each query's top `rerankTop` sources (default 20) as the product's reranker does; the result's `reranked`. */
  reranker?: Reranker;
  rerankTop?: number;
  /**
   * Passages cut other than the product's defaults (measurements only: scripts/measure-passage-shape.ts);
   * give a `workspace` of their own, or none: an index is not told apart by them.
   */
  chunk?: Partial<ChunkOptions>;
}

export async function runBeirEval(opts: BeirEvalOptions): Promise<BeirEvalResult> {
  const { corpus, queries, qrels } = await loadBeir(opts.dir, opts.split);
  const workspace = opts.workspace ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'similar-sources-eval-')));
  const cancelled = (what: string) =>
    new EngineError(
      'cancelled',
      `evaluation cancelled ${what}; no figures were computed${opts.workspace ? ` (what was committed stays in ${opts.workspace}: the next run goes on from there)` : ''}`,
    );
  try {
    const t0 = Date.now();
    let last = 0;
    const indexReport = await updateIndex(corpus.map(docInput), {
      workspace,
      provider: opts.provider,
      commitEvery: 5000,
      deferEmbedding: opts.deferEmbedding,
      chunk: opts.chunk,
      signal: opts.signal,
      onProgress: (p: IndexProgress) => {
        if (p.phase === 'read' && (p.done - last >= 1000 || p.done === 0)) {
          last = p.done;
          opts.onProgress?.(`indexing ${p.done}/${p.total}`);
        }
      },
    });
    if (indexReport.cancelled) throw cancelled('while the corpus was read');
    if (opts.deferEmbedding && !opts.partial) {
      let lastLine = 0;
      const report = await embedPending({
        workspace,
        provider: opts.provider,
        signal: opts.signal,
        onProgress: (p) => {
          const now = Date.now();
          if (now - lastLine > 2000 || p.embedded >= p.total) {
            lastLine = now;
            opts.onProgress?.(`embedding ${p.embedded}/${p.total} passages (${opts.provider.model})`);
          }
        },
      });
      if (report.cancelled) throw cancelled(`after ${report.covered} of ${report.total} passages were embedded`);
    }
    if (opts.signal?.aborted) throw cancelled('before the queries were run');
    const indexMs = Date.now() - t0;
    const index = await LibraryIndex.open(workspace, opts.provider, { partial: opts.partial });
    const judged = [...qrels.keys()].filter((q) => queries.has(q));
    const t1 = Date.now();
    // The queries embedded in one call, as an analysis embeds its segments (searchMany).
    const vectors = await opts.provider.embed(
      judged.map((q) => queries.get(q)!),
      { kind: 'query' },
    );
    const fusion = fusionFor(opts.provider.id);
    const runWith = (params: Partial<HybridParams>) =>
      sourceRun(
        index,
        judged.map((q, i) => ({ id: q, text: queries.get(q)!, vector: vectors[i] })),
        params,
      );
    // As the product ranks (the provider's fusion), then each list alone.
    const run = runWith(fusion);
    const queryMs = Date.now() - t1;
    const vectorRun = runWith({ ...fusion, lexicalWeight: 0, vectorWeight: 1 });
    const lexicalRun = runWith({ ...fusion, vectorWeight: 0, lexicalWeight: 1 });
    opts.onProgress?.('computing the plain BM25 baseline');
    const bm25 = new PlainBm25(corpus);
    const baseRun = new Map(judged.map((qid) => [qid, bm25.search(queries.get(qid)!, 100).map((h) => h.id)]));
    const ours = evaluateRun(run, qrels);
    const base = evaluateRun(baseRun, qrels);
    const reranked = opts.reranker ? await rerankRun(opts, run, queries, corpus, qrels) : undefined;
    return {
      ...figures(ours),
      queries: ours.queries,
      docs: corpus.length,
      provider: opts.provider.key,
      split: opts.split,
      indexMs,
      queryMs,
      baseline: figures(base),
      vectorOnly: figures(evaluateRun(vectorRun, qrels)),
      lexicalOnly: figures(evaluateRun(lexicalRun, qrels)),
      ...(index.semantic ? { semantic: { embedded: index.semantic.embedded, total: index.semantic.total } } : {}),
      ...(reranked ? { reranked } : {}),
    };
  } finally {
    if (!opts.workspace) await fs.rm(workspace, { recursive: true, force: true });
  }
}

/** The run with each query's top sources reordered by the reranker, its figures and its time per query. */
async function rerankRun(
  opts: BeirEvalOptions,
  run: Map<string, string[]>,
  queries: Map<string, string>,
  corpus: BeirDoc[],
  qrels: ReturnType<typeof parseQrels>,
): Promise<NonNullable<BeirEvalResult['reranked']>> {
  const reranker = opts.reranker!;
  const why = await reranker.unavailable(opts.signal);
  if (why) throw new EngineError('invalid-options', `the reranker cannot be used: ${why}`);
  const top = Math.max(2, opts.rerankTop ?? 20);
  const docs = new Map(corpus.map((d) => [d.id, d]));
  const out = new Map<string, string[]>();
  const ms: number[] = [];
  for (const [qid, ids] of run) {
    if (opts.signal?.aborted) throw new EngineError('cancelled', 'evaluation cancelled while reranking; no figures were computed');
    const head = ids.slice(0, top);
    const t = performance.now();
    // As analyze.ts hands a card to the reranker: its title, then the passage.
    const order = await reranker.rerank(
      queries.get(qid)!,
      head.map((id) => ({ id, text: `${docs.get(id)!.title}: ${docs.get(id)!.text}` })),
      opts.signal,
    );
    ms.push(performance.now() - t);
    out.set(qid, [...order, ...ids.slice(top)]);
    if (out.size % 100 === 0) opts.onProgress?.(`reranking ${out.size}/${run.size} queries`);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0);
  return { ...figures(evaluateRun(out, qrels)), reranker: reranker.description, top, msPerQuery: { median: at(0.5), p95: at(0.95) } };
}

/** Each query's ranked document ids (top 100 sources) with the given fusion parameters. */
export function sourceRun(
  index: LibraryIndex,
  qs: Array<{ id: string; text: string; vector: Float32Array }>,
  params: Partial<HybridParams>,
): Map<string, string[]> {
  const c = index.retrieval;
  const run = new Map<string, string[]>();
  for (const q of qs) {
    const hits = rankSources(c, { text: q.text, vector: q.vector }, { k: 100, params });
    run.set(
      q.id,
      hits.map((h) => index.sources[h.source].path.slice(BEIR_SCHEME.length)),
    );
  }
  return run;
}

export function figures(s: EvalSummary): EvalFigures {
  const r = (x: number) => Math.round(x * 10000) / 10000;
  return { 'ndcg@10': r(s.ndcg10), 'recall@10': r(s.recall10), 'recall@100': r(s.recall100), 'mrr@10': r(s.mrr10) };
}
