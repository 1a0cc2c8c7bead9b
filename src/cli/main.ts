/**
 * The headless CLI: the same engine as the extension, for scripts and
 * benchmarks. Progress and warnings go to stderr, results to stdout.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  analyse,
  bundleDir,
  createProvider,
  errorCode,
  errorHealth,
  indexedModel,
  indexHealth,
  indexDir,
  indexLibrary,
  embedPending,
  embedsInBackground,
  providerHealth,
  openIndex,
  readWorkspaceSettings,
  resolveLibrary,
  runBeirEval,
  search,
  segmentMarkdown,
  type AnalysisOptions,
  type AnalysisResult,
  type EmbeddingProvider,
  type LibraryIndexReport,
  type LibrarySpec,
  type ProviderName,
  PROVIDER_NAMES,
  damagedFiles,
  interruptedRun,
} from '../engine';
import { shortAuthors } from '../shared/citation';
import { describeHealth, semanticPercent, type SemanticProgress } from '../shared/health';
import type { Granularity, Settings } from '../shared/settings';
import { all, checkKnown, intOption, one, parseArgs, UsageError, type ParsedArgs } from './args';
import { CHECK_USAGE, cmdCheck } from './checkCommand';
import { cancelOnInterrupt } from './interrupt';
import { cmdModel, LOCAL_MODEL_OPTS, LOCAL_PROVIDER_USAGE, localConfigFrom, MODEL_USAGE } from './modelCommand';

const USAGE = `Similar Sources — find the passages of your PDF library worth citing.

Usage: node dist/cli.js <command> [options]

Commands:
  index   --library <dir> [--library <dir>…] [--workspace <dir>] [--bib <file>]
          [--include <glob>…] [--exclude <glob>…] [--primary <dir|glob>…]
          [--provider …] [--jobs N] [--ocr auto|off] [--ocr-lang eng+fra]
          [--ocr-lang-dir <dir>] [--defer-embedding] [--json]
          Builds or updates the index in <workspace>/.similar-sources. PDFs are read in
          N worker threads (default: cores - 1, at least 1; 0 = in the main thread).
          Scanned pages are recognised (OCR, offline) after the other files. With a
          neural model (local, ollama, openai), passages are committed first (searchable
          by their words), then embedded, committed every few seconds: Ctrl-C keeps what
          is done and the next run goes on; --defer-embedding stops after the first part.
  search  "<text>" [--workspace <dir>] [--k N] [--source-type secondary|primary|both]
          [--collection <name>…] [--provider …] [--partial] [--json]
          Prints the top passages with their pages.
  eval    --beir <dir> [--split train|test] [--workspace <dir>] [--provider …] [--partial] [--json]
          Retrieval quality on a BEIR folder, with a plain-BM25 baseline.
  status  [--workspace <dir>] [--json]
          Says whether the index exists and what it holds.
  segment <file.md> [--granularity section|paragraph|sentence] [--json]
          Prints the segments of a Markdown draft.
  analyze <file.md> [--workspace <dir>] [--library <dir>…] [--bib <file>] [--primary <dir|glob>…]
          [--granularity …] [--max-results N] [--threshold X] [--source-type secondary|primary|both]
          [--collection C…] [--no-rerank] [--no-context] [--min-words N] [--citation-template T]
          [--rerank-model M] [--no-cache] [--provider …] [--partial] [--json]
          Indexes the library if needed, then lists, for each segment, the sources worth citing.
          Without --library, the workspace's .vscode/settings.json (similarSources.libraryFolders) is used.
${CHECK_USAGE}
${MODEL_USAGE}

Neural models: with a neural model (local, ollama, openai), search, analyze and eval first compute every vector
  the index lacks (progress on stderr; Ctrl-C keeps what is done and scores nothing), so that their
  figures are the model's. --partial scores with the vectors there are instead, and the output
  (text and --json: semantic: { embedded, total }) says how many.

Provider options: --provider embedded (default, offline) | ollama | local | auto | openai, --ollama-host <url>
  (default $OLLAMA_HOST or http://127.0.0.1:11434), --ollama-model <name>
  (default nomic-embed-text), --fallback (use the embedded model if the provider fails).
${LOCAL_PROVIDER_USAGE}`;

const BOOLEANS = new Set(['json', 'fallback', 'help', 'no-rerank', 'no-context', 'no-cache', 'defer-embedding', 'partial']);
const PROVIDER_OPTS = ['provider', 'ollama-host', 'ollama-model', 'fallback', ...LOCAL_MODEL_OPTS];

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
      case 'model':
        return await cmdModel(args);
      case 'check':
        return await cmdCheck(args, { librarySpec, providerFrom: (a) => providerFrom(a), runIndex, providerOpts: PROVIDER_OPTS, err, out });
      default:
        throw new UsageError(`unknown command "${args.command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError || errorCode(e) === 'invalid-options') {
      err(`error: ${(e as Error).message}\n\n${USAGE}`);
      return 2;
    }
    err(`error: ${(e as Error).message}`);
    return 1;
  }
}

function workspaceOf(args: ParsedArgs): string {
  return path.resolve(one(args, 'workspace') ?? process.cwd());
}

async function providerFrom(args: ParsedArgs, indexed?: { provider: string; model: string }): Promise<EmbeddingProvider> {
  const name = one(args, 'provider') ?? indexed?.provider ?? 'embedded';
  if (!PROVIDER_NAMES.includes(name as ProviderName)) throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(', ')} (got "${name}")`);
  const sameProvider = indexed?.provider === name ? indexed.model : undefined;
  const { provider } = await createProvider(
    {
      provider: name as ProviderName,
      ollamaHost: one(args, 'ollama-host') ?? process.env.OLLAMA_HOST,
      ollamaModel: one(args, 'ollama-model') ?? (name === 'ollama' ? sameProvider : undefined),
      ollamaQueryPrefix: one(args, 'query-prefix'),
      ollamaPassagePrefix: one(args, 'passage-prefix'),
      ...localConfigFrom(args, bundleDir, name === 'ollama' ? undefined : sameProvider),
    },
    { fallbackToEmbedded: args.flags.has('fallback'), onWarning: (w) => err(`warning: ${w}`) },
  );
  return provider;
}

/** OCR of scanned pages: --ocr auto|off, --ocr-lang eng+fra, --ocr-lang-dir <folder of .traineddata>. */
const OCR_OPTS = ['ocr', 'ocr-lang', 'ocr-lang-dir'];

