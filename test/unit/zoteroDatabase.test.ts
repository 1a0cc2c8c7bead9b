import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ZoteroDatabaseReader } from '../../src/core/zotero/database';
import { ZoteroUnavailable, type ZoteroSnapshot } from '../../src/core/zotero/model';
import { openDatabase } from '../../src/core/zotero/sqlite';
import { applyWal } from '../../src/core/zotero/wal';
import { holdInWal, makeZoteroLibrary, sha256File, zoteroKey, type GeneratedLibrary } from '../support/zotero/library';

describe('Zotero database reader', function () {
  let root: string;
  let lib: GeneratedLibrary;
  let snap: ZoteroSnapshot;
  let hashBefore: string;

  before(async function () {
    root = mkdtempSync(path.join(tmpdir(), 'zdb-'));
    lib = makeZoteroLibrary(root, { items: 2000 });
    hashBefore = sha256File(path.join(lib.dataDir, 'zotero.sqlite'));
    snap = await new ZoteroDatabaseReader({ dataDir: lib.dataDir, baseAttachmentPath: path.join(root, 'base') }).read();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const item = (name: string) => {
    const it = snap.items.find((i) => i.key === lib.items[name]);
    assert.ok(it, `item ${name} (${lib.items[name]}) was read`);
    return it;
  };

  it('reads every regular item of the user and group libraries, not notes, attachments, annotations or feeds', () => {
    // 8 named + 2000 filler items + a PDF without a parent; notes, child attachments and annotations are not items of their own.
    assert.equal(snap.items.length, 2009);
    const standalone = item('standalone');
    assert.deepEqual(
      [standalone.itemType, standalone.title, standalone.attachments.map((a) => a.path)],
      ['attachment', 'Printing and the Reformation (standalone PDF)', [lib.attachments.standalone]],
    );
    assert.deepEqual(
      snap.libraries.map((l) => [l.id, l.type, l.name, l.groupId]),
      [
        ['1', 'user', 'My Library', undefined],
        ['2', 'group', 'Lab Group', 4242],
      ],
    );
    assert.equal(snap.via, 'database');
    assert.match(snap.stamp, /^db:\d+:\d+\//);
  });

  it('reads title, date, year, DOI, type, creators, tags and nested collection paths', () => {
    const c = item('commune');
    assert.equal(c.title, 'The Paris Commune of 1871');
    assert.equal(c.itemType, 'book');
    assert.equal(c.date, '1871');
    assert.equal(c.year, 1871);
    assert.equal(c.doi, '10.1234/commune');
    assert.deepEqual(c.creators, [{ creatorType: 'author', firstName: 'Prosper-Olivier', lastName: 'Lissagaray' }]);
    assert.deepEqual(c.tags, ['history']);
    // "Old Stuff" is in the trash: its membership is not listed.
    assert.deepEqual(c.collections, ['Thesis/Chapter 1']);
    assert.deepEqual(item('exode').collections.sort(), ['Reading', 'Thesis/Chapter 1']);
    assert.equal(item('exode').date, '1962-05-01');
    assert.deepEqual(item('iceage').creators, [{ creatorType: 'author', name: 'Intergovernmental Panel on Climate' }]);
    assert.equal(item('iceage').libraryId, '2');
    const paths = snap.collections.map((x) => x.path).sort();
    assert.ok(paths.includes('Thesis/Chapter 2') && paths.includes('Reading/Later') && !paths.includes('Old Stuff'), paths.join(', '));
    const ch2 = snap.collections.find((x) => x.path === 'Thesis/Chapter 2' && x.libraryId === '1')!;
    assert.equal(ch2.parentKey, snap.collections.find((x) => x.path === 'Thesis' && x.libraryId === '1')!.key);
  });

  it("takes Zotero's citationKey when set, else generates Better BibTeX's default, distinct", () => {
    assert.equal(item('commune').citekey, 'lissagaray1876');
    assert.equal(item('commune').citekeyFrom, 'zotero');
    assert.equal(item('exode').citekey, 'chevalier1962RuralExodusMaking');
    assert.equal(item('exode').citekeyFrom, 'generated');
    const keys = snap.items.map((i) => i.citekey);
    assert.equal(new Set(keys).size, keys.length, 'every citekey is distinct');
    assert.ok(
      keys.every((k) => /^[A-Za-z0-9]+$/.test(k)),
      'keys are ASCII letters and digits',
    );
  });

  it('marks trashed items deleted', () => {
    assert.equal(item('grain').deleted, true);
    assert.equal(item('commune').deleted, false);
    assert.equal(snap.items.filter((i) => i.deleted).length, 1 + 2000 / 50);
  });

  it('resolves stored, linked and base-relative attachments, in order, and reports a missing file by name', () => {
    assert.deepEqual(
      item('commune').attachments.map((a) => a.path),
      [lib.attachments.commune, lib.attachments.commune2],
    );
    assert.equal(item('commune').attachments[0].linkMode, 'imported_file');
    assert.equal(item('railway').attachments[0].path, lib.attachments.railway);
    assert.equal(item('railway').attachments[0].linkMode, 'linked_file');
    assert.equal(item('hanse').attachments[0].path, lib.attachments.hanse);
    assert.equal(item('hanse').attachments[0].missing, undefined);
    const missing = item('maximum').attachments[0];
    assert.equal(missing.missing, true);
    assert.ok(
      snap.warnings.some((w) => w.includes(lib.attachments.maximum) && w.includes('not found')),
      snap.warnings.join('\n'),
    );
    assert.deepEqual(item('nopdf').attachments, []);
  });

  it('reads annotations with type, text, comment, page label, page index and colour', () => {
    const a = snap.annotations.find((x) => x.key === lib.annotations[0])!;
    const commune = item('commune').attachments[0];
    assert.deepEqual(
      { ...a, dateModified: undefined },
      {
        key: lib.annotations[0],
        attachmentKey: commune.key,
        type: 'highlight',
        text: 'les électeurs parisiens désignent un conseil municipal',
        comment: 'key passage',
        pageLabel: '12',
        pageIndex: 0,
        color: '#ffd400',
        dateModified: undefined,
      },
    );
    assert.equal(snap.annotations.find((x) => x.key === lib.annotations[1])!.type, 'underline');
  });

  it('a base-relative link without the base directory is named, not guessed', async () => {
    const s = await new ZoteroDatabaseReader({ dataDir: lib.dataDir }).read();
    assert.equal(s.items.find((i) => i.key === lib.items.hanse)!.attachments[0].missing, true);
    assert.ok(
      s.warnings.some((w) => w.includes('base directory') && w.includes('papers/hanse-kontore.pdf')),
      s.warnings.join('\n'),
    );
  });

  it('an unchanged database is not read again: the previous snapshot is returned', async () => {
    const reader = new ZoteroDatabaseReader({ dataDir: lib.dataDir, baseAttachmentPath: path.join(root, 'base') });
    assert.equal(await reader.read({ previous: snap }), snap);
    assert.notEqual(await reader.read({ previous: { ...snap, stamp: 'db:0:0/-' } }), snap);
  });

  it('never writes zotero.sqlite and leaves no copy behind', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'zdb-tmp-'));
    await new ZoteroDatabaseReader({ dataDir: lib.dataDir, tempDir: tmp }).read();
    assert.equal(sha256File(path.join(lib.dataDir, 'zotero.sqlite')), hashBefore);
    assert.deepEqual(readdirSync(tmp), []);
    rmSync(tmp, { recursive: true });
  });

  it('sees items that are only in the WAL of a database another process holds open, and never an uncommitted one', async function () {
    const db = path.join(lib.dataDir, 'zotero.sqlite');
    const added = Array.from({ length: 30 }, (_, i) => ({ key: zoteroKey('WAL', i), title: `Only in the write-ahead log ${i}` }));
    const holder = await holdInWal(db, added);
    try {
      const wal = `${db}-wal`;
      assert.ok(existsSync(wal) && statSync(wal).size > 0, 'the WAL holds the new items');
      const dbHash = sha256File(db);
      const walHash = sha256File(wal);
      const reader = new ZoteroDatabaseReader({ dataDir: lib.dataDir });
      const s = await reader.read();
      const titles = new Set(s.items.map((i) => i.title));
      for (const a of added) assert.ok(titles.has(a.title), `${a.title} read from the WAL`);
      assert.ok(!s.items.some((i) => i.key === 'UNCMMTED'), 'an uncommitted item is not read');
      assert.ok(reader.lastTimings!.walFrames > 0);
      // A damaged frame ends the log there: the transactions committed before it are applied, none after.
      const walBytes = new Uint8Array(readFileSync(wal));
      const pageSize = new DataView(walBytes.buffer).getUint32(8);
      const frames = (walBytes.length - 32) / (24 + pageSize);
      const cut = Math.floor(frames / 2);
      walBytes[32 + cut * (24 + pageSize) + 24 + 100] ^= 0xff;
      const partial = applyWal(new Uint8Array(readFileSync(db)), walBytes);
      assert.ok(partial.frames > 0 && partial.frames <= cut, `${partial.frames} frames applied, before the damaged frame ${cut}`);
      const copy = await openDatabase(partial.db);
      const n = Number(copy.exec("SELECT count(*) FROM items WHERE key LIKE 'WAL%'")[0].values[0][0]);
      copy.close();
      assert.ok(n > 0 && n < added.length, `${n} of ${added.length} WAL items before the damage`);
      assert.equal(sha256File(db), dbHash, 'zotero.sqlite unchanged');
      assert.equal(sha256File(wal), walHash, 'zotero.sqlite-wal unchanged');
    } finally {
      await holder.close();
    }
  });

  it('a WAL whose frames fail their checksum is not applied beyond the last good commit', () => {
    const db = new Uint8Array(readFileSync(path.join(lib.dataDir, 'zotero.sqlite')));
    assert.equal(applyWal(db.slice(), undefined).frames, 0);
    const junk = new Uint8Array(4096 + 32);
    junk.set([0x37, 0x7f, 0x06, 0x82]);
    const r = applyWal(db.slice(), junk);
    assert.equal(r.frames, 0);
    assert.ok(r.note, 'a bad header is said');
    assert.equal(r.db[18], 1, 'the copy is opened as a rollback-journal database');
  });
});

