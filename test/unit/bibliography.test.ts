import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  findEntryForFile,
  loadBibliography,
  matchFile,
  parseBetterBibtexJson,
  parseBibtex,
  parseFileField,
  type BibEntry,
} from '../../src/core/library/bibliography';

const BASE = '/home/historian/Zotero/export';

const BIB = String.raw`
% Exported by Better BibTeX. Contact: someone@example.org
@comment{jabref-meta: databaseType:bibtex;}
@preamble{ "\newcommand{\noopsort}[1]{} " }
@string{ ac = "Armand Colin" }
@string{paris = {Paris}}

@book{braudel1949,
  title = {La {M}{\'e}diterran{\'e}e et le monde m{\'e}diterran{\'e}en {\`a} l'{\'e}poque de {Philippe II}},
  author = {Braudel, Fernand},
  publisher = ac # ", " # paris,
  year = 1949,
  file = {Full Text PDF:/home/historian/Zotero/storage/ABCD1234/Braudel - 1949 - La Méditerranée.pdf:application/pdf;Snapshot:/home/historian/Zotero/storage/ABCD1234/snapshot.html:text/html}
}

@article{leroyladurie1973,
  title = "Le climat des {XI}e et {XVI}e si\`{e}cles: s{\'e}ries comparatives",
  author = {Le Roy Ladurie, Emmanuel and Jean-Paul Sartre and Charles de Gaulle and {\'E}mile Durkheim and {Organisation mondiale de la sant{\'e}} and others},
  journal = {Annales},
  date = {1973-05-01},
  file = {files/123/leroy.pdf}
}

@incollection{broken1990,
  title = {An unclosed title,
  author = {Nobody, N.},
  year = 1990

@inproceedings{sartre1946,
  title = {L'existentialisme est un humanisme --- une conf{\'e}rence},
  author = {Sartre, J.-P. and Beauvoir, Simone de},
  year = {1946},
  note = {Fran{\c c}ais, {\oe}uvre, na\"{\i}ve, {\ae}, {\o}, pp.~12--15},
  file = {Full Text PDF:C\:\\Users\\marie\\Zotero\\storage\\Q7X9\\sartre.pdf:application/pdf}
}

@misc(paren1999, title = {Parenthesised}, year = "1999")

@book{braudel1949, title = {Duplicate}}
`;

/** What the parser makes of a title, and of an author list. */
const titleOf = async (tex: string) => (await parseBibtex(`@misc{k, title = {${tex}}}`, BASE)).entries[0]?.title;
const authorsOf = async (tex: string) => (await parseBibtex(`@misc{k, author = {${tex}}}`, BASE)).entries[0]?.authors;

