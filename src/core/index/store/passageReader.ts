/**
 * Passage text and metadata read on demand: a search shows a few passages per query,
 * so the loaded index keeps where each passage's JSON object lies in its shard file
 * (postingsFile.ts) and reads and parses just those bytes when asked, checking them
 * against the hash stored beside the offsets. Reads are synchronous (a hit is built in
 * a synchronous loop) and small; recent passages and open files are kept.
 */
import { closeSync } from 'node:fs';
import * as path from 'node:path';
import { isMissing, openConfinedSync, readAtSync } from '../../util/confinedFiles';
import { IndexCorruptError, IndexGenerationGone } from './manifest';
import { passageHash } from './postingsFile';
import type { StoredPassage } from './shards';

/** A shard's passages: in its JSON file (offsets per row), or held in memory (a JSON file whose bytes this version did not lay out). */
export type ShardTexts = { file: string } | { passages: StoredPassage[] };

const CACHED_PASSAGES = 4096;
const OPEN_FILES = 32;

/** Open descriptors, apart from the reader so a finalizer can close them once the reader is gone. */
type Fds = Map<number, number>;
const closeAll = (fds: Fds) => {
  for (const fd of fds.values()) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
  fds.clear();
};
const finalizer = new FinalizationRegistry<Fds>(closeAll);

export class PassageReader {
  private readonly cache = new Map<number, StoredPassage>();
  private readonly fds: Fds = new Map();

  /**
   * Row r lies in shard `shardOfRow[r]`, at bytes jsonStart[r]..jsonEnd[r] of its file
   * (for a shard in memory: passage r - shardBase[shard] of its list).
   */
  constructor(
    private readonly dir: string,
    private readonly shards: readonly ShardTexts[],
    private readonly shardBase: Int32Array,
    private readonly shardOfRow: Int32Array,
    private readonly jsonStart: Uint32Array,
    private readonly jsonEnd: Uint32Array,
    private readonly hash: Uint32Array,
  ) {
    finalizer.register(this, this.fds, this);
  }

  get count(): number {
    return this.shardOfRow.length;
  }

  /** Row `row`'s stored passage; IndexCorruptError when its bytes are gone or damaged. */
  read(row: number): StoredPassage {
    let p = this.cache.get(row);
    if (p) {
      // Most recently used last, so the oldest is dropped first.
      this.cache.delete(row);
      this.cache.set(row, p);
      return p;
    }
    const shard = this.shardOfRow[row];
    const src = this.shards[shard];
    if ('passages' in src) p = src.passages[row - this.shardBase[shard]];
    else p = this.readFromFile(shard, src.file, row);
    if (this.cache.size >= CACHED_PASSAGES) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(row, p);
    return p;
  }

  /** Closes the files kept open (also done when the reader is garbage-collected). */
  close(): void {
    finalizer.unregister(this);
    closeAll(this.fds);
  }

  private readFromFile(shard: number, file: string, row: number): StoredPassage {
    const start = this.jsonStart[row];
    const bytes = Buffer.allocUnsafe(this.jsonEnd[row] - start);
    try {
      const fd = this.fd(shard, file);
      let got = 0;
      while (got < bytes.length) {
        const n = readAtSync(fd, bytes, got, bytes.length - got, start + got);
        if (n === 0) break;
        got += n;
      }
      if (got !== bytes.length) throw new IndexCorruptError(`passage shard ${file} is shorter than its postings file says`);
    } catch (err) {
      if (err instanceof IndexCorruptError) throw err;
      if (isMissing(err)) throw new IndexGenerationGone(`passage shard ${file} is gone (a newer index was committed since this one was opened; open it again)`);
      throw err;
    }
    if (passageHash(bytes) !== this.hash[row]) throw new IndexCorruptError(`passage shard ${file} is damaged (a passage does not match its hash)`);
    try {
      return JSON.parse(bytes.toString('utf8')) as StoredPassage;
    } catch {
      throw new IndexCorruptError(`passage shard ${file} is damaged (a passage is not valid JSON)`);
    }
  }

  private fd(shard: number, file: string): number {
    let fd = this.fds.get(shard);
    if (fd !== undefined) {
      this.fds.delete(shard);
      this.fds.set(shard, fd);
      return fd;
    }
    if (this.fds.size >= OPEN_FILES) {
      const [oldest, ofd] = this.fds.entries().next().value as [number, number];
      this.fds.delete(oldest);
      closeSync(ofd);
    }
    fd = openConfinedSync(path.join(this.dir, file), { kind: 'index', within: [this.dir] }).fd;
    this.fds.set(shard, fd);
    return fd;
  }
}
