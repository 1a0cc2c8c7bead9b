/**
 * Applies a SQLite write-ahead log to a copy of its database, in memory, as a checkpoint would
 * (https://www.sqlite.org/fileformat.html, "The WAL File Format"). sql.js opens database bytes
 * only: without this, the items Zotero wrote since its last checkpoint (those only in
 * zotero.sqlite-wal) would be missing.
 *
 * The rules followed: a frame is valid when its salts equal the header's and its cumulative
 * checksum matches; only frames up to the last valid commit frame (non-zero "database size")
 * count; the first invalid frame ends the log (frames after it are left over from before the
 * log was restarted). A missing, short or foreign WAL leaves the database as it is.
 *
 * The last commit frame's "database size" is checked against what the files can hold: the
 * database file's pages plus one per frame of the log up to that commit (a transaction grows the
 * database only by pages it writes, and a checkpoint leaves the file at the size it backfilled). A WAL whose checksums hold but whose size lies (0x7fffffff pages in a 4 KB log
 * used to fail the whole index; 600,000 pages made it allocate 2.6 GB) is not used at all, with a
 * note, as SQLite ignores an invalid log: the database is read as the last checkpoint left it.
 */

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

export interface WalResult {
  /** The database with the committed frames applied, marked as a rollback-journal database. */
  db: Uint8Array;
  /** Frames applied (up to the last commit); 0 when the WAL was empty, absent or not valid. */
  frames: number;
  /** Why the WAL was not used, when it was not empty but could not be used. */
  note?: string;
}

export function applyWal(db: Uint8Array, wal: Uint8Array | undefined): WalResult {
  if (!wal || wal.length < WAL_HEADER) return { db: asRollback(db), frames: 0 };
  const hv = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = hv.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return { db: asRollback(db), frames: 0, note: 'the WAL file has no WAL header' };
  const bigEndian = (magic & 1) === 1;
  const pageSize = decodePageSize(hv.getUint32(8));
  if (!pageSize) return { db: asRollback(db), frames: 0, note: 'the WAL file names an impossible page size' };
  const salt1 = hv.getUint32(16);
  const salt2 = hv.getUint32(20);
  let [s0, s1] = checksum(wal, 0, 24, 0, 0, bigEndian);
  if (s0 !== hv.getUint32(24) || s1 !== hv.getUint32(28)) return { db: asRollback(db), frames: 0, note: 'the WAL header checksum does not match' };
  const dbPages = Math.ceil(db.length / pageSize);

  // Pass 1: the frames that count (valid and followed by a commit), page number → offset of its latest data.
  const latest = new Map<number, number>();
  let pending = new Map<number, number>();
  let commitSize = 0;
  let frames = 0;
  let counted = 0;
  for (let off = WAL_HEADER; off + FRAME_HEADER + pageSize <= wal.length; off += FRAME_HEADER + pageSize) {
    if (hv.getUint32(off + 8) !== salt1 || hv.getUint32(off + 12) !== salt2) break;
    [s0, s1] = checksum(wal, off, 8, s0, s1, bigEndian);
    [s0, s1] = checksum(wal, off + FRAME_HEADER, pageSize, s0, s1, bigEndian);
    if (s0 !== hv.getUint32(off + 16) || s1 !== hv.getUint32(off + 20)) break;
    const pgno = hv.getUint32(off);
    if (pgno === 0) break;
    pending.set(pgno, off + FRAME_HEADER);
    counted++;
    const size = hv.getUint32(off + 4);
    if (size > 0) {
      for (const [p, o] of pending) latest.set(p, o);
      pending = new Map();
      commitSize = size;
      frames = counted;
    }
  }
  if (!commitSize) return { db: asRollback(db), frames: 0 };
  // Only the commit applied is held to it: an earlier one may have been larger than a database
  // since truncated by a checkpoint (its frames still in the log), and allocates nothing here.
  if (commitSize > dbPages + frames) {
    return {
      db: asRollback(db),
      frames: 0,
      note: `the WAL was ignored: its last commit gives the database ${commitSize} pages, more than the database file (${dbPages} pages) and the log's ${frames} frames can hold`,
    };
  }
  const dbPageSize = db.length >= 100 ? decodePageSize((db[16] << 8) | db[17]) : undefined;
  if (dbPageSize && dbPageSize !== pageSize)
    return { db: asRollback(db), frames: 0, note: `the WAL's page size (${pageSize}) is not the database's (${dbPageSize})` };

  // Pass 2: the database as the last commit left it (its size is the commit frame's page count).
  const out = new Uint8Array(commitSize * pageSize);
  out.set(db.subarray(0, Math.min(db.length, out.length)));
  for (const [pgno, dataOff] of latest) {
    if (pgno <= commitSize) out.set(wal.subarray(dataOff, dataOff + pageSize), (pgno - 1) * pageSize);
  }
  // The header's page count is trusted only when its "version-valid-for" equals the change counter.
  const ov = new DataView(out.buffer);
  ov.setUint32(28, commitSize);
  ov.setUint32(92, ov.getUint32(24));
  return { db: asRollback(out), frames };
}

/** Header bytes 18–19 say 1 (rollback journal) instead of 2 (WAL): an in-memory copy has no -wal or -shm to open. */
function asRollback(db: Uint8Array): Uint8Array {
  if (db.length >= 100 && db[18] === 2 && db[19] === 2) {
    db[18] = 1;
    db[19] = 1;
  }
  return db;
}

function decodePageSize(v: number): number | undefined {
  const size = v === 1 ? 65536 : v;
  return size >= 512 && size <= 65536 && (size & (size - 1)) === 0 ? size : undefined;
}

/** SQLite's WAL checksum: over 32-bit words in pairs, in the byte order the magic number names. */
function checksum(buf: Uint8Array, off: number, len: number, s0: number, s1: number, bigEndian: boolean): [number, number] {
  const v = new DataView(buf.buffer, buf.byteOffset + off, len);
  let a = s0 >>> 0;
  let b = s1 >>> 0;
  for (let i = 0; i < len; i += 8) {
    a = (a + v.getUint32(i, !bigEndian) + b) >>> 0;
    b = (b + v.getUint32(i + 4, !bigEndian) + a) >>> 0;
  }
  return [a, b];
}
