import assert from 'node:assert/strict';
import { dotRow, topKDot } from '../../src/core/retrieval/vectorScan';

function randomMatrix(count: number, dim: number, seed = 7): Float32Array {
  const m = new Float32Array(count * dim);
  let s = seed;
  for (let i = 0; i < m.length; i++) m[i] = (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5;
  return m;
}

describe('topKDot', () => {
  it('returns the k best rows in order, matching a naive scan', () => {
    const dim = 13; // not a multiple of 4: exercises the tail loop
    const count = 500;
    const m = randomMatrix(count, dim);
    const q = randomMatrix(1, dim, 99);
    const naive = Array.from({ length: count }, (_, r) => ({ id: r, score: dotRow(m, dim, r, q) })).sort((a, b) => b.score - a.score);
    const got = topKDot(m, dim, count, q, 10);
    assert.deepEqual(
      got.map((h) => h.id),
      naive.slice(0, 10).map((h) => h.id),
    );
    for (let i = 0; i < 10; i++) assert.ok(Math.abs(got[i].score - naive[i].score) < 1e-5);
  });

  it('applies the accept filter and handles k larger than count', () => {
    const m = new Float32Array([1, 0, 0, 1, 0.7, 0.7]);
    const q = new Float32Array([1, 0]);
    assert.deepEqual(
      topKDot(m, 2, 3, q, 10).map((h) => h.id),
      [0, 2, 1],
    );
    assert.deepEqual(
      topKDot(m, 2, 3, q, 10, (r) => r !== 0).map((h) => h.id),
      [2, 1],
    );
    assert.deepEqual(topKDot(m, 2, 3, q, 0), []);
  });

  it('rejects a query of the wrong dimension', () => {
    assert.throws(() => topKDot(new Float32Array(4), 2, 2, new Float32Array(3), 1), RangeError);
  });

  // Speed lives in scripts/bench-retrieval.ts (no timed assertions here: shared, noisy machines).
  it('matches a naive scan at the product dimension, with ties broken by row', () => {
    const dim = 512;
    const count = 2000;
    const m = randomMatrix(count, dim);
    // Duplicate row 5 at row 1500 so two rows tie exactly.
    m.copyWithin(1500 * dim, 5 * dim, 6 * dim);
    const q = m.slice(5 * dim, 6 * dim);
    const naive = Array.from({ length: count }, (_, r) => ({ id: r, score: dotRow(m, dim, r, q) })).sort((a, b) => b.score - a.score || a.id - b.id);
    const got = topKDot(m, dim, count, q, 50);
    assert.deepEqual(
      got.map((h) => h.id),
      naive.slice(0, 50).map((h) => h.id),
    );
    assert.deepEqual(
      got.slice(0, 2).map((h) => h.id),
      [5, 1500],
    );
  });
});
