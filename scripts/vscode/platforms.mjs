// The platforms a VSIX is built for, and which of onnxruntime-node's native files each carries.
//
// onnxruntime-node ships its CPU runtime for several platforms in one npm package
// (bin/napi-v6/<os>/<arch>/). A platform's VSIX carries its binding (onnxruntime_binding.node) and
// the libraries the binding makes the system loader open, followed from file to file by reading
// their headers (nativeBinary.mjs) — not the whole folder: macOS's second copy of libonnxruntime
// under its versioned name is opened by nothing, and Windows' DirectML.dll (the GPU provider,
// which onnxruntime.dll only delay-loads) with the dxcompiler/dxil it loads by name are never
// used: the product asks ONNX Runtime for its CPU provider only (localWorker.ts).
//
// A target the package has no runtime for gets no VSIX of its own: the universal VSIX (no native
// file) is what VS Code installs there, and the local model says it is unavailable at run time.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readNativeHeader, describeHeader } from './nativeBinary.mjs';

/** VS Code's targets for the desktop platforms whose users this project can serve, in build order. */
export const TARGETS = ['win32-x64', 'win32-arm64', 'darwin-x64', 'darwin-arm64', 'linux-x64', 'linux-arm64', 'alpine-x64'];
export const UNIVERSAL = 'universal';
export const BINDING = 'onnxruntime_binding.node';

/** The OS, CPU and C library a target's native files must be built for. */
export function targetPlatform(target) {
  const m = /^(win32|darwin|linux|alpine)-(x64|arm64|armhf)$/.exec(target);
  if (!m) throw new Error(`unknown VS Code target "${target}"`);
  const [, os, arch] = m;
  return { os: os === 'alpine' ? 'linux' : os, arch: arch === 'armhf' ? 'arm' : arch, libc: os === 'alpine' ? 'musl' : os === 'linux' ? 'glibc' : undefined };
}

/** The VS Code target of the machine running this (alpine-* on a musl Linux). */
export function hostTarget() {
  const musl = process.platform === 'linux' && !process.report?.getReport?.().header?.glibcVersionRuntime;
  const arch = process.arch === 'arm' ? 'armhf' : process.arch;
  return `${musl ? 'alpine' : process.platform}-${arch}`;
}

/** onnxruntime-node's folder of native files (bin/napi-v6), as installed beside the project. */
export function ortBinDir(fromDir = process.cwd()) {
  const require = createRequire(join(fromDir, 'package.json'));
  return join(dirname(require.resolve('onnxruntime-node/package.json')), 'bin', 'napi-v6');
}

/** The version of onnxruntime-node installed, for messages. */
export function ortVersion(fromDir = process.cwd()) {
  return JSON.parse(readFileSync(join(ortBinDir(fromDir), '..', '..', 'package.json'), 'utf8')).version;
}

/**
 * The files of `binDir`/<os>/<arch>/ a VSIX for `target` carries: the binding and every library of
 * that folder the loader opens with it, names sorted; null when the package has no runtime for
 * the target (no folder, or one built for another C library). Throws when a file the binding
 * needs is missing or built for another platform: a broken package must not make a broken VSIX.
 */
export function runtimeFiles(binDir, target) {
  const want = targetPlatform(target);
  const dir = join(binDir, want.os, want.arch);
  if (!existsSync(join(dir, BINDING))) return null;
  const here = readdirSync(dir);
  const taken = new Set();
  const queue = [BINDING];
  while (queue.length) {
    const name = queue.shift();
    if (taken.has(name)) continue;
    const h = readNativeHeader(readFileSync(join(dir, name)));
    if (!h || h.problem || h.os !== want.os || h.arch !== want.arch)
      throw new Error(
        `${join(dir, name)} is ${h ? describeHeader(h) + (h.problem ? `: ${h.problem}` : '') : 'not a native file'}, not ${want.os} ${want.arch}`,
      );
    // The package's linux folder holds glibc builds: on a musl target they cannot load.
    if (name === BINDING && want.libc && h.libc && h.libc !== want.libc) return null;
    taken.add(name);
    for (const lib of h.needs) {
      const own = bundledName(lib, h.format);
      if (!own) continue;
      const file = fileNamed(here, own, h.format);
      if (!file) throw new Error(`${join(dir, name)} loads ${lib}, which ${dir} lacks`);
      queue.push(file);
    }
  }
  return [...taken].sort();
}

/**
 * The name a library must have beside the file that loads it, or undefined for one of the
 * system's: Mach-O names its own as @rpath/ or @loader_path/ (the binding's rpath is
 * @loader_path, its folder); ELF and PE name files only, and ONNX Runtime's own hold
 * "onnxruntime" (libonnxruntime.so.1, onnxruntime.dll) where the system's do not.
 */
export function bundledName(lib, format) {
  if (format.startsWith('macho')) return /^@(rpath|loader_path)\//.test(lib) ? lib.replace(/^@(rpath|loader_path)\//, '') : undefined;
  return /onnxruntime/i.test(lib) ? lib : undefined;
}

/** The file of `files` named `name` (PE: Windows finds DLLs whatever their case). */
export function fileNamed(files, name, format) {
  return format === 'pe' ? files.find((f) => f.toLowerCase() === name.toLowerCase()) : files.find((f) => f === name);
}

/**
 * Puts `target`'s runtime files into `distDir`/onnxruntime/<os>/<arch>/, where the bundled
 * local-embed-worker.js and cross-encoder-worker.js look for them (scripts/build.mjs patches onnxruntime-node's loader),
 * after removing whatever runtime was there. `universal` (or a target without one) leaves none.
 * Returns the files placed, relative to distDir.
 */
export function placeRuntime(distDir, target, binDir = ortBinDir()) {
  const out = join(distDir, 'onnxruntime');
  rmSync(out, { recursive: true, force: true });
  if (target === UNIVERSAL) return [];
  const files = runtimeFiles(binDir, target);
  if (!files) return [];
  const { os, arch } = targetPlatform(target);
  mkdirSync(join(out, os, arch), { recursive: true });
  for (const f of files) copyFileSync(join(binDir, os, arch, f), join(out, os, arch, f));
  return files.map((f) => `onnxruntime/${os}/${arch}/${f}`);
}
