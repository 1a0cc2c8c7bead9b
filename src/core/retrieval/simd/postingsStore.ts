/// <reference path="./webassembly.d.ts" />
/**
 * Where the loaded index's postings live (PostingsIndex): each posting's document and impact,
 * and one accumulator per document. With the kernel (dotKernel.wat) they share a
 * WebAssembly.Memory and its `accumulate` adds a term's postings, ~2.6× the JS loop's speed
 * (no bounds check per access); otherwise plain typed arrays and the JS loop. Both add in
 * float64 and round to float32 once per posting: the same sums, bit for bit.
 */
import { KERNEL_PAGE, kernelMemory, MAX_KERNEL_BYTES } from './dotKernel';

export interface PostingsArrays {
  docs: Int32Array;
  impact: Float32Array;
  /** One per document, kept at 0 between searches. */
  acc: Float32Array;
  /** acc[docs[p]] += weight · impact[p] for p in [from, to). */
  add(from: number, to: number, weight: number): void;
}

/** `kernel: false`: typed arrays and the JS loop even where the kernel runs (tests compare the two). */
export function allocatePostings(postings: number, rows: number, opts: { kernel?: boolean } = {}): PostingsArrays {
  const bytes = postings * 8 + rows * 4;
  // Too big for one memory, or no kernel here: typed arrays below.
  const km = opts.kernel !== false && bytes > 0 && bytes <= MAX_KERNEL_BYTES ? kernelMemory(Math.ceil(bytes / KERNEL_PAGE)) : undefined;
  if (km) {
    const { memory, kernel } = km;
    const impactAt = postings * 4;
    const accAt = postings * 8;
    return {
      docs: new Int32Array(memory.buffer, 0, postings),
      impact: new Float32Array(memory.buffer, impactAt, postings),
      acc: new Float32Array(memory.buffer, accAt, rows),
      add: (from, to, weight) => {
        if (from < to) kernel.accumulate(0, impactAt, accAt, from, to, weight);
      },
    };
  }
  const docs = new Int32Array(postings);
  const impact = new Float32Array(postings);
  const acc = new Float32Array(rows);
  return {
    docs,
    impact,
    acc,
    add: (from, to, weight) => {
      for (let p = from; p < to; p++) acc[docs[p]] += weight * impact[p];
    },
  };
}
