/**
 * Builds or updates the workspace index incrementally. Unchanged files (same
 * size and mtime, or same content hash) are not re-read; removed ones are
 * dropped; changed ones replaced; a moved file keeps its passages and vectors.
 * Work is committed every few sources so a cancelled or crashed run resumes
 * where it stopped. One writer at a time (store/lock.ts).
 *
 * The pipeline: the change plan (changePlan.ts), the main pass below (files read
 * ahead, readAhead.ts, indexed in order by the run, indexRun.ts), the OCR pass
 * (ocrPass.ts), vectors for every shard, the last commit and the garbage.
 */
import { prunePageTexts } from '../store/pageTexts';
import type { SourceInput } from '../source';
import { acquireLock } from '../store/lock';
import { indexDir, liveFiles } from '../store/manifest';
import { collectGarbage } from '../store/shards';
import { planChanges } from './changePlan';
import { IndexRun } from './indexRun';
import { runOcr } from './ocrPass';
import { readAndExtract } from './sourceFile';
import type { IndexRunOptions } from './options';
import { abortPromise, delay, ReadAhead } from './readAhead';
import { cancelled, countOutcome, emptyReport, type IndexReport } from './report';

export type { IndexProgress, IndexRunOptions } from './options';
export type { IndexReport } from './report';

/** A file being read for this long lets the files behind it that are ready be indexed first. */
const OVERTAKE_MS = 2_000;
/** Work done and not yet committed is committed after waiting this long for the next file. */
const COMMIT_WHEN_IDLE_MS = 1_000;
/**
 * With the default commitEvery, commits come at most this often: each rewrites the shard being
 * filled and the manifest and syncs them, which on a library of 10,000 one-page PDFs took
 * three quarters of the run when done every 25 files. A crash loses at most this much work.
 */
const MIN_COMMIT_INTERVAL_MS = 3_000;

export async function updateIndex(inputs: SourceInput[], opts: IndexRunOptions): Promise<IndexReport> {
  const started = Date.now();
  const dir = indexDir(opts.workspace);
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    opts.onWarning?.(m);
  };
  const release = await acquireLock(dir, {
    waitMs: opts.lockWaitMs,
    what: 'indexing',
    onWait: (holder) => warn(`waiting for another process to finish updating the index (${holder})`),
  });
  try {
    const run = new IndexRun(dir, opts, warn);
    await run.open();
    return await execute(run, inputs, started, warnings);
  } finally {
    await release();
  }
}

async function execute(run: IndexRun, inputs: SourceInput[], started: number, warnings: string[]): Promise<IndexReport> {
  const { opts } = run;
  const report = emptyReport(warnings);
  const { byPath, gone, todo } = await planChanges(run, inputs, report);

  const commitEvery = opts.commitEvery ?? 25;
  const minInterval = opts.commitEvery === undefined ? MIN_COMMIT_INTERVAL_MS : 0;
  let lastCommit = Date.now();
  // Far enough ahead that the extraction workers keep going through a commit (measured on 100
  // PDFs: 2 files ahead ×0.87 of bare pdf-parse, 6 ahead ×0.92), bounded in bytes for large PDFs.
  const ahead = new ReadAhead(todo, Math.max(0, opts.readAhead ?? 8), opts.readAheadBytes ?? 64 * 1024 * 1024, (input) =>
    readAndExtract(input, byPath.get(input.path), gone),
  );
  const { pending } = ahead;
  const aborted = abortPromise(opts.signal);
  let sinceCommit = 0;
  let done = 0;
  let announced = -1;
  try {
    while (done < todo.length) {
      if (cancelled(report, opts.signal)) break;
      // Files are indexed in order; one that has been read for longer than OVERTAKE_MS lets the
      // files behind it that are ready go first, so a slow or hostile file holds back no other
      // (and the work done meanwhile is committed, below).
      const head = ahead.head();
      if (announced !== head) {
        announced = head;
        opts.onProgress?.({ phase: 'read', done, total: todo.length, file: todo[head].path });
      }
      ahead.fill();
      const h = pending.get(head)!;
      let pick: number | undefined = h.settled ? head : undefined;
      const overtake = Date.now() - h.since >= OVERTAKE_MS;
      if (pick === undefined && overtake) pick = [...pending.keys()].sort((a, b) => a - b).find((j) => pending.get(j)!.settled);
      if (pick === undefined) {
        // Nothing to index yet: wait for a file, the cancel, or the moment to commit what is done.
        const waits: Array<Promise<unknown>> = [h.ready, aborted.promise];
        const overtakeDue = overtake ? undefined : delay(h.since + OVERTAKE_MS - Date.now());
        if (overtakeDue) waits.push(overtakeDue.promise);
        else waits.push(...[...pending.values()].map((e) => e.ready));
        const commitDue = sinceCommit > 0 ? delay(COMMIT_WHEN_IDLE_MS) : undefined;
        if (commitDue) waits.push(commitDue.promise.then(() => 'commit'));
        const why = await Promise.race(waits).finally(() => {
          overtakeDue?.cancel();
          commitDue?.cancel();
        });
        if (why === 'commit' && !opts.signal?.aborted) {
          await run.commit();
          sinceCommit = 0;
          lastCommit = Date.now();
        }
        continue;
      }
      const input = todo[pick];
      const pre = await pending.get(pick)!.early;
      pending.delete(pick);
      if (pick !== head) opts.onProgress?.({ phase: 'read', done, total: todo.length, file: input.path });
      done++;
      if (!(await countOutcome(report, input.path, opts.signal, () => run.indexOne(input, byPath.get(input.path), gone, pre)))) break;
      if (++sinceCommit >= commitEvery && Date.now() - lastCommit >= minInterval) {
        await run.commit();
        sinceCommit = 0;
        lastCommit = Date.now();
      }
    }
  } finally {
    aborted.dispose();
  }
  // Scanned pages last: the born-digital library is committed (searchable) before OCR starts.
  if (!report.cancelled && run.deferred.length) {
    await run.commit();
    await runOcr(run, report);
  }
  report.removed = [...gone.values()].length;
  if (!report.cancelled && !opts.deferEmbedding) await run.syncVectors(report);
  await run.commit();
  await collectGarbage(run.dir, liveFiles(run.m));
  if (!report.cancelled && opts.keepPageTexts)
    await prunePageTexts(
      run.dir,
      Object.values(run.m.sources).map((s) => s.contentHash),
    );
  opts.onProgress?.({ phase: 'save', done: 1, total: 1 });

  const sources = Object.values(run.m.sources);
  report.sources = sources.length;
  report.passages = sources.reduce((n, s) => n + s.passages, 0);
  report.embedded = run.embedded;
  report.fingerprint = run.m.fingerprint;
  report.ms = Date.now() - started;
  return report;
}