describe('Zotero database reader: failures', function () {
  let root: string;
  beforeEach(() => (root = mkdtempSync(path.join(tmpdir(), 'zdbf-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('no database: unavailable, naming the file and where to set the folder', async () => {
    await assert.rejects(
      new ZoteroDatabaseReader({ dataDir: root }).read(),
      (e: Error) =>
        e instanceof ZoteroUnavailable && e.message.includes(path.join(root, 'zotero.sqlite')) && /zoteroDataDir/.test((e as ZoteroUnavailable).hint ?? ''),
    );
  });

  it('a corrupt copy: unavailable, naming the file', async () => {
    writeFileSync(path.join(root, 'zotero.sqlite'), Buffer.alloc(8192, 7));
    await assert.rejects(
      new ZoteroDatabaseReader({ dataDir: root }).read(),
      (e: Error) => e instanceof ZoteroUnavailable && e.message.includes('could not be read') && e.message.includes(path.join(root, 'zotero.sqlite')),
    );
  });

  it('a database from a newer Zotero is read, with a warning naming its schema', async () => {
    const lib = makeZoteroLibrary(root, { schemaVersion: 999 });
    const s = await new ZoteroDatabaseReader({ dataDir: lib.dataDir }).read();
    assert.equal(s.items.length, 9);
    assert.ok(
      s.warnings.some((w) => w.includes('newer Zotero') && w.includes('999')),
      s.warnings.join('\n'),
    );
  });

  it('a database missing the tables it needs: unavailable, naming them', async () => {
    const lib = makeZoteroLibrary(root);
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const r = spawnSync('python3', [
      '-c',
      'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("DROP TABLE itemAttachments"); c.commit()',
      path.join(lib.dataDir, 'zotero.sqlite'),
    ]);
    assert.equal(r.status, 0, String(r.stderr));
    await assert.rejects(
      new ZoteroDatabaseReader({ dataDir: lib.dataDir }).read(),
      (e: Error) => e instanceof ZoteroUnavailable && e.message.includes('itemAttachments'),
    );
  });
});
