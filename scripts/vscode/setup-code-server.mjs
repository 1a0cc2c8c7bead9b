#!/usr/bin/env node
// Prepares everything the integration tests need to run a real VS Code extension host offline:
//   1. Debian packages: libkrb5-dev (headers for the `kerberos` native module), ripgrep (the npm
//      package @vscode/ripgrep would download its binary from the internet) and chromium (the
//      browser Playwright drives). Installed only when missing; needs root.
//   2. code-server 4.100.3 (= VS Code 1.100.3, the last line that runs on Node 20) from the npm
//      registry, unpacked and made runnable in a cache directory OUTSIDE the repository
//      (see GUIDE.md §5). A marker file records a complete cache so later runs skip all work.
//   3. playwright-core, when the project itself does not provide it, into the same cache.
//
// Cache: $SIMILAR_SOURCES_CACHE (default ~/.cache/similar-sources)/code-server-4.100.3
// Usage: node scripts/vscode/setup-code-server.mjs        (or import { ensureCodeServer })
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, lstatSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
export const PLAYWRIGHT_CORE_VERSION = '1.65.1';
const APT_PACKAGES = ['libkrb5-dev', 'ripgrep', 'chromium'];
const VSCODE_NATIVE_MODULES = ['kerberos', 'native-watchdog', 'node-pty', '@parcel/watcher', '@vscode/deviceid', '@vscode/spdlog'];
const MARKER_NAME = '.similar-sources-setup-complete';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function cacheRoot() {
  return resolve(process.env.SIMILAR_SOURCES_CACHE || join(homedir(), '.cache', 'similar-sources'));
}

export function codeServerDir() {
  return join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
}

function log(message) {
  console.log(`[setup-code-server] ${message}`);
}

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}${opts.cwd ? `   (in ${opts.cwd})` : ''}`);
  const started = Date.now();
  const result = spawnSync(cmd, args, {
    stdio: opts.quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    cwd: opts.cwd,
    env: {
      ...process.env,
      npm_config_yes: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      DEBIAN_FRONTEND: 'noninteractive',
      ...(opts.env || {}),
    },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw new Error(`${cmd} could not be started: ${result.error.message}`);
  if (result.status !== 0) {
    const tail = opts.quiet ? `\n${(result.stdout || '').slice(-2000)}${(result.stderr || '').slice(-4000)}` : '';
    throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${result.status}${tail}`);
  }
  log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result.stdout || '';
}

function aptPackageInstalled(name) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return r.status === 0 && /install ok installed/.test(r.stdout);
}

export function ensureAptPackages() {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/dpkg-query')) {
    throw new Error('The integration tests need a Debian-like Linux (dpkg/apt) to install libkrb5-dev, ripgrep and chromium.');
  }
  const missing = APT_PACKAGES.filter((p) => !aptPackageInstalled(p));
  if (missing.length === 0) {
    log(`apt packages present: ${APT_PACKAGES.join(', ')}`);
    return;
  }
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error(
      `Missing Debian packages: ${missing.join(', ')}. Installing them needs root. ` +
        `Run as root, or first run: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`,
    );
  }
  log(`installing missing apt packages: ${missing.join(', ')}`);
  run('apt-get', ['update']);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...missing]);
}

function linkForce(target, linkPath) {
  try {
    lstatSync(linkPath);
    unlinkSync(linkPath);
  } catch {
    /* absent */
  }
  mkdirSync(dirname(linkPath), { recursive: true });
  symlinkSync(target, linkPath);
}

export function ensureCodeServerInstalled() {
  const dir = codeServerDir();
  const marker = join(dir, MARKER_NAME);
  const entry = join(dir, 'package', 'out', 'node', 'entry.js');
  if (existsSync(marker) && existsSync(entry)) {
    log(`code-server ${CODE_SERVER_VERSION} cache is complete: ${dir}`);
    return { dir, entry };
  }
  const started = Date.now();
  log(`building code-server ${CODE_SERVER_VERSION} cache in ${dir} (first run: several minutes)`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });

  run('npm', ['pack', `code-server@${CODE_SERVER_VERSION}`, '--silent'], { cwd: dir, quiet: true });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack produced no tarball');
  run('tar', ['-xzf', tarball], { cwd: dir });
  rmSync(join(dir, tarball));

  const pkg = join(dir, 'package');
  const vscodeDir = join(pkg, 'lib', 'vscode');
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: pkg });
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: vscodeDir });
  run('npm', ['rebuild', ...VSCODE_NATIVE_MODULES], { cwd: vscodeDir });
  run('npm', ['rebuild', 'argon2'], { cwd: pkg });

  // VS Code loads some modules from node_modules.asar; unpacked, the plain folder serves.
  linkForce('node_modules', join(vscodeDir, 'node_modules.asar'));
  // @vscode/ripgrep's postinstall would download rg; use Debian's.
  linkForce('/usr/bin/rg', join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'));

  if (!existsSync(entry)) throw new Error(`code-server entry point missing after setup: ${entry}`);
  writeFileSync(marker, JSON.stringify({ version: CODE_SERVER_VERSION, node: process.version, completedAt: new Date().toISOString() }, null, 2));
  log(`code-server ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { dir, entry };
}

/** Resolves playwright-core from the project; otherwise installs it into the cache. Returns its main file. */
export function ensurePlaywrightCore() {
  try {
    const fromRepo = createRequire(join(repoRoot, 'package.json')).resolve('playwright-core');
    log(`playwright-core resolved from the project: ${fromRepo}`);
    return fromRepo;
  } catch {
    /* not a project dependency (yet) */
  }
  const prefix = join(cacheRoot(), `playwright-core-${PLAYWRIGHT_CORE_VERSION}`);
  const req = createRequire(join(prefix, 'package.json'));
  try {
    const fromCache = req.resolve('playwright-core');
    log(`playwright-core resolved from the cache: ${fromCache}`);
    return fromCache;
  } catch {
    /* install below */
  }
  mkdirSync(prefix, { recursive: true });
  if (!existsSync(join(prefix, 'package.json'))) writeFileSync(join(prefix, 'package.json'), '{"private":true}\n');
  log('playwright-core is not a project dependency; installing it into the cache');
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `playwright-core@${PLAYWRIGHT_CORE_VERSION}`], { cwd: prefix });
  return req.resolve('playwright-core');
}

export function ensureCodeServer() {
  ensureAptPackages();
  const { dir, entry } = ensureCodeServerInstalled();
  const playwrightCore = ensurePlaywrightCore();
  return { dir, entry, playwrightCore, chromium: '/usr/bin/chromium' };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const started = Date.now();
    const result = ensureCodeServer();
    log(`ready (${((Date.now() - started) / 1000).toFixed(0)} s): ${JSON.stringify(result)}`);
  } catch (err) {
    console.error(`[setup-code-server] FAILED: ${err && err.message ? err.message : err}`);
    process.exit(1);
  }
}
