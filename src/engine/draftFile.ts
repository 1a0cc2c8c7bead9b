/**
 * A draft read from disk for a host (the CLI's positional argument, an agent's path), by the
 * one rule of core/util/confinedFiles: a regular file, of bounded size, within a deadline, and
 * inside the workspace when `workspace` is given (links followed first). Failures are
 * `FileRefused` errors that say why in words.
 */
import { readConfinedText } from '../core/util/confinedFiles';

export async function readDraftText(file: string, opts: { workspace?: string; namedBy?: string; maxBytes?: number } = {}): Promise<string> {
  const within = opts.workspace === undefined ? {} : { within: [opts.workspace], rootName: 'the workspace', namedBy: opts.namedBy };
  return (await readConfinedText(file, { kind: 'draft', maxBytes: opts.maxBytes, ...within })).text;
}
