import assert from 'node:assert/strict';
import pg from 'pg';
import { devServerUrl, freshSchema, quoteIdent, runDevServer } from '../support/pgServer';

describe('PostgreSQL dev server (scripts/server/dev-server.mjs)', () => {
  let url: string;
  let schema: { schema: string; drop(): Promise<void> } | undefined;
  let client: pg.Client | undefined;

  before(async () => {
    url = await devServerUrl();
    schema = await freshSchema(url, 'dev_server');
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`SET search_path TO ${quoteIdent(schema.schema)}, public`);
  });

  after(async () => {
    await client?.end();
    await schema?.drop();
  });

  const db = () => {
    assert.ok(client, 'no connection');
    return client;
  };

  it('connects with pg, over loopback, as the password-authenticated role; a wrong password is refused', async () => {
    const u = new URL(url);
    assert.equal(u.protocol, 'postgres:');
    assert.equal(u.hostname, '127.0.0.1');
    assert.equal(u.username, 'similar_sources');
    assert.equal(u.pathname, '/similar_sources');
    const { rows } = await db().query<{ user: string; db: string; addr: string; version: number }>(
      `SELECT current_user AS user, current_database() AS db, host(inet_server_addr()) AS addr, current_setting('server_version_num')::int AS version`,
    );
    assert.deepEqual(rows[0], { user: 'similar_sources', db: 'similar_sources', addr: '127.0.0.1', version: rows[0].version });
    assert.ok(rows[0].version >= 180000, `PostgreSQL ${rows[0].version}`);

    const wrong = new URL(url);
    wrong.password = 'not-the-password';
    const intruder = new pg.Client({ connectionString: wrong.toString() });
    await assert.rejects(intruder.connect(), /password authentication failed/);
    await intruder.end().catch(() => undefined);
  });

  it('has the vector extension, version 0.8 or later', async () => {
    const { rows } = await db().query<{ extversion: string }>(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
    assert.equal(rows.length, 1, 'CREATE EXTENSION vector was not run');
    const [major, minor] = rows[0].extversion.split('.').map(Number);
    assert.ok(major > 0 || minor >= 8, `pgvector ${rows[0].extversion} < 0.8`);
  });

  it('answers a cosine kNN query (<=>) on a vector(3) column through its HNSW index', async () => {
    const c = db();
    await c.query('CREATE TABLE items (id int PRIMARY KEY, embedding vector(3) NOT NULL)');
    await c.query(`INSERT INTO items VALUES (1, '[1,0,0]'), (2, '[0.9,0.1,0]'), (3, '[0,1,0]'), (4, '[0,0,1]'), (5, '[-1,0,0]'), (6, '[0.5,0.5,0.1]')`);
    await c.query('CREATE INDEX items_embedding_hnsw ON items USING hnsw (embedding vector_cosine_ops)');
    await c.query('SET enable_seqscan = off');
    try {
      const plan = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM items ORDER BY embedding <=> '[1,0,0]' LIMIT 3`);
      assert.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /Index Scan using items_embedding_hnsw/);
      const { rows } = await c.query<{ id: number; distance: number }>(`SELECT id, embedding <=> $1 AS distance FROM items ORDER BY embedding <=> $1 LIMIT 3`, [
        '[1,0,0]',
      ]);
      assert.deepEqual(
        rows.map((r) => r.id),
        [1, 2, 6],
      );
      assert.ok(Math.abs(rows[0].distance) < 1e-6, `distance to itself: ${rows[0].distance}`);
    } finally {
      await c.query('RESET enable_seqscan');
    }
  });

  it("stems French with to_tsvector('french', …), accents included", async () => {
    const { rows } = await db().query<{ lexemes: string; match: boolean }>(
      `SELECT to_tsvector('french', $1)::text AS lexemes, to_tsvector('french', $1) @@ to_tsquery('french', 'éléphant & manger') AS match`,
      ['Les Éléphants mangeaient des pommes'],
    );
    assert.equal(rows[0].match, true, rows[0].lexemes);
    assert.match(rows[0].lexemes, /'mang'/);
    assert.match(rows[0].lexemes, /'éleph'/, 'É must be lower-cased');
    assert.doesNotMatch(rows[0].lexemes, /'les'|'des'/, 'French stop words must be dropped');
  });

  it('freshSchema() gives each test file its own schema and drops it', async () => {
    const other = await freshSchema(url, 'Another Test-File!');
    assert.match(other.schema, /^another_test_file_\d+_[0-9a-f]{8}$/);
    assert.notEqual(other.schema, schema?.schema);
    const count = async (name: string) => (await db().query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name])).rowCount;
    assert.equal(await count(other.schema), 1);
    await other.drop();
    assert.equal(await count(other.schema), 0);
  });

  it('is idempotent: running the script again prints the same URL and starts nothing', async () => {
    const started = async () => (await db().query<{ t: Date }>('SELECT pg_postmaster_start_time() AS t')).rows[0].t.getTime();
    const before = await started();
    assert.equal(await runDevServer(), url);
    assert.equal(await started(), before, 'the server was restarted');
  });
});
