import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The example draft's paragraph on the Sicilian grain trade, without its citation (it cites whitfield2019grain, p. 214). */
export const GRAIN_PARAGRAPH = readFileSync(resolve('examples/draft.md'), 'utf8')
  .split('\n')
  .find((l) => l.startsWith('Consider first the great Mediterranean cities'))!
  .replace(/\s*\[@[^\]]*\]/g, '');
