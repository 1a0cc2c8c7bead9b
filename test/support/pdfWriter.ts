/**
 * A tiny, dependency-free PDF writer for tests, examples and benchmarks.
 *
 * It writes PDF 1.4 files with A4 pages, the two standard Type1 fonts Helvetica and
 * Helvetica-Bold in WinAnsiEncoding (so French text round-trips), an exact xref table,
 * an optional /Info dictionary, optional /PageLabels and optional genuine RC4 40-bit
 * (Standard security handler, R2) encryption with a non-empty user password.
 *
 * Output is deterministic: nothing depends on the clock or on randomness.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

export interface PdfPage {
  /** Wrapped to the page width (approximate Helvetica metrics), blank line between paragraphs. */
  paragraphs?: string[];
  /** Written verbatim, one per line, after the paragraphs (e.g. a line ending in "inter-"). */
  lines?: string[];
  /** A bigger bold line (Helvetica-Bold) at the top of the body. */
  heading?: string;
  /** Running header at the top margin. */
  header?: string;
  /** Running footer at the bottom margin (e.g. a printed page number such as "12"). */
  footer?: string;
  /** A page with only vector drawing and no text layer at all; every text field is ignored. */
  noText?: boolean;
  /**
   * A scanned page: an 8-bit grey image (row by row, `width` × `height` bytes) drawn over the
   * whole page, as an image XObject (FlateDecode). Text fields, when given too, are drawn over it
   * (a text layer on a scan); without them the page has no text layer.
   */
  image?: { width: number; height: number; grey: Uint8Array };
}

export interface PdfSpec {
  pages: PdfPage[];
  info?: { Title?: string; Author?: string; Subject?: string; Keywords?: string; CreationDate?: Date };
  /** /PageLabels ranges; startPage is a 0-based page index. */
  pageLabels?: Array<{ startPage: number; style?: 'D' | 'r' | 'R' | 'a' | 'A'; prefix?: string; start?: number }>;
  /**
   * Encrypt with the Standard security handler (RC4 40-bit, R2) and the user password
   * {@link ENCRYPTED_USER_PASSWORD}, so pdf.js asks for a password. The file is genuinely
   * decryptable with that password.
   */
  encrypted?: boolean;
}

/** User password of PDFs written with `encrypted: true`. */
export const ENCRYPTED_USER_PASSWORD = 'secret';
/** Owner password of PDFs written with `encrypted: true`. */
export const ENCRYPTED_OWNER_PASSWORD = 'owner-secret';

/** A4 in PDF points. */
export const PAGE_WIDTH = 595.28;
export const PAGE_HEIGHT = 841.89;
const MARGIN = 72;
const BODY_SIZE = 11;
const BODY_LEADING = 14;
const HEADING_SIZE = 16;
const HEADING_LEADING = 22;
const RUNNING_SIZE = 9;
const BODY_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const BODY_TOP = PAGE_HEIGHT - MARGIN;
const BODY_BOTTOM = MARGIN;
const HEADER_Y = PAGE_HEIGHT - 42;
const FOOTER_Y = 36;

// ---------------------------------------------------------------------------------------------
// WinAnsi encoding and Helvetica metrics

/** Unicode code points of WinAnsiEncoding bytes 0x80..0x9F (0 = undefined). */
const WIN_ANSI_80_9F = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
  0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];
const UNICODE_TO_WIN_ANSI = new Map<number, number>();
for (let b = 0x20; b <= 0x7e; b++) UNICODE_TO_WIN_ANSI.set(b, b);
for (let b = 0xa0; b <= 0xff; b++) UNICODE_TO_WIN_ANSI.set(b, b);
WIN_ANSI_80_9F.forEach((cp, i) => {
  if (cp) UNICODE_TO_WIN_ANSI.set(cp, 0x80 + i);
});

/** Encode text to WinAnsi bytes (as a latin1 "binary" string); unmappable characters become '?'. */
function toWinAnsi(text: string): string {
  let out = '';
  for (const ch of text) {
    const b = UNICODE_TO_WIN_ANSI.get(ch.codePointAt(0)!);
    out += String.fromCharCode(b ?? 0x3f);
  }
  return out;
}

