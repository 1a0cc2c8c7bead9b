/**
 * The headless CLI: the same engine as the extension, for scripts and
 * benchmarks. Progress and warnings go to stderr, results to stdout.
 */
import * as path from 'node:path';
import { EmbeddedProvider } from '../core/embedding/embeddedProvider';
import { createProvider } from '../core/embedding/providerFactory';
import type { EmbeddingProvider } from '../core/embedding/provider';
import { updateIndex, type IndexReport } from '../core/index/indexer';
import { LibraryIndex, indexStatus } from '../core/index/libraryIndex';
import { indexDir, readManifest } from '../core/index/manifest';
import { libraryInputs } from '../core/library/pdfSource';
import { runBeirEval } from '../core/eval/beir';
import { all, checkKnown, intOption, one, parseArgs, UsageError, type ParsedArgs } from './args';

const USAGE = `Similar Sources — find the passages of your PDF library worth citing.

Usage: node dist/cli.js <command> [options]

Commands:
  index   --library <dir> [--library <dir>…] [--workspace <dir>] [--bib <file>]
          [--include <glob>…] [--exclude <glob>…] [--primary <dir|glob>…]
          [--provider embedded|ollama] [--json]
          Builds or updates the index in <workspace>/.similar-sources.
  search  "<text>" [--workspace <dir>] [--k N] [--source-type secondary|primary|both]
          [--collection <name>…] [--provider …] [--json]
          Prints the top passages with their pages.
  eval    --beir <dir> [--split train|test] [--provider …] [--json]
          Retrieval quality on a BEIR folder, with a plain-BM25 baseline.
  status  [--workspace <dir>] [--json]
          Says whether the index exists and what it holds.

Provider options: --provider embedded (default, offline) | ollama, --ollama-host <url>
  (default $OLLAMA_HOST or http://127.0.0.1:11434), --ollama-model <name>
  (default nomic-embed-text), --fallback (use the embedded model if Ollama fails).`;

const BOOLEANS = new Set(['json', 'fallback', 'help']);
const PROVIDER_OPTS = ['provider', 'ollama-host', 'ollama-model', 'fallback'];

const err = (s: string) => process.stderr.write(s + '\n');
const out = (s: string) => process.stdout.write(s + '\n');

export async function main(argv: string[]): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv, BOOLEANS);
    if (!args.command || args.flags.has('help') || args.command === 'help') {
      out(USAGE);
      return args.command ? 0 : 1;
    }
    switch (args.command) {
      case 'index':
        return await cmdIndex(args);
      case 'search':
        return await cmdSearch(args);
      case 'eval':
        return await cmdEval(args);
      case 'status':
        return await cmdStatus(args);
      default:
        throw new UsageError(`unknown command "${args.command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(`error: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    err(`error: ${(e as Error).message}`);
    return 1;
  }
}

function workspaceOf(args: ParsedArgs): string {
  return path.resolve(one(args, 'workspace') ?? process.cwd());
}

async function providerFrom(args: ParsedArgs, fallbackKey?: { provider: string; model: string }): Promise<EmbeddingProvider> {
  const name = one(args, 'provider') ?? fallbackKey?.provider ?? 'embedded';
  if (name !== 'embedded' && name !== 'ollama') throw new UsageError(`--provider must be "embedded" or "ollama" (got "${name}")`);
  if (name === 'embedded') return new EmbeddedProvider();
  const { provider } = await createProvider(
    {
      provider: 'ollama',
      ollamaHost: one(args, 'ollama-host') ?? process.env.OLLAMA_HOST,
      ollamaModel: one(args, 'ollama-model') ?? (fallbackKey?.provider === 'ollama' ? fallbackKey.model : undefined),
    },
    { fallbackToEmbedded: args.flags.has('fallback'), onWarning: (w) => err(`warning: ${w}`) },
  );
  return provider;
}

async function cmdIndex(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['library', 'workspace', 'bib', 'include', 'exclude', 'primary', 'json', ...PROVIDER_OPTS]);
  const libraries = all(args, 'library');
  if (!libraries.length) throw new UsageError('index needs at least one --library <dir>');
  const workspace = workspaceOf(args);
  const provider = await providerFrom(args);
  const { inputs, warnings } = await libraryInputs({
    folders: libraries.map((l) => path.resolve(l)),
    include: all(args, 'include'),
    exclude: all(args, 'exclude'),
    primary: all(args, 'primary'),
    baseDir: workspace,
    bibliography: one(args, 'bib') && path.resolve(one(args, 'bib')!),
  });
  for (const w of warnings) err(`warning: ${w}`);
  err(`indexing ${inputs.length} PDF files into ${indexDir(workspace)} (${provider.id} model ${provider.model})`);
  const ac = new AbortController();
  const onSigint = () => {
    err('cancelling: saving what is done…');
    ac.abort();
  };
  process.once('SIGINT', onSigint);
  let lastLine = 0;
  const report = await updateIndex(inputs, {
    workspace,
    provider,
    signal: ac.signal,
    onWarning: (w) => err(`warning: ${w}`),
    onProgress: (p) => {
      const now = Date.now();
      if (p.phase === 'read' && (now - lastLine > 1000 || p.done === 0)) {
        lastLine = now;
        err(`  [${p.done + 1}/${p.total}] ${p.file ? path.basename(p.file) : ''}`);
      }
    },
  }).finally(() => process.off('SIGINT', onSigint));
  report.warnings.unshift(...warnings);
  if (args.flags.has('json')) out(JSON.stringify(report, null, 2));
  else printIndexReport(report);
  return report.cancelled ? 130 : 0;
}

