/**
 * Warming a loaded index's search code, as Lucene warms a new searcher, but for V8: the first
 * analysis in a process runs code V8 has not optimised yet, ~15% slower than the next
 * (BENCHMARKS.md, "Large libraries"). Analysing a few of the library's own passages once, in
 * the background, lets the user's first analysis run at the speed of later ones.
 */
import { analyze } from './analysis';
import { coreIndex, type SearchIndex } from './search';

/**
 * Passages analysed, spread evenly over the library. Measured at 100k passages: 16 take ~0.27 s
 * and leave the next analysis of 100 paragraphs within noise of a warm one (it was ~0.13 s slower).
 */
export const WARM_UP_PASSAGES = 16;

/** A draft of `n` of the library's passages, one paragraph each, spread evenly over its rows. */
export function warmUpDraft(index: SearchIndex, n = WARM_UP_PASSAGES): string {
  const core = coreIndex(index);
  const count = Math.min(n, core.size);
  const paragraphs = Array.from({ length: count }, (_, i) =>
    core
      .passage(Math.floor((i * core.size) / count))
      .text.replace(/\s+/g, ' ')
      .trim(),
  );
  return `# Warm-up\n\n${paragraphs.filter(Boolean).join('\n\n')}\n`;
}

/** Analyses warmUpDraft as a host's analysis would (no cache written, no reranker asked); `signal` stops it. */
export async function warmUp(index: SearchIndex, workspace: string, opts: { segmentInWorker?: boolean; signal?: AbortSignal } = {}): Promise<void> {
  await analyze(
    warmUpDraft(index),
    { useReranking: false },
    { workspace, documentPath: '(warm-up)', index, cache: false, segmentInWorker: opts.segmentInWorker, signal: opts.signal },
  );
}