/** A path given on the command line: relative to the current directory, as a shell user means it. */
const fromCwd = (p: string) => path.resolve(p);

/**
 * The library of `workspace`: its .vscode/settings.json read as the extension
 * reads its settings, with what the command line names instead. Both then go
 * through the engine's resolveLibrary, so the CLI and the extension index the
 * same files for the same workspace.
 */
async function librarySpec(args: ParsedArgs, workspace: string): Promise<{ library: LibrarySpec; settings: Settings }> {
  const { settings, problems } = await readWorkspaceSettings(workspace);
  for (const p of problems) err(`warning: ${p}`);
  const libraries = all(args, 'library');
  if (libraries.length) settings.libraryFolders = libraries.map(fromCwd);
  const bib = one(args, 'bib');
  if (bib !== undefined) settings.bibliographyFile = fromCwd(bib);
  if (all(args, 'include').length) settings.include = all(args, 'include');
  if (all(args, 'exclude').length) settings.exclude = all(args, 'exclude');
  if (all(args, 'primary').length) settings.primarySourceFolders = all(args, 'primary');
  const ocr = one(args, 'ocr');
  if (ocr !== undefined) {
    if (ocr !== 'auto' && ocr !== 'off') throw new UsageError('--ocr must be auto or off');
    settings.ocr = ocr;
  }
  const lang = one(args, 'ocr-lang');
  if (lang !== undefined) settings.ocrLanguages = lang;
  const langDir = one(args, 'ocr-lang-dir');
  if (langDir !== undefined) settings.ocrLanguageFolder = fromCwd(langDir);
  return { library: resolveLibrary(workspace, settings), settings };
}

