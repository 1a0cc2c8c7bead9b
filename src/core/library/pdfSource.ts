/**
 * Turns discovered PDFs into index inputs: extraction, cleaning and metadata
 * (Better BibTeX entry when one matches the file).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { OcrRunContext, SourceInput, SourceType } from '../index/source';
import type { SourceRecord } from '../index/store/manifest';
import { OcrCache } from '../ocr/ocrCache';
import { OcrPool } from '../ocr/ocrPool';
import { pageImages, type PageImage } from '../pdf/pageImages';
import { cleanPages } from '../pdf/cleanPages';
import { extractPdf, PdfSkipError, type RawPdf } from '../pdf/extract';
import { firstOcrPages, pagesWithOcr, sampleVerdict } from '../pdf/ocrPlan';
import { findEntryForFile, loadBibliography, matchFile, type BibEntry } from './bibliography';
import { discoverPdfs, type DiscoveredFile, type LibraryConfig } from './discover';
import { resolveMetadata, type BibMatch } from './metadata';
import { zoteroMeta } from '../../shared/results';
import { FILE_KINDS, isFileRefused, readConfined, type FileRule } from '../util/confinedFiles';

/** PDFs larger than this are skipped with a reason rather than exhausting memory. */
const MAX_PDF_BYTES = FILE_KINDS.pdf.maxBytes;

export interface LibraryInputs {
  inputs: SourceInput[];
  warnings: string[];
  /** Stops the OCR workers libraryInputs started (when no `ocrEngine` was given). */
  dispose(): Promise<void>;
}

/** Pages handed to the page imager at once: bounds the memory of page images (~9 MB each at 300 dpi). */
const OCR_BATCH = 4;

export interface LibraryInputOptions {
  bibliography?: string;
  /** Where PDF text comes from: in this thread by default, or a PdfExtractPool's workers. */
  extractor?: (bytes: Uint8Array) => Promise<RawPdf>;
  /** OCR of pages without a usable text layer: 'auto' (default) or 'off' (such files are skipped as before). */
  ocr?: 'auto' | 'off';
  /** Tesseract languages, e.g. "eng+fra" (default). */
  ocrLanguages?: string | string[];
  /** A folder with extra .traineddata files (other languages). */
  ocrLanguageDir?: string;
  /** The OCR workers to use (shared across runs); by default a pool is started on the first scanned page. */
  ocrEngine?: OcrPool;
  /** Where the bibliography's parse is kept between runs (the index folder); none: parsed in each process. */
  bibliographyCacheDir?: string;
  /** Where page images come from: in this thread by default, or a PdfExtractPool's workers. */
  pageImager?: (bytes: Uint8Array, pages: number[]) => Promise<PageImage[]>;
  /**
   * Files from elsewhere than the library folders (a Zotero library's PDF attachments), with their
   * metadata; a file also found in a folder is indexed once, with this metadata.
   */
  extraFiles?: ExtraFile[];
}

export interface ExtraFile {
  path: string;
  bib: BibMatch;
  sourceType: SourceType;
  /** Folders it must lie in once links are followed (a Zotero stored file: its storage folder); absent: anywhere (a linked file). */
  within?: string[];
}

