/**
 * `check <draft.md|.tex>`: the draft's citations against the library (keys, pages,
 * quotations), for scripts and a thesis's CI. Indexes the library first when
 * one is named (as `analyze` does). One line per problem, or --json with every
 * citation; exit 0 when none is wrong, 1 when one is, 2 on bad usage.
 */
import * as path from 'node:path';
import { errorHealth, statusSeverity, type CheckedCitation } from '../engine';
import { terminalText } from '../shared/untrusted';
import { forgivenText } from '../shared/viewerDifferences';
import { checkKnown, type ParsedArgs } from './args';
import { readDraftFile } from './draftFile';
import { err, out, outJson, warnings } from './output';
import { cliEngine, runIndex } from './workspace';

export const CHECK_USAGE = `  check   <file.md|.qmd|.Rmd|.tex> [--workspace <dir>] [--library <dir>…] [--bib <file>] [--zotero [<dataDir>]] [--json]
          Checks the draft's citations against the library: unknown keys, pages the source lacks,
          quotations not found, on another page, or not word for word. Indexes the library first
          (as analyze). A LaTeX draft's \\input/\\include files are checked too (within the
          workspace). Exit 0: no problem; 1: a citation is wrong; 2: bad usage.`;

export const CHECK_OPTS = [
  'format',
  'workspace',
  'library',
  'bib',
  'zotero',
  'include',
  'exclude',
  'primary',
  'json',
  'jobs',
  'ocr',
  'ocr-lang',
  'ocr-lang-dir',
];

/** `providerOpts`: the provider options the CLI knows (the index is built with the workspace's model). */
export async function cmdCheck(args: ParsedArgs, providerOpts: readonly string[]): Promise<number> {
  checkKnown(args, [...CHECK_OPTS, ...providerOpts]);
  const { file: abs, text, format } = await readDraftFile(args, 'check', 'usage');
  const cli = await cliEngine(args, { library: true });
  const workspace = cli.workspace;
  // Indexed first when a library is named (as analyze does); then checked against the index by the engine.
  if (cli.library.fromSettings || args.options.has('zotero')) {
    const report = await runIndex(args, cli).finally(() => warnings.flush());
    err(`library: ${report.sources} sources${report.skipped.length ? `, ${report.skipped.length} skipped` : ''}`);
    if (report.cancelled) {
      err('cancelled: nothing was checked');
      return 130;
    }
  }
  let result;
  try {
    // A LaTeX draft's `\addbibresource`/`\bibliography` files, a Quarto draft's front matter, unless the
    // settings name one; --format tex reads any file as LaTeX, with its `\input` files.
    result = await cli.engine.checkCitations(text, { draftPath: abs, format });
  } catch (e) {
    if (errorHealth(e)) {
      err(`error: ${(e as Error).message}`);
      err('hint: pass --library <folder of PDFs> (and --bib <export>), or set similarSources.libraryFolders in .vscode/settings.json');
      return 2;
    }
    throw e;
  }
  const shown = path.relative(process.cwd(), abs) || abs;
  // A citation in a file the LaTeX draft `\input`s is named by that file (workspace-relative in the result).
  const fileOf = (c: CheckedCitation) => (c.file === undefined ? shown : path.relative(process.cwd(), path.resolve(workspace, c.file)) || c.file);
  if (args.flags.has('json')) {
    outJson(
      JSON.stringify(
        {
          citations: result.citations.map((c) => ({
            file: fileOf(c),
            line: c.line,
            column: c.column,
            key: c.key,
            locator: c.locator,
            quote: c.quote,
            status: c.status,
            severity: statusSeverity(c.status),
            foundPage: c.foundPage,
            sourceText: c.sourceText,
            differences: c.differences,
            forgiven: c.forgiven ?? [],
            suggestions: c.suggestions,
            path: c.path,
            ocr: c.ocr,
            note: c.note,
            hint: c.hint,
          })),
          errors: result.errors,
          warnings: result.warnings,
          partlyChecked: result.partlyChecked,
          ms: result.ms,
        },
        null,
        2,
      ),
    );
  } else {
    for (const c of result.citations) if (c.status !== 'ok' && statusSeverity(c.status) !== 'info') out(problemLine(fileOf(c), c));
    // Hints are not problems: on stderr, so that a script counting stdout's lines counts problems.
    const hints = result.citations.filter((c) => c.hint);
    for (const c of hints) err(hintLine(fileOf(c), c));
    // A quotation checked only at its ends is no problem found, but not `ok` either: said beside the hints.
    for (const c of result.citations) if (statusSeverity(c.status) === 'info') err(problemLine(fileOf(c), c));
    // What a viewer's copy differs by, accepted: said, so that an `ok` is never silent about what it forgave.
    for (const c of result.citations) if (c.status === 'ok' && c.forgiven?.length) err(acceptedLine(fileOf(c), c));
    const n = result.citations.length;
    const partly = result.partlyChecked;
    err(
      `${n} citation${n === 1 ? '' : 's'} checked in ${(result.ms / 1000).toFixed(2)} s: ${result.errors} error${result.errors === 1 ? '' : 's'}, ${result.warnings} warning${result.warnings === 1 ? '' : 's'}${partly ? `, ${partly} quotation${partly === 1 ? '' : 's'} partly checked` : ''}${hints.length ? `, ${hints.length} page hint${hints.length === 1 ? '' : 's'}` : ''}`,
    );
  }
  return result.errors + result.warnings > 0 ? 1 : 0;
}

