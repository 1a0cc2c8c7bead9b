/**
 * Worker thread that runs a cross-encoder (a reranker): the pair "query, passage" through one
 * model, one relevance score out. Bundled as dist/cross-encoder-worker.js; CrossEncoder starts it.
 * Inference never runs on the calling thread (the VS Code extension host must stay responsive).
 */
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { loadRuntime, openSession, paddedFeeds, quantizesActivations, type Ort } from '../embedding/local/session';
import { loadTokenizer, type TextTokenizer } from '../embedding/local/tokenizer';
import { lengthBatches, serveRequests } from '../embedding/local/workerLoop';
import type { CrossEncoderWorkerData, FromCrossEncoder, ToCrossEncoder } from './protocol';

const port = parentPort!;
const post = (m: FromCrossEncoder, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);
let ort: typeof Ort;

interface Model {
  session: Ort.InferenceSession;
  tokenizer: TextTokenizer;
  /** Run one pair at a time: the graph quantizes its activations over the whole batch (see quantizesActivations). */
  perPair: boolean;
}

async function load(data: CrossEncoderWorkerData): Promise<Model> {
  const t0 = performance.now();
  ort = await loadRuntime();
  const tokenizer = loadTokenizer(data.modelDir);
  const session = await openSession(ort, data.modelDir, data.onnxFile, data.threads, { output: 'logits', what: 'a cross-encoder (a sequence classifier)' });
  const model = { session, tokenizer, perPair: quantizesActivations(join(data.modelDir, data.onnxFile)) };
  // One probe run: checks the output's shape and warms the session up.
  await run(model, [tokenizer.encodePair('probe', 'probe', 16)]);
  post({ type: 'ready', loadMs: Math.round(performance.now() - t0) });
  return model;
}

/**
 * Relevance per pair from the `logits` output: [batch, 1] (ms-marco and bge rerankers: one logit),
 * [batch] alike, or [batch, 2] (a two-class head: the second class's logit over the first's).
 */
async function run(model: Model, pairs: ReturnType<TextTokenizer['encodePair']>[]): Promise<Float32Array> {
  const { feeds, batch } = paddedFeeds(ort, model.session, pairs, model.tokenizer.padId);
  const out = (await model.session.run(feeds)).logits;
  const dims = out.dims as number[];
  const data = out.data as Float32Array;
  const per = dims.length === 1 ? 1 : dims.length === 2 ? dims[1] : -1;
  if (dims[0] !== batch || (per !== 1 && per !== 2))
    throw new Error(`logits has shape [${dims.join(', ')}], expected [${batch}, 1] or [${batch}, 2]: not a reranker's head`);
  const scores = new Float32Array(batch);
  for (let b = 0; b < batch; b++) scores[b] = per === 1 ? data[b] : data[2 * b + 1] - data[2 * b];
  return scores;
}

async function score(model: Model, m: Extract<ToCrossEncoder, { type: 'score' }>, cancelled: () => boolean): Promise<void> {
  const pairs = m.passages.map((p) => model.tokenizer.encodePair(m.query, p, m.maxTokens));
  const scores = new Float32Array(pairs.length);
  for await (const idx of lengthBatches(pairs, { one: model.perPair, maxBatch: m.maxBatch, tokenBudget: m.tokenBudget })) {
    if (cancelled()) return post({ type: 'cancelled', id: m.id });
    const got = await run(
      model,
      idx.map((i) => pairs[i]),
    );
    idx.forEach((i, j) => (scores[i] = got[j]));
  }
  post({ type: 'scores', id: m.id, scores }, [scores.buffer as ArrayBuffer]);
}

port.on('message', serveRequests({ ready: load(workerData as CrossEncoderWorkerData), post, run: score }));
