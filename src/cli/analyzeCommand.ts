/**
 * `segment` (the segments of a Markdown draft) and `analyze` (for each segment,
 * the sources worth citing: the library indexed first when one is named).
 */
import * as path from 'node:path';
import { errorCode, errorHealth, namesCrossEncoder, segmentDraft, type AnalysisOptions, type AnalysisResult } from '../engine';
import { shortAuthors } from '../shared/citation';
import { LATEX_CITATION_TEMPLATES, latexCitationStyle } from '../shared/latexStyle';
import type { Granularity } from '../shared/settings';
import { terminalText } from '../shared/untrusted';
import { all, checkKnown, intOption, one, settingOption, UsageError, type ParsedArgs } from './args';
import { readDraftFile } from './draftFile';
import { OCR_OPTS } from './indexCommand';
import { cancelOnInterrupt } from './interrupt';
import { err, listed, out, outJson, warn, warnings, WARNING_MAX } from './output';
import { excerpt, prose, semanticNote } from './text';
import { cliEngine, readyToScore, workspaceOf } from './workspace';

/** --granularity, one of the setting's choices (default paragraph). */
/** `L12–14`, or `chapters/intro.tex:L12–14` for a segment of a file a LaTeX draft reads (its name as a name: hidden characters shown). */
function where(s: { file?: string; startLine: number; endLine: number }): string {
  const lines = `L${s.startLine}${s.endLine > s.startLine ? `–${s.endLine}` : ''}`;
  return s.file === undefined ? lines : `${terminalText(s.file, 200)}:${lines}`;
}

function granularityOf(args: ParsedArgs): Granularity {
  return settingOption(args, 'granularity', 'granularity') ?? 'paragraph';
}

function readDraft(args: ParsedArgs, command: string) {
  return readDraftFile(args, command, 'error');
}

export async function cmdSegment(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['granularity', 'json', 'min-words', 'format', 'workspace']);
  const { file, text, format } = await readDraft(args, 'segment');
  // A LaTeX draft's \input files are segmented with it, within the workspace (the current folder by default).
  const {
    title,
    segments,
    warnings: found,
  } = await segmentDraft(text, format, granularityOf(args), {
    minWords: intOption(args, 'min-words', 4, 1, 50),
    draftPath: path.resolve(file),
    workspace: workspaceOf(args),
  });
  for (const w of found ?? []) warn(w);
  if (args.flags.has('json')) {
    outJson(
      JSON.stringify(
        {
          title: title ?? null,
          segments: segments.map(({ id, file: f, type, startLine, endLine, title: t, text: x, query, searchable, headingPath }) => ({
            id,
            ...(f !== undefined ? { file: f } : {}),
            type,
            startLine,
            endLine,
            title: t,
            text: x,
            query,
            searchable,
            headingPath,
          })),
        },
        null,
        2,
      ),
    );
    return 0;
  }
  // The title is the draft's text: as prose, no tab or newline in it breaks the columns.
  for (const s of segments) out(`${where(s)}\t${s.type}\t${s.searchable ? '' : '(too short) '}${prose(s.title, 400)}`);
  return 0;
}

