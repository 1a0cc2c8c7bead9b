/**
 * OCR of a sample page decides on doubtful text layers (issue 22): a scan's layer that decodes to
 * the wrong letters yet passes for words is proved wrong by OCR and replaced; a scan's layer with
 * few function words that OCR reads alike (an index: names and numbers) is kept; born-digital pages
 * are never doubted for their function words.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import type { IndexProgress } from '../../src/core/index/write/indexer';
import { OcrPool } from '../../src/core/ocr/ocrPool';
import { extractPdf } from '../../src/core/pdf/extract';
import { pagesWithOcr, sampleVerdict } from '../../src/core/pdf/ocrPlan';
import { agreementWithOcr, DOUBT_FUNCTION_SHARE, functionWordShare, pageTextQuality } from '../../src/core/pdf/textQuality';
import { buildPdf } from '../support/pdfWriter';
import { indexWithOcr, ocrLibrary } from '../support/ocrLibrary';
import { scannedPage } from '../support/scannedPdf';

const PROSE = [
  'The salt pans of Trapani supplied the Genoese fleet with barrels of tunny, coral and sea salt every summer, and the merchants of the city kept their accounts in the harbour.',
  'Castilian merino wool reached the fairs of Medina del Campo, where the merchants of Burgos settled their bills of exchange before the ships sailed for Bruges and Antwerp.',
];
const FRENCH =
  'Les marchands de la ville tenaient leurs comptes dans le port, et les navires partaient pour Bruges avec la laine de Castille qui avait été vendue aux foires de Medina del Campo.';
const GERMAN =
  'Die Kaufleute der Stadt führten ihre Bücher im Hafen, und die Schiffe fuhren mit der Wolle aus Kastilien nach Brügge, die auf den Messen von Medina del Campo verkauft worden war.';
/** An index page: names and page numbers, no function word, read alike by OCR and by the layer. */
const INDEX_LINES = [
  'Abelard, Peter, 12, 45, 78',
  'Alexandria, 203, 211',
  'Antwerp, merchants, 88, 91, 140',
  'Aquinas, Thomas, 17, 19',
  'Barcelona, consulate, 66, 67',
  'Bruges, wool staple, 90, 141',
  'Burgos, merchants, 88, 92',
  'Castile, merino flocks, 86',
  'Catalonia, shipping, 64',
  'Genoa, fleet, 23, 57, 59',
  'Livorno, harbour dues, 120',
  'Medina del Campo, fairs, 87, 93',
  'Naples, kingdom, 101, 104',
  'Palermo, granaries, 33',
  'Seville, Casa de Contratacion, 150',
  'Trapani, salt pans, 22, 24',
  'Valencia, silk, 70',
  'Venice, arsenal, 40, 42, 48',
  'Zaragoza, wool, 85',
];

/** Each Latin letter one further in the alphabet: what a font whose map is off by one decodes to. */
function shifted(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 1) % 26) + base);
  });
}

const ORIGINAL = buildPdf({ pages: [{ heading: 'The Salt Pans', paragraphs: PROSE }, { lines: INDEX_LINES }] });