async function cmdIndex(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['library', 'workspace', 'bib', 'include', 'exclude', 'primary', 'json', 'jobs', 'defer-embedding', ...OCR_OPTS, ...PROVIDER_OPTS]);
  const workspace = workspaceOf(args);
  const { library } = await librarySpec(args, workspace);
  // Like the extension, an unconfigured workspace is searched itself, but only one named on purpose.
  if (!library.fromSettings && one(args, 'workspace') === undefined) {
    throw new UsageError('index needs --library <dir>, or a --workspace whose .vscode/settings.json names similarSources.libraryFolders (or whose own PDFs are the library)');
  }
  const provider = await providerFrom(args);
  const report = await runIndex(args, library, provider);
  if (args.flags.has('json')) out(JSON.stringify(report, null, 2));
  else printIndexReport(report);
  return report.cancelled ? 130 : 0;
}

/** Indexes (incrementally) with progress on stderr; Ctrl-C cancels and keeps what is done. */
/** The CLI's index report: the engine's, with how much of the library the model covers after embedding. */
type CliIndexReport = LibraryIndexReport & { semantic?: { embedded: number; total: number } };

async function runIndex(args: ParsedArgs, library: LibrarySpec, provider: EmbeddingProvider): Promise<CliIndexReport> {
  // PDFs are extracted in worker threads (beside the bundle) while this thread embeds; --jobs 0: one worker, one file at a time.
  const jobs = one(args, 'jobs');
  const jobCount = jobs === undefined ? undefined : Number(jobs);
  if (jobCount !== undefined && !(Number.isInteger(jobCount) && jobCount >= 0 && jobCount <= 64)) throw new UsageError('--jobs takes a whole number from 0 to 64');
  // Ctrl-C: the PDF and OCR workers are stopped at once, what is done is committed and the lock
  // released (a second or two); a second Ctrl-C exits at once (the next run takes the lock over).
  // `kill` (SIGTERM) likewise: what is done is kept and the lock released, rather than left to a dead pid.
  const interrupt = cancelOnInterrupt('cancelling: saving what is done… (Ctrl-C again to stop at once)', { secondExits: true });
  let lastLine = 0;
  // A neural model's vectors come after the lexical index is committed: a cancel (or a
  // server gone) keeps a searchable index, and the next run goes on embedding.
  const background = embedsInBackground(provider);
  try {
    const report = await indexLibrary({
      library,
      provider,
      deferEmbedding: background,
      jobs: jobCount,
      workerDir: bundleDir,
      signal: interrupt.signal,
      onWarning: (w) => err(`warning: ${w}`),
      onProgress: (p) => {
        if (p.phase === 'scan') err(`indexing ${p.total} PDF files from ${library.folders.join(', ')} into ${indexDir(library.workspace)} (${provider.id} model ${provider.model})`);
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
    });
    if (!background || report.cancelled) return report;
    // analyze --partial: score with the vectors there are, as --defer-embedding leaves them.
    if (args.flags.has('defer-embedding') || args.flags.has('partial')) {
      const h = await providerHealth(library.workspace, provider);
      return h.state === 'ready' && h.semantic ? { ...report, semantic: { embedded: h.semantic.embedded, total: h.semantic.total } } : report;
    }
    const semantic = await embedVectors(library.workspace, provider, interrupt.signal);
    return { ...report, embedded: report.embedded + semantic.embedded, ms: report.ms + semantic.ms, cancelled: semantic.cancelled, semantic: { embedded: semantic.covered, total: semantic.total } };
  } finally {
    interrupt.stop();
  }
}

/**
 * Computes the vectors the index lacks for `provider` (embedPending), with progress on stderr;
 * a cancel keeps what was committed. A failure says that the lexical index stands.
 */
async function embedVectors(workspace: string, provider: EmbeddingProvider, signal: AbortSignal) {
  let lastLine = 0;
  return embedPending({
    workspace,
    provider,
    signal,
    onWarning: (w) => err(`warning: ${w}`),
    onProgress: (p) => {
      const now = Date.now();
      if (now - lastLine > 2000 || p.embedded >= p.total) {
        lastLine = now;
        err(`  semantic index ${semanticPercent({ model: provider.key, ...p })}% (${p.embedded} of ${p.total} passages embedded by ${provider.model})`);
      }
    },
  }).catch((e: unknown) => {
    // What was embedded before the failure (a server gone, a model that crashed) is committed.
    err(`the library's passages are indexed and searchable by their words; computing their vectors stopped:`);
    throw e;
  });
}

/**
 * Before `search` or `analyze` scores: a model that embeds in the background gets every vector
 * the index lacks first, so that the figures mean what they say (progress on stderr; Ctrl-C
 * keeps what was committed and scores nothing). With --partial, what there is is used, and the
 * output says how much (`semantic`). False when cancelled.
 */
async function vectorsBeforeScoring(args: ParsedArgs, workspace: string, provider: EmbeddingProvider): Promise<boolean> {
  if (!embedsInBackground(provider) || args.flags.has('partial')) return true;
  const health = await providerHealth(workspace, provider);
  // A missing or unready index is reported when it is opened.
  if (health.state !== 'ready' || !health.semantic) return true;
  const { embedded, total } = health.semantic;
  err(`${total - embedded} of ${total} passages have no vector of ${provider.model} yet: computing them before scoring (Ctrl-C keeps what is done; --partial scores with what there is)`);
  const interrupt = cancelOnInterrupt('cancelling: saving what is done…');
  try {
    const report = await embedVectors(workspace, provider, interrupt.signal).catch((e: unknown) => {
      if (e instanceof Error) e.message += ' (--partial scores with the vectors there are, the others by their words)';
      throw e;
    });
    if (report.cancelled) {
      err(`cancelled: ${report.covered} of ${report.total} passages have their vector now (saved); nothing was scored. Run again to go on, or add --partial to score with what there is.`);
      return false;
    }
    return true;
  } finally {
    interrupt.stop();
  }
}

function printIndexReport(r: CliIndexReport) {
  out(
    `${r.cancelled ? 'Cancelled; saved so far' : 'Indexed'}: ${r.sources} sources, ${r.passages} passages in ${(r.ms / 1000).toFixed(1)} s ` +
      `(${r.added} added, ${r.updated} updated, ${r.moved} moved, ${r.removed} removed, ${r.unchanged} unchanged; ${r.embedded} passages embedded).`,
  );
  if (r.semantic && r.semantic.embedded < r.semantic.total) {
    out(`Semantic index ${semanticPercent({ model: '', ...r.semantic })}%: ${r.semantic.embedded} of ${r.semantic.total} passages have their vector; the others are matched by their words until "index" is run again.`);
  }
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
  checkKnown(args, ['workspace', 'k', 'json', 'source-type', 'collection', 'partial', ...PROVIDER_OPTS]);
  const text = args.positionals.join(' ').trim();
  if (!text) throw new UsageError('search needs the text to look for, e.g. search "grain trade in the Mediterranean"');
  const k = intOption(args, 'k', 10, 1, 200);
  const sourceType = one(args, 'source-type') ?? 'both';
  if (!['primary', 'secondary', 'both'].includes(sourceType)) throw new UsageError('--source-type must be primary, secondary or both');
  const workspace = workspaceOf(args);
  const provider = await providerFrom(args, await indexedModel(workspace));
  if (!(await vectorsBeforeScoring(args, workspace, provider))) return 130;
  const index = await openIndex(workspace, provider);
  const hits = await search(index, text, {
    k,
    filter: { sourceType: sourceType as 'primary' | 'secondary' | 'both', collections: all(args, 'collection') },
  });
  const semantic = index.semantic && { embedded: index.semantic.embedded, total: index.semantic.total };
  if (args.flags.has('json')) {
    out(JSON.stringify({ ...(semantic ? { semantic } : {}), results: hits.map((h) => ({ ...h, score: round(h.score), cosine: round(h.cosine) })) }, null, 2));
    return 0;
  }
  if (index.semantic) out(`(${semanticNote(index.semantic)})`);
  if (!hits.length) {
    out('No passage matches (the index is loaded and searched; try other words or widen the filters).');
    return 0;
  }
  hits.forEach((h, i) => {
    const by = [h.authors.slice(0, 2).join('; '), h.year].filter(Boolean).join(', ');
    const page = h.pageLabel && h.pageLabel !== String(h.page) ? `p. ${h.pageLabel} (PDF page ${h.page})` : `p. ${h.page}`;
    out(`${i + 1}. ${h.title}${by ? ` — ${by}` : ''}, ${page}${h.ocr ? ' (text from OCR)' : ''}  [score ${round(h.score)}, cosine ${round(h.cosine)}]`);
    out(`   ${h.path}`);
    out(`   ${excerpt(h.text, 260)}`);
  });
  return 0;
}

async function cmdEval(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['beir', 'split', 'json', 'workspace', 'partial', ...PROVIDER_OPTS]);
  const dir = one(args, 'beir');
  if (!dir) throw new UsageError('eval needs --beir <dir>');
  const split = one(args, 'split') ?? 'test';
  const provider = await providerFrom(args);
  // A neural model embeds the whole corpus before any query is scored (committed as it goes: Ctrl-C
  // keeps it in --workspace); --partial scores with the vectors there are and says how many.
  const interrupt = cancelOnInterrupt('cancelling…');
  let result: Awaited<ReturnType<typeof runBeirEval>>;
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
    });
  } catch (e) {
    if (errorCode(e) !== 'cancelled') throw e;
    err((e as Error).message);
    return 130;
  } finally {
    interrupt.stop();
  }
  if (args.flags.has('json')) {
    out(JSON.stringify(result, null, 2));
    return 0;
  }
  out(`BEIR ${path.basename(path.resolve(dir))} (${split}): ${result.queries} queries, ${result.docs} documents, provider ${result.provider}`);
  if (result.semantic) {
    out(`PARTIAL (--partial): only ${result.semantic.embedded} of ${result.semantic.total} passages had their vector; the others were ranked by their words only. These are not the model's figures.`);
  }
  out(`                 nDCG@10  Recall@10  Recall@100  MRR@10`);
  const row = (name: string, m: BeirEvalBaseline) =>
    out(`${name.padEnd(16)} ${fmt(m['ndcg@10'])}   ${fmt(m['recall@10'])}     ${fmt(m['recall@100'])}      ${fmt(m['mrr@10'])}`);
  row(result.semantic ? 'Similar (partial)' : 'Similar Sources', result);
  row('  vectors alone', result.vectorOnly);
  row('  BM25 alone', result.lexicalOnly);
  row('plain BM25', result.baseline);
  out(`index ${(result.indexMs / 1000).toFixed(1)} s, queries ${(result.queryMs / result.queries).toFixed(1)} ms each`);
  return 0;
}

