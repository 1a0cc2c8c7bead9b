/**
 * The CLI's engine for a workspace: its .vscode/settings.json with what the
 * command line names instead, the provider the flags name, and the engine's
 * warnings and progress as lines on stderr. Indexing and the vectors before
 * scoring go through it, so the CLI keeps only its lines and exit codes.
 */
import * as path from 'node:path';
import {
  createEngine,
  createProvider,
  indexedModel,
  locateZotero,
  PROVIDER_NAMES,
  readWorkspaceSettings,
  type EmbeddingProvider,
  type EngineProgress,
  type IndexRunOptions,
  type IndexRunReport,
  type LibrarySpec,
  type ProviderConfig,
  type ProviderName,
  type WorkspaceEngine,
} from '../engine';
import { describeHealth, semanticPercent } from '../shared/health';
import { defaultSettings, type Settings } from '../shared/settings';
import { terminalText } from '../shared/untrusted';
import { all, intOption, one, settingOption, UsageError, type ParsedArgs } from './args';
import { cancelOnInterrupt } from './interrupt';
import { localConfigFrom } from './modelCommand';
import { err, warn } from './output';

// The line writers live in output.ts (each line made safe for the terminal); mcp takes err from here.
export { err, out } from './output';

/** A path given on the command line: relative to the current directory, as a shell user means it. */
const fromCwd = (p: string) => path.resolve(p);

export function workspaceOf(args: ParsedArgs): string {
  return path.resolve(one(args, 'workspace') ?? process.cwd());
}

