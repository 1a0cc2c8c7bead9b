/**
 * Exhaustive dot-product scan over a packed row-major Float32Array.
 * With L2-normalised rows and query the dot product is the cosine.
 */
import { TopK, type ScoredId } from './bm25';

export function topKDot(
  matrix: Float32Array,
  dim: number,
  count: number,
  query: Float32Array,
  k: number,
  accept?: (row: number) => boolean,
): ScoredId[] {
  if (query.length !== dim) throw new RangeError(`query has ${query.length} dims, index has ${dim}`);
  if (matrix.length < dim * count) throw new RangeError('matrix shorter than dim * count');
  const heap = new TopK(Math.max(0, Math.min(k, count)));
  if (k <= 0 || count <= 0) return [];
  const d4 = dim - (dim & 3);
  let base = 0;
  for (let r = 0; r < count; r++, base += dim) {
    // Four accumulators break the add dependency chain; JIT keeps them in registers.
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j < d4; j += 4) {
      s0 += matrix[base + j] * query[j];
      s1 += matrix[base + j + 1] * query[j + 1];
      s2 += matrix[base + j + 2] * query[j + 2];
      s3 += matrix[base + j + 3] * query[j + 3];
    }
    for (; j < dim; j++) s0 += matrix[base + j] * query[j];
    const s = s0 + s1 + s2 + s3;
    // The filter runs only for rows that would enter the top k.
    if (s > heap.threshold() && (!accept || accept(r))) heap.push(r, s);
  }
  return heap.sorted();
}

/** Dot product of one row with a vector; four accumulators, as in topKDot. */
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
