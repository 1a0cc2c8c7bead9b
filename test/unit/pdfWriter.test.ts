import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidPDFException, PasswordException, PDFParse } from 'pdf-parse';
import {
  ENGLISH_HISTORY_AUTHOR,
  ENGLISH_HISTORY_CREATED,
  ENGLISH_HISTORY_HEADER,
  ENGLISH_HISTORY_LABELS,
  ENGLISH_HISTORY_TITLE,
  FRENCH_AUTHOR,
  FRENCH_HYPHENATED,
  FRENCH_TITLE,
  englishHistorySpec,
  truncatedSourceSpec,
  writeFixtureLibrary,
} from '../support/pdfCorpus';
import { buildPdf, ENCRYPTED_OWNER_PASSWORD, ENCRYPTED_USER_PASSWORD, truncatePdf } from '../support/pdfWriter';

type LoadOptions = ConstructorParameters<typeof PDFParse>[0];

/** Open a PDF with pdf-parse, run `fn`, always destroy the parser. */
async function withParser<T>(data: Buffer, fn: (p: PDFParse) => Promise<T>, options: Partial<LoadOptions> = {}): Promise<T> {
  // A Buffer is copied by pdf-parse; a plain Uint8Array would be transferred (detached) to pdf.js.
  const parser = new PDFParse({ data, ...options });
  try {
    return await fn(parser);
  } finally {
    await parser.destroy();
  }
}

/** The error `fn` rejects with (fails if it resolves). */
async function rejection(data: Buffer, fn: (p: PDFParse) => Promise<unknown>, options: Partial<LoadOptions> = {}): Promise<Error> {
  try {
    await withParser(data, fn, options);
  } catch (e) {
    return e as Error;
  }
  assert.fail('expected pdf-parse to reject');
}

/** The page labels as pdf.js itself reports them (pdf-parse keeps its document private). */
async function pdfjsPageLabels(parser: PDFParse): Promise<string[] | null> {
  const doc = await (parser as unknown as { load(): Promise<{ getPageLabels(): Promise<string[] | null> }> }).load();
  return doc.getPageLabels();
}

const FRENCH_CHARS = 'é è ê à â ç ô û ù î ï ë œ Œ « » ’ “ ” – — …';

