/**
 * What the measurement scripts (measure-*.ts, bench-rerank.ts) are told: `--name value` options,
 * the development sets' folder, and the provisioned multilingual-e5-small (`npm run models:real`),
 * found where that command puts it.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);

/** The value given after `--name`, if any. */
export function opt(name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** The development sets (../shared/data, README there). */
export const DATA = process.env.SIMILAR_SOURCES_DATA ?? '/work/shared/data';

/** multilingual-e5-small as `npm run models:real` provisions it. */
export const E5 = join(
  process.env.SIMILAR_SOURCES_REAL_MODELS ?? join(homedir(), '.cache', 'similar-sources', 'real-models'),
  'Xenova',
  'multilingual-e5-small',
);
