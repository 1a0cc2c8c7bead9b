import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeVectorFile, encodeVectorFile, VectorFileError } from '../../src/core/index/store/vectorFile';
import { VECTOR_FILE } from '../../src/core/index/store/shards';

function items(n: number, dim: number) {
  return Array.from({ length: n }, (_, i) => ({
    id: `hash-${i}é:${i}`,
    vector: Float32Array.from({ length: dim }, (_, j) => Math.sin(i * 31 + j) / 7),
  }));
}

describe('vector shard files (vectra protobuf layout)', function () {
  it('round-trips ids and float32 vectors', () => {
    const src = items(50, 384);
    const out = decodeVectorFile(encodeVectorFile(src));
    assert.equal(out.dim, 384);
    assert.deepEqual(
      out.ids,
      src.map((x) => x.id),
    );
    for (let i = 0; i < src.length; i++) assert.deepEqual(out.vectors.subarray(i * 384, (i + 1) * 384), src[i].vector);
  });

  it('writes files vectra reads, and reads files vectra writes', async () => {
    const { LocalIndex, ProtobufCodec } = await import('vectra');
    const src = items(20, 16);
    const ours = await fs.mkdtemp(join(tmpdir(), 'ss-vf-'));
    await fs.writeFile(join(ours, VECTOR_FILE), encodeVectorFile(src));
    const index = new LocalIndex(ours, undefined, undefined, new ProtobufCodec());
    assert.equal(index.indexName, VECTOR_FILE);
    const listed = await index.listItems();
    assert.deepEqual(
      listed.map((x) => x.id),
      src.map((x) => x.id),
    );
    listed.forEach((x, i) => {
      assert.deepEqual(Float32Array.from(x.vector), src[i].vector);
      const norm = Math.sqrt(src[i].vector.reduce((s, v) => s + v * v, 0));
      assert.ok(Math.abs(x.norm - norm) < 1e-12);
    });

    const theirs = await fs.mkdtemp(join(tmpdir(), 'ss-vf-'));
    const v = new LocalIndex(theirs, undefined, undefined, new ProtobufCodec());
    await v.createIndex({ version: 1, deleteIfExists: true });
    await v.batchInsertItems(src.map((x) => ({ id: x.id, vector: Array.from(x.vector), metadata: {} })));
    const back = decodeVectorFile(await fs.readFile(join(theirs, v.indexName)));
    assert.deepEqual(
      back.ids,
      src.map((x) => x.id),
    );
    assert.deepEqual(back.vectors, Float32Array.from(src.flatMap((x) => Array.from(x.vector))));
  });

  it('reports truncated or malformed files', () => {
    const buf = encodeVectorFile(items(5, 8));
    assert.throws(() => decodeVectorFile(buf.subarray(0, buf.length - 7)), VectorFileError);
    assert.deepEqual(decodeVectorFile(new Uint8Array(0)).ids, []);
  });
});
