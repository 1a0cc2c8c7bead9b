/**
 * A generated Better BibTeX export of a given size (accented titles, four authors, an abstract
 * and a Zotero `file` field per entry), and the checks that it was read completely: shared by the
 * unit test (1 MB) and the stress suite (20 MB).
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import type { loadBibliography } from '../../src/core/library/bibliography';

/** Writes an export of about `megabytes` MB to `file`; returns how many entries it holds. */
export async function writeLargeExport(file: string, megabytes: number): Promise<number> {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < megabytes * 1048576; i++) {
    const e = String.raw`@article{key${i},
  title = {La M{\'e}diterran{\'e}e, number ${i} --- une \emph{{\'e}tude} na\"{\i}ve},
  author = {Braudel, Fernand and Le Roy Ladurie, Emmanuel and de Gaulle, Charles and {World Health Organization}},
  journaltitle = {Annales},
  date = {${1900 + (i % 120)}-05-01},
  abstract = {${'Lorem ipsum dolor sit amet, consectetur adipiscing elit {\c c}a. '.repeat(8)}},
  file = {Full Text PDF:/home/u/Zotero/storage/K${i}/Braudel - ${i}.pdf:application/pdf;Snapshot:/home/u/Zotero/storage/K${i}/s.html:text/html}
}
`;
    parts.push(e);
    size += e.length;
  }
  await fs.writeFile(file, parts.join(''));
  return parts.length;
}

/** Every entry read, without a warning, the last one decoded in full. */
export function assertLargeExportRead(r: Awaited<ReturnType<typeof loadBibliography>>, entries: number): void {
  assert.equal(r.entries.length, entries);
  assert.deepEqual(r.warnings, []);
  const last = r.entries[entries - 1];
  assert.equal(last.title, `La Méditerranée, number ${entries - 1} — une étude naïve`);
  assert.deepEqual(last.authors, ['Braudel, Fernand', 'Le Roy Ladurie, Emmanuel', 'de Gaulle, Charles', 'World Health Organization']);
  assert.deepEqual(last.files, [`/home/u/Zotero/storage/K${entries - 1}/Braudel - ${entries - 1}.pdf`]);
}