describe('parseBibtex', () => {
  let entries: BibEntry[] = [];
  let warnings: string[] = [];
  let byKey = new Map<string, BibEntry>();
  before(async () => {
    ({ entries, warnings } = await parseBibtex(BIB, BASE));
    byKey = new Map(entries.map((e) => [e.citekey, e]));
  });

  it('reads every well-formed entry and reports the broken one', () => {
    assert.deepEqual(
      entries.map((e) => e.citekey),
      ['braudel1949', 'leroyladurie1973', 'sartre1946', 'paren1999'],
    );
    assert.ok(
      warnings.some((w) => w.includes('"broken1990"') && /line \d+/.test(w)),
      warnings.join('\n'),
    );
    assert.ok(warnings.some((w) => w.includes('Duplicate citation key "braudel1949"')));
    assert.equal(warnings.length, 2, warnings.join('\n'));
  });

  it('decodes accents and strips protective braces in titles', () => {
    assert.equal(byKey.get('braudel1949')!.title, "La Méditerranée et le monde méditerranéen à l'époque de Philippe II");
    assert.equal(byKey.get('leroyladurie1973')!.title, 'Le climat des XIe et XVIe siècles: séries comparatives');
    assert.equal(byKey.get('sartre1946')!.title, "L'existentialisme est un humanisme — une conférence");
  });

  it('normalises authors to "Last, First"', () => {
    assert.deepEqual(byKey.get('braudel1949')!.authors, ['Braudel, Fernand']);
    assert.deepEqual(byKey.get('leroyladurie1973')!.authors, [
      'Le Roy Ladurie, Emmanuel',
      'Sartre, Jean-Paul',
      'de Gaulle, Charles',
      'Durkheim, Émile',
      'Organisation mondiale de la santé',
    ]);
    assert.deepEqual(byKey.get('sartre1946')!.authors, ['Sartre, J.-P.', 'Beauvoir, Simone de']);
  });

  it('reads year from year or date, and keeps the type', () => {
    assert.equal(byKey.get('braudel1949')!.year, 1949);
    assert.equal(byKey.get('leroyladurie1973')!.year, 1973);
    assert.equal(byKey.get('paren1999')!.year, 1999);
    assert.equal(byKey.get('leroyladurie1973')!.type, 'article');
  });

  it('keeps only PDFs from the file field, resolving relative paths', () => {
    assert.deepEqual(byKey.get('braudel1949')!.files, ['/home/historian/Zotero/storage/ABCD1234/Braudel - 1949 - La Méditerranée.pdf']);
    assert.deepEqual(byKey.get('leroyladurie1973')!.files, [path.resolve(BASE, 'files/123/leroy.pdf')]);
    assert.deepEqual(byKey.get('sartre1946')!.files, ['C:\\Users\\marie\\Zotero\\storage\\Q7X9\\sartre.pdf']);
    assert.deepEqual(byKey.get('paren1999')!.files, []);
  });

  it('survives an unterminated entry at the end of the file', async () => {
    const r = await parseBibtex('@book{ok, title={Fine}}\n@article{cut, title = {Never closed', BASE);
    assert.deepEqual(
      r.entries.map((e) => e.citekey),
      ['ok'],
    );
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /"cut"/);
  });

  // BibTeX itself warns about an undefined @string and keeps the entry; so does the parser now
  // (the old scanner dropped the whole entry for a publisher it does not even use).
  it('reports an undefined macro and a missing key', async () => {
    const r = await parseBibtex('@book{a, publisher = nowhere}\n@book{, title={x}}\n@book{b, month = jun}', BASE);
    assert.deepEqual(
      r.entries.map((e) => e.citekey),
      ['a', 'b'],
    );
    assert.equal(r.warnings.length, 2, r.warnings.join('\n'));
    assert.match(r.warnings[0], /Undefined @string "nowhere"/);
    assert.match(r.warnings[1], /line 2: missing citation key/);
  });
});

describe('LaTeX in titles', () => {
  const cases: Array<[string, string]> = [
    ["{\\'e}", 'é'],
    ["\\'{e}", 'é'],
    ["\\'e", 'é'],
    ['{\\`a}', 'à'],
    ['{\\^o}', 'ô'],
    ['{\\"u}', 'ü'],
    ['{\\c c}', 'ç'],
    ['\\c{C}', 'Ç'],
    ['{\\oe}uvre', 'œuvre'],
    ['\\oe uvre', 'œuvre'],
    ['\\ae', 'æ'],
    ['{\\o}', 'ø'],
    ["\\'{\\i}", 'í'],
    ['1914--1918', '1914–1918'],
    ['Oui---non', 'Oui—non'],
    ['p.~45', 'p. 45'],
    ['{\\v s}', 'š'],
    ['\\emph{Annales} \\& co', 'Annales & co'],
    ['\\og Qui ? \\fg', '« Qui ? »'],
    // What the parser adds over the old scanner's table: math, sub/superscripts, logos, spacing.
    ['$\\beta$-amyloid and {$^{210}$Po}', 'β-amyloid and ²¹⁰Po'],
    ['H\\textsubscript{2}O', 'H₂O'],
    ['\\LaTeX{} and \\TeX', 'LaTeX and TeX'],
    ['M.\\ Dupont', 'M. Dupont'],
    ['Zer\\-legung', 'Zerlegung'],
    ['\\href{https://example.com}{Linked}', 'Linked'],
  ];
  for (const [tex, want] of cases) {
    it(`${tex} → ${want}`, async () => assert.equal(await titleOf(tex), want));
  }
});

describe('author lists', () => {
  it('respects braces around "and"', async () => {
    assert.deepEqual(await authorsOf('{Barnes and Noble} and Bloch, Marc'), ['Barnes and Noble', 'Bloch, Marc']);
  });
  it('keeps suffixes in BibTeX order', async () => {
    assert.deepEqual(await authorsOf('King, Jr, Martin Luther'), ['King, Jr, Martin Luther']);
  });
  it('handles "van" and multi-line lists', async () => {
    assert.deepEqual(await authorsOf('Ludwig van Beethoven and\n   Marc Bloch'), ['van Beethoven, Ludwig', 'Bloch, Marc']);
  });
});

