/**
 * ONNX Runtime for the model workers (the local encoder's and the cross-encoder's): the runtime
 * loaded so that a build without it says so, a model's session on the CPU, padded feeds, and
 * whether a graph quantizes its activations (then texts are run one at a time). Runs only in a
 * worker thread: inference never runs on the calling thread.
 */
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { openConfinedSync, readAtSync } from '../../util/confinedFiles';
import type { Encoded } from './tokenizer';

export type { Ort };

/** Loads onnxruntime-node; a failure is the runtime's (no binding for this platform, or one the system cannot load). */
export async function loadRuntime(): Promise<typeof Ort> {
  try {
    return await import('onnxruntime-node');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const missing = e.code === 'MODULE_NOT_FOUND' && /onnxruntime_binding\.node/.test(e.message);
    throw Object.assign(new Error(missing ? 'no binding for this platform' : e.message.split('\n')[0]), { runtime: missing ? 'missing' : 'unloadable' });
  }
}

/** The model's session: the CPU provider only (the VSIXs carry no GPU provider's libraries: scripts/vscode/platforms.mjs). */
export async function openSession(ort: typeof Ort, modelDir: string, onnxFile: string, threads: number, needs: { output: string; what: string }) {
  const session = await ort.InferenceSession.create(join(modelDir, onnxFile), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionProviders: ['cpu'],
  });
  for (const name of ['input_ids', 'attention_mask']) {
    if (!session.inputNames.includes(name))
      throw new Error(`${onnxFile} has no "${name}" input (inputs: ${session.inputNames.join(', ')}): not ${needs.what} in the transformers.js layout`);
  }
  if (!session.outputNames.includes(needs.output))
    throw new Error(`${onnxFile} has no "${needs.output}" output (outputs: ${session.outputNames.join(', ')}): not ${needs.what}`);
  return session;
}

/** One padded batch as the session's inputs (token_type_ids where the graph takes them), and the mask used. */
export function paddedFeeds(ort: typeof Ort, session: Ort.InferenceSession, encoded: Encoded[], padId: number) {
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
  return { feeds, mask, batch, seq };
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
export function quantizesActivations(file: string): boolean {
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
