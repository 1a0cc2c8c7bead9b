/**
 * `npm run bench`'s Zotero row (issue 24): the metadata of a 10,000-item library read from a copy
 * of its database (items, fields, creators, collections, tags, trash, attachments, annotations,
 * citekeys), with 200 more items only in the WAL of a database another process holds open, as
 * Zotero does. The baseline, in the same run: copying zotero.sqlite and its WAL, which any reader
 * of the copy must do. The library is built from Zotero's schema SQL (test/support/zotero); without
 * it (SIMILAR_SOURCES_ZOTERO_REF), the row is left out with a line saying why.
 */
import * as path from 'node:path';
import { ZoteroDatabaseReader } from '../../src/core/zotero/database';
import { holdInWal, makeZoteroLibrary, zoteroKey } from '../../test/support/zotero/library';
import type { Row } from './row';

const ITEMS = 10_000;
const TARGET_MS = 2000;

export async function benchZotero(tmp: string, o: { runs: number; add: (r: Row) => void; log: (s: string) => void }): Promise<void> {
  let lib;
  try {
    lib = makeZoteroLibrary(path.join(tmp, 'zotero'), { items: ITEMS - 8 });
  } catch (err) {
    o.log(`  zotero: left out (${(err as Error).message.split('\n')[0]})`);
    return;
  }
  const walItems = Array.from({ length: 200 }, (_, i) => ({ key: zoteroKey('BENCH', i), title: `Added while Zotero runs ${i}` }));
  const holder = await holdInWal(path.join(lib.dataDir, 'zotero.sqlite'), walItems);
  try {
    const reader = new ZoteroDatabaseReader({ dataDir: lib.dataDir, baseAttachmentPath: path.join(tmp, 'zotero', 'base'), tempDir: tmp });
    const copy: number[] = [];
    const read: number[] = [];
    const cpu: number[] = [];
    let items = 0;
    for (let i = 0; i < Math.max(1, o.runs); i++) {
      // CPU time beside wall time: on a shared machine the wall time waits for cores.
      const c0 = process.cpuUsage();
      const snap = await reader.read();
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      items = snap.items.length;
      copy.push(reader.lastTimings!.copyMs);
      read.push(reader.lastTimings!.readMs);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const value = med(read);
    const baseline = med(copy);
    o.add({
      size: '10k',
      metric: `Zotero metadata read from the database copy (${items} items, ${reader.lastTimings!.walFrames} WAL frames applied)`,
      value,
      unit: 'ms',
      baselineName: 'copying zotero.sqlite and its WAL',
      baseline,
      ratio: value / baseline,
      target: `≤ ${TARGET_MS / 1000} s`,
      met: value + baseline <= TARGET_MS,
      runs: o.runs,
      note: `copy ${baseline.toFixed(0)} ms + read ${value.toFixed(0)} ms (wall); ${med(cpu).toFixed(0)} ms of CPU for both`,
    });
  } finally {
    await holder.close();
  }
}
