/**
 * Exhaustive dot-product scan over a packed row-major Float32Array.
 * With L2-normalised rows and query the dot product is the cosine.
 *
 * Two engines, one result. When the matrix lives in kernel memory
 * (simd/vectorStore.ts) the WebAssembly SIMD kernel scores a block of rows at a
 * time in float32, with a bound on each score's rounding error; only rows whose
 * bound reaches the top k are rescored exactly, by dotRow. Elsewhere the JS loop
 * below scores every row. Either way every score that counts is the JS float64
 * value, so scores and rankings are identical (see simd/dotKernel.wat).
 */
import { TopK, type ScoredId } from './bm25';
import { int8For, kernelFor, KERNEL_BLOCK_ROWS, type KernelMemory } from './simd/vectorStore';

/** `tie`: the order between equal scores (tieKeys.ts; absent: by lower row). */
export function topKDot(
  matrix: Float32Array,
  dim: number,
  count: number,
  query: Float32Array,
  k: number,
  accept?: (row: number) => boolean,
  tie?: ArrayLike<number>,
): ScoredId[] {
  return topKDotMany(matrix, dim, count, [query], k, accept, tie)[0];
}

/**
 * topKDot for several queries, one ranked list per query, equal to calling
 * topKDot for each. In kernel memory eight queries share each pass over the
 * rows, which is what a scan is bound by: reading the rows from memory.
 */
export function topKDotMany(
  matrix: Float32Array,
  dim: number,
  count: number,
  queries: Float32Array[],
  k: number,
  accept?: (row: number) => boolean,
  tie?: ArrayLike<number>,
): ScoredId[][] {
  checkShapes(matrix, dim, count, queries);
  if (k <= 0 || count <= 0) return queries.map(() => []);
  // The int8 copy, when the index made one: a quarter of the bytes to read, half the work.
  // (Vectors too big for the kernel's memory keep only that copy there.)
  const int8 = int8For(matrix, dim, count);
  const mem = int8 ?? kernelFor(matrix, dim, count);
  if (!mem) return queries.map((q) => jsTopK(matrix, dim, count, q, k, accept, tie));
  const out: ScoredId[][] = [];
  const scan: Scan = { matrix, dim, count, k, accept, tie };
  for (let g = 0; g < queries.length; g += 8) {
    const group = queries.slice(g, g + 8);
    out.push(...(int8 ? int8TopK(mem, scan, group) : kernelTopK(mem, scan, group)));
  }
  return out;
}

/** A scan's rows (`count` of `dim` floats), how many to keep per query, and which rows may be kept. */
interface Scan {
  matrix: Float32Array;
  dim: number;
  count: number;
  k: number;
  accept?: (row: number) => boolean;
  tie?: ArrayLike<number>;
}

/**
 * Dot products of each query with rows 0, step, 2·step, … below count: the
 * values dotRow gives, in kernel memory computed exactly, four queries at a time.
 */
export function sampledDots(matrix: Float32Array, dim: number, count: number, step: number, queries: Float32Array[]): Float64Array[] {
  checkShapes(matrix, dim, count, queries);
  if (!(step >= 1) || !Number.isInteger(step)) throw new RangeError(`bad sampling step ${step}`);
  const n = count > 0 ? Math.ceil(count / step) : 0;
  const out = queries.map(() => new Float64Array(n));
  const mem = n > 0 ? kernelFor(matrix, dim, count) : undefined;
  if (!mem) {
    queries.forEach((q, i) => {
      for (let s = 0; s < n; s++) out[i][s] = dotRow(matrix, dim, s * step, q);
    });
    return out;
  }
  const { kernel, queries64, out64 } = mem;
  const rowStride = step * dim * 4;
  for (let g = 0; g < queries.length; g += 4) {
    const group = queries.slice(g, g + 4);
    queries64.fill(0); // unused slots score 0, ignored
    group.forEach((q, i) => queries64.set(q, i * dim)); // float32 → float64: exact
    for (let first = 0; first < n; first += KERNEL_BLOCK_ROWS) {
      const rows = Math.min(KERNEL_BLOCK_ROWS, n - first);
      kernel.exact4(matrix.byteOffset + first * rowStride, rows, dim, rowStride, mem.queryPtr, mem.outPtr);
      group.forEach((_, i) => {
        const dst = out[g + i];
        for (let r = 0, o = i; r < rows; r++, o += 4) dst[first + r] = out64[o];
      });
    }
  }
  return out;
}

function checkShapes(matrix: Float32Array, dim: number, count: number, queries: Float32Array[]): void {
  for (const q of queries) if (q.length !== dim) throw new RangeError(`query has ${q.length} dims, index has ${dim}`);
  if (matrix.length < dim * count) throw new RangeError('matrix shorter than dim * count');
}

