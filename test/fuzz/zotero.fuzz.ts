/**
 * Fuzzing Zotero's data directory (issue 35, item 8). Two surfaces:
 *
 * - its write-ahead log: logs written with valid salts and checksums but any frames (page numbers
 *   0, in range, past the end, huge; commit sizes 0, small, the database's, 0x7fffffff; pages of
 *   the database mutated or random), then the log's bytes mutated (flipped, cut, grown, its header's
 *   page size changed). `applyWal` must answer every one without a throw, give back a database no
 *   larger than the database and the log can hold together, and take time bounded by the log's size;
 *   every 40th is also read through the whole database reader.
 * - its database: a generated library edited as a hostile or damaged one would be (edit_library.py):
 *   attachments with stored paths that climb out of storage/, keys that are no Zotero keys, absolute
 *   and linked paths, huge titles, creators, tags, Extra and collection chains. Reading it must give
 *   items whose fields stay within ZOTERO_LIMITS, whose keys have Zotero's shape, and whose stored
 *   files lie in their storage/ folder, links followed; never a throw but ZoteroUnavailable.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { isZoteroKey, ZOTERO_LIMITS } from '../../src/core/zotero/bounds';
import { ZoteroDatabaseReader } from '../../src/core/zotero/database';
import { ZoteroUnavailable, type ZoteroSnapshot } from '../../src/core/zotero/model';
import { applyWal } from '../../src/core/zotero/wal';
import { craftWal, pageSizeOf } from '../support/zotero/craftWal';
import { editZoteroLibrary, makeZoteroLibrary, type GeneratedLibrary } from '../support/zotero/library';
import { cpuMs, FUZZ_BUDGET_MS, fuzzParams, seededRandom } from './budget';

/** What a snapshot may hold, whatever the library held. */
function checkSnapshot(s: ZoteroSnapshot, storage: string, what: string): void {
  const realStorage = realpathSync(storage);
  for (const item of s.items) {
    assert.ok(isZoteroKey(item.key), `${what}: item key ${JSON.stringify(item.key).slice(0, 60)}`);
    assert.ok((item.title ?? '').length <= ZOTERO_LIMITS.title, `${what}: title of ${item.title?.length}`);
    assert.ok(item.creators.length <= ZOTERO_LIMITS.creators, `${what}: ${item.creators.length} creators`);
    for (const c of item.creators)
      for (const n of [c.firstName, c.lastName, c.name]) assert.ok((n ?? '').length <= ZOTERO_LIMITS.name, `${what}: a name of ${n?.length}`);
    assert.ok(item.tags.length <= ZOTERO_LIMITS.tags, `${what}: ${item.tags.length} tags`);
    assert.ok(item.collections.length <= ZOTERO_LIMITS.collections, `${what}: ${item.collections.length} collections`);
    for (const c of item.collections) assert.ok(c.length <= ZOTERO_LIMITS.collectionPath, `${what}: a collection path of ${c.length}`);
    for (const a of item.attachments) {
      if (!a.path || a.missing || a.linkMode !== 'imported_file') continue;
      const real = realpathSync(a.path);
      const rel = path.relative(realStorage, real);
      assert.ok(!rel.startsWith('..') && !path.isAbsolute(rel), `${what}: a stored file outside storage/: ${a.path}`);
    }
  }
}

