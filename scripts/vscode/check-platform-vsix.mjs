#!/usr/bin/env node
// Checks that each VSIX carries native code for its own platform and no other. Every entry is read
// (whatever its name) and every ELF, Mach-O or PE file's header says its OS, CPU and C library
// (nativeBinary.mjs). A VSIX built with `vsce package --target <t>` fails when
//   - a native file is for another OS, CPU or C library than <t>, or lies outside
//     dist/onnxruntime/<os>/<arch>/ where the worker loads ONNX Runtime from;
//   - ONNX Runtime's binding for <t> is missing, or a library it or its libraries load beside
//     themselves is (platforms.mjs's bundledName; Mach-O's @rpath also needs an @loader_path rpath);
// and the universal VSIX (no target) fails on any native file at all. A file named like a native
// one (.node, .so*, .dylib, .dll) that is none of the three formats fails too.
//
//   node scripts/vscode/check-platform-vsix.mjs [file.vsix | folder …]   (default: dist-vsix/)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeHeader, NATIVE_NAME, readNativeHeader } from './nativeBinary.mjs';
import { BINDING, bundledName, fileNamed, targetPlatform, UNIVERSAL } from './platforms.mjs';
import { vsixTarget, zipEntries, zipRead } from './zip.mjs';

const RUNTIME_DIR = 'extension/dist/onnxruntime/';

/**
 * The problems of a VSIX for `target` (a VS Code target or 'universal') whose entries are
 * `files` ({ name, bytes }), and its native files with their headers.
 */
export function platformProblems(target, files) {
  const problems = [];
  const natives = [];
  for (const f of files) {
    const h = readNativeHeader(f.bytes);
    if (!h) {
      if (NATIVE_NAME.test(f.name)) problems.push(`${f.name}: named like a native file but neither ELF, Mach-O nor PE`);
      continue;
    }
    natives.push({ name: f.name, size: f.bytes.length, header: h });
    if (h.problem) problems.push(`${f.name}: ${h.problem}`);
  }
  if (target === UNIVERSAL) {
    for (const n of natives) problems.push(`${n.name}: ${describeHeader(n.header)} in the universal VSIX, which must carry no native file`);
    return { problems, natives };
  }
  const want = targetPlatform(target);
  const dir = `${RUNTIME_DIR}${want.os}/${want.arch}/`;
  const beside = new Map(natives.filter((n) => n.name.startsWith(dir)).map((n) => [n.name.slice(dir.length), n]));
  for (const n of natives) {
    const h = n.header;
    const arches = h.arches ?? [h.arch];
    if (h.os !== want.os || !arches.includes(want.arch)) problems.push(`${n.name}: ${describeHeader(h)}, not ${want.os} ${want.arch}, in the ${target} VSIX`);
    else if (want.libc && h.libc && h.libc !== want.libc) problems.push(`${n.name}: built for ${h.libc}, not ${want.libc}, in the ${target} VSIX`);
    if (!n.name.startsWith(dir)) problems.push(`${n.name}: a native file outside ${dir}`);
  }
  if (!beside.has(BINDING)) problems.push(`${dir}${BINDING} is missing: the ${target} VSIX has no ONNX Runtime binding`);
  for (const [file, n] of beside) {
    for (const lib of n.header.needs) {
      const own = bundledName(lib, n.header.format);
      if (!own) continue;
      if (!fileNamed([...beside.keys()], own, n.header.format)) problems.push(`${dir}${file} loads ${lib}, which the VSIX lacks beside it`);
      if (lib.startsWith('@rpath/') && !n.header.rpaths.some((r) => r.replace(/\/$/, '') === '@loader_path'))
        problems.push(`${dir}${file} loads ${lib} but has no @loader_path rpath to find it beside itself`);
    }
  }
  return { problems, natives };
}

/** Reads a VSIX and checks it: { target, size, problems, natives }. */
export function checkVsixFile(path) {
  const buf = readFileSync(path);
  const entries = zipEntries(buf).filter((e) => !e.name.endsWith('/'));
  const target = vsixTarget(buf, entries);
  const files = entries.map((e) => ({ name: e.name, bytes: zipRead(buf, e) }));
  return { target, size: buf.length, ...platformProblems(target, files) };
}

const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** The report's lines for one checked VSIX. */
export function reportLines(path, r) {
  const lines = [`${basename(path)}: target ${r.target}, ${mib(r.size)}, ${r.natives.length} native file${r.natives.length === 1 ? '' : 's'}`];
  for (const n of r.natives) lines.push(`  ${n.name.replace(/^extension\//, '')}: ${describeHeader(n.header)}, ${mib(n.size)}`);
  lines.push(r.problems.length ? `  FAILED: ${r.problems.length} problem(s)` : '  ok');
  for (const p of r.problems) lines.push(`  - ${p}`);
  return lines;
}

function main(args) {
  const inputs = args.length ? args : ['dist-vsix'];
  const files = inputs.flatMap((a) => {
    const p = resolve(a);
    if (!existsSync(p)) throw new Error(`${a} does not exist (run \`npm run package:all\` first)`);
    return statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.vsix'))
          .sort()
          .map((f) => join(p, f))
      : [p];
  });
  if (!files.length) throw new Error(`no .vsix in ${inputs.join(', ')}`);
  let failed = 0;
  for (const f of files) {
    const r = checkVsixFile(f);
    if (r.problems.length) failed++;
    for (const l of reportLines(relative(process.cwd(), f) || f, r)) console.log(`[check-platform] ${l}`);
  }
  console.log(`[check-platform] ${files.length - failed} of ${files.length} VSIX(s) carry native code for their own platform only`);
  return failed ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.exit(main(process.argv.slice(2)));
  } catch (err) {
    console.error(`[check-platform] ${err.message}`);
    process.exit(1);
  }
}
