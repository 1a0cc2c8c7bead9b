#!/usr/bin/env node
// Bundles the integration tests with esbuild:
//   out/integration/integration-tests/   the unpacked helper extension (package.json + index.js)
//                                         that runs the suite inside code-server's extension host;
//   out/integration/suite/index.js        the same suite with the `run()` entry @vscode/test-electron expects.
// Every test/integration/suite/*.spec.ts is bundled in through the virtual module `it-specs`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const suiteDir = join(root, 'test', 'integration', 'suite');
const hostDir = join(root, 'test', 'integration', 'hostExtension');
export const outDir = join(root, 'out', 'integration');
export const hostOutDir = join(outDir, 'integration-tests');
export const suiteEntry = join(outDir, 'suite', 'index.js');

const specs = readdirSync(suiteDir)
  .filter((f) => f.endsWith('.spec.ts'))
  .sort();

const specsPlugin = {
  name: 'it-specs',
  setup(b) {
    b.onResolve({ filter: /^it-specs$/ }, () => ({ path: 'it-specs', namespace: 'it-specs' }));
    b.onLoad({ filter: /.*/, namespace: 'it-specs' }, () => ({
      resolveDir: suiteDir,
      loader: 'js',
      // require() keeps each spec lazy: it is evaluated only once mocha's globals exist.
      contents:
        `export const specFiles = ${JSON.stringify(specs)};\n` +
        `export function loadSpecs() {\n${specs.map((s) => `  require(${JSON.stringify('./' + s)});`).join('\n')}\n}\n`,
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  external: ['vscode'],
  logLevel: 'warning',
  plugins: [specsPlugin],
  // mocha has optional requires (e.g. for its browser build) that the Node runtime never takes.
  logOverride: { 'require-resolve-not-external': 'silent', 'unsupported-dynamic-import': 'silent', 'unsupported-require-call': 'silent' },
};

export async function buildIntegrationTests() {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(hostOutDir, { recursive: true });
  await build({ ...common, entryPoints: [join(hostDir, 'index.ts')], outfile: join(hostOutDir, 'index.js') });
  copyFileSync(join(hostDir, 'package.json'), join(hostOutDir, 'package.json'));
  await build({ ...common, entryPoints: [join(suiteDir, 'index.ts')], outfile: suiteEntry });
  console.log(`[build-it] bundled ${specs.length} spec file(s) (${specs.join(', ')}) into ${hostOutDir} and ${suiteEntry}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildIntegrationTests();
}