function printIndexReport(r: IndexReport) {
  out(
    `${r.cancelled ? 'Cancelled; saved so far' : 'Indexed'}: ${r.sources} sources, ${r.passages} passages in ${(r.ms / 1000).toFixed(1)} s ` +
      `(${r.added} added, ${r.updated} updated, ${r.moved} moved, ${r.removed} removed, ${r.unchanged} unchanged; ${r.embedded} passages embedded).`,
  );
  if (r.skipped.length) {
    out(`Skipped ${r.skipped.length} file${r.skipped.length > 1 ? 's' : ''}:`);
    for (const s of r.skipped) out(`  ${s.path} — ${s.reason}`);
  }
  out(`Index fingerprint: ${r.fingerprint}`);
}

async function cmdSearch(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['workspace', 'k', 'json', 'source-type', 'collection', ...PROVIDER_OPTS]);
  const text = args.positionals.join(' ').trim();
  if (!text) throw new UsageError('search needs the text to look for, e.g. search "grain trade in the Mediterranean"');
  const k = intOption(args, 'k', 10, 1, 200);
  const sourceType = one(args, 'source-type') ?? 'both';
  if (!['primary', 'secondary', 'both'].includes(sourceType)) throw new UsageError('--source-type must be primary, secondary or both');
  const workspace = workspaceOf(args);
  const manifest = await readManifest(indexDir(workspace)).catch(() => undefined);
  const active = manifest?.activeModel ? manifest.vectors[manifest.activeModel] : undefined;
  const provider = await providerFrom(args, active);
  const index = await LibraryIndex.open(workspace, provider);
  const hits = await index.search(text, {
    k,
    filter: { sourceType: sourceType as 'primary' | 'secondary' | 'both', collections: all(args, 'collection') },
  });
  if (args.flags.has('json')) {
    out(
      JSON.stringify(
        {
          results: hits.map((h) => ({
            path: h.sourceRecord.path,
            title: h.sourceRecord.title,
            authors: h.sourceRecord.authors,
            year: h.sourceRecord.year ?? null,
            citekey: h.sourceRecord.citekey ?? null,
            page: h.page,
            pageLabel: h.pageLabel ?? null,
            heading: h.heading ?? null,
            score: round(h.score),
            cosine: round(h.cosine),
            text: h.text,
          })),
        },
        null,
        2,
      ),
    );
    return 0;
  }
  if (!hits.length) {
    out('No passage matches (the index is loaded and searched; try other words or widen the filters).');
    return 0;
  }
  hits.forEach((h, i) => {
    const s = h.sourceRecord;
    const by = [s.authors.slice(0, 2).join('; '), s.year].filter(Boolean).join(', ');
    const page = h.pageLabel && h.pageLabel !== String(h.page) ? `p. ${h.pageLabel} (PDF page ${h.page})` : `p. ${h.page}`;
    out(`${i + 1}. ${s.title}${by ? ` — ${by}` : ''}, ${page}  [score ${round(h.score)}, cosine ${round(h.cosine)}]`);
    out(`   ${s.path}`);
    out(`   ${excerpt(h.text, 260)}`);
  });
  return 0;
}

async function cmdEval(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['beir', 'split', 'json', 'workspace', ...PROVIDER_OPTS]);
  const dir = one(args, 'beir');
  if (!dir) throw new UsageError('eval needs --beir <dir>');
  const split = one(args, 'split') ?? 'test';
  const provider = await providerFrom(args);
  const result = await runBeirEval({
    dir: path.resolve(dir),
    split,
    provider,
    workspace: one(args, 'workspace') && path.resolve(one(args, 'workspace')!),
    onProgress: (m) => err(m),
  });
  if (args.flags.has('json')) {
    out(JSON.stringify(result, null, 2));
    return 0;
  }
  out(`BEIR ${path.basename(path.resolve(dir))} (${split}): ${result.queries} queries, ${result.docs} documents, provider ${result.provider}`);
  out(`                 nDCG@10  Recall@10  Recall@100  MRR@10`);
  const row = (name: string, m: BeirEvalBaseline) =>
    out(`${name.padEnd(16)} ${fmt(m['ndcg@10'])}   ${fmt(m['recall@10'])}     ${fmt(m['recall@100'])}      ${fmt(m['mrr@10'])}`);
  row('Similar Sources', result);
  row('plain BM25', result.baseline);
  out(`index ${(result.indexMs / 1000).toFixed(1)} s, queries ${(result.queryMs / result.queries).toFixed(1)} ms each`);
  return 0;
}

type BeirEvalBaseline = { 'ndcg@10': number; 'recall@10': number; 'recall@100': number; 'mrr@10': number };

async function cmdStatus(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['workspace', 'json']);
  const st = await indexStatus(workspaceOf(args));
  if (args.flags.has('json')) out(JSON.stringify({ state: st.state, detail: st.detail, fingerprint: st.manifest?.fingerprint ?? null }));
  else out(`${st.state}: ${st.detail}`);
  return st.state === 'ready' ? 0 : 1;
}

const round = (x: number) => Math.round(x * 10000) / 10000;
const fmt = (x: number) => x.toFixed(4);
function excerpt(t: string, n: number) {
  return t.length <= n ? t : t.slice(0, n).replace(/\s+\S*$/, '') + '…';
}
