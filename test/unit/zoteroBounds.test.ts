/**
 * Issue 35, item 6: what a Zotero library holds is not trusted. A WAL whose commit frame lies
 * about the database's size (row 8), fields of any length (row 9), stored attachment paths and
 * item keys that lead out of storage/ (row 10), and FIFOs in the place of Zotero's files (row 11).
 * Each case that could hang is raced against a timer of its own.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { ZOTERO_LIMITS } from '../../src/core/zotero/bounds';
import { ZoteroDatabaseReader } from '../../src/core/zotero/database';
import { loadZoteroLibrary } from '../../src/core/zotero/library';
import { ZoteroUnavailable, type ZoteroSnapshot } from '../../src/core/zotero/model';
import { applyWal } from '../../src/core/zotero/wal';
import { craftWal, pageSizeOf } from '../support/zotero/craftWal';
import { editZoteroLibrary, makeZoteroLibrary, type GeneratedLibrary } from '../support/zotero/library';

const EXAMPLE_PDF = path.resolve('examples/library/zheng-he-voyages.pdf');

/** `p`, or a failure after `ms`: a read that hangs fails the test instead of the run. */
function within<T>(p: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: a hang`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
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

describe('Zotero bounds: fields of any length (row 9)', function () {
  this.timeout(120_000);
  let root: string;
  let lib: GeneratedLibrary;
  let snap: ZoteroSnapshot;
  const TEN_MB = 10 * 1024 * 1024;
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'zbig-'));
    lib = makeZoteroLibrary(root);
    const commune = lib.items.commune;
    editZoteroLibrary(lib.dataDir, [
      { title_chars: { item: commune, char: 'a', count: TEN_MB } },
      { creators: { item: commune, count: 1000, chars: 5000 } },
      { tags: { item: commune, count: 1000, chars: 5000 } },
      { collections: { item: commune, depth: 200, chars: 5000, count: 150 } },
      // A line of 100,000 blanks before "Citation Key:": no regular expression may cross lines.
      { extra: { item: lib.items.exode, value: `${'\n'.repeat(100_000)}Citation Key: ${'k'.repeat(300)}\n${' '.repeat(100_000)}x` } },
    ]);
    snap = await within(new ZoteroDatabaseReader({ dataDir: lib.dataDir }).read(), 30_000);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('cuts the title, the names, the lists and the collection paths, and says which item', () => {
    const c = snap.items.find((i) => i.key === lib.items.commune)!;
    assert.equal(c.title!.length, ZOTERO_LIMITS.title);
    assert.ok(c.title!.endsWith('…'));
    assert.equal(c.creators.length, ZOTERO_LIMITS.creators);
    assert.ok(c.creators.every((x) => (x.firstName ?? '').length <= ZOTERO_LIMITS.name && (x.lastName ?? '').length <= ZOTERO_LIMITS.name));
    assert.equal(c.tags.length, ZOTERO_LIMITS.tags);
    assert.ok(c.tags.every((t) => t.length <= ZOTERO_LIMITS.tag));
    assert.ok(c.collections.length <= ZOTERO_LIMITS.collections);
    assert.ok(
      c.collections.every((p) => p.length <= ZOTERO_LIMITS.collectionPath && p.split('/').length <= ZOTERO_LIMITS.collectionDepth + 1),
      'paths bounded in depth and length',
    );
    const w = warningsOf(snap);
    assert.match(w, new RegExp(`title \\(over ${ZOTERO_LIMITS.title} characters\\): item ${c.key}`));
    assert.match(w, new RegExp(`creators \\(over ${ZOTERO_LIMITS.creators}: the first kept\\): item ${c.key}`));
    assert.match(w, /collection name \(over 200 characters\): collection "Q2222222", collection "Q3222222", collection "Q4222222" and 197 more/);
  });

  it('a citation key in Extra longer than any real one is left out, and one is made', () => {
    const e = snap.items.find((i) => i.key === lib.items.exode)!;
    assert.equal(e.citekeyFrom, 'generated');
    assert.ok(e.citekey.length < 100);
  });

  it('the CLI indexes it in bounded time and memory, with a small manifest', function () {
    const ws = path.join(root, 'ws');
    mkdirSync(ws);
    const home = path.join(root, 'home');
    mkdirSync(home);
    const r = spawnSync(process.execPath, [path.resolve('dist/cli.js'), 'index', '--zotero', lib.dataDir, '--workspace', ws, '--json'], {
      encoding: 'utf8',
      env: { ...process.env, HOME: home },
      timeout: 90_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const manifest = statSync(path.join(ws, '.similar-sources', 'manifest.json')).size;
    // Before: 20 MB (the title twice) and 3.4 GB of memory; a library of 7 ordinary PDFs makes a few KB.
    assert.ok(manifest < 1024 * 1024, `manifest.json is ${manifest} bytes`);
    assert.ok(statSync(path.join(ws, '.similar-sources', 'zotero-entries.json')).size < 1024 * 1024);
    assert.match(r.stderr, /fields longer than Similar Sources reads were cut/);
  });
});

describe('Zotero bounds: stored files stay in storage/ (row 10)', function () {
  this.timeout(60_000);
  let root: string;
  let lib: GeneratedLibrary;
  let snap: ZoteroSnapshot;
  let outside: string;
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'zstore-'));
    lib = makeZoteroLibrary(root);
    const storage = path.join(lib.dataDir, 'storage');
    outside = path.join(root, 'outside');
    mkdirSync(outside);
    // PDFs where each hostile path leads: outside the data directory, and in storage/ but outside any item's folder.
    copyFileSync(EXAMPLE_PDF, path.join(outside, 'secret.pdf'));
    copyFileSync(EXAMPLE_PDF, path.join(storage, 'secret.pdf'));
    mkdirSync(path.join(root, 'x'));
    copyFileSync(EXAMPLE_PDF, path.join(root, 'x', 'paper.pdf'));
    // A link in an item's folder to a file elsewhere, and an item's folder that is itself a link elsewhere.
    mkdirSync(path.join(storage, 'LNK22222'));
    symlinkSync(path.join(outside, 'secret.pdf'), path.join(storage, 'LNK22222', 'paper.pdf'));
    symlinkSync(outside, path.join(storage, 'DIR22222'));
    editZoteroLibrary(lib.dataDir, [
      { attach: { key: 'UPP22222', path: 'storage:../secret.pdf', parent: lib.items.nopdf } },
      { attach: { key: 'UPP33333', path: 'storage:../../../outside/secret.pdf', parent: lib.items.nopdf } },
      { attach: { key: '../../x', path: 'storage:paper.pdf', parent: null } },
      { attach: { key: 'LNK22222', path: 'storage:paper.pdf', parent: lib.items.nopdf } },
      { attach: { key: 'DIR22222', path: 'storage:secret.pdf', parent: lib.items.nopdf } },
      // A stored (imported) attachment whose path is absolute, not storage:<name> (found by the fuzzer).
      { attach: { key: 'ABS22222', path: path.join(outside, 'secret.pdf'), parent: lib.items.nopdf } },
    ]);
    snap = await read(lib.dataDir);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('storage:../… and a key "../x" are refused with a warning naming the attachment; no file outside is listed', () => {
    const paths = snap.items.flatMap((i) => i.attachments.filter((a) => a.path && !a.missing).map((a) => a.path!));
    assert.ok(
      paths.every((p) => p.startsWith(path.join(lib.dataDir, 'storage') + path.sep) || !p.startsWith(lib.dataDir)),
      paths.join('\n'),
    );
    assert.ok(!paths.some((p) => p.includes('secret') || p === path.join(root, 'x', 'paper.pdf')), paths.join('\n'));
    const w = warningsOf(snap);
    assert.match(w, /attachment UPP22222[^;]*: its file "\.\.\/secret\.pdf" is outside its folder in Zotero's storage/);
    assert.match(w, /attachment UPP33333[^;]*: its file "\.\.\/\.\.\/\.\.\/outside\/secret\.pdf" is outside/);
    assert.match(w, /items whose key is not a Zotero key .* were left out: "\.\.\/\.\.\/x"/);
    assert.ok(!snap.items.some((i) => i.key === '../../x'));
    assert.match(w, /attachment ABS22222[^;]*: a stored file's path is "storage:<name>", not ".*secret\.pdf"/);
  });

  it('a link in storage/ to a file outside (the file, or its item folder) is refused, links followed', () => {
    const w = warningsOf(snap);
    assert.match(w, /LNK22222\/paper\.pdf is a link to a file outside Zotero's storage folder, not read \(attachment LNK22222/);
    assert.match(w, /DIR22222\/secret\.pdf is a link to a file outside Zotero's storage folder, not read \(attachment DIR22222/);
    const nopdf = snap.items.find((i) => i.key === lib.items.nopdf)!;
    assert.ok(
      nopdf.attachments.every((a) => a.missing),
      'none of them is indexed',
    );
  });

  it('the files still index as before: stored ones with their storage root, linked ones anywhere', () => {
    const commune = snap.items.find((i) => i.key === lib.items.commune)!;
    assert.deepEqual(
      commune.attachments.map((a) => [a.path, a.within]),
      [
        [lib.attachments.commune, [path.join(lib.dataDir, 'storage')]],
        [lib.attachments.commune2, [path.join(lib.dataDir, 'storage')]],
      ],
    );
    const railway = snap.items.find((i) => i.key === lib.items.railway)!;
    assert.deepEqual(
      [railway.attachments[0].path, railway.attachments[0].within, railway.attachments[0].missing],
      [lib.attachments.railway, undefined, undefined],
    );
  });

  it('a storage folder that is itself a link (moved to another disk) is still read', async () => {
    const disk = path.join(root, 'disk');
    mkdirSync(disk);
    const storage = path.join(lib.dataDir, 'storage');
    renameSync(storage, path.join(disk, 'storage'));
    symlinkSync(path.join(disk, 'storage'), storage);
    try {
      const s = await read(lib.dataDir);
      const commune = s.items.find((i) => i.key === lib.items.commune)!;
      assert.equal(commune.attachments[0].missing, undefined, warningsOf(s));
    } finally {
      rmSync(storage);
      renameSync(path.join(disk, 'storage'), storage);
    }
  });

  it('the PDF is read confined: a stored file swapped for a link after the listing is refused when its bytes are read', async () => {
    const storage = path.join(lib.dataDir, 'storage');
    const file = path.join(storage, 'SWP22222', 'paper.pdf');
    mkdirSync(path.dirname(file));
    copyFileSync(EXAMPLE_PDF, file);
    const { inputs, dispose } = await libraryInputs({
      folders: [],
      ocr: 'off',
      extraFiles: [{ path: file, bib: { citekey: 'k', authors: [], collections: [] }, sourceType: 'secondary', within: [storage] }],
    });
    try {
      assert.equal((await inputs[0].readBytes!()).length, statSync(EXAMPLE_PDF).size);
      rmSync(file);
      symlinkSync(path.join(outside, 'secret.pdf'), file);
      // Skipped with the reason, as any PDF that cannot be read.
      await assert.rejects(
        inputs[0].readBytes!(),
        (e: Error & { kind?: string }) => e.kind === 'unreadable' && /^it is a link to a file outside Zotero's storage folder, not read$/.test(e.message),
      );
    } finally {
      await dispose();
    }
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
      assert.match(
        warningsOf(s),
        /zotero\.sqlite-wal is a FIFO \(named pipe\), not a regular file: not read as a Zotero's write-ahead log; the database was read without it/,
      );
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
      await assert.rejects(
        read(lib.dataDir, { tempDir: tmp }),
        (e: Error) => e instanceof ZoteroUnavailable && /zotero\.sqlite is a FIFO \(named pipe\)/.test(e.message),
      );
      const loaded = await within(
        loadZoteroLibrary({ dataDir: lib.dataDir, home: root }, { readers: (loc) => [new ZoteroDatabaseReader({ dataDir: loc.dataDir, tempDir: tmp })] }),
      );
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
    await assert.rejects(
      within(new ZoteroDatabaseReader({ dataDir: lib.dataDir, tempDir: tmp }).read({ signal: ac.signal })),
      (e: Error & { code?: string }) => e.code === 'cancelled',
    );
    assert.deepEqual(copiesLeft(), []);
  });
});