/**
 * |float32 kernel score − JS score| ≤ gamma · ‖row‖ · ‖query‖ + tiny (underflow).
 * A float32 kernel score goes through at most n = dim/4 + 3 roundings (product,
 * dim/4 adds in its lane, 2 to join lanes), so its error is at most
 * γ(n)·Σ|aᵢqᵢ| ≤ γ(n)·‖a‖·‖q‖ (Cauchy–Schwarz), γ(n) = nu/(1 − nu), u = 2⁻²⁴;
 * the JS float64 sum adds γ(dim/4 + 4) with u = 2⁻⁵³. ‖a‖ comes from the kernel's
 * float32 sum of squares ν̂, itself within γ(n): ‖a‖² ≤ (ν̂ + tiny)/(1 − γ(n)).
 * The 1% slack also covers the rounding of `score + bound` in the comparison.
 */
function errorBound(dim: number): { gamma: number; normScale: number; tiny: number } {
  const gam = (n: number, u: number) => (n * u) / (1 - n * u);
  const g32 = gam(dim / 4 + 3, 2 ** -24);
  return { gamma: 1.01 * (g32 + gam(dim / 4 + 4, 2 ** -53)), normScale: 1 / (1 - g32), tiny: dim * 2 ** -140 };
}

/**
 * Up to eight queries through the float32 kernel (approx1 for one, approx8
 * otherwise, unused slots zeroed), block by block. A row is rescored exactly
 * when its score plus the block's error bound (from its largest row norm) could
 * pass the query's heap threshold: every row that enters a heap in jsTopK is
 * rescored here and enters the same heap with the same score, in the same
 * order (rows ascending per query). The rest, nearly all rows, cost float32 work.
 */
function kernelTopK(mem: KernelMemory, scan: Scan, group: Float32Array[]): ScoredId[][] {
  const { matrix, dim, count, k, accept, tie } = scan;
  const { kernel, queries32, out32, norms } = mem;
  const { gamma, normScale, tiny } = errorBound(dim);
  queries32.fill(0);
  group.forEach((q, i) => queries32.set(q, i * dim));
  const qNorm = group.map((q) => Math.sqrt(dotRow(q, dim, 0, q)));
  const heaps = group.map(() => new TopK(Math.min(k, count), tie));
  const stride = group.length === 1 ? 1 : 8;
  for (let first = 0; first < count; first += KERNEL_BLOCK_ROWS) {
    const rows = Math.min(KERNEL_BLOCK_ROWS, count - first);
    const at = matrix.byteOffset + first * dim * 4;
    if (stride === 1) kernel.approx1(at, rows, dim, mem.queryPtr, mem.outPtr, mem.normsPtr);
    else kernel.approx8(at, rows, dim, mem.queryPtr, mem.outPtr, mem.normsPtr);
    let maxNorm = 0;
    for (let r = 0; r < rows; r++) maxNorm = Math.max(maxNorm, norms[r]);
    // One bound for the block (rows of an index have similar norms): one add and compare per row.
    const rowNorm = Math.sqrt((maxNorm + tiny) * normScale);
    for (let i = 0; i < group.length; i++) {
      const bound = gamma * qNorm[i] * rowNorm + tiny;
      selectRows(out32, i, stride, rows, bound, first, heaps[i], matrix, dim, group[i], accept);
    }
  }
  return heaps.map((h) => h.sorted());
}

/**
 * Up to eight queries through the int8 copy (dot8 for one, dot8x8 otherwise: exact
 * integer sums). Row r = (c + e)/inv_r with |e| ≤ E = ½ + 127·2⁻²⁴ (quantize's float32
 * product), query q = t·(u + d) with |d| ≤ D = ½ (+ float64 rounding), so with
 * s_r = 1/inv_r: |q·r − s_r·t·Σcu| ≤ s_r·t·(E·Σ|c| + D·Σ|u| + E·D·dim), widened a hair
 * for dotRow's own float64 rounding and the float64 products here. A row is rescored
 * exactly (dotRow, as jsTopK) unless its estimate plus that bound stays below the
 * query's heap threshold: the same rows enter each heap with the same scores, in the
 * same order, and `accept` sees the same rows, as in jsTopK.
 */
