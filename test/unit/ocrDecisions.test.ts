/**
 * Which pages go to OCR (issue 22): born-digital pages of code, formulas, tables, verse and other
 * languages keep their text layer; only a layer that is missing or does not decode goes to OCR.
 * The damaged layers that must still go to OCR are in textQuality.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { extractPdf } from '../../src/core/pdf/extract';
import { decodeAdobePrivateUse, pageTextQuality } from '../../src/core/pdf/textQuality';
import { buildPdf, type PdfPage } from '../support/pdfWriter';

/** A package's documented source, as TeX manuals print it: numbered lines of macros. */
const TEX_CODE = [
  '33 \\begingroup\\catcode61\\catcode48\\catcode32=10\\relax%',
  '34 \\catcode13=5 % ^^M',
  '35 \\endlinechar=13 %',
  '36 \\catcode35=6 % #',
  "37 \\catcode39=12 % '",
  '38 \\expandafter\\edef\\csname ltxcmds@AtEnd\\endcsname{%',
  '39 \\endlinechar=\\the\\endlinechar\\relax',
  '40 \\catcode13=\\the\\catcode13\\relax',
  '41 \\def\\TMP@EnsureCode#1#2{%',
  '42 \\edef\\ltxcmds@AtEnd{\\ltxcmds@AtEnd\\catcode#1=\\the\\catcode#1\\relax}%',
  '43 \\DeclareInputText{182}{\\^A}',
  '44 \\DeclareInputText{183}{\\v E}',
  '45 \\DeclareUnicodeCharacter{00C4}{\\"A}',
  '46 \\DeclareUnicodeCharacter{00C5}{\\r A}',
  '47 \\providebiblebook{lds.org}{Habakkuk}{hab}',
  '48 \\define@key{FB}{ItemLabeli}{\\renewcommand*{\\Frlabelitemi}{#1}}%',
  '49 \\toksdef\\ltx@LocToksC=4 %',
  '50 \\dimendef\\ltx@GlobDimenA=1 %',
  '51 \\newcommand{\\printactname}{\\centering\\actnamefont \\actname}',
  '52 \\ifx\\CurrentOption\\bbl@tempa\\def\\bbl@tempb{US}\\fi',
];

const PYTHON_CODE = [
  'def parse_bibliography(path: str) -> dict[str, Entry]:',
  '    entries: dict[str, Entry] = {}',
  '    with open(path, encoding="utf-8") as fh:',
  '        for key, fields in read_bibtex(fh):',
  '            if key in entries: raise DuplicateKey(key)',
  '            entries[key] = Entry(key=key, **fields)',
  '    return entries',
  '',
  'class SegmentIndex(BaseIndex):',
  '    def __init__(self, shards: list[Shard], k1=1.2, b=0.75):',
  '        self._shards = shards; self._df = Counter()',
  '        for s in shards: self._df.update(s.termFrequencies())',
  '    def score(self, q, doc): return sum(self.idf(t) * tf(t, doc) for t in q)',
  'x_12 = np.linalg.solve(A[:n, :n], b[:n])  # O(n^3)',
  'assert abs(x_12 @ A[0, :n] - b[0]) < 1e-9',
];

const FORMULAS = [
  'Sample paper for the amsmath package',
  'f_{h,\\varepsilon}(x,y) = \\varepsilon E_{x,y} \\int_0^{t_\\varepsilon} L_{x,y_\\varepsilon(\\varepsilon u)} \\varphi(x)\\,du',
  '= h \\int L_{x,z} \\varphi(x) \\rho_x(dz) + h \\Big[ \\frac{1}{t_\\varepsilon} \\Big( E_y \\int_0^{t_\\varepsilon} L_{x,y^x(s)} \\varphi(x)\\,ds \\Big) \\Big]',
  'a = b + c - d + e - f = g + h = i (2)',
  'a+b+c+d+e+f + i+j+k+l+m+n (3)',
  '\\begin{equation} \\begin{split} a& =b+c-d\\\\ & \\quad +e-f\\\\ & =g+h\\\\ & =i \\end{split} \\end{equation}',
  'Some text after to test the below-display spacing of the equation environments.',
];

const TABLE = [
  'Table 3.1. Encodings and their input files',
  'latin1 cp1252 cp850 cp858 cp852 cp865 cp437 applemac next decmulti',
  'OT1 T1 LY1 LCY X2 T2A T2B T2C OT2 OT4 QX TS1',
  '00C4 00C5 00C6 00C7 00C8 00C9 00CA 00CB 00CC 00CD 00CE 00CF',
  '\\or 170\\or 171\\or 172\\or 173\\or 174\\or 175\\or 176\\or 177%',
  'ecrm1000 ecti1000 ecbx1000 ecsl1000 ectt1000 eccc1000 ecss1000',
  'Document class options: draft final twoside oneside openright openany',
];

/** Verse (Shakespeare, Sonnet 18; Goethe, Erlkönig; Verlaine, Chanson d'automne), with line numbers. */
const VERSE = [
  "1 Shall I compare thee to a summer's day?",
  '2 Thou art more lovely and more temperate:',
  '3 Rough winds do shake the darling buds of May,',
  "4 And summer's lease hath all too short a date;",
  '5 Wer reitet so spät durch Nacht und Wind?',
  '6 Es ist der Vater mit seinem Kind;',
  '7 Er hat den Knaben wohl in dem Arm,',
  '8 Er faßt ihn sicher, er hält ihn warm.',
  '9 Les sanglots longs',
  '10 Des violons',
  "11 De l'automne",
  '12 Blessent mon cœur',
  "13 D'une langueur",
  '14 Monotone.',
];

