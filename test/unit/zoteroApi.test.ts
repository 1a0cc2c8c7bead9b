/**
 * Zotero's local API reader, Better BibTeX keys, the reader chain and the live watch (issue 24),
 * against a real HTTP server on the loopback that answers as Zotero's local API does.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalApiReader, ENABLE_LOCAL_API_HINT, sharedLocalApiReader } from '../../src/core/zotero/localApi';
import { betterBibtexKeys } from '../../src/core/zotero/betterBibtexRpc';
import { readZotero } from '../../src/core/zotero/open';
import { watchZotero, zoteroStamp } from '../../src/core/zotero/watch';
import { ZoteroUnavailable, type ZoteroReader, type ZoteroSnapshot } from '../../src/core/zotero/model';
import { FakeZotero } from '../support/fakeZotero';

const article = (title: string, extra: Record<string, unknown> = {}) => ({
  itemType: 'journalArticle',
  title,
  creators: [{ creatorType: 'author', firstName: 'Ada', lastName: 'Lovelace' }],
  date: '1843-10-01',
  tags: [],
  collections: [],
  ...extra,
});
const pdfAttachment = (parentItem: string | undefined, title: string, extra: Record<string, unknown> = {}) => ({
  itemType: 'attachment',
  linkMode: 'imported_file',
  contentType: 'application/pdf',
  filename: `${title}.pdf`,
  title,
  ...(parentItem ? { parentItem } : {}),
  ...extra,
});

/** A library with what a user has: nested collections, tags, stored and linked PDFs, a note, a highlight, the trash, a group. */
function seed(z: FakeZotero, dir: string) {
  const file = (name: string) => {
    const p = join(dir, name);
    writeFileSync(p, '%PDF-1.4\n');
    return p;
  };
  const thesis = z.putCollection('users/0', 'Thesis');
  const ch2 = z.putCollection('users/0', 'Chapter 2', thesis);
  const a = z.put(
    'users/0',
    article('Notes on the Analytical Engine', { citationKey: 'lovelace1843', DOI: '10.1/ae', tags: [{ tag: 'primary' }], collections: [ch2] }),
  );
  const aPdf = z.put('users/0', pdfAttachment(a, 'Full Text'), file('ae.pdf'));
  const b = z.put(
    'users/0',
    article('On Computable Numbers', { date: 'c. 1936', creators: [{ creatorType: 'author', name: 'Turing Institute' }], collections: [thesis] }),
  );
  const bPdf = z.put(
    'users/0',
    { itemType: 'attachment', linkMode: 'linked_file', contentType: 'application/pdf', path: 'attachments:papers/turing.pdf', title: 'Linked', parentItem: b },
    file('turing.pdf'),
  );
  const c = z.put('users/0', article('Missing Paper'));
  z.put('users/0', pdfAttachment(c, 'Gone'), join(dir, 'not-there.pdf'));
  z.put('users/0', { itemType: 'note', note: '<p>a note</p>', parentItem: a });
  const hl = z.put('users/0', {
    itemType: 'annotation',
    parentItem: aPdf,
    annotationType: 'highlight',
    annotationText: 'the engine weaves algebraical patterns',
    annotationComment: 'key claim',
    annotationColor: '#ffd400',
    annotationPageLabel: '12',
    annotationPosition: JSON.stringify({ pageIndex: 11, rects: [[1, 2, 3, 4]] }),
  });
  const trashed = z.put('users/0', article('Thrown Away'));
  z.put('users/0', pdfAttachment(trashed, 'Trashed PDF'), file('trashed.pdf'));
  z.trash('users/0', trashed);
  const alone = z.put('users/0', pdfAttachment(undefined, 'Standalone'), file('alone.pdf'));
  const g = z.addGroup(4711, 'Reading Group');
  const gi = z.put(g, article('Group Paper'));
  z.put(g, pdfAttachment(gi, 'Group PDF'), file('group.pdf'));
  return { a, aPdf, b, bPdf, c, hl, trashed, alone, gi, thesis, ch2 };
}

