/**
 * The draft a CLI command reads. Markdown, Quarto (`.qmd`) and R Markdown
 * (`.Rmd`) are all read as Pandoc Markdown (any other extension too, as
 * before); a LaTeX draft is refused with a plain reason rather than read as
 * Markdown, which would search its commands as if they were prose.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { UsageError } from './args';

/** `unreadable`: a file that cannot be read is bad usage (exit 2: `check`) or an error (exit 1). */
export async function readDraftFile(file: string | undefined, command: string, unreadable: 'usage' | 'error'): Promise<{ file: string; text: string }> {
  if (!file) throw new UsageError(`${command} needs one Markdown, Quarto or R Markdown file`);
  const abs = path.resolve(file);
  if (/\.(tex|ltx|latex)$/i.test(abs)) throw new UsageError(`${command}: LaTeX drafts are not supported yet (${path.basename(abs)}); Markdown, Quarto (.qmd) and R Markdown (.Rmd) are`);
  try {
    return { file: abs, text: await fs.readFile(abs, 'utf8') };
  } catch (e) {
    const message = `cannot read ${abs}: ${(e as Error).message}`;
    throw unreadable === 'usage' ? new UsageError(message) : new Error(message);
  }
}
