/**
 * Worker thread that runs a sentence-embedding model: its tokenizer and an ONNX Runtime
 * session. Bundled as dist/local-embed-worker.js; LocalProvider starts it. Model inference
 * never runs on the calling thread (the VS Code extension host must stay responsive).
 */
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type * as Ort from 'onnxruntime-node';
import { openConfinedSync, readAtSync } from '../../util/confinedFiles';
import { poolBatch } from './pooling';
import type { FromWorker, LocalWorkerData, ToWorker } from './protocol';
import { loadTokenizer, type TextTokenizer } from './tokenizer';

const port = parentPort!;
const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);
const cancelled = new Set<number>();
/** Requests waiting for the session, served one at a time: urgent ones (queries) first, then in order. */
const waiting: Array<Extract<ToWorker, { type: 'embed' }>> = [];
let busy = false;
/** ONNX Runtime, loaded by load(): a build without it for this platform must say so, not crash the thread. */
let ort: typeof Ort;

/** Loads onnxruntime-node; a failure is the runtime's (no binding for this platform, or one the system cannot load). */
async function loadRuntime(): Promise<void> {
  try {
    ort = await import('onnxruntime-node');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const missing = e.code === 'MODULE_NOT_FOUND' && /onnxruntime_binding\.node/.test(e.message);
    throw Object.assign(new Error(missing ? 'no binding for this platform' : e.message.split('\n')[0]), { runtime: missing ? 'missing' : 'unloadable' });
  }
}

/**
 * Whether the graph quantizes its activations at run time (DynamicQuantizeLinear, as the int8
 * `model_quantized.onnx` exports do). Its scale and zero point are computed over the whole
 * input tensor, so in a batch each text's vector depends on the texts beside it (measured on
 * bge-small, e5-small-v2, all-MiniLM-L6-v2 and multilingual-e5-small int8: cosine down to 0.979
 * against the same text alone): such a graph gets one text per run, and a text's vector no
 * longer depends on its batch (as the real-model parity tests require). It costs no
 * throughput (bge-small int8, one thread, runs interleaved: SciFact abstracts 3.2-3.4/s batched
 * vs 3.5-3.7/s alone, short sentences 49-82/s vs 90-101/s). Scans the file's bytes for the op
 * type (3-10 ms for an int8 file, 0.1-0.5 s for an fp32 one, at load): no ONNX parser needed.
 */
function quantizesActivations(file: string): boolean {
  const needle = Buffer.from('DynamicQuantizeLinear');
  const chunk = Buffer.alloc(4 << 20);
  // The model's folder is the user's: a FIFO or a device there is refused before ONNX Runtime opens it.
  const { fd } = openConfinedSync(file, { kind: 'model' });
  try {
    let carry = 0;
    for (;;) {
      const n = readAtSync(fd, chunk, carry, chunk.length - carry, null);
      if (n <= 0) return false;
      const end = carry + n;
      if (chunk.subarray(0, end).indexOf(needle) >= 0) return true;
      carry = Math.min(needle.length - 1, end);
      chunk.copy(chunk, 0, end - carry, end);
    }
  } finally {
    closeSync(fd);
  }
}

async function load(data: LocalWorkerData): Promise<{ session: Ort.InferenceSession; tokenizer: TextTokenizer; dimension: number; perText: boolean }> {
  const t0 = performance.now();
  await loadRuntime();
  const tokenizer = loadTokenizer(data.modelDir);
  const session = await ort.InferenceSession.create(join(data.modelDir, data.onnxFile), {
    intraOpNumThreads: data.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    // The CPU provider only: the VSIXs carry no GPU provider's libraries (scripts/vscode/platforms.mjs).
    executionProviders: ['cpu'],
  });
  for (const name of ['input_ids', 'attention_mask']) {
    if (!session.inputNames.includes(name))
      throw new Error(
        `${data.onnxFile} has no "${name}" input (inputs: ${session.inputNames.join(', ')}): not a sentence encoder in the transformers.js layout`,
      );
  }
  if (!session.outputNames.includes('last_hidden_state'))
    throw new Error(`${data.onnxFile} has no "last_hidden_state" output (outputs: ${session.outputNames.join(', ')})`);
  // One probe run: gives the vector length and warms the session up.
  const probe = await runBatch(session, [tokenizer.encode('probe', 16)], tokenizer.padId);
  const perText = quantizesActivations(join(data.modelDir, data.onnxFile));
  post({ type: 'ready', dimension: probe.dims[2], loadMs: Math.round(performance.now() - t0) });
  return { session, tokenizer, dimension: probe.dims[2], perText };
}

/** One padded batch through the session: last_hidden_state and the mask used. */
async function runBatch(session: Ort.InferenceSession, encoded: { ids: number[]; typeIds: number[] }[], padId: number) {
  const batch = encoded.length;
  const seq = Math.max(...encoded.map((e) => e.ids.length));
  const ids = new BigInt64Array(batch * seq).fill(BigInt(padId));
  const mask = new BigInt64Array(batch * seq);
  const types = new BigInt64Array(batch * seq);
  encoded.forEach((e, b) => {
    for (let t = 0; t < e.ids.length; t++) {
      ids[b * seq + t] = BigInt(e.ids[t]);
      mask[b * seq + t] = 1n;
      types[b * seq + t] = BigInt(e.typeIds[t]);
    }
  });
  const feeds: Record<string, Ort.Tensor> = {
    input_ids: new ort.Tensor('int64', ids, [batch, seq]),
    attention_mask: new ort.Tensor('int64', mask, [batch, seq]),
  };
  if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', types, [batch, seq]);
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
