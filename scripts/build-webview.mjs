// Bundles the two webviews (Similar Sources panel, PDF viewer) into dist/webview/
// and copies what they load at run time: their CSS (the panel's bundled from its parts) and pdf.js's worker, cmaps,
// standard fonts, wasm decoders and ICC profiles.
//
//   node scripts/build-webview.mjs
//
// Both bundles are classic scripts (IIFE): the host shell loads them with
// <script nonce="…" src="…"> and no type="module".
import { build } from 'esbuild';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'webview');
const require = createRequire(join(root, 'package.json'));
const pdfjsRoot = dirname(require.resolve('pdfjs-dist/package.json'));

const common = {
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
  // pdf.mjs reads import.meta.url only on its Node code path.
  logOverride: { 'empty-import-meta': 'silent' },
};

mkdirSync(out, { recursive: true });

await Promise.all([
  build({ ...common, entryPoints: [join(root, 'webview-ui/panel/main.ts')], outfile: join(out, 'panel.js') }),
  build({ ...common, entryPoints: [join(root, 'webview-ui/pdf/main.ts')], outfile: join(out, 'pdfViewer.js') }),
  // The panel's stylesheet is kept in parts that panel.css @imports: one file, in the same order, for the shell's one <link>.
  build({
    bundle: true,
    minify: false,
    logLevel: 'warning',
    absWorkingDir: root,
    entryPoints: [join(root, 'webview-ui/panel/panel.css')],
    outfile: join(out, 'panel.css'),
  }),
]);

copyFileSync(join(root, 'webview-ui/pdf/viewer.css'), join(out, 'pdfViewer.css'));
copyFileSync(join(pdfjsRoot, 'build/pdf.worker.min.mjs'), join(out, 'pdf.worker.min.mjs'));
for (const folder of ['cmaps', 'standard_fonts', 'wasm', 'iccs']) {
  const from = join(pdfjsRoot, folder);
  if (!existsSync(from)) continue;
  rmSync(join(out, folder), { recursive: true, force: true });
  cpSync(from, join(out, folder), { recursive: true });
}

console.log('built dist/webview/panel.js and dist/webview/pdfViewer.js');
