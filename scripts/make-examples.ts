/**
 * Writes the PDFs of the bundled example library (examples/library) from the prose in
 * ./examples-content.ts, with the tiny writer in test/support/pdfWriter.ts.
 *
 *   npx tsx scripts/make-examples.ts
 *
 * Output is deterministic: the same content gives the same bytes on every run and machine
 * (fixed creation dates, no clock, no randomness). library.bib, draft.md and expected.json
 * are written by hand and are not touched.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPdf, truncatePdf, type PdfPage, type PdfSpec } from '../test/support/pdfWriter';
import { DAMAGED_KEEP_FRACTION, DAMAGED_SOURCE, EXAMPLE_SOURCES, type ExampleSource } from './examples-content';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const LIBRARY_DIR = join(ROOT, 'examples', 'library');

/** Characters the writer can encode (WinAnsiEncoding); anything else would print as '?'. */
const WIN_ANSI_EXTRA = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ';
function checkEncodable(text: string, where: string): void {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const ok = (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || WIN_ANSI_EXTRA.includes(ch);
    if (!ok) throw new Error(`${where}: the character ${JSON.stringify(ch)} (U+${cp.toString(16)}) is not in WinAnsiEncoding`);
  }
}

/**
 * Typesetting of a published text: typographic apostrophes, and for French the non-breaking
 * spaces before high punctuation and inside guillemets.
 */
function typeset(text: string, source: ExampleSource): string {
  if (!source.typeset) return text;
  let t = text.replace(/'/g, '’');
  if (source.language === 'fr') {
    t = t
      .replace(/ ([:;?!»])/g, '\u00A0$1')
      .replace(/« /g, '«\u00A0')
      .replace(/n° /g, 'n°\u00A0');
  }
  return t;
}

function toRoman(n: number): string {
  const table: Array<[number, string]> = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
  let out = '';
  for (const [value, letters] of table) {
    while (n >= value) {
      out += letters;
      n -= value;
    }
  }
  return out;
}

/** The printed page number of each page. */
export function printedNumbers(source: ExampleSource): string[] {
  const count = source.pages.length;
  const n = source.numbering;
  if (n.style === 'arabic') return Array.from({ length: count }, (_, i) => String(n.start + i));
  return Array.from({ length: count }, (_, i) => (i < n.romanPages ? toRoman(n.romanStart + i) : String(i - n.romanPages + 1)));
}

function pageLabels(source: ExampleSource): PdfSpec['pageLabels'] {
  if (!source.pageLabels) return undefined;
  const n = source.numbering;
  if (n.style === 'arabic') return [{ startPage: 0, style: 'D', start: n.start }];
  return [
    { startPage: 0, style: 'r', start: n.romanStart },
    { startPage: n.romanPages, style: 'D', start: 1 },
  ];
}

export function exampleSpec(source: ExampleSource): PdfSpec {
  const folios = printedNumbers(source);
  const pages: PdfPage[] = source.pages.map((page, i) => {
    const heading = page.heading !== undefined ? typeset(page.heading, source) : undefined;
    const paragraphs = page.paragraphs.map((p) => typeset(p, source));
    const lines = page.lines?.map((l) => typeset(l, source));
    const header = typeset(source.header, source);
    for (const text of [heading ?? '', ...paragraphs, ...(lines ?? []), header]) checkEncodable(text, source.file);
    return { header, heading, paragraphs, lines, footer: folios[i] };
  });
  const info: PdfSpec['info'] = {};
  if (source.info.title) info.Title = typeset(source.title, source);
  if (source.info.author && source.author) info.Author = source.author;
  if (source.info.created) info.CreationDate = new Date(source.info.created);
  return { pages, info, pageLabels: pageLabels(source) };
}

/** All files of the example library, relative path → bytes. */
export function exampleLibraryFiles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const source of EXAMPLE_SOURCES) files.set(source.file, buildPdf(exampleSpec(source)));
  files.set(DAMAGED_SOURCE.file, truncatePdf(buildPdf(exampleSpec(DAMAGED_SOURCE)), DAMAGED_KEEP_FRACTION));
  return files;
}

async function main(): Promise<void> {
  const files = exampleLibraryFiles();
  for (const [file, data] of files) {
    const path = join(LIBRARY_DIR, file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data);
    console.log(`${relative(ROOT, path)}  ${(data.length / 1024).toFixed(1)} KB`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
