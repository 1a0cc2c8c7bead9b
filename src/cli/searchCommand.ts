/**
 * `search` (the top passages for a text, with their pages) and `eval`
 * (retrieval quality on a BEIR folder, with a plain-BM25 baseline).
 */
import * as path from 'node:path';
import { embedsInBackground, errorCode, namesCrossEncoder, rerankerFor, runBeirEval, type BeirEvalResult } from '../engine';
import { all, checkKnown, intOption, one, settingOption, UsageError, type ParsedArgs } from './args';
import { cancelOnInterrupt } from './interrupt';
import { terminalText } from '../shared/untrusted';
import { err, out, outJson } from './output';
import { excerpt, prose, round, semanticNote } from './text';
import { cliEngine, providerFrom, readyToScore } from './workspace';

export async function cmdSearch(args: ParsedArgs, providerOpts: readonly string[]): Promise<number> {
  // --zotero: accepted as for index; the hits carry the Zotero metadata the index was built with.
  checkKnown(args, ['workspace', 'k', 'json', 'source-type', 'collection', 'partial', 'zotero', ...providerOpts]);
  const text = args.positionals.join(' ').trim();
  if (!text) throw new UsageError('search needs the text to look for, e.g. search "grain trade in the Mediterranean"');
  const k = intOption(args, 'k', 10, 1, 200);
  const sourceType = settingOption(args, 'source-type', 'sourceType') ?? 'both';
  const cli = await cliEngine(args, { library: false });
  if (!(await readyToScore(args, cli, { index: false }))) return 130;
  const { hits, semantic: progress } = await cli.engine.search(text, { k, filter: { sourceType, collections: all(args, 'collection') } });
  const semantic = progress && { embedded: progress.embedded, total: progress.total };
  if (args.flags.has('json')) {
    outJson(
      JSON.stringify({ ...(semantic ? { semantic } : {}), results: hits.map((h) => ({ ...h, score: round(h.score), cosine: round(h.cosine) })) }, null, 2),
    );
    return 0;
  }
  if (progress) out(`(${semanticNote(progress)})`);
  if (!hits.length) {
    out('No passage matches (the index is loaded and searched; try other words or widen the filters).');
    return 0;
  }
  // The PDF's text and metadata as prose; the path escaped, as a name (see terminalText).
  hits.forEach((h, i) => {
    const by = [
      h.authors
        .slice(0, 2)
        .map((a) => prose(a, 120))
        .join('; '),
      h.year,
    ]
      .filter(Boolean)
      .join(', ');
    const page = h.pageLabel && h.pageLabel !== String(h.page) ? `p. ${terminalText(h.pageLabel, 40)} (PDF page ${h.page})` : `p. ${h.page}`;
    out(
      `${i + 1}. ${prose(h.title, 400)}${by ? ` — ${by}` : ''}, ${page}${h.ocr ? ' (text from OCR)' : ''}  [score ${round(h.score)}, cosine ${round(h.cosine)}]`,
    );
    out(`   ${terminalText(h.path, 1000)}`);
    out(`   ${excerpt(prose(h.text, 2000), 260)}`);
    if (h.highlight)
      out(`   you highlighted this in Zotero, p. ${prose(h.highlight.page, 40)}${h.highlight.comment ? ` — ${prose(h.highlight.comment, 200)}` : ''}`);
  });
  return 0;
}

export async function cmdEval(args: ParsedArgs, providerOpts: readonly string[]): Promise<number> {
  checkKnown(args, ['beir', 'split', 'json', 'workspace', 'partial', 'rerank-model', 'rerank-onnx-file', 'rerank-top', 'no-rerank', ...providerOpts]);
  const dir = one(args, 'beir');
  if (!dir) throw new UsageError('eval needs --beir <dir>');
  const split = one(args, 'split') ?? 'test';
  const rerankModel = args.flags.has('no-rerank') ? undefined : one(args, 'rerank-model');
  if (rerankModel && !namesCrossEncoder(rerankModel))
    throw new UsageError(`eval reranks with a local cross-encoder: --rerank-model takes its folder or its repository id (org/name), not "${rerankModel}"`);
  const rerankTop = intOption(args, 'rerank-top', 20, 2, 100);
  const provider = await providerFrom(args);
  const reranker = rerankModel
    ? await rerankerFor({ local: rerankModel, onnxFile: one(args, 'rerank-onnx-file'), cacheDir: one(args, 'cache-dir') })
    : undefined;
  // A neural model embeds the whole corpus before any query is scored (committed as it goes: Ctrl-C
  // keeps it in --workspace); --partial scores with the vectors there are and says how many.
  const interrupt = cancelOnInterrupt('cancelling…');
  let result: BeirEvalResult;
  try {
    result = await runBeirEval({
      dir: path.resolve(dir),
      split,
      provider,
      workspace: one(args, 'workspace') && path.resolve(one(args, 'workspace')!),
      deferEmbedding: embedsInBackground(provider),
      partial: args.flags.has('partial'),
      signal: interrupt.signal,
      onProgress: (m) => err(m),
      reranker,
      rerankTop,
    });
  } catch (e) {
    if (errorCode(e) !== 'cancelled') throw e;
    err((e as Error).message);
    return 130;
  } finally {
    interrupt.stop();
  }
  if (args.flags.has('json')) {
    outJson(JSON.stringify(result, null, 2));
    return 0;
  }
  out(`BEIR ${path.basename(path.resolve(dir))} (${split}): ${result.queries} queries, ${result.docs} documents, provider ${result.provider}`);
  if (result.semantic) {
    out(
      `PARTIAL (--partial): only ${result.semantic.embedded} of ${result.semantic.total} passages had their vector; the others were ranked by their words only. These are not the model's figures.`,
    );
  }
  out(`                 nDCG@10  Recall@10  Recall@100  MRR@10`);
  const fmt = (x: number) => x.toFixed(4);
  const row = (name: string, m: BeirMetrics) =>
    out(`${name.padEnd(16)} ${fmt(m['ndcg@10'])}   ${fmt(m['recall@10'])}     ${fmt(m['recall@100'])}      ${fmt(m['mrr@10'])}`);
  row(result.semantic ? 'Similar (partial)' : 'Similar Sources', result);
  row('  vectors alone', result.vectorOnly);
  row('  BM25 alone', result.lexicalOnly);
  row('plain BM25', result.baseline);
  if (result.reranked) {
    row(`reranked top ${result.reranked.top}`, result.reranked);
    out(`  by ${prose(result.reranked.reranker, 200)}: ${result.reranked.msPerQuery.median} ms a query (median), ${result.reranked.msPerQuery.p95} ms (p95)`);
  }
  out(`index ${(result.indexMs / 1000).toFixed(1)} s, queries ${(result.queryMs / result.queries).toFixed(1)} ms each`);
  return 0;
}

type BeirMetrics = { 'ndcg@10': number; 'recall@10': number; 'recall@100': number; 'mrr@10': number };