describe('parseFileField', () => {
  it('reads the Zotero/JabRef forms', () => {
    assert.deepEqual(parseFileField('/abs/path.pdf', BASE), ['/abs/path.pdf']);
    assert.deepEqual(parseFileField('Full Text:/abs/a.PDF:PDF', BASE), ['/abs/a.PDF']);
    assert.deepEqual(parseFileField('/abs/Title: subtitle.pdf', BASE), ['/abs/Title: subtitle.pdf']);
    assert.deepEqual(parseFileField('C:\\Users\\me\\x.pdf', BASE), ['C:\\Users\\me\\x.pdf']);
    assert.deepEqual(parseFileField('a.pdf;b.epub;desc:sub/c.pdf:application/pdf', BASE), [path.resolve(BASE, 'a.pdf'), path.resolve(BASE, 'sub/c.pdf')]);
  });
});

const BBT_JSON = JSON.stringify({
  config: { id: '36a3b0b5-bad0-4a04-b79b-441c7cef77db', label: 'BetterBibTeX JSON' },
  collections: {
    AAAA1111: { key: 'AAAA1111', parent: false, name: 'Thesis', items: [1], collections: ['BBBB2222'] },
    BBBB2222: { key: 'BBBB2222', parent: 'AAAA1111', name: 'Chapter 2', items: [1, 2], collections: ['CCCC3333'] },
    CCCC3333: { key: 'CCCC3333', parent: 'BBBB2222', name: 'Archives', items: [2], collections: [] },
  },
  items: [
    {
      itemID: 1,
      itemKey: 'K1',
      itemType: 'book',
      citationKey: 'bloch1939',
      title: 'La société <i>féodale</i>',
      creators: [
        { creatorType: 'author', firstName: 'Marc', lastName: 'Bloch' },
        { creatorType: 'editor', firstName: 'Lucien', lastName: 'Febvre' },
      ],
      date: '1939-1940',
      attachments: [
        { itemType: 'attachment', title: 'Full Text PDF', path: '/Users/marie/Zotero/storage/ZX12AB34/Bloch - 1939.pdf', contentType: 'application/pdf' },
        { itemType: 'attachment', title: 'Snapshot', path: '/Users/marie/Zotero/storage/ZX12AB34/page.html', contentType: 'text/html' },
      ],
    },
    {
      itemID: 2,
      itemKey: 'K2',
      itemType: 'document',
      citationKey: 'an1789',
      title: 'Cahier de doléances',
      creators: [{ creatorType: 'author', name: 'Archives nationales' }],
      date: '1789',
      attachments: [{ path: 'storage/QQ99/cahier.pdf' }],
    },
    { itemID: 3, itemType: 'note', note: '<p>todo</p>' },
    { itemID: 4, itemType: 'book', title: 'No key here' },
  ],
});

describe('parseBetterBibtexJson', () => {
  const { entries, warnings } = parseBetterBibtexJson(BBT_JSON, BASE);

  it('reads items, skipping notes and reporting items without a key', () => {
    assert.deepEqual(
      entries.map((e) => e.citekey),
      ['bloch1939', 'an1789'],
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /No key here/);
  });

  it('maps creators, dates, titles and PDF attachments', () => {
    const [bloch, an] = entries;
    assert.equal(bloch.title, 'La société féodale');
    assert.deepEqual(bloch.authors, ['Bloch, Marc']);
    assert.equal(bloch.year, 1939);
    assert.deepEqual(bloch.files, ['/Users/marie/Zotero/storage/ZX12AB34/Bloch - 1939.pdf']);
    assert.deepEqual(an.authors, ['Archives nationales']);
    assert.deepEqual(an.files, [path.resolve(BASE, 'storage/QQ99/cahier.pdf')]);
    assert.equal(an.type, 'document');
  });

  it('gives nested collections as full paths and leaf names', () => {
    const [bloch, an] = entries;
    assert.deepEqual(new Set(bloch.collections), new Set(['Thesis', 'Thesis / Chapter 2', 'Chapter 2']));
    assert.deepEqual(new Set(an.collections), new Set(['Thesis / Chapter 2', 'Chapter 2', 'Thesis / Chapter 2 / Archives', 'Archives']));
  });

  it('reports invalid JSON instead of throwing', () => {
    const r = parseBetterBibtexJson('{ "items": [', BASE);
    assert.deepEqual(r.entries, []);
    assert.match(r.warnings[0], /Not valid JSON/);
  });
});

