/**
 * The lab's library server (issue 37): a PostgreSQL database with pgvector where one member
 * publishes the index and every member reads it. This module opens a connection and names
 * things; `schema.ts` says what is stored, `publish.ts` writes a generation, `read.ts` reads one.
 * Credentials never come from settings: the URL may carry them (the CLI), or libpq's own
 * PGPASSWORD and ~/.pgpass (which `pg` reads); TLS follows the URL's `sslmode`.
 */
import pg from 'pg';
import { EngineError } from '../../../shared/errors';

/** Where a library is published: the server's URL and the schema that holds it. */
export interface LibraryServer {
  url: string;
  /** Default `similar_sources`. */
  schema?: string;
  /** The password, when the host keeps it (VS Code's secret storage); else the URL's, PGPASSWORD or ~/.pgpass. */
  password?: string;
}

export const DEFAULT_SCHEMA = 'similar_sources';

/** The schema's name, checked: a plain lower-case identifier, never quoted text from elsewhere. */
export function schemaOf(server: LibraryServer): string {
  const s = server.schema || DEFAULT_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(s))
    throw new EngineError('invalid-options', `the library server's schema must be a lower-case name of letters, digits and _ (got ${JSON.stringify(s)})`);
  return s;
}

/** The server as messages name it: host, port, database and schema, never a password. */
export function serverName(server: LibraryServer): string {
  let where = 'the library server';
  try {
    const u = new URL(server.url);
    where = `${u.protocol}//${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    // Not a URL: a libpq keyword string, named without it (it may hold a password).
  }
  return `${where} (schema ${server.schema || DEFAULT_SCHEMA})`;
}

/** The URL with the host's password in it (pg lets a connection string's fields override the others). */
function withPassword(server: LibraryServer): string {
  if (!server.password) return server.url;
  const u = new URL(server.url);
  u.password = encodeURIComponent(server.password);
  return u.toString();
}

/** Why a connection was refused, said for a scholar: pg's words for a missing password are a protocol's. */
function connectProblem(message: string): string {
  if (/client password must be a string|no password supplied/i.test(message))
    return 'the server asks for a password and none was given (VS Code: Set Library Server Password; the CLI: PGPASSWORD or ~/.pgpass)';
  return message;
}

/**
 * A server that answered and refused this member (no or wrong password, no such role or database):
 * `server-unreachable` as any failure to connect, but not out of reach, so this machine's copy of
 * the library does not stand in for it (the member must be let in, not served what the server refused).
 */
export class ServerRefusedError extends EngineError {
  readonly refused = true;
  constructor(message: string) {
    super('server-unreachable', message);
  }
}

/** Whether `err` is the server refusing this member (ServerRefusedError, from either bundle). */
export function serverRefused(err: unknown): boolean {
  return (err as { refused?: unknown } | null)?.refused === true;
}

/** Whether pg's connection error is the server's answer: an authorization or catalog SQLSTATE (class 28, 3D), or pg asked for a password it was not given. */
function answered(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (
    (typeof e.code === 'string' && /^(28|3D)[0-9A-Z]{3}$/.test(e.code)) || /client password must be a string|no password supplied|SASL/i.test(String(e.message))
  );
}

function checkUrl(server: LibraryServer): void {
  if (!/^postgres(ql)?:\/\//.test(server.url))
    throw new EngineError(
      'invalid-options',
      `the library server must be a postgres:// or postgresql:// URL (got one starting ${JSON.stringify(server.url.slice(0, 12))})`,
    );
}

function connectError(server: LibraryServer, err: unknown): EngineError {
  const message = `${serverName(server)} cannot be reached: ${connectProblem((err as Error).message)}`;
  return answered(err) ? new ServerRefusedError(message) : new EngineError('server-unreachable', message);
}

/** An open connection to the server; `server-unreachable` when it cannot be made (ServerRefusedError when the server refused it). */
export async function connectServer(server: LibraryServer, purpose: string): Promise<pg.Client> {
  checkUrl(server);
  const client = new pg.Client({ connectionString: withPassword(server), application_name: `similar-sources ${purpose}`, connectionTimeoutMillis: 15_000 });
  // A connection dropped later surfaces as the failing query's error; without a listener it would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw connectError(server, err);
  }
  return client;
}

/**
 * Connections kept for the small questions each search, hover and check asks (which generation is
 * current, its health, a source's page texts), per server and password: a query each, not a new
 * connection and, to a lab's server, its TLS handshake. Kept 10 s idle, never holding a process
 * open; each query bounded (15 s), so a connection that a lost network left half-open fails as a
 * new one would, and is dropped.
 */
const pools = new Map<string, pg.Pool>();

/** A kept connection to the server (connectServer's errors); `done(failed)` gives it back, or drops it when it failed. */
export async function keptConnection(server: LibraryServer): Promise<{ client: pg.PoolClient; done(failed: boolean): void }> {
  checkUrl(server);
  const url = withPassword(server);
  const key = `${url}\u0000${schemaOf(server)}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: url,
      // Named with its schema, as a lab's administrator sees it in pg_stat_activity.
      application_name: `similar-sources reader (${schemaOf(server)})`,
      connectionTimeoutMillis: 15_000,
      query_timeout: 15_000,
      max: 4,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
    });
    // An idle connection the server or the network dropped: the pool discards it.
    pool.on('error', () => undefined);
    pools.set(key, pool);
  }
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw connectError(server, err);
  }
  // A connection dropped while in use surfaces as its query's error; without a listener it would crash the process.
  if (!client.listenerCount('error')) client.on('error', () => undefined);
  return { client, done: (failed) => client.release(failed) };
}

/** A query's failure, with what was being done and where. */
export function serverError(server: LibraryServer, doing: string, err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  const e = err as { message?: string; code?: string };
  // 42501: insufficient privilege (a read-only role asked to publish).
  const code = e.code === '42501' ? 'invalid-options' : 'server-unreachable';
  const hint = e.code === '42501' ? ' (this role lacks that right: docs/team-library.md gives the publisher and reader roles)' : '';
  return new EngineError(code, `${doing} on ${serverName(server)} failed: ${e.message ?? String(err)}${hint}`);
}
