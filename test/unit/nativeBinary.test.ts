import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describeHeader, readNativeHeader, type NativeHeader } from '../../scripts/vscode/nativeBinary.mjs';
import { ortBinDir } from '../../scripts/vscode/platforms.mjs';
import { elf, fat, macho, pe } from '../support/nativeFiles';

const BIN = ortBinDir();
const read = (os: string, arch: string, file: string) => readNativeHeader(readFileSync(join(BIN, os, arch, file)))!;
const header = (b: Buffer): NativeHeader => {
  const h = readNativeHeader(b);
  assert.ok(h, 'read as a native file');
  return h;
};

describe('native file headers (scripts/vscode/nativeBinary.mjs)', () => {
  describe("on onnxruntime-node's real binaries (every platform it ships)", () => {
    it('each file says the OS and CPU of the folder it ships in, 64-bit, without a problem', () => {
      const seen: string[] = [];
      for (const os of readdirSync(BIN))
        for (const arch of readdirSync(join(BIN, os)))
          for (const f of readdirSync(join(BIN, os, arch))) {
            const h = read(os, arch, f);
            assert.equal(h.problem, undefined, `${os}/${arch}/${f}`);
            assert.deepEqual([h.os, h.arch, h.bits], [os, arch, 64], `${os}/${arch}/${f}: ${describeHeader(h)}`);
            seen.push(`${os}/${arch}`);
          }
      // What onnxruntime-node 1.30 holds: no darwin/x64, nothing for musl.
      assert.deepEqual([...new Set(seen)].sort(), ['darwin/arm64', 'linux/arm64', 'linux/x64', 'win32/arm64', 'win32/x64']);
    });

    it('ELF: e_machine 62 / 183, glibc, DT_NEEDED and DT_SONAME as readelf -d gives them', () => {
      const x64 = read('linux', 'x64', 'onnxruntime_binding.node');
      assert.equal(x64.format, 'elf');
      assert.equal(x64.libc, 'glibc');
      assert.deepEqual(x64.needs, ['libonnxruntime.so.1', 'libstdc++.so.6', 'libm.so.6', 'libgcc_s.so.1', 'libc.so.6']);
      assert.equal(read('linux', 'x64', 'libonnxruntime.so.1').id, 'libonnxruntime.so.1');
      assert.equal(read('linux', 'arm64', 'libonnxruntime.so.1').arch, 'arm64');
    });

    it('Mach-O: cputype arm64, its @rpath library and the @loader_path rpath that finds it', () => {
      const b = read('darwin', 'arm64', 'onnxruntime_binding.node');
      assert.equal(b.format, 'macho');
      assert.deepEqual(b.needs, ['@rpath/libonnxruntime.1.dylib', '/usr/lib/libc++.1.dylib', '/usr/lib/libSystem.B.dylib']);
      assert.deepEqual(b.rpaths, ['@loader_path']);
      // The versioned copy is the same library: its install name is the one the binding loads.
      assert.equal(read('darwin', 'arm64', 'libonnxruntime.1.30.0.dylib').id, '@rpath/libonnxruntime.1.dylib');
    });

    it('PE: Machine 0x8664 / 0xAA64, imports, and DirectML only delay-loaded', () => {
      for (const arch of ['x64', 'arm64']) {
        const b = read('win32', arch, 'onnxruntime_binding.node');
        assert.equal(b.format, 'pe');
        assert.equal(b.needs[0], 'onnxruntime.dll');
        const ort = read('win32', arch, 'onnxruntime.dll');
        assert.ok(ort.delayNeeds!.includes('DirectML.dll'), `${arch}: DirectML.dll is delay-loaded`);
        assert.ok(!ort.needs.some((n) => /directml/i.test(n)), `${arch}: DirectML.dll is not loaded with onnxruntime.dll`);
      }
    });

    it("this Node's own executable is a native file of this machine", () => {
      const h = header(readFileSync(process.execPath));
      assert.equal(h.os, process.platform);
      assert.ok(h.arch === process.arch || h.arches?.includes(process.arch), describeHeader(h));
    });

    it('a file cut short is still recognised, with a problem, never a wrong answer', () => {
      const whole = readFileSync(join(BIN, 'linux', 'x64', 'onnxruntime_binding.node'));
      const cut = header(whole.subarray(0, 64));
      assert.equal(cut.format, 'elf');
      assert.match(cut.problem!, /cut or inconsistent header/);
      for (const [os, f] of [
        ['win32', 'onnxruntime.dll'],
        ['darwin', 'onnxruntime_binding.node'],
      ]) {
        const h = header(readFileSync(join(BIN, os, 'arm64', f)).subarray(0, 200));
        assert.equal(h.os, os);
        assert.match(h.problem!, /cut or inconsistent header/, os);
      }
    });
  });

  describe('on crafted bytes', () => {
    it('ELF: the CPU from e_machine, both classes and byte orders, DT_NEEDED through the segment map, the C library', () => {
      assert.deepEqual(header(elf({ machine: 62, needs: ['libfoo.so.1', 'libc.so.6'], soname: 'libme.so' })), {
        format: 'elf',
        os: 'linux',
        arch: 'x64',
        bits: 64,
        needs: ['libfoo.so.1', 'libc.so.6'],
        id: 'libme.so',
        libc: 'glibc',
      });
      const musl = header(elf({ machine: 183, needs: ['libc.musl-aarch64.so.1'] }));
      assert.deepEqual([musl.arch, musl.libc], ['arm64', 'musl']);
      assert.equal(header(elf({ machine: 62, interp: '/lib/ld-musl-x86_64.so.1' })).libc, 'musl');
      const be32 = header(elf({ machine: 40, bits: 32, little: false, needs: ['libx.so'] }));
      assert.deepEqual([be32.arch, be32.bits, be32.needs], ['arm', 32, ['libx.so']]);
      assert.equal(header(elf({ machine: 3, bits: 32 })).arch, 'ia32');
      assert.equal(header(elf({ machine: 243 })).arch, 'unknown (243)', 'RISC-V is named as unknown, not as another CPU');
      const noLibc = header(elf({ machine: 62 }));
      assert.equal(noLibc.libc, undefined);
      assert.deepEqual(noLibc.needs, []);
    });

    it('ELF: a bad class, or a string table outside every segment, is a problem', () => {
      const bad = elf({ machine: 62 });
      bad[4] = 7;
      assert.match(header(bad).problem!, /EI_CLASS 7/);
      const lost = elf({ machine: 62, needs: ['libx.so'] });
      lost.writeBigUInt64LE(0n, 64 + 32); // the PT_LOAD's file size: nothing maps the strings any more
      assert.match(header(lost).problem!, /in no loadable segment/);
    });

    it('Mach-O: cputype x86_64 0x01000007 and arm64 0x0100000c, load commands, id and rpaths', () => {
      const m = header(
        macho({
          cpu: 0x01000007,
          commands: [
            { cmd: 0xd, name: '@rpath/me.dylib' },
            { cmd: 0xc, name: '@rpath/libdep.dylib' },
            { cmd: 0x80000018, name: '/usr/lib/libweak.dylib' },
            { cmd: 0x8000001c, name: '@loader_path/' },
          ],
        }),
      );
      assert.deepEqual(m, {
        format: 'macho',
        os: 'darwin',
        arch: 'x64',
        bits: 64,
        needs: ['@rpath/libdep.dylib', '/usr/lib/libweak.dylib'],
        rpaths: ['@loader_path/'],
        id: '@rpath/me.dylib',
      });
      assert.equal(header(macho({ cpu: 0x0100000c })).arch, 'arm64');
      assert.deepEqual([header(macho({ cpu: 7, bits: 32 })).arch, header(macho({ cpu: 7, bits: 32 })).bits], ['ia32', 32]);
    });

    it('fat Mach-O (0xcafebabe): every slice read; one CPU, or several named', () => {
      const x64 = macho({ cpu: 0x01000007, commands: [{ cmd: 0xc, name: '/usr/lib/libSystem.B.dylib' }] });
      const arm = macho({ cpu: 0x0100000c, commands: [{ cmd: 0xc, name: '@rpath/libdep.dylib' }] });
      const both = header(
        fat([
          { cpu: 0x01000007, file: x64 },
          { cpu: 0x0100000c, file: arm },
        ]),
      );
      assert.deepEqual(
        [both.format, both.arch, both.arches, both.needs],
        ['macho-fat', 'multi', ['x64', 'arm64'], ['/usr/lib/libSystem.B.dylib', '@rpath/libdep.dylib']],
      );
      assert.equal(header(fat([{ cpu: 0x0100000c, file: arm }])).arch, 'arm64');
      assert.match(header(fat([{ cpu: 0x01000007, file: arm }])).problem!, /disagree on the CPU/);
    });

    it('a Java class file shares the fat magic and is not taken for one', () => {
      const cls = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x34, 0, 0, 0, 0]);
      assert.equal(readNativeHeader(cls), null);
    });

    it('PE: MZ → PE\\0\\0 → Machine, PE32 and PE32+, imports and delay imports', () => {
      const x = header(pe({ machine: 0x8664, imports: ['onnxruntime.dll', 'KERNEL32.dll'], delayImports: ['DirectML.dll'] }));
      assert.deepEqual(x, { format: 'pe', os: 'win32', arch: 'x64', bits: 64, needs: ['onnxruntime.dll', 'KERNEL32.dll'], delayNeeds: ['DirectML.dll'] });
      assert.deepEqual([header(pe({ machine: 0xaa64 })).arch, header(pe({ machine: 0xaa64 })).needs], ['arm64', []]);
      assert.deepEqual(
        [
          header(pe({ machine: 0x14c, bits: 32, imports: ['a.dll'] })).arch,
          header(pe({ machine: 0x14c, bits: 32, imports: ['a.dll'] })).bits,
          header(pe({ machine: 0x14c, bits: 32, imports: ['a.dll'] })).needs,
        ],
        ['ia32', 32, ['a.dll']],
      );
      assert.equal(header(pe({ machine: 0xaa64, bits: 0 })).arch, 'arm64', 'an object file without an optional header still names its machine');
      const noSig = pe({ machine: 0x8664 });
      noSig.write('XX', 0x40, 'latin1');
      assert.match(header(noSig).problem!, /no PE signature/);
    });

    it('anything else is not a native file', () => {
      for (const b of [Buffer.alloc(0), Buffer.from('MZ'), Buffer.from('{"name": "x"}'), Buffer.from('\x7fELF'.slice(0, 3)), Buffer.from('PK\x03\x04rest')])
        assert.equal(readNativeHeader(b), null, JSON.stringify(b.toString('latin1')));
    });
  });
});
