/**
 * Shard files. Sources are grouped into shards of bounded size so no single file
 * grows past what can be saved (vectra cannot save 100k vectors in one file).
 * - passages/shard-N.gG.json: the passages of the shard's sources (model-independent);
 * - passages/shard-N.gG.postings: derived from the JSON, what opening the index reads
 *   (lexical postings, where each passage lies in the JSON: postingsFile.ts);
 * - vectors/<model>/shard-N.gG/: a vectra LocalIndex (float32 protobuf codec) whose
 *   item ids are `<content hash>:<passage index>`, so vectors survive moves and
 *   model switches.
 * Every file is checksummed in the manifest; a mismatch is reported as corruption.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../util/atomicWrite';
import { openConfined, readConfined } from '../../util/confinedFiles';
import { sha256 } from '../../util/hash';
import { decodeVectorFile, encodeVectorFile, type DecodedVectors } from './vectorFile';
import { IndexCorruptError, type PostingsRecord, type ShardRecord, type VectorShardRecord } from './manifest';
import { decodePostings, encodeShard, PostingsFileError, type ShardPostings } from './postingsFile';
import { POSTINGS_VERSION } from './versions';
import type { ShardChecks } from './shardChecks';

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
  /** 1 when the passage's text comes from OCR (the user should check the quotation against the page) */
  o?: 1;
}

export interface ShardSource {
  id: string;
  contentHash: string;
  passages: StoredPassage[];
}

export async function writePassageShard(dir: string, shard: number, gen: number, sources: ShardSource[]): Promise<ShardRecord> {
  const file = `passages/shard-${shard}.g${gen}.json`;
  const { json, postings } = encodeShard(shard, gen, sources);
  await writeFileAtomic(path.join(dir, file), json);
  const rec: ShardRecord = { gen, file, sha256: sha256(json), passages: sources.reduce((n, s) => n + s.passages.length, 0) };
  rec.postings = await writePostingsFile(dir, rec, postings);
  return rec;
}

async function writePostingsFile(dir: string, rec: ShardRecord, bytes: Uint8Array): Promise<PostingsRecord> {
  const file = rec.file.replace(/\.json$/, '.postings');
  await writeFileAtomic(path.join(dir, file), bytes);
  return { file, sha256: sha256(bytes), version: POSTINGS_VERSION };
}

/**
 * Writes the postings file of a shard that lacks a usable one (an index from before
 * postings files, or a damaged file), from the shard's passages: the JSON file is not
 * rewritten, so the offsets must match its bytes, which the checksum proves.
 * Undefined when they would not (a JSON file this version did not write).
 */
export async function upgradeShardPostings(dir: string, key: string, rec: ShardRecord, sources: ShardSource[]): Promise<PostingsRecord | undefined> {
  const { json, postings } = encodeShard(Number(key), rec.gen, sources);
  if (sha256(json) !== rec.sha256) return undefined;
  return writePostingsFile(dir, rec, postings);
}

/**
 * A shard's postings file, checksum and layout verified; undefined when the shard has
 * none of this version or it is damaged (the caller reads the JSON instead).
 */
export async function readShardPostings(dir: string, rec: ShardRecord, checks?: ShardChecks): Promise<ShardPostings | undefined> {
  if (!rec.postings || rec.postings.version !== POSTINGS_VERSION) return undefined;
  let read: { buf: Buffer; known: boolean };
  try {
    read = await readChecked(dir, rec.postings.file, rec.postings.sha256, checks);
  } catch {
    return undefined;
  }
  const { buf } = read;
  if (!read.known && sha256(buf) !== rec.postings.sha256) return undefined;
  try {
    return decodePostings(buf);
  } catch (err) {
    if (err instanceof PostingsFileError) return undefined;
    throw err;
  }
}

/** Whether a shard's postings file is there, of this version and intact (what the indexer checks before keeping it). */
export async function postingsUsable(dir: string, rec: ShardRecord): Promise<boolean> {
  return (await readShardPostings(dir, rec)) !== undefined;
}

/** A passage shard's sources, checksum verified (not hashed again where `checks` vouches for the file). */
export async function readPassageShard(dir: string, rec: ShardRecord, checks?: ShardChecks): Promise<ShardSource[]> {
  let buf: Buffer;
  let known = false;
  try {
    if (checks) ({ buf, known } = await readChecked(dir, rec.file, rec.sha256, checks));
    else buf = (await readConfined(path.join(dir, rec.file), { kind: 'index', within: [dir] })).bytes;
  } catch {
    throw new IndexCorruptError(`passage shard ${rec.file} is missing`);
  }
  if (!known && sha256(buf) !== rec.sha256) throw new IndexCorruptError(`passage shard ${rec.file} is damaged (checksum mismatch)`);
  try {
    return (JSON.parse(buf.toString('utf8')) as { sources: ShardSource[] }).sources;
  } catch {
    throw new IndexCorruptError(`passage shard ${rec.file} is not valid JSON`);
  }
}

