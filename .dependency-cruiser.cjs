/**
 * The layering of Similar Sources (ARCHITECTURE.md), checked by `npm run lint:deps`:
 *   src/shared   pure: imports nothing outside itself
 *   src/core     the engine's internals: never vscode, the host, the CLI, the engine API or webviews
 *   src/engine   the engine API: the only door into src/core for the host and the CLI, through
 *                src/engine/index.ts only (its values listed with why in scripts/lint-engine-api.mjs)
 *   src/vscode   the host: reaches the engine API only, as types (values come through loadEngine)
 *   src/cli      the CLI: the engine API and src/shared only
 *   webview-ui   browser code: src/shared only (and pdf.js)
 *   scripts      the engine API and src/shared, but for the scripts listed in SCRIPTS_INTO_CORE
 * and, inside src/core, no cycle between folders.
 */

/**
 * Scripts that reach into src/core, each with why no engine function serves it: they
 * measure or tune one stage on its own, which the engine API (whole workflows) does not expose.
 * Every other script uses src/engine and src/shared only.
 */
const SCRIPTS_INTO_CORE = {
  'scripts/bench.ts': 'times the stages one by one (PDF pool, chunker, BM25 and vector-scan kernels, analysis cache) on generated corpora',
  'scripts/bench-background.ts': 'runs the local model from a generated model folder with a set thread count, which the engine provider settings do not take',
  'scripts/bench-local.ts': "times the local model's tokenizer and worker threads directly",
  'scripts/bench-retrieval.ts': 'times the retrieval kernels (BM25, vector scan, the embedded encoder) on their own',
  'scripts/measure-query-cut.ts': "embeds an eval's queries three ways through the local model's provider directly (the engine embeds them one way)",
  'scripts/measure-passage-shape.ts':
    "indexes an eval's corpus with other passage lengths (the eval's chunk option) and embeds passages without their title or heading through the providers directly (the engine cuts and embeds them one way)",
  'scripts/bench-rerank.ts':
    "times the local reranker's worker on its own (set threads, generated models of the published rerankers' shapes), and counts its pairs' tokens",
  'scripts/bench-server.ts': "times a library server's publication and load against the local index's build and load, stage by stage, on generated libraries",
  'scripts/bench/corpus.ts': "builds benchmark corpora in the indexer's page type",
  'scripts/bench/ocr.ts': 'drives the tesseract pool and its language data directly, to time OCR per page',
  'scripts/calibrate-bands.ts': 'fits the strength bands on the similarity features (core/analysis/similarity), which no engine result carries',
  'scripts/tune-fusion.ts': 'searches the hybrid fusion parameters, which the engine fixes',
  'scripts/measure-ocr.ts': 'measures the text-quality thresholds, page imaging and the OCR pool page by page',
  'scripts/ocr-decisions.ts': "lists the pages the extraction sends to OCR, with the text-quality rule's figures for each",
  'scripts/measure-citation-check.ts': "compares the citation check's word matching with the page texts it stores",
  'scripts/measure-viewer-quotes.ts': "samples viewers' copies against the page texts the indexer stores (core/index/store/pageTexts), by their page numbers",
  'scripts/measure-highlights.ts': 'marks passages as highlighted on the loaded collection and varies the highlight boost, which the engine fixes',
  'scripts/bench/zotero.ts': "times the Zotero database reader's copy and read separately (its lastTimings), which the engine's indexing does not return",
  'scripts/bench/zoteroApi.ts': "times Zotero's local API reader and the watch's stamp on their own, against a fake Zotero",
  'scripts/measure-draft-mrr.ts':
    "reads a BEIR corpus's documents (core/eval/beir) to write the library's PDFs and the draft it measures; the engine's eval takes a folder, not its documents",
  'scripts/bench/citations.ts':
    "builds the thesis from the sources' stored page texts (core/index/store/pageTexts) and times the check against reading them, which no engine function returns",
};
const exactly = (file) => `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-no-folder-cycles',
      comment:
        'The folders of src/core are layered: none imports, directly or through others, a folder that imports it. ' +
        'A contract two folders share lives in the lower one (index/source.ts, implemented by library/).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/core/' },
      to: { circular: true },
    },
    {
      name: 'scripts-through-engine-api',
      comment: 'Scripts use the engine API (src/engine) and src/shared; SCRIPTS_INTO_CORE lists those that may reach into src/core, and why.',
      severity: 'error',
      from: { path: '^scripts/', pathNot: Object.keys(SCRIPTS_INTO_CORE).map(exactly) },
      to: { path: '^(src/(core|vscode|cli)/|src/extension\\.ts$|webview-ui/)' },
    },
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
      name: 'hosts-through-engine-index',
      comment:
        'The extension, the CLI and the scripts reach the engine through its API file, src/engine/index.ts, whose values ' +
        'scripts/lint-engine-api.mjs lists with why; its other modules are its inside (SCRIPTS_INTO_CORE may reach them, as the core).',
      severity: 'error',
      from: { path: '^(src/(vscode|cli)/|src/extension\\.ts$|scripts/)', pathNot: Object.keys(SCRIPTS_INTO_CORE).map(exactly) },
      to: { path: '^src/engine/', pathNot: '^src/engine/index\\.ts$' },
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
      comment:
        'The host imports only types from the engine API: its values are loaded on first use (src/vscode/engine.ts), so activation loads no engine code.',
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
