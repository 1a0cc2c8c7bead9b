/**
 * Reading the library server's current generation (issue 37): its health for a model, and its
 * rows, assembled as a local index's are (loadRows.ts), so that the loaded index, its ranking and
 * its cards are the same code and the same answers as on the publisher's machine. One read-only
 * transaction (repeatable read) sees one generation whole, whatever a publisher commits meanwhile.
 * A member's machine needs neither the PDFs nor the model's weights for the passages.
 */
import type pg from 'pg';
import type { IndexHealth } from '../../../shared/health';
import { EngineError } from '../../../shared/errors';
import { notReadyError } from '../health';
import { CHUNKER_VERSION } from '../../passages/chunker';
import { assembleRows, type LoadedRows, type RowShard, type ShardVectors } from '../search/loadRows';
import { memoryPostings } from '../store/postingsFile';
import type { ShardSource, StoredPassage } from '../store/shards';
import { LEXICAL_VERSION } from '../store/versions';
import type { PageText } from '../store/pageTexts';
import { MANIFEST_FORMAT, type Manifest } from '../store/manifest';
import { connectServer, keptConnection, schemaOf, serverError, serverName, type LibraryServer } from './connection';
import type { PublishedLibrary } from './publish';
import { SERVER_FORMAT } from './schema';

/** The generation readers read now. */
export interface ServerGeneration {
  id: number;
  publishedAt: string;
  publisher: string;
  library: PublishedLibrary;
  /** The Zotero highlights sidecar as published (highlights.json's text). */
  highlights?: string;
}

/**
 * A manifest for a published library's generation, as the loaded index and a member's copy hold it:
 * the publisher's fingerprint (analyses cached on a member's machine are keyed by it), with the
 * shards, vectors and sources of the one or the other.
 */
export function generationManifest(lib: PublishedLibrary, own: Pick<Manifest, 'nextGen' | 'sources' | 'shards' | 'vectors' | 'activeModel'>): Manifest {
  return {
    format: MANIFEST_FORMAT,
    chunker: lib.chunker,
    lexical: lib.lexical,
    fingerprint: lib.fingerprint,
    updatedAt: lib.updatedAt,
    skipped: {},
    ...own,
  };
}

/** Passages per assembled shard: a shard's JSON is laid out in one string (V8 caps a string near 512 MB). */
export const ROWS_PER_SHARD = 20_000;

