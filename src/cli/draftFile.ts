/**
 * The draft a CLI command reads, and how it is written: by its extension
 * (shared/draftLanguages.ts: `.tex`, `.ltx`: LaTeX; `.md`, `.markdown`, `.qmd`,
 * `.Rmd` and any other: Markdown, Quarto and R Markdown being Pandoc Markdown),
 * or as `--format md|qmd|rmd|tex` says.
 */
import * as path from 'node:path';
import { readDraftText } from '../engine';
import { DRAFT_KINDS, draftFormatOfFlag, draftFormatOfPath, type DraftFormat } from '../shared/draftLanguages';
import { one, UsageError, type ParsedArgs } from './args';

/** `unreadable`: a file that cannot be read is bad usage (exit 2: `check`) or an error (exit 1). */
export async function readDraftFile(
  args: ParsedArgs,
  command: string,
  unreadable: 'usage' | 'error',
): Promise<{ file: string; text: string; format: DraftFormat }> {
  const file = args.positionals[0];
  if (!file || args.positionals.length > 1) throw new UsageError(`${command} needs one draft: Markdown, Quarto (.qmd), R Markdown (.Rmd) or LaTeX (.tex)`);
  const abs = path.resolve(file);
  const flag = one(args, 'format');
  const forced = flag === undefined ? undefined : draftFormatOfFlag(flag);
  if (flag !== undefined && !forced) throw new UsageError(`--format must be one of ${DRAFT_KINDS.map((k) => k.flag).join(', ')} (got "${flag}")`);
  // Any other extension is read as Markdown, as Pandoc would.
  const format = forced ?? draftFormatOfPath(abs) ?? 'markdown';
  try {
    // Named on the command line, by its user: anywhere, but a regular file of bounded size.
    return { file: abs, text: await readDraftText(abs), format };
  } catch (e) {
    const message = `cannot read the draft: ${(e as Error).message}`;
    throw unreadable === 'usage' ? new UsageError(message) : new Error(message);
  }
}
