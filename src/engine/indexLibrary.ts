/**
 * The one indexing workflow, for the CLI and the extension alike: find the
 * library's PDFs (with its bibliography), read them in worker threads while this
 * thread embeds, recognise scanned pages (OCR, after the born-digital files), and
 * commit the index incrementally. A rebuild removes the index first (under the
 * writer lock).
 */
import type { EmbeddingProvider } from '../core/embedding/provider';
import { updateIndex, type IndexProgress, type IndexReport } from '../core/index/write/indexer';
import { removeIndex } from '../core/index/store/maintenance';
import { indexDir } from '../core/index/store/manifest';
import { libraryInputs } from '../core/library/pdfSource';
import { PdfExtractPool, type ReadBudget } from '../core/pdf/extractPool';
import { loadBibliography } from '../core/library/bibliography';
import type { ExtraFile } from '../core/library/pdfSource';
import { removeZoteroEntries, writeZoteroEntries } from '../core/zotero/entriesFile';
import { loadZoteroLibrary } from '../core/zotero/library';
import { highlightsForIndex } from '../core/zotero/highlights';
import type { ZoteroAnnotation } from '../core/zotero/model';
import type { LibrarySpec } from './library';

export interface IndexLibraryOptions {
  library: LibrarySpec;
  provider: EmbeddingProvider;
  /** PDF worker threads: default one fewer than the cores (1–4); 0: one worker reading one file at a time (still under the read budget). */
  jobs?: number;
  /** Start from an empty index (the analysis cache is kept: its keys stop matching). */
  rebuild?: boolean;
  /** Wall time each PDF may take to read in the workers (default DEFAULT_READ_BUDGET: 30 s + 0.5 s a page, at most 180 s). */
  readBudget?: Partial<ReadBudget>;
  /** Where the bundle and its PDF worker file lie; without one (running from sources), PDFs are read in this thread. */
  workerDir?: string;
  /**
   * Commit the passages and their lexical terms without the provider's vectors, which
   * `embedPending` computes afterwards (see embedsInBackground): the library serves
   * lexical results minutes or hours before a neural model has read it all.
   */
  deferEmbedding?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: IndexProgress) => void;
  /** Each warning as it comes (a library folder not found, a bibliography entry, a damaged shard…); all are also in the report. */
  onWarning?: (w: string) => void;
}

export interface LibraryIndexReport extends IndexReport {
  /** The PDFs found in the library (indexed, unchanged or skipped), in discovery order. */
  files: string[];
}

export async function indexLibrary(o: IndexLibraryOptions): Promise<LibraryIndexReport> {
  const { library } = o;
  // Workers start now, so loading pdf.js in them overlaps discovery and the manifest read.
  const pool = PdfExtractPool.beside(o.workerDir, o.jobs, o.readBudget);
  // A cancel stops the PDF workers at once, whatever they are reading (the run keeps what is done).
  const stopPool = () => void pool?.close();
  o.signal?.addEventListener('abort', stopPool, { once: true });
  try {
    if (o.rebuild) await removeIndex(library.workspace);
    const zotero = await zoteroFiles(library, o.signal);
    const { inputs, warnings, dispose } = await libraryInputs({
      extractor: pool && ((bytes) => pool.extract(bytes)),
      // Page images for OCR are made in the PDF workers too, never on the calling thread.
      pageImager: pool && ((bytes, pages) => pool.pageImages(bytes, pages)),
      ocr: library.ocr.mode,
      ocrLanguages: library.ocr.languages,
      ocrLanguageDir: library.ocr.languageDir,
      // Zotero joins the folders set; without any, it is the library (the workspace is not searched).
      folders: zotero.used && !library.fromSettings ? [] : library.folders,
      extraFiles: zotero.files,
      include: library.include,
      exclude: library.exclude,
      primary: library.primary,
      baseDir: library.workspace,
      bibliography: library.bibliography,
      // A large export takes the parser seconds: its parse is kept in the index folder.
      bibliographyCacheDir: indexDir(library.workspace),
    });
    warnings.unshift(...zotero.warnings);
    for (const w of warnings) o.onWarning?.(w);
    o.onProgress?.({ phase: 'scan', done: inputs.length, total: inputs.length });
    const report = await updateIndex(inputs, {
      workspace: library.workspace,
      provider: o.provider,
      deferEmbedding: o.deferEmbedding,
      // The citation check reads each PDF's pages (core/index/store/pageTexts.ts).
      keepPageTexts: true,
      signal: o.signal,
      onProgress: o.onProgress,
      onWarning: o.onWarning,
    }).finally(dispose);
    report.warnings.unshift(...warnings);
    // Zotero's highlights, matched to the passages just indexed (the sidecar the search reads).
    if (zotero.highlights && !report.cancelled) {
      const h = await highlightsForIndex(library.workspace, zotero.highlights.annotations, zotero.highlights.pathByKey);
      if (h.dropped)
        o.onWarning?.(
          `Zotero: ${h.dropped} of ${h.highlights} highlights were not found in their PDF's text (a scanned page, or a PDF changed since): they are not shown on cards.`,
        );
    }
    return { ...report, files: inputs.map((i) => i.path) };
  } finally {
    o.signal?.removeEventListener('abort', stopPool);
    await pool?.close();
  }
}

/**
 * The PDF attachments of the Zotero library, when the settings read it: each with its item's
 * metadata, primary when one of its collections or tags is named among the primary sources.
 */
async function zoteroFiles(
  library: LibrarySpec,
  signal?: AbortSignal,
): Promise<{ files: ExtraFile[]; warnings: string[]; used: boolean; highlights?: { annotations: ZoteroAnnotation[]; pathByKey: Map<string, string> } }> {
  const dir = indexDir(library.workspace);
  if (!library.zotero) {
    await removeZoteroEntries(dir);
    return { files: [], warnings: [], used: false };
  }
  // Items without Zotero's own citation key take the export's, when the settings name one.
  const exportEntries = library.bibliography
    ? await loadBibliography(library.bibliography, { cacheDir: dir }).then(
        (b) => b.entries,
        () => undefined,
      )
    : undefined;
  const { loaded, warnings } = await loadZoteroLibrary(library.zotero, { citekeys: { exportEntries }, signal });
  if (!loaded) {
    // No Zotero here (auto): its old entries go; Zotero unreadable for now: they stay until it is read again.
    if (!warnings.length) await removeZoteroEntries(dir);
    return { files: [], warnings, used: false };
  }
  // Items without a PDF too: the citation check and completion know their keys.
  await writeZoteroEntries(dir, loaded.content.entries, loaded.location.dataDir);
  const primary = new Set(library.primary.map((p) => p.toLowerCase()));
  const files = loaded.content.files.map((f): ExtraFile => ({
    path: f.path,
    bib: f.bib,
    sourceType: [...f.bib.collections, ...f.tags].some((c) => primary.has(c.toLowerCase())) ? 'primary' : 'secondary',
    within: f.within,
  }));
  const pathByKey = new Map<string, string>();
  for (const item of loaded.snapshot.items) for (const a of item.attachments) if (a.path && !a.missing) pathByKey.set(a.key, a.path);
  return { files, warnings, used: true, highlights: { annotations: loaded.snapshot.annotations, pathByKey } };
}
