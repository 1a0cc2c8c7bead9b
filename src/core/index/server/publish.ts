/**
 * Publishing a local index to the library server (issue 37): what the workspace's index holds —
 * sources and their metadata, passages, page texts, each model's vectors, Zotero highlights —
 * becomes the server's next generation, in one transaction. Content the server already has (by
 * content hash and passage rules) is not sent again, so a publication costs what changed. Two
 * publishers are serialised by an advisory lock, which the server releases by itself when a
 * publisher dies (kill -9, a dropped connection); the second says who holds it. Whatever fails
 * before the commit (a cancel, a full disk on the server, a lost connection) leaves readers on
 * the previous generation.
 */
import type pg from 'pg';
import * as path from 'node:path';
import { EngineError } from '../../../shared/errors';
import { isMissing, readConfinedText } from '../../util/confinedFiles';
import { HIGHLIGHTS_FILE } from '../store/highlights';
import { readManifest, type Manifest, type SourceRecord, type VectorSetRecord } from '../store/manifest';
import { readPageTexts } from '../store/pageTexts';
import { readPassageShard, readVectorShard, type ShardSource } from '../store/shards';
import { connectServer, schemaOf, serverError, serverName, type LibraryServer } from './connection';
import { copyIn, CopyRows, type CopyColumn } from './copyBinary';
import { ensureSchema, SERVER_FORMAT } from './schema';

/** A generation as readers get it: the local manifest's sources in the index's row order, and the models complete for all of them. */
export interface PublishedLibrary extends Pick<Manifest, 'chunker' | 'lexical' | 'fingerprint' | 'updatedAt' | 'activeModel'> {
  /** SERVER_FORMAT of the publisher. */
  format: number;
  sources: SourceRecord[];
  vectors: Record<string, Pick<VectorSetRecord, 'provider' | 'model' | 'dim'>>;
}