/** Order-free view of a snapshot, to compare an incremental read with a full one. */
function canonical(s: ZoteroSnapshot) {
  const sort = <T extends { key: string }>(xs: T[]) => [...xs].sort((x, y) => x.key.localeCompare(y.key));
  return {
    libraries: s.libraries,
    items: sort(s.items).map((i) => ({ ...i, attachments: sort(i.attachments), collections: [...i.collections].sort() })),
    collections: sort(s.collections),
    annotations: sort(s.annotations),
    stamp: s.stamp,
  };
}

/** A seeded fake Zotero in a fresh folder for each test (`set` receives them), closed and removed after it. */
function seededZotero(prefix: string, set: (z: FakeZotero, dir: string, ids: ReturnType<typeof seed>) => void): void {
  let z: FakeZotero;
  let dir: string;
  beforeEach(async () => {
    z = new FakeZotero();
    await z.start();
    dir = mkdtempSync(join(tmpdir(), prefix));
    set(z, dir, seed(z, dir));
  });
  afterEach(async () => {
    await z.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

describe('Zotero local API reader', function () {
  let z: FakeZotero;
  let dir: string;
  let ids: ReturnType<typeof seed>;
  seededZotero('zotero-api-', (...started) => ([z, dir, ids] = started));

  it('reads items, PDFs and their files, nested collections, tags, highlights and groups, leaving the trash and notes out', async () => {
    const s = await new LocalApiReader({ baseUrl: z.url, pageSize: 3 }).read();
    assert.equal(s.via, 'local-api');
    assert.deepEqual(
      s.libraries.map((l) => [l.id, l.type, l.name]),
      [
        ['users/0', 'user', 'My Library'],
        ['groups/4711', 'group', 'Reading Group'],
      ],
    );
    assert.match(s.stamp, /^local-api:FAKESERVER1:users\/0@\d+,groups\/4711@\d+$/);
    // Pages of 3: the user library's 12 live objects take several requests.
    assert.ok(z.requests.filter((r) => r.startsWith('/api/users/0/items?sort')).length >= 4, z.requests.join('\n'));

    const byTitle = new Map(s.items.map((i) => [i.title, i]));
    assert.equal(byTitle.has('Thrown Away'), false, 'a trashed item is never listed');
    assert.ok(!s.items.some((i) => i.attachments.some((a) => a.title === 'Trashed PDF')));
    const a = byTitle.get('Notes on the Analytical Engine')!;
    assert.equal(a.citekey, 'lovelace1843');
    assert.equal(a.citekeyFrom, 'zotero');
    assert.equal(a.doi, '10.1/ae');
    assert.equal(a.year, 1843);
    assert.deepEqual(a.tags, ['primary']);
    assert.deepEqual(a.collections, ['Thesis/Chapter 2']);
    assert.deepEqual(
      a.attachments.map((x) => [x.key, x.path, x.missing]),
      [[ids.aPdf, join(dir, 'ae.pdf'), undefined]],
    );
    const b = byTitle.get('On Computable Numbers')!;
    assert.equal(b.year, 1936);
    assert.equal(b.citekey, '');
    assert.deepEqual(b.creators, [{ creatorType: 'author', firstName: undefined, lastName: undefined, name: 'Turing Institute' }]);
    assert.deepEqual(b.collections, ['Thesis']);
    // A linked file relative to the base directory: resolved by Zotero through file/view/url.
    assert.equal(b.attachments[0].path, join(dir, 'turing.pdf'));
    assert.ok(z.requests.includes(`/api/users/0/items/${ids.bPdf}/file/view/url`));
    const c = byTitle.get('Missing Paper')!;
    assert.equal(c.attachments[0].missing, true);
    assert.ok(
      s.warnings.some((w) => w.includes('not-there.pdf') && w.includes('Missing Paper')),
      s.warnings.join('\n'),
    );
    const alone = s.items.find((i) => i.key === ids.alone)!;
    assert.equal(alone.itemType, 'attachment');
    assert.equal(alone.attachments[0].path, join(dir, 'alone.pdf'));
    assert.deepEqual(s.annotations, [
      {
        key: ids.hl,
        attachmentKey: ids.aPdf,
        type: 'highlight',
        text: 'the engine weaves algebraical patterns',
        comment: 'key claim',
        pageLabel: '12',
        pageIndex: 11,
        color: '#ffd400',
        dateModified: undefined,
      },
    ]);
    assert.deepEqual(s.collections.map((x) => x.path).sort(), ['Thesis', 'Thesis/Chapter 2']);
    const group = byTitle.get('Group Paper')!;
    assert.equal(group.libraryId, 'groups/4711');
    assert.equal(group.attachments[0].path, join(dir, 'group.pdf'));
    assert.ok(!s.items.some((i) => i.itemType === 'note'));
  });

  it('reads only what changed since the last version, and finds what was trashed or deleted', async () => {
    const reader = new LocalApiReader({ baseUrl: z.url });
    const first = await reader.read();
    const v = first.libraries[0].version!;
    const d = z.put('users/0', article('A New Item', { collections: [ids.thesis] }));
    z.put('users/0', { key: ids.b, title: 'On Computable Numbers, Revised' });
    z.trash('users/0', ids.c);
    z.erase('users/0', ids.alone);
    const hl2 = z.put('users/0', {
      itemType: 'annotation',
      parentItem: ids.aPdf,
      annotationType: 'underline',
      annotationText: 'new',
      annotationPosition: '{"pageIndex":2}',
    });
    z.requests.length = 0;
    const second = await reader.read();
    assert.ok(z.requests.includes(`/api/users/0/items?sort=dateAdded&direction=asc&since=${v}&start=0&limit=1000`), z.requests.join('\n'));
    assert.ok(!z.requests.some((r) => /\/users\/0\/items\?sort=dateAdded&direction=asc&start/.test(r)), 'no full refetch');
    // The group did not change: 304, nothing fetched for it.
    assert.ok(!z.requests.some((r) => r.startsWith('/api/groups/4711/items?sort')));
    const titles = second.items.map((i) => i.title).sort();
    assert.deepEqual(titles, ['A New Item', 'Group Paper', 'Notes on the Analytical Engine', 'On Computable Numbers, Revised']);
    assert.deepEqual(second.items.find((i) => i.key === d)!.collections, ['Thesis']);
    assert.ok(second.annotations.some((a) => a.key === hl2 && a.pageIndex === 2));
    assert.notEqual(second.stamp, first.stamp);
    // The merge equals a full read by a reader that knows nothing.
    const full = await new LocalApiReader({ baseUrl: z.url }).read();
    assert.deepEqual(canonical(second), canonical(full));
    // A new reader given the last snapshot (a restarted host) also reads only the changes.
    z.put('users/0', { key: d, title: 'A Newer Title' });
    z.requests.length = 0;
    const third = await new LocalApiReader({ baseUrl: z.url }).read({ previous: second });
    assert.ok(
      z.requests.some((r) => r.includes(`since=${second.libraries[0].version}`)),
      z.requests.join('\n'),
    );
    assert.deepEqual(canonical(third), canonical(await new LocalApiReader({ baseUrl: z.url }).read()));
  });

  it('sees a stored file gone from the disk on the next read, though Zotero did not change', async () => {
    const reader = new LocalApiReader({ baseUrl: z.url });
    const first = await reader.read();
    assert.equal(first.items.find((i) => i.key === ids.a)!.attachments[0].missing, undefined);
    rmSync(join(dir, 'ae.pdf'));
    const second = await reader.read();
    assert.equal(second.stamp, first.stamp);
    assert.equal(second.items.find((i) => i.key === ids.a)!.attachments[0].missing, true);
    assert.ok(second.warnings.some((w) => w.includes('ae.pdf')));
  });

  it('keeps one reader per address and data directory in the process, so each index run reads only the changes', async () => {
    const first = sharedLocalApiReader({ baseUrl: z.url, dataDir: dir });
    assert.equal(sharedLocalApiReader({ baseUrl: z.url, dataDir: join(dir, '.') }), first);
    assert.notEqual(sharedLocalApiReader({ baseUrl: z.url }), first);
    await first.read();
    z.put('users/0', article('Later'));
    z.requests.length = 0;
    await sharedLocalApiReader({ baseUrl: z.url, dataDir: dir }).read();
    assert.ok(
      z.requests.some((r) => r.includes('since=')),
      z.requests.join('\n'),
    );
  });

  it('asks nothing more than the versions when nothing changed, and reads everything again from another Zotero', async () => {
    const reader = new LocalApiReader({ baseUrl: z.url });
    const first = await reader.read();
    z.requests.length = 0;
    const again = await reader.read();
    assert.equal(again.stamp, first.stamp);
    assert.deepEqual(
      z.requests.filter((r) => !r.includes('format=versions') && !r.endsWith('/groups')),
      [],
    );
    // Versions of one Zotero mean nothing to another (Zotero-Server-ID differs): full read.
    z.serverId = 'OTHERSERVER';
    z.requests.length = 0;
    const other = await reader.read({ previous: first });
    assert.ok(!z.requests.some((r) => r.includes('since=')), z.requests.join('\n'));
    assert.match(other.stamp, /^local-api:OTHERSERVER:/);
  });

  it('reads the rest when a group library fails, and keeps that group as last read', async () => {
    const reader = new LocalApiReader({ baseUrl: z.url });
    const first = await reader.read();
    z.put('groups/4711', article('Second Group Paper'));
    z.failPaths = /^\/api\/groups\/4711\//;
    const s = await reader.read();
    assert.ok(
      s.warnings.some((w) => w.includes('"Reading Group"') && w.includes('500')),
      s.warnings.join('\n'),
    );
    assert.ok(s.items.some((i) => i.title === 'Group Paper'));
    assert.ok(!s.items.some((i) => i.title === 'Second Group Paper'));
    assert.equal(s.items.length, first.items.length);
    z.failPaths = /^\/api\/users\/0\/items/;
    await assert.rejects(reader.read(), (e: Error) => e instanceof ZoteroUnavailable && /500/.test(e.message));
  });

  it('gives up on a server that does not answer, and on a cancelled read', async () => {
    z.hangPaths = /\/items$/;
    await assert.rejects(
      new LocalApiReader({ baseUrl: z.url, timeoutMs: 300 }).read(),
      (e: Error) => e instanceof ZoteroUnavailable && /did not answer within 300 ms/.test(e.message),
    );
    const cancel = new AbortController();
    const reading = new LocalApiReader({ baseUrl: z.url }).read({ signal: cancel.signal });
    setTimeout(() => cancel.abort(), 50);
    await assert.rejects(reading, (e: Error) => !(e instanceof ZoteroUnavailable) && /cancelled/.test(e.message));
  });

  it('says where the running Zotero keeps its files, and steps aside when that is not the data directory chosen', async () => {
    const dataDir = join(dir, 'Zotero');
    const item = z.put('users/0', article('Stored'));
    const att = z.newKey();
    mkdirSync(join(dataDir, 'storage', att), { recursive: true });
    writeFileSync(join(dataDir, 'storage', att, 'stored.pdf'), '%PDF-1.4\n');
    z.put('users/0', { ...pdfAttachment(item, 'Stored PDF'), key: att }, join(dataDir, 'storage', att, 'stored.pdf'));
    assert.equal((await new LocalApiReader({ baseUrl: z.url, dataDir }).read()).dataDir, dataDir);
    await assert.rejects(
      new LocalApiReader({ baseUrl: z.url, dataDir: join(dir, 'Other') }).read(),
      (e: Error) => e instanceof ZoteroUnavailable && e.message.includes(dataDir) && !e.hint,
    );
  });

  it('bounds what it reads from the server', async () => {
    await assert.rejects(new LocalApiReader({ baseUrl: z.url, maxBytes: 200 }).read(), (e: Error) => e instanceof ZoteroUnavailable && /bytes/.test(e.message));
  });

  it("bounds each item's fields and lists, and leaves out an object whose key is not a Zotero key (issue 35)", async () => {
    const huge = z.put(
      'users/0',
      article('t'.repeat(10 * 1024 * 1024), {
        creators: Array.from({ length: 1000 }, (_, i) => ({ creatorType: 'author', lastName: `L${i}${'l'.repeat(5000)}` })).concat([null as never]),
        tags: Array.from({ length: 1000 }, (_, i) => ({ tag: `t${i}${'x'.repeat(5000)}` })),
        extra: `${'\n'.repeat(100_000)}Citation Key: ${'k'.repeat(300)}`,
        DOI: 'd'.repeat(100_000),
      }),
    );
    z.put('users/0', { ...article('Hostile key'), key: '../../x' });
    const s = await new LocalApiReader({ baseUrl: z.url }).read();
    const it = s.items.find((i) => i.key === huge)!;
    assert.deepEqual([it.title!.length, it.creators.length, it.tags.length, it.doi!.length, it.citekeyFrom], [1000, 100, 200, 200, 'generated']);
    assert.ok(it.creators.every((c) => (c.lastName ?? '').length <= 200) && it.tags.every((t) => t.length <= 200));
    assert.ok(!s.items.some((i) => i.key === '../../x'));
    const w = s.warnings.join('\n');
    assert.match(w, new RegExp(`title \\(over 1000 characters\\): item ${huge}`));
    assert.match(w, /key is not a Zotero key were left out: "\.\.\/\.\.\/x" in My Library/);
    z.erase('users/0', huge);
    z.erase('users/0', '../../x');
  });

  it('says Zotero is not running when nothing answers, and how to enable the API on 403', async () => {
    z.enabled = false;
    await assert.rejects(
      new LocalApiReader({ baseUrl: z.url }).read(),
      (e: Error) => e instanceof ZoteroUnavailable && e.hint === ENABLE_LOCAL_API_HINT && /local API is off/.test(e.message),
    );
    const closed = new FakeZotero();
    const url = await closed.start();
    await closed.close();
    await assert.rejects(new LocalApiReader({ baseUrl: url }).read(), (e: Error) => e instanceof ZoteroUnavailable && /not running/.test(e.message));
  });
});

describe('Zotero reader chain and Better BibTeX', function () {
  let z: FakeZotero;
  let dir: string;
  let ids: ReturnType<typeof seed>;
  seededZotero('zotero-chain-', (...started) => ([z, dir, ids] = started));

  /** Stands in for the database copy reader (tested in its own file): a second path that answers. */
  const databasePath = (items: number): ZoteroReader => ({
    name: 'database',
    read: async () => ({
      via: 'database',
      dataDir: '/data',
      libraries: [{ id: '1', type: 'user', name: 'My Library' }],
      items: Array.from({ length: items }, (_, i) => ({
        key: `K${i}`,
        libraryId: '1',
        itemType: 'book',
        creators: [],
        citekey: '',
        citekeyFrom: 'generated' as const,
        collections: [],
        tags: [],
        deleted: false,
        attachments: [],
      })),
      collections: [],
      annotations: [],
      stamp: 'db',
      warnings: [],
    }),
  });

  it('falls through a refusing local API to the next reader and gives the enable hint once', async () => {
    z.enabled = false;
    const shown = new Set<string>();
    const first = await readZotero([new LocalApiReader({ baseUrl: z.url }), databasePath(2)], { betterBibtex: { baseUrl: z.url }, shownHints: shown });
    assert.equal(first.via, 'database');
    assert.deepEqual(first.hints, [ENABLE_LOCAL_API_HINT]);
    assert.match(first.skipped[0].reason, /local API is off/);
    assert.match(first.message, /copy of its database \(\/data\): 2 items in 1 library/);
    const second = await readZotero([new LocalApiReader({ baseUrl: z.url }), databasePath(2)], { betterBibtex: { baseUrl: z.url }, shownHints: shown });
    assert.deepEqual(second.hints, [], 'said once');
    await assert.rejects(
      readZotero([new LocalApiReader({ baseUrl: z.url })], {}),
      (e: Error) => e instanceof ZoteroUnavailable && e.hint === ENABLE_LOCAL_API_HINT,
    );
  });

  it("fills empty citekeys from Better BibTeX, keeps Zotero's own, and leaves the rest to the next source", async () => {
    z.bbt = new Map([
      [ids.b, 'turing1936computable'],
      [ids.a, 'notUsed'],
    ]);
    const leftover: string[] = [];
    const r = await readZotero([new LocalApiReader({ baseUrl: z.url })], {
      betterBibtex: { baseUrl: z.url },
      fillCitekeys: (s) => {
        for (const i of s.items) if (!i.citekey) leftover.push(i.title ?? i.key);
      },
    });
    const byKey = new Map(r.snapshot.items.map((i) => [i.key, i]));
    assert.deepEqual([byKey.get(ids.b)!.citekey, byKey.get(ids.b)!.citekeyFrom], ['turing1936computable', 'better-bibtex']);
    assert.deepEqual([byKey.get(ids.a)!.citekey, byKey.get(ids.a)!.citekeyFrom], ['lovelace1843', 'zotero']);
    assert.ok(leftover.includes('Missing Paper'));
    assert.ok(!leftover.includes('On Computable Numbers'));
    // The group item is not asked (its Zotero libraryID is not known through the API).
    assert.ok(leftover.includes('Group Paper'));
  });

  it('on an incremental read from the last snapshot, gives keys again rather than keeping stale ones', async () => {
    z.bbt = new Map([[ids.b, 'turing1936']]);
    const generate = (s: ZoteroSnapshot) => {
      for (const i of s.items) if (!i.citekey) Object.assign(i, { citekey: `gen-${i.title}`, citekeyFrom: 'generated' });
    };
    const first = await readZotero([new LocalApiReader({ baseUrl: z.url })], { betterBibtex: { baseUrl: z.url }, fillCitekeys: generate });
    z.bbt = new Map([
      [ids.b, 'turing1936computable'],
      [ids.c, 'missing2020'],
    ]);
    z.put('users/0', article('Another'));
    const second = await readZotero([new LocalApiReader({ baseUrl: z.url })], {
      previous: first.snapshot,
      betterBibtex: { baseUrl: z.url },
      fillCitekeys: generate,
    });
    const key = (k: string) => second.snapshot.items.find((i) => i.key === k)!;
    assert.equal(key(ids.b).citekey, 'turing1936computable', 'a key changed in Better BibTeX is seen');
    assert.deepEqual([key(ids.c).citekey, key(ids.c).citekeyFrom], ['missing2020', 'better-bibtex']);
    assert.deepEqual([key(ids.a).citekey, key(ids.a).citekeyFrom], ['lovelace1843', 'zotero']);
    assert.equal(key(ids.gi).citekey, 'gen-Group Paper');
  });

  it('asks Better BibTeX with the keys given and is silent when it is not installed', async () => {
    z.bbt = new Map([
      ['ABCD2345', 'a2020'],
      ['3:EFGH6789', 'g2021'],
    ]);
    const got = await betterBibtexKeys(['ABCD2345', '3:EFGH6789', 'NOPE2345'], { baseUrl: z.url, batchSize: 2 });
    assert.deepEqual(
      [...got!],
      [
        ['ABCD2345', 'a2020'],
        ['3:EFGH6789', 'g2021'],
      ],
    );
    z.bbt = undefined;
    assert.equal(await betterBibtexKeys(['ABCD2345'], { baseUrl: z.url }), undefined);
    const r = await readZotero([new LocalApiReader({ baseUrl: z.url })], { betterBibtex: { baseUrl: z.url } });
    assert.equal(r.snapshot.items.find((i) => i.key === ids.b)!.citekey, '');
  });
});

describe('Zotero watch', function () {
  let z: FakeZotero;
  let dir: string;
  beforeEach(async () => {
    z = new FakeZotero();
    await z.start();
    dir = mkdtempSync(join(tmpdir(), 'zotero-watch-'));
  });
  afterEach(async () => {
    await z.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('notices a new item through the local API, once, with the stamp the next read has', async () => {
    z.put('users/0', article('First'));
    const reader = new LocalApiReader({ baseUrl: z.url });
    const before = await reader.read();
    assert.equal(await zoteroStamp({ localApi: { baseUrl: z.url } }), before.stamp);
    const changes: string[] = [];
    let noticed!: (s: string) => void;
    const changed = new Promise<string>((resolve) => (noticed = resolve));
    const w = watchZotero({
      localApi: { baseUrl: z.url },
      since: before.stamp,
      intervalMs: 50,
      debounceMs: 100,
      onChange: (s) => (changes.push(s), noticed(s)),
    });
    try {
      z.put('users/0', article('Second'));
      const stamp = await changed;
      const after = await reader.read();
      assert.equal(stamp, after.stamp);
      assert.deepEqual(after.items.map((i) => i.title).sort(), ['First', 'Second']);
    } finally {
      w.stop();
    }
    assert.equal(changes.length, 1);
  });

  it('gives changes that keep coming as one, with the last stamp, and says nothing once stopped', async () => {
    const changes: string[] = [];
    let noticed!: () => void;
    const changed = new Promise<void>((resolve) => (noticed = resolve));
    const w = watchZotero({ localApi: { baseUrl: z.url }, intervalMs: 20, debounceMs: 1500, maxWaitMs: 60_000, onChange: (s) => (changes.push(s), noticed()) });
    while (w.stamp === undefined) await new Promise((r) => setTimeout(r, 10));
    // Three writes, each seen by a look of its own (an import of three items).
    for (let i = 0; i < 3; i++) {
      const seen: string | undefined = w.stamp;
      z.put('users/0', article(`Imported ${i}`));
      while (w.stamp === seen) await new Promise((r) => setTimeout(r, 10));
    }
    const final = w.stamp;
    await changed;
    assert.deepEqual(changes, [final]);
    w.stop();
    z.put('users/0', article('After stop'));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(changes.length, 1);
    assert.equal(w.stamp, final, 'no look after stop');
  });

  it('watches the database and its WAL when the local API does not answer', async () => {
    z.enabled = false;
    mkdirSync(join(dir, 'storage'));
    writeFileSync(join(dir, 'zotero.sqlite'), 'db');
    let noticed!: (s: string) => void;
    const changed = new Promise<string>((resolve) => (noticed = resolve));
    const errors: Error[] = [];
    const w = watchZotero({
      localApi: { baseUrl: z.url },
      dataDir: async () => dir,
      intervalMs: 50,
      debounceMs: 50,
      onChange: (s) => noticed(s),
      onError: (e) => errors.push(e),
    });
    try {
      // Let the first look take the baseline, then Zotero writes to its WAL.
      while (w.stamp === undefined) await new Promise((r) => setTimeout(r, 20));
      const baseline = w.stamp;
      appendFileSync(join(dir, 'zotero.sqlite-wal'), 'new page');
      const stamp = await changed;
      assert.notEqual(stamp, baseline);
      assert.match(stamp, /^database:/);
    } finally {
      w.stop();
    }
    assert.deepEqual(errors, []);
  });
});
