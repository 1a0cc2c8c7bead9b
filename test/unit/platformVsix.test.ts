import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkVsixFile, platformProblems } from '../../scripts/vscode/check-platform-vsix.mjs';
import { plannedTargets } from '../../scripts/vscode/package-vsix.mjs';
import { hostTarget, ortBinDir, placeRuntime, runtimeFiles, targetPlatform, TARGETS } from '../../scripts/vscode/platforms.mjs';
import { vsixTarget, zipEntries } from '../../scripts/vscode/zip.mjs';
import { elf, fat, macho, pe, storedZip } from '../support/nativeFiles';

const BIN = ortBinDir();
const X64 = 62;
const ARM64 = 183;
const glibcBinding = (machine = X64) => elf({ machine, needs: ['libonnxruntime.so.1', 'libc.so.6'] });
const glibcLib = (machine = X64) => elf({ machine, needs: ['libc.so.6'], soname: 'libonnxruntime.so.1' });
const RT = 'extension/dist/onnxruntime';

describe('VSIXs per platform: which runtime files each carries, and the check of their headers', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'ss-platforms-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** A stand-in for onnxruntime-node's bin/napi-v6: { 'linux/x64/file': bytes }. */
  const fakePackage = (files: Record<string, Buffer | string>) => {
    const bin = join(tmp, 'bin');
    for (const [path, bytes] of Object.entries(files)) {
      mkdirSync(join(bin, path, '..'), { recursive: true });
      writeFileSync(join(bin, path), bytes);
    }
    return bin;
  };

  it("maps VS Code's targets to an OS, a CPU and a C library; this machine has one", () => {
    assert.deepEqual(targetPlatform('alpine-x64'), { os: 'linux', arch: 'x64', libc: 'musl' });
    assert.deepEqual(targetPlatform('linux-arm64'), { os: 'linux', arch: 'arm64', libc: 'glibc' });
    assert.deepEqual(targetPlatform('darwin-arm64'), { os: 'darwin', arch: 'arm64', libc: undefined });
    assert.throws(() => targetPlatform('linux-mips'), /unknown VS Code target/);
    assert.match(hostTarget(), new RegExp(`^(${process.platform}|alpine)-${process.arch === 'arm' ? 'armhf' : process.arch}$`));
  });

  it("onnxruntime-node 1.30: each target's binding and the libraries it loads, nothing else; none for Intel macOS or Alpine", () => {
    const got = Object.fromEntries(TARGETS.map((t) => [t, runtimeFiles(BIN, t)]));
    assert.deepEqual(got, {
      'win32-x64': ['onnxruntime.dll', 'onnxruntime_binding.node'], // not DirectML.dll, dxcompiler.dll, dxil.dll
      'win32-arm64': ['onnxruntime.dll', 'onnxruntime_binding.node'],
      'darwin-x64': null,
      'darwin-arm64': ['libonnxruntime.1.dylib', 'onnxruntime_binding.node'], // not the versioned copy
      'linux-x64': ['libonnxruntime.so.1', 'onnxruntime_binding.node'],
      'linux-arm64': ['libonnxruntime.so.1', 'onnxruntime_binding.node'],
      'alpine-x64': null, // the linux/x64 folder holds a glibc build
    });
    assert.deepEqual(plannedTargets(BIN), {
      built: ['win32-x64', 'win32-arm64', 'darwin-arm64', 'linux-x64', 'linux-arm64', 'universal'],
      skipped: ['darwin-x64', 'alpine-x64'],
    });
  });

  it('follows the loader from file to file, matches DLL names in any case, and leaves out what nothing loads', () => {
    const bin = fakePackage({
      'win32/x64/onnxruntime_binding.node': pe({ machine: 0x8664, imports: ['ONNXRUNTIME.DLL', 'KERNEL32.dll'] }),
      'win32/x64/onnxruntime.dll': pe({ machine: 0x8664, imports: ['onnxruntime_providers_shared.dll'], delayImports: ['DirectML.dll'] }),
      'win32/x64/onnxruntime_providers_shared.dll': pe({ machine: 0x8664 }),
      'win32/x64/DirectML.dll': pe({ machine: 0x8664 }),
      'win32/x64/README.txt': 'not loaded',
      'darwin/x64/onnxruntime_binding.node': macho({
        cpu: 0x01000007,
        commands: [
          { cmd: 0xc, name: '@rpath/libonnxruntime.1.dylib' },
          { cmd: 0x8000001c, name: '@loader_path' },
        ],
      }),
      'darwin/x64/libonnxruntime.1.dylib': macho({ cpu: 0x01000007 }),
      'darwin/x64/libonnxruntime.1.30.0.dylib': macho({ cpu: 0x01000007 }),
    });
    assert.deepEqual(runtimeFiles(bin, 'win32-x64'), ['onnxruntime.dll', 'onnxruntime_binding.node', 'onnxruntime_providers_shared.dll']);
    assert.deepEqual(
      runtimeFiles(bin, 'darwin-x64'),
      ['libonnxruntime.1.dylib', 'onnxruntime_binding.node'],
      'a future darwin/x64 folder is picked up by itself',
    );
  });

  it('a musl build serves Alpine and not glibc Linux; a broken package fails the build instead of making a broken VSIX', () => {
    const musl = fakePackage({
      'linux/x64/onnxruntime_binding.node': elf({ machine: X64, needs: ['libonnxruntime.so.1', 'libc.musl-x86_64.so.1'] }),
      'linux/x64/libonnxruntime.so.1': elf({ machine: X64 }),
    });
    assert.deepEqual(runtimeFiles(musl, 'alpine-x64'), ['libonnxruntime.so.1', 'onnxruntime_binding.node']);
    assert.equal(runtimeFiles(musl, 'linux-x64'), null);
    rmSync(join(tmp, 'bin'), { recursive: true });
    const lacking = fakePackage({ 'linux/x64/onnxruntime_binding.node': glibcBinding() });
    assert.throws(() => runtimeFiles(lacking, 'linux-x64'), /loads libonnxruntime\.so\.1, which .* lacks/);
    rmSync(join(tmp, 'bin'), { recursive: true });
    const wrong = fakePackage({ 'linux/x64/onnxruntime_binding.node': glibcBinding(), 'linux/x64/libonnxruntime.so.1': glibcLib(ARM64) });
    assert.throws(() => runtimeFiles(wrong, 'linux-x64'), /libonnxruntime\.so\.1 is elf linux arm64 .*, not linux x64/);
  });

  it('placeRuntime puts one target into dist/onnxruntime/<os>/<arch>/, replacing the last; universal leaves none', () => {
    const dist = join(tmp, 'dist');
    assert.deepEqual(placeRuntime(dist, 'win32-arm64', BIN), ['onnxruntime/win32/arm64/onnxruntime.dll', 'onnxruntime/win32/arm64/onnxruntime_binding.node']);
    assert.deepEqual(placeRuntime(dist, 'linux-arm64', BIN), [
      'onnxruntime/linux/arm64/libonnxruntime.so.1',
      'onnxruntime/linux/arm64/onnxruntime_binding.node',
    ]);
    assert.deepEqual(readdirSync(join(dist, 'onnxruntime')), ['linux'], 'the Windows files are gone');
    assert.deepEqual(placeRuntime(dist, 'darwin-x64', BIN), []);
    assert.deepEqual(placeRuntime(dist, 'universal', BIN), []);
    assert.deepEqual(readdirSync(dist), []);
  });

  describe('platformProblems: every native file against the VSIX target', () => {
    const linuxOk = [
      { name: `${RT}/linux/x64/onnxruntime_binding.node`, bytes: glibcBinding() },
      { name: `${RT}/linux/x64/libonnxruntime.so.1`, bytes: glibcLib() },
      { name: 'extension/dist/extension.js', bytes: Buffer.from('"use strict";') },
    ];

    it('passes a VSIX with its own runtime only, and lists its native files', () => {
      const r = platformProblems('linux-x64', linuxOk);
      assert.deepEqual(r.problems, []);
      assert.deepEqual(
        r.natives.map((n) => [n.name, n.header.arch]),
        [
          [`${RT}/linux/x64/onnxruntime_binding.node`, 'x64'],
          [`${RT}/linux/x64/libonnxruntime.so.1`, 'x64'],
        ],
      );
    });

    it('fails a file for another CPU, OS or C library, and a native file outside the runtime folder', () => {
      assert.match(
        platformProblems(
          'linux-arm64',
          linuxOk.map((f) => ({ ...f, name: f.name.replace('/x64/', '/arm64/') })),
        ).problems.join('\n'),
        /elf linux x64 .*, not linux arm64, in the linux-arm64 VSIX/,
      );
      const dll = platformProblems('linux-x64', [...linuxOk, { name: `${RT}/linux/x64/onnxruntime.dll`, bytes: pe({ machine: 0x8664 }) }]);
      assert.match(dll.problems.join('\n'), /onnxruntime\.dll: pe win32 x64 .*, not linux x64/);
      const alpine = platformProblems('alpine-x64', linuxOk);
      assert.match(alpine.problems.join('\n'), /built for glibc, not musl, in the alpine-x64 VSIX/);
      const stray = platformProblems('linux-x64', [...linuxOk, { name: 'extension/dist/canvas.node', bytes: glibcLib() }]);
      assert.deepEqual(stray.problems, ['extension/dist/canvas.node: a native file outside extension/dist/onnxruntime/linux/x64/']);
    });

    it('fails a platform VSIX without its binding, or without a library the binding loads', () => {
      assert.match(
        platformProblems('linux-x64', linuxOk.slice(1)).problems.join('\n'),
        /onnxruntime_binding\.node is missing: the linux-x64 VSIX has no ONNX Runtime binding/,
      );
      assert.deepEqual(platformProblems('linux-x64', [linuxOk[0]]).problems, [
        `${RT}/linux/x64/onnxruntime_binding.node loads libonnxruntime.so.1, which the VSIX lacks beside it`,
      ]);
      const noRpath = platformProblems('darwin-arm64', [
        {
          name: `${RT}/darwin/arm64/onnxruntime_binding.node`,
          bytes: macho({ cpu: 0x0100000c, commands: [{ cmd: 0xc, name: '@rpath/libonnxruntime.1.dylib' }] }),
        },
        { name: `${RT}/darwin/arm64/libonnxruntime.1.dylib`, bytes: macho({ cpu: 0x0100000c }) },
      ]);
      assert.deepEqual(noRpath.problems, [
        `${RT}/darwin/arm64/onnxruntime_binding.node loads @rpath/libonnxruntime.1.dylib but has no @loader_path rpath to find it beside itself`,
      ]);
    });

    it('accepts a fat Mach-O that holds the target CPU, refuses one that does not', () => {
      const slice = (cpu: number) => ({ cpu, file: macho({ cpu }) });
      const binding = (bytes: Buffer) => [{ name: `${RT}/darwin/arm64/onnxruntime_binding.node`, bytes }];
      assert.deepEqual(platformProblems('darwin-arm64', binding(fat([slice(0x01000007), slice(0x0100000c)]))).problems, []);
      assert.match(platformProblems('darwin-arm64', binding(fat([slice(0x01000007)]))).problems.join('\n'), /macho-fat darwin x64 .*, not darwin arm64/);
    });

    it('fails the universal VSIX on any native file, whatever its name; and a file named .node that is not native', () => {
      assert.deepEqual(platformProblems('universal', linuxOk.slice(2)).problems, []);
      const hidden = platformProblems('universal', [{ name: 'extension/dist/ocr/tesseract-core.wasm', bytes: glibcLib() }]);
      assert.match(hidden.problems.join('\n'), /tesseract-core\.wasm: elf linux x64 .* in the universal VSIX, which must carry no native file/);
      assert.deepEqual(platformProblems('universal', [{ name: 'extension/dist/x.node', bytes: Buffer.from('module.exports = 1;') }]).problems, [
        'extension/dist/x.node: named like a native file but neither ELF, Mach-O nor PE',
      ]);
    });
  });

  it("reads a VSIX's target from its manifest and checks the zip's entries", () => {
    const manifest = (target?: string) =>
      Buffer.from(
        `<?xml version="1.0"?><PackageManifest><Metadata><Identity Language="en-US" Id="similar-sources" Version="0.1.0" Publisher="similar-sources"${target ? ` TargetPlatform="${target}"` : ''}/></Metadata></PackageManifest>`,
      );
    const files = [
      { name: 'extension/dist/onnxruntime/linux/x64/onnxruntime_binding.node', bytes: glibcBinding() },
      { name: 'extension/dist/onnxruntime/linux/x64/libonnxruntime.so.1', bytes: glibcLib() },
    ];
    const write = (name: string, target?: string) => {
      const path = join(tmp, name);
      writeFileSync(path, storedZip([{ name: 'extension.vsixmanifest', bytes: manifest(target) }, ...files]));
      return path;
    };
    const ok = write('ok.vsix', 'linux-x64');
    const buf = storedZip([{ name: 'extension.vsixmanifest', bytes: manifest('linux-x64') }]);
    assert.equal(vsixTarget(buf, zipEntries(buf)), 'linux-x64');
    assert.deepEqual(checkVsixFile(ok).problems, []);
    assert.equal(checkVsixFile(ok).target, 'linux-x64');
    const arm = checkVsixFile(write('arm.vsix', 'linux-arm64'));
    assert.match(arm.problems.join('\n'), /not linux arm64, in the linux-arm64 VSIX/);
    const universal = checkVsixFile(write('universal.vsix'));
    assert.equal(universal.target, 'universal');
    assert.equal(universal.problems.length, 2);
  });
});
