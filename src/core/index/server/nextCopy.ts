/**
 * A member's copy of a new generation made from its copy of the last one (issue 37). A lab's
 * republication adds or replaces a few PDFs; a member's first start on it would read every row from
 * the server and build the lexical postings in memory again (85 s at a million passages). Contents
 * do not change on the server (they are keyed by content hash, passage and term versions), so the
 * earlier copy's shards whose sources are all still there are hard-linked into the new copy as they
 * are (no byte read, written or hashed again), the shards that lost a source are written again
 * with the rest, and only the sources that are new (or moved) are read from the server, into shards
 * of their own. The copy is then loaded as a local index is. Where most of the library would be
 * written again (changes spread over every shard), it is not worth it: the caller reads the
 * generation instead (read.ts, taking the contents it can from the earlier copy).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { EmbeddingProvider } from '../../embedding/provider';
import { copyConfined, hashConfined, statConfined, type ConfinedFile } from '../../util/confinedFiles';
import type { ShardRecord, SourceRecord, VectorShardRecord } from '../store/manifest';
import { POSTINGS_VERSION } from '../store/versions';
import { ShardChecks } from '../store/shardChecks';
import { VECTOR_FILE, type ShardSource } from '../store/shards';
import type { LibraryServer } from './connection';
import { readCopyShard, usableCopy, writeCopy, type CopyInProgress } from './memberCopy';
import { readPublishedContents, ROWS_PER_SHARD, type ReusedContents, type ServerGeneration } from './read';

/** How the new copy was made: its contents taken from the earlier copy, of all. */
export type NextCopy = { dir: string; reused: ReusedContents };

/**
 * Writes the copy of generation `g` from the copy of an earlier one at `earlier` (of generation
 * `earlierGeneration`) and the server; undefined when that copy cannot serve (other passage or term
 * rules, another vector size) or would be mostly written again.
 */
export async function writeNextCopy(
  workspace: string,
  server: LibraryServer,
  g: ServerGeneration,
  provider: Pick<EmbeddingProvider, 'key' | 'id' | 'model'>,
  dim: number,
  earlier: { dir: string; generation: number },
): Promise<NextCopy | undefined> {
  const lib = g.library;
  const copy0 = await usableCopy(earlier.dir, provider.key, dim, lib);
  if (!copy0) return undefined;
  const { m: old, set: oldSet } = copy0;
  const wanted = new Map(lib.sources.map((r) => [r.id, r]));
  const kept = (id: string, contentHash: string) => wanted.get(id)?.contentHash === contentHash;

  // Each earlier shard: linked (all its sources kept, and it holds no other), written again with those kept, or left.
  const byShard = new Map<number, SourceRecord[]>();
  for (const r of Object.values(old.sources)) byShard.set(r.shard, [...(byShard.get(r.shard) ?? []), r]);
  const link: number[] = [];
  const rewrite: number[] = [];
  let linkedRows = 0;
  let rewrittenRows = 0;
  for (const [shard, rs] of byShard) {
    const rec = old.shards[shard];
    if (!rec || !oldSet.shards[shard]) continue;
    const keep = rs.filter((r) => kept(r.id, r.contentHash));
    if (!keep.length) continue;
    const whole = keep.length === rs.length && rec.passages === rs.reduce((n, r) => n + r.passages, 0) && rec.postings?.version === POSTINGS_VERSION;
    if (whole) {
      link.push(shard);
      linkedRows += rec.passages;
    } else {
      rewrite.push(shard);
      rewrittenRows += keep.reduce((n, r) => n + r.passages, 0);
    }
  }
  if (rewrittenRows > linkedRows) return undefined;

  const oldChecks = await ShardChecks.read(earlier.dir);
  const placed = new Set<string>();
  let fromServer = new Set<string>();
  const dir = await writeCopy(workspace, server, g, provider, dim, earlier.dir, async (copy) => {
    for (const shard of link)
      if (await linkShard(copy, earlier.dir, shard, old.shards[shard], oldSet.shards[shard], oldChecks)) place(copy, shard, byShard.get(shard)!);
    const scratch = { buf: Buffer.alloc(0) };
    for (const shard of rewrite) {
      // A shard damaged or gone: its sources are read from the server.
      const read = await readCopyShard(earlier.dir, copy0, shard, dim, oldChecks, scratch);
      if (!read) continue;
      const sources: ShardSource[] = [];
      const items: Array<{ id: string; vector: Float32Array }> = [];
      for (const { source: s, vector } of read) {
        if (!kept(s.id, s.contentHash) || s.passages.length !== wanted.get(s.id)!.passages) continue;
        for (let i = 0; i < s.passages.length; i++) {
          const v = new Float32Array(dim);
          vector(i, new Uint8Array(v.buffer), 0);
          items.push({ id: `${s.contentHash}:${i}`, vector: v });
        }
        sources.push(s);
      }
      await copy.writeShard(shard, sources, items);
      place(
        copy,
        shard,
        sources.map((s) => wanted.get(s.id)!),
      );
    }
    // The rest (new PDFs, replaced ones, moved ones, those of a damaged shard): from the server, in
    // shards after the earlier copy's, grouped as the server's rows are.
    const missing = lib.sources.filter((r) => !placed.has(r.id));
    fromServer = new Set(missing.map((r) => r.contentHash));
    const contents = await readPublishedContents(server, lib, provider.key, dim, [...new Set(missing.map((r) => r.contentHash))]);
    let no = Math.max(-1, ...Object.keys(old.shards).map(Number)) + 1;
    let batch: ShardSource[] = [];
    let items: Array<{ id: string; vector: Float32Array }> = [];
    let rows = 0;
    const emit = async () => {
      await copy.writeShard(no, batch, items);
      place(
        copy,
        no++,
        batch.map((s) => wanted.get(s.id)!),
      );
      batch = [];
      items = [];
      rows = 0;
    };
    for (const r of missing) {
      const c = contents.get(r.contentHash);
      if (!c || c.passages.length !== r.passages) throw new Error(`the server holds ${c?.passages.length ?? 0} of the ${r.passages} passages of ${r.path}`);
      batch.push({ id: r.id, contentHash: r.contentHash, passages: c.passages });
      c.vectors.forEach((vector, i) => items.push({ id: `${r.contentHash}:${i}`, vector }));
      rows += r.passages;
      if (rows >= ROWS_PER_SHARD) await emit();
    }
    if (batch.length) await emit();
  });
  const hashes = new Set(lib.sources.map((r) => r.contentHash));
  return { dir, reused: { generation: earlier.generation, contents: hashes.size - fromServer.size, of: hashes.size } };

  function place(copy: CopyInProgress, shard: number, records: SourceRecord[]) {
    for (const r of records) {
      copy.sources[r.id] = { ...wanted.get(r.id)!, shard };
      placed.add(r.id);
    }
  }
}

