/**
 * PDF text extraction with pdf-parse: raw text per page, printed page labels,
 * and the Info dictionary. Cleaning happens in cleanPages.ts so it can be tested
 * without PDFs.
 */
import { ensurePdfRuntime } from './runtime';

export interface RawPdf {
  pageCount: number;
  /** Raw text of each page, index 0 = page 1. */
  pages: string[];
  /** Printed label of each page where the PDF defines labels (index 0 = page 1). */
  pageLabels?: (string | undefined)[];
  info: { title?: string; author?: string; creationDate?: string; subject?: string; keywords?: string };
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

interface PdfJsDoc {
  numPages: number;
  getPageLabels(): Promise<string[] | null>;
  getMetadata(): Promise<{ info?: Record<string, unknown> }>;
}

export async function extractPdf(data: Uint8Array): Promise<RawPdf> {
  if (data.length === 0) throw new PdfSkipError('empty file (0 bytes)', 'empty');
  const { PDFParse } = await ensurePdfRuntime();
  // pdf-parse detaches the buffer it is given: hand it a copy so callers keep theirs.
  const parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    let text;
    try {
      text = await parser.getText();
    } catch (err) {
      throw classify(err);
    }
    // pdf-parse's own per-page label is off by one (it indexes a 0-based array
    // with 1-based page numbers), so read labels and Info from pdf.js directly.
    const doc = await (parser as unknown as { load(): Promise<PdfJsDoc> }).load();
    const [labels, meta] = await Promise.all([
      doc.getPageLabels().catch(() => null),
      doc.getMetadata().catch(() => ({ info: undefined })),
    ]);
    const pages: string[] = [];
    for (const p of text.pages) pages[p.num - 1] = p.text ?? '';
    for (let i = 0; i < text.total; i++) pages[i] ??= '';
    const info = meta.info ?? {};
    return {
      pageCount: text.total,
      pages,
      pageLabels: labels && labels.length === text.total ? labels.map((l) => (l ? String(l) : undefined)) : undefined,
      info: {
        title: str(info['Title']),
        author: str(info['Author']),
        creationDate: str(info['CreationDate']),
        subject: str(info['Subject']),
        keywords: str(info['Keywords']),
      },
    };
  } finally {
    await parser.destroy().catch(() => undefined);
  }
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
