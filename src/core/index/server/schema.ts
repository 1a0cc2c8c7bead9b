/**
 * What a library server holds, in one schema (`similar_sources` by default). Content is keyed
 * by the PDF's content hash and the passage rules' versions, so a publication adds only what is
 * new (an unchanged PDF is neither read nor embedded again, nor sent again) and readers of the
 * previous generation keep what they read:
 * - `contents`: one row per PDF content, with its page texts (what the citation check compares
 *   quotations with);
 * - `passages`: its passages, with pages, labels, headings and lexical terms (the product's BM25
 *   statistics are computed from these, as from a local index's shards);
 * - `vectors`: each passage's vector per model (`model_key`, the local index's vector-set key),
 *   in pgvector's type;
 * - `generations`: each publication's sources and their metadata (the local manifest's), its
 *   Zotero highlights and which contents it uses; `current` names the one readers read.
 * A publication is one transaction: readers see the previous generation until it commits.
 */
import type pg from 'pg';

/** Bump when the tables change: a server of another format is `outdated` until published again. */
export const SERVER_FORMAT = 1;

/** Statements that make the schema (idempotent); `s` is a checked identifier (connection.ts). */
export function schemaStatements(s: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    'CREATE EXTENSION IF NOT EXISTS vector',
    `CREATE TABLE IF NOT EXISTS ${s}.meta (key text PRIMARY KEY, value jsonb NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${s}.contents (
       content_hash text NOT NULL, chunker int NOT NULL, lexical text NOT NULL,
       passages int NOT NULL, pages jsonb,
       PRIMARY KEY (content_hash, chunker, lexical))`,
    `CREATE TABLE IF NOT EXISTS ${s}.passages (
       content_hash text NOT NULL, chunker int NOT NULL, lexical text NOT NULL, ordinal int NOT NULL,
       page int NOT NULL, page_label text, end_page int NOT NULL, heading text, body text NOT NULL,
       terms text NOT NULL, ocr boolean NOT NULL DEFAULT false,
       PRIMARY KEY (content_hash, chunker, lexical, ordinal),
       FOREIGN KEY (content_hash, chunker, lexical) REFERENCES ${s}.contents ON DELETE CASCADE)`,
    `CREATE TABLE IF NOT EXISTS ${s}.vector_sets (model_key text PRIMARY KEY, provider text NOT NULL, model text NOT NULL, dim int NOT NULL)`,
    // Which contents have their vectors of a model (all of their passages' or none).
    `CREATE TABLE IF NOT EXISTS ${s}.embedded (
       model_key text NOT NULL REFERENCES ${s}.vector_sets, content_hash text NOT NULL, chunker int NOT NULL, lexical text NOT NULL,
       PRIMARY KEY (model_key, content_hash, chunker, lexical),
       FOREIGN KEY (content_hash, chunker, lexical) REFERENCES ${s}.contents ON DELETE CASCADE)`,
    `CREATE TABLE IF NOT EXISTS ${s}.vectors (
       model_key text NOT NULL, content_hash text NOT NULL, chunker int NOT NULL, lexical text NOT NULL, ordinal int NOT NULL,
       embedding vector NOT NULL,
       PRIMARY KEY (model_key, content_hash, chunker, lexical, ordinal),
       FOREIGN KEY (model_key, content_hash, chunker, lexical) REFERENCES ${s}.embedded ON DELETE CASCADE)`,
    `CREATE TABLE IF NOT EXISTS ${s}.generations (
       id bigserial PRIMARY KEY, published_at timestamptz NOT NULL DEFAULT now(), publisher text NOT NULL,
       fingerprint text NOT NULL, library jsonb NOT NULL, highlights text)`,
    `CREATE TABLE IF NOT EXISTS ${s}.generation_contents (
       generation bigint NOT NULL REFERENCES ${s}.generations ON DELETE CASCADE,
       content_hash text NOT NULL, chunker int NOT NULL, lexical text NOT NULL,
       PRIMARY KEY (generation, content_hash, chunker, lexical),
       FOREIGN KEY (content_hash, chunker, lexical) REFERENCES ${s}.contents)`,
    `CREATE TABLE IF NOT EXISTS ${s}.current (one boolean PRIMARY KEY DEFAULT true CHECK (one), generation bigint NOT NULL REFERENCES ${s}.generations)`,
    // Who publishes now (the advisory lock serialises publishers; this row says who holds it).
    `CREATE TABLE IF NOT EXISTS ${s}.publisher (one boolean PRIMARY KEY DEFAULT true CHECK (one), holder text NOT NULL, since timestamptz NOT NULL DEFAULT now())`,
  ];
}

/** Makes the schema when it is missing; says which format the server's schema has (after making it: SERVER_FORMAT). */
export async function ensureSchema(client: pg.Client, s: string): Promise<number> {
  // What exists is not made again: CREATE … IF NOT EXISTS asks for the right to create first, which a
  // publisher that owns its schema (docs/team-library.md) does not have on the database.
  const [schema, vector] = await Promise.all([
    client.query<{ n: string | null }>('SELECT to_regnamespace($1)::text AS n', [s]),
    client.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'"),
  ]);
  const statements = schemaStatements(s).filter(
    (sql) => !(schema.rows[0].n && sql.startsWith('CREATE SCHEMA')) && !(vector.rowCount && sql.startsWith('CREATE EXTENSION')),
  );
  for (const sql of statements) await client.query(sql);
  await client.query(`INSERT INTO ${s}.meta (key, value) VALUES ('format', $1::jsonb) ON CONFLICT (key) DO NOTHING`, [JSON.stringify(SERVER_FORMAT)]);
  const r = await client.query<{ value: unknown }>(`SELECT value FROM ${s}.meta WHERE key = 'format'`);
  return Number(r.rows[0]?.value);
}