describe('OCR of a sample page decides on doubtful text layers', function () {
  this.timeout(240_000);

  describe('the measures', () => {
    it('prose in English, French and German is a quarter or more function words; shifted letters and an index are not', () => {
      for (const text of [PROSE.join(' '), FRENCH, GERMAN]) assert.ok(functionWordShare(text) >= 0.25, `${functionWordShare(text)}: ${text.slice(0, 40)}`);
      const wrong = shifted(PROSE.join(' '));
      assert.ok(functionWordShare(wrong) < DOUBT_FUNCTION_SHARE, `${functionWordShare(wrong)}`);
      // …yet the shifted layer passes the word rules: only OCR can tell it is wrong.
      assert.equal(pageTextQuality(wrong).verdict, 'ok');
      assert.ok(functionWordShare(INDEX_LINES.join('\n')) < DOUBT_FUNCTION_SHARE);
    });

    it('OCR agrees with a right layer despite its misreadings, not with a shifted one, and tells nothing when it reads little', () => {
      const layer = PROSE.join('\n');
      const misread = layer
        .replace(/merchants/, 'rnerchants')
        .replace(/summer/, 'surnmer')
        .replace(/Trapani/, 'Trapaui');
      const right = agreementWithOcr(layer, misread);
      assert.ok(right.right && !right.wrong && right.agreement >= 0.9, JSON.stringify(right));
      const wrong = agreementWithOcr(shifted(layer), layer);
      assert.ok(wrong.wrong && !wrong.right && wrong.agreement < 0.1, JSON.stringify(wrong));
      const little = agreementWithOcr(shifted(layer), 'Figure 3. The harbour');
      assert.deepEqual([little.right, little.wrong], [false, false]);
      // Code (poemscol.pdf's, bitset.pdf's: the word rule's doubts) that OCR reads as the layer has it proves the layer right.
      const code = Array.from(
        { length: 12 },
        (_, i) => `${595 + i} \\BitSet@AfterFiFi{% \\csname BitSet@N#1\\endcsname#2!#4!% \\newdimen\\voladditionalamount`,
      ).join('\n');
      assert.equal(agreementWithOcr(code, code).right, true);
    });

    it('puts the burden of proof on the rule that raised the doubt', () => {
      const page = (layer: string, setAside: boolean) => ({
        pageCount: 1,
        pages: [setAside ? '' : layer],
        info: {},
        ocrDoubtful: [1],
        ocrSample: 1,
        ...(setAside ? { setAside: { 1: layer } } : {}),
      });
      const ocr = PROSE.join('\n');
      // A layer the rules keep: replaced only when OCR, reading enough, disagrees.
      assert.equal(sampleVerdict(page(shifted(ocr), false), () => ocr).wrong, true);
      assert.equal(sampleVerdict(page(ocr, false), () => ocr).wrong, false);
      assert.equal(sampleVerdict(page(shifted(ocr), false), () => 'Figure 3').wrong, false);
      // A layer the word rule found garbage: replaced unless OCR, reading enough, agrees.
      assert.equal(sampleVerdict(page('x', true), () => 'Figure 3').wrong, true);
      assert.equal(sampleVerdict(page(ocr, true), () => ocr).wrong, false);
      // Not read (recognition failed): the layer stays.
      assert.equal(sampleVerdict(page(shifted(ocr), false), () => undefined).wrong, false);
      const kept = pagesWithOcr(page(ocr, true), () => ocr);
      assert.deepEqual([kept.texts, [...kept.ocr]], [[ocr], []]);
    });

    it("judges each page OCR reads on the sample's word by its own reading", () => {
      // formation-latex-ul.pdf: the sample (a body page whose font map is off) proves its layer
      // wrong, so the other doubtful page is read too; that one's layer (math source) reads as OCR does.
      const ocr = PROSE.join('\n');
      const code = Array.from(
        { length: 12 },
        (_, i) => `${i} \\frac{\\partial f}{\\partial x} \\begin{equation} \\int_0^1 g(x) dx \\end{equation} formula`,
      ).join('\n');
      const raw = { pageCount: 3, pages: ['Preface', '', ''], info: {}, ocrDoubtful: [2, 3], ocrSample: 2, setAside: { 2: shifted(ocr), 3: code } };
      const read = (n: number) => (n === 2 ? ocr : n === 3 ? code.replace(/partial/, 'parlial') : undefined);
      assert.equal(sampleVerdict(raw, read).wrong, true);
      const { texts, ocr: fromOcr } = pagesWithOcr(raw, read);
      assert.deepEqual([...fromOcr], [2]);
      assert.deepEqual(texts, ['Preface', ocr, code], "page 3 keeps its own layer, not OCR's misreading");
      // The same page, read by OCR as something else, takes OCR's text.
      const other = pagesWithOcr(raw, (n) => (n === 3 ? PROSE.slice().reverse().join('\n') : read(n)));
      assert.deepEqual([...other.ocr], [2, 3]);
      // With a sample that proves its layer right, the other page is not read at all.
      const unread = pagesWithOcr({ ...raw, setAside: { 2: ocr, 3: code } }, (n) => (n === 2 ? ocr : undefined));
      assert.deepEqual([[...unread.ocr], unread.texts], [[], ['Preface', ocr, code]]);
    });
  });

  describe('extraction', () => {
    it('doubts the layer of a scanned page with almost no function words, and only that', async () => {
      const wrongScan = buildPdf({
        pages: [
          { ...scannedPage(ORIGINAL, 1), paragraphs: PROSE.map(shifted) },
          { ...scannedPage(ORIGINAL, 2), lines: INDEX_LINES },
        ],
      });
      const raw = await extractPdf(wrongScan);
      assert.equal(raw.ocrCandidates, undefined);
      assert.deepEqual(raw.ocrDoubtful, [1, 2]);
      assert.equal(raw.ocrSample, 2, 'the page with the most letters: the index');
      assert.match(raw.pages[0], /Uif tbmu qbot/, 'the layer stays searchable until OCR has decided');
      // A right layer on a scan has its function words; the same shifted text born digital is no scan.
      const rightScan = await extractPdf(buildPdf({ pages: [{ ...scannedPage(ORIGINAL, 1), paragraphs: PROSE }] }));
      assert.equal(rightScan.ocrDoubtful, undefined);
      const digital = await extractPdf(buildPdf({ pages: [{ paragraphs: PROSE.map(shifted) }, { lines: INDEX_LINES }] }));
      assert.deepEqual([digital.ocrCandidates, digital.ocrDoubtful], [undefined, undefined]);
    });
  });

  describe('indexing with OCR (tesseract.js, offline)', () => {
    let root: string;
    let pool: OcrPool;
    before(async () => {
      root = await fs.mkdtemp(join(tmpdir(), 'ss-ocr-sample-'));
      pool = new OcrPool({ size: 1 });
    });
    after(async () => {
      await pool.close();
      await fs.rm(root, { recursive: true, force: true });
    });

    async function index(name: string, pdf: Buffer) {
      const { lib, workspace } = await ocrLibrary(root, name, { [`${name}.pdf`]: pdf });
      const progress: IndexProgress[] = [];
      const report = await indexWithOcr(pool, workspace, lib, {}, { onProgress: (p) => progress.push(p) });
      return { report, progress, idx: await LibraryIndex.open(workspace, new EmbeddedProvider()) };
    }

    it('replaces the layers of a scan that OCR of its sample proves wrong, and says so', async () => {
      const pdf = buildPdf({
        pages: [
          { ...scannedPage(ORIGINAL, 1), paragraphs: PROSE.map(shifted) },
          { ...scannedPage(ORIGINAL, 1), paragraphs: PROSE.map(shifted) },
        ],
      });
      const { report, progress, idx } = await index('shifted', pdf);
      assert.deepEqual(report.ocr, { files: 1, pages: 2, recognised: 2, fromCache: 0 });
      // One page (the sample) at first; its verdict adds the other.
      const ocr = progress.filter((p) => p.phase === 'ocr').map((p) => [p.done, p.total]);
      assert.deepEqual(
        [ocr[0], ocr[ocr.length - 1]],
        [
          [0, 1],
          [2, 2],
        ],
      );
      assert.ok(
        report.warnings.some((w) => /page 1: the text layer holds \d+% of the \d+ words OCR reads there; it is wrong, and the 2 pages/.test(w)),
        report.warnings.join('\n'),
      );
      assert.ok(!idx.passages.some((p) => /tbmu qbot/.test(p.text)), 'the shifted layer is gone from the index');
      const hit = (await idx.search('salt pans of Trapani Genoese fleet tunny coral', { k: 1 }))[0];
      assert.equal(hit.ocr, true);
      assert.match(hit.text, /Trapani/);
      assert.equal(idx.sources[0].ocrPages, 2);
    });

    it('keeps the layer of a scan that OCR of its sample reads alike: one page recognised, none replaced', async () => {
      const pdf = buildPdf({
        pages: [
          { ...scannedPage(ORIGINAL, 2), lines: INDEX_LINES },
          { ...scannedPage(ORIGINAL, 2), lines: INDEX_LINES },
        ],
      });
      const { report, idx } = await index('index', pdf);
      assert.deepEqual(report.ocr, { files: 1, pages: 1, recognised: 1, fromCache: 0 });
      assert.ok(!report.warnings.some((w) => /OCR/.test(w)), report.warnings.join('\n'));
      assert.equal(idx.sources[0].ocrPages, undefined);
      assert.ok(idx.passages.every((p) => !p.ocr));
      assert.ok(
        idx.passages.some((p) => p.text.includes('Seville, Casa de Contratacion, 150')),
        'the layer is indexed as it stands',
      );
    });
  });
});
