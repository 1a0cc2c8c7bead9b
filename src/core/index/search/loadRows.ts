/**
 * The loaded index's rows, read from a manifest's shards: each passage's source and place in
 * its shard file, every shard's postings, and the vectors of one provider+model packed in one
 * Float32Array allocated where the SIMD kernel can scan them (retrieval/simd/vectorStore).
 * Apart from libraryIndex.ts because this is the load's file work (layouts, checksums, vector
 * files in their two layouts), done once per open; the index itself is what serves queries.
 */
import type { PostingsPart } from '../../retrieval/postingsIndex';
import { allocateVectors, quantizing } from '../../retrieval/simd/vectorStore';
import { runInSlices } from '../../util/timeSlices';
import { sha256 } from '../../util/hash';
import { IndexCorruptError, type Manifest, type SourceRecord, type VectorSetRecord } from '../store/manifest';
import { ShardChecks } from '../store/shardChecks';
import { readPassageShard, readShardPostings, readVectorShardBytes } from '../store/shards';
import { PassageReader, type ShardTexts } from '../store/passageReader';
import { decodePostings, encodeShard, type ShardPostings } from '../store/postingsFile';
import { decodeVectorFile, locateVectors, VectorFileError } from '../store/vectorFile';

/** What the index is made of, row by row (a source's passages are consecutive rows). */
export interface LoadedRows {
  /** Rows read: the manifest's count, unless a shard held fewer passages than it says. */
  count: number;
  /** `count` rows of `dim` floats (a row without a vector yet is zeros). */
  vectors: Float32Array;
  /** Which rows have a vector, while the model's vectors are being computed (absent: all do). */
  embedded?: Uint8Array;
  sourceOfRow: Int32Array;
  /** Each row's passage index in its source. */
  passageIndex: Uint32Array;
  sources: SourceRecord[];
  /** Content hash → the row of the first passage of each source with that content. */
  firstRows: Map<string, number[]>;
  /** Each shard's postings, in row order: the lexical index is built from them. */
  parts: PostingsPart[];
  /** Reads a row's passage from its shard on demand. */
  reader: PassageReader;
}

/**
 * A shard as loading needs it: its postings file, or, for a shard without a usable one
 * (an index from before them, a damaged file), the same built from its JSON in memory.
 * Passages of sources the manifest does not name are left out (the slow path).
 */
async function shardLayout(dir: string, key: string, m: Manifest, checks: ShardChecks): Promise<{ postings: ShardPostings; texts: ShardTexts }> {
  const rec = m.shards[key];
  const stored = await readShardPostings(dir, rec, checks);
  if (stored && stored.header.sources.every((s) => m.sources[s.id])) return { postings: stored, texts: { file: rec.file } };
  const all = await readPassageShard(dir, rec);
  const kept = all.filter((s) => m.sources[s.id]);
  const { json, postings } = encodeShard(Number(key), rec.gen, kept);
  const decoded = decodePostings(postings);
  // The offsets point into the file only where its bytes are the ones just laid out.
  if (kept.length === all.length && sha256(json) === rec.sha256) return { postings: decoded, texts: { file: rec.file } };
  return { postings: decoded, texts: { passages: kept.flatMap((s) => s.passages) } };
}

/** A vector shard's items: found by id (the usual case, items in passage order, without a lookup), and each one's bytes. */
export interface ShardVectors {
  dim: number;
  /** The item whose id is `${contentHash}:${index}`; `hint`, the item expected there, is tried first. */
  find(contentHash: string, index: number, hint: number): number | undefined;
  /** Copies item n's vector (little-endian float32 bytes) to `target` at byte `at`, from where it lies in the file when it can. */
  copy(n: number, target: Uint8Array, at: number): void;
}

export function shardVectors(buf: Buffer, what: string): ShardVectors {
  try {
    const loc = locateVectors(buf);
    if (loc) {
      let byId: Map<string, number> | undefined;
      return {
        dim: loc.dim,
        find(hash, index, hint) {
          if (hint < loc.count && loc.idIs(hint, hash, index)) return hint;
          byId ??= new Map(Array.from({ length: loc.count }, (_, n) => [loc.id(n), n]));
          return byId.get(`${hash}:${index}`);
        },
        copy: (n, target, at) => buf.copy(target, at, loc.at[n], loc.at[n] + loc.dim * 4),
      };
    }
    // Another layout (vectra writing floats one by one): decoded.
    const d = decodeVectorFile(buf);
    const bytes = new Uint8Array(d.vectors.buffer, d.vectors.byteOffset, d.vectors.byteLength);
    const byId = new Map(d.ids.map((id, n) => [id, n]));
    return {
      dim: d.dim,
      find: (hash, index) => byId.get(`${hash}:${index}`),
      copy: (n, target, at) => target.set(bytes.subarray(n * d.dim * 4, (n + 1) * d.dim * 4), at),
    };
  } catch (err) {
    if (err instanceof VectorFileError) throw new IndexCorruptError(`vector shard ${what} is damaged (${err.message})`);
    throw err;
  }
}

