/**
 * An indexing run's report, and the one place where a file's outcome and a cancel
 * are counted in it (the main pass and the OCR pass index files the same way).
 */

export interface IndexReport {
  sources: number;
  passages: number;
  added: number;
  updated: number;
  moved: number;
  removed: number;
  unchanged: number;
  embedded: number;
  skipped: Array<{ path: string; reason: string }>;
  /** Files indexed with what could be read: what was lost (also in `warnings`). */
  damaged: Array<{ path: string; problem: string }>;
  /** OCR in this run: files and pages that needed it, pages recognised now and taken from the cache. */
  ocr: { files: number; pages: number; recognised: number; fromCache: number };
  warnings: string[];
  fingerprint: string;
  cancelled: boolean;
  ms: number;
}

export function emptyReport(warnings: string[]): IndexReport {
  return {
    sources: 0,
    passages: 0,
    added: 0,
    updated: 0,
    moved: 0,
    removed: 0,
    unchanged: 0,
    embedded: 0,
    skipped: [],
    damaged: [],
    ocr: { files: 0, pages: 0, recognised: 0, fromCache: 0 },
    warnings,
    fingerprint: '',
    cancelled: false,
    ms: 0,
  };
}

/** What indexing one file came to: nothing to count (deferred to OCR), a kind of change, or a skip. */
export interface FileOutcome {
  kind?: 'added' | 'updated' | 'moved' | 'unchanged';
  skipped?: string;
  damage?: string;
}

/** Marks the run cancelled when `signal` has aborted; true then. */
export function cancelled(report: IndexReport, signal: AbortSignal | undefined): boolean {
  if (!signal?.aborted) return false;
  report.cancelled = true;
  return true;
}

/**
 * Indexes one file (`work`) and counts its outcome. False when a cancel stopped it:
 * everything committed so far is kept, the half-done file is dropped.
 */
export async function countOutcome(report: IndexReport, path: string, signal: AbortSignal | undefined, work: () => Promise<FileOutcome>): Promise<boolean> {
  let outcome: FileOutcome;
  try {
    outcome = await work();
  } catch (err) {
    if (cancelled(report, signal)) return false;
    throw err;
  }
  if (outcome.skipped) report.skipped.push({ path, reason: outcome.skipped });
  else if (outcome.kind) report[outcome.kind]++;
  if (outcome.damage) report.damaged.push({ path, problem: outcome.damage });
  return true;
}
