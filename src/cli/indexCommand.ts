/**
 * `index` (build or update the index, then a neural model's vectors) and
 * `status` (what the index holds, a run that was interrupted, damaged files).
 */
import * as os from 'node:os';
import { createEngine, type IndexRunReport, type PublishReport } from '../engine';
import { describeHealth, semanticPercent } from '../shared/health';
import { defaultSettings } from '../shared/settings';
import { terminalText } from '../shared/untrusted';
import { checkKnown, one, UsageError, type ParsedArgs } from './args';
import { cancelOnInterrupt } from './interrupt';
import { err, listed, out, outJson, warnings } from './output';
import { cliEngine, runIndex, workspaceOf, type CliEngine } from './workspace';

/** A lab's library server: index publishes to it, search and analyze read from it (docs/team-library.md). */
export const SERVER_OPTS = ['server', 'schema'];
export const SERVER_USAGE = `Library server (a lab's shared library on PostgreSQL + pgvector; docs/team-library.md):
  --server <postgres://user@host:port/db> [--schema <name>] (default similar_sources; the password from
  PGPASSWORD or ~/.pgpass, or in the URL): index indexes here, then publishes the index to the server as its
  next generation (atomic; two publishers take turns); search, analyze, check and mcp read the library from the server,
  with no PDF, index or model weights here. Also the settings similarSources.libraryServer and libraryServerSchema.`;

/** OCR of scanned pages: --ocr auto|off, --ocr-lang eng+fra, --ocr-lang-dir <folder of .traineddata>. */
export const OCR_OPTS = ['ocr', 'ocr-lang', 'ocr-lang-dir'];

export async function cmdIndex(args: ParsedArgs, providerOpts: readonly string[]): Promise<number> {
  checkKnown(args, ['library', 'workspace', 'bib', 'zotero', 'include', 'exclude', 'primary', 'json', 'jobs', 'defer-embedding', ...OCR_OPTS, ...providerOpts]);
  if (args.options.has('server') && args.flags.has('defer-embedding'))
    throw new UsageError('--defer-embedding cannot be used with --server: a publication carries every vector');
  const cli = await cliEngine(args, { library: true });
  // Like the extension, an unconfigured workspace is searched itself, but only one named on purpose.
  if (!cli.library.fromSettings && !args.options.has('zotero') && one(args, 'workspace') === undefined) {
    throw new UsageError(
      'index needs --library <dir> or --zotero [<dataDir>], or a --workspace whose .vscode/settings.json names similarSources.libraryFolders (or whose own PDFs are the library)',
    );
  }
  // The run's warnings are all in its report (--json: "warnings"); stderr shows 20 of a kind.
  const report = await runIndex(args, cli).finally(() => warnings.flush(' (index --json lists them in "warnings")'));
  const server = cli.engine.server();
  const published = server && !report.cancelled ? await publishIndex(cli) : undefined;
  if (args.flags.has('json')) outJson(JSON.stringify(published ? { ...report, published } : report, null, 2));
  else {
    printIndexReport(report);
    if (published) printPublished(published);
  }
  return report.cancelled ? 130 : 0;
}

async function publishIndex(cli: CliEngine): Promise<PublishReport> {
  err('publishing the index to the library server');
  const interrupt = cancelOnInterrupt('cancelling the publication: the server keeps its previous generation', { secondExits: true });
  try {
    return await cli.engine.publish({ publisher: `${os.userInfo().username}@${os.hostname()} pid ${process.pid}`, signal: interrupt.signal });
  } finally {
    interrupt.stop();
  }
}

function printPublished(p: PublishReport) {
  out(
    `Published generation ${p.generation} to ${p.server}: ${p.sources} sources, ${p.passages} passages ` +
      `(${p.sent} PDFs sent, ${p.kept} already there${p.removed ? `, ${p.removed} no longer used removed` : ''}); models: ${p.models.join(', ') || 'none complete'}.`,
  );
}

function printIndexReport(r: IndexRunReport) {
  out(
    `${r.cancelled ? 'Cancelled; saved so far' : 'Indexed'}: ${r.sources} sources, ${r.passages} passages in ${(r.ms / 1000).toFixed(1)} s ` +
      `(${r.added} added, ${r.updated} updated, ${r.moved} moved, ${r.removed} removed, ${r.unchanged} unchanged; ${r.embedded} passages embedded).`,
  );
  if (r.semantic && r.semantic.embedded < r.semantic.total) {
    out(
      `Semantic index ${semanticPercent({ model: '', ...r.semantic })}%: ${r.semantic.embedded} of ${r.semantic.total} passages have their vector; the others are matched by their words until "index" is run again.`,
    );
  }
  if (r.ocr.pages)
    out(
      `OCR: ${r.ocr.pages} page${r.ocr.pages > 1 ? 's' : ''} in ${r.ocr.files} file${r.ocr.files > 1 ? 's' : ''} (${r.ocr.recognised} recognised, ${r.ocr.fromCache} from the cache).`,
    );
  // A run over 100,000 unreadable files lists 20 of them; --json lists them all.
  if (r.damaged.length) {
    out(`Damaged, indexed with what could be read:`);
    listed(
      out,
      r.damaged,
      (d) => `  ${fileLine(d.path, d.problem)}`,
      (n) => `  … and ${n} more damaged files (--json lists them all)`,
    );
  }
  if (r.skipped.length) {
    out(`Skipped ${r.skipped.length} file${r.skipped.length > 1 ? 's' : ''}:`);
    listed(
      out,
      r.skipped,
      (s) => `  ${fileLine(s.path, s.reason)}`,
      (n) => `  … and ${n} more skipped files (--json lists them all)`,
    );
  }
  out(`Index fingerprint: ${r.fingerprint}`);
}

export async function cmdStatus(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['workspace', 'json', ...SERVER_OPTS]);
  // Damaged files stay listed until they change (the next index run replaces their record); a lock
  // left by a run that was killed is not "indexing" (nobody is), and the next run takes it over.
  // With --server: what the server's current generation holds, for the embedded model's readers.
  const settings = defaultSettings();
  settings.libraryServer = one(args, 'server') ?? settings.libraryServer;
  settings.libraryServerSchema = one(args, 'schema') ?? settings.libraryServerSchema;
  const engine = createEngine({ workspace: workspaceOf(args), settings, provider: { provider: 'embedded' } });
  const { health, damaged, interrupted: left } = await engine.status();
  const interrupted =
    left &&
    `a previous indexing run (${left.pid ? `pid ${left.pid}` : 'a process'}${left.host && left.host !== os.hostname() ? ` on ${left.host}` : ''}${left.since ? `, started ${left.since}` : ''}) ended without finishing; the next run takes over`;
  if (args.flags.has('json'))
    outJson(JSON.stringify({ ...health, detail: describeHealth(health), damaged, ...(left ? { interrupted: { ...left, detail: interrupted } } : {}) }));
  else {
    out(describeHealth(health));
    if (settings.libraryServer && health.state === 'ready') out(`  published on ${health.dir}`);
    if (interrupted) out(`  note: ${interrupted}`);
    listed(
      out,
      damaged,
      (d) => `  damaged: ${fileLine(d.path, d.problem)}`,
      (n) => `  … and ${n} more damaged files (status --json lists them all)`,
    );
  }
  return health.state === 'ready' ? 0 : 1;
}

/** `path — reason`: the path escaped (it names the file), the reason (which may quote the PDF) bounded. */
function fileLine(file: string, reason: string): string {
  return `${terminalText(file, 1000)} — ${terminalText(reason, 400)}`;
}
