#!/usr/bin/env node
// Checks the VSIX that `npm run package` writes at the repository root:
//   1. its entries: only what runs (bundles, pdf.js worker, webview assets, media, l10n, manifest,
//      NLS files, README, LICENSE), nothing else (no src/, node_modules/, test/, examples/, maps),
//      and every file the extension loads at run time;
//   2. its native files: ONNX Runtime for the VSIX's own target and nothing else, none in the
//      universal VSIX (check-platform-vsix.mjs, which checks each file's binary header);
//   3. that it installs into code-server 4.100.3 (= VS Code 1.100.3) with --install-extension and
//      is then listed by --list-extensions --show-versions as publisher.name@version.
//
//   node scripts/vscode/check-vsix.mjs [file.vsix] [--no-install] [--keep]
//
// Default file: similar-sources.vsix at the repository root. code-server comes from the cache that
// scripts/vscode/setup-code-server.mjs fills (built on first use; see there). Exit code 0 when all is well.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { platformProblems } from './check-platform-vsix.mjs';
import { describeHeader } from './nativeBinary.mjs';
import { BINDING, targetPlatform, UNIVERSAL } from './platforms.mjs';
import { vsixTarget, zipEntries, zipRead } from './zip.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const NO_INSTALL = args.includes('--no-install');
const KEEP = args.includes('--keep');
const vsixPath = resolve(args.find((a) => !a.startsWith('--')) ?? join(root, 'similar-sources.vsix'));

const log = (m) => console.log(`[check-vsix] ${m}`);
const problems = [];
const fail = (m) => problems.push(m);

