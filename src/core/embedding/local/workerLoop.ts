/**
 * What the model workers (the local encoder's, localWorker.ts, and the reranker's,
 * rerank/crossEncoderWorker.ts) share around their model: the model's load said to the calling
 * thread when it fails, requests served one at a time (the session's threads are the machine's
 * cores already), a cancel heard between batches, and the batches themselves: longest inputs first,
 * as many as fit a token budget.
 */
import type { Encoded } from './tokenizer';

/** The messages both workers send alike. */
export type WorkerControl =
  /** `runtime`: ONNX Runtime itself failed (no binding for this platform, or one that cannot load), not the model. */
  | { type: 'load-error'; message: string; runtime?: 'missing' | 'unloadable' }
  | { type: 'error'; id: number; message: string }
  | { type: 'cancelled'; id: number };

export interface ServeOptions<Model, Req extends { id: number }> {
  /** The model, loading; a failure is posted as `load-error`. */
  ready: Promise<Model>;
  post: (m: WorkerControl) => void;
  /** Serves one request; `cancelled()` says (once) whether it was cancelled since. */
  run: (model: Model, req: Req, cancelled: () => boolean) => Promise<void>;
  /** Where a new request joins the queue (default: last). */
  enqueue?: (waiting: Req[], req: Req) => void;
}

/** Serves a worker's requests; returns the handler for its port's messages. */
export function serveRequests<Model, Req extends { id: number; type: string }>(o: ServeOptions<Model, Req>): (m: Req | { type: 'cancel'; id: number }) => void {
  const cancelled = new Set<number>();
  const waiting: Req[] = [];
  let busy = false;
  o.ready.catch((err: unknown) => {
    const runtime = (err as { runtime?: 'missing' | 'unloadable' }).runtime;
    o.post({ type: 'load-error', message: err instanceof Error ? err.message : String(err), ...(runtime ? { runtime } : {}) });
  });
  const serve = async () => {
    if (busy) return;
    busy = true;
    try {
      for (let m = waiting.shift(); m; m = waiting.shift()) {
        const id = m.id;
        try {
          await o.run(await o.ready, m, () => cancelled.delete(id));
        } catch (err) {
          o.post({ type: 'error', id, message: err instanceof Error ? err.message : String(err) });
        } finally {
          cancelled.delete(id);
        }
      }
    } finally {
      busy = false;
    }
  };
  return (m) => {
    if (m.type === 'cancel') {
      cancelled.add(m.id);
      return;
    }
    const req = m as Req;
    if (o.enqueue) o.enqueue(waiting, req);
    else waiting.push(req);
    void serve();
  };
}

/**
 * The inputs' indices in batches, longest first so each batch pads to lengths close to its own
 * (random order wastes ~1/3): as many as fit `tokenBudget` at the batch's longest length (short
 * inputs in large batches, 512-token ones in small batches that bound the session's memory), at
 * most `maxBatch`, or one at a time (`one`). Each batch is given after a turn of the event loop, so
 * that a cancel message is heard between batches.
 */
export async function* lengthBatches(inputs: Encoded[], o: { one: boolean; maxBatch: number; tokenBudget: number }): AsyncGenerator<number[]> {
  const order = inputs.map((_, i) => i).sort((a, b) => inputs[b].ids.length - inputs[a].ids.length || a - b);
  for (let start = 0; start < order.length;) {
    await new Promise<void>((r) => setImmediate(r));
    const longest = inputs[order[start]].ids.length;
    const size = o.one ? 1 : Math.max(1, Math.min(o.maxBatch, Math.floor(o.tokenBudget / longest)));
    yield order.slice(start, start + size);
    start += size;
  }
}