/** Whether the schema holds a library (false: nothing published yet); one of another format is refused. */
async function currentFormat(client: pg.ClientBase, s: string, server: LibraryServer): Promise<boolean> {
  const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${s}.current`]);
  if (!exists.rows[0].t) return false;
  const format = await client.query<{ value: unknown }>(`SELECT value FROM ${s}.meta WHERE key = 'format'`);
  if (Number(format.rows[0]?.value) !== SERVER_FORMAT)
    throw new EngineError(
      'invalid-options',
      `${serverName(server)} holds a library of format ${String(format.rows[0]?.value)}; this version reads format ${SERVER_FORMAT}`,
    );
  return true;
}

/** The current generation, whole; `known`, when it is still the current one, is not fetched again. */
async function current(client: pg.ClientBase, s: string, server: LibraryServer, known?: ServerGeneration): Promise<ServerGeneration | undefined> {
  if (!(await currentFormat(client, s, server))) return undefined;
  if (known) {
    const id = await client.query<{ generation: string }>(`SELECT generation FROM ${s}.current`);
    if (Number(id.rows[0]?.generation) === known.id) return known;
  }
  const r = await client.query<{ id: string; published_at: Date; publisher: string; library: PublishedLibrary; highlights: string | null }>(
    `SELECT g.id, g.published_at, g.publisher, g.library, g.highlights FROM ${s}.current c JOIN ${s}.generations g ON g.id = c.generation`,
  );
  const g = r.rows[0];
  if (!g) return undefined;
  return {
    id: Number(g.id),
    publishedAt: g.published_at.toISOString(),
    publisher: g.publisher,
    library: g.library,
    ...(g.highlights ? { highlights: g.highlights } : {}),
  };
}

/**
 * Runs `f` in one read-only snapshot of the server: on a connection of its own (reads of a whole
 * generation), or, `kept`, on a kept one (a small question, which may be asked twice:
 * keptConnection). A kept connection that the network or the server dropped meanwhile is not an
 * answer: the question is asked again on a new connection, whose failure says what is wrong.
 */
async function snapshot<T>(server: LibraryServer, doing: string, f: (client: pg.ClientBase, s: string) => Promise<T>, kept = false): Promise<T> {
  const s = schemaOf(server);
  const run = async (c: { client: pg.ClientBase; done(failed: boolean): void | Promise<void> }): Promise<T> => {
    let failed = false;
    try {
      await c.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return await f(c.client, s);
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      await c.client.query('ROLLBACK').catch(() => (failed = true));
      await c.done(failed);
    }
  };
  try {
    if (kept) {
      try {
        return await run(await keptConnection(server));
      } catch (err) {
        if (!connectionLost(err)) throw err;
      }
    }
    return await run(await ownConnection(server));
  } catch (err) {
    throw serverError(server, doing, err);
  }
}

/** A failure of the connection itself (dropped, reset, timed out), not an error the server answered (SQLSTATE) or ours. */
function connectionLost(err: unknown): boolean {
  if (err instanceof EngineError) return false;
  const code = (err as { code?: unknown } | null)?.code;
  return !(typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code));
}

async function ownConnection(server: LibraryServer): Promise<{ client: pg.Client; done(failed: boolean): Promise<void> }> {
  const client = await connectServer(server, 'reader');
  return { client, done: () => client.end().catch(() => undefined) };
}

/** The generation readers get now; undefined when nothing is published. */
export function currentGeneration(server: LibraryServer): Promise<ServerGeneration | undefined> {
  return snapshot(server, 'reading the library', (client, s) => current(client, s, server));
}

/**
 * The id of the generation readers get now, undefined when nothing is published: one small row,
 * where currentGeneration also fetches the library's records (27 MB at 67,000 PDFs, about a second).
 */
export function currentGenerationId(server: LibraryServer): Promise<number | undefined> {
  return snapshot(
    server,
    'reading the library',
    async (client, s) => {
      const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${s}.current`]);
      if (!exists.rows[0].t) return undefined;
      const r = await client.query<{ generation: string }>(`SELECT generation FROM ${s}.current`);
      return r.rows[0] ? Number(r.rows[0].generation) : undefined;
    },
    true,
  );
}

/**
 * What a generation's health needs: its record without the list of its sources (27 MB at 67,000
 * PDFs), and how many sources and passages that list holds.
 */
export interface GenerationHead {
  id: number;
  library: Omit<PublishedLibrary, 'sources'>;
  sources: number;
  passages: number;
}

/** The head of a generation read whole. */
function headOf(g: ServerGeneration): GenerationHead {
  return { id: g.id, library: g.library, sources: g.library.sources.length, passages: g.library.sources.reduce((n, r) => n + r.passages, 0) };
}

/**
 * The head of the generation readers get now, undefined when nothing is published: what the
 * engine's readiness asks before each search and analysis, where the whole record cost about a
 * second at a million passages. The list is counted on the server.
 */
export function currentGenerationHead(server: LibraryServer): Promise<GenerationHead | undefined> {
  return snapshot(
    server,
    'reading the library',
    async (client, s) => {
      if (!(await currentFormat(client, s, server))) return undefined;
      const r = await client.query<{ id: string; library: Omit<PublishedLibrary, 'sources'>; sources: number; passages: string }>(
        `SELECT g.id, g.library - 'sources' AS library, jsonb_array_length(g.library->'sources') AS sources,
         (SELECT coalesce(sum((x->>'passages')::bigint), 0) FROM jsonb_array_elements(g.library->'sources') x) AS passages
       FROM ${s}.current c JOIN ${s}.generations g ON g.id = c.generation`,
      );
      const g = r.rows[0];
      return g && { id: Number(g.id), library: g.library, sources: g.sources, passages: Number(g.passages) };
    },
    true,
  );
}

/**
 * `fetch` kept per server and generation: each call asks which generation is current (one small
 * query) and fetches again only when it is another than the one kept (a published generation never
 * changes). One kept value per returned function: the engine works on one library at a time.
 */