/** A shard as rows are assembled from it: its postings, where its texts are, and its vectors of the model (if any). */
export interface RowShard {
  postings: ShardPostings;
  texts: ShardTexts;
  vectors?: ShardVectors;
  /** Names the shard's vectors in messages. */
  what?: string;
}

/**
 * Reads every shard of `m` with `set`'s vectors of size `dim`. `pending`: the model's vectors are
 * being computed, so a passage without one is a row without a vector, not a damaged index.
 */
export async function loadRows(dir: string, m: Manifest, set: VectorSetRecord | undefined, dim: number, pending: boolean): Promise<LoadedRows> {
  const shardKeys = Object.keys(m.shards).sort((a, b) => Number(a) - Number(b));
  const total = shardKeys.reduce((n, k) => n + m.shards[k].passages, 0);
  // One buffer for every vector file in turn: its vectors are copied out before the next is read.
  const scratch = { buf: Buffer.alloc(0) };
  // Files a writer hashed and nothing has touched since are not hashed again (at 1M passages,
  // 2.2 GB of vectors and postings: 1.4 s of the load); any other is.
  const checks = await ShardChecks.read(dir);
  async function* shards(): AsyncGenerator<RowShard> {
    for (const key of shardKeys) {
      const vectorShard = set?.shards[key];
      const [layout, vectorFile] = await Promise.all([
        shardLayout(dir, key, m, checks),
        vectorShard ? readVectorShardBytes(dir, vectorShard, scratch, checks) : undefined,
      ]);
      yield { ...layout, vectors: vectorFile ? shardVectors(vectorFile, vectorShard!.dir) : undefined, what: key };
    }
  }
  return assembleRows(dir, shards(), total, m.sources, dim, pending);
}

/**
 * The rows of `shards`, in order (a source's passages consecutive), with `sources`' records, and
 * vectors of size `dim` copied where the SIMD scan reads them: the local index's shards
 * (loadRows) and a library server's generation (server/read.ts) are assembled alike.
 */
export async function assembleRows(
  dir: string,
  shards: AsyncIterable<RowShard>,
  total: number,
  sourcesById: Record<string, SourceRecord>,
  dim: number,
  pending: boolean,
): Promise<LoadedRows> {
  const vectors = allocateVectors(total, dim);
  const vectorBytes = new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength);
  // Which rows have a vector, while the model's vectors are being computed (undefined: all do).
  const embedded = pending ? new Uint8Array(total) : undefined;
  const sourceOfRow = new Int32Array(total);
  const passageIndex = new Uint32Array(total);
  const shardOfRow = new Int32Array(total);
  const jsonStart = new Uint32Array(total);
  const jsonEnd = new Uint32Array(total);
  const hash = new Uint32Array(total);
  const shardBase: number[] = [];
  const texts: ShardTexts[] = [];
  const parts: PostingsPart[] = [];
  const sources: SourceRecord[] = [];
  const sourceNo = new Map<string, number>();
  const firstRows = new Map<string, number[]>();
  let row = 0;
  let si = 0;
  for await (const shard of shards) {
    const { postings, vectors: vectorsOf } = shard;
    if (row + postings.header.passages > total) throw new IndexCorruptError(`shard ${shard.what ?? si} holds more passages than the manifest says`);
    shardBase.push(row);
    texts.push(shard.texts);
    parts.push(postings);
    jsonStart.set(postings.jsonStart, row);
    jsonEnd.set(postings.jsonEnd, row);
    hash.set(postings.hash, row);
    shardOfRow.fill(si, row, row + postings.header.passages);
    let item = 0; // vectors are stored in passage order: item n is usually row n of the shard
    for (const s of postings.header.sources) {
      let no = sourceNo.get(s.id);
      if (no === undefined) {
        no = sources.push(sourcesById[s.id]) - 1;
        sourceNo.set(s.id, no);
      }
      if (s.passages) firstRows.set(s.contentHash, [...(firstRows.get(s.contentHash) ?? []), row]);
      for (let i = 0; i < s.passages; i++, row++) {
        sourceOfRow[row] = no;
        passageIndex[row] = i;
        const at = vectorsOf?.find(s.contentHash, i, item);
        if (at !== undefined && vectorsOf!.dim === dim) {
          vectorsOf!.copy(at, vectorBytes, row * dim * 4);
          if (embedded) embedded[row] = 1;
          item = at + 1;
        } else if (!embedded) throw new IndexCorruptError(`vectors are missing for ${sourcesById[s.id].path}; run the index command again`);
      }
    }
    si++;
  }
  // In slices (~25 ms): at a million passages these take seconds, which an editor's extension
  // host, loading the index in the background, must not be held for at once.
  await runInSlices(quantizing(vectors, dim, row));
  const reader = new PassageReader(dir, texts, Int32Array.from(shardBase), shardOfRow.subarray(0, row), jsonStart, jsonEnd, hash);
  return {
    count: row,
    vectors: row === total ? vectors : vectors.subarray(0, row * dim),
    ...(embedded ? { embedded } : {}),
    sourceOfRow,
    passageIndex,
    sources,
    firstRows,
    parts,
    reader,
  };
}
