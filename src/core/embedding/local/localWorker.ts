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
import { lengthBatches, serveRequests } from './workerLoop';

const port = parentPort!;
const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);
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

async function embed(model: Awaited<ReturnType<typeof load>>, m: Extract<ToWorker, { type: 'embed' }>, cancelled: () => boolean): Promise<void> {
  const encoded = m.texts.map((t) => model.tokenizer.encode(t, m.maxTokens));
  const dim = model.dimension;
  const data = new Float32Array(m.texts.length * dim);
  for await (const idx of lengthBatches(encoded, { one: model.perText, maxBatch: m.maxBatch, tokenBudget: m.tokenBudget })) {
    if (cancelled()) return post({ type: 'cancelled', id: m.id });
    const { hidden, mask, dims } = await runBatch(
      model.session,
      idx.map((i) => encoded[i]),
      model.tokenizer.padId,
    );
    const vectors = poolBatch(hidden, mask, dims[0], dims[1], dims[2], m.pooling, m.normalize);
    idx.forEach((i, j) => data.set(vectors[j], i * dim));
  }
  post({ type: 'vectors', id: m.id, data, dimension: dim }, [data.buffer as ArrayBuffer]);
}

port.on(
  'message',
  serveRequests({
    ready: load(workerData as LocalWorkerData),
    post,
    run: embed,
    // Urgent requests (queries) first, then in order: background embedding must not delay a search.
    enqueue: (waiting, m: Extract<ToWorker, { type: 'embed' }>) => {
      if (!m.urgent) return void waiting.push(m);
      const at = waiting.findIndex((w) => !w.urgent);
      waiting.splice(at < 0 ? waiting.length : at, 0, m);
    },
  }),
);
