/**
 * PDF text extraction with pdf-parse: raw text per page, printed page labels,
 * and the Info dictionary. Cleaning happens in cleanPages.ts so it can be tested
 * without PDFs.
 */
import { decodeAdobePrivateUse, DOUBT_FUNCTION_SHARE, functionWordShare, MAX_BAD_CHAR_SHARE, pageTextQuality } from './textQuality';
import { IMAGE_OPS, isScanPage } from './pageImages';
import { declaredPageCount, structuralDamage, withRecoveryTrailer } from './pdfDamage';
import { ensurePdfRuntime } from './runtime';

export interface RawPdf {
  pageCount: number;
  /** Raw text of each page, index 0 = page 1. */
  pages: string[];
  /** Printed label of each page where the PDF defines labels (index 0 = page 1). */
  pageLabels?: (string | undefined)[];
  info: { title?: string; author?: string; creationDate?: string; subject?: string; keywords?: string };
  /** Pages (1-based) whose text layer is missing or does not decode: candidates for OCR. Their `pages` entry is ''. */
  ocrCandidates?: number[];
  /**
   * Pages whose text layer OCR of a sample page decides on (issue 22): a layer the word rule finds
   * garbage (set aside, `pages` entry ''), or one on a scanned page with almost no function words
   * (kept in `pages`). Recognised only when OCR of `ocrSample` proves its layer wrong.
   */
  ocrDoubtful?: number[];
  /** The doubtful page OCR reads first: the one with the most letters. */
  ocrSample?: number;
  /** The text layer the rule set aside on candidate or doubtful pages that had one (page → text): used when OCR is off, cannot read the page or keeps the layer. */
  setAside?: Record<number, string>;
  /** What was lost when the file is damaged: "read 1 of 3 pages: damaged cross-reference table". */
  damage?: string;
}

/** Why a file was skipped: shown to the user next to the path. */
export class PdfSkipError extends Error {
  constructor(
    message: string,
    readonly kind: 'encrypted' | 'invalid' | 'corrupt' | 'no-text' | 'empty' | 'too-large' | 'unreadable',
  ) {
    super(message);
    this.name = 'PdfSkipError';
  }
}

interface PdfJsPage {
  cleanup(): void;
}
interface PdfJsDoc {
  numPages: number;
  getPage(n: number): Promise<PdfJsPage>;
  getPageLabels(): Promise<string[] | null>;
  getMetadata(): Promise<{ info?: Record<string, unknown> }>;
}
/** pdf-parse's per-page text method (public on the class, missing from its typings). */
interface PageTextReader {
  load(): Promise<PdfJsDoc>;
  getPageText(page: PdfJsPage, params: object, total: number): Promise<string>;
}

export interface ExtractHooks {
  /** Called once the document is open, with its page count (before any page is read). */
  onOpened?(pages: number): void;
  /** Called as each page is done (read or failed), with how many are. */
  onPage?(done: number): void;
}