export async function libraryInputs(cfg: LibraryConfig & LibraryInputOptions): Promise<LibraryInputs> {
  const extractor = cfg.extractor ?? extractPdf;
  const imager = cfg.pageImager ?? ((bytes: Uint8Array, pages: number[]) => pageImages(bytes, pages));
  const ocrOn = (cfg.ocr ?? 'auto') !== 'off';
  // Fails now (bad language code, missing trained data), not halfway through the library.
  const ownEngine = ocrOn && !cfg.ocrEngine ? new OcrPool({ languages: languagesOf(cfg.ocrLanguages), extraLanguageDir: cfg.ocrLanguageDir }) : undefined;
  ownEngine?.check();
  const engine = ocrOn ? (cfg.ocrEngine ?? ownEngine) : undefined;
  const found = await discoverPdfs(cfg);
  const { warnings } = found;
  const extra = await statExtraFiles(cfg.extraFiles ?? [], warnings);
  const extraPaths = new Set(extra.map((f) => f.path));
  // A PDF found under the library folders is read only there (discovery follows no link out of them).
  const libraryRule: FileRule = { kind: 'pdf', within: cfg.folders.map((f) => path.resolve(cfg.baseDir ?? process.cwd(), f)), rootName: 'the library folders' };
  const files: (Omit<DiscoveredFile, 'root' | 'rel'> & { bib?: BibMatch; rule?: FileRule })[] = [
    ...found.files.filter((f) => !extraPaths.has(f.path)),
    ...extra,
  ];
  const readPdf = async (f: (typeof files)[number]): Promise<Uint8Array> => {
    try {
      return (await readConfined(f.path, f.rule ?? libraryRule)).bytes;
    } catch (e) {
      if (!isFileRefused(e)) throw e;
      throw new PdfSkipError(`it ${e.reason}`, e.code === 'too-large' ? 'too-large' : 'unreadable');
    }
  };
  let bibIndex: Map<string, BibEntry> | undefined;
  if (cfg.bibliography) {
    try {
      const bib = await loadBibliography(cfg.bibliography, { cacheDir: cfg.bibliographyCacheDir });
      warnings.push(...bib.warnings.map((w) => `bibliography: ${w}`));
      bibIndex = matchFile(bib.entries);
    } catch (err) {
      warnings.push(`cannot read the bibliography ${cfg.bibliography}: ${(err as Error).message}`);
    }
  }
  const inputs = files.map((f): SourceInput => {
    const entry = bibIndex && !f.bib ? findEntryForFile(bibIndex, f.path) : undefined;
    const bib: BibMatch | undefined =
      f.bib ??
      (entry && {
        citekey: entry.citekey,
        title: entry.title,
        authors: entry.authors,
        year: entry.year,
        collections: entry.collections,
      });
    return {
      path: f.path,
      size: f.size,
      mtimeMs: f.mtimeMs,
      sourceType: f.sourceType,
      readBytes: async () => {
        if (f.size > MAX_PDF_BYTES) throw new PdfSkipError(`file too large (${Math.round(f.size / 1048576)} MB)`, 'too-large');
        return readPdf(f);
      },
      extract: async (bytes) => {
        const raw = await extractor(bytes ?? (await readPdf(f)));
        // Until OCR has read them (or with OCR off), the pages keep whatever text layer they have,
        // set-aside layers included, as before OCR existed.
        const pages = cleanPages(pagesWithOcr(raw, () => undefined).texts, raw.pageLabels);
        const meta = resolveMetadata(f.path, raw, pages, bib);
        const first = firstOcrPages(raw);
        if (!engine || first.length === 0) return { pages, pageCount: raw.pageCount, meta, damage: raw.damage };
        const ocrEngine = engine;
        return {
          pages,
          pageCount: raw.pageCount,
          meta,
          damage: raw.damage,
          ocr: {
            pages: first,
            run: (data: Uint8Array, ctx: OcrRunContext) =>
              recognisePages(raw, data, ocrEngine, imager, ctx).then((r) => {
                const done = cleanPages(r.texts, raw.pageLabels);
                return { ...r, pages: done, meta: resolveMetadata(f.path, raw, done, bib) };
              }),
          },
        };
      },
      refreshMeta: (old: SourceRecord) => {
        if (!bib) return old.citekey ? { citekey: undefined, collections: [], doi: undefined, itemType: undefined, tags: undefined } : undefined;
        const z = zoteroMeta(bib);
        return {
          citekey: bib.citekey,
          title: bib.title?.trim() || old.title,
          authors: bib.authors.length ? bib.authors : old.authors,
          year: bib.year ?? old.year,
          collections: bib.collections,
          // Set or cleared with the item (a DOI removed in Zotero goes from the card).
          doi: z.doi,
          itemType: z.itemType,
          tags: z.tags,
        };
      },
    };
  });
  return { inputs, warnings, dispose: async () => ownEngine?.close() };
}

/** The extra files that exist, with their size and time; those that do not are said, each by name. */
async function statExtraFiles(extra: ExtraFile[], warnings: string[]): Promise<(Omit<DiscoveredFile, 'root' | 'rel'> & { bib: BibMatch; rule: FileRule })[]> {
  const out = await Promise.all(
    extra.map(async (f) => {
      const st = await fs.stat(f.path).catch(() => undefined);
      if (!st?.isFile()) {
        warnings.push(`file not found: ${f.path} (${f.bib.citekey})`);
        return undefined;
      }
      const rule: FileRule = f.within ? { kind: 'pdf', within: f.within, rootName: "Zotero's storage folder" } : { kind: 'pdf' };
      return { path: f.path, size: st.size, mtimeMs: st.mtimeMs, sourceType: f.sourceType, bib: f.bib, rule };
    }),
  );
  return out.filter((f) => f !== undefined);
}

