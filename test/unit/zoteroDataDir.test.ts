import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from '../../src/cli/args';
import { assignCitekeys, generatedKeyBase } from '../../src/core/zotero/citekey';
import { locateZotero, parsePrefs, parseProfilesIni } from '../../src/core/zotero/dataDir';
import { loadZoteroLibrary } from '../../src/core/zotero/library';
import type { ZoteroItem } from '../../src/core/zotero/model';
import { resolveLibrary } from '../../src/engine/library';
import { defaultSettings } from '../../src/shared/settings';

describe('Zotero: finding the data directory', function () {
  let home: string;
  beforeEach(() => (home = mkdtempSync(path.join(tmpdir(), 'zhome-'))));
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const profile = (
    root: string,
    prefs: string,
    ini = '[General]\nStartWithLastProfile=1\n\n[Profile1]\nName=old\nIsRelative=1\nPath=Profiles/old.old\n\n[Profile0]\nName=default\nIsRelative=1\nPath=Profiles/abcd.default\nDefault=1\n',
  ) => {
    mkdirSync(path.join(root, 'Profiles', 'abcd.default'), { recursive: true });
    mkdirSync(path.join(root, 'Profiles', 'old.old'), { recursive: true });
    writeFileSync(path.join(root, 'profiles.ini'), ini);
    writeFileSync(path.join(root, 'Profiles', 'abcd.default', 'prefs.js'), prefs);
    writeFileSync(path.join(root, 'Profiles', 'old.old', 'prefs.js'), 'user_pref("extensions.zotero.dataDir", "/wrong/profile");\n');
  };
  const withDb = (dir: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'zotero.sqlite'), '');
    return dir;
  };

  it('Linux: the default profile’s extensions.zotero.dataDir, with the linked-attachment base directory', async () => {
    const data = withDb(path.join(home, 'Research', 'ZoteroData'));
    profile(
      path.join(home, '.zotero', 'zotero'),
      `// Mozilla User Preferences\nuser_pref("extensions.zotero.dataDir", ${JSON.stringify(data)});\nuser_pref("extensions.zotero.useDataDir", true);\nuser_pref("extensions.zotero.baseAttachmentPath", "/papers");\n`,
    );
    const loc = await locateZotero({ home, platform: 'linux', env: {} });
    assert.deepEqual(
      { ...loc, prefsFile: path.relative(home, loc.prefsFile!) },
      {
        dataDir: data,
        from: 'prefs',
        prefsFile: path.join('.zotero', 'zotero', 'Profiles', 'abcd.default', 'prefs.js'),
        baseAttachmentPath: '/papers',
        exists: true,
      },
    );
  });

  it('reads prefs.js again only when it changed (the watch looks Zotero up every 2 s)', async () => {
    const root = path.join(home, '.zotero', 'zotero');
    const pref = (dir: string) => `user_pref("extensions.zotero.dataDir", ${JSON.stringify(dir)});\n`;
    const a = withDb(path.join(home, 'AAAA'));
    const b = withDb(path.join(home, 'BBBB'));
    profile(root, pref(a));
    const file = path.join(root, 'Profiles', 'abcd.default', 'prefs.js');
    const t = 1_700_000_000; // whole seconds: set back exactly below
    utimesSync(file, t, t);
    assert.equal((await locateZotero({ home, platform: 'linux', env: {} })).dataDir, a);
    // The same size and times but other bytes: taken for the file already parsed (what the cache keys on).
    writeFileSync(file, pref(b));
    utimesSync(file, t, t);
    assert.equal((await locateZotero({ home, platform: 'linux', env: {} })).dataDir, a);
    // Changed as Zotero changes it (a new modification time): read again.
    utimesSync(file, t + 5, t + 5);
    assert.equal((await locateZotero({ home, platform: 'linux', env: {} })).dataDir, b);
  });

  it('macOS and Windows profile folders; Windows paths escaped in prefs.js', async () => {
    profile(path.join(home, 'Library', 'Application Support', 'Zotero'), 'user_pref("extensions.zotero.dataDir", "/Users/me/Zotero Data");\n');
    assert.equal((await locateZotero({ home, platform: 'darwin', env: {} })).dataDir, '/Users/me/Zotero Data');
    const appData = path.join(home, 'AppData', 'Roaming');
    profile(path.join(appData, 'Zotero', 'Zotero'), 'user_pref("extensions.zotero.dataDir", "D:\\\\Research\\\\Zotero");\n');
    const win = await locateZotero({ home, platform: 'win32', env: { APPDATA: appData } });
    assert.equal(win.dataDir, 'D:\\Research\\Zotero');
    assert.equal(win.from, 'prefs');
    assert.equal(win.exists, false);
  });

  it('the setting wins over the prefs; without either, ~/Zotero', async () => {
    profile(path.join(home, '.zotero', 'zotero'), 'user_pref("extensions.zotero.dataDir", "/from/prefs");\n');
    const set = await locateZotero({ home, platform: 'linux', env: {}, setting: '~/MyZotero' });
    assert.equal(set.dataDir, path.join(home, 'MyZotero'));
    assert.equal(set.from, 'setting');
    rmSync(path.join(home, '.zotero'), { recursive: true });
    withDb(path.join(home, 'Zotero'));
    const def = await locateZotero({ home, platform: 'linux', env: {} });
    assert.deepEqual([def.dataDir, def.from, def.exists], [path.join(home, 'Zotero'), 'default', true]);
  });

  it('useDataDir false: Zotero’s default folder, not the stale pref', async () => {
    profile(path.join(home, '.zotero', 'zotero'), 'user_pref("extensions.zotero.dataDir", "/stale");\nuser_pref("extensions.zotero.useDataDir", false);\n');
    assert.equal((await locateZotero({ home, platform: 'linux', env: {} })).dataDir, path.join(home, 'Zotero'));
  });

  it('a FIFO as prefs.js or profiles.ini: said by name at once, Zotero looked for where it would be without them', async () => {
    const root = path.join(home, '.zotero', 'zotero');
    profile(root, '');
    withDb(path.join(home, 'Zotero'));
    const prefs = path.join(root, 'Profiles', 'abcd.default', 'prefs.js');
    rmSync(prefs);
    execFileSync('mkfifo', [prefs]);
    const bounded = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, no) => setTimeout(() => no(new Error('hung on a FIFO')), 5000).unref())]);
    const a = await bounded(locateZotero({ home, platform: 'linux', env: {} }));
    assert.deepEqual([a.dataDir, a.from, a.exists, a.prefsFile], [path.join(home, 'Zotero'), 'default', true, undefined]);
    assert.match(a.warnings?.join('\n') ?? '', /prefs\.js is a FIFO \(named pipe\), not a regular file: .*Zotero's profile was not read from it/);
    const ini = path.join(root, 'profiles.ini');
    rmSync(ini);
    execFileSync('mkfifo', [ini]);
    const b = await bounded(locateZotero({ home, platform: 'linux', env: {} }));
    assert.match(b.warnings?.join('\n') ?? '', /profiles\.ini is a FIFO \(named pipe\)/);
    // And the library load says it, and reads Zotero where it is.
    const loaded = await bounded(loadZoteroLibrary({ home }, { readers: () => [] }));
    assert.match(loaded.warnings.join('\n'), /^Zotero: .*profiles\.ini is a FIFO/m);
  });

  it('a FIFO as zotero.sqlite counts as there: the reader then names it (not "no zotero.sqlite")', async () => {
    const dir = path.join(home, 'Zotero');
    mkdirSync(dir);
    execFileSync('mkfifo', [path.join(dir, 'zotero.sqlite')]);
    assert.equal((await locateZotero({ home, platform: 'linux', env: {} })).exists, true);
  });

  it('parses prefs.js values and profiles.ini sections', () => {
    const p = parsePrefs('user_pref("a", "x\\"y");\nuser_pref("b", 12);\n  user_pref("c", false);\n// user_pref("d", "commented");\nuser_pref("e", "\\x41");');
    assert.deepEqual(
      [...p],
      [
        ['a', 'x"y'],
        ['b', 12],
        ['c', false],
      ],
    );
    assert.deepEqual(parseProfilesIni('[Profile0]\r\nPath=C:\\abs\\p\r\nIsRelative=0\r\n[Install123]\r\nDefault=Profiles/x\r\n'), [
      { path: 'C:\\abs\\p', isRelative: false, isDefault: false },
    ]);
  });

  it('resolveLibrary carries the Zotero request unless the setting is off', () => {
    const s = defaultSettings();
    assert.deepEqual(resolveLibrary('/ws', s, '/home/u').zotero, { dataDir: undefined, home: '/home/u' });
    assert.deepEqual(resolveLibrary('/ws', { ...s, zoteroDataDir: '~/Z' }, '/home/u').zotero, { dataDir: path.resolve('/home/u/Z'), home: '/home/u' });
    assert.equal(resolveLibrary('/ws', { ...s, zotero: 'off' }, '/home/u').zotero, undefined);
  });

  it('the CLI’s --zotero takes an optional folder', () => {
    const names = { booleans: ['json'], strings: ['workspace'], optionalValues: ['zotero'] };
    assert.deepEqual(parseArgs(['index', '--zotero', '/z', '--json'], names).options.get('zotero'), ['/z']);
    assert.deepEqual(parseArgs(['index', '--zotero', '--json'], names).options.get('zotero'), ['']);
    assert.deepEqual(parseArgs(['index', '--zotero=/y'], names).options.get('zotero'), ['/y']);
    const s = parseArgs(['search', 'words', '--zotero'], names);
    assert.deepEqual([s.positionals, s.options.get('zotero')], [['words'], ['']]);
  });
});

