/**
 * The headless CLI: the same engine as the extension, for scripts and
 * benchmarks. Progress and warnings go to stderr, results to stdout.
 */
import * as path from 'node:path';
import { EmbeddedProvider } from '../core/embedding/embeddedProvider';
import { createProvider } from '../core/embedding/providerFactory';
import type { EmbeddingProvider } from '../core/embedding/provider';
import { updateIndex, type IndexReport } from '../core/index/indexer';
import { damagedSources, LibraryIndex, indexStatus } from '../core/index/libraryIndex';
import { indexDir, readManifest } from '../core/index/manifest';
import { shortAuthors } from '../core/citation/format';
import { libraryInputs } from '../core/library/pdfSource';
import { PdfExtractPool } from '../core/pdf/extractPool';
import { runBeirEval } from '../core/eval/beir';
import { analyzeDocument, IndexNotReadyError, type AnalysisResult } from '../core/analysis/analyze';
import { AnalysisCache } from '../core/analysis/cache';
import { OptionsError, type AnalysisOptions } from '../core/analysis/options';
import { OllamaReranker } from '../core/analysis/rerank';
import { readWorkspaceSettings } from '../core/config/workspaceSettings';
import { segmentMarkdown, type Granularity } from '../core/markdown/segment';
import { promises as fs } from 'node:fs';
import { all, checkKnown, intOption, one, parseArgs, UsageError, type ParsedArgs } from './args';

const USAGE = `Similar Sources — find the passages of your PDF library worth citing.

Usage: node dist/cli.js <command> [options]

Commands:
  index   --library <dir> [--library <dir>…] [--workspace <dir>] [--bib <file>]
          [--include <glob>…] [--exclude <glob>…] [--primary <dir|glob>…]
          [--provider embedded|ollama] [--jobs N] [--ocr auto|off] [--ocr-lang eng+fra]
          [--ocr-lang-dir <dir>] [--json]
          Builds or updates the index in <workspace>/.similar-sources. PDFs are read in
          N worker threads (default: cores - 1, at least 1; 0 = in the main thread).
          Scanned pages are recognised (OCR, offline) after the other files.
  search  "<text>" [--workspace <dir>] [--k N] [--source-type secondary|primary|both]
          [--collection <name>…] [--provider …] [--json]
          Prints the top passages with their pages.
  eval    --beir <dir> [--split train|test] [--provider …] [--json]
          Retrieval quality on a BEIR folder, with a plain-BM25 baseline.
  status  [--workspace <dir>] [--json]
          Says whether the index exists and what it holds.
  segment <file.md> [--granularity section|paragraph|sentence] [--json]
          Prints the segments of a Markdown draft.
  analyze <file.md> [--workspace <dir>] [--library <dir>…] [--bib <file>] [--primary <dir|glob>…]
          [--granularity …] [--max-results N] [--threshold X] [--source-type secondary|primary|both]
          [--collection C…] [--no-rerank] [--no-context] [--min-words N] [--citation-template T]
          [--rerank-model M] [--no-cache] [--provider …] [--json]
          Indexes the library if needed, then lists, for each segment, the sources worth citing.
          Without --library, the workspace's .vscode/settings.json (similarSources.libraryFolders) is used.

Provider options: --provider embedded (default, offline) | ollama, --ollama-host <url>
  (default $OLLAMA_HOST or http://127.0.0.1:11434), --ollama-model <name>
  (default nomic-embed-text), --fallback (use the embedded model if Ollama fails).`;