/** The provider the flags name; without --provider, the one the index was built with (`indexed`), else the embedded model. */
export function providerConfigFrom(args: ParsedArgs, indexed?: { provider: string; model: string }): ProviderConfig {
  const name = one(args, 'provider') ?? indexed?.provider ?? 'embedded';
  if (!PROVIDER_NAMES.includes(name as ProviderName)) throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(', ')} (got "${name}")`);
  const sameProvider = indexed?.provider === name ? indexed.model : undefined;
  return {
    provider: name as ProviderName,
    ollamaHost: one(args, 'ollama-host') ?? process.env.OLLAMA_HOST,
    ollamaModel: one(args, 'ollama-model') ?? (name === 'ollama' ? sameProvider : undefined),
    ollamaQueryPrefix: one(args, 'query-prefix'),
    ollamaPassagePrefix: one(args, 'passage-prefix'),
    ...localConfigFrom(args, name === 'ollama' ? undefined : sameProvider),
  };
}

/** The provider the flags name, for a command without a workspace library (eval). */
export async function providerFrom(args: ParsedArgs): Promise<EmbeddingProvider> {
  const { provider } = await createProvider(providerConfigFrom(args), { fallbackToEmbedded: args.flags.has('fallback'), onWarning: warn });
  return provider;
}

/**
 * The settings of `workspace`: its .vscode/settings.json read as the extension
 * reads its settings, with what the command line names instead. The engine then
 * resolves the library from them (resolveLibrary), so the CLI and the extension
 * index the same files for the same workspace.
 */
async function settingsOf(args: ParsedArgs, workspace: string): Promise<Settings> {
  const { settings, problems } = await readWorkspaceSettings(workspace);
  for (const p of problems) warn(p);
  const libraries = all(args, 'library');
  if (libraries.length) settings.libraryFolders = libraries.map(fromCwd);
  const bib = one(args, 'bib');
  if (bib !== undefined) settings.bibliographyFile = fromCwd(bib);
  if (all(args, 'include').length) settings.include = all(args, 'include');
  if (all(args, 'exclude').length) settings.exclude = all(args, 'exclude');
  if (all(args, 'primary').length) settings.primarySourceFolders = all(args, 'primary');
  const zotero = one(args, 'zotero');
  if (zotero !== undefined) {
    // Asked for by name: Zotero is read even when the settings turn it off, and not finding it is said.
    settings.zotero = 'auto';
    settings.zoteroDataDir = zotero ? fromCwd(zotero) : (await locateZotero()).dataDir;
  }
  const ocr = settingOption(args, 'ocr', 'ocr');
  if (ocr !== undefined) settings.ocr = ocr;
  const lang = one(args, 'ocr-lang');
  if (lang !== undefined) settings.ocrLanguages = lang;
  const langDir = one(args, 'ocr-lang-dir');
  if (langDir !== undefined) settings.ocrLanguageFolder = fromCwd(langDir);
  return settings;
}

/** A workspace's engine as a command uses it: the provider it made last names the progress lines. */
export interface CliEngine {
  engine: WorkspaceEngine;
  workspace: string;
  settings: Settings;
  library: LibrarySpec;
  provider(): Promise<EmbeddingProvider>;
}

/**
 * The engine of the --workspace (default: the current directory). `library`: its settings and the
 * library flags count (index, analyze, check, mcp); otherwise the defaults (search: the index is all it reads),
 * and without --provider the provider the index was built with (also with `providerFromIndex`).
 */
export async function cliEngine(args: ParsedArgs, opts: { library: boolean; providerFromIndex?: boolean }): Promise<CliEngine> {
  const workspace = workspaceOf(args);
  const settings = opts.library ? await settingsOf(args, workspace) : defaultSettings();
  // A lab's library server: read from there (search, analyze), or published to (index).
  const server = one(args, 'server');
  if (server !== undefined) settings.libraryServer = server;
  const schema = one(args, 'schema');
  if (schema !== undefined) settings.libraryServerSchema = schema;
  // `providerFromIndex`: the settings count, and the index's model too (mcp: it reads, never indexes).
  const config = providerConfigFrom(args, opts.library && !opts.providerFromIndex ? undefined : await indexedModel(workspace));
  let current: EmbeddingProvider | undefined;
  const engine = createEngine({
    workspace,
    settings,
    provider: config,
    fallbackToEmbedded: args.flags.has('fallback'),
    // A line a second while reading, one every two seconds while embedding (each slice commits every few).
    progressEveryMs: { index: 1000, embed: 2000 },
    host: {
      onWarning: warn,
      onProgress: (p) => progressLine(p, engine, current),
    },
  });
  return {
    engine,
    workspace,
    settings,
    library: engine.library(),
    provider: async () => (current = await engine.provider()),
  };
}

function progressLine(p: EngineProgress, engine: WorkspaceEngine, provider: EmbeddingProvider | undefined): void {
  if (p.kind === 'embed') {
    err(
      `  semantic index ${semanticPercent({ model: p.model, embedded: p.embedded, total: p.total })}% (${p.embedded} of ${p.total} passages embedded by ${p.modelName})`,
    );
    return;
  }
  const library = engine.library();
  // A file name can hold anything but "/" (ESC, a newline…): escaped, so that it is still recognisable.
  const file = p.file ? terminalText(path.basename(p.file), 200) : '';
  // A Zotero folder named (setting or --zotero) joins the folders set, or stands for the library alone.
  const from = library.zotero?.dataDir ? [...(library.fromSettings ? library.folders : []), `Zotero (${library.zotero.dataDir})`] : library.folders;
  if (p.phase === 'scan') err(`indexing ${p.total} PDF files from ${from.join(', ')} into ${engine.indexDir} (${provider?.id} model ${provider?.model})`);
  else if (p.phase === 'read') err(`  [${p.done + 1}/${p.total}] ${file}`);
  else if (p.phase === 'ocr' && p.done > 0) err(`  OCR: page ${p.done} of ${p.total}, ${file}`);
}

/**
 * Indexes (incrementally) with progress on stderr; Ctrl-C cancels and keeps what is done. A neural
 * model's vectors follow within the command, unless --defer-embedding (or --partial: score with the
 * vectors there are) leaves them for later, or the engine says otherwise (`vectors`); the report
 * then says how many passages have one.
 */
export async function runIndex(args: ParsedArgs, cli: CliEngine, opts: Pick<IndexRunOptions, 'vectors' | 'rebuild'> = {}): Promise<IndexRunReport> {
  // PDFs are extracted in worker threads (beside the bundle) while this thread embeds; --jobs 0: one worker, one file at a time.
  const jobs = args.options.has('jobs') ? intOption(args, 'jobs', 0, 0, 64) : undefined;
  await cli.provider();
  // Ctrl-C: the PDF and OCR workers are stopped at once, what is done is committed and the lock
  // released (a second or two); a second Ctrl-C exits at once (the next run takes the lock over).
  // `kill` (SIGTERM) likewise: what is done is kept and the lock released, rather than left to a dead pid.
  const interrupt = cancelOnInterrupt('cancelling: saving what is done… (Ctrl-C again to stop at once)', { secondExits: true });
  try {
    const later = args.flags.has('defer-embedding') || args.flags.has('partial');
    return await cli.engine.index({ jobs, rebuild: opts.rebuild, signal: interrupt.signal, vectors: opts.vectors ?? (later ? 'later' : 'wait') });
  } finally {
    interrupt.stop();
  }
}

/**
 * Before `search` or `analyze` scores, the engine makes its index ready (`ready`): with `index` (a
 * library is named), indexed first (progress on stderr; `indexed` says what the run did, or that it failed); then a
 * model that embeds in the background gets every vector the index lacks, so that the figures mean
 * what they say (progress on stderr; Ctrl-C keeps what was committed and scores nothing). With
 * --partial, what there is is used, and the output says how much (`semantic`). False when
 * cancelled, said on stderr; an index that cannot serve is reported when it is opened.
 */
export async function readyToScore(
  args: ParsedArgs,
  cli: CliEngine,
  opts: { index: boolean; indexed?(report: IndexRunReport | undefined): void },
): Promise<boolean> {
  const r = await cli.engine.ready({
    provider: await cli.provider(),
    index: opts.index ? 'always' : 'never',
    vectors: args.flags.has('partial') ? 'partial' : 'wait',
    runIndex: async (o) => {
      let report: IndexRunReport | undefined;
      try {
        return (report = await runIndex(args, cli, o));
      } finally {
        opts.indexed?.(report);
      }
    },
    completeVectors: async (provider, { embedded, total }) => {
      err(
        `${total - embedded} of ${total} passages have no vector of ${provider.model} yet: computing them before scoring (Ctrl-C keeps what is done; --partial scores with what there is)`,
      );
      const interrupt = cancelOnInterrupt('cancelling: saving what is done…');
      try {
        return await cli.engine.completeVectors(provider, interrupt.signal).catch((e: unknown) => {
          if (e instanceof Error) e.message += ' (--partial scores with the vectors there are, the others by their words)';
          throw e;
        });
      } finally {
        interrupt.stop();
      }
    },
  });
  // Out of reach, a library server's generation copied on this machine serves: said, as it may not be the newest.
  if (r.ready && r.health.state === 'unreachable') warn(`library server ${describeHealth(r.health)}`);
  if (r.ready || r.why !== 'cancelled') return true;
  if (r.vectors)
    err(
      `cancelled: ${r.vectors.covered} of ${r.vectors.total} passages have their vector now (saved); nothing was scored. Run again to go on, or add --partial to score with what there is.`,
    );
  else err('cancelled: what was indexed and embedded is saved; nothing was scored. Run again to go on, or add --partial to score with what there is.');
  return false;
}
