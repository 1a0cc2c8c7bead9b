/**
 * Worker-thread entry (bundled as dist/citation-check-worker.js): checks a
 * draft's citations off the calling thread, so that the VS Code extension host
 * stays responsive while a 1,000-citation thesis is matched against its
 * sources. The worker keeps the last check's memo (sources loaded, verdicts by
 * citation), so a re-check after an edit judges only the citations it changed.
 */
import { parentPort } from 'node:worker_threads';
import { checkCitations, type CheckCitationsOptions, type CitationCheckResult } from './citations';
import type { IndexHealth } from '../shared/health';

export type CitationCheckRequest =
  { type: 'check'; id: number; draft: string; options: Omit<CheckCitationsOptions, 'signal' | 'onWarning'> } | { type: 'cancel'; id: number };

export type CitationCheckReply =
  | { id: number; kind: 'warning'; message: string }
  | { id: number; kind: 'done'; result: CitationCheckResult }
  /** `code` and `health`: the engine error's (index-not-ready carries the index's health). */
  | { id: number; kind: 'failed'; message: string; code?: string; health?: IndexHealth; cancelled?: boolean };

const port = parentPort;
if (port) {
  const running = new Map<number, AbortController>();
  port.on('message', (req: CitationCheckRequest) => {
    if (req.type === 'cancel') {
      running.get(req.id)?.abort();
      return;
    }
    const ac = new AbortController();
    running.set(req.id, ac);
    checkCitations(req.draft, {
      ...req.options,
      signal: ac.signal,
      onWarning: (message) => port.postMessage({ id: req.id, kind: 'warning', message } satisfies CitationCheckReply),
    })
      .then(
        (result) => port.postMessage({ id: req.id, kind: 'done', result } satisfies CitationCheckReply),
        (err: unknown) => {
          const e = err as { message?: string; code?: string; health?: IndexHealth };
          port.postMessage({
            id: req.id,
            kind: 'failed',
            message: e?.message ?? String(err),
            code: e?.code,
            health: e?.health,
            cancelled: ac.signal.aborted,
          } satisfies CitationCheckReply);
        },
      )
      .finally(() => running.delete(req.id));
  });
}
