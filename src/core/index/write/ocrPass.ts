/**
 * The OCR pass: files whose pages lack a usable text layer are set aside by the main
 * pass and recognised after every other file, so the born-digital library is committed
 * (searchable) before OCR starts; a file with some text layer is indexed by it in the
 * main pass already, its record counting the pages still to recognise (`ocrPending`,
 * what status shows, and what makes the next run read it again if this one stops).
 * Pages are recognised (OCR cache first), then each file is indexed and committed on its own.
 */
import { sha256 } from '../../util/hash';
import type { IndexRun } from './indexRun';
import { sourceId } from './sourceFile';
import { cancelled, countOutcome, type IndexReport } from './report';

export async function runOcr(run: IndexRun, report: IndexReport): Promise<void> {
  const { opts } = run;
  let total = run.deferred.reduce((n, d) => n + d.extracted.ocr!.pages.length, 0);
  report.ocr.files = run.deferred.length;
  report.ocr.pages = total;
  let done = 0;
  for (const d of run.deferred.splice(0)) {
    if (cancelled(report, opts.signal)) return;
    const { input, hash, extracted, counted } = d;
    let bytes: Uint8Array;
    try {
      bytes = input.readBytes ? await input.readBytes() : new Uint8Array();
    } catch (err) {
      const reason = `cannot read the file: ${(err as Error).message}`;
      // Indexed by its text layer already: it stays so, its OCR pending for the next run.
      if (counted) run.warn(`${input.path}: ${reason}; its text layer is indexed, OCR is left for the next run`);
      else {
        run.skip(input, reason);
        report.skipped.push({ path: input.path, reason });
      }
      continue;
    }
    if (input.readBytes && sha256(bytes) !== hash) {
      run.warn(`${input.path} changed while it was being indexed; it will be read again next time`);
      continue;
    }
    opts.onProgress?.({ phase: 'ocr', done, total, file: input.path });
    let r;
    try {
      r = await extracted.ocr!.run(bytes, {
        hash,
        indexDir: run.dir,
        signal: opts.signal,
        onPage: () => opts.onProgress?.({ phase: 'ocr', done: ++done, total, file: input.path }),
        onMorePages: (count) => {
          total += count;
          report.ocr.pages += count;
        },
      });
    } catch (err) {
      if (cancelled(report, opts.signal)) return;
      // OCR failing (a broken image, the engine unavailable) leaves the text-layer pages indexed.
      run.warn(`${input.path}: OCR failed (${(err as Error).message}); only its text layer is indexed`);
      r = undefined;
    }
    if (r) {
      report.ocr.recognised += r.recognised;
      report.ocr.fromCache += r.fromCache;
      for (const n of r.notes) run.warn(`${input.path}: OCR ${n}`);
    }
    const old = run.m.sources[sourceId(input.path)];
    const recognised = r ? { ...extracted, pages: r.pages, meta: r.meta } : extracted;
    // A file indexed by its text layer in the main pass was counted there (added or updated, damaged).
    const index = async () => {
      const o = await run.indexExtracted(input, old, hash, recognised, new Set(r?.ocrPages ?? []));
      return counted ? { skipped: o.skipped } : o;
    };
    if (!(await countOutcome(report, input.path, opts.signal, index))) return;
    await run.commit();
  }
}
