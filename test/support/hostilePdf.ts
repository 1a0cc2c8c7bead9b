/**
 * Hand-assembled hostile PDFs for the reliability tests: a page tree with a
 * cycle, a page with 100,000 text items, a decompression bomb (a content stream
 * that inflates to gigabytes), and a huge file (a large stream beside one page
 * of text), written to disk piecewise so the test never holds it in memory.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createDeflate } from 'node:zlib';

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/** A PDF from object bodies (object i+1 = bodies[i]); catalog must be object 1. Big streams as `{ stream }`. */
function assemble(bodies: Array<string | Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  bodies.forEach((b, i) => {
    offsets.push(offset);
    const buf = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), typeof b === 'string' ? Buffer.from(b, 'latin1') : b, Buffer.from('\nendobj\n')]);
    parts.push(buf);
    offset += buf.length;
  });
  const xref = [`xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${bodies.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(parts);
}

function stream(content: string | Buffer, dict = ''): Buffer {
  const data = typeof content === 'string' ? Buffer.from(content, 'latin1') : content;
  return Buffer.concat([Buffer.from(`<< /Length ${data.length} ${dict} >>\nstream\n`), data, Buffer.from('\nendstream')]);
}

const textPage = (words: string) => `BT /F1 11 Tf 72 770 Td (${words}) Tj ET`;

/** Pages whose /Kids include the Pages node itself (and a second node pointing back). */
export function pageTreeCyclePdf(): Buffer {
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 5 0 R 2 0 R] /Count 3 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 6 0 R >> >> /Contents 4 0 R >>',
    stream(textPage('A page inside a page tree that loops back on itself, about grain and harbours.')),
    '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>',
    FONT,
  ]);
}

/** One page drawing `items` separate text items (one Tj each). */
export function manyTextItemsPdf(items: number): Buffer {
  const ops: string[] = ['BT /F1 4 Tf 20 820 Td'];
  for (let i = 0; i < items; i++) ops.push(i % 40 === 0 ? `0 -4 Td (w${i}) Tj` : `(w${i} ) Tj`);
  ops.push('ET');
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream(ops.join('\n')),
    FONT,
  ]);
}

/** A page whose FlateDecode content stream inflates to `inflatedBytes` of text operators. */
export async function decompressionBombPdf(inflatedBytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (c: Buffer) => chunks.push(c));
  const unit = Buffer.from('BT /F1 11 Tf 72 770 Td (bomb) Tj ET\n'.repeat(30000), 'latin1');
  for (let written = 0; written < inflatedBytes; written += unit.length) {
    if (!deflate.write(unit)) await once(deflate, 'drain');
  }
  deflate.end();
  await once(deflate, 'end');
  const packed = Buffer.concat(chunks);
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream(packed, '/Filter /FlateDecode'),
    FONT,
  ]);
}

/** A file of about `bytes` bytes: one page of text and an unused stream of filler, written piecewise. */
export async function writeHugePdf(file: string, bytes: number, words: string): Promise<void> {
  const head = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream(textPage(words)).toString('latin1'),
    FONT,
  ];
  const out = createWriteStream(file);
  const write = async (b: Buffer) => {
    if (!out.write(b)) await once(out, 'drain');
  };
  const offsets: number[] = [];
  let offset = 0;
  await write(head);
  offset += head.length;
  for (const [i, body] of objs.entries()) {
    offsets.push(offset);
    const b = Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, 'latin1');
    await write(b);
    offset += b.length;
  }
  // Object 6: the filler stream.
  offsets.push(offset);
  const fillerLen = Math.max(0, bytes - offset - 200);
  const start = Buffer.from(`6 0 obj\n<< /Length ${fillerLen} >>\nstream\n`);
  await write(start);
  offset += start.length;
  const chunk = Buffer.alloc(1 << 20, 0x41);
  for (let left = fillerLen; left > 0; left -= chunk.length) await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
  offset += fillerLen;
  const end = Buffer.from('\nendstream\nendobj\n');
  await write(end);
  offset += end.length;
  const xref = [`xref\n0 7\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  await write(Buffer.from(`${xref}trailer\n<< /Size 7 /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`));
  out.end();
  await once(out, 'finish');
}

/**
 * One page whose content nests `depth` save-state operators (`q`) around a line of text
 * (issue 28: 200,000 levels, ~800 KB, kept the PDF reader busy for minutes).
 */
export function deepNestingPdf(depth: number): Buffer {
  const content = Buffer.concat([
    Buffer.from('q '.repeat(depth), 'latin1'),
    Buffer.from('BT /F1 12 Tf 72 712 Td (Hello) Tj ET ', 'latin1'),
    Buffer.from('Q '.repeat(depth), 'latin1'),
  ]);
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream(content),
    FONT,
  ]);
}

/** A page tree whose /Kids name the same page `times` times (/Count says so too). */
export function repeatedPagePdf(times: number): Buffer {
  const kids = '3 0 R '.repeat(times);
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${times} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream(textPage('The same page, named again and again by its page tree, about grain and harbours.')),
    FONT,
  ]);
}

/** A case of the PDF regression corpus: what the reader must do with it. */
export interface HostileCase {
  name: string;
  bytes: Buffer;
  /** 'indexed': read (perhaps as damaged); 'skipped': reported with a reason; 'either': one or the other, never a crash or a hang. */
  expect: 'indexed' | 'skipped' | 'either';
}

/**
 * The crafted PDFs that once stopped or slowed a library (issue 28), generated by code so the
 * corpus needs no binary file. Each is small (≤ 1 MB) and fails fast under a small read budget.
 */
export function hostileCorpus(): HostileCase[] {
  return [
    { name: 'deep-nesting-200k', bytes: deepNestingPdf(200_000), expect: 'skipped' },
    { name: 'repeated-page-100k', bytes: repeatedPagePdf(100_000), expect: 'skipped' },
    { name: 'page-tree-cycle', bytes: pageTreeCyclePdf(), expect: 'indexed' },
    { name: 'unbalanced-restore', bytes: unbalancedPdf(), expect: 'indexed' },
    { name: 'huge-count', bytes: hugeCountPdf(), expect: 'indexed' },
    { name: 'self-referencing-contents', bytes: selfContentsPdf(), expect: 'either' },
    { name: 'empty-kids', bytes: emptyKidsPdf(), expect: 'skipped' },
  ];
}

/** 50,000 `Q` with no `q` before them, around a line of text: pdf.js must not underflow its state stack. */
export function unbalancedPdf(): Buffer {
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream('Q '.repeat(50_000) + textPage('Restoring a state that was never saved, about grain and harbours.')),
    FONT,
  ]);
}

/** One real page, and a page tree that claims 2,147,483,647 of them. */
export function hugeCountPdf(): Buffer {
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 2147483647 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream(textPage('A page tree that counts more pages than it has, about grain and harbours.')),
    FONT,
  ]);
}

/** A page whose /Contents names the page object itself. */
export function selfContentsPdf(): Buffer {
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>',
    FONT,
  ]);
}

/** A page tree with no page at all. */
export function emptyKidsPdf(): Buffer {
  return assemble(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>']);
}
