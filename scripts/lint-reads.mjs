#!/usr/bin/env node
/**
 * Keeps raw `fs` reads out of the product (issue 35): every file `src/` reads goes through
 * src/core/util/confinedFiles.ts, which resolves links, confines the file to its roots, refuses
 * FIFOs and devices, caps the bytes and sets a deadline. This finds, with TypeScript's parser,
 * any other use of a Node `fs` function that opens or reads a file — imported by name, or
 * through an `fs` / `fs.promises` namespace — and fails listing them. Writes, stats and folder
 * listings are not reads of a file's bytes and stay free.
 *
 * Usage: node scripts/lint-reads.mjs [folder or file …] (default: src)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The one module allowed to read. */
const READER = 'src/core/util/confinedFiles.ts';
const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);
const READS = new Set([
  'readFile',
  'readFileSync',
  'createReadStream',
  'open',
  'openSync',
  'read',
  'readSync',
  'readv',
  'readvSync',
  'copyFile',
  'copyFileSync',
  'cp',
  'cpSync',
  'openAsBlob',
]);

function filesUnder(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (/\.(ts|tsx|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Each raw read in `text`: `line: what`. */
export function rawReads(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const namespaces = new Set(); // identifiers bound to fs or fs.promises
  const at = (node, what) => found.push(`${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !FS_MODULES.has(st.moduleSpecifier.text)) continue;
    const clause = st.importClause;
    if (!clause || clause.isTypeOnly) continue;
    if (clause.name) namespaces.add(clause.name.text);
    const b = clause.namedBindings;
    if (!b) continue;
    if (ts.isNamespaceImport(b)) namespaces.add(b.name.text);
    else
      for (const el of b.elements) {
        if (el.isTypeOnly) continue;
        const imported = (el.propertyName ?? el.name).text;
        if (imported === 'promises') namespaces.add(el.name.text);
        else if (READS.has(imported)) at(el, `imports ${imported} from ${st.moduleSpecifier.text}`);
      }
  }
  /** `open(f, 'w')`, `openSync(f, 'a')`: a file opened to be written, not read. */
  const opensForWriting = (node) => {
    const call = node.parent;
    if (!ts.isCallExpression(call) || call.expression !== node || !/^open(Sync)?$/.test(node.name.text)) return false;
    const writing = (e) =>
      !!e &&
      ((ts.isStringLiteral(e) && /^[wa]x?\+?$/.test(e.text)) ||
        (ts.isConditionalExpression(e) && writing(e.whenTrue) && writing(e.whenFalse)) ||
        (ts.isParenthesizedExpression(e) && writing(e.expression)));
    return writing(call.arguments[1]);
  };
  const visit = (node) => {
    if (ts.isPropertyAccessExpression(node) && READS.has(node.name.text) && !opensForWriting(node)) {
      let target = node.expression;
      // fs.promises.readFile
      if (ts.isPropertyAccessExpression(target) && target.name.text === 'promises') target = target.expression;
      if (ts.isIdentifier(target) && namespaces.has(target.text)) at(node, `${node.getText(sf)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function main() {
  const root = resolve(new URL('..', import.meta.url).pathname);
  const dirs = process.argv.slice(2);
  const problems = [];
  for (const dir of dirs.length ? dirs : ['src']) {
    for (const file of statSync(resolve(dir)).isFile() ? [resolve(dir)] : filesUnder(resolve(dir))) {
      const rel = relative(process.cwd(), file).split(sep).join('/');
      if (rel === READER || relative(root, file).split(sep).join('/') === READER) continue;
      for (const p of rawReads(file, readFileSync(file, 'utf8'))) problems.push(`${rel}:${p}`);
    }
  }
  if (problems.length) {
    console.error(`raw file reads outside ${READER} (read through it: readConfined, readConfinedText, openConfined, …):`);
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log(`lint-reads: no raw file reads outside ${READER}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) main();