/** File name vectra's LocalIndex gives a ProtobufCodec index (`index` + codec extension). */
export const VECTOR_FILE = 'index.pb';

/**
 * Writes a vector shard as a vectra LocalIndex folder (float32 protobuf codec). The
 * bytes are encoded here (vectorFile.ts), in the codec's exact layout: vectra itself
 * costs ~360 ms to load and inserts in O(N²).
 */
/**
 * The vectors `have` holds for a shard's passages, in passage order, and whether every
 * passage has one (a complete shard is marked synced with its passage generation).
 */
export function shardVectorItems(
  sources: ShardSource[],
  have: Map<string, Float32Array>,
): { items: Array<{ id: string; vector: Float32Array }>; complete: boolean } {
  const items: Array<{ id: string; vector: Float32Array }> = [];
  let complete = true;
  for (const src of sources) {
    src.passages.forEach((_, i) => {
      const id = `${src.contentHash}:${i}`;
      const v = have.get(id);
      if (v) items.push({ id, vector: v });
      else complete = false;
    });
  }
  return { items, complete };
}

export async function writeVectorShard(
  dir: string,
  modelKey: string,
  shard: number,
  passagesGen: number,
  gen: number,
  items: Array<{ id: string; vector: Float32Array }>,
): Promise<VectorShardRecord> {
  const rel = `vectors/${modelKey}/shard-${shard}.g${gen}`;
  const folder = path.join(dir, rel);
  await fs.rm(folder, { recursive: true, force: true });
  const bytes = encodeVectorFile(items);
  // The generation folder plus the manifest commit make it atomic.
  await writeFileAtomic(path.join(folder, VECTOR_FILE), bytes);
  return { passagesGen, dir: rel, sha256: sha256(bytes), items: items.length };
}

/**
 * A vector shard's file bytes, checksum verified (unless `checks` knows the file: a writer
 * hashed it and its size and time have not changed since). With `scratch`, read into its
 * buffer (grown when too small) and valid until the next read into it: loading reads every
 * shard in turn without a fresh allocation each.
 */
export async function readVectorShardBytes(dir: string, rec: VectorShardRecord, scratch?: { buf: Buffer }, checks?: ShardChecks): Promise<Buffer> {
  let read: { buf: Buffer; known: boolean };
  try {
    read = await readChecked(dir, `${rec.dir}/${VECTOR_FILE}`, rec.sha256, checks, scratch);
  } catch {
    throw new IndexCorruptError(`vector shard ${rec.dir} is missing`);
  }
  if (!read.known && sha256(read.buf) !== rec.sha256) throw new IndexCorruptError(`vector shard ${rec.dir} is damaged (checksum mismatch)`);
  return read.buf;
}

/**
 * An index file's bytes (into `scratch`'s buffer when given), and whether `checks` vouches for
 * them: the size and time read with them are those of a file a writer hashed to `sha`.
 */
async function readChecked(
  dir: string,
  rel: string,
  sha: string,
  checks: ShardChecks | undefined,
  scratch?: { buf: Buffer },
): Promise<{ buf: Buffer; known: boolean }> {
  const { handle: fh } = await openConfined(path.join(dir, rel), { kind: 'index', within: [dir] });
  try {
    const st = await fh.stat();
    const size = st.size;
    // Without scratch, a buffer of its own (never a slice of Node's pool: views on it are aligned).
    if (!scratch) scratch = { buf: Buffer.allocUnsafeSlow(size) };
    else if (scratch.buf.length < size) scratch.buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const { bytesRead } = await fh.read(scratch.buf, got, size - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { buf: scratch.buf.subarray(0, got), known: got === size && !!checks?.known(rel, st, sha) };
  } finally {
    await fh.close();
  }
}

/** A vector shard's ids and vectors, checksum verified. */
export async function readVectorShardRaw(dir: string, rec: VectorShardRecord): Promise<DecodedVectors> {
  const buf = await readVectorShardBytes(dir, rec);
  try {
    return decodeVectorFile(buf);
  } catch (err) {
    throw new IndexCorruptError(`vector shard ${rec.dir} is damaged (${(err as Error).message})`);
  }
}

export async function readVectorShard(dir: string, rec: VectorShardRecord): Promise<Map<string, Float32Array>> {
  const { ids, vectors, dim } = await readVectorShardRaw(dir, rec);
  const out = new Map<string, Float32Array>();
  // Views into one buffer per shard: no copy per vector.
  for (let i = 0; i < ids.length; i++) out.set(ids[i], vectors.subarray(i * dim, (i + 1) * dim));
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