describe('fuzz: Zotero data directories', function () {
  this.timeout(FUZZ_BUDGET_MS * 3 + 240_000);
  let root: string;
  let lib: GeneratedLibrary;
  let db: Uint8Array;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'ss-fuzz-zotero-'));
    lib = makeZoteroLibrary(path.join(root, 'base'));
    db = new Uint8Array(readFileSync(path.join(lib.dataDir, 'zotero.sqlite')));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('write-ahead logs that lie: answered without a throw, bounded by what the files hold', async () => {
    const ps = pageSizeOf(db);
    const dbPages = db.length / ps;
    const rand = seededRandom(0x2a1);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
    let tried = 0;
    let applied = 0;
    let read = 0;
    let worstMsPerMb = 0;
    const end = Date.now() + FUZZ_BUDGET_MS;
    while (Date.now() < end) {
      const frames = Array.from({ length: 1 + Math.floor(rand() ** 2 * 8) }, () => {
        const at = Math.floor(rand() * dbPages) * ps;
        const page = db.slice(at, at + ps);
        for (let k = Math.floor(rand() * 6); k > 0; k--) page[Math.floor(rand() * page.length)] = Math.floor(rand() * 256);
        return {
          pgno: pick([0, 1, 2, Math.ceil(rand() * dbPages), dbPages + 1, dbPages + 50, 0x7fffffff, 0xffffffff]),
          commit: pick([0, 0, 0, 1, dbPages, dbPages + 1, dbPages * 2, 600_000, 0x7fffffff, 0xffffffff]),
          data: rand() < 0.2 ? Uint8Array.from({ length: ps }, () => Math.floor(rand() * 256)) : page,
        };
      });
      let wal = craftWal(ps, frames, [Math.floor(rand() * 2 ** 32), Math.floor(rand() * 2 ** 32)]);
      const op = Math.floor(rand() * 6);
      if (op === 1) wal = wal.subarray(0, Math.floor(rand() * wal.length));
      else if (op === 2) for (let k = 1 + Math.floor(rand() * 8); k > 0; k--) wal[Math.floor(rand() * wal.length)] ^= 1 << Math.floor(rand() * 8);
      else if (op === 3) wal = Uint8Array.from([...wal, ...Array.from({ length: Math.floor(rand() * 3 * ps) }, () => Math.floor(rand() * 256))]);
      else if (op === 4) new DataView(wal.buffer, wal.byteOffset).setUint32(8, pick([0, 1, 512, 1024, 3000, 65536, 0x7fffffff]));
      tried++;
      const c0 = process.cpuUsage();
      const r = applyWal(db.slice(), wal);
      const ms = cpuMs(c0);
      worstMsPerMb = Math.max(worstMsPerMb, ms / Math.max(1, wal.length / 1048576));
      if (r.frames > 0) applied++;
      assert.ok(r.db.length <= db.length + Math.ceil(wal.length / ps) * ps + ps, `a ${wal.length}-byte log gave a database of ${r.db.length} bytes`);
      assert.ok(ms < 2_000 + wal.length / 1000, `${Math.round(ms)} ms for a ${wal.length}-byte log`);
      if (tried % 40 === 0) {
        // Through the whole reader, from a data directory holding it.
        const dir = path.join(root, `wal-${tried}`);
        cpSync(lib.dataDir, dir, { recursive: true });
        writeFileSync(path.join(dir, 'zotero.sqlite-wal'), wal);
        try {
          const s = await new ZoteroDatabaseReader({ dataDir: dir }).read();
          checkSnapshot(s, path.join(dir, 'storage'), `log ${tried}`);
          read++;
        } catch (e) {
          assert.ok(e instanceof ZoteroUnavailable, `log ${tried}: ${(e as Error).stack}`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    console.log(
      `      logs: ${tried.toLocaleString('en')} tried (${applied.toLocaleString('en')} with frames applied), ${read} read through the reader; worst ${worstMsPerMb.toFixed(1)} ms of CPU per MB`,
    );
    assert.ok(tried > 0);
  });

  it('hostile items: fields bounded, keys checked, stored files confined to storage/', async () => {
    const KEYS = ['ABCD2345', 'ZZZZ9999', '../../x', '..', '', 'abcd2345', 'ABCD234', 'A/B/C/D/', 'ABCD2345/../../..', 'ÉÉÉÉÉÉÉÉ', 'x'.repeat(300)];
    const PATHS = [
      'storage:paper.pdf',
      'storage:../secret.pdf',
      'storage:../../../outside/secret.pdf',
      'storage:/etc/passwd',
      'storage:',
      'storage:a/../../b.pdf',
      '/etc/passwd',
      'attachments:../../x.pdf',
      'attachments:paper.pdf',
      'storage:' + 'p'.repeat(5000) + '.pdf',
      'storage:\u0000.pdf',
      'C:\\x.pdf',
    ];
    // One edit of each kind at most, attachments of distinct keys: the editor writes rows a real
    // database keeps unique (an item's creators' order, tag names, item keys).
    const some = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    const edits = fc
      .record({
        attach: fc.uniqueArray(
          fc.record({ key: fc.constantFrom(...KEYS), path: fc.constantFrom(...PATHS), parent: fc.constantFrom<string | null>(null, 'commune', 'grain') }),
          { selector: (a) => a.key, maxLength: 3 },
        ),
        title_chars: some(
          fc.record({
            item: fc.constantFrom('commune', 'grain', 'hanse'),
            char: fc.constantFrom('a', 'é', '\u202e', '\u0000', ' ', 'x '),
            count: fc.integer({ min: 0, max: 2_000_000 }),
          }),
        ),
        creators: some(
          fc.record({ item: fc.constantFrom('commune', 'grain'), count: fc.integer({ min: 0, max: 400 }), chars: fc.integer({ min: 0, max: 5_000 }) }),
        ),
        tags: some(
          fc.record({ item: fc.constantFrom('commune', 'grain'), count: fc.integer({ min: 0, max: 500 }), chars: fc.integer({ min: 0, max: 2_000 }) }),
        ),
        extra: some(
          fc.record({
            item: fc.constantFrom('commune', 'grain'),
            value: fc.oneof(fc.string({ maxLength: 200 }), fc.constant('Citation Key: ' + 'k'.repeat(10_000)), fc.constant('DOI: 10.1/' + 'd'.repeat(10_000))),
          }),
        ),
        collections: some(
          fc.record({
            item: fc.constantFrom('commune', 'grain'),
            depth: fc.integer({ min: 1, max: 120 }),
            chars: fc.integer({ min: 1, max: 2_000 }),
            count: fc.integer({ min: 1, max: 150 }),
          }),
        ),
      })
      .map(({ attach, ...rest }) => [...attach.map((a) => ({ attach: a })), ...Object.entries(rest).flatMap(([k, v]) => (v === undefined ? [] : [{ [k]: v }]))])
      .filter((e) => e.length > 0);
    let tried = 0;
    let unavailable = 0;
    let worstMs = 0;
    await fc.assert(
      fc.asyncProperty(edits, async (edits) => {
        tried++;
        const dir = path.join(root, `lib-${tried}`);
        cpSync(lib.dataDir, dir, { recursive: true });
        try {
          // Keys given by name are the generated library's; the others are written as they are.
          const named = JSON.parse(
            JSON.stringify(edits).replace(/"(item|parent)":"(\w+)"/g, (m, k: string, v: string) => (lib.items[v] ? `"${k}":"${lib.items[v]}"` : m)),
          );
          editZoteroLibrary(dir, named);
          const c0 = process.cpuUsage();
          try {
            const s = await new ZoteroDatabaseReader({ dataDir: dir }).read();
            checkSnapshot(s, path.join(dir, 'storage'), JSON.stringify(edits).slice(0, 300));
          } catch (e) {
            assert.ok(e instanceof ZoteroUnavailable, `${JSON.stringify(edits).slice(0, 300)}: ${(e as Error).stack}`);
            unavailable++;
          }
          const ms = cpuMs(c0);
          worstMs = Math.max(worstMs, ms);
          assert.ok(ms < 15_000, `${Math.round(ms)} ms of CPU`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      fuzzParams(),
    );
    console.log(
      `      libraries: ${tried.toLocaleString('en')} edited and read (${unavailable} unreadable as a whole, said so); worst ${Math.round(worstMs)} ms of CPU`,
    );
    assert.ok(tried > 0);
  });
});
