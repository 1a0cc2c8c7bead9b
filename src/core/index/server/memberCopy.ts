/**
 * A member's copy of the library server's generation (issue 37): the rows read from the server,
 * written once in the local index's format under the workspace's index folder, so that the next
 * start loads them as a local index is loaded (postings and vectors as files: 5.5 s at a million
 * passages, against 74 s to read and intern them from the server) for as long as the server serves
 * that generation. A new publication is a new generation: it is read from the server again and the
 * old copy removed. A copy is a cache: a damaged or foreign one is removed and the server read.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { EmbeddingProvider } from '../../embedding/provider';
import { writeFileAtomic } from '../../util/atomicWrite';
import { isMissing, readConfinedText } from '../../util/confinedFiles';
import { sha256 } from '../../util/hash';
import { LibraryIndex } from '../search/libraryIndex';
import { shardVectors, type LoadedRows, type ShardVectors } from '../search/loadRows';
import { indexDir, readManifest, type Manifest, type ShardRecord, type SourceRecord, type VectorSetRecord, type VectorShardRecord } from '../store/manifest';
import { linkPageTexts, writePublishedPageTexts } from '../store/pageTexts';
import { ShardChecks } from '../store/shardChecks';
import {
  readPassageShard,
  readVectorShardBytes,
  VECTOR_FILE,
  writePassageShard,
  writeVectorShard,
  type ShardSource,
  type StoredPassage,
} from '../store/shards';
import { serverName, type LibraryServer } from './connection';
import type { PublishedLibrary } from './publish';
import { forEachPublishedPages, generationManifest, ROWS_PER_SHARD, type CopiedContents, type ServerGeneration } from './read';

/** The folder of the copies, in the workspace's index folder. */
export const COPIES_DIR = 'server-copy';
const RECORD = 'copy.json';
/** The generation's Zotero highlights as published (read with the copy when the server is out of reach). */
const HIGHLIGHTS = 'published-highlights.json';

/** What a copy is of: it is used only for the same server, model and generation. */
export interface CopyRecord {
  server: string;
  model: string;
  generation: number;
  publishedAt: string;
  fingerprint: string;
}

function recordOf(server: LibraryServer, model: string, g: ServerGeneration): CopyRecord {
  return { server: serverName(server), model, generation: g.id, publishedAt: g.publishedAt, fingerprint: g.library.fingerprint };
}

/** The copy's folder: named by server and model (never the URL itself: it may hold a user name) and generation. */
export function copyDir(workspace: string, server: LibraryServer, model: string, generation: number): string {
  return path.join(indexDir(workspace), COPIES_DIR, `${sha256(`${serverName(server)}\n${model}`).slice(0, 16)}-g${generation}`);
}

/**
 * The generation `g` loaded from this machine's copy for `provider`, or undefined when there is
 * none of it (or it is damaged or another's: then it is removed, and the caller reads the server).
 */
export async function openMemberCopy(
  workspace: string,
  server: LibraryServer,
  g: ServerGeneration,
  provider: EmbeddingProvider,
): Promise<LibraryIndex | undefined> {
  const dir = copyDir(workspace, server, provider.key, g.id);
  const want = recordOf(server, provider.key, g);
  const have = await readRecord(workspace, dir);
  if (have === 'missing') return undefined;
  if (!have || (Object.keys(want) as (keyof CopyRecord)[]).some((k) => have[k] !== want[k])) {
    await removeCopy(dir);
    return undefined;
  }
  return openCopyAt(workspace, dir, provider, g.highlights ?? '');
}

/** The generations of `server`'s library for `model` copied on this machine, newest first (whole copies only: a folder being written is not one). */
export async function copiedGenerations(workspace: string, server: LibraryServer, model: string): Promise<number[]> {
  const prefix = path.basename(copyDir(workspace, server, model, 0)).replace(/g0$/, 'g');
  const names = await fs.readdir(path.join(indexDir(workspace), COPIES_DIR)).catch(() => [] as string[]);
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .map((n) => Number(n.slice(prefix.length)))
    .sort((a, b) => b - a);
}

/**
 * The newest copy of `server`'s library on this machine (for `model`; any model's when none is
 * named: the citation check reads page texts only), whichever generation the server serves now (it
 * cannot be asked: out of reach); undefined when there is none.
 */
