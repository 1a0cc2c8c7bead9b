import assert from 'node:assert/strict';
import { EMBEDDED_DIM, EMBEDDED_MODEL, encode } from '../../src/core/embedding/embeddedEncoder';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('embedded encoder', () => {
  it('is deterministic, L2-normalised and of the declared dimension', () => {
    const a = encode('Vitamin D supplementation reduces fracture risk in older adults.', 'passage');
    const b = encode('Vitamin D supplementation reduces fracture risk in older adults.', 'passage');
    assert.equal(a.length, EMBEDDED_DIM);
    assert.ok(EMBEDDED_DIM <= 512);
    assert.deepEqual(a, b);
    assert.ok(Math.abs(dot(a, a) - 1) < 1e-5);
  });

  it('puts a paraphrase with shared stems closer than an unrelated text', () => {
    const q = encode('Supplementing vitamin D lowers the risk of fractures', 'query');
    const para = encode('Vitamin D supplements reduce fracture risk in elderly people.', 'passage');
    const other = encode('Graphene transistors switch at terahertz frequencies.', 'passage');
    assert.ok(dot(q, para) > dot(q, other) + 0.2, `${dot(q, para)} vs ${dot(q, other)}`);
  });

  it('folds French accents and plurals', () => {
    const a = encode('Les études médicales récentes', 'query');
    const b = encode('une etude medicale recente', 'passage');
    const c = encode('la pêche en haute mer', 'passage');
    assert.ok(dot(a, b) > 0.5);
    assert.ok(dot(a, b) > dot(a, c) + 0.3);
  });

  it('returns a zero vector for empty text instead of NaN', () => {
    const v = encode('', 'passage');
    assert.ok(v.every((x) => x === 0));
  });

  // Speed lives in scripts/bench-retrieval.ts (no timed assertions here: shared, noisy machines).
  it('gives the same vector with a cold or warm n-gram cache', () => {
    const text = Array.from({ length: 200 }, (_, j) => `token${j % 37} cells${j % 11}`).join(' ');
    const first = encode(text, 'passage');
    for (let i = 0; i < 50; i++) encode(`filler ${i} words${i}`, 'passage');
    assert.deepEqual(encode(text, 'passage'), first);
    assert.ok(first.every((x) => Number.isFinite(x)));
  });

  it('provider exposes id, model, key and embeds batches', async () => {
    const p = new EmbeddedProvider();
    assert.equal(p.id, 'embedded');
    assert.equal(p.model, EMBEDDED_MODEL);
    assert.equal(p.key, `embedded-${EMBEDDED_MODEL}`);
    assert.equal(await p.dimension(), EMBEDDED_DIM);
    const [a, b] = await p.embed(['alpha beta', 'gamma'], { kind: 'passage' });
    assert.deepEqual(a, encode('alpha beta', 'passage'));
    assert.equal(b.length, EMBEDDED_DIM);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(p.embed(['x'], { signal: ac.signal }), /aborted/);
  });
});
