/** What an indexing run is given, and the progress it reports. */
import type { EmbeddingProvider } from '../../embedding/provider';
import type { ChunkOptions } from '../../passages/chunker';

export interface IndexProgress {
  /** 'ocr': done/total count pages to recognise across the files that need OCR. */
  phase: 'scan' | 'read' | 'embed' | 'save' | 'ocr';
  done: number;
  total: number;
  file?: string;
}

export interface IndexRunOptions {
  workspace: string;
  provider: EmbeddingProvider;
  shardCapacity?: number;
  /** Commit after this many files (default 25, and then at most every 3 s; a number given here is followed exactly). */
  commitEvery?: number;
  lockWaitMs?: number;
  /**
   * Files read and handed to `extract` ahead of the one being embedded, so a
   * PDF worker pool extracts while this thread embeds and commits (default 8),
   * as long as their bytes stay within `readAheadBytes` (default 64 MiB; the
   * next file is always read).
   */
  readAhead?: number;
  readAheadBytes?: number;
  signal?: AbortSignal;
  onProgress?: (p: IndexProgress) => void;
  onWarning?: (msg: string) => void;
  /**
   * Commit passages and their lexical terms without computing the provider's vectors:
   * a slow model (local, a server) embeds them afterwards, in the background
   * (embedPending), while the index already serves lexical results. Vectors already
   * stored for the model are kept, and carried with moved files.
   */
  deferEmbedding?: boolean;
  /**
   * Keep each source's page texts beside the index for the citation check (pageTexts.ts):
   * a library of PDFs (indexLibrary) does; a benchmark corpus (BEIR, generated inputs) need not.
   */
  keepPageTexts?: boolean;
  /**
   * Passage length and overlap other than the chunker's defaults, for measuring them on a
   * benchmark corpus in a workspace of its own (runBeirEval's `chunk`). The manifest does not
   * record them, so never for a user's library: its next run would keep these passages.
   */
  chunk?: Partial<ChunkOptions>;
}
