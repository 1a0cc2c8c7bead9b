/**
 * The headless CLI: the same engine as the extension, for scripts and
 * benchmarks. Progress and warnings go to stderr, results to stdout; exit 2 on
 * bad usage. Each command lives in its own module; this one reads the command
 * line and says how it went.
 */
import { errorCode } from '../engine';
import { parseArgs, UsageError, type ParsedArgs } from './args';
import { cmdAnalyze, cmdSegment } from './analyzeCommand';
import { CHECK_USAGE, cmdCheck } from './checkCommand';
import { cmdIndex, cmdStatus, SERVER_OPTS, SERVER_USAGE } from './indexCommand';
import { cmdModel, LOCAL_MODEL_OPTS, LOCAL_PROVIDER_USAGE, MODEL_USAGE } from './modelCommand';
import { cmdEval, cmdSearch } from './searchCommand';
import { err, lines, out, warnings } from './output';

const USAGE = `Similar Sources — find the passages of your PDF library worth citing.

Usage: node dist/cli.js <command> [options]

Commands:
  index   --library <dir> [--library <dir>…] [--workspace <dir>] [--bib <file>]
          [--include <glob>…] [--exclude <glob>…] [--primary <dir|glob>…]
          [--provider …] [--jobs N] [--ocr auto|off] [--ocr-lang eng+fra]
          [--ocr-lang-dir <dir>] [--zotero [<dataDir>]] [--defer-embedding] [--json]
          Builds or updates the index in <workspace>/.similar-sources. --zotero adds Zotero's
          library (its PDF attachments, with Zotero's titles, citekeys and collections; nothing
          is written into Zotero) from <dataDir>, else the folder Zotero's profile names, else ~/Zotero. PDFs are read in
          N worker threads (default: cores - 1, at most 4, but 2 on a 2-core machine; 0 = one worker, one file at a time).
          Scanned pages are recognised (OCR, offline) after the other files. With a
          neural model (local, ollama, openai), passages are committed first (searchable
          by their words), then embedded, committed every few seconds: Ctrl-C keeps what
          is done and the next run goes on; --defer-embedding stops after the first part.
  search  "<text>" [--workspace <dir>] [--k N] [--source-type secondary|primary|both]
          [--collection <name>…] [--zotero[=<dataDir>]] [--provider …] [--partial] [--json]
          Prints the top passages with their pages. --collection takes a Zotero collection by its
          path ("Thesis/Chapter 1"); search reads the index, built with --zotero by index.
  eval    --beir <dir> [--split train|test] [--workspace <dir>] [--provider …] [--partial] [--json]
          [--rerank-model <folder|org/name> [--rerank-top N] [--rerank-onnx-file F]] [--no-rerank]
          Retrieval quality on a BEIR folder, with a plain-BM25 baseline; with a local reranker
          (a cross-encoder), the same ranking with its top N (default 20) reordered by it, and its time a query.
  status  [--workspace <dir>] [--json]
          Says whether the index exists and what it holds.
  segment <file.md|.qmd|.Rmd|.tex> [--workspace <dir>] [--granularity section|paragraph|sentence] [--format md|qmd|rmd|tex] [--json]
          Prints the segments of a Markdown, Quarto, R Markdown or LaTeX draft (the format by extension).
  analyze <file.md|.qmd|.Rmd|.tex> [--format md|qmd|rmd|tex] [--workspace <dir>] [--library <dir>…] [--bib <file>] [--zotero [<dataDir>]] [--primary <dir|glob>…]
          [--granularity …] [--max-results N] [--threshold X] [--source-type secondary|primary|both]
          [--collection C…] [--no-rerank] [--no-context] [--min-words N] [--citation-template T]
          [--rerank-model M] [--rerank-onnx-file F] [--no-cache] [--provider …] [--partial] [--json]
          Indexes the library if needed, then lists, for each segment, the sources worth citing.
          --rerank-model: a local reranker's folder or repository id (org/name; a cross-encoder, used
          before any LLM; default the similarSources.localReranker setting), or an Ollama model's name.
          Without --library, the workspace's .vscode/settings.json (similarSources.libraryFolders) is used.
${CHECK_USAGE}
  mcp     [--workspace <dir>] [--provider …]
          Serves the library to an AI assistant (an MCP client: VS Code, Claude Desktop…) over
          the Model Context Protocol on stdin/stdout: tools search, sources_for and check_citations,
          and the index's status as the resource similar-sources://index/status. Read-only (index
          the library first); without --provider, the model the index was built with. One JSON-RPC
          message a line, at most 4 MiB; why it stops is said on stderr (stdin closed: exit 0).
${MODEL_USAGE}

Neural models: with a neural model (local, ollama, openai), search, analyze and eval first compute every vector
  the index lacks (progress on stderr; Ctrl-C keeps what is done and scores nothing), so that their
  figures are the model's. --partial scores with the vectors there are instead, and the output
  (text and --json: semantic: { embedded, total }) says how many.

${SERVER_USAGE}

Provider options: --provider embedded (default, offline) | ollama | local | auto | openai, --ollama-host <url>
  (default $OLLAMA_HOST or http://127.0.0.1:11434), --ollama-model <name>
  (default nomic-embed-text), --fallback (use the embedded model if the provider fails).
${LOCAL_PROVIDER_USAGE}`;