export async function extractPdf(data: Uint8Array, hooks: ExtractHooks = {}): Promise<RawPdf> {
  if (data.length === 0) throw new PdfSkipError('empty file (0 bytes)', 'empty');
  const { PDFParse } = await ensurePdfRuntime();
  const damaged = structuralDamage(data);
  // pdf-parse detaches the buffer it is given: hand it a copy so callers keep theirs.
  let parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    let doc: PdfJsDoc;
    try {
      doc = await (parser as unknown as PageTextReader).load();
    } catch (err) {
      // A truncated download has lost its trailer: name its catalog and let pdf.js rebuild the rest.
      const recovered = damaged?.startsWith('truncated') && !/password/i.test((err as Error)?.message ?? '') ? withRecoveryTrailer(data) : undefined;
      if (!recovered) throw classify(err);
      await parser.destroy().catch(() => undefined);
      parser = new PDFParse({ data: recovered });
      try {
        doc = await (parser as unknown as PageTextReader).load();
      } catch {
        throw classify(err);
      }
    }
    const reader = parser as unknown as PageTextReader;
    const total = doc.numPages;
    // A page tree with no page: nothing to read (and no page error to name).
    if (!(total > 0)) throw new PdfSkipError('not a valid PDF (its page tree holds no page)', 'invalid');
    hooks.onOpened?.(total);
    const { pages, failed, ocrCandidates, doubtful, sample, setAside, firstError } = await readPages(doc, reader, total, damaged, hooks);
    if (failed.length === total) throw classify(firstError);
    // In a damaged file, a page that came out empty most likely lost its content, and pages the
    // page tree declares beyond those pdf.js found are lost too (the scan only finds what arrived).
    if (damaged) {
      for (const n of ocrCandidates) if (!failed.includes(n) && !(await pageHasContent(doc, n))) failed.push(n);
      failed.sort((a, b) => a - b);
      const declared = declaredPageCount(data) ?? total;
      for (let n = total + 1; n <= declared; n++) failed.push(n);
    }
    const declaredTotal = Math.max(total, failed.length ? failed[failed.length - 1] : 0);
    if (failed.length >= declaredTotal) throw new PdfSkipError(`not a valid PDF (${damaged ?? 'damaged'}: no page could be read)`, 'invalid');
    // pdf-parse's own per-page label is off by one (it indexes a 0-based array
    // with 1-based page numbers), so read labels and Info from pdf.js directly.
    const [labels, meta] = await Promise.all([doc.getPageLabels().catch(() => null), doc.getMetadata().catch(() => ({ info: undefined }))]);
    const info = meta.info ?? {};
    return {
      pageCount: total,
      pages,
      pageLabels: labels && labels.length === total ? labels.map((l) => (l ? String(l) : undefined)) : undefined,
      info: {
        title: str(info['Title']),
        author: str(info['Author']),
        creationDate: str(info['CreationDate']),
        subject: str(info['Subject']),
        keywords: str(info['Keywords']),
      },
      ocrCandidates: ocrCandidates.filter((n) => !failed.includes(n)).length ? ocrCandidates.filter((n) => !failed.includes(n)) : undefined,
      ...(sample ? { ocrDoubtful: doubtful, ocrSample: sample.page } : {}),
      setAside: Object.keys(setAside).length ? setAside : undefined,
      damage: describeDamage(declaredTotal, failed, damaged, firstError),
    };
  } finally {
    await parser.destroy().catch(() => undefined);
  }
}

/** What reading a document page by page found. */
interface PagesRead {
  /** Each page's text ('' where it failed or was set aside). */
  pages: string[];
  /** Pages that could not be read. */
  failed: number[];
  ocrCandidates: number[];
  doubtful: number[];
  /** The doubtful page with the most letters. */
  sample?: { page: number; letters: number };
  setAside: Record<number, string>;
  /** The first page's error, when a page failed. */
  firstError: unknown;
}

/**
 * Reads the text of each page, page by page so that one broken page (or a truncated tail) costs
 * only itself, and judges its layer: kept, set aside for OCR, or in doubt (a sample page decides).
 * An encrypted file fails on its first page: that is thrown as the file's error.
 */
async function readPages(doc: PdfJsDoc, reader: PageTextReader, total: number, damaged: string | undefined, hooks: ExtractHooks): Promise<PagesRead> {
  const pages: string[] = [];
  const failed: number[] = [];
  const ocrCandidates: number[] = [];
  const doubtful: number[] = [];
  let sample: { page: number; letters: number } | undefined;
  const doubt = (n: number, letters: number) => {
    doubtful.push(n);
    if (!sample || letters > sample.letters) sample = { page: n, letters };
  };
  // Whether the file is a scan with a text layer (someone's OCR), asked of its first pages with
  // few function words: a born-digital file is no scan, and after SCAN_CHECKS pages that are
  // not, it is not asked again (each asking reads the page's operators).
  let scanned: boolean | undefined;
  let scanChecks = 0;
  const setAside: Record<number, string> = {};
  let firstError: unknown;
  for (let n = 1; n <= total; n++) {
    try {
      const page = await doc.getPage(n);
      try {
        pages[n - 1] = decodeAdobePrivateUse(await reader.getPageText(page, {}, total));
      } finally {
        page.cleanup();
      }
      const q = pageTextQuality(pages[n - 1]);
      const { verdict } = q;
      // A page with little or no text and no image (a chapter title, an index's tail, a blank
      // or a drawing) has nothing more for OCR to read: its layer, if any, is what it says.
      const nothingToRead = verdict === 'no-text' && !damaged && !(await drawsImage(doc, n));
      if (verdict === 'garbage' && q.badCharShare <= MAX_BAD_CHAR_SHARE) {
        // Garbage by its words alone: code or a table can look so too; a sample page decides.
        doubt(n, q.letters);
        setAside[n] = pages[n - 1];
        pages[n - 1] = '';
      } else if (verdict !== 'ok' && !nothingToRead) {
        ocrCandidates.push(n);
        if (pages[n - 1].trim()) setAside[n] = pages[n - 1];
        pages[n - 1] = '';
      } else if (verdict === 'ok' && scanned !== false && functionWordShare(pages[n - 1]) < DOUBT_FUNCTION_SHARE) {
        if (scanned === undefined) {
          if (await scanPage(doc, n)) scanned = true;
          else if (++scanChecks >= SCAN_CHECKS) scanned = false;
        }
        if (scanned) doubt(n, q.letters);
      }
    } catch (err) {
      // An encrypted or unreadable file fails on its first page: that is the file's error, not a page's.
      if (n === 1 && /password/i.test((err as Error)?.message ?? '')) throw classify(err);
      firstError ??= err;
      failed.push(n);
      pages[n - 1] = '';
    }
    hooks.onPage?.(n);
  }
  return { pages, failed, ocrCandidates, doubtful, sample, setAside, firstError };
}

