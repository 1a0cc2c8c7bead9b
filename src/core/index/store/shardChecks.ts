/**
 * What the writer knows of the index files it checked: each shard file's size,
 * modification time and checksum when this writer last wrote or hashed it
 * (`shard-checks.json` beside the manifest, a cache: absent or stale entries only
 * mean hashing again). A run opens a 1M-passage index (~4 GB of shards) by
 * comparing sizes and times, and hashes only the files that changed since, so
 * updating one PDF does not read the whole index; an edited or truncated file
 * still fails its checksum, a missing one is still missing. A reader loading the
 * index for searching trusts the same checks (`known`) and never writes them.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../util/atomicWrite';
import { hashConfined, readConfinedText } from '../../util/confinedFiles';
import { IndexCorruptError } from './manifest';

export const CHECKS_FILE = 'shard-checks.json';

/** [size in bytes, mtimeMs, sha256] */
type Check = [number, number, string];

export class ShardChecks {
  private changed = false;

  private constructor(
    private readonly dir: string,
    private readonly files: Record<string, Check>,
  ) {}

  static async read(dir: string): Promise<ShardChecks> {
    let files: Record<string, Check> = {};
    try {
      const parsed = JSON.parse((await readConfinedText(path.join(dir, CHECKS_FILE), { kind: 'index', within: [dir] })).text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) files = parsed as Record<string, Check>;
    } catch {
      // No cache yet, or a damaged one: every file is hashed once.
    }
    return new ShardChecks(dir, files);
  }

  /**
   * Throws IndexCorruptError (`<what> is missing` / `is damaged (checksum mismatch)`)
   * unless `rel` holds the bytes whose checksum is `sha`.
   */
  async verify(rel: string, sha: string, what: string): Promise<void> {
    const file = path.join(this.dir, rel);
    let st;
    try {
      st = await fs.stat(file);
    } catch {
      throw new IndexCorruptError(`${what} is missing`);
    }
    if (this.known(rel, st, sha)) return;
    // By chunks: a damaged file is found without holding it in memory.
    if ((await hashConfined(file, { kind: 'index', within: [this.dir] })) !== sha) throw new IndexCorruptError(`${what} is damaged (checksum mismatch)`);
    this.files[rel] = [st.size, st.mtimeMs, sha];
    this.changed = true;
  }

  /** Whether `rel`, of this size and modification time, is a file a writer found or wrote with checksum `sha`. */
  known(rel: string, st: { size: number; mtimeMs: number }, sha: string): boolean {
    const k = this.files[rel];
    return !!k && k[0] === st.size && k[1] === st.mtimeMs && k[2] === sha;
  }

  /** Remembers a file this writer has just written with checksum `sha`. */
  async wrote(rel: string, sha: string): Promise<void> {
    const st = await fs.stat(path.join(this.dir, rel));
    this.files[rel] = [st.size, st.mtimeMs, sha];
    this.changed = true;
  }

  /** Saves the checks of the files in `live` (the manifest's), when any changed. */
  async save(live: Set<string>): Promise<void> {
    for (const rel of Object.keys(this.files)) {
      if (!live.has(rel)) {
        delete this.files[rel];
        this.changed = true;
      }
    }
    if (!this.changed) return;
    // Not fsynced: a lost or torn cache costs one hashing of the index, nothing else.
    await writeFileAtomic(path.join(this.dir, CHECKS_FILE), JSON.stringify(this.files), { durable: false });
    this.changed = false;
  }
}