type BeirEvalBaseline = { 'ndcg@10': number; 'recall@10': number; 'recall@100': number; 'mrr@10': number };

async function cmdStatus(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['workspace', 'json']);
  const workspace = workspaceOf(args);
  const health = await indexHealth(workspace);
  // Damaged files stay listed until they change (the next index run replaces their record).
  const damaged = await damagedFiles(workspace);
  // A lock left by a run that was killed: not "indexing" (nobody is), and the next run takes it over.
  const left = await interruptedRun(workspace);
  const interrupted = left && `a previous indexing run (${left.pid ? `pid ${left.pid}` : 'a process'}${left.host && left.host !== os.hostname() ? ` on ${left.host}` : ''}${left.since ? `, started ${left.since}` : ''}) ended without finishing; the next run takes over`;
  if (args.flags.has('json')) out(JSON.stringify({ ...health, detail: describeHealth(health), damaged, ...(left ? { interrupted: { ...left, detail: interrupted } } : {}) }));
  else {
    out(describeHealth(health));
    if (interrupted) out(`  note: ${interrupted}`);
    for (const d of damaged) out(`  damaged: ${d.path} — ${d.problem}`);
  }
  return health.state === 'ready' ? 0 : 1;
}

/** What an analysis or a search made before the model's vectors were complete says of itself. */
function semanticNote(p: SemanticProgress): string {
  return `semantic index ${semanticPercent(p)}%: ${p.embedded} of ${p.total} passages have a vector of ${p.model}; the others were matched by their words only. Run "index" again to complete it`;
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
  const { title, segments, warnings } = await segmentMarkdown(text, granularityOf(args), { minWords: intOption(args, 'min-words', 4, 1, 50) });
  for (const w of warnings ?? []) err(`warning: ${w}`);
  if (args.flags.has('json')) {
    out(JSON.stringify({ title: title ?? null, segments: segments.map(({ id, type, startLine, endLine, title: t, text: x, query, searchable, headingPath }) => ({ id, type, startLine, endLine, title: t, text: x, query, searchable, headingPath })) }, null, 2));
    return 0;
  }
  for (const s of segments) out(`L${s.startLine}${s.endLine > s.startLine ? `–${s.endLine}` : ''}\t${s.type}\t${s.searchable ? '' : '(too short) '}${s.title}`);
  return 0;
}

