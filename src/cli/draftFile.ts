/**
 * The draft a CLI command reads, and how it is written: by its extension
 * (`.tex`, `.ltx`: LaTeX; `.md`, `.markdown`, `.qmd`, `.Rmd` and any other:
 * Markdown, Quarto and R Markdown being Pandoc Markdown), or as `--format
 * md|qmd|rmd|tex` says.
 */
import * as path from 'node:path';
import { readDraftText } from '../engine';
import { one, UsageError, type ParsedArgs } from './args';

export type DraftFormat = 'markdown' | 'latex';

const FORMATS: Record<string, DraftFormat> = { md: 'markdown', qmd: 'markdown', rmd: 'markdown', tex: 'latex' };

/** `unreadable`: a file that cannot be read is bad usage (exit 2: `check`) or an error (exit 1). */
export async function readDraftFile(args: ParsedArgs, command: string, unreadable: 'usage' | 'error'): Promise<{ file: string; text: string; format: DraftFormat }> {
  const file = args.positionals[0];
  if (!file || args.positionals.length > 1) throw new UsageError(`${command} needs one draft: Markdown, Quarto (.qmd), R Markdown (.Rmd) or LaTeX (.tex)`);
  const abs = path.resolve(file);
  const flag = one(args, 'format');
  if (flag !== undefined && !(flag.toLowerCase() in FORMATS)) throw new UsageError(`--format must be one of md, qmd, rmd, tex (got "${flag}")`);
  const format = flag !== undefined ? FORMATS[flag.toLowerCase()] : /\.(tex|ltx)$/i.test(abs) ? 'latex' : 'markdown';
  try {
    // Named on the command line, by its user: anywhere, but a regular file of bounded size.
    return { file: abs, text: await readDraftText(abs), format };
  } catch (e) {
    const message = `cannot read the draft: ${(e as Error).message}`;
    throw unreadable === 'usage' ? new UsageError(message) : new Error(message);
  }
}
