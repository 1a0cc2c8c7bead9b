/**
 * The Zotero library's entries as of the last indexing run, kept in the index folder
 * (`zotero-entries.json`): every item not in the trash, with or without a PDF, so that the
 * citation check and citekey completion know the keys of items that have nothing to index.
 * Written atomically; the garbage collection of the index leaves top-level files alone.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { BibEntry } from '../library/bibEntry';
import { makeDir, writeFileAtomic } from '../util/atomicWrite';
import { readConfinedText } from '../util/confinedFiles';

export const ZOTERO_ENTRIES_FILE = 'zotero-entries.json';
const VERSION = 1;

export async function writeZoteroEntries(indexDir: string, entries: BibEntry[], dataDir: string): Promise<void> {
  await makeDir(indexDir);
  await writeFileAtomic(path.join(indexDir, ZOTERO_ENTRIES_FILE), JSON.stringify({ version: VERSION, dataDir, entries }));
}

export async function removeZoteroEntries(indexDir: string): Promise<void> {
  await fs.rm(path.join(indexDir, ZOTERO_ENTRIES_FILE), { force: true });
}

/** The entries written last, with the file's stamp (size and time); undefined when there are none or the file is not ours. */
export async function readZoteroEntries(indexDir: string): Promise<{ entries: BibEntry[]; stamp: string } | undefined> {
  const file = path.join(indexDir, ZOTERO_ENTRIES_FILE);
  try {
    const st = await fs.stat(file);
    const data = JSON.parse((await readConfinedText(file, { kind: 'index', within: [indexDir], rootName: 'the index folder' })).text) as {
      version?: unknown;
      entries?: unknown;
    };
    if (data.version !== VERSION || !Array.isArray(data.entries)) return undefined;
    const entries = (data.entries as BibEntry[]).filter((e) => e && typeof e.citekey === 'string' && e.citekey);
    return { entries, stamp: `${st.size}:${st.mtimeMs}` };
  } catch {
    return undefined;
  }
}