// ---------------------------------------------------------------- the rules
// Paths inside the VSIX. vsce stores the extension under extension/, renames README.md to
// readme.md, CHANGELOG.md to changelog.md and a bare LICENSE to LICENSE.txt.
const ALLOWED_EXACT = new Set([
  '[Content_Types].xml',
  'extension.vsixmanifest',
  'extension/package.json',
  'extension/readme.md',
  'extension/changelog.md',
  'extension/LICENSE.txt',
  'extension/LICENSE.md',
  'extension/LICENSE',
  // The bundles and the files they load beside themselves by path.
  'extension/dist/extension.js', // manifest "main"
  'extension/dist/engine.js', // required by dist/extension.js on first use (src/vscode/engine.ts)
  'extension/dist/pdf-extract-worker.js', // worker_threads entry for PDF extraction (src/core/pdf/extractPool.ts)
  'extension/dist/pdf.worker.mjs', // pdf.js worker for pdf-parse (src/core/pdf/runtime.ts)
  'extension/dist/sql-wasm.wasm', // sql.js's WebAssembly, for Zotero's database (src/core/zotero/sqlite.ts)
  'extension/dist/local-embed-worker.js', // worker_threads entry for the local embedding model (src/core/embedding/local/localProvider.ts)
  'extension/dist/cross-encoder-worker.js', // worker_threads entry for the local reranker (src/core/rerank/crossEncoder.ts)
  'extension/dist/segment-worker.js', // worker_threads entry for Markdown segmentation (src/core/markdown/segmentThread.ts)
  'extension/dist/citation-check-worker.js', // worker_threads entry for the citation check (src/engine/citationThread.ts)
]);
const ALLOWED_PATTERNS = [
  /^extension\/package\.nls(\.[A-Za-z0-9-]+)?\.json$/,
  /^extension\/dist\/onnxruntime\/[a-z0-9]+\/[a-z0-9]+\/[^/]+\.(node|so(\.\d+)*|dylib|dll)$/, // ONNX Runtime's native files for the VSIX's platform (scripts/build.mjs)
  /^extension\/dist\/ocr\/(tesseract-worker\.js|tesseract-core(-[a-z]+)*\.wasm|tessdata\/[a-z_]+\.traineddata\.gz)$/, // OCR (src/core/ocr/ocrRuntime.ts)
  /^extension\/dist\/webview\//, // webview bundles, CSS, pdf.js worker, cmaps, fonts, wasm, ICC profiles
  /^extension\/media\//,
  /^extension\/l10n\/[^/]+\.json$/,
];
// Never inside, even under an allowed folder.
const FORBIDDEN = [/\.map$/, /(^|\/)node_modules\//, /\.tsx?$/, /(^|\/)\.DS_Store$/, /\.vsix$/];

function requiredEntries(manifest, target) {
  const req = new Set([
    '[Content_Types].xml',
    'extension.vsixmanifest',
    'extension/package.json',
    'extension/readme.md',
    'extension/changelog.md', // the Marketplace's and VS Code's Changelog tab
    'extension/dist/engine.js',
    'extension/dist/pdf-extract-worker.js',
    'extension/dist/pdf.worker.mjs',
    'extension/dist/sql-wasm.wasm',
    'extension/dist/local-embed-worker.js',
    'extension/dist/cross-encoder-worker.js',
    'extension/dist/segment-worker.js',
    'extension/dist/citation-check-worker.js',
    'extension/dist/ocr/tesseract-worker.js',
    'extension/dist/ocr/tesseract-core.wasm',
    'extension/dist/ocr/tesseract-core-simd.wasm',
    'extension/dist/ocr/tesseract-core-relaxedsimd.wasm',
    'extension/dist/ocr/tessdata/eng.traineddata.gz',
    'extension/dist/ocr/tessdata/fra.traineddata.gz',
    'extension/dist/webview/panel.js',
    'extension/dist/webview/panel.css',
    'extension/dist/webview/pdfViewer.js',
    'extension/dist/webview/pdfViewer.css',
    'extension/dist/webview/pdf.worker.min.mjs',
    'extension/media/icon.svg', // the panel's tab icon (src/vscode/panel.ts)
  ]);
  // A platform's VSIX carries ONNX Runtime's binding for it; the universal one none.
  if (target !== UNIVERSAL) req.add(`extension/dist/onnxruntime/${targetPlatform(target).os}/${targetPlatform(target).arch}/${BINDING}`);
  req.add(`extension/${posix.normalize(manifest.main)}`);
  if (manifest.icon) req.add(`extension/${posix.normalize(manifest.icon)}`);
  // Every NLS file of the manifest and every l10n bundle of the checkout.
  for (const f of readdirSync(root)) if (/^package\.nls(\.[A-Za-z0-9-]+)?\.json$/.test(f)) req.add(`extension/${f}`);
  const l10nDir = join(root, manifest.l10n ? posix.normalize(manifest.l10n) : 'l10n');
  if (existsSync(l10nDir))
    for (const f of readdirSync(l10nDir)) if (f.endsWith('.json')) req.add(`extension/${relative(root, join(l10nDir, f)).split('\\').join('/')}`);
  return req;
}

// ---------------------------------------------------------------- 1. contents
if (!existsSync(vsixPath)) {
  console.error(`[check-vsix] ${vsixPath} does not exist: run \`npm run package\` first`);
  process.exit(1);
}
const buf = readFileSync(vsixPath);
const entries = zipEntries(buf).filter((e) => !e.name.endsWith('/'));
const names = new Set(entries.map((e) => e.name));
const target = vsixTarget(buf, entries);
const repoManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

for (const name of [...names].sort()) {
  const allowed = ALLOWED_EXACT.has(name) || ALLOWED_PATTERNS.some((r) => r.test(name));
  if (!allowed || FORBIDDEN.some((r) => r.test(name))) fail(`unexpected entry: ${name}`);
}
for (const name of requiredEntries(repoManifest, target)) if (!names.has(name)) fail(`missing entry: ${name}`);
if (![...names].some((n) => /^extension\/LICENSE(\.txt|\.md)?$/.test(n))) fail('missing entry: extension/LICENSE.txt (a LICENSE file at the root)');

let manifest;
try {
  manifest = JSON.parse(
    zipRead(
      buf,
      entries.find((e) => e.name === 'extension/package.json'),
    ).toString('utf8'),
  );
} catch (err) {
  fail(`cannot read extension/package.json from the VSIX: ${err.message}`);
}
const id = manifest ? `${manifest.publisher}.${manifest.name}` : undefined;
if (manifest) {
  for (const key of ['publisher', 'name', 'version']) {
    if (manifest[key] !== repoManifest[key])
      fail(`the VSIX's package.json has ${key} "${manifest[key]}" where the checkout has "${repoManifest[key]}": the VSIX is stale, run \`npm run package\``);
  }
}

const size = statSync(vsixPath).size;
const unpacked = entries.reduce((s, e) => s + e.size, 0);
const groups = new Map();
for (const e of entries) {
  const parts = e.name.split('/');
  const key = parts.length > 3 ? `${parts.slice(0, 3).join('/')}/` : e.name;
  const g = groups.get(key) ?? { n: 0, size: 0 };
  g.n++;
  g.size += e.size;
  groups.set(key, g);
}
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
log(`${relative(process.cwd(), vsixPath) || vsixPath}: ${entries.length} entries`);
for (const [k, g] of [...groups].sort()) log(`  ${k}${g.n > 1 ? ` (${g.n} files)` : ''}  ${kb(g.size)}`);
log(`size: ${size} bytes (${(size / 1024 / 1024).toFixed(2)} MiB), ${(unpacked / 1024 / 1024).toFixed(2)} MiB unpacked`);
if (problems.length === 0) log('contents: ok (only what runs, nothing required missing)');

// ---------------------------------------------------------------- 2. native files
const native = platformProblems(
  target,
  entries.map((e) => ({ name: e.name, bytes: zipRead(buf, e) })),
);
for (const n of native.natives) log(`  native: ${n.name}: ${describeHeader(n.header)}`);
native.problems.forEach(fail);
log(
  `target ${target}: ${native.problems.length ? `${native.problems.length} native-file problem(s)` : `native files ok (${native.natives.length}, all for ${target === UNIVERSAL ? 'no platform: none expected' : target})`}`,
);

// ---------------------------------------------------------------- 3. install into code-server
if (!NO_INSTALL && manifest) {
  const { ensureCodeServerInstalled } = await import('./setup-code-server.mjs');
  const { entry } = ensureCodeServerInstalled();
  const tmp = mkdtempSync(join(tmpdir(), 'similar-sources-vsix-'));
  const extensionsDir = join(tmp, 'extensions');
  const userDataDir = join(tmp, 'user-data');
  mkdirSync(extensionsDir, { recursive: true });
  // code-server writes its config and state under XDG dirs: keep them out of $HOME.
  const env = { ...process.env, XDG_CONFIG_HOME: join(tmp, 'xdg-config'), XDG_DATA_HOME: join(tmp, 'xdg-data') };
  const cs = (...extra) => {
    const r = spawnSync(process.execPath, [entry, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, ...extra], {
      env,
      encoding: 'utf8',
      timeout: 180_000,
    });
    if (r.error) throw r.error;
    return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
  };
  try {
    const t0 = Date.now();
    const install = cs('--install-extension', vsixPath);
    const installLines = install.out.split('\n').filter((l) => l.trim() && !/Wrote default config file/.test(l));
    log(`code-server --install-extension (${((Date.now() - t0) / 1000).toFixed(1)} s): ${installLines.join(' | ')}`);
    if (install.status !== 0 || !/successfully installed/i.test(install.out))
      fail(`--install-extension failed (exit code ${install.status}): ${install.out.trim().slice(-2000)}`);
    const expected = `${id}@${manifest.version}`;
    const list = cs('--list-extensions', '--show-versions');
    const listed = list.out
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^[\w.-]+\.[\w.-]+@/.test(l));
    log(`code-server --list-extensions --show-versions: ${listed.join(', ') || '(none)'}`);
    if (list.status !== 0 || !listed.includes(expected))
      fail(`${expected} is not listed after --install-extension (exit code ${list.status}): ${list.out.trim().slice(-1000)}`);
    const installedDir = join(extensionsDir, `${id}-${manifest.version}`);
    for (const f of [manifest.main, 'package.json']) {
      if (!existsSync(join(installedDir, f))) fail(`installed extension lacks ${f} (${installedDir})`);
    }
  } finally {
    if (KEEP) log(`profile kept: ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

if (problems.length) {
  console.error(`\n[check-vsix] ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
log(`ok: ${id}@${manifest.version}${NO_INSTALL ? '' : ' installs into code-server'}; ${(size / 1024 / 1024).toFixed(2)} MiB`);
