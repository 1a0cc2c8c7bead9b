/**
 * Text-layer fixtures for the garbage-text-layer rule: clean pages (the text layers of the
 * example library and of the test corpus) and damaged versions of them, made the ways real text
 * layers go bad. Deterministic (a seeded generator), shared by the unit test and
 * scripts/measure-ocr.ts, which prints the rule's figures.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { extractPdf } from '../../src/core/pdf/extract';
import { englishHistorySpec, frenchSpec, truncatedSourceSpec } from './pdfCorpus';
import { buildPdf } from './pdfWriter';

export async function cleanPageTexts(exampleLibrary = 'examples/library'): Promise<string[]> {
  const pdfs: Uint8Array[] = [buildPdf(englishHistorySpec()), buildPdf(frenchSpec()), buildPdf(truncatedSourceSpec())];
  for (const dir of [exampleLibrary, join(exampleLibrary, 'archives')]) {
    for (const f of (await fs.readdir(dir)).filter((f) => f.endsWith('.pdf')).sort()) pdfs.push(await fs.readFile(join(dir, f)));
  }
  const out: string[] = [];
  for (const pdf of pdfs) {
    const raw = await extractPdf(pdf);
    out.push(...raw.pages.filter((p) => p.trim().length > 0));
  }
  return out;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NOISE = '0123456789~^#%&*@!|;:<>{}[]/\\=+';

/** Ways a text layer goes bad, each applied to a clean page. */
export const DAMAGES: Record<string, (text: string, seed: number) => string> = {
  /** An old scanner's OCR: 35% of the characters misread as digits or symbols. */
  'old OCR, 35% of characters misread': (t, seed) => {
    const r = rng(seed);
    return t.replace(/\S/g, (c) => (r() < 0.35 ? NOISE[Math.floor(r() * NOISE.length)] : c));
  },
  /** A font without a Unicode map: every letter comes out as a private-use glyph code. */
  'font without Unicode map (private-use glyphs)': (t) => t.replace(/\p{L}/gu, (c) => String.fromCharCode(0xe000 + (c.charCodeAt(0) % 200))),
  /** Undecodable bytes: 15% of the letters are replacement characters. */
  'replacement characters (15% of letters)': (t, seed) => {
    const r = rng(seed);
    return t.replace(/\p{L}/gu, (c) => (r() < 0.15 ? '\uFFFD' : c));
  },
  /** A symbol font read as text: letters become Latin-1 punctuation and signs. */
  'symbol font read as Latin-1': (t) => t.replace(/\p{L}/gu, (c) => String.fromCharCode(0xa1 + (c.charCodeAt(0) % 30))),
  /** Words glued and case-scrambled by a broken OCR layer. */
  'glued and case-scrambled words': (t, seed) => {
    const r = rng(seed);
    return t.replace(/ /g, () => (r() < 0.7 ? '' : ' ')).replace(/\p{L}/gu, (c) => (r() < 0.5 ? c.toUpperCase() : c.toLowerCase()));
  },
};