/** Helvetica advance widths (1/1000 em) for ASCII 0x20..0x7E. */
const HELVETICA_ASCII = [
  278,
  278,
  355,
  556,
  556,
  889,
  667,
  191,
  333,
  333,
  389,
  584,
  278,
  333,
  278,
  278, // space .. /
  556,
  556,
  556,
  556,
  556,
  556,
  556,
  556,
  556,
  556,
  278,
  278,
  584,
  584,
  584,
  556, // 0 .. ?
  1015,
  667,
  667,
  722,
  722,
  667,
  611,
  778,
  722,
  278,
  500,
  667,
  556,
  833,
  722,
  778, // @ .. O
  667,
  778,
  722,
  667,
  611,
  722,
  667,
  944,
  667,
  667,
  611,
  278,
  278,
  278,
  469,
  556, // P .. _
  333,
  556,
  556,
  500,
  556,
  556,
  278,
  556,
  556,
  222,
  222,
  500,
  222,
  833,
  556,
  556, // ` .. o
  556,
  556,
  333,
  500,
  278,
  556,
  500,
  722,
  500,
  500,
  500,
  334,
  260,
  334,
  584, // p .. ~
];
/** Approximate widths of the WinAnsi bytes above 0x7F that matter for French text. */
const HELVETICA_HIGH: Record<number, number> = {
  0x85: 1000,
  0x8c: 1000,
  0x9c: 944,
  0x91: 222,
  0x92: 222,
  0x93: 333,
  0x94: 333,
  0x96: 556,
  0x97: 1000,
  0xa0: 278,
  0xab: 556,
  0xbb: 556,
  0xc0: 667,
  0xc7: 722,
  0xc9: 667,
  0xca: 667,
  0xce: 278,
  0xe0: 556,
  0xe2: 556,
  0xe7: 500,
  0xe8: 556,
  0xe9: 556,
  0xea: 556,
  0xeb: 556,
  0xee: 278,
  0xef: 278,
  0xf4: 556,
  0xf9: 556,
  0xfb: 556,
  0xfc: 556,
};

/** Approximate width in points of WinAnsi-encoded text. */
function textWidth(encoded: string, size: number, bold: boolean): number {
  let units = 0;
  for (let i = 0; i < encoded.length; i++) {
    const b = encoded.charCodeAt(i);
    units += b >= 0x20 && b <= 0x7e ? HELVETICA_ASCII[b - 0x20] : (HELVETICA_HIGH[b] ?? 556);
  }
  return (units * size * (bold ? 1.07 : 1)) / 1000;
}

/** Greedy word wrap on ordinary spaces (a non-breaking space never breaks). */
function wrap(text: string, maxWidth: number, size: number, bold: boolean): string[] {
  const words = text.split(/ +/).filter((w) => w.length > 0);
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (current && textWidth(toWinAnsi(candidate), size, bold) > maxWidth) {
      lines.push(current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current) lines.push(current);
  return lines;
}

/** A PDF literal string body (without the parentheses) for latin1 bytes. */
function escapeLiteral(bytes: string): string {
  return bytes.replace(/[\\()\r\n]/g, (c) => (c === '\r' ? '\\r' : c === '\n' ? '\\n' : `\\${c}`));
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, '').replace(/\.$/, '');
}

// ---------------------------------------------------------------------------------------------
// Page content

function pageContent(page: PdfPage, pageIndex: number): string {
  const scan = page.image ? `q ${fmt(PAGE_WIDTH)} 0 0 ${fmt(PAGE_HEIGHT)} 0 0 cm /Im0 Do Q\n` : '';
  const hasText = !!(page.paragraphs?.length || page.lines?.length || page.heading || page.header || page.footer);
  if (page.image && !hasText) return scan;
  return scan + textContent(page, pageIndex);
}