/** Every option of every command (which command takes which is checked by each: checkKnown). */
const OPTIONS = {
  booleans: ['json', 'fallback', 'help', 'no-rerank', 'no-context', 'no-cache', 'defer-embedding', 'partial'],
  optionalValues: ['zotero'],
  strings: [
    ...['library', 'workspace', 'bib', 'include', 'exclude', 'primary', 'jobs', 'ocr', 'ocr-lang', 'ocr-lang-dir'],
    ...[
      'k',
      'source-type',
      'collection',
      'beir',
      'split',
      'granularity',
      'max-results',
      'threshold',
      'min-words',
      'citation-template',
      'rerank-model',
      'rerank-onnx-file',
      'rerank-top',
      'format',
    ],
    ...['provider', 'ollama-host', 'ollama-model', ...LOCAL_MODEL_OPTS],
    ...SERVER_OPTS,
  ],
};
const PROVIDER_OPTS = ['provider', 'ollama-host', 'ollama-model', 'fallback', ...LOCAL_MODEL_OPTS];

export async function main(argv: string[]): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv, OPTIONS);
    if (!args.command || args.flags.has('help') || args.command === 'help') {
      lines(out, USAGE);
      return args.command ? 0 : 1;
    }
    switch (args.command) {
      case 'index':
        return await cmdIndex(args, [...PROVIDER_OPTS, ...SERVER_OPTS]);
      case 'search':
        return await cmdSearch(args, [...PROVIDER_OPTS, ...SERVER_OPTS]);
      case 'eval':
        return await cmdEval(args, PROVIDER_OPTS);
      case 'status':
        return await cmdStatus(args);
      case 'segment':
        return await cmdSegment(args);
      case 'analyze':
      case 'analyse':
        return await cmdAnalyze(args, [...PROVIDER_OPTS, ...SERVER_OPTS]);
      case 'model':
        return await cmdModel(args);
      case 'mcp':
        // Loaded on demand: the MCP SDK adds a fifth to the bundle, which other commands need not parse.
        return await (await import('./mcpCommand')).cmdMcp(args, [...PROVIDER_OPTS, ...SERVER_OPTS]);
      case 'check':
        return await cmdCheck(args, [...PROVIDER_OPTS, ...SERVER_OPTS]);
      default:
        throw new UsageError(`unknown command "${args.command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError || errorCode(e) === 'invalid-options') {
      err(`error: ${(e as Error).message}`);
      err('');
      lines(err, USAGE);
      return 2;
    }
    // A message can embed a file name or a field: `err` shows its controls and newlines escaped.
    err(`error: ${(e as Error).message}`);
    return 1;
  } finally {
    // What a flood of warnings left out, summed up last.
    warnings.flush();
  }
}
