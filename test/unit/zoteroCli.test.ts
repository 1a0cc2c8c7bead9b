/**
 * The CLI on a generated Zotero data directory (no export): `index --zotero <dataDir>` indexes its
 * PDF attachments, `search` hits carry Zotero's title and citekey, `--collection` filters by
 * Zotero collection path, a trashed item is never indexed, and zotero.sqlite is never written.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { zoteroCitekeys } from '../../src/engine/search';
import { makeZoteroLibrary, profilePrefs, sha256File, type GeneratedLibrary } from '../support/zotero/library';

const CLI = path.resolve('dist/cli.js');

describe('CLI: index and search a Zotero library directly (--zotero)', function () {
  this.timeout(180_000);
  let root: string;
  let ws: string;
  let home: string;
  let lib: GeneratedLibrary;
  let hash: string;
  let indexed: { files: string[]; sources: number; warnings: string[] };

  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, HOME: home, APPDATA: path.join(home, 'AppData') } });
  const search = (q: string, ...more: string[]) => {
    const r = cli('search', q, '--workspace', ws, '--json', '--k', '20', ...more);
    assert.equal(r.status, 0, r.stderr);
    return (
      JSON.parse(r.stdout) as {
        results: {
          path: string;
          title: string;
          citekey: string | null;
          authors: string[];
          year: number | null;
          highlight: { text: string; comment?: string } | null;
          doi?: string;
          itemType?: string;
          tags?: string[];
        }[];
      }
    ).results;
  };

  before(function () {
    root = mkdtempSync(path.join(tmpdir(), 'zcli-'));
    lib = makeZoteroLibrary(root, { items: 1500 });
    ws = path.join(root, 'ws');
    mkdirSync(ws);
    // A Zotero profile (Linux layout) naming the linked-attachment base directory.
    home = path.join(root, 'home');
    const profile = path.join(home, '.zotero', 'zotero', 'Profiles', 'x1y2.default');
    mkdirSync(profile, { recursive: true });
    writeFileSync(
      path.join(home, '.zotero', 'zotero', 'profiles.ini'),
      '[General]\nStartWithLastProfile=1\n\n[Profile0]\nName=default\nIsRelative=1\nPath=Profiles/x1y2.default\nDefault=1\n',
    );
    writeFileSync(path.join(profile, 'prefs.js'), profilePrefs({ 'extensions.zotero.baseAttachmentPath': path.join(root, 'base') }));
    hash = sha256File(path.join(lib.dataDir, 'zotero.sqlite'));
    const r = cli('index', '--zotero', lib.dataDir, '--workspace', ws, '--json');
    assert.equal(r.status, 0, r.stderr);
    indexed = JSON.parse(r.stdout);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('indexes every PDF attachment of the items not in the trash, and no other file', () => {
    const expected = ['commune', 'commune2', 'exode', 'railway', 'hanse', 'iceage', 'standalone'].map((n) => lib.attachments[n]).sort();
    assert.deepEqual([...indexed.files].sort(), expected);
    assert.ok(!indexed.files.includes(lib.attachments.grain), 'the trashed item is not indexed');
    assert.ok(
      indexed.warnings.some((w) => w.includes(lib.attachments.maximum)),
      'the missing file is named',
    );
  });

  it('search hits carry Zotero’s title, authors, year and citekey', () => {
    const hits = search('Paris Commune municipal revolution 1871');
    const commune = hits.find((h) => h.path === lib.attachments.commune);
    assert.ok(commune, 'the Commune PDF is found');
    assert.equal(commune.title, 'The Paris Commune of 1871');
    assert.equal(commune.citekey, 'lissagaray1876');
    assert.deepEqual(commune.authors, ['Lissagaray, Prosper-Olivier']);
    assert.equal(commune.year, 1871);
    // Zotero's DOI, item type and tags ride along (an export-only library's hits have none of these keys).
    assert.deepEqual([commune.doi, commune.itemType, commune.tags?.includes('history')], ['10.1234/commune', 'book', true]);
    // The second PDF of the same item is its source too.
    const second = hits.find((h) => h.path === lib.attachments.commune2);
    if (second) assert.equal(second.citekey, 'lissagaray1876');
    // A generated key for an item without one; the group library's item is indexed too.
    const rural = search('exode rural').find((h) => h.path === lib.attachments.exode);
    assert.equal(rural?.citekey, 'chevalier1962RuralExodusMaking');
    const hanse = search('Hanse Kontor').find((h) => h.path === lib.attachments.hanse);
    assert.equal(hanse?.citekey, 'dollinger1964');
  });

  it('a passage the user highlighted in Zotero carries the highlight on its hit', () => {
    const hits = search('les électeurs parisiens désignent un conseil municipal');
    const marked = hits.find((h) => h.path === lib.attachments.commune && h.highlight);
    assert.ok(marked, 'the highlighted passage of the Commune PDF is found, marked');
    assert.equal(marked.highlight?.comment, 'key passage');
    assert.match(marked.highlight?.text ?? '', /conseil municipal/);
    // Only that passage: the other PDFs' hits carry none.
    assert.ok(hits.filter((h) => h.path !== lib.attachments.commune).every((h) => h.highlight === null));
  });

  it('--collection filters by Zotero collection path', () => {
    const all = search('history city trade time');
    assert.ok(new Set(all.map((h) => h.path)).size >= 3, 'several sources answer without a filter');
    const ch2 = search('history city trade time', '--collection', 'Thesis/Chapter 2');
    assert.ok(ch2.length > 0);
    assert.deepEqual([...new Set(ch2.map((h) => h.path))], [lib.attachments.railway]);
    const reading = new Set(search('history city trade time', '--collection', 'Reading').map((h) => h.path));
    assert.deepEqual([...reading].sort(), [lib.attachments.exode, lib.attachments.hanse].sort());
  });

  it('a trashed item is never found, and zotero.sqlite is never written', () => {
    assert.ok(!search('grain trade eighteenth century bread').some((h) => h.path === lib.attachments.grain || h.citekey === 'kaplan1971'));
    assert.equal(sha256File(path.join(lib.dataDir, 'zotero.sqlite')), hash);
  });

  it('analyze: one card per Zotero item, though each of its PDFs is indexed', () => {
    const draft = path.join(root, 'commune.md');
    writeFileSync(
      draft,
      '# Draft\n\nThe Paris Commune of 1871 was a municipal revolution, proclaimed in March after the siege; the Annales later wrote its long history.\n',
    );
    const r = cli('analyze', draft, '--workspace', ws, '--json', '--no-cache', '--threshold', '0');
    assert.equal(r.status, 0, r.stderr);
    const recs = (JSON.parse(r.stdout) as { segments: { recommendations: { citekey: string | null; path: string }[] }[] }).segments[0].recommendations;
    const keys = recs.map((x) => x.citekey);
    assert.equal(keys.filter((k) => k === 'lissagaray1876').length, 1, keys.join(', '));
    assert.equal((recs.find((x) => x.citekey === 'lissagaray1876') as { doi?: string } | undefined)?.doi, '10.1234/commune', 'the card carries the DOI');
    assert.equal(new Set(keys).size, keys.length);
  });

  it('check knows the keys of items without a PDF, not those of trashed items', () => {
    const draft = path.join(root, 'draft.md');
    writeFileSync(
      draft,
      '# Draft\n\nPrinting changed everything [@eisenstein1979PrintingReformationFiles]. The Commune [@lissagaray1876]. Bread [@kaplan1971].\n',
    );
    const r = cli('check', draft, '--workspace', ws, '--zotero', lib.dataDir, '--json');
    const verdicts = (JSON.parse(r.stdout) as { citations: { key: string; status: string }[] }).citations.map((c) => [c.key, c.status]);
    assert.deepEqual(verdicts, [
      ['eisenstein1979PrintingReformationFiles', 'ok'],
      ['lissagaray1876', 'ok'],
      ['kaplan1971', 'unknown-key'],
    ]);
  });

  it('completion lists every item not in the trash, those without a PDF included', async () => {
    const entries = await zoteroCitekeys(ws);
    const keys = entries.map((e) => e.citekey);
    assert.ok(keys.includes('eisenstein1979PrintingReformationFiles') && keys.includes('lissagaray1876'));
    assert.ok(!keys.includes('kaplan1971'), 'not the trashed item');
    assert.equal(entries.length, 1 + 8 + 1500 - 1 - 1500 / 50, 'named items, the standalone PDF and the filler, less the trashed');
    assert.deepEqual(
      entries.find((e) => e.citekey === 'lissagaray1876'),
      { citekey: 'lissagaray1876', title: 'The Paris Commune of 1871', authors: ['Lissagaray, Prosper-Olivier'], year: 1871 },
    );
  });

  it('--zotero with a folder that holds no Zotero database says so and indexes the rest', () => {
    const empty = path.join(root, 'no-zotero');
    mkdirSync(empty);
    const ws2 = path.join(root, 'ws2');
    mkdirSync(ws2);
    const r = cli('index', '--zotero', empty, '--workspace', ws2, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`no zotero\\.sqlite in ${empty.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}`));
  });
});
