/**
 * Turns discovered PDFs into index inputs: extraction, cleaning and metadata
 * (Better BibTeX entry when one matches the file).
 */
import { promises as fs } from 'node:fs';
import type { SourceInput } from '../index/indexer';
import type { SourceRecord } from '../index/manifest';
import { cleanPages } from '../pdf/cleanPages';
import { extractPdf, PdfSkipError, type RawPdf } from '../pdf/extract';
import { findEntryForFile, loadBibliography, matchFile, type BibEntry } from './bibliography';
import { discoverPdfs, type LibraryConfig } from './discover';
import { resolveMetadata, type BibMatch } from './metadata';

/** PDFs larger than this are skipped with a reason rather than exhausting memory. */
const MAX_PDF_BYTES = 512 * 1024 * 1024;

export interface LibraryInputs {
  inputs: SourceInput[];
  warnings: string[];
}

export interface LibraryInputOptions {
  bibliography?: string;
  /** Where PDF text comes from: in this thread by default, or a PdfExtractPool's workers. */
  extractor?: (bytes: Uint8Array) => Promise<RawPdf>;
}

export async function libraryInputs(cfg: LibraryConfig & LibraryInputOptions): Promise<LibraryInputs> {
  const extractor = cfg.extractor ?? extractPdf;
  const { files, warnings } = await discoverPdfs(cfg);
  let bibIndex: Map<string, BibEntry> | undefined;
  if (cfg.bibliography) {
    try {
      const bib = await loadBibliography(cfg.bibliography);
      warnings.push(...bib.warnings.map((w) => `bibliography: ${w}`));
      bibIndex = matchFile(bib.entries);
    } catch (err) {
      warnings.push(`cannot read the bibliography ${cfg.bibliography}: ${(err as Error).message}`);
    }
  }
  const inputs = files.map((f): SourceInput => {
    const entry = bibIndex ? findEntryForFile(bibIndex, f.path) : undefined;
    const bib: BibMatch | undefined = entry && {
      citekey: entry.citekey,
      title: entry.title,
      authors: entry.authors,
      year: entry.year,
      collections: entry.collections,
    };
    return {
      path: f.path,
      size: f.size,
      mtimeMs: f.mtimeMs,
      sourceType: f.sourceType,
      readBytes: async () => {
        if (f.size > MAX_PDF_BYTES) throw new PdfSkipError(`file too large (${Math.round(f.size / 1048576)} MB)`, 'too-large');
        return fs.readFile(f.path);
      },
      extract: async (bytes) => {
        const raw = await extractor(bytes ?? (await fs.readFile(f.path)));
        const pages = cleanPages(raw.pages, raw.pageLabels);
        return { pages, pageCount: raw.pageCount, meta: resolveMetadata(f.path, raw, pages, bib) };
      },
      refreshMeta: (old: SourceRecord) => {
        if (!bib) return old.citekey ? { citekey: undefined, collections: [] } : undefined;
        return {
          citekey: bib.citekey,
          title: bib.title?.trim() || old.title,
          authors: bib.authors.length ? bib.authors : old.authors,
          year: bib.year ?? old.year,
          collections: bib.collections,
        };
      },
    };
  });
  return { inputs, warnings };
}
