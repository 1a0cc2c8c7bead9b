/**
 * A run's change plan, from the manifest and the library's files: which sources are
 * unchanged (their metadata refreshed), which are gone (kept aside by content hash in
 * case they only moved), which were skipped before and have not changed since, and
 * which must be read.
 */
import type { SourceInput } from '../source';
import type { SourceRecord } from '../store/manifest';
import { READER_VERSION } from '../store/versions';
import type { IndexRun } from './indexRun';
import type { Gone } from './sourceFile';
import type { IndexReport } from './report';

export interface ChangePlan {
  /** The index's sources by path, as the run found them. */
  byPath: Map<string, SourceRecord>;
  /** Sources no longer in the library, by content hash: a file with the same hash moved. */
  gone: Map<string, Gone>;
  /** The files to read, in the library's order. */
  todo: SourceInput[];
}

/** Detaches the gone sources from the run, counts the unchanged and still-skipped files in `report`. */
export async function planChanges(run: IndexRun, inputs: SourceInput[], report: IndexReport): Promise<ChangePlan> {
  const m = run.m;
  const byPath = new Map<string, SourceRecord>();
  for (const s of Object.values(m.sources)) byPath.set(s.path, s);
  const seen = new Set(inputs.map((i) => i.path));

  // Sources gone from the library; kept aside by hash in case they only moved.
  const gone = new Map<string, Gone>();
  for (const s of Object.values(m.sources)) {
    if (!seen.has(s.path)) gone.set(s.contentHash, await run.takeAside(s));
  }
  for (const p of Object.keys(m.skipped)) if (!seen.has(p)) delete m.skipped[p];

  const todo: SourceInput[] = [];
  for (const input of inputs) {
    const old = byPath.get(input.path);
    // A file whose OCR a stopped run left undone is read again (its recognised pages come from the OCR cache).
    if (old && !old.ocrPending && old.size === input.size && old.mtimeMs === input.mtimeMs && (!input.contentHash || input.contentHash === old.contentHash)) {
      run.refresh(old, input);
      report.unchanged++;
      continue;
    }
    const skip = m.skipped[input.path];
    if (!old && skip && skip.size === input.size && skip.mtimeMs === input.mtimeMs && skip.reader === READER_VERSION) {
      report.skipped.push({ path: input.path, reason: `${skip.reason} (unchanged since the last attempt)` });
      continue;
    }
    todo.push(input);
  }
  return { byPath, gone, todo };
}