describe('matchFile', () => {
  const entry = (citekey: string, files: string[]): BibEntry => ({ citekey, authors: [], collections: [], files });
  const a = entry('a', ['/lib/storage/AAAA/Full Text.pdf', '/lib/storage/AAAA/Me\u0301diterrane\u0301e.pdf']);
  const b = entry('b', ['/lib/storage/BBBB/Full Text.pdf']);
  const index = matchFile([a, b]);

  it('finds by full path, NFC-normalised', () => {
    assert.equal(findEntryForFile(index, '/lib/storage/AAAA/Méditerranée.pdf'), a);
    assert.equal(index.get('/lib/storage/BBBB/Full Text.pdf'), b);
  });

  it('falls back to folder/name and name, leaving ambiguous names out', () => {
    assert.equal(findEntryForFile(index, '/mnt/sync/storage/BBBB/Full Text.pdf'), b);
    assert.equal(findEntryForFile(index, '/elsewhere/MÉDITERRANÉE.pdf'), a);
    assert.equal(index.has('full text.pdf'), false);
    assert.equal(findEntryForFile(index, '/elsewhere/Full Text.pdf'), undefined);
  });
});

describe('loadBibliography', () => {
  it('dispatches on the extension and resolves against the file folder', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bib-'));
    try {
      await fs.writeFile(path.join(dir, 'lib.bib'), '\uFEFF@book{x, title={T}, file={files/1/x.pdf}}');
      await fs.writeFile(path.join(dir, 'lib.json'), BBT_JSON);
      const bib = await loadBibliography(path.join(dir, 'lib.bib'));
      assert.deepEqual(bib.entries[0].files, [path.join(dir, 'files/1/x.pdf')]);
      const json = await loadBibliography(path.join(dir, 'lib.json'));
      assert.equal(json.entries.length, 2);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reads a changed export again (an unchanged one comes from memory, equal)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bib-'));
    try {
      const file = path.join(dir, 'lib.bib');
      await fs.writeFile(file, '@book{x, title={First}}');
      const first = await loadBibliography(file);
      first.entries.pop(); // a caller's change to the answer does not reach the next one
      assert.deepEqual(
        (await loadBibliography(file)).entries.map((e) => e.title),
        ['First'],
      );
      await fs.writeFile(file, '@book{x, title={Second version}}');
      assert.deepEqual(
        (await loadBibliography(file)).entries.map((e) => e.title),
        ['Second version'],
      );
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps its parse in a cache folder between processes, used only for the same bytes and parser version', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bib-'));
    try {
      const file = path.join(dir, 'lib.bib');
      const cacheDir = path.join(dir, 'index');
      await fs.writeFile(file, '@book{x, title={From the export}}');
      assert.deepEqual(
        (await loadBibliography(file, { cacheDir })).entries.map((e) => e.title),
        ['From the export'],
      );
      const [name] = await fs.readdir(cacheDir);
      assert.match(name, /^bibliography-[0-9a-f]{16}\.json$/);
      // Mark the cached parse, then touch the export (same bytes): another process would read the mark.
      const cacheFile = path.join(cacheDir, name);
      const cached = JSON.parse(await fs.readFile(cacheFile, 'utf8'));
      cached.parsed.entries[0].title = 'From the cache';
      await fs.writeFile(cacheFile, JSON.stringify(cached));
      const later = new Date(Date.now() + 5000);
      await fs.utimes(file, later, later);
      assert.deepEqual(
        (await loadBibliography(file, { cacheDir })).entries.map((e) => e.title),
        ['From the cache'],
      );
      // Other bytes: parsed again, and the cache replaced.
      await fs.writeFile(file, '@book{x, title={Edited export}}');
      assert.deepEqual(
        (await loadBibliography(file, { cacheDir })).entries.map((e) => e.title),
        ['Edited export'],
      );
      // Another parser version's cache, or a damaged one, is not used.
      for (const damage of [(c: Record<string, unknown>) => ({ ...c, version: -1 }), () => '{ half-written']) {
        const c = JSON.parse(await fs.readFile(cacheFile, 'utf8'));
        c.parsed.entries[0].title = 'Stale';
        const bad = damage(c);
        await fs.writeFile(cacheFile, typeof bad === 'string' ? bad : JSON.stringify(bad));
        const t = new Date(Date.now() + 10_000 + Math.random() * 1000);
        await fs.utimes(file, t, t);
        assert.deepEqual(
          (await loadBibliography(file, { cacheDir })).entries.map((e) => e.title),
          ['Edited export'],
        );
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
