#!/usr/bin/env node
/**
 * Keeps the engine API (src/engine/index.ts) small and deliberate (issue 36). A host — the
 * extension, the CLI, a script — reaches the core only through it (.dependency-cruiser.cjs:
 * `host-through-engine-index`), so what it exports is what a host can do around the engine
 * instance. This finds, with TypeScript's parser:
 *  - an export not by name (`export *`): the list must be read to be judged;
 *  - a value exported that ENGINE_API below does not list, with why a host needs it;
 *  - a value that comes straight from src/core (re-exported by index.ts, or by the engine module
 *    it names) without being listed in CORE_REEXPORTS, which says why no instance method serves;
 *  - a name listed that is no longer exported (the list stays true).
 * Types are free (hosts get typed results) but exported by name too.
 *
 * Usage: node scripts/lint-engine-api.mjs [root] [--list]   (default: this repository; --list
 * prints every export with its kind and origin)
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The engine's own values a host uses: the instance, pure helpers, and what no workspace owns. */
export const ENGINE_API = {
  draftCitationsOf:
    "a draft's citations as the check reads them (a LaTeX draft with its \\input files, read by the confined rule), without an index: scripts/bench-latex.ts measures the check's reading on it",
  createEngine: 'the one way a host makes the engine of a workspace (instance.ts); everything about an index goes through it',
  errorCode: "pure: a failure's code, read across the extension's and the engine's bundles (shared/errors.ts)",
  errorHealth: "pure: the index health a failure carries (the views and the CLI's hints)",
  readWorkspaceSettings: "the CLI reads a workspace's .vscode/settings.json before it makes the engine from them",
  readDraftText: 'the CLI reads the draft it is named by the confined rule, before any engine (the draft may lie outside a workspace)',
  draftBibliographies: 'pure: the bibliography files a draft names (completion reads its keys; the bundle test checks a LaTeX project)',
  readBibliography: "completion lists a bibliography's keys before the library is indexed (no index to ask)",
  analysisOptionsOf: 'pure: the one mapping from settings to analysis options (the editor, its cache restore, the agent tools)',
  segmentDraft: "pure: a draft's segments by its format's parser (the CLI's segment command, the drafts benchmark)",
  localModelRuntime:
    "whether this build carries ONNX Runtime for this machine (a universal VSIX does not): the extension's download offer and the CLI's model download, before any workspace's engine",
  createProvider: "the provider the CLI's eval runs on a BEIR folder (no workspace, no instance)",
  rerankerFor:
    "the reranker the CLI's eval reorders a BEIR folder's rankings with (no workspace, no instance); analyses make theirs from AnalysisRequest.reranker",
  namesCrossEncoder: "pure: whether --rerank-model names a local cross-encoder (a folder or a repository) or an Ollama model (the CLI's analyze and eval)",
  embedsInBackground: "pure: whether a provider's vectors come after the passages (the CLI's eval)",
  localOverridesOf: "pure: a local model's explicit settings (the extension's download offer, before any index)",
  indexedModel: "the model a workspace's index was built with, which the CLI's provider flags default to before it makes the engine",
  checkCitations:
    "the citation check as the bundle runs it in this thread; the instance's checkCitations calls it (the bundle's own tests and benchmark call it)",
  checkCitationsOffThread: "the same in the citation-check worker; the instance's checkCitations({ offThread }) calls it (the bundle's own test)",
  checkCitationsTool: 'an agent tool (VS Code language-model tools and the MCP server publish the same answers)',
  checkInput: "an agent tool's input checked against its schema (VS Code's tool reads its draft's URI with it)",
  indexStatusTool: "the MCP server's status resource",
  readDraft: "an agent tool's draft path, confined to the workspace",
  searchTool: 'an agent tool',
  sourcesForTool: 'an agent tool',
  toolErrorText: 'what a failed tool call tells the model',
  ToolInputError: "a refused tool call (VS Code's tools throw it for a draft they cannot name)",
  TOOL_DESCRIPTIONS: "the tools' descriptions, published by both hosts",
  TOOL_SCHEMAS: "the tools' input schemas, published by both hosts",
};