/** Pages asked whether they are scans before a file is taken for born digital. */
const SCAN_CHECKS = 3;

type OperatorList = { fnArray: number[]; argsArray: unknown[][] };

/** A verdict on page n from its operator list (and its view box); `unreadable` for a page that cannot be read. */
async function judgeOperators(doc: PdfJsDoc, n: number, judge: (list: OperatorList, view: number[]) => boolean, unreadable: boolean): Promise<boolean> {
  try {
    const page = (await doc.getPage(n)) as PdfJsPage & { view: number[]; getOperatorList(): Promise<OperatorList> };
    try {
      return judge(await page.getOperatorList(), page.view);
    } finally {
      page.cleanup();
    }
  } catch {
    return unreadable;
  }
}

/** Whether a page is a scan (an image over most of it); an unreadable page is not. */
const scanPage = (doc: PdfJsDoc, n: number) => judgeOperators(doc, n, isScanPage, false);

/** Whether a page draws an image (a scan, or part of one); an unreadable page counts as one. */
const drawsImage = (doc: PdfJsDoc, n: number) => judgeOperators(doc, n, (list) => list.fnArray.some((f) => IMAGE_OPS.has(f)), true);

/** Whether a page draws anything (a lost content stream draws nothing). */
const pageHasContent = (doc: PdfJsDoc, n: number) => judgeOperators(doc, n, (list) => list.fnArray.length > 0, false);

/** "read 1 of 3 pages: damaged cross-reference table", or what was repaired when nothing was lost. */
export function describeDamage(total: number, failed: number[], structural: string | undefined, firstError: unknown): string | undefined {
  if (failed.length === 0) return structural ? `${structural}; repaired, all ${total} page${total > 1 ? 's' : ''} read` : undefined;
  const why = structural ?? `page ${failed[0]} failed (${((firstError as Error)?.message ?? String(firstError)).slice(0, 120)})`;
  const list = failed.length <= 5 ? ` (missing: ${failed.join(', ')})` : ` (missing: ${failed.slice(0, 5).join(', ')}, …)`;
  return `read ${total - failed.length} of ${total} pages${list}: ${why}`;
}

function str(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.replace(/\u0000/g, '').trim();
  return s || undefined;
}

function classify(err: unknown): PdfSkipError {
  const e = err as { name?: string; message?: string };
  const name = e?.name ?? '';
  const msg = e?.message ?? String(err);
  if (name === 'PasswordException' || /password/i.test(msg)) {
    return new PdfSkipError('encrypted: the PDF needs a password', 'encrypted');
  }
  if (name === 'InvalidPDFException' || /invalid pdf/i.test(msg)) {
    return new PdfSkipError(`not a valid PDF (${msg})`, 'invalid');
  }
  return new PdfSkipError(`unreadable PDF (${name || 'error'}: ${msg})`, 'corrupt');
}

/** PDF date "D:20190501120000+02'00'" → year. */
export function pdfDateYear(d: string | undefined): number | undefined {
  if (!d) return undefined;
  const m = /^(?:D:)?(\d{4})/.exec(d.trim());
  if (!m) return undefined;
  const y = Number(m[1]);
  return y >= 1400 && y <= 2200 ? y : undefined;
}