/**
 * Hard-links shard `shard` of the earlier copy at `from` (its passages, postings and vectors) into
 * the copy being written, when its files are whole: a file the earlier copy's writer hashed and
 * nothing changed since is trusted (shardChecks.ts), any other is hashed. False when one is not
 * (missing, changed, not a plain file): its sources are then read from the server.
 */
async function linkShard(copy: CopyInProgress, from: string, shard: number, rec: ShardRecord, vec: VectorShardRecord, checks: ShardChecks): Promise<boolean> {
  if (!rec.postings) return false;
  const files: Array<[string, string]> = [
    [rec.file, rec.sha256],
    [rec.postings.file, rec.postings.sha256],
    [`${vec.dir}/${VECTOR_FILE}`, vec.sha256],
  ];
  const rule = { kind: 'index' as const, within: [from] };
  const seen: ConfinedFile[] = [];
  for (const [rel, sha] of files) {
    // Confined to the earlier copy, a plain file (a link or device planted there is not taken).
    const st = await statConfined(path.join(from, rel), rule).catch(() => undefined);
    if (!st) return false;
    if (!checks.known(rel, st, sha) && (await hashConfined(st.path, rule).catch(() => '')) !== sha) return false;
    seen.push(st);
  }
  const made: string[] = [];
  for (const [n, [rel, sha]] of files.entries()) {
    const to = path.join(copy.dir, rel);
    await fs.mkdir(path.dirname(to), { recursive: true });
    made.push(to);
    let linked = true;
    // A file system without hard links (some removable drives) gets a copy.
    await fs.link(seen[n].path, to).catch(async () => {
      linked = false;
      await copyConfined(seen[n].path, to, rule);
    });
    const st = await fs.stat(to);
    // What was checked is what was linked or copied (a file replaced in between is not vouched for).
    const same = linked
      ? st.ino === seen[n].ino && st.size === seen[n].size && st.mtimeMs === seen[n].mtimeMs
      : (await hashConfined(to, { kind: 'index', within: [copy.dir] }).catch(() => '')) === sha;
    if (!same) {
      for (const f of made) await fs.rm(f, { force: true });
      return false;
    }
    await copy.checks.wrote(rel, sha);
  }
  copy.shards[shard] = rec;
  copy.vectorShards[shard] = vec;
  return true;
}