export function keptPerGeneration<T extends { id: number }>(
  fetch: (server: LibraryServer) => Promise<T | undefined>,
): (server: LibraryServer) => Promise<T | undefined> {
  let kept: { at: string; value: T } | undefined;
  return async (server) => {
    const at = (generation: number) => `${server.url}\u0000${server.schema ?? ''}\u0000${generation}`;
    const id = await currentGenerationId(server);
    if (id !== undefined && kept?.at === at(id)) return kept.value;
    const value = await fetch(server);
    if (value) kept = { at: at(value.id), value };
    return value;
  };
}

/** The published library's health for `modelKey`, as a local index's (`dir` names the server). */
export function generationHealth(server: LibraryServer, generation: ServerGeneration | GenerationHead | undefined, modelKey: string): IndexHealth {
  const dir = serverName(server);
  if (!generation) return { state: 'missing', dir, server: true };
  const g = 'publisher' in generation ? headOf(generation) : generation;
  const lib = g.library;
  if (lib.chunker !== CHUNKER_VERSION || lib.lexical !== LEXICAL_VERSION)
    return {
      state: 'outdated',
      dir,
      detail: `published by another version of Similar Sources (passages v${lib.chunker}, terms ${lib.lexical}; this version reads v${CHUNKER_VERSION}, ${LEXICAL_VERSION})`,
    };
  if (!lib.vectors[modelKey]) {
    const offered = Object.keys(lib.vectors);
    return {
      state: 'incomplete',
      dir,
      model: modelKey,
      detail: `the library on ${dir} has no vectors of the model ${modelKey}${offered.length ? ` (it offers ${offered.join(', ')})` : ''}: publish it with that model, or choose one it offers`,
    };
  }
  return { state: 'ready', dir, sources: g.sources, passages: g.passages, model: modelKey, skipped: 0 };
}

interface PassageRow {
  h: string;
  page: number;
  page_label: string | null;
  end_page: number;
  heading: string | null;
  body: string;
  terms: string;
  ocr: boolean;
}

/**
 * Copies pgvector's binary form (`vector_send`: dimensions as int16, an unused int16, then float4s,
 * big-endian) into `target` at `at`: the floats as stored, with no decimal text to parse.
 */
