/**
 * SQLite in WebAssembly (sql.js): runs in VS Code's extension host on every platform with no
 * native module to rebuild against Electron. Its .wasm is shipped beside the bundle
 * (dist/sql-wasm.wasm, scripts/build.mjs) and, running from sources, read from the package.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { readConfined } from '../util/confinedFiles';
import type { Database, SqlJsStatic } from 'sql.js';

export type { Database } from 'sql.js';

const WASM_FILE = 'sql-wasm.wasm';
let loading: Promise<SqlJsStatic> | undefined;

function wasmPath(): string {
  const here = typeof __dirname === 'string' ? __dirname : '';
  const bundled = here && path.join(here, WASM_FILE);
  if (bundled && existsSync(bundled)) return bundled;
  try {
    const req = createRequire(here ? path.join(here, 'x.js') : path.join(process.cwd(), 'x.js'));
    return path.join(path.dirname(req.resolve('sql.js')), WASM_FILE);
  } catch {
    throw new Error(`SQLite's WebAssembly (${WASM_FILE}) is missing beside the bundle; rebuild with npm run build`);
  }
}

export function loadSqlite(): Promise<SqlJsStatic> {
  loading ??= (async () => {
    const { bytes } = await readConfined(wasmPath(), { kind: 'package' });
    return initSqlJs({ wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

/** Opens database bytes in memory (never a file: nothing can be written back). */
export async function openDatabase(bytes: Uint8Array): Promise<Database> {
  const SQL = await loadSqlite();
  return new SQL.Database(bytes);
}

/** Rows of a query as objects. */
export function rows<T = Record<string, unknown>>(db: Database, sql: string, params: (string | number | null)[] = []): T[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const names = stmt.getColumnNames();
    const out: T[] = [];
    while (stmt.step()) {
      // get() and the names once: getAsObject asks SQLite for the names again on every row.
      const values = stmt.get();
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
      out.push(row as T);
    }
    return out;
  } finally {
    stmt.free();
  }
}