const pages = (label: string) => (label.includes('–') ? `pp. ${label}` : `p. ${label}`);
/** Quoted text (the PDF's, the draft's) on one line: no control or bidi characters, bounded. */
const clip = (s: string, n = 80) => terminalText(s, n, 'prose');
/**
 * A name the draft or the library gives (a file, a key, a locator, a page label): its hidden
 * characters escaped, so that the user finds what to fix, and bounded (a 100,000-character locator).
 */
const name = (s: string, n = 200) => terminalText(s, n);

/** `draft.md:12:40 hint @key p. 212 → p. 215 matches this sentence better: “…”` */
export function hintLine(file: string, c: CheckedCitation): string {
  return `${name(file, 1000)}:${c.line}:${c.column} hint @${name(c.key)}${c.locator ? ` ${name(c.locator)}` : ''} → ${pages(name(c.hint?.page ?? '?', 40))} matches this sentence better: “${clip(c.hint?.excerpt ?? '')}”`;
}

/** `draft.md:12:40 ok @key pp. 46–47 → a viewer's copy: the copy holds a running head … (“chapter 7 reference 42”)` */
export function acceptedLine(file: string, c: CheckedCitation): string {
  const what = (c.forgiven ?? []).slice(0, 3).map((f) => clip(forgivenText(f), 160));
  return `${name(file, 1000)}:${c.line}:${c.column} ok @${name(c.key)}${c.locator ? ` ${name(c.locator)}` : ''} → a viewer's copy: ${what.join('; ')}`;
}

/** `draft.md:12:40 wrong-page @key p. 214 → found on p. 215` */
export function problemLine(file: string, c: CheckedCitation): string {
  const head = `${name(file, 1000)}:${c.line}:${c.column} ${c.status} @${name(c.key)}${c.locator ? ` ${name(c.locator)}` : ''}`;
  switch (c.status) {
    case 'unknown-key':
      return `${head} → ${c.suggestions.length ? `did you mean ${c.suggestions.map((k) => `@${name(k)}`).join(', ')}?` : 'in neither the library nor the bibliography'}`;
    case 'no-such-page':
      return `${head} → ${name(c.note ?? 'the source has no such page', 400)}`;
    case 'wrong-page':
      return `${head} → found on ${pages(name(c.foundPage ?? '?', 40))}${c.note && c.differences.length ? ` (${name(c.note, 400)})` : ''}`;
    case 'quote-differs':
      return `${head} → the source says “${clip(c.sourceText ?? '')}” (${c.differences.map((d) => `“${clip(d.quote, 40)}” for “${clip(d.source, 40)}”`).join(', ')})`;
    case 'quote-not-found':
      return `${head} → “${clip(c.quote ?? '')}” is not in the source`;
    case 'quote-partly-checked':
      return `${head} → its ends are on ${pages(c.foundPage ?? '?')} word for word; ${c.note ?? 'the words between them were not compared'}`;
    default:
      return head;
  }
}
