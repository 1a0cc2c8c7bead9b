import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve('.');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

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

  it('fails on each planted violation, and lets the allowed imports through', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-layers-'));
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'bundler', strict: true } }),
      'src/shared/pure.ts': "import * as fs from 'node:fs';\nexport const read = fs.readFileSync;\n",
      'src/shared/ok.ts': "import { read } from './pure';\nexport const ok = read;\n",
      'src/core/usesVscode.ts': "import type * as vscode from 'vscode';\nexport type Uri = vscode.Uri;\n",
      'src/core/usesHost.ts': "import { host } from '../vscode/host';\nexport const h = host;\n",
      'src/core/inner.ts': "import { ok } from '../../src/shared/ok';\nexport const inner = ok;\n",
      'src/engine/index.ts': "import { inner } from '../core/inner';\nexport const api = inner;\nexport type Api = typeof api;\n",
      'src/vscode/host.ts': "import { inner } from '../core/inner';\nimport { api } from '../engine/index';\nexport const host = [inner, api];\n",
      'src/vscode/allowed.ts': "import type { Api } from '../engine/index';\nimport { ok } from '../shared/ok';\nexport const a: Api | undefined = undefined;\nexport const b = ok;\n",
      'src/cli/main.ts': "import { inner } from '../core/inner';\nimport { api } from '../engine/index';\nexport const cli = [inner, api];\n",
      'webview-ui/panel/main.ts': "import { inner } from '../../src/core/inner';\nimport { ok } from '../../src/shared/ok';\nexport const w = [inner, ok];\n",
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
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
});