export async function latestCopy(workspace: string, server: LibraryServer, model?: string): Promise<{ dir: string; record: CopyRecord } | undefined> {
  const parent = path.join(indexDir(workspace), COPIES_DIR);
  const dirs =
    model === undefined
      ? (await fs.readdir(parent).catch(() => [] as string[])).filter((n) => /-g\d+$/.test(n)).map((n) => path.join(parent, n))
      : (await copiedGenerations(workspace, server, model)).map((g) => copyDir(workspace, server, model, g));
  let best: { dir: string; record: CopyRecord } | undefined;
  for (const dir of dirs) {
    const r = await readRecord(workspace, dir);
    if (!r || r === 'missing' || r.server !== serverName(server) || (model !== undefined && r.model !== model) || typeof r.generation !== 'number') continue;
    if (`g${r.generation}` !== /g\d+$/.exec(dir)?.[0]) continue;
    if (!best || r.generation > best.record.generation) best = { dir, record: r as CopyRecord };
  }
  return best;
}

/** The newest copy of `server`'s library for `provider`, loaded with its generation's highlights (the server out of reach). */
export async function openLatestCopy(
  workspace: string,
  server: LibraryServer,
  provider: EmbeddingProvider,
): Promise<{ index: LibraryIndex; record: CopyRecord } | undefined> {
  const found = await latestCopy(workspace, server, provider.key);
  if (!found) return undefined;
  let highlights: string;
  try {
    highlights = (await readConfinedText(path.join(found.dir, HIGHLIGHTS), { kind: 'index', within: [indexDir(workspace)] })).text;
  } catch {
    // Written with the copy: a copy without it is not whole.
    await removeCopy(found.dir);
    return undefined;
  }
  const index = await openCopyAt(workspace, found.dir, provider, highlights);
  return index && { index, record: found.record };
}

/**
 * This machine's copy of an earlier generation of `server`'s library (for `model`, vectors of size
 * `dim`), as a new generation `lib` can use it: its manifest, the vectors' record, the checks its
 * writer left, and `take`, which hands over the contents it holds (a republication changes a few
 * PDFs, and contents are immutable on the server: keyed by content hash, passage and term
 * versions). Undefined when there is none, or it was made by other passage or term rules.
 */
export interface EarlierCopy extends CopiedContents {
  dir: string;
  m: Manifest;
  set: VectorSetRecord;
  checks: ShardChecks;
}

export async function earlierCopy(
  workspace: string,
  server: LibraryServer,
  model: string,
  dim: number,
  lib: Pick<PublishedLibrary, 'chunker' | 'lexical'>,
  generation: number,
): Promise<EarlierCopy | undefined> {
  const found = await latestCopy(workspace, server, model);
  if (!found || found.record.generation === generation) return undefined;
  const dir = found.dir;
  const m = await readManifest(dir).catch(() => undefined);
  const set = m?.vectors[model];
  if (!m || !set || set.dim !== dim || m.chunker !== lib.chunker || m.lexical !== lib.lexical) return undefined;
  const checks = await ShardChecks.read(dir);
  return {
    dir,
    generation: found.record.generation,
    m,
    set,
    checks,
    async take(wanted, each) {
      const taken = new Set<string>();
      // One buffer for every vector file in turn (each content's vectors are copied out in `each`).
      const scratch = { buf: Buffer.alloc(0) };
      const shards = new Set<number>();
      for (const r of Object.values(m.sources)) if (wanted.has(r.contentHash)) shards.add(r.shard);
      for (const key of [...shards].sort((a, b) => a - b)) {
        // A shard damaged or gone (another window wrote a newer copy meanwhile): the server has its contents.
        for (const { source: s, vector } of (await readCopyShard(dir, m, set, key, dim, checks, scratch)) ?? []) {
          if (wanted.get(s.contentHash) !== s.passages.length || taken.has(s.contentHash)) continue;
          each(s.contentHash, s.passages, vector);
          taken.add(s.contentHash);
        }
      }
      return taken;
    },
  };
}

/** A source of a copy's shard, with its passages' vectors (`vector` copies passage i's float32 bytes to `target` at byte `at`). */
interface CopiedSource {
  source: ShardSource;
  vector(i: number, target: Uint8Array, at: number): void;
}

/**
 * Shard `key` of the copy at `dir` (`m`, `set`): its sources that have a vector of size `dim` for
 * every passage; undefined when the shard is damaged or gone. The vectors are read into `scratch`,
 * valid until the next shard is read into it.
 */
