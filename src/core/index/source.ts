/**
 * The source contract: what the indexer asks of a thing to index. The library
 * (library/pdfSource.ts) and the benchmark corpora (eval/beir.ts) implement it;
 * the index knows no PDF reader, bibliography or file walk, so its arrows point
 * only down (to pdf/ for the page type, to store/ for the stored record).
 */
import type { CleanPage } from '../pdf/cleanPages';
import type { SourceMetadata, SourceRecord, SourceType } from './store/manifest';

export type { SourceMetadata, SourceType };

/** One thing to index: a PDF, or a record of a benchmark corpus. */
export interface SourceInput {
  path: string;
  size: number;
  mtimeMs: number;
  sourceType: SourceType;
  /** Content hash; computed from the bytes when absent. */
  contentHash?: string;
  readBytes?(): Promise<Uint8Array>;
  /** Extracts text; throws (any error) to skip the file with that reason. */
  extract(bytes: Uint8Array | undefined): Promise<Extracted>;
  /** Metadata that can change without re-reading the file (bibliography edits). */
  refreshMeta?(old: SourceRecord): Partial<SourceRecord> | undefined;
}

/** What extraction gives the indexer. */
export interface Extracted {
  pages: CleanPage[];
  pageCount: number;
  meta: SourceMetadata;
  /** What was lost or repaired in a damaged file ("read 1 of 3 pages: damaged cross-reference table"). */
  damage?: string;
  /**
   * Pages without a usable text layer (and the sample page of those in doubt), and how to
   * recognise them: run after the text-layer files; a sample that proves its layer wrong adds
   * the other doubtful pages (onMorePages).
   */
  ocr?: {
    pages: number[];
    run(
      bytes: Uint8Array,
      ctx: OcrRunContext,
    ): Promise<{ pages: CleanPage[]; meta: SourceMetadata; ocrPages: number[]; recognised: number; fromCache: number; notes: string[] }>;
  };
}

export interface OcrRunContext {
  /** The PDF's content hash: the OCR cache key. */
  hash: string;
  /** The index folder (.similar-sources); the cache lives in its ocr/ folder. */
  indexDir: string;
  signal?: AbortSignal;
  /** Called as each page is done (recognised or taken from the cache). */
  onPage?(page: number): void;
  /** Called when more pages than `pages` are to be read (a sample proved doubtful layers wrong). */
  onMorePages?(count: number): void;
}