async function cmdAnalyze(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['workspace', 'library', 'bib', 'primary', 'include', 'exclude', 'granularity', 'max-results', 'threshold', 'source-type', 'collection', 'no-rerank', 'no-context', 'no-cache', 'min-words', 'citation-template', 'rerank-model', 'json', 'jobs', 'partial', ...OCR_OPTS, ...PROVIDER_OPTS]);
  const { file, text } = await readDraft(args, 'analyze');
  const workspace = workspaceOf(args);
  const { library, settings } = await librarySpec(args, workspace);
  const provider = await providerFrom(args);
  // The library is indexed (incrementally) when one is named; an unconfigured workspace is not indexed unasked.
  if (library.fromSettings) {
    const report = await runIndex(args, library, provider);
    const changed = report.added + report.updated + report.moved + report.removed;
    err(`library: ${report.sources} sources, ${report.passages} passages${changed ? ` (${changed} changed)` : ''}${report.skipped.length ? `, ${report.skipped.length} skipped` : ''}`);
    for (const sk of report.skipped) err(`  skipped ${sk.path}: ${sk.reason}`);
    if (report.cancelled) {
      err('cancelled: what was indexed and embedded is saved; nothing was scored. Run again to go on, or add --partial to score with what there is.');
      return 130;
    }
  }
  if (!(await vectorsBeforeScoring(args, workspace, provider))) return 130;
  const threshold = one(args, 'threshold');
  const options: Partial<AnalysisOptions> = {
    granularity: granularityOf(args),
    maxResults: one(args, 'max-results') === undefined ? undefined : Number(one(args, 'max-results')),
    similarityThreshold: threshold === undefined ? undefined : Number(threshold),
    sourceType: one(args, 'source-type') as AnalysisOptions['sourceType'] | undefined,
    collectionFilter: all(args, 'collection').length ? all(args, 'collection') : null,
    useReranking: args.flags.has('no-rerank') ? 'off' : 'auto',
    useContextualEmbedding: !args.flags.has('no-context'),
    minWords: one(args, 'min-words') === undefined ? undefined : Number(one(args, 'min-words')),
  };
  const interrupt = cancelOnInterrupt(undefined);
  let result: AnalysisResult;
  try {
    result = await analyse(text, options, {
      index: () => openIndex(workspace, provider),
      workspace,
      documentPath: file,
      cache: args.flags.has('no-cache') ? false : { ttlHours: settings.cacheLifetimeHours },
      reranker: { host: one(args, 'ollama-host') ?? process.env.OLLAMA_HOST, model: one(args, 'rerank-model') },
      citationTemplate: one(args, 'citation-template'),
      signal: interrupt.signal,
      log: (l, level) => level !== 'debug' && err(l),
      onProgress: (p) => {
        if (p.current === 1 || p.current === p.total || p.current % 10 === 0) err(`analysing segment ${p.current} of ${p.total}`);
      },
    });
  } catch (e) {
    const health = errorHealth(e);
    if (health) {
      err(`error: ${(e as Error).message}`);
      if (health.state === 'missing') err('hint: pass --library <folder of PDFs>, or set similarSources.libraryFolders in .vscode/settings.json');
      return 1;
    }
    if (errorCode(e) === 'cancelled') {
      err('cancelled: nothing was cached');
      return 130;
    }
    throw e;
  } finally {
    interrupt.stop();
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
    ...(r.semantic ? { semantic: r.semantic } : {}),
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
  if (r.semantic) out(`(${semanticNote(r.semantic)})`);
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
      const flags = [rec.reranked ? 'reranked' : '', rec.alreadyCited ? 'already cited' : '', rec.sourceType === 'primary' ? 'primary' : '', rec.language ? `in ${rec.language === 'fr' ? 'French' : 'English'}` : ''].filter(Boolean).join(', ');
      out(`  ${i + 1}. ${String(Math.round(rec.similarity * 100)).padStart(3)}% ${rec.band.padEnd(7)}  ${rec.title}${who ? ` — ${who}` : ''}, p. ${page}${flags ? `  [${flags}]` : ''}`);
      out(`          ${rec.citation}`);
      out(`          “${excerpt(rec.preview, 200)}”`);
    });
  }
}
