/**
 * Test Zotero libraries built from Zotero's own schema SQL (SIMILAR_SOURCES_ZOTERO_REF, default
 * /work/shared/zotero, holding userdata.sql, system.sql, triggers.sql and schema.json) by
 * make_library.py with python3's sqlite3. A missing reference folder fails with what to do.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

export const ZOTERO_REF = path.resolve(process.env.SIMILAR_SOURCES_ZOTERO_REF ?? '/work/shared/zotero');
const HERE = path.resolve('test/support/zotero');
const EXAMPLES = path.resolve('examples/library');

export interface GeneratedLibrary {
  dataDir: string;
  /** Item keys of the named items (commune, exode, railway, hanse, grain, iceage, maximum, nopdf). */
  items: Record<string, string>;
  /** Where each named item's PDF lies (commune2: the second PDF of commune). */
  attachments: Record<string, string>;
  annotations: string[];
  itemCount: number;
}

export function zoteroRef(): string {
  for (const f of ['userdata.sql', 'system.sql', 'triggers.sql', 'schema.json']) {
    assert.ok(
      existsSync(path.join(ZOTERO_REF, f)),
      `Zotero's schema files are needed to build test libraries: ${path.join(ZOTERO_REF, f)} is missing. Set SIMILAR_SOURCES_ZOTERO_REF to a folder with Zotero's resource/schema/{userdata,system,triggers}.sql and zotero-schema's schema.json.`,
    );
  }
  return ZOTERO_REF;
}

/** A data directory in `root`/Zotero with `items` filler items; linked files in `root`/linked, relative ones under `root`/base. */
export function makeZoteroLibrary(root: string, o: { items?: number; schemaVersion?: number } = {}): GeneratedLibrary {
  const pdfs = Object.fromEntries(
    readdirSync(EXAMPLES)
      .filter((f) => f.endsWith('.pdf'))
      .map((f) => [f, path.join(EXAMPLES, f)]),
  );
  const opts = {
    out: path.join(root, 'Zotero'),
    ref: zoteroRef(),
    items: o.items ?? 0,
    pdfs,
    linkedDir: path.join(root, 'linked'),
    baseDir: path.join(root, 'base'),
    schemaVersion: o.schemaVersion,
  };
  const r = spawnSync('python3', [path.join(HERE, 'make_library.py'), JSON.stringify(opts)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(r.status, 0, `make_library.py failed: ${r.stderr || r.error?.message}`);
  return { dataDir: opts.out, ...(JSON.parse(r.stdout) as Omit<GeneratedLibrary, 'dataDir'>) };
}

/** Edits of a generated library as a hostile or damaged one would have them (edit_library.py says which). */
export function editZoteroLibrary(dataDir: string, edits: Record<string, unknown>[]): void {
  const r = spawnSync('python3', [path.join(HERE, 'edit_library.py'), path.join(dataDir, 'zotero.sqlite')], { input: JSON.stringify(edits), encoding: 'utf8' });
  assert.equal(r.status, 0, `edit_library.py failed: ${r.stderr || r.error?.message}`);
}

/** A Zotero profile under `home` (Linux layout) whose prefs.js names `prefs`. */
export function profilePrefs(prefs: Record<string, string | boolean>): string {
  return Object.entries(prefs)
    .map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`)
    .join('\n');
}

const KEY_ALPHABET = '23456789ABCDEFGHIJKLMNPQRSTUVWXYZ';

/** A valid Zotero key (8 characters of Zotero's alphabet): `prefix` followed by `n` in that alphabet. */
export function zoteroKey(prefix: string, n: number): string {
  let tail = '';
  for (let i = 0; i < 8 - prefix.length; i++, n = Math.floor(n / KEY_ALPHABET.length)) tail = KEY_ALPHABET[n % KEY_ALPHABET.length] + tail;
  return prefix + tail;
}

export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** A process holding the database open in WAL mode with `items` written only to the WAL; close() ends it. */
export async function holdInWal(dbFile: string, items: { key: string; title: string }[]): Promise<{ close(): Promise<void>; child: ChildProcess }> {
  const child = spawn('python3', [path.join(HERE, 'hold_wal.py'), dbFile, JSON.stringify(items)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`hold_wal.py exited (${code}): ${err}`)));
  });
  return {
    child,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}
