import assert from 'node:assert/strict';
import { allocatePostings } from '../../src/core/retrieval/simd/postingsStore';
import { isKernelBacked, allocateVectors } from '../../src/core/retrieval/simd/vectorStore';

describe('postings store', () => {
  it("the kernel's accumulate adds exactly as the JS loop does, bit for bit", () => {
    const rows = 5000;
    const postings = 60_000;
    const kernel = allocatePostings(postings, rows);
    const js = allocatePostings(postings, rows, { kernel: false });
    // Where WebAssembly SIMD runs (Node 20 does), the default store is one kernel memory.
    assert.ok(isKernelBacked(allocateVectors(4, 16)), 'this runtime has the SIMD kernel');
    assert.equal(kernel.docs.buffer, kernel.acc.buffer);
    assert.notEqual(js.docs.buffer, js.acc.buffer);
    let s = 11;
    const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    // Ten "terms" of sorted documents, impacts with all their float32 bits in play.
    for (let p = 0; p < postings; p++) {
      const d = Math.floor(next() * rows);
      kernel.docs[p] = js.docs[p] = d;
      kernel.impact[p] = js.impact[p] = next() / (next() + 0.1);
    }
    const weights = [2.7182818284590455, 0.1, 13.37, 1e-3, 7.000000000000001];
    for (const [i, w] of weights.entries()) {
      const from = i * 11_000;
      kernel.add(from, from + 11_000, w);
      js.add(from, from + 11_000, w);
    }
    kernel.add(10, 10, 1); // an empty range adds nothing
    let nonzero = 0;
    for (let d = 0; d < rows; d++) {
      assert.equal(Object.is(kernel.acc[d], js.acc[d]), true, `document ${d}: ${kernel.acc[d]} vs ${js.acc[d]}`);
      if (js.acc[d] !== 0) nonzero++;
    }
    assert.ok(nonzero > rows * 0.9);
  });
});