/** Values that come straight from src/core, each with why a host uses it without an engine instance. */
export const CORE_REEXPORTS = {
  PROVIDER_NAMES: 'pure data: the provider names the CLI checks --provider against',
  downloadModel: "the machine's local model cache is no workspace's: the CLI's model command and the extension's download",
  DEFAULT_LOCAL_MODEL: 'pure data: the local model used when the settings name none (the model command, the download offer)',
  defaultModelCacheDir: "where the CLI keeps local models (the machine's, not a workspace's)",
  modelStatus: 'whether a local model is on this machine (the model command, the download offer)',
  removeModel: "the CLI's model remove",
  locateZotero: "Zotero's data folder from its profile, before any engine reads it (the CLI's --zotero, the extension's watcher)",
  watchZotero: "the extension's watcher polls Zotero's library for changes to re-index; no index is involved",
  readLatexProject:
    'the editor\'s "cited in" reads a LaTeX draft with its \\input files, open editors\' text first, by the confined rule; no index is involved',
  runBeirEval: "the CLI's eval scores a BEIR folder, not a workspace's library: no instance",
  findCitations: "pure: a Markdown draft's citations (the citation-check benchmark's baseline in the bundle)",
  MAX_QUOTE_WORDS: 'pure data: the words compared at each end of an over-long quotation, which the diagnostics name',
  statusSeverity: "pure: a verdict's severity (the editor's diagnostics, the CLI's lines)",
};

const API_FILE = 'src/engine/index.ts';

function parse(file) {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The engine module a relative specifier names, from `fromFile` (`./x` → x.ts or x/index.ts). */
function moduleFile(fromFile, spec) {
  const base = resolve(dirname(fromFile), spec);
  return [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
}

const isCore = (root, file) => relative(root, file).split(/[\\/]/).slice(0, 2).join('/') === 'src/core';
const isEngine = (root, file) => relative(root, file).split(/[\\/]/).slice(0, 2).join('/') === 'src/engine';

/**
 * Where the value `name` exported by `file` comes from: 'core' (a src/core module, directly or
 * through engine modules that re-export it), 'shared', or 'engine' (declared in src/engine).
 */
function originOf(root, file, name, seen = new Set()) {
  const key = `${file}#${name}`;
  if (seen.has(key)) return 'engine';
  seen.add(key);
  const sf = parse(file);
  const imports = new Map(); // local name → [specifier, imported name]
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !st.importClause?.namedBindings || !ts.isNamedImports(st.importClause.namedBindings)) continue;
    for (const el of st.importClause.namedBindings.elements) imports.set(el.name.text, [st.moduleSpecifier.text, (el.propertyName ?? el.name).text]);
  }
  const follow = (spec, imported) => {
    if (!spec.startsWith('.')) return 'package';
    const base = resolve(dirname(file), spec);
    if (isCore(root, base)) return 'core';
    if (!isEngine(root, base)) return 'shared';
    const target = moduleFile(file, spec);
    return target ? originOf(root, target, imported, seen) : 'engine';
  };
  for (const st of sf.statements) {
    if (!ts.isExportDeclaration(st) || !st.exportClause || !ts.isNamedExports(st.exportClause)) continue;
    for (const el of st.exportClause.elements) {
      if (el.name.text !== name) continue;
      const local = (el.propertyName ?? el.name).text;
      if (st.moduleSpecifier) return follow(st.moduleSpecifier.text, local);
      const imported = imports.get(local);
      return imported ? follow(imported[0], imported[1]) : 'engine';
    }
  }
  return 'engine';
}