describe('Zotero: citation keys', () => {
  const item = (key: string, o: Partial<ZoteroItem> = {}): ZoteroItem => ({
    key,
    libraryId: '1',
    itemType: 'journalArticle',
    creators: [],
    citekey: '',
    citekeyFrom: 'generated',
    collections: [],
    tags: [],
    deleted: false,
    attachments: [],
    ...o,
  });

  it("generates Better BibTeX's auth.lower + year + shorttitle, ASCII, skipping function words", () => {
    assert.equal(
      generatedKeyBase(
        item('A', { creators: [{ creatorType: 'author', firstName: 'Émile', lastName: 'Durkheim' }], year: 1897, title: 'Le suicide: étude de sociologie' }),
      ),
      'durkheim1897LeSuicideEtude',
    );
    assert.equal(
      generatedKeyBase(item('B', { creators: [{ creatorType: 'editor', lastName: 'Østergård' }], year: 2001, title: 'On the Origin of Species' })),
      'ostergard2001OriginSpecies',
    );
    assert.equal(generatedKeyBase(item('C')), 'zoteroC');
  });

  it('Zotero keys first, then Better BibTeX, then the export (by file, then title and year), then generated with a, b suffixes', () => {
    const items = [
      item('K1', { citekey: 'smith2020Deep', citekeyFrom: 'zotero' }),
      item('K2', { creators: [{ creatorType: 'author', lastName: 'Smith' }], year: 2020, title: 'Deep' }),
      item('K3', { creators: [{ creatorType: 'author', lastName: 'Smith' }], year: 2020, title: 'Deep' }),
      item('K4', { title: 'Pinned elsewhere' }),
      item('K5', { attachments: [{ key: 'A5', libraryId: '1', linkMode: 'imported_file', path: '/z/storage/A5/paper.pdf' }] }),
      item('K6', { title: 'The Same Title', year: 1999 }),
      item('K7', { title: 'The same title', year: 1999 }),
    ];
    assignCitekeys(items, {
      betterBibtex: new Map([['1:K4', 'bbtKey']]),
      exportEntries: [
        { citekey: 'fromFile', authors: [], collections: [], files: ['/elsewhere/A5/paper.pdf'] },
        { citekey: 'fromTitle', title: 'the same  title', year: 1999, authors: [], collections: [], files: [] },
      ],
    });
    assert.deepEqual(
      items.map((i) => [i.citekey, i.citekeyFrom]),
      [
        ['smith2020Deep', 'zotero'],
        ['smith2020Deepa', 'generated'],
        ['smith2020Deepb', 'generated'],
        ['bbtKey', 'better-bibtex'],
        ['fromFile', 'export'],
        ['fromTitle', 'export'],
        ['1999SameTitle', 'generated'],
      ],
    );
  });
});