function textContent(page: PdfPage, pageIndex: number): string {
  if (page.noText) {
    // Vector-only page: a grey block, a frame and a few rules, like a scanned page's layout
    // without any text layer.
    return [
      'q',
      '0.85 g',
      `${MARGIN} 520 ${fmt(BODY_WIDTH)} 220 re f`,
      '0 G 1 w',
      `${MARGIN} 100 ${fmt(BODY_WIDTH)} 380 re S`,
      ...Array.from({ length: 12 }, (_, i) => `${MARGIN + 12} ${440 - i * 28} m ${fmt(MARGIN + BODY_WIDTH - 12)} ${440 - i * 28} l S`),
      'Q',
      '',
    ].join('\n');
  }
  const ops: string[] = [];
  const running = (text: string, y: number) => {
    const enc = toWinAnsi(text);
    const x = (PAGE_WIDTH - textWidth(enc, RUNNING_SIZE, false)) / 2;
    ops.push('BT', `/F1 ${RUNNING_SIZE} Tf`, `${fmt(x)} ${fmt(y)} Td`, `(${escapeLiteral(enc)}) Tj`, 'ET');
  };
  if (page.header) running(page.header, HEADER_Y);

  let y = BODY_TOP;
  const body: string[] = [];
  let first = true;
  const moveDown = (leading: number) => {
    if (first) {
      y -= leading;
      body.push(`${MARGIN} ${fmt(y)} Td`);
      first = false;
    } else {
      y -= leading;
      body.push(`0 ${-leading} Td`);
    }
  };
  if (page.heading) {
    body.push(`/F2 ${HEADING_SIZE} Tf`);
    for (const line of wrap(page.heading, BODY_WIDTH, HEADING_SIZE, true)) {
      moveDown(HEADING_LEADING);
      body.push(`(${escapeLiteral(toWinAnsi(line))}) Tj`);
    }
    y -= BODY_LEADING / 2;
    if (!first) body.push(`0 ${-BODY_LEADING / 2} Td`);
  }
  body.push(`/F1 ${BODY_SIZE} Tf`);
  const paragraphs = page.paragraphs ?? [];
  paragraphs.forEach((para, i) => {
    if (i > 0) {
      y -= BODY_LEADING;
      if (!first) body.push(`0 ${-BODY_LEADING} Td`);
    }
    for (const line of wrap(para, BODY_WIDTH, BODY_SIZE, false)) {
      moveDown(BODY_LEADING);
      body.push(`(${escapeLiteral(toWinAnsi(line))}) Tj`);
    }
  });
  if (page.lines?.length) {
    if (paragraphs.length) {
      y -= BODY_LEADING;
      if (!first) body.push(`0 ${-BODY_LEADING} Td`);
    }
    for (const line of page.lines) {
      moveDown(BODY_LEADING);
      body.push(`(${escapeLiteral(toWinAnsi(line))}) Tj`);
    }
  }
  if (y < BODY_BOTTOM) {
    throw new Error(`pdfWriter: the text of page ${pageIndex + 1} does not fit on one A4 page; split it over more pages`);
  }
  if (!first) ops.push('BT', ...body, 'ET');

  if (page.footer) running(page.footer, FOOTER_Y);
  return ops.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// Strings, dates, encryption

function pdfDate(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `D:${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

/** Text string bytes: PDFDocEncoding-compatible ASCII as-is, anything else UTF-16BE with a BOM. */
function textStringBytes(s: string): Buffer {
  if (/^[\x20-\x7e]*$/.test(s)) return Buffer.from(s, 'latin1');
  const le = Buffer.from(s, 'utf16le');
  const be = Buffer.alloc(le.length + 2);
  be[0] = 0xfe;
  be[1] = 0xff;
  for (let i = 0; i < le.length; i += 2) {
    be[i + 2] = le[i + 1];
    be[i + 3] = le[i];
  }
  return be;
}

const PASSWORD_PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

function md5(...parts: Buffer[]): Buffer {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** RC4 (implemented here: OpenSSL 3 may not offer it). */
function rc4(key: Buffer, data: Buffer): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
    out[n] = data[n] ^ s[(s[i] + s[j]) & 0xff];
  }
  return out;
}

function padPassword(pw: string): Buffer {
  return Buffer.concat([Buffer.from(pw, 'latin1'), PASSWORD_PADDING]).subarray(0, 32);
}

interface Encryption {
  key: Buffer; // 5 bytes
  o: Buffer;
  u: Buffer;
  p: number;
}

/** Standard security handler, revision 2, 40-bit RC4 (PDF 1.7 §7.6.3, algorithms 2, 3 and 4). */
function makeEncryption(fileId: Buffer): Encryption {
  const p = -44; // print, copy etc. denied; reserved bits set as required
  const ownerKey = md5(padPassword(ENCRYPTED_OWNER_PASSWORD)).subarray(0, 5);
  const o = rc4(ownerKey, padPassword(ENCRYPTED_USER_PASSWORD));
  const pBytes = Buffer.alloc(4);
  pBytes.writeInt32LE(p);
  const key = md5(padPassword(ENCRYPTED_USER_PASSWORD), o, pBytes, fileId).subarray(0, 5);
  const u = rc4(key, PASSWORD_PADDING);
  return { key, o, u, p };
}

/** Algorithm 1: the per-object RC4 key. */
function objectKey(enc: Encryption, num: number, gen: number): Buffer {
  const extra = Buffer.from([num & 0xff, (num >> 8) & 0xff, (num >> 16) & 0xff, gen & 0xff, (gen >> 8) & 0xff]);
  return md5(enc.key, extra).subarray(0, Math.min(enc.key.length + 5, 16));
}

// ---------------------------------------------------------------------------------------------
// Document assembly

function labelStyleEntry(l: NonNullable<PdfSpec['pageLabels']>[number], str: (s: string) => string): string {
  const parts: string[] = [];
  if (l.style) parts.push(`/S /${l.style}`);
  if (l.prefix !== undefined) parts.push(`/P ${str(l.prefix)}`);
  if (l.start !== undefined) parts.push(`/St ${l.start}`);
  return `<< ${parts.join(' ')} >>`;
}

/** Build a complete PDF file from a spec. */
export function buildPdf(spec: PdfSpec): Buffer {
  if (!spec.pages.length) throw new Error('pdfWriter: a PDF needs at least one page');

  // Deterministic file identifier derived from the spec itself.
  // (An image's pixels enter as their digest: a JSON array of millions of numbers would be slow.)
  const fileId = md5(
    Buffer.from(
      JSON.stringify(spec, (_k, v: unknown) => (v instanceof Uint8Array ? md5(Buffer.from(v)).toString('hex') : v)),
      'utf8',
    ),
  );
  const enc = spec.encrypted ? makeEncryption(fileId) : undefined;

  // Object numbers.
  const CATALOG = 1;
  const PAGES = 2;
  const FONT_REGULAR = 3;
  const FONT_BOLD = 4;
  let next = 5;
  const INFO = spec.info ? next++ : 0;
  const ENCRYPT = enc ? next++ : 0;
  const firstPageObj = next;
  const pageObj = (i: number) => firstPageObj + 2 * i;
  const contentObj = (i: number) => firstPageObj + 2 * i + 1;
  // One image XObject per scanned page, after the pages.
  const imageObj = new Map<number, number>();
  let nextImage = firstPageObj + 2 * spec.pages.length;
  spec.pages.forEach((p, i) => {
    if (p.image) imageObj.set(i, nextImage++);
  });
  const objectCount = nextImage; // highest object number + 1

  /** A string object written inside object `num` (encrypted when the file is). */
  const stringIn =
    (num: number) =>
    (s: string): string => {
      const bytes = textStringBytes(s);
      if (enc)
        return `<${rc4(objectKey(enc, num, 0), bytes)
          .toString('hex')
          .toUpperCase()}>`;
      if (bytes[0] === 0xfe && bytes[1] === 0xff) return `<${bytes.toString('hex').toUpperCase()}>`;
      return `(${escapeLiteral(bytes.toString('latin1'))})`;
    };

  const bodies = new Map<number, Buffer>();
  const put = (num: number, text: string) => bodies.set(num, Buffer.from(text, 'latin1'));
  const putStream = (num: number, data: Buffer) => {
    const bytes = enc ? rc4(objectKey(enc, num, 0), data) : data;
    bodies.set(num, Buffer.concat([Buffer.from(`<< /Length ${bytes.length} >>\nstream\n`, 'latin1'), bytes, Buffer.from('\nendstream', 'latin1')]));
  };

  let catalog = `<< /Type /Catalog /Pages ${PAGES} 0 R`;
  if (spec.pageLabels?.length) {
    const sorted = [...spec.pageLabels].sort((a, b) => a.startPage - b.startPage);
    const nums = sorted.map((l) => `${l.startPage} ${labelStyleEntry(l, stringIn(CATALOG))}`).join(' ');
    catalog += ` /PageLabels << /Nums [${nums}] >>`;
  }
  put(CATALOG, catalog + ' >>');

  const kids = spec.pages.map((_, i) => `${pageObj(i)} 0 R`).join(' ');
  put(
    PAGES,
    `<< /Type /Pages /Kids [${kids}] /Count ${spec.pages.length}` +
      ` /MediaBox [0 0 ${fmt(PAGE_WIDTH)} ${fmt(PAGE_HEIGHT)}]` +
      ` /Resources << /Font << /F1 ${FONT_REGULAR} 0 R /F2 ${FONT_BOLD} 0 R >> /ProcSet [/PDF /Text] >> >>`,
  );
  put(FONT_REGULAR, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  put(FONT_BOLD, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');

  if (spec.info) {
    const str = stringIn(INFO);
    const entries: string[] = [];
    const { Title, Author, Subject, Keywords, CreationDate } = spec.info;
    if (Title !== undefined) entries.push(`/Title ${str(Title)}`);
    if (Author !== undefined) entries.push(`/Author ${str(Author)}`);
    if (Subject !== undefined) entries.push(`/Subject ${str(Subject)}`);
    if (Keywords !== undefined) entries.push(`/Keywords ${str(Keywords)}`);
    if (CreationDate !== undefined) entries.push(`/CreationDate ${str(pdfDate(CreationDate))}`);
    entries.push(`/Producer ${str('Similar Sources test pdfWriter')}`);
    put(INFO, `<< ${entries.join(' ')} >>`);
  }
  if (enc) {
    put(
      ENCRYPT,
      `<< /Filter /Standard /V 1 /R 2 /Length 40 /O <${enc.o.toString('hex').toUpperCase()}>` + ` /U <${enc.u.toString('hex').toUpperCase()}> /P ${enc.p} >>`,
    );
  }

  spec.pages.forEach((page, i) => {
    const img = imageObj.get(i);
    // A page with its own /Resources does not inherit the fonts: name them again.
    const resources = img ? ` /Resources << /Font << /F1 ${FONT_REGULAR} 0 R /F2 ${FONT_BOLD} 0 R >> /XObject << /Im0 ${img} 0 R >> >>` : '';
    put(pageObj(i), `<< /Type /Page /Parent ${PAGES} 0 R /Contents ${contentObj(i)} 0 R${resources} >>`);
    putStream(contentObj(i), Buffer.from(pageContent(page, i), 'latin1'));
    if (img && page.image) {
      const { width, height, grey } = page.image;
      if (grey.length !== width * height) throw new Error(`pdfWriter: page ${i + 1} image has ${grey.length} bytes, not ${width}×${height}`);
      const data = deflateSync(Buffer.from(grey.buffer, grey.byteOffset, grey.byteLength));
      const bytes = enc ? rc4(objectKey(enc, img, 0), data) : data;
      bodies.set(
        img,
        Buffer.concat([
          Buffer.from(
            `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${bytes.length} >>\nstream\n`,
            'latin1',
          ),
          bytes,
          Buffer.from('\nendstream', 'latin1'),
        ]),
      );
    }
  });

  // Serialise with exact byte offsets.
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = chunks[0].length;
  const offsets: number[] = new Array(objectCount).fill(0);
  for (let num = 1; num < objectCount; num++) {
    const body = bodies.get(num);
    if (!body) throw new Error(`pdfWriter: internal error, object ${num} missing`);
    offsets[num] = offset;
    const chunk = Buffer.concat([Buffer.from(`${num} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    chunks.push(chunk);
    offset += chunk.length;
  }
  const xrefOffset = offset;
  let xref = `xref\n0 ${objectCount}\n0000000000 65535 f \n`;
  for (let num = 1; num < objectCount; num++) xref += `${String(offsets[num]).padStart(10, '0')} 00000 n \n`;
  const id = fileId.toString('hex').toUpperCase();
  let trailer = `trailer\n<< /Size ${objectCount} /Root ${CATALOG} 0 R`;
  if (INFO) trailer += ` /Info ${INFO} 0 R`;
  if (ENCRYPT) trailer += ` /Encrypt ${ENCRYPT} 0 R`;
  trailer += ` /ID [<${id}> <${id}>] >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  chunks.push(Buffer.from(xref + trailer, 'latin1'));
  return Buffer.concat(chunks);
}

/** The first `keepFraction` (0..1) of a file, like a half-written download. */
export function truncatePdf(pdf: Buffer, keepFraction: number): Buffer {
  const f = Math.min(1, Math.max(0, keepFraction));
  return Buffer.from(pdf.subarray(0, Math.floor(pdf.length * f)));
}