export async function cmdAnalyze(args: ParsedArgs, providerOpts: readonly string[]): Promise<number> {
  checkKnown(args, [
    'workspace',
    'library',
    'bib',
    'zotero',
    'primary',
    'include',
    'exclude',
    'granularity',
    'max-results',
    'threshold',
    'source-type',
    'collection',
    'no-rerank',
    'no-context',
    'no-cache',
    'min-words',
    'citation-template',
    'rerank-model',
    'rerank-onnx-file',
    'json',
    'jobs',
    'partial',
    'format',
    ...OCR_OPTS,
    ...providerOpts,
  ]);
  const { file, text, format } = await readDraft(args, 'analyze');
  const cli = await cliEngine(args, { library: true });
  // The library is indexed (incrementally) when one is named; an unconfigured workspace is not indexed unasked.
  const ready = await readyToScore(args, cli, {
    index: cli.library.fromSettings || args.options.has('zotero'),
    indexed: (report) => {
      warnings.flush(' (index --json lists them in "warnings")');
      if (!report) return;
      const changed = report.added + report.updated + report.moved + report.removed;
      err(
        `library: ${report.sources} sources, ${report.passages} passages${changed ? ` (${changed} changed)` : ''}${report.skipped.length ? `, ${report.skipped.length} skipped` : ''}`,
      );
      listed(
        err,
        report.skipped,
        (sk) => `  skipped ${terminalText(sk.path, 1000)}: ${terminalText(sk.reason, 400)}`,
        (n) => `  … and ${n} more skipped files (index --json lists them all)`,
      );
    },
  });
  if (!ready) return 130;
  const threshold = one(args, 'threshold');
  const rerankModel = one(args, 'rerank-model');
  // A folder or an org/name repository is a local reranker; a bare name, an Ollama model; none given, the setting's reranker.
  const crossEncoder = rerankModel ? (namesCrossEncoder(rerankModel) ? rerankModel : undefined) : cli.settings.localReranker || undefined;
  const options: Partial<AnalysisOptions> = {
    granularity: granularityOf(args),
    maxResults: one(args, 'max-results') === undefined ? undefined : Number(one(args, 'max-results')),
    similarityThreshold: threshold === undefined ? undefined : Number(threshold),
    sourceType: one(args, 'source-type') as AnalysisOptions['sourceType'] | undefined,
    collectionFilter: all(args, 'collection').length ? all(args, 'collection') : null,
    // A reranker named on the command line was asked for: when it cannot run, the result says why.
    useReranking: args.flags.has('no-rerank') ? 'off' : crossEncoder && rerankModel ? 'on' : 'auto',
    useContextualEmbedding: !args.flags.has('no-context'),
    minWords: one(args, 'min-words') === undefined ? undefined : Number(one(args, 'min-words')),
  };
  const interrupt = cancelOnInterrupt(undefined);
  let result: AnalysisResult;
  try {
    result = await cli.engine.analyze(text, options, {
      documentPath: file,
      cache: args.flags.has('no-cache') ? false : { ttlHours: cli.settings.cacheLifetimeHours },
      reranker: {
        host: one(args, 'ollama-host') ?? process.env.OLLAMA_HOST,
        model: crossEncoder ? cli.settings.rerankModel : rerankModel,
        local: crossEncoder,
        onnxFile: one(args, 'rerank-onnx-file'),
        cacheDir: one(args, 'cache-dir'),
      },
      // A LaTeX draft's cards cite in its own style (biblatex, natbib or plain, from its preamble).
      citationTemplate: one(args, 'citation-template') ?? (format === 'latex' ? LATEX_CITATION_TEMPLATES[latexCitationStyle('auto', text)] : undefined),
      format,
      draftPath: path.resolve(file),
      signal: interrupt.signal,
      log: (l, level) => level !== 'debug' && err(terminalText(l, WARNING_MAX)),
      onProgress: (p) => {
        if (p.current === 1 || p.current === p.total || p.current % 10 === 0) err(`analysing segment ${p.current} of ${p.total}`);
      },
    });
  } catch (e) {
    const health = errorHealth(e);
    if (health) {
      err(`error: ${(e as Error).message}`);
      if (health.state === 'missing' && !health.server)
        err('hint: pass --library <folder of PDFs>, or set similarSources.libraryFolders in .vscode/settings.json');
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
    outJson(JSON.stringify(jsonReport(result), null, 2));
    return 0;
  }
  printAnalysis(result, terminalText(path.relative(process.cwd(), file) || file, 1000));
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
      ...(s.file !== undefined ? { file: s.file } : {}),
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
  // The draft's title and headings, the sources' titles and text as prose; a citation as a name
  // (it is copied into the draft: a hidden character in its key is shown, not removed).
  out(
    `${r.documentTitle === null ? name : prose(r.documentTitle, 400)} — ${r.segments.length} segments (${searched} searched) in ${(r.stats.ms / 1000).toFixed(2)} s${r.fromCache ? ', from the cache' : r.stats.segmentsFromCache ? `, ${r.stats.segmentsFromCache} from the cache` : ''}`,
  );
  if (r.reranking.note) out(`(${r.reranking.note})`);
  if (r.semantic) out(`(${semanticNote(r.semantic)})`);
  for (const s of r.segments) {
    const lines = where(s);
    out('');
    out(`${lines.padEnd(9)} ${s.type}: ${prose(s.title, 400)}`);
    if (s.status === 'too-short') {
      out('          (too short to search)');
      continue;
    }
    if (!s.recommendations.length) {
      out(`          no source above the similarity threshold (${r.options.similarityThreshold})`);
      continue;
    }
    s.recommendations.forEach((rec, i) => {
      const who = [prose(shortAuthors(rec.authors), 200), rec.year].filter(Boolean).join(' ');
      const page = rec.pageLabel === null ? String(rec.page) : terminalText(rec.pageLabel, 40);
      const flags = [
        rec.reranked ? 'reranked' : '',
        rec.alreadyCited ? 'already cited' : '',
        rec.sourceType === 'primary' ? 'primary' : '',
        rec.language ? `in ${rec.language === 'fr' ? 'French' : 'English'}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      out(
        `  ${i + 1}. ${String(Math.round(rec.similarity * 100)).padStart(3)}% ${rec.band.padEnd(7)}  ${prose(rec.title, 400)}${who ? ` — ${who}` : ''}, p. ${page}${flags ? `  [${flags}]` : ''}`,
      );
      out(`          ${terminalText(rec.citation, 1000)}`);
      out(`          “${excerpt(prose(rec.preview, 2000), 200)}”`);
      if (rec.highlight)
        out(`          you highlighted this, p. ${prose(rec.highlight.page, 40)}${rec.highlight.comment ? ` — ${prose(rec.highlight.comment, 200)}` : ''}`);
    });
  }
}
