/**
 * A member's copy of a new generation made from its copy of the last one (issue 37). A lab's
 * republication adds or replaces a few PDFs; a member's first start on it would read every row from
 * the server and build the lexical postings in memory again (85 s at a million passages). Contents
 * do not change on the server (they are keyed by content hash, passage and term versions), so the
 * earlier copy's shards whose sources are all still there, with the same contents, are hard-linked into
 * the new copy as they are (no byte read, written or hashed again); the other sources are written
 * into new shards, from the earlier copy where it holds them, and only those that are new or
 * replaced are read from the server. The copy is then loaded as a local index is. Where most of the
 * library would be written again (changes spread over every shard), it is not worth it: the caller
 * reads the generation instead (read.ts, taking the contents it can from the earlier copy).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { EmbeddingProvider } from '../../embedding/provider';
import { copyConfined, hashConfined, statConfined, type ConfinedFile } from '../../util/confinedFiles';
import type { ShardRecord, SourceRecord, VectorShardRecord } from '../store/manifest';
import { POSTINGS_VERSION } from '../store/versions';
import type { ShardChecks } from '../store/shardChecks';
import { VECTOR_FILE } from '../store/shards';
import type { LibraryServer } from './connection';
import { writeCopy, type CopyInProgress, type EarlierCopy } from './memberCopy';
import { readPublishedContents, ROWS_PER_SHARD, type PublishedContent, type ReusedContents, type ServerGeneration } from './read';

/** How the new copy was made: its contents taken from the earlier copy, of all. */
export type NextCopy = { dir: string; reused: ReusedContents };

/**
 * Writes the copy of generation `g` from this machine's copy of an earlier one (`earlier`) and the
 * server; undefined when most of it would be written again.
 *
 * An earlier shard is linked where all its sources are still the generation's, with the same
 * contents, wherever the generation now lists them: rankings, cards and similarity figures do not
 * depend on the rows' order (core/retrieval/tieKeys.ts), so the copy's rows need not follow the
 * generation's. The other sources are written into new shards after the linked ones, in the
 * generation's order, from the earlier copy where it has them, else from the server.
 */
export async function writeNextCopy(
  workspace: string,
  server: LibraryServer,
  g: ServerGeneration,
  provider: Pick<EmbeddingProvider, 'key' | 'id' | 'model'>,
  dim: number,
  earlier: EarlierCopy,
): Promise<NextCopy | undefined> {
  const lib = g.library;
  const { m: old, set: oldSet } = earlier;
  const wanted = new Map(lib.sources.map((r) => [r.id, r]));

  // The earlier copy's shards, each with its sources in row order (the manifest lists them so: ids are
  // 16 hex digits, never the integer-like keys an object would put first).
  const runs = new Map<number, SourceRecord[]>();
  for (const r of Object.values(old.sources)) {
    const run = runs.get(r.shard);
    if (run) run.push(r);
    else runs.set(r.shard, [r]);
  }
  // The earlier shards whose sources the generation all keeps, with the same contents.
  const keep: number[] = [];
  let linkedRows = 0;
  for (const [shard, run] of runs) {
    const rec = old.shards[shard];
    if (!rec || !oldSet.shards[shard] || rec.postings?.version !== POSTINGS_VERSION) continue;
    if (rec.passages !== run.reduce((n, r) => n + r.passages, 0)) continue;
    if (!run.every((r) => wanted.get(r.id)?.contentHash === r.contentHash)) continue;
    keep.push(shard);
    linkedRows += rec.passages;
  }
  const total = lib.sources.reduce((n, r) => n + r.passages, 0);
  if (linkedRows < total - linkedRows) return undefined;

  // The new copy: the earlier shards linked (their files checked first: a damaged one's sources are
  // written as the others), then the other sources in the generation's order.
  const linked: Array<{ shard: number; run: SourceRecord[]; files: ShardFile[] }> = [];
  const inLinked = new Set<string>();
  for (const shard of keep) {
    const files = await shardFiles(earlier.dir, old.shards[shard], oldSet.shards[shard], earlier.checks);
    if (!files) continue;
    const run = runs.get(shard)!;
    linked.push({ shard, run, files });
    for (const r of run) inLinked.add(r.id);
  }
  const loose = lib.sources.filter((r) => !inLinked.has(r.id));
  // Their contents: from the earlier copy where it holds them, else from the server.
  const contents = new Map<string, PublishedContent>();
  await earlier.take(new Map(loose.map((r) => [r.contentHash, r.passages])), (h, passages, vector) => {
    const vectors = passages.map((_, i) => {
      const v = new Float32Array(dim);
      vector(i, new Uint8Array(v.buffer), 0);
      return v;
    });
    contents.set(h, { passages, vectors });
  });
  const fromServer = [...new Set(loose.filter((r) => !contents.has(r.contentHash)).map((r) => r.contentHash))];
  for (const [h, c] of await readPublishedContents(server, lib, provider.key, dim, fromServer)) contents.set(h, c);

  // New shards' files named apart from every linked one's.
  const gen =
    1 + Math.max(0, ...Object.values(old.shards).map((x) => x.gen), ...Object.values(oldSet.shards).map((x) => Number(/\.g(\d+)$/.exec(x.dir)?.[1] ?? 0)));
  const dir = await writeCopy(workspace, server, g, provider, dim, { pagesFrom: earlier.dir, gen }, async (copy) => {
    let no = 0;
    let batch: SourceRecord[] = [];
    let rows = 0;
    const flush = async () => {
      if (!batch.length) return;
      const items: Array<{ id: string; vector: Float32Array }> = [];
      const sources = batch.map((r) => {
        const c = contents.get(r.contentHash);
        if (!c || c.passages.length !== r.passages) throw new Error(`the server holds ${c?.passages.length ?? 0} of the ${r.passages} passages of ${r.path}`);
        c.vectors.forEach((vector, i) => items.push({ id: `${r.contentHash}:${i}`, vector }));
        return { id: r.id, contentHash: r.contentHash, passages: c.passages };
      });
      await copy.writeShard(no, sources, items);
      for (const r of batch) copy.sources[r.id] = { ...r, shard: no };
      no++;
      batch = [];
      rows = 0;
    };
    for (const x of linked) {
      await linkShard(copy, earlier.dir, no, old.shards[x.shard], oldSet.shards[x.shard], x.files);
      for (const r of x.run) copy.sources[r.id] = { ...wanted.get(r.id)!, shard: no };
      no++;
    }
    for (const r of loose) {
      batch.push(r);
      rows += r.passages;
      if (rows >= ROWS_PER_SHARD) await flush();
    }
    await flush();
  });
  const hashes = new Set(lib.sources.map((r) => r.contentHash));
  return { dir, reused: { generation: earlier.generation, contents: hashes.size - fromServer.length, of: hashes.size } };
}

