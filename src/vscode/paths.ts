/**
 * Whether a regular file lies inside one of a set of folders, links resolved: the
 * host opens only PDFs of the library or the workspace, whatever a message or
 * a command argument names.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export async function insideAny(file: string, roots: string[]): Promise<boolean> {
  const real = await fs.realpath(file).catch(() => undefined);
  // A regular file: a FIFO or a device under a PDF's name would hold whatever reads it.
  if (
    !real ||
    !(await fs.stat(real).then(
      (s) => s.isFile(),
      () => false,
    ))
  )
    return false;
  for (const root of roots) {
    const r = await fs.realpath(root).catch(() => undefined);
    if (!r) continue;
    const rel = path.relative(r, real);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return true;
  }
  return false;
}
