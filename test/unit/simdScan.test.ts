import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { allocateVectors, int8For, isKernelBacked, kernelFor, kernelLayout, quantizeVectors, quantizedRows } from '../../src/core/retrieval/simd/vectorStore';
import { dotRow, sampledDots, topKDot, topKDotMany } from '../../src/core/retrieval/vectorScan';

/** Deterministic values in [-0.5, 0.5). */
function fill(m: Float32Array, seed: number): Float32Array {
  let s = seed;
  for (let i = 0; i < m.length; i++) m[i] = (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5;
  return m;
}

/** The same random rows twice: in kernel memory, and in a plain Float32Array (JS scan). */
function pair(count: number, dim: number, seed = 7): { kern: Float32Array; plain: Float32Array } {
  const kern = allocateVectors(count, dim);
  fill(kern, seed);
  return { kern, plain: Float32Array.from(kern) };
}

const queries = (n: number, dim: number, seed = 1000) => Array.from({ length: n }, (_, i) => fill(new Float32Array(dim), seed + i));

describe('SIMD vector scan (WebAssembly kernel)', function () {
  this.timeout(60_000);

  it('keeps the packed vectors in kernel memory when it can, in a plain array otherwise', () => {
    assert.ok(isKernelBacked(allocateVectors(10, 512)));
    assert.ok(!isKernelBacked(allocateVectors(10, 13)), 'dim not a multiple of 4');
    assert.ok(!isKernelBacked(allocateVectors(0, 512)), 'empty');
    assert.equal(allocateVectors(3, 8).length, 24);
    assert.ok(allocateVectors(3, 8).every((x) => x === 0));
    assert.equal(kernelLayout(100_000, 512)?.matrixBytes, 100_000 * 512 * 4);
    assert.equal(kernelLayout(600_000, 1024, { floatInside: true }), undefined, 'float32 rows over 2 GiB do not fit');
    assert.equal(kernelLayout(600_000, 1024)?.matrixBytes, 0, 'so the memory holds only their int8 copy (614 MB)');
    assert.equal(kernelLayout(600_000, 1020), undefined, 'no int8 copy either (dim not a multiple of 16): JS scan');
    assert.equal(kernelLayout(3_000_000, 1024), undefined, 'an int8 copy over 2 GiB: JS scan');
  });

  for (const dim of [4, 12, 384, 512, 768]) {
    for (const count of [0, 1, 5, 4097]) {
      it(`gives the JS scan's exact results at ${dim} dims over ${count} rows`, () => {
        const { kern, plain } = pair(count, dim, dim * 31 + count);
        assert.ok(count === 0 || isKernelBacked(kern));
        for (const q of queries(3, dim, dim + count)) {
          for (const k of [1, 10, count + 3]) {
            assert.deepEqual(topKDot(kern, dim, count, q, k), topKDot(plain, dim, count, q, k));
          }
          const accept = (r: number) => r % 3 !== 1;
          assert.deepEqual(topKDot(kern, dim, count, q, 7, accept), topKDot(plain, dim, count, q, 7, accept));
        }
      });
    }
  }

  describe('queries through the int8 copy (dot8 for one, dot8x8 for a group)', () => {
    /** Kernel memory with its int8 copy made, as LibraryIndex.open leaves it, and a plain copy. */
    const quantPair = (count: number, dim: number, seed: number) => {
      const { kern, plain } = pair(count, dim, seed);
      quantizeVectors(kern, dim, count);
      return { kern, plain };
    };

    it('is made only where dot8 can read it (dim a multiple of 16)', () => {
      assert.equal(quantizedRows(quantPair(50, 512, 1).kern), 50);
      assert.equal(quantizedRows(quantPair(50, 12, 1).kern), 0);
      const plain = new Float32Array(50 * 16);
      quantizeVectors(plain, 16, 50);
      assert.equal(quantizedRows(plain), 0, 'no kernel memory, no copy');
    });

    for (const dim of [16, 384, 512, 768]) {
      // 16,389 rows: the int8 copy is made in steps of 8,192 rows (quantizing), the last one short.
      for (const count of dim === 16 ? [1, 5, 4097, 16_389] : [1, 5, 4097]) {
        it(`gives the JS scan's exact results at ${dim} dims over ${count} rows`, () => {
          const { kern, plain } = quantPair(count, dim, dim * 17 + count);
          assert.equal(quantizedRows(kern), count);
          for (const q of queries(3, dim, dim + count + 1)) {
            for (const k of [1, 10, count + 3]) assert.deepEqual(topKDot(kern, dim, count, q, k), topKDot(plain, dim, count, q, k));
            const seen = (m: Float32Array) => {
              const rows: number[] = [];
              return { hits: topKDot(m, dim, count, q, 7, (r) => (rows.push(r), r % 3 !== 1)), rows };
            };
            assert.deepEqual(seen(kern), seen(plain), 'same hits, and accept asked about the same rows in the same order');
          }
          // Eleven queries: a group of eight through dot8x8, then one of three.
          const qs = queries(11, dim, dim + count + 5);
          for (const k of [1, 10, count + 3])
            assert.deepEqual(
              topKDotMany(kern, dim, count, qs, k),
              qs.map((q) => topKDot(plain, dim, count, q, k)),
            );
          const accept = (r: number) => r % 3 !== 1;
          assert.deepEqual(
            topKDotMany(kern, dim, count, qs, 7, accept),
            qs.map((q) => topKDot(plain, dim, count, q, 7, accept)),
          );
        });
      }
    }

    it('stays exact on near-ties far below the int8 resolution', () => {
      const dim = 512;
      const count = 3000;
      const base = fill(new Float32Array(dim), 3);
      const kern = allocateVectors(count, dim);
      for (let row = 0; row < count; row++) {
        const v = base.slice();
        const j = (row * 37) % dim;
        v[j] = Math.fround(v[j] * (1 + ((row % 5) - 2) * 2 ** -22));
        kern.set(v, row * dim);
      }
      quantizeVectors(kern, dim, count);
      const plain = Float32Array.from(kern);
      const qs = [base, ...queries(8, dim, 9)];
      for (const q of qs.slice(0, 3)) {
        for (const k of [1, 50, 999]) assert.deepEqual(topKDot(kern, dim, count, q, k), topKDot(plain, dim, count, q, k));
      }
      for (const k of [1, 50, 999])
        assert.deepEqual(
          topKDotMany(kern, dim, count, qs, k),
          qs.map((q) => topKDot(plain, dim, count, q, k)),
        );
    });

    it('stays exact with rows of NaN, ∞, zeros, huge or tiny values, and with a zero query', () => {
      const dim = 16;
      const count = 400;
      const { kern } = pair(count, dim, 12);
      for (let r = 0; r < count; r += 7) kern.fill(r % 2 ? 3e37 : -3e37, r * dim, r * dim + 4);
      for (let r = 3; r < count; r += 11) kern.fill(1e-30, r * dim, (r + 1) * dim);
      kern.fill(0, 5 * dim, 6 * dim);
      kern.fill(1e-38, 6 * dim, 7 * dim); // 127 / max overflows float32: no usable scale
      kern[9 * dim + 2] = NaN;
      kern[13 * dim + 1] = Infinity;
      quantizeVectors(kern, dim, count);
      const plain = Float32Array.from(kern);
      const qs = [...queries(3, dim, 13), new Float32Array(dim), new Float32Array(dim).fill(1e-20)];
      for (const q of qs) {
        for (const k of [1, 20, count]) assert.deepEqual(topKDot(kern, dim, count, q, k), topKDot(plain, dim, count, q, k));
      }
      for (const k of [1, 20, count])
        assert.deepEqual(
          topKDotMany(kern, dim, count, qs, k),
          qs.map((q) => topKDot(plain, dim, count, q, k)),
        );
    });

    describe('vectors too big for the kernel memory: an ordinary array, its int8 copy in the memory', () => {
      for (const dim of [16, 384, 768]) {
        // 16,389 rows: the rows are copied into the memory 8,192 at a time to be quantised.
        for (const count of dim === 16 ? [1, 4097, 16_389] : [5, 4097]) {
          it(`gives the JS scan's exact results at ${dim} dims over ${count} rows`, () => {
            const m = allocateVectors(count, dim, { floatInside: false });
            fill(m, dim * 13 + count);
            assert.ok(!isKernelBacked(m), 'the float32 rows are not in kernel memory');
            const plain = Float32Array.from(m);
            const qs = queries(9, dim, dim + count + 3);
            const accept = (r: number) => r % 3 !== 1;
            // Before the int8 copy is made: the JS scan.
            assert.deepEqual(
              topKDotMany(m, dim, count, qs, 10),
              qs.map((q) => topKDot(plain, dim, count, q, 10)),
            );
            quantizeVectors(m, dim, count);
            assert.equal(quantizedRows(m), count);
            assert.deepEqual(topKDot(m, dim, count, qs[0], 7, accept), topKDot(plain, dim, count, qs[0], 7, accept));
            for (const k of [1, 10, count + 3])
              assert.deepEqual(
                topKDotMany(m, dim, count, qs, k),
                qs.map((q) => topKDot(plain, dim, count, q, k)),
              );
            assert.deepEqual(
              topKDotMany(m, dim, count, qs, 7, accept),
              qs.map((q) => topKDot(plain, dim, count, q, 7, accept)),
            );
            assert.deepEqual(sampledDots(m, dim, count, 3, qs.slice(0, 2)), sampledDots(plain, dim, count, 3, qs.slice(0, 2)));
          });
        }
      }

      it('quantises each row from the array, as it would inside (the same codes, scales and sums)', () => {
        const dim = 32;
        const count = 9000;
        const outside = allocateVectors(count, dim, { floatInside: false });
        const inside = allocateVectors(count, dim);
        fill(outside, 5);
        inside.set(outside);
        quantizeVectors(outside, dim, count);
        quantizeVectors(inside, dim, count);
        const a = kernelFor(inside, dim, count)!.int8!;
        const b = int8For(outside, dim, count)!.int8!;
        assert.deepEqual(Array.from(b.codes.subarray(0, count * dim)), Array.from(a.codes.subarray(0, count * dim)));
        assert.deepEqual(Array.from(b.inv.subarray(0, count)), Array.from(a.inv.subarray(0, count)));
        assert.deepEqual(Array.from(b.absSum.subarray(0, count)), Array.from(a.absSum.subarray(0, count)));
      });
    });

    it('dot8x8 gives each of its eight queries the integer sums dot8 gives it alone', () => {
      const dim = 48;
      const count = 37;
      const { kern } = quantPair(count, dim, 21);
      const mem = kernelFor(kern, dim, count)!;
      const { ptr, queryPtr, query, out } = mem.int8!;
      const qs = Array.from({ length: 8 }, (_, i) => Int16Array.from({ length: dim }, (_, j) => (((i + 1) * 7919 + j * 104729) % 255) - 127));
      qs[5].fill(-127); // the extremes
      qs[6].fill(127);
      const alone = qs.map((q) => {
        query.fill(0);
        query.set(q);
        mem.kernel.dot8(ptr, count, dim, queryPtr, mem.outPtr);
        return Array.from(out.subarray(0, count));
      });
      query.fill(0);
      qs.forEach((q, i) => q.forEach((u, j) => (query[((j >> 4) << 7) + (i << 4) + (j & 15)] = u)));
      mem.kernel.dot8x8(ptr, count, dim, queryPtr, mem.outPtr);
      const codes = mem.int8!.codes;
      for (let i = 0; i < 8; i++) {
        assert.deepEqual(
          Array.from({ length: count }, (_, r) => out[r * 8 + i]),
          alone[i],
          `query ${i}`,
        );
        // and both are the true integer dot products
        const r = count - 1;
        let want = 0;
        for (let j = 0; j < dim; j++) want += codes[r * dim + j] * qs[i][j];
        assert.equal(alone[i][r], want);
      }
    });
  });

  it('stays exact on near-ties that float32 arithmetic cannot separate', () => {
    // Rows equal to one vector but for a few ulps in a few components: their JS
    // scores differ by ~1e-8, below float32 resolution, so only the exact rescoring can rank them.
    const dim = 512;
    const count = 6000;
    const base = fill(new Float32Array(dim), 3);
    const kern = allocateVectors(count, dim);
    const r = fill(new Float32Array(count * 3), 4);
    for (let row = 0; row < count; row++) {
      const v = base.slice();
      for (let t = 0; t < 3; t++) {
        const j = Math.floor((r[row * 3 + t] + 0.5) * dim) % dim;
        v[j] = Math.fround(v[j] * (1 + (t - 1) * 2 ** -22));
      }
      kern.set(v, row * dim);
    }
    const plain = Float32Array.from(kern);
    for (const q of [base, ...queries(2, dim, 5)]) {
      for (const k of [1, 50, 999]) {
        const got = topKDot(kern, dim, count, q, k);
        assert.deepEqual(got, topKDot(plain, dim, count, q, k));
      }
      assert.deepEqual(topKDotMany(kern, dim, count, [q, base, q], 40), topKDotMany(plain, dim, count, [q, base, q], 40));
    }
  });

  it('stays exact where float32 overflows or underflows (rows of huge or tiny values)', () => {
    const dim = 16;
    const count = 300;
    const { kern } = pair(count, dim, 8);
    for (let r = 0; r < count; r += 7) kern.fill(r % 2 ? 3e37 : -3e37, r * dim, r * dim + 4); // products overflow float32
    for (let r = 3; r < count; r += 11) kern.fill(1e-30, r * dim, (r + 1) * dim); // products underflow
    const plain = Float32Array.from(kern);
    for (const q of [...queries(3, dim, 8), new Float32Array(dim).fill(1e-20)]) {
      for (const k of [1, 20, count]) assert.deepEqual(topKDot(kern, dim, count, q, k), topKDot(plain, dim, count, q, k));
      assert.deepEqual(topKDotMany(kern, dim, count, [q, q], 20), topKDotMany(plain, dim, count, [q, q], 20));
    }
  });

  it('scores every row exactly as dotRow does (block boundaries included)', () => {
    const dim = 384;
    const count = 4097 + 4096;
    const { kern } = pair(count, dim, 5);
    const [q] = queries(1, dim);
    const all = topKDot(kern, dim, count, q, count);
    assert.equal(all.length, count);
    for (const h of all) assert.equal(h.score, dotRow(kern, dim, h.id, q));
  });

  it('breaks ties by row, honours k bounds, and calls accept only for rows that would enter the top k', () => {
    const dim = 8;
    const count = 5000;
    const { kern, plain } = pair(count, dim, 11);
    // Rows 3, 4096 (other side of a block boundary) and 4500 are the same long vector: exact ties, on top.
    const q = fill(new Float32Array(dim), 42);
    for (const r of [3, 4096, 4500])
      kern.set(
        q.map((x) => 4 * x),
        r * dim,
      );
    plain.set(kern);
    assert.deepEqual(
      topKDot(kern, dim, count, q, 3).map((h) => h.id),
      [3, 4096, 4500],
    );
    assert.deepEqual(topKDot(kern, dim, count, q, 0), []);
    assert.deepEqual(topKDot(kern, dim, count, q, -2), []);
    assert.equal(topKDot(kern, dim, count, q, count + 10).length, count);
    const asked = (m: Float32Array) => {
      const rows: number[] = [];
      const hits = topKDot(m, dim, count, q, 5, (r) => (rows.push(r), r !== 4096));
      return { rows, hits };
    };
    const k = asked(kern);
    assert.deepEqual(k, asked(plain));
    assert.ok(k.rows.length < count / 10, `accept called for ${k.rows.length} rows`);
    assert.ok(!k.hits.some((h) => h.id === 4096));
  });

  it('scans a leading subarray of kernel memory with the kernel (the index trims unused rows)', () => {
    const dim = 16;
    const { kern, plain } = pair(100, dim, 3);
    const [q] = queries(1, dim);
    const sub = kern.subarray(0, 60 * dim);
    assert.ok(isKernelBacked(sub));
    assert.deepEqual(topKDot(sub, dim, 60, q, 20), topKDot(plain, dim, 60, q, 20));
    // A matrix read with another dimension than it was allocated with: JS scan, same answer.
    assert.deepEqual(topKDot(kern, 8, 200, q.subarray(0, 8), 20), topKDot(plain, 8, 200, q.subarray(0, 8), 20));
  });

  it('topKDotMany equals topKDot per query, for any number of queries, in kernel memory or not', () => {
    for (const [dim, count] of [
      [512, 4097],
      [12, 5],
      [13, 300],
    ] as const) {
      const { kern, plain } = pair(count, dim, dim);
      for (const n of [0, 1, 2, 3, 4, 5, 9]) {
        const qs = queries(n, dim, n * 7 + 1);
        const accept = (r: number) => r % 5 !== 0;
        const each = qs.map((q) => topKDot(plain, dim, count, q, 25, accept));
        assert.deepEqual(topKDotMany(kern, dim, count, qs, 25, accept), each, `${dim}-d, ${n} queries, kernel`);
        assert.deepEqual(topKDotMany(plain, dim, count, qs, 25, accept), each, `${dim}-d, ${n} queries, JS`);
      }
    }
    assert.deepEqual(topKDotMany(allocateVectors(4, 4), 4, 4, queries(2, 4), 0), [[], []]);
    assert.throws(() => topKDotMany(allocateVectors(4, 4), 4, 4, [new Float32Array(4), new Float32Array(3)], 1), RangeError);
  });

  it('sampledDots gives dotRow of every step-th row, in kernel memory or not', () => {
    for (const [dim, count, step] of [
      [512, 9000, 4],
      [12, 5, 1],
      [16, 4097, 1],
      [384, 2001, 2000],
      [13, 40, 3],
    ] as const) {
      const { kern, plain } = pair(count, dim, count);
      for (const n of [1, 3, 6]) {
        const qs = queries(n, dim, dim + n);
        const want = qs.map((q) => Float64Array.from({ length: Math.ceil(count / step) }, (_, s) => dotRow(plain, dim, s * step, q)));
        assert.deepEqual(sampledDots(kern, dim, count, step, qs), want, `${dim}-d, ${count} rows, step ${step}, ${n} queries`);
        assert.deepEqual(sampledDots(plain, dim, count, step, qs), want);
      }
    }
    assert.deepEqual(sampledDots(allocateVectors(2, 4), 4, 0, 1, queries(2, 4)), [new Float64Array(0), new Float64Array(0)]);
    assert.throws(() => sampledDots(allocateVectors(2, 4), 4, 2, 0, queries(1, 4)), RangeError);
  });

  it('falls back to the JS scan where WebAssembly SIMD is unavailable', () => {
    const wasm = WebAssembly as { validate: typeof WebAssembly.validate };
    const validate = wasm.validate;
    let m: Float32Array;
    try {
      wasm.validate = () => false;
      m = allocateVectors(50, 16);
    } finally {
      wasm.validate = validate;
    }
    assert.ok(!isKernelBacked(m));
    fill(m, 9);
    const qs = queries(5, 16);
    const plain = Float32Array.from(m);
    assert.deepEqual(
      topKDotMany(m, 16, 50, qs, 10),
      qs.map((q) => topKDot(plain, 16, 50, q, 10)),
    );
  });

  it('ships a dotKernelWasm.ts compiled from the current dotKernel.wat', () => {
    // build-wasm --check recompiles the .wat with wabt and compares with the committed file.
    try {
      execFileSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'build-wasm.mjs'), '--check'], { stdio: 'pipe', encoding: 'utf8' });
    } catch (err) {
      assert.fail(String((err as { stderr?: string }).stderr || err));
    }
  });
});
