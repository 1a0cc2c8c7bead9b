/**
 * zotero.sqlite and its zotero.sqlite-wal, copied to a temporary folder and read into memory from
 * the copy: the live files are never opened for SQLite (Zotero may hold them locked, and a reader
 * must not disturb them). Every copy and read goes through confinedFiles: a FIFO, socket or device
 * in a file's place is refused at once with its name (a FIFO named zotero.sqlite-wal used to hang
 * the whole index), each file is capped and read within a deadline, and a cancel stops the copy.
 * The -shm (the WAL's index, which SQLite rebuilds from the WAL) is not copied: nothing here reads it.
 *
 * The temporary folder is removed as soon as its bytes are in memory, on every path: an error, a
 * refused copy, a cancel, and the process ending meanwhile (util/tempFolders.ts).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { copyConfined, FileRefused, readConfined, statConfined, type FileRule } from '../util/confinedFiles';
import { makeTempFolder, removeTempFolder } from '../util/tempFolders';
import { ZoteroUnavailable } from './model';

export const TEMP_PREFIX = 'similar-sources-zotero-';

export interface DatabaseCopy {
  db: Uint8Array;
  wal?: Uint8Array;
  /** The live files' stamp when they were copied. */
  stamp: string;
  warnings: string[];
}

/** Sizes and times of the live database and WAL (stats: a FIFO is not opened). */
export async function stampOf(dataDir: string): Promise<string> {
  const parts = await Promise.all(
    ['zotero.sqlite', 'zotero.sqlite-wal'].map((f) =>
      fs.stat(path.join(dataDir, f)).then(
        (s) => `${s.size}:${Math.round(s.mtimeMs)}`,
        () => '-',
      ),
    ),
  );
  return `db:${parts.join('/')}`;
}

const SET_FOLDER_HINT = 'Set similarSources.zoteroDataDir to the folder Zotero shows in Settings → Advanced → Files and Folders → Data Directory Location.';

/**
 * Zotero may write (or checkpoint) between the two copies: the live files' stamp is taken before
 * and after, and the copy made again (a few times) until it did not change meanwhile.
 */
export async function copyDatabase(dataDir: string, o: { tempRoot?: string; signal?: AbortSignal } = {}): Promise<DatabaseCopy> {
  const live = path.join(dataDir, 'zotero.sqlite');
  const dbRule: FileRule = { kind: 'zotero-database', signal: o.signal };
  const walRule: FileRule = { kind: 'zotero-wal', signal: o.signal };
  try {
    await statConfined(live, dbRule);
  } catch (e) {
    if (e instanceof FileRefused && e.code === 'missing') throw new ZoteroUnavailable(`No Zotero database at ${live}.`, SET_FOLDER_HINT);
    throw refusedDatabase(e);
  }
  const dir = await makeTempFolder(TEMP_PREFIX, o.tempRoot);
  try {
    const warnings: string[] = [];
    const dbCopy = path.join(dir, 'zotero.sqlite');
    const walCopy = path.join(dir, 'zotero.sqlite-wal');
    for (let attempt = 0; ; attempt++) {
      const before = await stampOf(dataDir);
      await copyConfined(live, dbCopy, dbRule).catch((e) => Promise.reject(refusedDatabase(e)));
      let walNote: string | undefined;
      const walCopied = await copyConfined(`${live}-wal`, walCopy, walRule).then(
        () => true,
        (e) => {
          if (!(e instanceof FileRefused) || e.code === 'cancelled') throw e;
          // No WAL: everything is in the database. A WAL that cannot be read: the database without it.
          if (e.code !== 'missing') walNote = `${e.message}; the database was read without it, so the newest changes may be missing`;
          return false;
        },
      );
      const after = await stampOf(dataDir);
      if (before === after || attempt >= 4) {
        if (before !== after) warnings.push(`${live} kept changing while it was copied; what was read may miss the last change (read again at the next one)`);
        if (walNote) warnings.push(walNote);
        const inCopy = (rule: FileRule): FileRule => ({ ...rule, within: [dir], rootName: 'the temporary copy' });
        const db = new Uint8Array((await readConfined(dbCopy, inCopy(dbRule)).catch((e) => Promise.reject(refusedDatabase(e)))).bytes);
        const wal = walCopied ? new Uint8Array((await readConfined(walCopy, inCopy(walRule))).bytes) : undefined;
        return { db, wal, stamp: after, warnings };
      }
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
    }
  } finally {
    await removeTempFolder(dir);
  }
}

/** A refusal of the database itself (a FIFO, too large, a stalled disk): this path cannot read Zotero now. */
function refusedDatabase(e: unknown): unknown {
  if (!(e instanceof FileRefused) || e.code === 'cancelled') return e;
  return new ZoteroUnavailable(`Zotero's database could not be read: ${e.message}.`, e.code === 'not-a-file' ? SET_FOLDER_HINT : undefined);
}