function copyVector(bytes: Buffer, target: Float32Array, at: number): number {
  const n = bytes.length >= 4 ? bytes.readInt16BE(0) : -1;
  if (n < 0 || bytes.length !== 4 + 4 * n || at + n > target.length) return -1;
  // The bytes copied as they are, then turned to this machine's order in place (no float read one by one).
  const into = Buffer.from(target.buffer, target.byteOffset + 4 * at, 4 * n);
  into.set(bytes.subarray(4));
  if (LITTLE_ENDIAN) into.swap32();
  return n;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Contents of the library held on this machine already (a member's copy of an earlier generation: memberCopy.ts). */
export interface CopiedContents {
  /** The generation they were read from. */
  generation: number;
  /**
   * Hands `each` the passages of every content in `wanted` (content hash → its passage count) held
   * whole with that count, and `vector`, which copies passage i's vector (float32 bytes) to `target`
   * at byte `at` while `each` runs; says which contents it handed.
   */
  take(
    wanted: ReadonlyMap<string, number>,
    each: (contentHash: string, passages: StoredPassage[], vector: (i: number, target: Uint8Array, at: number) => void) => void,
  ): Promise<Set<string>>;
}

/** How much of a generation's read came from contents held on this machine. */
export interface ReusedContents {
  /** The generation of the copy they came from. */
  generation: number;
  /** Contents (distinct PDFs) taken from it, of the generation's. */
  contents: number;
  of: number;
}

function otherSize(server: LibraryServer, modelKey: string, dim: number): EngineError {
  return new EngineError('index-not-ready', `the vectors of ${modelKey} on ${serverName(server)} do not have ${dim} dimensions`, {
    state: 'corrupt',
    dir: serverName(server),
    detail: `vectors of ${modelKey} of another size`,
  });
}

/** The passages and the vectors of `modelKey` (pgvector's binary form) of the contents `hashes`, handed over in each content's order, 500 contents a query. */
async function readContents(
  client: pg.ClientBase,
  s: string,
  modelKey: string,
  v: readonly [number, string],
  hashes: readonly string[],
  to: { passage(contentHash: string, p: StoredPassage): void; vector(contentHash: string, bytes: Buffer): void },
): Promise<void> {
  for (let i = 0; i < hashes.length; i += 500) {
    const some = hashes.slice(i, i + 500);
    const p = await client.query<PassageRow>(
      `SELECT content_hash AS h, page, page_label, end_page, heading, body, terms, ocr FROM ${s}.passages
       WHERE chunker = $1 AND lexical = $2 AND content_hash = ANY($3) ORDER BY content_hash, ordinal`,
      [...v, some],
    );
    for (const r of p.rows)
      to.passage(r.h, {
        p: r.page,
        ...(r.page_label !== null ? { l: r.page_label } : {}),
        e: r.end_page,
        ...(r.heading !== null ? { h: r.heading } : {}),
        t: r.body,
        k: r.terms,
        ...(r.ocr ? { o: 1 as const } : {}),
      });
    const vec = await client.query<{ h: string; e: Buffer }>(
      `SELECT content_hash AS h, vector_send(embedding) AS e FROM ${s}.vectors
       WHERE model_key = $1 AND chunker = $2 AND lexical = $3 AND content_hash = ANY($4) ORDER BY content_hash, ordinal`,
      [modelKey, ...v, some],
    );
    for (const r of vec.rows) to.vector(r.h, r.e);
  }
}

/** A published content's passages and their vectors. */
export type PublishedContent = { passages: StoredPassage[]; vectors: Float32Array[] };

/**
 * The passages and vectors of `modelKey` (of size `dim`) of the contents `hashes` of the published
 * library `lib`, by content, in one snapshot; a content whose rows are not all there (a generation
 * removed meanwhile) is left out, and the caller reads the generation whole.
 */
export function readPublishedContents(
  server: LibraryServer,
  lib: Pick<PublishedLibrary, 'chunker' | 'lexical'>,
  modelKey: string,
  dim: number,
  hashes: readonly string[],
): Promise<Map<string, PublishedContent>> {
  return snapshot(server, 'reading the library', async (client, s) => {
    const out = new Map<string, PublishedContent>();
    const of = (h: string) => out.get(h) ?? out.set(h, { passages: [], vectors: [] }).get(h)!;
    await readContents(client, s, modelKey, [lib.chunker, lib.lexical], hashes, {
      passage: (h, p) => of(h).passages.push(p),
      vector(h, e) {
        const x = new Float32Array(dim);
        if (copyVector(e, x, 0) !== dim) throw otherSize(server, modelKey, dim);
        of(h).vectors.push(x);
      },
    });
    for (const [h, c] of out) if (c.passages.length !== c.vectors.length) out.delete(h);
    return out;
  });
}

/**
 * Every row of the current generation with the vectors of `modelKey` (of size `dim`), and that
 * generation; `index-not-ready` with its health when it cannot serve that model. One snapshot: the
 * generation judged is the one read, whatever is published meanwhile. The contents `copied` holds
 * are taken from it, the rest read from the server: the rows are the same either way. `known`: the
 * generation's record as fetched just before, not fetched again while it is still the current one.
 */
export function readGenerationRows(
  server: LibraryServer,
  modelKey: string,
  dim: number,
  opts: { copied?: CopiedContents; known?: ServerGeneration } = {},
): Promise<{ g: ServerGeneration; rows: LoadedRows; reused?: ReusedContents }> {
  const { copied, known } = opts;
  return snapshot(server, 'reading the library', async (client, s) => {
    const g = await current(client, s, server, known);
    const health = generationHealth(server, g, modelKey);
    if (!g || health.state !== 'ready') throw notReadyError(health);
    const lib = g.library;
    const v = [lib.chunker, lib.lexical] as const;
    const hashes = [...new Set(lib.sources.map((r) => r.contentHash))];
    const passagesOf = new Map<string, StoredPassage[]>();
    const vectorsOf = new Map<string, { at: number; count: number }>();
    // The manifest's counts (a shard with more passages than they say is damage: assembleRows).
    const total = lib.sources.reduce((n, r) => n + r.passages, 0);
    const flat = new Float32Array(total * dim);
    let filled = 0;
    let ask = hashes;
    let reused: ReusedContents | undefined;
    if (copied) {
      const flatBytes = new Uint8Array(flat.buffer);
      const wanted = new Map(lib.sources.map((r) => [r.contentHash, r.passages]));
      const taken = await copied.take(wanted, (h, passages, vector) => {
        passagesOf.set(h, passages);
        vectorsOf.set(h, { at: filled, count: passages.length });
        for (let i = 0; i < passages.length; i++, filled += dim) vector(i, flatBytes, filled * 4);
      });
      ask = hashes.filter((h) => !taken.has(h));
      reused = { generation: copied.generation, contents: taken.size, of: hashes.length };
    }
    await readContents(client, s, modelKey, v, ask, {
      passage(h, passage) {
        let list = passagesOf.get(h);
        if (!list) passagesOf.set(h, (list = []));
        list.push(passage);
      },
      vector(h, e) {
        const seen = vectorsOf.get(h);
        if (seen) seen.count++;
        else vectorsOf.set(h, { at: filled, count: 1 });
        if (filled + dim > flat.length || copyVector(e, flat, filled) !== dim) throw otherSize(server, modelKey, dim);
        filled += dim;
      },
    });
    const bytes = new Uint8Array(flat.buffer);
    const vectors: ShardVectors = {
      dim,
      find(h, index) {
        const at = vectorsOf.get(h);
        return at && index < at.count ? at.at / dim + index : undefined;
      },
      copy: (n, target, at) => target.set(bytes.subarray(n * dim * 4, (n + 1) * dim * 4), at),
    };
    async function* shards(): AsyncGenerator<RowShard> {
      let batch: ShardSource[] = [];
      let rows = 0;
      let no = 0;
      const emit = () => {
        const shard: RowShard = { postings: memoryPostings(batch), texts: { passages: batch.flatMap((x) => x.passages) }, vectors, what: `${no}` };
        batch = [];
        rows = 0;
        no++;
        return shard;
      };
      for (const r of lib.sources) {
        const passages = passagesOf.get(r.contentHash) ?? [];
        batch.push({ id: r.id, contentHash: r.contentHash, passages });
        rows += passages.length;
        if (rows >= ROWS_PER_SHARD) yield emit();
      }
      if (batch.length) yield emit();
    }
    const rows = await assembleRows('', shards(), total, Object.fromEntries(lib.sources.map((r) => [r.id, r])), dim, false);
    return { g, rows, ...(reused ? { reused } : {}) };
  });
}

/** The page texts of the published PDF with `contentHash` (what the citation check compares with); undefined when the server has none. */
export function serverPageTexts(server: LibraryServer, contentHash: string): Promise<PageText[] | undefined> {
  return snapshot(
    server,
    'reading page texts',
    async (client, s) => {
      const r = await client.query<{ pages: PageText[] | null }>(`SELECT pages FROM ${s}.contents WHERE content_hash = $1 AND chunker = $2 AND lexical = $3`, [
        contentHash,
        CHUNKER_VERSION,
        LEXICAL_VERSION,
      ]);
      return r.rows[0]?.pages ?? undefined;
    },
    true,
  );
}

/**
 * The page texts of the published PDFs with `hashes`, handed to `each` as they come (a member's
 * copy keeps them for the citation check offline), in one snapshot; those the server has none of are left out.
 */
export function forEachPublishedPages(
  server: LibraryServer,
  hashes: readonly string[],
  each: (contentHash: string, pages: PageText[]) => Promise<void>,
): Promise<void> {
  return snapshot(server, 'reading page texts', async (client, s) => {
    for (let i = 0; i < hashes.length; i += 200) {
      const r = await client.query<{ h: string; pages: PageText[] | null }>(
        `SELECT content_hash AS h, pages FROM ${s}.contents WHERE content_hash = ANY($1) AND chunker = $2 AND lexical = $3`,
        [hashes.slice(i, i + 200), CHUNKER_VERSION, LEXICAL_VERSION],
      );
      for (const row of r.rows) if (row.pages) await each(row.h, row.pages);
    }
  });
}
