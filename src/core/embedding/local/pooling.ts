/**
 * Token vectors → one vector per text. `hidden` is last_hidden_state, [batch, seq, dim] in
 * row-major order; `mask` marks real tokens (1) against padding (0).
 */
import type { Pooling } from './models';

export function poolBatch(
  hidden: Float32Array,
  mask: ArrayLike<number | bigint>,
  batch: number,
  seq: number,
  dim: number,
  pooling: Pooling,
  normalize: boolean,
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float32Array(dim);
    if (pooling === 'cls') {
      v.set(hidden.subarray(b * seq * dim, b * seq * dim + dim));
    } else {
      // Sum in float64: a 512-token mean in float32 drifts in the last digits with the batch's padding.
      const acc = new Float64Array(dim);
      let count = 0;
      for (let t = 0; t < seq; t++) {
        if (Number(mask[b * seq + t]) === 0) continue;
        count++;
        const row = (b * seq + t) * dim;
        for (let d = 0; d < dim; d++) acc[d] += hidden[row + d];
      }
      const inv = count > 0 ? 1 / count : 0;
      for (let d = 0; d < dim; d++) v[d] = acc[d] * inv;
    }
    if (normalize) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += v[d] * v[d];
      if (s > 0) {
        const inv = 1 / Math.sqrt(s);
        for (let d = 0; d < dim; d++) v[d] *= inv;
      }
    }
    out.push(v);
  }
  return out;
}
