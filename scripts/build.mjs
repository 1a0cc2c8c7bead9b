// Bundles the CLI and the extension with esbuild and copies the pdf.js worker beside them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { hostTarget, placeRuntime, UNIVERSAL } from './vscode/platforms.mjs';

const require = createRequire(import.meta.url);
mkdirSync('dist', { recursive: true });

// Native or optional modules stay outside the bundle.
// @napi-rs/canvas: pdf-parse tries it in a try/catch; we give pdf.js a pure-JS DOMMatrix instead.
const external = ['vscode', '@napi-rs/canvas'];
// onnxruntime-node loads its native binding from ../bin/napi-v6/<platform>/<arch>/ beside its own
// file; bundled, the binding and libonnxruntime lie in dist/onnxruntime/<platform>/<arch>/ instead.
const ortBinding = {
  name: 'ort-binding',
  setup(b) {
    b.onLoad({ filter: /onnxruntime-node[\\/]dist[\\/]binding\.js$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const src = await readFile(args.path, 'utf8');
      const patched = src.replace(
        'require(`../bin/napi-v6/${process.platform}/${process.arch}/onnxruntime_binding.node`)',
        'require(require("node:path").join(__dirname, "onnxruntime", process.platform, process.arch, "onnxruntime_binding.node"))',
      );
      if (patched === src) throw new Error('onnxruntime-node: the binding path was not found in dist/binding.js (new version?)');
      return { contents: patched, loader: 'js' };
    });
  },
};
const common = {
  plugins: [ortBinding],
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
  // jsonc-parser's "main" is a UMD wrapper whose requires esbuild cannot follow; its ES module build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

// The CLI and the engine carry the heavy dependencies; the extension bundle only the
// thin VS Code adapters, and it loads dist/engine.js on first use.
await build({
  ...common,
  entryPoints: {
    cli: 'src/cli/cli.ts',
    engine: 'src/engine/index.ts',
    'pdf-extract-worker': 'src/core/pdf/extractWorker.ts',
    'local-embed-worker': 'src/core/embedding/local/localWorker.ts',
    'cross-encoder-worker': 'src/core/rerank/crossEncoderWorker.ts',
    'segment-worker': 'src/core/markdown/segmentWorker.ts',
    'citation-check-worker': 'src/engine/citationWorker.ts',
  },
  outdir: 'dist',
});
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
// sql.js (Zotero's database, src/core/zotero/sqlite.ts) loads its WebAssembly from dist/sql-wasm.wasm.
copyFileSync(join(dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), 'dist/sql-wasm.wasm');
const coreDir = dirname(require.resolve('tesseract.js-core/package.json'));
// In Node, tesseract.js 7 picks the full (not "-lstm") cores: its getCore tests the engine mode
// against the boolean lstmOnly it is handed, so only these three are ever loaded.
for (const f of ['tesseract-core.wasm', 'tesseract-core-simd.wasm', 'tesseract-core-relaxedsimd.wasm']) copyFileSync(join(coreDir, f), join('dist/ocr', f));
mkdirSync('dist/ocr/tessdata', { recursive: true });
for (const lang of ['eng', 'fra']) {
  const dir = dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
  copyFileSync(join(dir, '4.0.0_best_int', `${lang}.traineddata.gz`), `dist/ocr/tessdata/${lang}.traineddata.gz`);
}
// ONNX Runtime's native files for one VS Code target (default: this machine's; SS_ORT_TARGET names
// another, e.g. win32-x64, darwin-arm64, or `universal` for none): the binding and the libraries it
// loads, picked by reading their headers (scripts/vscode/platforms.mjs), not the package's folder.
const ortTarget = process.env.SS_ORT_TARGET || hostTarget();
const placed = placeRuntime('dist', ortTarget);
if (!placed.length && ortTarget !== UNIVERSAL)
  console.warn(`onnxruntime-node has no runtime for ${ortTarget}: dist/ carries none, and the local model will say it is unavailable`);
console.log(
  'built dist/cli.js, dist/engine.js, dist/pdf-extract-worker.js, dist/local-embed-worker.js, dist/cross-encoder-worker.js, dist/segment-worker.js, dist/citation-check-worker.js, dist/extension.js, dist/ocr/' +
    (existsSync('dist/webview/panel.js') ? ', dist/webview/' : ''),
);
