/**
 * Issue 35, item 6: what a Zotero library holds is not trusted. A WAL whose commit frame lies
 * about the database's size (row 8). Each case that could hang is raced against a timer of its own.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ZoteroDatabaseReader } from '../../src/core/zotero/database';
import type { ZoteroSnapshot } from '../../src/core/zotero/model';
import { applyWal } from '../../src/core/zotero/wal';
import { craftWal, pageSizeOf } from '../support/zotero/craftWal';
import { makeZoteroLibrary, type GeneratedLibrary } from '../support/zotero/library';

/** `p`, or a failure after `ms`: a read that hangs fails the test instead of the run. */
function within<T>(p: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: a hang`)), ms)))]).finally(() => clearTimeout(timer));
}

const read = (dataDir: string) => within(new ZoteroDatabaseReader({ dataDir }).read());
const warningsOf = (s: ZoteroSnapshot) => s.warnings.join('\n');

describe('Zotero bounds: a WAL that lies about the database size (row 8)', function () {
  this.timeout(60_000);
  let root: string;
  let lib: GeneratedLibrary;
  let plain: ZoteroSnapshot;
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'zwal-'));
    lib = makeZoteroLibrary(root);
    plain = await read(lib.dataDir);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const pages of [0x7fffffff, 600_000]) {
    it(`a commit frame saying ${pages} pages: the WAL is ignored with a warning, the database read alone, nothing large allocated`, async () => {
      const dbFile = path.join(lib.dataDir, 'zotero.sqlite');
      const db = new Uint8Array(readFileSync(dbFile));
      const ps = pageSizeOf(db);
      const wal = craftWal(ps, [{ pgno: 1, commit: pages, data: db.subarray(0, ps) }]);
      // Checksums valid: only the size lies (a 4 KB log cannot give a database of 2.4 GB).
      const applied = applyWal(db.slice(), wal);
      assert.equal(applied.frames, 0);
      assert.match(applied.note ?? '', new RegExp(`ignored: its last commit gives the database ${pages} pages`));
      assert.equal(applied.db.length, db.length, 'the database as it is, not a buffer of the size claimed');
      writeFileSync(`${dbFile}-wal`, wal);
      try {
        const s = await read(lib.dataDir);
        assert.match(warningsOf(s), /zotero\.sqlite-wal: the WAL was ignored/);
        assert.deepEqual(s.items.map((i) => i.key).sort(), plain.items.map((i) => i.key).sort());
      } finally {
        rmSync(`${dbFile}-wal`);
      }
    });
  }

  it('a WAL that grows the database by the pages it writes is still applied', () => {
    const db = new Uint8Array(readFileSync(path.join(lib.dataDir, 'zotero.sqlite')));
    const ps = pageSizeOf(db);
    const pages = db.length / ps;
    // Two new pages written, the commit saying the database now has two more: what SQLite writes.
    const wal = craftWal(ps, [
      { pgno: pages + 1, commit: 0, data: new Uint8Array(ps) },
      { pgno: pages + 2, commit: pages + 2, data: new Uint8Array(ps) },
    ]);
    const r = applyWal(db.slice(), wal);
    assert.deepEqual([r.frames, r.note, r.db.length], [2, undefined, (pages + 2) * ps]);
    // One page more than the log holds is a lie.
    const lie = craftWal(ps, [{ pgno: pages + 1, commit: pages + 2, data: new Uint8Array(ps) }]);
    assert.equal(applyWal(db.slice(), lie).frames, 0);
  });
});
