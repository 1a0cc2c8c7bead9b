// Bundles the CLI and the extension with esbuild and copies the pdf.js worker beside them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
mkdirSync('dist', { recursive: true });

// Native or optional modules stay outside the bundle.
// @napi-rs/canvas: pdf-parse tries it in a try/catch; we give pdf.js a pure-JS DOMMatrix instead.
// @huggingface/transformers: an optional vectra backend we never use.
const external = ['vscode', '@napi-rs/canvas', '@huggingface/transformers'];
// vectra requires these at load for a BM25 mode we do not use (we rank lexically ourselves).
const stubUnused = {
  name: 'stub-unused',
  setup(b) {
    b.onResolve({ filter: /^(wink-nlp|wink-eng-lite-web-model|wink-bm25-text-search)$/ }, () => ({ path: join(process.cwd(), 'scripts/stubs/unused.cjs') }));
  },
};
const common = {
  plugins: [stubUnused],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  external,
  logLevel: 'warning',
  // remark & co. are ESM-only; import.meta.url is shimmed for CJS output.
  define: { 'import.meta.url': 'importMetaUrl' },
  banner: { js: "const importMetaUrl = require('url').pathToFileURL(__filename).href;" },
};

// The CLI and the engine carry the heavy dependencies; the extension bundle only the
// thin VS Code adapters, and it loads dist/engine.js on first use.
await build({ ...common, entryPoints: { cli: 'src/cli/cli.ts', engine: 'src/engine.ts', 'pdf-extract-worker': 'src/core/pdf/extractWorker.ts' }, outdir: 'dist' });
await build({ ...common, entryPoints: { extension: 'src/extension.ts' }, outdir: 'dist', minify: true });
// OCR: tesseract.js's worker script (wrapped, src/core/ocr/tesseractWorker.cjs) as a bundle in
// dist/ocr/, with the WebAssembly cores it loads beside itself and the bundled trained data.
await build({ ...common, plugins: [], entryPoints: { 'tesseract-worker': 'src/core/ocr/tesseractWorker.cjs' }, outdir: 'dist/ocr' });
if (existsSync('scripts/build-webview.mjs')) {
  const r = spawnSync(process.execPath, ['scripts/build-webview.mjs'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Files the bundled libraries read beside themselves at run time.
const pdfParseDir = dirname(require.resolve('pdf-parse'));
copyFileSync(join(pdfParseDir, 'pdf.worker.mjs'), 'dist/pdf.worker.mjs');
const coreDir = dirname(require.resolve('tesseract.js-core/package.json'));
// In Node, tesseract.js 7 picks the full (not "-lstm") cores: its getCore tests the engine mode
// against the boolean lstmOnly it is handed, so only these three are ever loaded.
for (const f of ['tesseract-core.wasm', 'tesseract-core-simd.wasm', 'tesseract-core-relaxedsimd.wasm']) copyFileSync(join(coreDir, f), join('dist/ocr', f));
mkdirSync('dist/ocr/tessdata', { recursive: true });
for (const lang of ['eng', 'fra']) {
  const dir = dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
  copyFileSync(join(dir, '4.0.0_best_int', `${lang}.traineddata.gz`), `dist/ocr/tessdata/${lang}.traineddata.gz`);
}
mkdirSync('dist/schemas', { recursive: true });
copyFileSync(join(dirname(require.resolve('vectra')), 'codecs', 'schemas', 'index.proto'), 'dist/schemas/index.proto');
if (watch) console.log('watch mode is not supported; rerun npm run build');
console.log('built dist/cli.js, dist/engine.js, dist/pdf-extract-worker.js, dist/extension.js, dist/ocr/' + (existsSync('dist/webview/panel.js') ? ', dist/webview/' : ''));
