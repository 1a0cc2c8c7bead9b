/**
 * A SQLite write-ahead log written by hand (https://www.sqlite.org/fileformat.html, "The WAL File
 * Format"), with valid salts and checksums, so a test can make it say what no SQLite would: a
 * commit frame whose "database size" is far beyond what the database and the log hold.
 */

export interface CraftedFrame {
  pgno: number;
  /** The commit frame's database size in pages; 0 for a frame that does not commit. */
  commit: number;
  /** The page's bytes (padded or cut to the page size). */
  data: Uint8Array;
}

/** Checksums over 32-bit words in pairs; magic 0x377f0682 says little-endian words. */
function checksum(buf: Uint8Array, off: number, len: number, s: [number, number]): [number, number] {
  const v = new DataView(buf.buffer, buf.byteOffset + off, len);
  let [a, b] = s;
  for (let i = 0; i < len; i += 8) {
    a = (a + v.getUint32(i, true) + b) >>> 0;
    b = (b + v.getUint32(i + 4, true) + a) >>> 0;
  }
  return [a, b];
}

export function craftWal(pageSize: number, frames: CraftedFrame[], salts: [number, number] = [0x1234, 0x5678]): Uint8Array {
  const out = new Uint8Array(32 + frames.length * (24 + pageSize));
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x377f0682);
  v.setUint32(4, 3007000);
  v.setUint32(8, pageSize === 65536 ? 1 : pageSize);
  v.setUint32(12, 0);
  v.setUint32(16, salts[0]);
  v.setUint32(20, salts[1]);
  let s = checksum(out, 0, 24, [0, 0]);
  v.setUint32(24, s[0]);
  v.setUint32(28, s[1]);
  frames.forEach((f, i) => {
    const off = 32 + i * (24 + pageSize);
    v.setUint32(off, f.pgno);
    v.setUint32(off + 4, f.commit);
    v.setUint32(off + 8, salts[0]);
    v.setUint32(off + 12, salts[1]);
    out.set(f.data.subarray(0, pageSize), off + 24);
    s = checksum(out, off, 8, s);
    s = checksum(out, off + 24, pageSize, s);
    v.setUint32(off + 16, s[0]);
    v.setUint32(off + 20, s[1]);
  });
  return out;
}

/** The page size a database's header names (bytes 16–17; 1 means 65536). */
export function pageSizeOf(db: Uint8Array): number {
  const v = (db[16] << 8) | db[17];
  return v === 1 ? 65536 : v;
}