/** A shard file of the earlier copy, checked: its path there, what it was found as, and its checksum. */
type ShardFile = { rel: string; sha: string; found: ConfinedFile };

/**
 * The files of an earlier copy's shard (its passages, postings and vectors) when they are whole: a
 * file the earlier copy's writer hashed and nothing changed since is trusted (shardChecks.ts), any
 * other is hashed; undefined when one is not (missing, changed, not a plain file of the copy).
 */
async function shardFiles(from: string, rec: ShardRecord, vec: VectorShardRecord, checks: ShardChecks): Promise<ShardFile[] | undefined> {
  if (!rec.postings) return undefined;
  const rule = { kind: 'index' as const, within: [from] };
  const out: ShardFile[] = [];
  for (const [rel, sha] of [
    [rec.file, rec.sha256],
    [rec.postings.file, rec.postings.sha256],
    [`${vec.dir}/${VECTOR_FILE}`, vec.sha256],
  ] as const) {
    // Confined to the earlier copy, a plain file (a link or device planted there is not taken).
    const found = await statConfined(path.join(from, rel), rule).catch(() => undefined);
    if (!found) return undefined;
    if (!checks.known(rel, found, sha) && (await hashConfined(found.path, rule).catch(() => '')) !== sha) return undefined;
    out.push({ rel, sha, found });
  }
  return out;
}

/**
 * Hard-links (a copy where the file system has none) an earlier copy's shard, its `files` checked,
 * into the copy being written as shard `no`. Throws when a file changed since it was checked.
 */
async function linkShard(copy: CopyInProgress, from: string, no: number, rec: ShardRecord, vec: VectorShardRecord, files: ShardFile[]): Promise<void> {
  for (const { rel, sha, found } of files) {
    const to = path.join(copy.dir, rel);
    await fs.mkdir(path.dirname(to), { recursive: true });
    let linked = true;
    await fs.link(found.path, to).catch(async () => {
      linked = false;
      await copyConfined(found.path, to, { kind: 'index', within: [from] });
    });
    const st = await fs.stat(to);
    // What was checked is what was linked or copied (a file replaced in between is not vouched for).
    const same = linked
      ? st.ino === found.ino && st.size === found.size && st.mtimeMs === found.mtimeMs
      : (await hashConfined(to, { kind: 'index', within: [copy.dir] }).catch(() => '')) === sha;
    if (!same) throw new Error(`${rel} of the earlier copy changed while it was linked`);
    await copy.checks.wrote(rel, sha);
  }
  copy.shards[no] = rec;
  copy.vectorShards[no] = vec;
}