export interface PublishOptions {
  /** Who publishes, as the lock's holder says it to a second publisher. */
  publisher: string;
  /** How long a second publisher waits for the first before `locked` (default 10 s). */
  waitMs?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export interface PublishReport {
  /** The server, as messages name it (never its password). */
  server: string;
  generation: number;
  sources: number;
  passages: number;
  /** Contents (PDFs by content hash) sent now; the others the server had. */
  sent: number;
  kept: number;
  /** Vectors sent, per model key. */
  vectors: Record<string, number>;
  /** Models readers can use (complete for every source). */
  models: string[];
  /** Contents no generation uses any more, removed. */
  removed: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The lock's key: one per schema, whatever database objects exist yet. */
const LOCK_SQL = "SELECT pg_try_advisory_lock(hashtext('similar-sources:' || $1::text)) AS ok";

async function holderOf(client: pg.Client, s: string): Promise<string | undefined> {
  const r = await client.query<{ holder: string; since: Date }>(`SELECT holder, since FROM ${s}.publisher`).catch(() => undefined);
  const row = r?.rows[0];
  return row ? `${row.holder}, since ${row.since.toISOString()}` : undefined;
}

/** Takes the schema's publication lock, waiting `waitMs` at most; `locked`, naming the holder, when another keeps it. */
async function lock(client: pg.Client, server: LibraryServer, s: string, o: PublishOptions): Promise<void> {
  const until = Date.now() + (o.waitMs ?? 10_000);
  for (;;) {
    const r = await client.query<{ ok: boolean }>(LOCK_SQL, [s]);
    if (r.rows[0].ok) return;
    if (Date.now() >= until || o.signal?.aborted) {
      const holder = await holderOf(client, s);
      throw new EngineError('locked', `another publication into ${serverName(server)} is under way${holder ? ` (${holder})` : ''}; try again when it ends`);
    }
    await sleep(250);
  }
}

/** Publishes the index in `dir` (indexDir) as the server's next generation. */
export async function publishIndex(dir: string, server: LibraryServer, o: PublishOptions): Promise<PublishReport> {
  const m = await readManifest(dir);
  if (!m || !Object.keys(m.sources).length)
    throw new EngineError('index-not-ready', `nothing to publish: the library is not indexed in ${dir} (run the index command first)`, {
      state: 'missing',
      dir,
    });
  const s = schemaOf(server);
  const client = await connectServer(server, 'publisher');
  let locked = false;
  try {
    await lock(client, server, s, o);
    locked = true;
    const format = await ensureSchema(client, s);
    if (format !== SERVER_FORMAT)
      throw new EngineError(
        'invalid-options',
        `${serverName(server)} holds a library of format ${format}; this version writes format ${SERVER_FORMAT}: publish into another schema, or drop that one`,
      );
    await client.query(`INSERT INTO ${s}.publisher (holder) VALUES ($1) ON CONFLICT (one) DO UPDATE SET holder = $1, since = now()`, [o.publisher]);
    await client.query('BEGIN');
    try {
      const report = { server: serverName(server), ...(await publishGeneration(client, s, dir, m, o)) };
      if (o.signal?.aborted) throw new EngineError('cancelled', 'publication cancelled: the server keeps its previous generation');
      await client.query('COMMIT');
      return report;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } catch (err) {
    throw serverError(server, 'publishing the library', err);
  } finally {
    if (locked) {
      await client.query(`DELETE FROM ${s}.publisher`).catch(() => undefined);
      await client.query("SELECT pg_advisory_unlock(hashtext('similar-sources:' || $1::text))", [s]).catch(() => undefined);
    }
    await client.end().catch(() => undefined);
  }
}

async function publishGeneration(client: pg.Client, s: string, dir: string, m: Manifest, o: PublishOptions): Promise<Omit<PublishReport, 'server'>> {
  const v = [m.chunker, m.lexical] as const;
  const hashes = [...new Set(Object.values(m.sources).map((r) => r.contentHash))];
  const have = new Set(
    (
      await client.query<{ h: string }>(`SELECT content_hash AS h FROM ${s}.contents WHERE chunker = $1 AND lexical = $2 AND content_hash = ANY($3)`, [
        ...v,
        hashes,
      ])
    ).rows.map((r) => r.h),
  );
  const kept = have.size;
  const embedded = new Map<string, Set<string>>();
  for (const [key, set] of Object.entries(m.vectors)) {
    const known = await client.query<{ dim: number }>(`SELECT dim FROM ${s}.vector_sets WHERE model_key = $1`, [key]);
    if (known.rows.length && known.rows[0].dim !== set.dim)
      throw new EngineError('invalid-options', `the server holds vectors of ${key} with ${known.rows[0].dim} dimensions, this index ${set.dim}`);
    await client.query(`INSERT INTO ${s}.vector_sets (model_key, provider, model, dim) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [
      key,
      set.provider,
      set.model,
      set.dim,
    ]);
    const r = await client.query<{ h: string }>(
      `SELECT content_hash AS h FROM ${s}.embedded WHERE model_key = $1 AND chunker = $2 AND lexical = $3 AND content_hash = ANY($4)`,
      [key, ...v, hashes],
    );
    embedded.set(key, new Set(r.rows.map((x) => x.h)));
  }
  const order: SourceRecord[] = [];
  const sentVectors: Record<string, number> = {};
  const incomplete = new Set<string>();
  let passages = 0;
  // A shard's rows are sent while the next one is read and encoded (the publisher's CPU and the
  // server's work overlap); two shards at most are held in memory.
  let sending: Promise<unknown> = Promise.resolve();
  const shardKeys = Object.keys(m.shards).sort((a, b) => Number(a) - Number(b));
  for (const [done, key] of shardKeys.entries()) {
    if (o.signal?.aborted) throw new EngineError('cancelled', 'publication cancelled: the server keeps its previous generation');
    const sources = (await readPassageShard(dir, m.shards[key])).filter((x) => m.sources[x.id]);
    const rows = {
      contents: new CopyRows(CONTENT_TYPES),
      passages: new CopyRows(PASSAGE_TYPES),
      embedded: new CopyRows(EMBEDDED_TYPES),
      vectors: new CopyRows(VECTOR_TYPES),
    };
    const vectorsOf = new Map<string, Map<string, Float32Array> | undefined>();
    for (const src of sources) {
      order.push(m.sources[src.id]);
      passages += src.passages.length;
      if (!have.has(src.contentHash)) {
        await addContent(rows, dir, m, src);
        have.add(src.contentHash);
      }
      for (const [model, set] of Object.entries(m.vectors)) {
        const known = embedded.get(model)!;
        if (known.has(src.contentHash)) continue;
        if (!vectorsOf.has(model)) vectorsOf.set(model, set.shards[key] ? await readVectorShard(dir, set.shards[key]) : undefined);
        const found = src.passages.map((_, i) => vectorsOf.get(model)?.get(`${src.contentHash}:${i}`));
        if (found.some((x) => !x || x.length !== set.dim)) {
          // Not all of its vectors yet (a model still embedding): the model is not offered to readers.
          incomplete.add(model);
          continue;
        }
        rows.embedded.add([model, src.contentHash, ...v]);
        found.forEach((x, i) => rows.vectors.add([model, src.contentHash, ...v, i, x!]));
        known.add(src.contentHash);
        sentVectors[model] = (sentVectors[model] ?? 0) + found.length;
      }
    }
    await sending;
    // A table's rows after those they refer to.
    sending = (async () => {
      await copyIn(client, `${s}.contents`, CONTENT_COLUMNS, rows.contents);
      await copyIn(client, `${s}.passages`, PASSAGE_COLUMNS, rows.passages);
      await copyIn(client, `${s}.embedded`, EMBEDDED_COLUMNS, rows.embedded);
      await copyIn(client, `${s}.vectors`, VECTOR_COLUMNS, rows.vectors);
    })();
    // Awaited before the next shard is queued or the generation is written; a failure meanwhile is not unhandled.
    sending.catch(() => undefined);
    o.onProgress?.(done + 1, shardKeys.length);
  }
  await sending;
  const models = Object.keys(m.vectors).filter((k) => !incomplete.has(k));
  const library: PublishedLibrary = {
    format: SERVER_FORMAT,
    chunker: m.chunker,
    lexical: m.lexical,
    fingerprint: m.fingerprint,
    updatedAt: m.updatedAt,
    ...(m.activeModel ? { activeModel: m.activeModel } : {}),
    sources: order,
    vectors: Object.fromEntries(models.map((k) => [k, { provider: m.vectors[k].provider, model: m.vectors[k].model, dim: m.vectors[k].dim }])),
  };
  const highlights = await readConfinedText(path.join(dir, HIGHLIGHTS_FILE), { kind: 'index', within: [dir] }).then(
    (r) => r.text,
    (err) => {
      if (isMissing(err)) return null;
      throw err;
    },
  );
  const g = await client.query<{ id: string }>(
    `INSERT INTO ${s}.generations (publisher, fingerprint, library, highlights) VALUES ($1, $2, $3, $4) RETURNING id`,
    [o.publisher, m.fingerprint, JSON.stringify(library), highlights],
  );
  const generation = Number(g.rows[0].id);
  await client.query(`INSERT INTO ${s}.generation_contents (generation, content_hash, chunker, lexical) SELECT $1, unnest($2::text[]), $3, $4`, [
    generation,
    [...new Set(order.map((r) => r.contentHash))],
    ...v,
  ]);
  await client.query(`INSERT INTO ${s}.current (generation) VALUES ($1) ON CONFLICT (one) DO UPDATE SET generation = $1`, [generation]);
  // The previous generation stays for readers still loading it; older ones, and what only they used, go.
  await client.query(`DELETE FROM ${s}.generations WHERE id < (SELECT min(id) FROM (SELECT id FROM ${s}.generations ORDER BY id DESC LIMIT 2) AS last)`);
  const removed = await client.query(
    `DELETE FROM ${s}.contents c WHERE NOT EXISTS (SELECT 1 FROM ${s}.generation_contents g
       WHERE g.content_hash = c.content_hash AND g.chunker = c.chunker AND g.lexical = c.lexical)`,
  );
  return { generation, sources: order.length, passages, sent: have.size - kept, kept, vectors: sentVectors, models, removed: removed.rowCount ?? 0 };
}

const CONTENT_COLUMNS = ['content_hash', 'chunker', 'lexical', 'passages', 'pages'];
const CONTENT_TYPES: CopyColumn[] = ['text', 'int4', 'text', 'int4', 'jsonb'];
const PASSAGE_COLUMNS = ['content_hash', 'chunker', 'lexical', 'ordinal', 'page', 'page_label', 'end_page', 'heading', 'body', 'terms', 'ocr'];
const PASSAGE_TYPES: CopyColumn[] = ['text', 'int4', 'text', 'int4', 'int4', 'text', 'int4', 'text', 'text', 'text', 'bool'];
const EMBEDDED_COLUMNS = ['model_key', 'content_hash', 'chunker', 'lexical'];
const EMBEDDED_TYPES: CopyColumn[] = ['text', 'text', 'int4', 'text'];
const VECTOR_COLUMNS = ['model_key', 'content_hash', 'chunker', 'lexical', 'ordinal', 'embedding'];
const VECTOR_TYPES: CopyColumn[] = ['text', 'text', 'int4', 'text', 'int4', 'vector'];

/** One PDF's content, its page texts and passages, added to the shard's rows. */
async function addContent(rows: { contents: CopyRows; passages: CopyRows }, dir: string, m: Manifest, src: ShardSource): Promise<void> {
  const pages = await readPageTexts(dir, src.contentHash);
  rows.contents.add([src.contentHash, m.chunker, m.lexical, src.passages.length, pages ? JSON.stringify(pages) : null]);
  src.passages.forEach((x, i) => rows.passages.add([src.contentHash, m.chunker, m.lexical, i, x.p, x.l ?? null, x.e, x.h ?? null, x.t, x.k, x.o === 1]));
}
