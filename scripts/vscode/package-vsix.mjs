#!/usr/bin/env node
// Packages the extension with vsce, one VSIX per VS Code target, from the dist/ that
// `npm run build` wrote: for each target, ONNX Runtime's files for it are put into
// dist/onnxruntime/ (platforms.mjs picks them; the universal VSIX gets none), then
// `vsce package --target <t>` zips what .vscodeignore lets through. dist/ gets this machine's
// runtime back at the end, whatever happened, so that the CLI and the tests keep working.
//
//   node scripts/vscode/package-vsix.mjs --host [--out similar-sources.vsix]    (npm run package)
//   node scripts/vscode/package-vsix.mjs --target <t> [--out <file>]
//   node scripts/vscode/package-vsix.mjs --all [--out-dir dist-vsix] [--no-check] (npm run package:all)
//
// --all builds a VSIX for every target of platforms.mjs's TARGETS that onnxruntime-node has a
// runtime for, and the universal one (no native file), which VS Code installs on every other
// platform (Intel macOS and Alpine with onnxruntime-node 1.30); then checks each with
// check-vsix.mjs --no-install (contents and native headers) and prints the list.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkVsixFile, reportLines } from './check-platform-vsix.mjs';
import { hostTarget, ortBinDir, ortVersion, placeRuntime, runtimeFiles, TARGETS, UNIVERSAL } from './platforms.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'package.json'));
const log = (m) => console.log(`[package] ${m}`);
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** vsce's command-line entry, run with this Node (no npx round trip). */
function vsceEntry() {
  const dir = dirname(require.resolve('@vscode/vsce/package.json'));
  const bin = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).bin;
  return join(dir, typeof bin === 'string' ? bin : bin.vsce);
}

/** One VSIX for `target` ('universal': no --target, no native file) at `out`. */
function packageOne(target, out) {
  const placed = placeRuntime(join(root, 'dist'), target);
  const t0 = Date.now();
  const targetArgs = target === UNIVERSAL ? [] : ['--target', target];
  mkdirSync(dirname(out), { recursive: true });
  const r = spawnSync(
    process.execPath,
    [vsceEntry(), 'package', ...targetArgs, '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`vsce package ${targetArgs.join(' ')} failed (exit code ${r.status}):\n${r.stdout}${r.stderr}`);
  log(
    `${target}: ${relative(root, out)} (${mib(statSync(out).size)}, ${((Date.now() - t0) / 1000).toFixed(1)} s), runtime: ${placed.length ? placed.map((p) => p.split('/').pop()).join(', ') : 'none'}`,
  );
}

/** The targets --all builds, and those it leaves to the universal VSIX. */
export function plannedTargets(binDir = ortBinDir(root)) {
  const built = TARGETS.filter((t) => runtimeFiles(binDir, t));
  return { built: [...built, UNIVERSAL], skipped: TARGETS.filter((t) => !built.includes(t)) };
}

function main() {
  if (!existsSync(join(root, 'dist', 'extension.js'))) throw new Error('dist/ is not built: run `npm run build` first');
  const host = hostTarget();
  try {
    if (args.includes('--all')) return all(resolve(root, opt('--out-dir') ?? 'dist-vsix'));
    let target = args.includes('--host') ? host : opt('--target');
    if (!target) throw new Error('say --host, --target <t> or --all');
    if (target !== UNIVERSAL && !runtimeFiles(ortBinDir(root), target)) {
      log(`onnxruntime-node ${ortVersion(root)} has no runtime for ${target}: packaging the universal VSIX instead (the local model says it is unavailable)`);
      target = UNIVERSAL;
    }
    packageOne(target, resolve(root, opt('--out') ?? 'similar-sources.vsix'));
    return 0;
  } finally {
    // dist/ serves this machine again (the CLI, the tests, the next `npm run package`).
    placeRuntime(join(root, 'dist'), host);
  }
}

function all(outDir) {
  const t0 = Date.now();
  const { version, name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const { built, skipped } = plannedTargets();
  mkdirSync(outDir, { recursive: true });
  for (const f of readdirSync(outDir)) if (f.endsWith('.vsix')) rmSync(join(outDir, f));
  for (const t of skipped)
    log(
      `${t}: onnxruntime-node ${ortVersion(root)} ships no runtime for it: no VSIX of its own; VS Code installs the universal one there, where the local model says it is unavailable`,
    );
  const files = built.map((t) => {
    const out = join(outDir, `${name}-${t}-${version}.vsix`);
    packageOne(t, out);
    return out;
  });
  log(`packaged ${files.length} VSIXs in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (args.includes('--no-check')) return 0;
  let failed = 0;
  for (const f of files) {
    // Contents (only what runs, nothing required missing) and native headers, without installing.
    const r = spawnSync(process.execPath, [join(root, 'scripts/vscode/check-vsix.mjs'), f, '--no-install'], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) {
      failed++;
      process.stdout.write(r.stdout + r.stderr);
    }
    for (const l of reportLines(relative(root, f), checkVsixFile(f))) console.log(`[check-platform] ${l}`);
  }
  log(
    failed
      ? `${failed} of ${files.length} VSIXs FAILED their checks`
      : `all ${files.length} VSIXs pass check-vsix (contents) and check-platform (native headers); ${((Date.now() - t0) / 1000).toFixed(1)} s in all`,
  );
  return failed ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exit(main());
  } catch (err) {
    console.error(`[package] ${err.message}`);
    process.exit(1);
  }
}