const BOOLEANS = new Set(['json', 'fallback', 'help', 'no-rerank', 'no-context', 'no-cache']);
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
      case 'segment':
        return await cmdSegment(args);
      case 'analyze':
      case 'analyse':
        return await cmdAnalyze(args);
      default:
        throw new UsageError(`unknown command "${args.command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof OptionsError) {
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

/** A path given on the command line: relative to the current directory, as a shell user means it. */
const fromCwd = (p: string) => path.resolve(p);
const cliBib = (args: ParsedArgs) => {
  const bib = one(args, 'bib');
  return bib === undefined ? undefined : fromCwd(bib);
};

async function cmdIndex(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['library', 'workspace', 'bib', 'include', 'exclude', 'primary', 'json', 'jobs', ...OCR_OPTS, ...PROVIDER_OPTS]);
  const libraries = all(args, 'library').map(fromCwd);
  if (!libraries.length) throw new UsageError('index needs at least one --library <dir>');
  const workspace = workspaceOf(args);
  const provider = await providerFrom(args);
  const report = await runIndex(args, workspace, provider, libraries, cliBib(args), all(args, 'primary'));
  if (args.flags.has('json')) out(JSON.stringify(report, null, 2));
  else printIndexReport(report);
  return report.cancelled ? 130 : 0;
}

/** Indexes (incrementally) with progress on stderr; Ctrl-C cancels and keeps what is done. */
async function runIndex(args: ParsedArgs, workspace: string, provider: EmbeddingProvider, libraries: string[], bib: string | undefined, primary: string[]): Promise<IndexReport> {
  // PDFs are extracted in worker threads (beside the bundle) while this thread embeds; --jobs 0: all here.
  const jobs = one(args, 'jobs');
  const jobCount = jobs === undefined ? undefined : Number(jobs);
  if (jobCount !== undefined && !(Number.isInteger(jobCount) && jobCount >= 0 && jobCount <= 64)) throw new UsageError('--jobs takes a whole number from 0 to 64');
  const pool = jobCount === 0 ? undefined : PdfExtractPool.beside(typeof __dirname === 'string' ? __dirname : undefined, jobCount);
  try {
    return await indexWith(args, workspace, provider, libraries, bib, primary, pool);
  } finally {
    await pool?.close();
  }
}

/** OCR of scanned pages: --ocr auto|off, --ocr-lang eng+fra, --ocr-lang-dir <folder of .traineddata>. */
const OCR_OPTS = ['ocr', 'ocr-lang', 'ocr-lang-dir'];
function ocrOptions(args: ParsedArgs) {
  const mode = one(args, 'ocr') ?? 'auto';
  if (mode !== 'auto' && mode !== 'off') throw new UsageError('--ocr must be auto or off');
  const dir = one(args, 'ocr-lang-dir');
  return { ocr: mode as 'auto' | 'off', ocrLanguages: one(args, 'ocr-lang'), ocrLanguageDir: dir && fromCwd(dir) };
}

async function indexWith(args: ParsedArgs, workspace: string, provider: EmbeddingProvider, libraries: string[], bib: string | undefined, primary: string[], pool: PdfExtractPool | undefined): Promise<IndexReport> {
  const { inputs, warnings, dispose } = await libraryInputs({
    ...ocrOptions(args),
    extractor: pool && ((bytes) => pool.extract(bytes)),
    pageImager: pool && ((bytes, pages) => pool.pageImages(bytes, pages)),
    folders: libraries.map((l) => path.resolve(workspace, l)),
    include: all(args, 'include'),
    exclude: all(args, 'exclude'),
    primary,
    baseDir: workspace,
    bibliography: bib && path.resolve(workspace, bib),
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
      if (p.phase === 'ocr' && p.done > 0 && (now - lastLine > 1000 || p.done === p.total)) {
        lastLine = now;
        err(`  OCR: page ${p.done} of ${p.total}, ${p.file ? path.basename(p.file) : ''}`);
      }
    },
  }).finally(() => {
    process.off('SIGINT', onSigint);
    return dispose();
  });
  report.warnings.unshift(...warnings);
  return report;
}

function printIndexReport(r: IndexReport) {
  out(
    `${r.cancelled ? 'Cancelled; saved so far' : 'Indexed'}: ${r.sources} sources, ${r.passages} passages in ${(r.ms / 1000).toFixed(1)} s ` +
      `(${r.added} added, ${r.updated} updated, ${r.moved} moved, ${r.removed} removed, ${r.unchanged} unchanged; ${r.embedded} passages embedded).`,
  );
  if (r.ocr.pages) out(`OCR: ${r.ocr.pages} page${r.ocr.pages > 1 ? 's' : ''} in ${r.ocr.files} file${r.ocr.files > 1 ? 's' : ''} (${r.ocr.recognised} recognised, ${r.ocr.fromCache} from the cache).`);
  if (r.damaged.length) {
    out(`Damaged, indexed with what could be read:`);
    for (const d of r.damaged) out(`  ${d.path} — ${d.problem}`);
  }
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
            ...(h.ocr ? { ocr: true } : {}),
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
    out(`${i + 1}. ${s.title}${by ? ` — ${by}` : ''}, ${page}${h.ocr ? ' (text from OCR)' : ''}  [score ${round(h.score)}, cosine ${round(h.cosine)}]`);
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
  // Damaged files stay listed until they change (the next index run replaces their record).
  const damaged = damagedSources(st.manifest);
  if (args.flags.has('json')) out(JSON.stringify({ state: st.state, detail: st.detail, fingerprint: st.manifest?.fingerprint ?? null, damaged }));
  else {
    out(`${st.state}: ${st.detail}`);
    for (const d of damaged) out(`  damaged: ${d.path} — ${d.problem}`);
  }
  return st.state === 'ready' ? 0 : 1;
}

const round = (x: number) => Math.round(x * 10000) / 10000;
const fmt = (x: number) => x.toFixed(4);
function excerpt(t: string, n: number) {
  return t.length <= n ? t : t.slice(0, n).replace(/\s+\S*$/, '') + '…';
}

function granularityOf(args: ParsedArgs): Granularity {
  const g = one(args, 'granularity') ?? 'paragraph';
  if (g !== 'section' && g !== 'paragraph' && g !== 'sentence') throw new UsageError('--granularity must be section, paragraph or sentence');
  return g;
}

async function readDraft(args: ParsedArgs, command: string): Promise<{ file: string; text: string }> {
  const file = args.positionals[0];
  if (!file || args.positionals.length > 1) throw new UsageError(`${command} needs one Markdown file`);
  const abs = path.resolve(file);
  try {
    return { file: abs, text: await fs.readFile(abs, 'utf8') };
  } catch (e) {
    throw new Error(`cannot read ${abs}: ${(e as Error).message}`);
  }
}

async function cmdSegment(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['granularity', 'json', 'min-words']);
  const { text } = await readDraft(args, 'segment');
  const { title, segments } = await segmentMarkdown(text, granularityOf(args), { minWords: intOption(args, 'min-words', 4, 1, 50) });
  if (args.flags.has('json')) {
    out(JSON.stringify({ title: title ?? null, segments: segments.map(({ id, type, startLine, endLine, title: t, text: x, query, searchable, headingPath }) => ({ id, type, startLine, endLine, title: t, text: x, query, searchable, headingPath })) }, null, 2));
    return 0;
  }
  for (const s of segments) out(`L${s.startLine}${s.endLine > s.startLine ? `–${s.endLine}` : ''}\t${s.type}\t${s.searchable ? '' : '(too short) '}${s.title}`);
  return 0;
}

async function cmdAnalyze(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['workspace', 'library', 'bib', 'primary', 'include', 'exclude', 'granularity', 'max-results', 'threshold', 'source-type', 'collection', 'no-rerank', 'no-context', 'no-cache', 'min-words', 'citation-template', 'rerank-model', 'json', 'jobs', ...OCR_OPTS, ...PROVIDER_OPTS]);
  const { file, text } = await readDraft(args, 'analyze');
  const workspace = workspaceOf(args);
  const settings = await readWorkspaceSettings(workspace);
  // Paths typed on the command line are relative to the shell's directory; those in the
  // workspace's settings, to the workspace.
  const libraries = all(args, 'library').length ? all(args, 'library').map(fromCwd) : (settings.libraryFolders ?? []);
  const provider = await providerFrom(args);
  if (libraries.length) {
    const report = await runIndex(args, workspace, provider, libraries, cliBib(args) ?? settings.bibliographyFile, all(args, 'primary').length ? all(args, 'primary') : (settings.primarySourceFolders ?? []));
    const changed = report.added + report.updated + report.moved + report.removed;
    err(`library: ${report.sources} sources, ${report.passages} passages${changed ? ` (${changed} changed)` : ''}${report.skipped.length ? `, ${report.skipped.length} skipped` : ''}`);
    for (const sk of report.skipped) err(`  skipped ${sk.path}: ${sk.reason}`);
    if (report.cancelled) return 130;
  }
  const threshold = one(args, 'threshold');
  const options: Partial<AnalysisOptions> = {
    granularity: granularityOf(args),
    maxResults: one(args, 'max-results') === undefined ? undefined : Number(one(args, 'max-results')),
    similarityThreshold: threshold === undefined ? undefined : Number(threshold),
    sourceType: one(args, 'source-type') as AnalysisOptions['sourceType'] | undefined,
    collectionFilter: all(args, 'collection').length ? all(args, 'collection') : null,
    useReranking: !args.flags.has('no-rerank'),
    useContextualEmbedding: !args.flags.has('no-context'),
    minWords: one(args, 'min-words') === undefined ? undefined : Number(one(args, 'min-words')),
  };
  const ac = new AbortController();
  const onSigint = () => ac.abort();
  process.once('SIGINT', onSigint);
  let result: AnalysisResult;
  try {
    result = await analyzeDocument(text, options, {
      index: () => LibraryIndex.open(workspace, provider),
      workspace,
      documentPath: file,
      cache: args.flags.has('no-cache') ? false : new AnalysisCache(workspace),
      reranker: new OllamaReranker({ host: one(args, 'ollama-host') ?? process.env.OLLAMA_HOST, model: one(args, 'rerank-model') }),
      citationTemplate: one(args, 'citation-template'),
      signal: ac.signal,
      log: (l) => err(l),
      onProgress: (p) => {
        if (p.current === 1 || p.current === p.total || p.current % 10 === 0) err(`analysing segment ${p.current} of ${p.total}`);
      },
    });
  } catch (e) {
    if (e instanceof IndexNotReadyError) {
      err(`error: ${e.message}`);
      if (e.state === 'missing') err('hint: pass --library <folder of PDFs>, or set similarSources.libraryFolders in .vscode/settings.json');
      return 1;
    }
    if ((e as Error).name === 'AbortError') {
      err('cancelled: nothing was cached');
      return 130;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
  }
  if (args.flags.has('json')) {
    out(JSON.stringify(jsonReport(result), null, 2));
    return 0;
  }
  printAnalysis(result, path.relative(process.cwd(), file) || file);
  return 0;
}

function jsonReport(r: AnalysisResult) {
  return {
    fromCache: r.fromCache,
    documentTitle: r.documentTitle,
    fingerprint: r.fingerprint,
    model: r.model,
    reranking: r.reranking,
    segments: r.segments.map((s) => ({
      id: s.id,
      type: s.type,
      startLine: s.startLine,
      endLine: s.endLine,
      title: s.title,
      text: s.text,
      status: s.status,
      fromCache: s.fromCache,
      recommendations: s.recommendations,
    })),
    stats: r.stats,
  };
}

function printAnalysis(r: AnalysisResult, name: string) {
  const searched = r.segments.filter((s) => s.status === 'analysed').length;
  out(`${r.documentTitle ?? name} — ${r.segments.length} segments (${searched} searched) in ${(r.stats.ms / 1000).toFixed(2)} s${r.fromCache ? ', from the cache' : r.stats.segmentsFromCache ? `, ${r.stats.segmentsFromCache} from the cache` : ''}`);
  if (r.reranking.note) out(`(${r.reranking.note})`);
  for (const s of r.segments) {
    const lines = `L${s.startLine}${s.endLine > s.startLine ? `–${s.endLine}` : ''}`;
    out('');
    out(`${lines.padEnd(9)} ${s.type}: ${s.title}`);
    if (s.status === 'too-short') {
      out('          (too short to search)');
      continue;
    }
    if (!s.recommendations.length) {
      out(`          no source above the similarity threshold (${r.options.similarityThreshold})`);
      continue;
    }
    s.recommendations.forEach((rec, i) => {
      const who = [shortAuthors(rec.authors), rec.year].filter(Boolean).join(' ');
      const page = rec.pageLabel ?? String(rec.page);
      const flags = [rec.reranked ? 'reranked' : '', rec.alreadyCited ? 'already cited' : '', rec.sourceType === 'primary' ? 'primary' : ''].filter(Boolean).join(', ');
      out(`  ${i + 1}. ${String(Math.round(rec.similarity * 100)).padStart(3)}%  ${rec.title}${who ? ` — ${who}` : ''}, p. ${page}${flags ? `  [${flags}]` : ''}`);
      out(`          ${rec.citation}`);
      out(`          “${excerpt(rec.preview, 200)}”`);
    });
  }
}