async function readCopyShard(
  dir: string,
  m: Manifest,
  set: VectorSetRecord,
  key: number,
  dim: number,
  checks: ShardChecks,
  scratch: { buf: Buffer },
): Promise<CopiedSource[] | undefined> {
  const rec = m.shards[key];
  const vectorRec = set.shards[key];
  if (!rec || !vectorRec) return undefined;
  let sources: ShardSource[];
  let vectors: ShardVectors;
  try {
    const [all, bytes] = await Promise.all([readPassageShard(dir, rec, checks), readVectorShardBytes(dir, vectorRec, scratch, checks)]);
    sources = all;
    vectors = shardVectors(bytes, vectorRec.dir);
  } catch {
    return undefined;
  }
  if (vectors.dim !== dim) return undefined;
  const out: CopiedSource[] = [];
  let item = 0; // items are stored in passage order: a source's first is usually here
  for (const source of sources) {
    const first = item;
    item += source.passages.length;
    const at: number[] = [];
    for (let i = 0; i < source.passages.length; i++) {
      const a = vectors.find(source.contentHash, i, first + i);
      if (a === undefined) break;
      at.push(a);
    }
    if (at.length === source.passages.length) out.push({ source, vector: (i, target, byte) => vectors.copy(at[i], target, byte) });
  }
  return out;
}

async function openCopyAt(workspace: string, dir: string, provider: EmbeddingProvider, highlights: string): Promise<LibraryIndex | undefined> {
  try {
    return await LibraryIndex.openCopy(dir, workspace, provider, highlights);
  } catch {
    // Damaged (a file removed or changed since), or written by another version: the server has it all.
    await removeCopy(dir);
    return undefined;
  }
}