/** Every export of the API file: name, kind (value or type), origin; and problems of form. */
export function engineExports(root) {
  const file = join(root, API_FILE);
  const sf = parse(file);
  const exports = [];
  const problems = [];
  const line = (node) => sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const hasExport = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export;
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      if (!st.exportClause) {
        problems.push(`${API_FILE}:${line(st)}: export * from '${st.moduleSpecifier?.text}': export each name, so that the list can be judged`);
        continue;
      }
      if (ts.isNamespaceExport(st.exportClause)) {
        exports.push({ name: st.exportClause.name.text, kind: st.isTypeOnly ? 'type' : 'value', origin: 'namespace', line: line(st) });
        continue;
      }
      for (const el of st.exportClause.elements) {
        const kind = st.isTypeOnly || el.isTypeOnly ? 'type' : 'value';
        const origin = kind === 'value' ? originOf(root, file, el.name.text) : undefined;
        exports.push({ name: el.name.text, kind, origin, from: st.moduleSpecifier?.text, line: line(el) });
      }
    } else if (ts.isExportAssignment(st)) {
      problems.push(`${API_FILE}:${line(st)}: export default / export =: name what the API exports`);
    } else if (hasExport(st)) {
      const kind = ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) ? 'type' : 'value';
      const names = ts.isVariableStatement(st) ? st.declarationList.declarations.map((d) => d.name.getText(sf)) : [st.name?.getText(sf) ?? '?'];
      for (const name of names) exports.push({ name, kind, origin: kind === 'value' ? 'engine' : undefined, line: line(st) });
    }
  }
  return { exports, problems };
}

/** What is wrong with the API file against the lists (empty: nothing). */
export function checkEngineApi(root) {
  const { exports, problems } = engineExports(root);
  const values = exports.filter((e) => e.kind === 'value');
  for (const e of values) {
    const at = `${API_FILE}:${e.line}: ${e.name}`;
    if (e.origin === 'core' || e.origin === 'namespace') {
      if (!Object.hasOwn(CORE_REEXPORTS, e.name))
        problems.push(
          `${at} comes straight from src/core: reach it through the engine instance, or list it in CORE_REEXPORTS (scripts/lint-engine-api.mjs) with why a host needs it without one${Object.hasOwn(ENGINE_API, e.name) ? ' (ENGINE_API lists engine functions only)' : ''}`,
        );
    } else if (!Object.hasOwn(ENGINE_API, e.name)) {
      problems.push(
        `${at} is not in the engine API's list: list it in ENGINE_API (scripts/lint-engine-api.mjs) with why a host needs it${Object.hasOwn(CORE_REEXPORTS, e.name) ? ' (CORE_REEXPORTS lists what comes straight from src/core only)' : ''}, or export it as a type if it is one`,
      );
    }
  }
  const exported = new Set(values.map((e) => e.name));
  for (const name of [...Object.keys(ENGINE_API), ...Object.keys(CORE_REEXPORTS)]) {
    if (!exported.has(name))
      problems.push(`${name} is listed in scripts/lint-engine-api.mjs but ${API_FILE} does not export it as a value: remove it from the list`);
  }
  return { problems, exports };
}

function main() {
  const args = process.argv.slice(2);
  const root = resolve(args.find((a) => !a.startsWith('--')) ?? new URL('..', import.meta.url).pathname);
  const { problems, exports } = checkEngineApi(root);
  if (args.includes('--list')) for (const e of exports) console.log(`${e.kind}\t${e.origin ?? ''}\t${e.name}\t${e.from ?? ''}`);
  const values = exports.filter((e) => e.kind === 'value');
  const summary = `${exports.length} exports: ${values.length} values (${values.filter((e) => e.origin === 'core').length} straight from src/core), ${exports.length - values.length} types`;
  if (problems.length) {
    console.error(`the engine API (${API_FILE}) exports what its list does not say:`);
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log(`lint-engine-api: ${summary}, each value listed`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) main();
