/**
 * Shard files. Sources are grouped into shards of bounded size so no single file
 * grows past what can be saved (vectra cannot save 100k vectors in one file).
 * - passages/shard-N.gG.json: the passages of the shard's sources (model-independent);
 * - vectors/<model>/shard-N.gG/: a vectra LocalIndex (float32 protobuf codec) whose
 *   item ids are `<content hash>:<passage index>`, so vectors survive moves and
 *   model switches.
 * Every file is checksummed in the manifest; a mismatch is reported as corruption.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileSha256, sha256, writeFileAtomic } from '../util/atomicWrite';
import { IndexCorruptError, type ShardRecord, type VectorShardRecord } from './manifest';

export interface StoredPassage {
  /** page */
  p: number;
  /** page label */
  l?: string;
  /** end page */
  e: number;
  /** heading */
  h?: string;
  /** text */
  t: string;
  /** lexical terms, space-separated (saves re-tokenising 100k passages at load) */
  k: string;
}

export interface ShardSource {
  id: string;
  contentHash: string;
  passages: StoredPassage[];
}

export async function writePassageShard(dir: string, shard: number, gen: number, sources: ShardSource[]): Promise<ShardRecord> {
  const file = `passages/shard-${shard}.g${gen}.json`;
  const text = JSON.stringify({ shard, gen, sources });
  await writeFileAtomic(path.join(dir, file), text);
  return { gen, file, sha256: sha256(text), passages: sources.reduce((n, s) => n + s.passages.length, 0) };
}

export async function readPassageShard(dir: string, rec: ShardRecord): Promise<ShardSource[]> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(path.join(dir, rec.file));
  } catch {
    throw new IndexCorruptError(`passage shard ${rec.file} is missing`);
  }
  if (sha256(buf) !== rec.sha256) throw new IndexCorruptError(`passage shard ${rec.file} is damaged (checksum mismatch)`);
  try {
    return (JSON.parse(buf.toString('utf8')) as { sources: ShardSource[] }).sources;
  } catch {
    throw new IndexCorruptError(`passage shard ${rec.file} is not valid JSON`);
  }
}

type VectraModule = typeof import('vectra');
let vectra: Promise<VectraModule> | undefined;
/** vectra costs ~360 ms and 120 MB to load: only when an index is touched. */
const loadVectra = () => (vectra ??= import('vectra'));

export async function writeVectorShard(
  dir: string,
  modelKey: string,
  shard: number,
  passagesGen: number,
  gen: number,
  items: Array<{ id: string; vector: Float32Array }>,
): Promise<VectorShardRecord> {
  const { LocalIndex, ProtobufCodec } = await loadVectra();
  const rel = `vectors/${modelKey}/shard-${shard}.g${gen}`;
  const folder = path.join(dir, rel);
  await fs.rm(folder, { recursive: true, force: true });
  await fs.mkdir(folder, { recursive: true });
  const index = new LocalIndex(folder, undefined, undefined, new ProtobufCodec());
  await index.createIndex({ version: 1, deleteIfExists: true });
  if (items.length) {
    await index.batchInsertItems(items.map((it) => ({ id: it.id, vector: Array.from(it.vector), metadata: {} })));
  }
  const file = path.join(folder, index.indexName);
  // vectra writes in place; the generation folder plus the manifest commit make it atomic.
  const handle = await fs.open(file, 'r+');
  await handle.sync();
  await handle.close();
  return { passagesGen, dir: rel, sha256: await fileSha256(file), items: items.length };
}

export async function readVectorShard(dir: string, rec: VectorShardRecord): Promise<Map<string, Float32Array>> {
  const { LocalIndex, ProtobufCodec } = await loadVectra();
  const folder = path.join(dir, rec.dir);
  const index = new LocalIndex(folder, undefined, undefined, new ProtobufCodec());
  const file = path.join(folder, index.indexName);
  let sum: string;
  try {
    sum = await fileSha256(file);
  } catch {
    throw new IndexCorruptError(`vector shard ${rec.dir} is missing`);
  }
  if (sum !== rec.sha256) throw new IndexCorruptError(`vector shard ${rec.dir} is damaged (checksum mismatch)`);
  const out = new Map<string, Float32Array>();
  for (const item of await index.listItems()) out.set(item.id, Float32Array.from(item.vector));
  return out;
}

/** Removes files the manifest no longer names (old generations, crashed writes). */
export async function collectGarbage(dir: string, keep: Set<string>): Promise<number> {
  let removed = 0;
  const passages = path.join(dir, 'passages');
  for (const name of await fs.readdir(passages).catch(() => [] as string[])) {
    const rel = `passages/${name}`;
    if (!keep.has(rel)) {
      await fs.rm(path.join(passages, name), { force: true });
      removed++;
    }
  }
  const vectors = path.join(dir, 'vectors');
  for (const model of await fs.readdir(vectors).catch(() => [] as string[])) {
    for (const name of await fs.readdir(path.join(vectors, model)).catch(() => [] as string[])) {
      const rel = `vectors/${model}/${name}`;
      if (!keep.has(rel)) {
        await fs.rm(path.join(vectors, model, name), { recursive: true, force: true });
        removed++;
      }
    }
  }
  return removed;
}