const PAGES: Record<string, PdfPage[]> = {
  'tex-source.pdf': [{ heading: '3 Implementation', lines: TEX_CODE }, { lines: TEX_CODE.map((l) => l.replace(/^(\d+)/, (n) => String(Number(n) + 20))) }],
  'python-listing.pdf': [{ heading: 'Listing 2: the index', lines: PYTHON_CODE }],
  'formulas.pdf': [{ lines: FORMULAS }],
  'tables.pdf': [{ lines: TABLE }],
  'verse.pdf': [{ heading: 'Poems', lines: VERSE }],
  // A chapter's title page: a few words and no image, nothing for OCR to add.
  'short-pages.pdf': [
    { heading: 'Part II' },
    { paragraphs: ['The fairs of Champagne drew merchants from Flanders, Lombardy and Provence to Troyes and Provins every year.'] },
  ],
};

const pdfs = () => Object.fromEntries(Object.entries(PAGES).map(([f, pages]) => [f, buildPdf({ pages, info: { Title: f } })]));

describe('OCR decisions: born-digital pages keep their text layer', function () {
  this.timeout(180_000);

  for (const [name, lines] of Object.entries({ 'TeX source': TEX_CODE, 'Python code': PYTHON_CODE, formulas: FORMULAS, 'a table': TABLE, verse: VERSE })) {
    it(`reads a page of ${name} as a good text layer`, () => {
      const q = pageTextQuality(lines.join('\n'));
      assert.equal(q.verdict, 'ok', JSON.stringify(q));
    });
  }

  it('reads Greek and Cyrillic prose as words (no Latin vowels to look for)', () => {
    const greek = 'Τη νύχτα εκείνη ο άνεμος φυσούσε δυνατά πάνω από τη θάλασσα και τα καράβια έμειναν στο λιμάνι της Πειραιώς μέχρι το πρωί. '.repeat(3);
    const russian = 'Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. Всё смешалось в доме Облонских. '.repeat(3);
    for (const t of [greek, russian]) assert.equal(pageTextQuality(t).verdict, 'ok', t.slice(0, 40));
  });

  it('fails without the word-run rule: the TeX source is not words token by token', () => {
    // What made 9 of 13 pages of a TeX manual go to OCR: whitespace tokens that are not words.
    const q = pageTextQuality(TEX_CODE.join('\n'));
    assert.ok(q.wordShare < 0.6, `word share ${q.wordShare}`);
    assert.ok(q.runShare >= 0.5, `run share ${q.runShare}`);
  });

  it("decodes Adobe's private-use old-style figures and small capitals (gmverse.pdf's line numbers)", () => {
    assert.equal(decodeAdobePrivateUse('\uF733\uF730\uF739 \\ifnum\\betweenstanzaspenalty'), '309 \\ifnum\\betweenstanzaspenalty');
    assert.equal(decodeAdobePrivateUse('\uF768\uF769\uF773\uF774\uF76F\uF772\uF779 \uF7E9t\uF7E9'), 'history été');
    const numbered = VERSE.map((l, i) =>
      l.replace(
        /^\d+/,
        String(300 + i).replace(/\d/g, (d) => String.fromCharCode(0xf730 + Number(d))),
      ),
    );
    assert.equal(pageTextQuality(numbered.join('\n')).verdict, 'garbage', 'undecoded, the figures read as broken glyphs');
    assert.equal(pageTextQuality(decodeAdobePrivateUse(numbered.join('\n'))).verdict, 'ok');
  });

  it('extraction sets no page of these PDFs aside for OCR', async () => {
    for (const [name, bytes] of Object.entries(pdfs())) {
      const raw = await extractPdf(bytes);
      assert.equal(raw.ocrCandidates, undefined, `${name}: ${raw.ocrCandidates}`);
      // Nor in doubt: no page of a born-digital file is a scan, whatever its share of function words.
      assert.equal(raw.ocrDoubtful, undefined, `${name}: ${raw.ocrDoubtful}`);
    }
    // The title page keeps its few words.
    const raw = await extractPdf(pdfs()['short-pages.pdf']);
    assert.match(raw.pages[0], /Part II/);
  });

  it('CLI: index of a folder of code, formulas, tables and verse sends none of their pages to OCR', async () => {
    const CLI = resolve('dist/cli.js');
    if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs']).status, 0);
    const root = await fs.mkdtemp(join(tmpdir(), 'ss-ocr-decisions-'));
    try {
      const lib = join(root, 'lib');
      const workspace = join(root, 'ws');
      await fs.mkdir(lib, { recursive: true });
      await fs.mkdir(workspace, { recursive: true });
      for (const [f, bytes] of Object.entries(pdfs())) await fs.writeFile(join(lib, f), bytes);
      const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--workspace', workspace], { encoding: 'utf8', timeout: 120_000 });
      const ix = run(['index', '--library', lib, '--json', '--ocr-lang', 'eng']);
      assert.equal(ix.status, 0, ix.stderr);
      const report = JSON.parse(ix.stdout);
      assert.deepEqual(report.skipped, []);
      assert.equal(report.sources, Object.keys(PAGES).length);
      assert.deepEqual({ files: report.ocr.files, pages: report.ocr.pages, recognised: report.ocr.recognised }, { files: 0, pages: 0, recognised: 0 });
      // The code is searchable as it stands in the text layer.
      const s = run(['search', 'DeclareUnicodeCharacter catcode endlinechar', '--k', '1', '--json']);
      assert.equal(s.status, 0, s.stderr);
      assert.match(s.stdout, /tex-source\.pdf/);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
