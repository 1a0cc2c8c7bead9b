import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** The folders `npm run lint:deps` checks, as package.json says. */
function lintedPaths(): string[] {
  const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['lint:deps'];
  const words = script.split(/\s+/);
  const from = words.indexOf('depcruise') + 1;
  const to = words.findIndex((w, i) => i >= from && w.startsWith('--'));
  return words.slice(from, to < 0 ? undefined : to);
}

const planted: string[] = [];

/** A throwaway tree of `files` (path → text) with a tsconfig, for dependency-cruiser to check. */
function plant(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ss-layers-'));
  planted.push(dir);
  files = { 'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'bundler', strict: true } }), ...files };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** The violations (JSON report), and the exit status of the check as `npm run lint:deps` runs it. */
function cruise(cwd: string, paths: string[]): { status: number | null; violations: Violation[]; stderr: string } {
  const json = spawnSync(DEPCRUISE, [...paths, '--config', CONFIG, '--output-type', 'json'], { cwd, encoding: 'utf8' });
  assert.ok(json.stdout, json.stderr);
  const check = spawnSync(DEPCRUISE, [...paths, '--config', CONFIG, '--output-type', 'err'], { cwd, encoding: 'utf8' });
  return { status: check.status, violations: JSON.parse(json.stdout).summary.violations, stderr: check.stdout + check.stderr };
}

// `npm run lint:deps` checks the tree itself; this proves the check fails when a layer is crossed.
describe('layering (dependency-cruiser, .dependency-cruiser.cjs)', function () {
  this.timeout(60_000);
  after(() => {
    for (const dir of planted.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('fails on each planted violation, and lets the allowed imports through', () => {
    const dir = plant({
      'src/shared/pure.ts': "import * as fs from 'node:fs';\nexport const read = fs.readFileSync;\n",
      'src/shared/ok.ts': "import { read } from './pure';\nexport const ok = read;\n",
      'src/core/usesVscode.ts': "import type * as vscode from 'vscode';\nexport type Uri = vscode.Uri;\n",
      'src/core/usesHost.ts': "import { host } from '../vscode/host';\nexport const h = host;\n",
      'src/core/inner.ts': "import { ok } from '../../src/shared/ok';\nexport const inner = ok;\n",
      'src/engine/index.ts': "import { inner } from '../core/inner';\nexport const api = inner;\nexport type Api = typeof api;\n",
      'src/vscode/host.ts': "import { inner } from '../core/inner';\nimport { api } from '../engine/index';\nexport const host = [inner, api];\n",
      'src/vscode/allowed.ts':
        "import type { Api } from '../engine/index';\nimport { ok } from '../shared/ok';\nexport const a: Api | undefined = undefined;\nexport const b = ok;\n",
      'src/cli/main.ts': "import { inner } from '../core/inner';\nimport { api } from '../engine/index';\nexport const cli = [inner, api];\n",
      'webview-ui/panel/main.ts': "import { inner } from '../../src/core/inner';\nimport { ok } from '../../src/shared/ok';\nexport const w = [inner, ok];\n",
    });
    const r = cruise(dir, ['src', 'webview-ui']);
    assert.notEqual(r.status, 0, 'the check fails');
    const seen = r.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to.replace(/^node:/, '')}`).sort();
    assert.deepEqual(seen, [
      'cli-through-engine-api: src/cli/main.ts → src/core/inner.ts',
      'core-not-outer-layers: src/core/usesHost.ts → src/vscode/host.ts',
      'core-not-vscode: src/core/usesVscode.ts → vscode',
      'host-engine-types-only: src/vscode/host.ts → src/engine/index.ts',
      'host-through-engine-api: src/vscode/host.ts → src/core/inner.ts',
      'shared-is-pure: src/shared/pure.ts → fs',
      'webviews-only-shared: webview-ui/panel/main.ts → src/core/inner.ts',
    ]);
  });
  it('fails on a host that reaches past src/engine/index.ts, lets the API file and the listed scripts through', () => {
    const config = require(CONFIG) as { forbidden: Array<{ name: string; from: { pathNot?: string[] } }> };
    const listed = config.forbidden
      .find((x) => x.name === 'scripts-through-engine-api')!
      .from.pathNot![0].slice(1, -1)
      .replace(/\\(.)/g, '$1');
    const up = '../'.repeat(listed.split('/').length - 1);
    const dir = plant({
      'src/shared/ok.ts': 'export const ok = 1;\n',
      'src/core/inner.ts': "import { ok } from '../shared/ok';\nexport const inner = ok;\n",
      'src/engine/search.ts': "import { inner } from '../core/inner';\nexport const openIndex = () => inner;\nexport type Index = number;\n",
      'src/engine/index.ts': "export { openIndex as api } from './search';\nexport type { Index } from './search';\n",
      'src/vscode/around.ts': "import type { Index } from '../engine/search';\nexport type A = Index;\n",
      'src/vscode/allowed.ts': "import type { Index } from '../engine';\nexport type B = Index;\n",
      'src/extension.ts': "import type { Index } from './engine/search';\nexport type C = Index;\n",
      'src/cli/around.ts': "import { openIndex } from '../engine/search';\nexport const d = openIndex;\n",
      'src/cli/allowed.ts': "import { api } from '../engine/index';\nexport const e = api;\n",
      'scripts/around.ts': "import { openIndex } from '../src/engine/search';\nexport const f = openIndex;\n",
      'scripts/allowed.ts': "import { api } from '../src/engine';\nexport const g = api;\n",
      [listed]: `import { openIndex } from '${up}src/engine/search';\nexport const h = openIndex;\n`,
      'webview-ui/panel/main.ts': "import { ok } from '../../src/shared/ok';\nexport const w = ok;\n",
    });
    const r = cruise(dir, lintedPaths());
    assert.notEqual(r.status, 0, 'the check fails');
    const seen = r.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    assert.deepEqual(seen, [
      'hosts-through-engine-index: scripts/around.ts → src/engine/search.ts',
      'hosts-through-engine-index: src/cli/around.ts → src/engine/search.ts',
      'hosts-through-engine-index: src/extension.ts → src/engine/search.ts',
      'hosts-through-engine-index: src/vscode/around.ts → src/engine/search.ts',
    ]);
  });

  it('lint:deps checks src, webview-ui and scripts', () => {
    assert.deepEqual(lintedPaths().sort(), ['scripts', 'src', 'webview-ui']);
  });

  it('fails on a cycle between folders of src/core, even where no module imports itself back', () => {
    const dir = plant({
      'src/core/a/one.ts': "import { two } from '../b/two';\nexport const one = two;\n",
      'src/core/b/two.ts': "import { three } from '../a/three';\nexport const two = three;\n",
      'src/core/a/three.ts': 'export const three = 3;\n',
      // Pointing down is fine: c uses a and b, neither knows c.
      'src/core/c/top.ts': "import { one } from '../a/one';\nimport { two } from '../b/two';\nexport const top = [one, two];\n",
    });
    const r = cruise(dir, ['src']);
    assert.notEqual(r.status, 0, 'the check fails');
    const seen = r.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    assert.deepEqual(seen, ['core-no-folder-cycles: src/core/a → src/core/b', 'core-no-folder-cycles: src/core/b → src/core/a']);
    // The same tree with the back edge cut passes.
    writeFileSync(join(dir, 'src/core/b/two.ts'), 'export const two = 2;\n');
    const fixed = cruise(dir, ['src']);
    assert.deepEqual(fixed.violations, [], fixed.stderr);
    assert.equal(fixed.status, 0, fixed.stderr);
  });

  it('fails on a script that imports the core, lets the engine API, src/shared and the listed exceptions through', () => {
    // A script the configuration lists as reaching into the core (SCRIPTS_INTO_CORE), taken from the rule itself.
    const config = require(CONFIG) as { forbidden: Array<{ name: string; from: { pathNot?: string[] } }> };
    const listed = config.forbidden
      .find((x) => x.name === 'scripts-through-engine-api')!
      .from.pathNot![0].slice(1, -1)
      .replace(/\\(.)/g, '$1');
    const dir = plant({
      'src/shared/ok.ts': 'export const ok = 1;\n',
      'src/core/inner.ts': "import { ok } from '../shared/ok';\nexport const inner = ok;\n",
      'src/engine/index.ts': "import { inner } from '../core/inner';\nexport const api = inner;\n",
      'src/cli/main.ts': "import { api } from '../engine/index';\nexport const cli = api;\n",
      'scripts/planted.ts': "import { inner } from '../src/core/inner';\nexport const p = inner;\n",
      'scripts/deep/planted.mjs': "import { cli } from '../../src/cli/main';\nexport const p = cli;\n",
      'webview-ui/panel/main.ts': "import { ok } from '../../src/shared/ok';\nexport const w = ok;\n",
      'scripts/allowed.ts': "import { api } from '../src/engine/index';\nimport { ok } from '../src/shared/ok';\nexport const a = [api, ok];\n",
      [listed]: "import { inner } from '" + '../'.repeat(listed.split('/').length - 1) + "src/core/inner';\nexport const l = inner;\n",
    });
    const r = cruise(dir, lintedPaths());
    assert.notEqual(r.status, 0, 'the check fails');
    const seen = r.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    assert.deepEqual(seen, [
      'scripts-through-engine-api: scripts/deep/planted.mjs → src/cli/main.ts',
      'scripts-through-engine-api: scripts/planted.ts → src/core/inner.ts',
    ]);
  });
});

// `npm run lint:deps` also runs scripts/lint-reads.mjs on src: every file is read through
// core/util/confinedFiles (issue 35). This proves it finds each way of reading around it.
describe('raw file reads (scripts/lint-reads.mjs)', function () {
  this.timeout(60_000);
  const LINT = join(ROOT, 'scripts', 'lint-reads.mjs');
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('is part of npm run lint:deps', () => {
    const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['lint:deps'];
    assert.match(script, /node scripts\/lint-reads\.mjs/);
  });

  it('fails on each raw read, names it, and lets writes, stats and the reader itself through', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-reads-'));
    dirs.push(dir);
    const files: Record<string, string> = {
      'src/core/a.ts': "import { promises as fs } from 'node:fs';\nexport const a = (f: string) => fs.readFile(f, 'utf8');\n",
      'src/core/b.ts': "import { readFileSync, statSync } from 'node:fs';\nexport const b = (f: string) => [readFileSync(f), statSync(f)];\n",
      'src/engine/c.ts':
        "import * as fs from 'node:fs';\nexport const c = (f: string) => [fs.createReadStream(f), fs.openSync(f, 'r'), fs.promises.open(f)];\n",
      'src/cli/d.ts': "import { readFile as rf } from 'node:fs/promises';\nexport const d = rf;\n",
      'src/vscode/e.ts': "import fs from 'fs';\nexport const e = (f: string) => fs.copyFileSync(f, f + '.bak');\n",
      // Not reads: writes (opened for writing), stats, listings, type-only imports.
      'src/core/ok.ts':
        "import { promises as fs, writeFileSync, type Stats } from 'node:fs';\nexport const ok = async (f: string, append: boolean) => { const h = await fs.open(f, append ? 'a' : 'w'); writeFileSync(f, ''); await fs.stat(f); await fs.readdir(f); return h as unknown as Stats; };\n",
      'src/core/util/confinedFiles.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    const r = spawnSync(process.execPath, [LINT, 'src'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    const lines = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim())
      .sort();
    assert.deepEqual(lines, [
      'src/cli/d.ts:1: imports readFile from node:fs/promises',
      'src/core/a.ts:2: fs.readFile',
      'src/core/b.ts:1: imports readFileSync from node:fs',
      'src/engine/c.ts:2: fs.createReadStream',
      'src/engine/c.ts:2: fs.openSync',
      'src/engine/c.ts:2: fs.promises.open',
      'src/vscode/e.ts:2: fs.copyFileSync',
    ]);
    const clean = spawnSync(process.execPath, [LINT, 'src/core/ok.ts', 'src/core/util'], { cwd: dir, encoding: 'utf8' });
    assert.equal(clean.status, 0, clean.stderr);
  });
});

// `npm run lint:deps` also runs scripts/lint-engine-api.mjs: every value src/engine/index.ts exports
// is listed with why, and one straight from src/core in its own list (issue 36). This proves it
// finds each way of growing the API without saying why.
describe('the engine API allow-list (scripts/lint-engine-api.mjs)', function () {
  this.timeout(60_000);
  const LINT = join(ROOT, 'scripts', 'lint-engine-api.mjs');
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('is part of npm run lint:deps, and passes on the repository', () => {
    const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['lint:deps'];
    assert.match(script, /node scripts\/lint-engine-api\.mjs/);
    const r = spawnSync(process.execPath, [LINT], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /each value listed/);
  });

  it('fails on a value re-exported straight from src/core (directly or through an engine module), an unlisted engine value, export *, and a stale listing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-api-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'src', 'engine'), { recursive: true });
    // The real API and the engine modules it names, then the planted exports.
    for (const f of readdirSync(join(ROOT, 'src', 'engine'))) if (f.endsWith('.ts')) cpSync(join(ROOT, 'src', 'engine', f), join(dir, 'src', 'engine', f));
    writeFileSync(
      join(dir, 'src/engine/planted.ts'),
      "export { loadBeir } from '../core/eval/beir';\nexport { removeIndex as dropIndex } from '../core/index/store/maintenance';\n",
    );
    const api = readFileSync(join(ROOT, 'src/engine/index.ts'), 'utf8').replace("export { indexedModel } from './status';\n", '');
    assert.ok(!api.includes('indexedModel'), 'the planted API drops indexedModel');
    writeFileSync(
      join(dir, 'src/engine/index.ts'),
      api +
        "export { indexDir } from '../core/index/store/manifest';\n" +
        "export { loadBeir, dropIndex } from './planted';\n" +
        "export { openIndex, type SearchIndex as Planted } from './search';\n" +
        "export * from './status';\n",
    );
    const r = spawnSync(process.execPath, [LINT, dir], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    const lines = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) =>
        l
          .trim()
          .replace(/^src\/engine\/index\.ts:\d+: /, '')
          .replace(/:.*/, ''),
      )
      .sort();
    assert.deepEqual(lines, [
      'dropIndex comes straight from src/core',
      "export * from './status'",
      'indexDir comes straight from src/core',
      'indexedModel is listed in scripts/lint-engine-api.mjs but src/engine/index.ts does not export it as a value',
      'loadBeir comes straight from src/core',
      "openIndex is not in the engine API's list",
    ]);
  });
});
