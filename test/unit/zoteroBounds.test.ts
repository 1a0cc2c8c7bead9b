/**
 * Issue 35, item 6: what a Zotero library holds is not trusted. A WAL whose commit frame lies
 * about the database's size (row 8), and FIFOs in the place of Zotero's files (row 11). Each case
 * that could hang is raced against a timer of its own.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ZoteroDatabaseReader } from '../../src/core/zotero/database';
import { loadZoteroLibrary } from '../../src/core/zotero/library';
import { ZoteroUnavailable, type ZoteroSnapshot } from '../../src/core/zotero/model';
import { applyWal } from '../../src/core/zotero/wal';
import { craftWal, pageSizeOf } from '../support/zotero/craftWal';
import { makeZoteroLibrary, type GeneratedLibrary } from '../support/zotero/library';

/** `p`, or a failure after `ms`: a read that hangs fails the test instead of the run. */
function within<T>(p: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: a hang`)), ms)))]).finally(() => clearTimeout(timer));
}

const read = (dataDir: string, o: { tempDir?: string } = {}) => within(new ZoteroDatabaseReader({ dataDir, ...o }).read());
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

describe('Zotero bounds: FIFOs in the place of Zotero’s files (row 11)', function () {
  this.timeout(60_000);
  let root: string;
  let lib: GeneratedLibrary;
  let tmp: string;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'zfifo-'));
    lib = makeZoteroLibrary(root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(() => (tmp = mkdtempSync(path.join(root, 'tmp-'))));
  const copiesLeft = () => readdirSync(tmp);

  it('zotero.sqlite-wal a FIFO: said by name, the database read without it, no copy left', async () => {
    const wal = path.join(lib.dataDir, 'zotero.sqlite-wal');
    execFileSync('mkfifo', [wal]);
    try {
      const s = await read(lib.dataDir, { tempDir: tmp });
      assert.equal(s.items.length, 9);
      assert.match(warningsOf(s), /zotero\.sqlite-wal is a FIFO \(named pipe\), not a regular file: not read as a Zotero's write-ahead log; the database was read without it/);
      assert.deepEqual(copiesLeft(), []);
    } finally {
      rmSync(wal);
    }
  });

  it('zotero.sqlite a FIFO: unavailable, saying so; the library load says it and goes on', async () => {
    const db = path.join(lib.dataDir, 'zotero.sqlite');
    const kept = path.join(root, 'zotero.sqlite.kept');
    renameSync(db, kept);
    execFileSync('mkfifo', [db]);
    try {
      await assert.rejects(read(lib.dataDir, { tempDir: tmp }), (e: Error) => e instanceof ZoteroUnavailable && /zotero\.sqlite is a FIFO \(named pipe\)/.test(e.message));
      const loaded = await within(loadZoteroLibrary({ dataDir: lib.dataDir, home: root }, { readers: (loc) => [new ZoteroDatabaseReader({ dataDir: loc.dataDir, tempDir: tmp })] }));
      assert.equal(loaded.loaded, undefined);
      assert.match(loaded.warnings.join('\n'), /Zotero: .*zotero\.sqlite is a FIFO/);
      assert.deepEqual(copiesLeft(), []);
    } finally {
      rmSync(db);
      renameSync(kept, db);
    }
  });

  it('the copy removed on every failure: a damaged database, a cancelled read', async () => {
    const bad = path.join(root, 'bad');
    mkdirSync(bad);
    writeFileSync(path.join(bad, 'zotero.sqlite'), Buffer.alloc(8192, 7));
    await assert.rejects(read(bad, { tempDir: tmp }), ZoteroUnavailable);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(within(new ZoteroDatabaseReader({ dataDir: lib.dataDir, tempDir: tmp }).read({ signal: ac.signal })), (e: Error & { code?: string }) => e.code === 'cancelled');
    assert.deepEqual(copiesLeft(), []);
  });
});
