/**
 * The layering of Similar Sources (ARCHITECTURE.md), checked by `npm run lint:deps`:
 *   src/shared   pure: imports nothing outside itself
 *   src/core     the engine's internals: never vscode, the host, the CLI, the engine API or webviews
 *   src/engine   the engine API: the only door into src/core for the host and the CLI
 *   src/vscode   the host: reaches the engine API only, as types (values come through loadEngine)
 *   src/cli      the CLI: the engine API and src/shared only
 *   webview-ui   browser code: src/shared only (and pdf.js)
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'shared-is-pure',
      comment: 'src/shared is bundled into the webviews and the host: it imports only from itself.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { pathNot: '^src/shared/' },
    },
    {
      name: 'core-not-vscode',
      comment: 'The core never imports vscode (it runs in the CLI and in worker threads).',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^vscode$' },
    },
    {
      name: 'core-not-outer-layers',
      comment: 'The core does not know the host, the CLI, the engine API or the webviews.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^(src/(vscode|cli|engine)/|src/extension\\.ts$|webview-ui/)' },
    },
    {
      name: 'engine-not-ui',
      comment: 'The engine API serves the host and the CLI; it knows neither, nor vscode.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^(src/(vscode|cli)/|src/extension\\.ts$|webview-ui/|vscode$)' },
    },
    {
      name: 'host-through-engine-api',
      comment: 'The host reaches the core only through the engine API (src/engine).',
      severity: 'error',
      from: { path: '^src/(vscode/|extension\\.ts$)' },
      to: { path: '^(src/core/|src/cli/|webview-ui/)' },
    },
    {
      name: 'host-engine-types-only',
      comment: 'The host imports only types from the engine API: its values are loaded on first use (src/vscode/engine.ts), so activation loads no engine code.',
      severity: 'error',
      from: { path: '^src/(vscode/|extension\\.ts$)' },
      to: { path: '^src/engine/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'cli-through-engine-api',
      comment: 'The CLI reaches the core only through the engine API.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^(src/core/|src/vscode/|webview-ui/|vscode$)' },
    },
    {
      name: 'webviews-only-shared',
      comment: 'Webview code imports only src/shared (and pdf.js): no Node, no vscode, no engine.',
      severity: 'error',
      from: { path: '^webview-ui/' },
      to: { pathNot: '^(webview-ui/|src/shared/|node_modules/pdfjs-dist/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a core file that imports vscode's types is still wrong.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