function int8TopK(mem: KernelMemory, scan: Scan, group: Float32Array[]): ScoredId[][] {
  const { matrix, dim, count, k, accept, tie } = scan;
  const { kernel } = mem;
  const { ptr, queryPtr, query, out, inv, absSum } = mem.int8!;
  // dot8 reads one query packed; dot8x8 eight, chunk c of query i at 128c + 16i (int16 units).
  const stride = group.length === 1 ? 1 : 8;
  const slot = (i: number, j: number) => (stride === 1 ? j : ((j >> 4) << 7) + (i << 4) + (j & 15));
  const E = 0.5 + 1e-5;
  const D = 0.5 + 1e-9;
  if (stride === 8) query.fill(0); // unused slots score 0, and are not read
  const scale = group.map((q, i) => {
    let max = 0;
    for (let j = 0; j < dim; j++) max = Math.max(max, Math.abs(q[j]));
    const t = Number.isFinite(max) ? max / 127 : NaN;
    let qAbs = 0;
    for (let j = 0; j < dim; j++) {
      const u = t > 0 ? Math.max(-127, Math.min(127, Math.round(q[j] / t))) : 0;
      query[slot(i, j)] = u;
      qAbs += Math.abs(u);
    }
    // dotRow's rounding: ~1e-14·Σ|x·q| ≤ 1e-14·(127/inv)·(127·t)·dim, folded into the per-row term.
    return { t, queryTerm: D * qAbs + E * D * dim + 127 * 127 * dim * 1e-12 };
  });
  const heaps = group.map(() => new TopK(Math.min(k, count), tie));
  for (let first = 0; first < count; first += KERNEL_BLOCK_ROWS) {
    const rows = Math.min(KERNEL_BLOCK_ROWS, count - first);
    if (stride === 1) kernel.dot8(ptr + first * dim, rows, dim, queryPtr, mem.outPtr);
    else kernel.dot8x8(ptr + first * dim, rows, dim, queryPtr, mem.outPtr);
    for (let i = 0; i < group.length; i++) {
      const { t, queryTerm } = scale[i];
      const heap = heaps[i];
      const q = group[i];
      let threshold = heap.threshold();
      for (let r = 0; r < rows; r++) {
        const row = first + r;
        const iv = inv[row];
        // A zero row (inv ∞), a row with NaN or ∞ (inv NaN or 0): no usable scale, rescored.
        const st = iv > 0 && iv < Infinity ? t / iv : NaN;
        const estimate = st * out[r * stride + i];
        const bound = st * (E * absSum[row] + queryTerm) * (1 + 1e-9) + Math.abs(estimate) * 1e-12;
        // Written so that NaN is rescored too; a row that may equal the threshold is rescored (TopK decides ties).
        if (estimate + bound < threshold) continue;
        const s = dotRow(matrix, dim, row, q);
        if (s >= threshold && (!accept || accept(row))) {
          heap.push(row, s);
          threshold = heap.threshold();
        }
      }
    }
  }
  return heaps.map((h) => h.sorted());
}

/**
 * One query's pass over one block of float32 scores. A row is rescored exactly
 * unless its score plus `bound` stays below the heap threshold (written
 * so that NaN or ∞ from a float32 overflow is rescored too).
 */
function selectRows(
  scores: Float32Array,
  offset: number,
  stride: number,
  rows: number,
  bound: number,
  first: number,
  heap: TopK,
  matrix: Float32Array,
  dim: number,
  q: Float32Array,
  accept?: (row: number) => boolean,
): void {
  let threshold = heap.threshold();
  for (let r = 0, o = offset; r < rows; r++, o += stride) {
    if (scores[o] + bound < threshold) continue;
    const row = first + r;
    const s = dotRow(matrix, dim, row, q);
    // The filter runs only for rows that may enter the top k (at the threshold, TopK decides by the tie order).
    if (s >= threshold && (!accept || accept(row))) {
      heap.push(row, s);
      threshold = heap.threshold();
    }
  }
}

function jsTopK(
  matrix: Float32Array,
  dim: number,
  count: number,
  query: Float32Array,
  k: number,
  accept?: (row: number) => boolean,
  tie?: ArrayLike<number>,
): ScoredId[] {
  const heap = new TopK(Math.min(k, count), tie);
  for (let r = 0; r < count; r++) {
    const s = dotRow(matrix, dim, r, query);
    // The filter runs only for rows that may enter the top k (at the threshold, TopK decides by the tie order).
    if (s >= heap.threshold() && (!accept || accept(r))) heap.push(r, s);
  }
  return heap.sorted();
}

/** Dot product of one row with a vector; four accumulators break the add dependency chain (the JIT keeps them in registers). */
export function dotRow(matrix: Float32Array, dim: number, row: number, v: Float32Array): number {
  let d0 = 0;
  let d1 = 0;
  let d2 = 0;
  let d3 = 0;
  const base = row * dim;
  const d4 = dim - (dim & 3);
  let j = 0;
  for (; j < d4; j += 4) {
    d0 += matrix[base + j] * v[j];
    d1 += matrix[base + j + 1] * v[j + 1];
    d2 += matrix[base + j + 2] * v[j + 2];
    d3 += matrix[base + j + 3] * v[j + 3];
  }
  for (; j < dim; j++) d0 += matrix[base + j] * v[j];
  return d0 + d1 + d2 + d3;
}
