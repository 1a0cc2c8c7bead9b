/**
 * Worker thread that runs a sentence-embedding model: its tokenizer and an ONNX Runtime
 * session. Bundled as dist/local-embed-worker.js; LocalProvider starts it. Model inference
 * never runs on the calling thread (the VS Code extension host must stay responsive).
 */
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { poolBatch } from './pooling';
import type { FromWorker, LocalWorkerData, ToWorker } from './protocol';
import { loadRuntime, openSession, paddedFeeds, quantizesActivations, type Ort } from './session';
import { loadTokenizer, type Encoded, type TextTokenizer } from './tokenizer';

const port = parentPort!;
const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);
const cancelled = new Set<number>();
/** Requests waiting for the session, served one at a time: urgent ones (queries) first, then in order. */
const waiting: Array<Extract<ToWorker, { type: 'embed' }>> = [];
let busy = false;
/** ONNX Runtime, loaded by load(): a build without it for this platform must say so, not crash the thread. */
let ort: typeof Ort;

async function load(data: LocalWorkerData): Promise<{ session: Ort.InferenceSession; tokenizer: TextTokenizer; dimension: number; perText: boolean }> {
  const t0 = performance.now();
  ort = await loadRuntime();
  const tokenizer = loadTokenizer(data.modelDir);
  const session = await openSession(ort, data.modelDir, data.onnxFile, data.threads, { output: 'last_hidden_state', what: 'a sentence encoder' });
  // One probe run: gives the vector length and warms the session up.
  const probe = await runBatch(session, [tokenizer.encode('probe', 16)], tokenizer.padId);
  const perText = quantizesActivations(join(data.modelDir, data.onnxFile));
  post({ type: 'ready', dimension: probe.dims[2], loadMs: Math.round(performance.now() - t0) });
  return { session, tokenizer, dimension: probe.dims[2], perText };
}

/** One padded batch through the session: last_hidden_state and the mask used. */
async function runBatch(session: Ort.InferenceSession, encoded: Encoded[], padId: number) {
  const { feeds, mask, batch, seq } = paddedFeeds(ort, session, encoded, padId);
  const out = (await session.run(feeds)).last_hidden_state;
  const dims = out.dims as number[];
  if (dims.length !== 3 || dims[0] !== batch || dims[1] !== seq)
    throw new Error(`last_hidden_state has shape [${dims.join(', ')}], expected [${batch}, ${seq}, dim]`);
  return { hidden: out.data as Float32Array, mask, dims };
}

async function embed(model: Awaited<ReturnType<typeof load>>, m: Extract<ToWorker, { type: 'embed' }>): Promise<void> {
  const encoded = m.texts.map((t) => model.tokenizer.encode(t, m.maxTokens));
  // Longest first, so each batch pads to lengths close to its own (random order wastes ~1/3).
  const order = encoded.map((_, i) => i).sort((a, b) => encoded[b].ids.length - encoded[a].ids.length || a - b);
  const dim = model.dimension;
  const data = new Float32Array(m.texts.length * dim);
  for (let start = 0; start < order.length;) {
    // Let a cancel message in between batches.
    await new Promise<void>((r) => setImmediate(r));
    if (cancelled.delete(m.id)) return post({ type: 'cancelled', id: m.id });
    // As many texts as fit the token budget at this batch's (longest) length: short passages go
    // in large batches, 512-token ones in small batches that bound the session's memory.
    const longest = encoded[order[start]].ids.length;
    const size = model.perText ? 1 : Math.max(1, Math.min(m.maxBatch, Math.floor(m.tokenBudget / longest)));
    const idx = order.slice(start, start + size);
    start += size;
    const { hidden, mask, dims } = await runBatch(
      model.session,
      idx.map((i) => encoded[i]),
      model.tokenizer.padId,
    );
    const vectors = poolBatch(hidden, mask, dims[0], dims[1], dims[2], m.pooling, m.normalize);
    idx.forEach((i, j) => data.set(vectors[j], i * dim));
  }
  cancelled.delete(m.id);
  post({ type: 'vectors', id: m.id, data, dimension: dim }, [data.buffer as ArrayBuffer]);
}

const ready = load(workerData as LocalWorkerData);
ready.catch((err: unknown) =>
  post({
    type: 'load-error',
    message: err instanceof Error ? err.message : String(err),
    ...((err as { runtime?: 'missing' | 'unloadable' }).runtime ? { runtime: (err as { runtime: 'missing' | 'unloadable' }).runtime } : {}),
  }),
);

port.on('message', (m: ToWorker) => {
  if (m.type === 'cancel') {
    cancelled.add(m.id);
    return;
  }
  // One request at a time: the session's threads are the machine's cores already.
  if (m.urgent) {
    const at = waiting.findIndex((w) => !w.urgent);
    waiting.splice(at < 0 ? waiting.length : at, 0, m);
  } else waiting.push(m);
  void serve();
});

async function serve(): Promise<void> {
  if (busy) return;
  busy = true;
  try {
    for (let m = waiting.shift(); m; m = waiting.shift()) {
      try {
        await embed(await ready, m);
      } catch (err) {
        cancelled.delete(m.id);
        post({ type: 'error', id: m.id, message: err instanceof Error ? err.message : String(err) });
      }
    }
  } finally {
    busy = false;
  }
}
