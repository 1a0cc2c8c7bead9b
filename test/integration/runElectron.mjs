#!/usr/bin/env node
// Runs the same API-level suite (test/integration/suite/*.spec.ts) in desktop VS Code through
// @vscode/test-electron, for machines that have or can download VS Code. On machines that cannot
// obtain VS Code offline (like our build machines) it prints one SKIP line with the reason and
// exits 0; the code-server runner (runCodeServer.mjs) covers the extension host there.
//
//   node test/integration/runElectron.mjs
// Env: VSCODE_EXECUTABLE_PATH=/path/to/code   use this VS Code instead of downloading one
//      SIMILAR_SOURCES_VSCODE_VERSION=1.100.3  version to download (default 1.100.3)
//      SIMILAR_SOURCES_IT_GREP=text            run only the matching tests
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const version = process.env.SIMILAR_SOURCES_VSCODE_VERSION || '1.100.3';
const skip = (reason) => {
  console.log(`SKIP test:electron: ${reason}`);
  process.exit(0);
};

let testElectron;
try {
  const req = createRequire(join(root, 'package.json'));
  testElectron = req(req.resolve('@vscode/test-electron'));
} catch {
  skip('@vscode/test-electron is not installed (npm install --save-dev @vscode/test-electron@^2.5.2)');
}

if (!existsSync(join(root, 'dist', 'extension.js'))) {
  console.error('dist/extension.js is missing: run `npm run build` first');
  process.exit(1);
}

async function obtainVSCode() {
  const explicit = process.env.VSCODE_EXECUTABLE_PATH;
  if (explicit) {
    if (!existsSync(explicit)) skip(`VSCODE_EXECUTABLE_PATH=${explicit} does not exist`);
    return explicit;
  }
  // A previous download in .vscode-test/ is used without the network.
  const cachePath = join(root, '.vscode-test');
  // Probe the update service first so an offline machine fails in seconds, not after retries.
  if (!existsSync(cachePath)) {
    try {
      const r = await fetch('https://update.code.visualstudio.com/api/releases/stable', { signal: AbortSignal.timeout(10_000) });
      if (!r.ok) skip(`cannot obtain VS Code offline: update.code.visualstudio.com answered HTTP ${r.status}`);
    } catch (err) {
      const cause = err && err.cause ? ` (${err.cause.code || err.cause.message || err.cause})` : '';
      skip(`cannot obtain VS Code offline: update.code.visualstudio.com is unreachable: ${err.message}${cause}; set VSCODE_EXECUTABLE_PATH to a local VS Code`);
    }
  }
  try {
    return await testElectron.downloadAndUnzipVSCode({ version, cachePath, timeout: 60_000 });
  } catch (err) {
    skip(`cannot obtain VS Code ${version}: ${err && err.message ? err.message : err}`);
  }
}

// Electron needs a display on Linux: re-run under xvfb-run when there is none.
function ensureDisplay() {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    if (process.env.SIMILAR_SOURCES_UNDER_XVFB) skip('no X display even under xvfb-run');
    const which = spawnSync('sh', ['-c', 'command -v xvfb-run'], { encoding: 'utf8' });
    if (which.status !== 0) skip('no X display (DISPLAY unset) and xvfb-run is not installed (apt-get install xvfb)');
    const r = spawnSync('xvfb-run', ['-a', process.execPath, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, SIMILAR_SOURCES_UNDER_XVFB: '1' },
    });
    process.exit(r.status ?? 1);
  }
}

const { buildIntegrationTests, suiteEntry } = await import('../../scripts/vscode/build-it.mjs');
await buildIntegrationTests();
const vscodeExecutablePath = await obtainVSCode();
ensureDisplay();

const tmp = mkdtempSync(join(tmpdir(), 'similar-sources-electron-'));
const workspace = join(tmp, 'workspace');
const userDataDir = join(tmp, 'user-data');
const extensionsDir = join(tmp, 'extensions');
cpSync(join(root, 'examples'), workspace, { recursive: true, filter: (src) => !src.split(/[\\/]/).includes('.similar-sources') });
mkdirSync(join(userDataDir, 'User'), { recursive: true });
mkdirSync(extensionsDir, { recursive: true });
writeFileSync(
  join(userDataDir, 'User', 'settings.json'),
  JSON.stringify(
    {
      'security.workspace.trust.enabled': false,
      'workbench.startupEditor': 'none',
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'workbench.tips.enabled': false,
      'update.mode': 'none',
      'similarSources.autoIndex': true,
    },
    null,
    2,
  ),
);

let code = 1;
try {
  code = await testElectron.runTests({
    vscodeExecutablePath,
    extensionDevelopmentPath: root,
    extensionTestsPath: suiteEntry,
    launchArgs: [
      workspace,
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
      '--disable-gpu',
      '--no-sandbox',
    ],
    extensionTestsEnv: process.env.SIMILAR_SOURCES_IT_GREP ? { SIMILAR_SOURCES_IT_GREP: process.env.SIMILAR_SOURCES_IT_GREP } : {},
  });
} catch (err) {
  console.error(`test:electron failed: ${err && err.message ? err.message : err}`);
  code = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