/** The copy's record; 'missing' when there is none, undefined when it cannot be read as one. */
async function readRecord(workspace: string, dir: string): Promise<Partial<CopyRecord> | 'missing' | undefined> {
  let text: string;
  try {
    text = (await readConfinedText(path.join(dir, RECORD), { kind: 'index', within: [indexDir(workspace)], maxBytes: 64 * 1024 })).text;
  } catch (err) {
    return isMissing(err) ? 'missing' : undefined;
  }
  try {
    const r = JSON.parse(text) as unknown;
    return r && typeof r === 'object' ? (r as Partial<CopyRecord>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the copy of generation `g`, whose rows (for `provider`'s model) were just read from the
 * server, then removes the workspace's other copies. Written beside the final folder and renamed
 * into place, so that a copy is whole or absent, whoever else writes one meanwhile. Says where it is.
 * `pagesFrom`: an earlier copy whose page texts are taken rather than read from the server again.
 */
export async function writeMemberCopy(
  workspace: string,
  server: LibraryServer,
  g: ServerGeneration,
  provider: Pick<EmbeddingProvider, 'key' | 'id' | 'model'>,
  rows: LoadedRows,
  dim: number,
  opts: { pagesFrom?: string } = {},
): Promise<string> {
  const lib = g.library;
  return writeCopy(workspace, server, g, provider, dim, opts, async (copy) => {
    let batch: ShardSource[] = [];
    let items: Array<{ id: string; vector: Float32Array }> = [];
    let inBatch = 0;
    let no = 0;
    const emit = async () => {
      await copy.writeShard(no++, batch, items);
      batch = [];
      items = [];
      inBatch = 0;
    };
    // The server's rows are in its sources' order (read.ts): the copy keeps that order and the
    // server's grouping into shards, so the rows, and so the cards, are the same as read from it.
    let row = 0;
    for (const r of lib.sources) {
      const passages: StoredPassage[] = [];
      for (; row < rows.count && rows.sources[rows.sourceOfRow[row]].id === r.id; row++) {
        items.push({ id: `${r.contentHash}:${passages.length}`, vector: rows.vectors.subarray(row * dim, (row + 1) * dim) });
        passages.push(rows.reader.read(row));
      }
      copy.sources[r.id] = { ...r, shard: no };
      batch.push({ id: r.id, contentHash: r.contentHash, passages });
      inBatch += passages.length;
      if (inBatch >= ROWS_PER_SHARD) await emit();
    }
    if (batch.length) await emit();
    if (row !== rows.count) throw new Error(`the rows read are not in the order of the generation's sources (${row} of ${rows.count})`);
  });
}

/** A copy being written (writeCopy): its sources' records and its shards, as the manifest will name them. */
export interface CopyInProgress {
  /** The folder written into (renamed into place when whole). */
  dir: string;
  sources: Record<string, SourceRecord>;
  shards: Record<string, ShardRecord>;
  vectorShards: Record<string, VectorShardRecord>;
  /** What the copy's loads trust without hashing again (shardChecks.ts). */
  checks: ShardChecks;
  /** Writes shard `no` of `sources` and their vectors (`items`, in passage order). */
  writeShard(no: number, sources: ShardSource[], items: Array<{ id: string; vector: Float32Array }>): Promise<void>;
}

/**
 * Writes a copy of generation `g`: `fill` puts its shards and sources' records in (shards it writes
 * are named with `gen`, default 1); then its page texts (from the earlier copy `pagesFrom` where it
 * has them, else from the server), manifest,
 * highlights and record. Written beside the final folder and renamed into place, so that a copy is
 * whole or absent, whoever else writes one meanwhile; then the workspace's other copies are removed.
 */
export async function writeCopy(
  workspace: string,
  server: LibraryServer,
  g: ServerGeneration,
  provider: Pick<EmbeddingProvider, 'key' | 'id' | 'model'>,
  dim: number,
  opts: { pagesFrom?: string; gen?: number },
  fill: (copy: CopyInProgress) => Promise<void>,
): Promise<string> {
  const { pagesFrom, gen = 1 } = opts;
  const final = copyDir(workspace, server, provider.key, g.id);
  const parent = path.dirname(final);
  const tmp = `${final}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const lib = g.library;
  await fs.mkdir(tmp, { recursive: true });
  try {
    const copy: CopyInProgress = {
      dir: tmp,
      sources: {},
      shards: {},
      vectorShards: {},
      checks: await ShardChecks.read(tmp),
      async writeShard(no, sources, items) {
        const rec = await writePassageShard(tmp, no, gen, sources);
        const vec = await writeVectorShard(tmp, provider.key, no, gen, gen, items);
        copy.shards[no] = rec;
        copy.vectorShards[no] = vec;
        // The loader trusts what a writer hashed (shardChecks.ts): the copy loads without hashing 4 GB again.
        await copy.checks.wrote(rec.file, rec.sha256);
        if (rec.postings) await copy.checks.wrote(rec.postings.file, rec.postings.sha256);
        await copy.checks.wrote(`${vec.dir}/${VECTOR_FILE}`, vec.sha256);
      },
    };
    await fill(copy);
    // The page texts the citation check compares quotations with, for the check while the server is
    // out of reach: those an earlier copy holds are taken from it (contents do not change on the server).
    const hashes = [...new Set(lib.sources.map((r) => r.contentHash))];
    const fromServer: string[] = [];
    for (const hash of hashes) if (!pagesFrom || !(await linkPageTexts(pagesFrom, tmp, hash).catch(() => false))) fromServer.push(hash);
    await forEachPublishedPages(server, fromServer, (hash, pages) => writePublishedPageTexts(tmp, hash, pages));
    const set = lib.vectors[provider.key];
    const m = generationManifest(lib, {
      activeModel: provider.key,
      nextGen: 2,
      sources: copy.sources,
      shards: copy.shards,
      vectors: { [provider.key]: { provider: set?.provider ?? provider.id, model: set?.model ?? provider.model, dim, shards: copy.vectorShards } },
    });
    const live = [
      ...Object.values(copy.shards).flatMap((x) => [x.file, ...(x.postings ? [x.postings.file] : [])]),
      ...Object.values(copy.vectorShards).map((v) => `${v.dir}/${VECTOR_FILE}`),
    ];
    await copy.checks.save(new Set(live));
    await writeFileAtomic(path.join(tmp, 'manifest.json'), JSON.stringify(m));
    await writeFileAtomic(path.join(tmp, HIGHLIGHTS), g.highlights ?? '');
    await writeFileAtomic(path.join(tmp, RECORD), JSON.stringify(recordOf(server, provider.key, g)));
    try {
      await fs.rename(tmp, final);
    } catch (err) {
      // Another process put the same copy there first: its copy is as good.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      await removeCopy(tmp);
    }
  } catch (err) {
    await removeCopy(tmp);
    throw err;
  }
  await removeOtherCopies(parent, path.basename(final));
  return final;
}

/**
 * Removes the copies but `keep`: older generations, other servers or models (one copy is kept: a
 * member reads one library), and folders left half-written by a process that died (an hour old).
 * A process still reading a removed copy finds its files gone and opens the library again.
 */
async function removeOtherCopies(parent: string, keep: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === keep) continue;
    const at = path.join(parent, name);
    if (name.includes('.tmp-')) {
      const st = await fs.stat(at).catch(() => undefined);
      if (st && Date.now() - st.mtimeMs < 3_600_000) continue;
    }
    await removeCopy(at);
  }
}

async function removeCopy(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
}
