/**
 * The text of every page of every indexed PDF, with its printed label and
 * whether it comes from OCR: what the citation checker compares quotations
 * with (the index keeps overlapping passages, not pages). Kept by the PDF's
 * content hash under <index>/pages/, like the OCR cache: it is derived from the
 * file's bytes alone (and the page cleaning, CHUNKER_VERSION), so it needs no
 * place in the manifest's commit: a file that is missing, damaged or of another
 * version is simply read again from the PDF. Written atomically by the indexer
 * as it reads a PDF; files of PDFs no longer indexed are removed after a run.
 * It lives with the index's storage (the indexer writes and prunes it, the index
 * folder holds it); the citation checker only reads it, and writes back the pages
 * it had to read again.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { CleanPage } from '../../pdf/cleanPages';
import { CHUNKER_VERSION } from '../../passages/chunker';
import { writeFileAtomic } from '../../util/atomicWrite';
import { copyConfined, readConfinedText, statConfined } from '../../util/confinedFiles';

/** One page as the citation checker reads it (citecheck/match.ts compares quotations with these). */
export interface PageText {
  /** 1-based page number in the PDF. */
  page: number;
  /** Printed label ("xii", "214"); the page number when the PDF has none. */
  label: string;
  ocr: boolean;
  text: string;
  /** The running headers, footers and page numbers the page's text leaves out (cleanPages), one per line. */
  furniture?: string;
}

/** 2: each page's furniture (`f`); a file of format 1 is read again from its PDF by the citation check. */
const PAGES_FORMAT = 2;

interface PagesFile {
  format: typeof PAGES_FORMAT;
  chunker: number | string;
  hash: string;
  pages: Array<{ n: number; l?: string; o?: 1; t: string; f?: string }>;
}

function fileOf(indexDir: string, hash: string): string {
  return path.join(indexDir, 'pages', `${hash.slice(0, 32)}.json`);
}

/** A clean page's text: its blocks, one paragraph each. */
export function pageText(p: CleanPage): string {
  return p.blocks.map((b) => b.text).join('\n\n');
}

export async function writePageTexts(indexDir: string, hash: string, pages: CleanPage[], ocrPages: ReadonlySet<number>): Promise<void> {
  await writePages(
    indexDir,
    hash,
    pages.map((p) => ({
      n: p.page,
      ...(p.label !== undefined ? { l: p.label } : {}),
      ...(ocrPages.has(p.page) ? { o: 1 as const } : {}),
      t: pageText(p),
      ...(p.furniture?.length ? { f: p.furniture.join('\n') } : {}),
    })),
  );
}

/** Page texts as a library server published them (a member's copy keeps them for the citation check offline). */
export async function writePublishedPageTexts(indexDir: string, hash: string, pages: readonly PageText[]): Promise<void> {
  await writePages(
    indexDir,
    hash,
    pages.map((p) => ({ n: p.page, l: p.label, ...(p.ocr ? { o: 1 as const } : {}), t: p.text, ...(p.furniture ? { f: p.furniture } : {}) })),
  );
}

async function writePages(indexDir: string, hash: string, pages: PagesFile['pages']): Promise<void> {
  const data: PagesFile = { format: PAGES_FORMAT, chunker: CHUNKER_VERSION, hash, pages };
  // Derived data, rebuilt from the PDF (or the server) when lost: no fsync.
  await writeFileAtomic(fileOf(indexDir, hash), JSON.stringify(data), { durable: false });
}

/**
 * Hard-links (or copies, where the file system has no links) the page texts of `hash` kept under
 * the index folder `from` into the one at `to` (a member's copy of a new generation takes those of
 * the last one: they do not change); false when `from` has none. They are checked when read.
 */
export async function linkPageTexts(from: string, to: string, hash: string): Promise<boolean> {
  const rule = { kind: 'index' as const, within: [from] };
  // Confined to `from`, a plain file (a link or device planted there is not taken).
  const st = await statConfined(fileOf(from, hash), rule).catch(() => undefined);
  if (!st) return false;
  const target = fileOf(to, hash);
  await fs.mkdir(path.dirname(target), { recursive: true });
  try {
    await fs.link(st.path, target);
  } catch {
    await copyConfined(st.path, target, rule);
  }
  return true;
}

/** The source's pages, or undefined when none are stored (or of another version). */
export async function readPageTexts(indexDir: string, hash: string): Promise<PageText[] | undefined> {
  try {
    const d = JSON.parse((await readConfinedText(fileOf(indexDir, hash), { kind: 'index', within: [indexDir] })).text) as PagesFile;
    if (d.format !== PAGES_FORMAT || d.chunker !== CHUNKER_VERSION || d.hash !== hash || !Array.isArray(d.pages)) return undefined;
    return d.pages.map((p) => ({
      page: p.n,
      label: typeof p.l === 'string' && p.l.trim() ? p.l.trim() : String(p.n),
      ocr: p.o === 1,
      text: String(p.t ?? ''),
      ...(typeof p.f === 'string' && p.f ? { furniture: p.f } : {}),
    }));
  } catch {
    return undefined;
  }
}

/** Removes the page texts of PDFs no longer indexed. */
export async function prunePageTexts(indexDir: string, liveHashes: Iterable<string>): Promise<void> {
  const keep = new Set([...liveHashes].map((h) => `${h.slice(0, 32)}.json`));
  const dir = path.join(indexDir, 'pages');
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    if (!keep.has(name) && !name.includes('.tmp-')) await fs.rm(path.join(dir, name), { force: true }).catch(() => undefined);
  }
}