describe('test/support/pdfWriter', () => {
  let dir: string;
  let files: Record<string, string>;
  const read = (name: string) => readFile(files[name]);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdfwriter-'));
    ({ files } = await writeFixtureLibrary(dir));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('file structure', () => {
    it('writes an exact xref table, trailer and startxref', () => {
      const pdf = buildPdf({ ...englishHistorySpec(), encrypted: true });
      const text = pdf.toString('latin1');
      assert.ok(text.startsWith('%PDF-1.4\n'));
      assert.ok(text.endsWith('%%EOF\n'));
      const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)![1]);
      assert.equal(text.slice(startxref, startxref + 5), 'xref\n');
      const [, first, count] = /^xref\n(\d+) (\d+)\n/.exec(text.slice(startxref))!.map(Number);
      assert.equal(first, 0);
      const entriesStart = startxref + text.slice(startxref).indexOf('\n', 5) + 1;
      for (let num = 0; num < count; num++) {
        const entry = text.slice(entriesStart + 20 * num, entriesStart + 20 * (num + 1));
        assert.match(entry, /^\d{10} \d{5} [nf] \n$/, `xref entry ${num} must be 20 bytes`);
        if (num === 0) continue;
        const offset = Number(entry.slice(0, 10));
        assert.equal(text.slice(offset, offset + `${num} 0 obj`.length), `${num} 0 obj`, `object ${num} at ${offset}`);
      }
      assert.match(text, new RegExp(`trailer\\n<< /Size ${count} /Root 1 0 R /Info \\d+ 0 R /Encrypt \\d+ 0 R /ID \\[<[0-9A-F]{32}> <[0-9A-F]{32}>\\] >>`));
    });

    it('is deterministic and writes no date unless one is given', () => {
      const spec = { pages: [{ paragraphs: ['Same bytes every time.'] }], info: { Title: 'Stable' } };
      assert.deepEqual(buildPdf(spec), buildPdf(spec));
      assert.ok(!buildPdf(spec).toString('latin1').includes('CreationDate'));
      assert.ok(!buildPdf(spec).toString('latin1').includes('D:'));
    });

    it('escapes literal strings and writes non-ASCII metadata as UTF-16BE with a BOM', async () => {
      const pdf = buildPdf({
        pages: [{ lines: ['Parentheses (nested (deep)) and a backslash \\ here'] }],
        info: { Title: 'A (tricky) \\ title', Author: 'Hélène Dubreuil', Subject: 'Œuvres « complètes »' },
      });
      const raw = pdf.toString('latin1');
      assert.ok(raw.includes('/Title (A \\(tricky\\) \\\\ title)'));
      assert.ok(raw.includes(`/Author <FEFF${Buffer.from('Hélène Dubreuil', 'utf16le').swap16().toString('hex').toUpperCase()}>`));
      const { info, text } = await withParser(pdf, async (p) => ({ info: (await p.getInfo()).info, text: await p.getText() }));
      assert.equal(info.Title, 'A (tricky) \\ title');
      assert.equal(info.Author, 'Hélène Dubreuil');
      assert.equal(info.Subject, 'Œuvres « complètes »');
      assert.equal(text.pages[0].text, 'Parentheses (nested (deep)) and a backslash \\ here');
    });

    it('refuses a page whose text does not fit', () => {
      assert.throws(() => buildPdf({ pages: [{ paragraphs: ['word '.repeat(6000)] }] }), /does not fit/);
    });

    it('truncatePdf keeps the requested fraction', () => {
      const pdf = buildPdf(truncatedSourceSpec());
      assert.equal(truncatePdf(pdf, 0.5).length, Math.floor(pdf.length / 2));
      assert.deepEqual(truncatePdf(pdf, 0.5), pdf.subarray(0, Math.floor(pdf.length / 2)));
      assert.equal(truncatePdf(pdf, 0).length, 0);
      assert.equal(truncatePdf(pdf, 1).length, pdf.length);
    });
  });

  describe('WinAnsi text through pdf-parse', () => {
    it('returns French characters exactly', async () => {
      const pdf = buildPdf({ pages: [{ lines: [FRENCH_CHARS, 'Ça, c’est «\u00A0l’œuvre\u00A0» de Braudel — déjà… «\u00A0Œdipe\u00A0»'] }] });
      const text = await withParser(pdf, (p) => p.getText());
      const [line1, line2] = text.pages[0].text.split('\n');
      assert.equal(line1, FRENCH_CHARS);
      // A non-breaking space is written as WinAnsi byte 0xA0, but pdf.js reports it as U+0020.
      assert.equal(line2, 'Ça, c’est « l’œuvre » de Braudel — déjà… « Œdipe »');
    });

    it('writes each character as its WinAnsi byte', () => {
      const raw = buildPdf({ pages: [{ lines: ['é’œŒ«»–—…\u00A0“”'] }] }).toString('latin1');
      assert.ok(raw.includes('(\xe9\x92\x9c\x8c\xab\xbb\x96\x97\x85\xa0\x93\x94) Tj'));
    });

    it('keeps a line-final hyphen and puts every line, header and footer on its own line', async () => {
      const pdf = buildPdf({
        pages: [
          {
            header: 'Running head',
            heading: 'Heading',
            paragraphs: ['First paragraph.', 'Second paragraph.'],
            lines: ['a long inter-', 'national trade'],
            footer: '12',
          },
        ],
      });
      const text = await withParser(pdf, (p) => p.getText());
      // No empty line between paragraphs: pdf-parse separates lines with a single "\n".
      assert.equal(text.pages[0].text, 'Running head\nHeading\nFirst paragraph.\nSecond paragraph.\na long inter-\nnational trade\n12');
    });
  });

  describe('english-history.pdf', () => {
    it('has six pages with header first, page number last, text in between', async () => {
      const text = await withParser(await read('english-history.pdf'), (p) => p.getText());
      assert.equal(text.total, 6);
      assert.deepEqual(
        text.pages.map((p) => p.num),
        [1, 2, 3, 4, 5, 6],
      );
      text.pages.forEach((page, i) => {
        const lines = page.text.split('\n');
        assert.equal(lines[0], ENGLISH_HISTORY_HEADER);
        assert.equal(lines[lines.length - 1], ENGLISH_HISTORY_LABELS[i]);
        assert.ok(lines.length > 15, `page ${i + 1} is text-heavy`);
      });
      // The long title wraps over two lines.
      assert.equal(text.pages[0].text.split('\n').slice(1, 3).join(' '), ENGLISH_HISTORY_TITLE);
      assert.ok(text.pages[2].text.includes('The tratta was a licence to export a fixed quantity of grain'));
      // The whole-document text joins pages with "\n\n-- N of M --\n\n".
      assert.ok(text.text.includes('\n\n-- 1 of 6 --\n\n'));
    });

    it('has Info Title, Author and CreationDate', async () => {
      const info = await withParser(await read('english-history.pdf'), (p) => p.getInfo());
      assert.equal(info.total, 6);
      assert.equal(info.info.Title, ENGLISH_HISTORY_TITLE);
      assert.equal(info.info.Author, ENGLISH_HISTORY_AUTHOR);
      assert.equal(info.info.CreationDate, 'D:20190314093000Z'); // the raw PDF date string
      assert.deepEqual(info.getDateNode().CreationDate, ENGLISH_HISTORY_CREATED);
      assert.equal(info.info.EncryptFilterName, null);
    });

    it('has page labels i, 12, 13, ... (pdf.js) but pdf-parse 2.4.5 shifts them by one page', async () => {
      const { labels, pages } = await withParser(await read('english-history.pdf'), async (p) => ({
        labels: await pdfjsPageLabels(p),
        pages: (await p.getInfo({ parsePageInfo: true })).pages,
      }));
      assert.deepEqual(labels, ENGLISH_HISTORY_LABELS);
      assert.deepEqual(
        pages.map((p) => p.pageNumber),
        [1, 2, 3, 4, 5, 6],
      );
      // pdf-parse reads pageLabels[pageNumber] instead of pageLabels[pageNumber - 1].
      assert.deepEqual(
        pages.map((p) => p.pageLabel),
        [...ENGLISH_HISTORY_LABELS.slice(1), undefined],
      );
    });
  });

  describe('francais.pdf', () => {
    it('has four pages of French text, title only on the first page, hyphen kept at the line end', async () => {
      const { text, info } = await withParser(await read('francais.pdf'), async (p) => ({
        text: await p.getText(),
        info: await p.getInfo({ parsePageInfo: true }),
      }));
      assert.equal(text.total, 4);
      assert.equal(info.info.Title, undefined);
      assert.equal(info.info.Author, FRENCH_AUTHOR);
      assert.equal(text.pages[0].text.split('\n')[0], FRENCH_TITLE);
      assert.ok(text.pages[0].text.includes('L’histoire « événementielle », celle des batailles'));
      assert.ok(text.pages[2].text.includes('la promesse devient œuvre'));
      const lines = text.pages[1].text.split('\n');
      const at = lines.findIndex((l) => l.endsWith(FRENCH_HYPHENATED.before));
      assert.ok(at >= 0);
      assert.ok(lines[at + 1].startsWith(FRENCH_HYPHENATED.after));
      // No page labels: pdf.js returns null and pdf-parse leaves pageLabel undefined.
      assert.deepEqual(
        info.pages.map((p) => p.pageLabel),
        [undefined, undefined, undefined, undefined],
      );
    });
  });

  describe('broken and unusual files', () => {
    it('encrypted.pdf: PasswordException "No password given"; opens with the password', async () => {
      const data = await read('encrypted.pdf');
      const err = await rejection(data, (p) => p.getText());
      assert.ok(err instanceof PasswordException);
      assert.equal(err.name, 'PasswordException');
      assert.equal(err.message, 'No password given');
      const wrong = await rejection(data, (p) => p.getInfo(), { password: 'wrong' });
      assert.equal(wrong.name, 'PasswordException');
      assert.equal(wrong.message, 'Incorrect Password');
      for (const password of [ENCRYPTED_USER_PASSWORD, ENCRYPTED_OWNER_PASSWORD]) {
        const { text, info } = await withParser(data, async (p) => ({ text: await p.getText(), info: await p.getInfo() }), { password });
        assert.equal(text.total, 2);
        assert.ok(text.pages[0].text.startsWith('Provisioning Istanbul: The Ottoman Grain Administration'));
        assert.equal(info.info.Title, 'Provisioning Istanbul');
        assert.equal(info.info.EncryptFilterName, 'Standard');
      }
    });

    it('truncated.pdf: InvalidPDFException "Invalid PDF structure."', async () => {
      const err = await rejection(await read('truncated.pdf'), (p) => p.getText());
      assert.ok(err instanceof InvalidPDFException);
      assert.equal(err.name, 'InvalidPDFException');
      assert.equal(err.message, 'Invalid PDF structure.');
    });

    it('a file cut just before its end still opens (pdf.js rebuilds the xref)', async () => {
      const text = await withParser(truncatePdf(buildPdf(truncatedSourceSpec()), 0.99), (p) => p.getText());
      assert.equal(text.total, 4);
    });

    it('not-a-pdf.pdf: InvalidPDFException "Invalid PDF structure."', async () => {
      const err = await rejection(await read('not-a-pdf.pdf'), (p) => p.getInfo());
      assert.ok(err instanceof InvalidPDFException);
      assert.equal(err.message, 'Invalid PDF structure.');
    });

    it('empty.pdf: InvalidPDFException "The PDF file is empty, i.e. its size is zero bytes."', async () => {
      const err = await rejection(await read('empty.pdf'), (p) => p.getText());
      assert.ok(err instanceof InvalidPDFException);
      assert.equal(err.message, 'The PDF file is empty, i.e. its size is zero bytes.');
    });

    it('scanned.pdf: every page has empty text, no error', async () => {
      const text = await withParser(await read('scanned.pdf'), (p) => p.getText());
      assert.equal(text.total, 3);
      assert.deepEqual(
        text.pages.map((p) => p.text),
        ['', '', ''],
      );
    });
  });
});