function languagesOf(spec: string | string[] | undefined): string[] | undefined {
  if (spec === undefined) return undefined;
  return Array.isArray(spec) ? spec : spec.split(/[+,\s]+/).filter(Boolean);
}

/**
 * OCR of a file's pages (pdf/ocrPlan.ts): its candidates, then the sample of its doubtful pages
 * and, when OCR proves the sample's layer wrong, the other doubtful pages, each of which keeps
 * its layer if its own reading proves that right. Cached pages are taken
 * from the cache, the others imaged (a few at a time) and recognised by the pool, each written to
 * the cache as soon as it is done.
 */
async function recognisePages(
  raw: RawPdf,
  data: Uint8Array,
  engine: OcrPool,
  imager: (b: Uint8Array, p: number[]) => Promise<PageImage[]>,
  ctx: OcrRunContext,
) {
  const cache = await OcrCache.open(ctx.indexDir, ctx.hash, engine.languages);
  // What OCR read of each page ('' nothing); a page it failed on is left out and keeps its layer.
  const read = new Map<number, string>();
  const notes: string[] = [];
  let recognised = 0;
  let fromCache = 0;
  const recognise = async (pages: number[]) => {
    const todo: number[] = [];
    for (const n of pages) {
      const hit = cache.get(n);
      if (hit) {
        read.set(n, hit.text);
        fromCache++;
        ctx.onPage?.(n);
      } else todo.push(n);
    }
    for (let i = 0; i < todo.length; i += OCR_BATCH) {
      if (ctx.signal?.aborted) throw abortError();
      const images = await imager(data, todo.slice(i, i + OCR_BATCH));
      await Promise.all(
        images.map(async (img) => {
          if (!img.image) {
            // Nothing to recognise (a blank page, vector drawing only, no canvas to render a
            // garbage-layer page): remembered, never tried again; the page keeps its own layer.
            if (img.note && img.note !== 'no image on the page') notes.push(`page ${img.page}: ${img.note}; its text layer is kept`);
            await cache.put(img.page, { text: '', note: img.note });
            read.set(img.page, '');
            ctx.onPage?.(img.page);
            return;
          }
          let r;
          try {
            r = await engine.recognise(img.image, ctx.signal);
          } catch (err) {
            if (ctx.signal?.aborted) throw err;
            // One page the engine cannot read (a worker crash on a broken image) costs only itself;
            // not cached, so it is tried again when the file is next indexed.
            notes.push(`page ${img.page}: recognition failed (${(err as Error).message}); its text layer is kept`);
            ctx.onPage?.(img.page);
            return;
          }
          recognised++;
          await cache.put(img.page, { text: r.text, confidence: Math.round(r.confidence), how: img.how });
          read.set(img.page, r.text);
          ctx.onPage?.(img.page);
        }),
      );
    }
  };
  await recognise(firstOcrPages(raw));
  const verdict = sampleVerdict(raw, (n) => read.get(n));
  if (verdict.wrong) {
    const rest = (raw.ocrDoubtful ?? []).filter((n) => n !== raw.ocrSample);
    const all = rest.length + 1;
    // Said when a layer that looked right is replaced: the user sees why OCR ran on a text PDF.
    if (!verdict.garbageByRule)
      notes.push(
        `page ${raw.ocrSample}: the text layer holds ${Math.round(verdict.agreement * 100)}% of the ${verdict.words} words OCR reads there; it is wrong, and ${all === 1 ? 'that page is' : `the ${all} pages whose layer was in doubt are`} read by OCR`,
      );
    ctx.onMorePages?.(rest.length);
    await recognise(rest);
  }
  const { texts, ocr } = pagesWithOcr(raw, (n) => read.get(n), verdict.wrong);
  return { texts, ocrPages: [...ocr].sort((a, b) => a - b), recognised, fromCache, notes };
}

function abortError(): Error {
  const e = new Error('OCR cancelled');
  e.name = 'AbortError';
  return e;
}
