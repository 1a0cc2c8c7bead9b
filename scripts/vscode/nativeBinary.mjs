// What a native file is, read from its own bytes: ELF (Linux), Mach-O (macOS, thin or fat) or
// PE (Windows) — its OS, CPU architecture, word size and the libraries it makes the system loader
// open. scripts/vscode/platforms.mjs picks a platform's ONNX Runtime files with it, and
// scripts/vscode/check-platform-vsix.mjs checks every native file of a VSIX against the VSIX's
// target. No dependency: the three formats' headers are small and documented (the ELF gABI,
// Apple's <mach-o/loader.h> and <mach-o/fat.h>, Microsoft's PE/COFF specification).

export const ELF_MACHINES = { 3: 'ia32', 40: 'arm', 62: 'x64', 183: 'arm64' };
export const MACHO_CPUS = { 7: 'ia32', 0x01000007: 'x64', 12: 'arm', 0x0100000c: 'arm64' };
export const PE_MACHINES = { 0x14c: 'ia32', 0x1c4: 'arm', 0x8664: 'x64', 0xaa64: 'arm64' };

/** File names that may hold native code (a VSIX's other files are not read). */
export const NATIVE_NAME = /\.(node|so(\.\d+)*|dylib|dll|exe)$/i;

const archOf = (table, n) => table[n] ?? `unknown (${n})`;

/** Little- or big-endian reads that throw a RangeError past the end (a truncated file). */
function reader(buf, little) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return {
    u16: (o) => dv.getUint16(o, little),
    u32: (o) => dv.getUint32(o, little),
    i32: (o) => dv.getInt32(o, little),
    // Offsets and sizes in these files stay far below 2^53.
    u64: (o) => Number(dv.getBigUint64(o, little)),
  };
}

/** The NUL-terminated string at `o` (bounded). */
function cstr(buf, o, max = 4096) {
  if (o < 0 || o >= buf.length) throw new RangeError(`string offset ${o} outside the file`);
  const end = buf.indexOf(0, o);
  return buf.toString('utf8', o, end < 0 ? Math.min(buf.length, o + max) : Math.min(end, o + max));
}

/**
 * What `buf` (a whole file) is: `null` when it is none of the three formats; otherwise
 * { format: 'elf' | 'macho' | 'macho-fat' | 'pe', os, arch, bits, needs, ... } where `needs` are the
 * libraries the loader opens with it (PE: `delayNeeds` apart, opened only when first called).
 * A file whose header is cut or inconsistent gets a `problem`.
 */
export function readNativeHeader(buf) {
  if (buf.length < 4) return null;
  let kind = null;
  if (buf[0] === 0x7f && buf.toString('latin1', 1, 4) === 'ELF') kind = readElf;
  else if (buf[0] === 0x4d && buf[1] === 0x5a) kind = readPe;
  else {
    const le = buf.readUInt32LE(0);
    const be = buf.readUInt32BE(0);
    // 0xcafebabe is also a Java class file's magic: a fat header counts its slices (a few), a
    // class file has its version there (45 and up), as Apple's own tools tell them apart.
    if ((be === 0xcafebabe || be === 0xcafebabf) && buf.length >= 8 && buf.readUInt32BE(4) < 45) kind = readFat;
    else if ([0xfeedface, 0xfeedfacf].includes(le) || [0xfeedface, 0xfeedfacf].includes(be)) kind = readMachO;
  }
  if (!kind) return null;
  try {
    return kind(buf);
  } catch (err) {
    const format = kind === readElf ? 'elf' : kind === readPe ? 'pe' : kind === readFat ? 'macho-fat' : 'macho';
    return {
      format,
      os: { elf: 'linux', pe: 'win32' }[format] ?? 'darwin',
      arch: 'unknown',
      bits: 0,
      needs: [],
      problem: `cut or inconsistent header (${err.message})`,
    };
  }
}

// ---------------------------------------------------------------- ELF
const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const DT_NEEDED = 1;
const DT_STRTAB = 5;
const DT_SONAME = 14;

function readElf(buf) {
  const bits = buf[4] === 2 ? 64 : buf[4] === 1 ? 32 : 0;
  if (!bits) throw new Error(`EI_CLASS ${buf[4]}`);
  if (buf[5] !== 1 && buf[5] !== 2) throw new Error(`EI_DATA ${buf[5]}`);
  const r = reader(buf, buf[5] === 1);
  const machine = r.u16(18);
  const phoff = bits === 64 ? r.u64(32) : r.u32(28);
  const phentsize = r.u16(bits === 64 ? 54 : 42);
  const phnum = r.u16(bits === 64 ? 56 : 44);
  const segments = [];
  for (let i = 0; i < phnum; i++) {
    const p = phoff + i * phentsize;
    segments.push(
      bits === 64
        ? { type: r.u32(p), offset: r.u64(p + 8), vaddr: r.u64(p + 16), filesz: r.u64(p + 32) }
        : { type: r.u32(p), offset: r.u32(p + 4), vaddr: r.u32(p + 8), filesz: r.u32(p + 16) },
    );
  }
  // The dynamic section names its string table by address: the loadable segments map it to the file.
  const toOffset = (vaddr) => {
    const s = segments.find((g) => g.type === PT_LOAD && vaddr >= g.vaddr && vaddr < g.vaddr + g.filesz);
    if (!s) throw new Error(`address 0x${vaddr.toString(16)} in no loadable segment`);
    return vaddr - s.vaddr + s.offset;
  };
  const needed = [];
  let soname;
  let strtab;
  const dyn = segments.find((g) => g.type === PT_DYNAMIC);
  if (dyn) {
    const size = bits === 64 ? 16 : 8;
    for (let p = dyn.offset; p + size <= dyn.offset + dyn.filesz; p += size) {
      const tag = bits === 64 ? r.u64(p) : r.u32(p);
      const val = bits === 64 ? r.u64(p + 8) : r.u32(p + 4);
      if (tag === 0) break;
      if (tag === DT_STRTAB) strtab = toOffset(val);
      else if (tag === DT_NEEDED) needed.push(val);
      else if (tag === DT_SONAME) soname = val;
    }
    if (needed.length && strtab === undefined) throw new Error('DT_NEEDED without DT_STRTAB');
  }
  const needs = needed.map((o) => cstr(buf, strtab + o));
  const interpSeg = segments.find((g) => g.type === PT_INTERP);
  const interp = interpSeg ? cstr(buf, interpSeg.offset) : undefined;
  // Which C library it was linked against: what tells a glibc build from a musl (Alpine) one.
  const libc =
    needs.includes('libc.so.6') || /ld-linux/.test(interp ?? '')
      ? 'glibc'
      : needs.some((n) => /^libc\.musl-/.test(n)) || /ld-musl/.test(interp ?? '')
        ? 'musl'
        : undefined;
  return {
    format: 'elf',
    os: 'linux',
    arch: archOf(ELF_MACHINES, machine),
    bits,
    needs,
    ...(soname !== undefined ? { id: cstr(buf, strtab + soname) } : {}),
    ...(libc ? { libc } : {}),
  };
}

// ---------------------------------------------------------------- Mach-O
const LC_ID_DYLIB = 0xd;
const LC_RPATH = 0x8000001c;
const LOAD_DYLIB = new Set([
  0xc /* LC_LOAD_DYLIB */, 0x80000018 /* LC_LOAD_WEAK_DYLIB */, 0x8000001f /* LC_REEXPORT_DYLIB */, 0x80000023 /* LC_LOAD_UPWARD_DYLIB */,
]);

function readMachO(buf) {
  const little = [0xfeedface, 0xfeedfacf].includes(buf.readUInt32LE(0));
  const r = reader(buf, little);
  const bits = r.u32(0) === 0xfeedfacf ? 64 : 32;
  const cpu = r.i32(4) >>> 0;
  const ncmds = r.u32(16);
  if (ncmds > 100_000) throw new Error(`${ncmds} load commands`);
  const needs = [];
  const rpaths = [];
  let id;
  for (let i = 0, p = bits === 64 ? 32 : 28; i < ncmds; i++) {
    const cmd = r.u32(p);
    const size = r.u32(p + 4);
    if (size < 8) throw new Error(`load command ${i} of size ${size}`);
    // dylib_command and rpath_command: the name's offset from the command's start at +8.
    const name = () => cstr(buf, p + r.u32(p + 8), size);
    if (LOAD_DYLIB.has(cmd)) needs.push(name());
    else if (cmd === LC_ID_DYLIB) id = name();
    else if (cmd === LC_RPATH) rpaths.push(name());
    p += size;
  }
  return { format: 'macho', os: 'darwin', arch: archOf(MACHO_CPUS, cpu), bits, needs, rpaths, ...(id ? { id } : {}) };
}

/** A fat (universal) Mach-O: each slice read as a thin one; `arch` when all agree, else 'multi'. */
function readFat(buf) {
  const r = reader(buf, false);
  const wide = r.u32(0) === 0xcafebabf;
  const n = r.u32(4);
  const slices = [];
  for (let i = 0; i < n; i++) {
    const p = 8 + i * (wide ? 32 : 20);
    const offset = wide ? r.u64(p + 8) : r.u32(p + 8);
    const size = wide ? r.u64(p + 16) : r.u32(p + 12);
    if (offset + size > buf.length) throw new Error(`slice ${i} ends past the file`);
    const slice = readMachO(buf.subarray(offset, offset + size));
    if (archOf(MACHO_CPUS, r.u32(p) >>> 0) !== slice.arch) throw new Error(`slice ${i}: the fat header and the slice disagree on the CPU`);
    slices.push(slice);
  }
  const arches = [...new Set(slices.map((s) => s.arch))];
  return {
    format: 'macho-fat',
    os: 'darwin',
    arch: arches.length === 1 ? arches[0] : 'multi',
    arches,
    bits: Math.max(0, ...slices.map((s) => s.bits)),
    needs: [...new Set(slices.flatMap((s) => s.needs))],
    rpaths: [...new Set(slices.flatMap((s) => s.rpaths))],
  };
}

// ---------------------------------------------------------------- PE
function readPe(buf) {
  const r = reader(buf, true);
  const pe = r.u32(0x3c);
  if (buf.toString('latin1', pe, pe + 4) !== 'PE\0\0') throw new Error('no PE signature where the MZ header points');
  const machine = r.u16(pe + 4);
  const nsections = r.u16(pe + 6);
  const optSize = r.u16(pe + 20);
  const opt = pe + 24;
  const magic = optSize ? r.u16(opt) : 0;
  const bits = magic === 0x20b ? 64 : magic === 0x10b ? 32 : 0;
  const base = { format: 'pe', os: 'win32', arch: archOf(PE_MACHINES, machine), bits, needs: [], delayNeeds: [] };
  if (!bits) return base; // an object file without an optional header: no imports to read
  const sections = [];
  for (let i = 0; i < nsections; i++) {
    const s = opt + optSize + i * 40;
    sections.push({ va: r.u32(s + 12), size: Math.max(r.u32(s + 8), r.u32(s + 16)), raw: r.u32(s + 20) });
  }
  const toOffset = (rva) => {
    const s = sections.find((x) => rva >= x.va && rva < x.va + x.size);
    if (!s) throw new Error(`RVA 0x${rva.toString(16)} in no section`);
    return rva - s.va + s.raw;
  };
  const dirs = opt + (bits === 64 ? 112 : 96);
  const ndirs = r.u32(opt + (bits === 64 ? 108 : 92));
  const imageBase = bits === 64 ? r.u64(opt + 24) : r.u32(opt + 28);
  const dir = (i) => (i < ndirs ? r.u32(dirs + 8 * i) : 0);
  // Import descriptors (20 bytes, the DLL's name at +12), up to an all-zero one.
  for (let rva = dir(1), p = rva && toOffset(rva); rva && r.u32(p + 12); p += 20) base.needs.push(cstr(buf, toOffset(r.u32(p + 12))));
  // Delay-load descriptors (32 bytes, the name at +4; an RVA when bit 0 of the attributes is set,
  // an address in the image otherwise, as the oldest linkers wrote it).
  for (let rva = dir(13), p = rva && toOffset(rva); rva && r.u32(p + 4); p += 32) {
    const name = r.u32(p + 4);
    base.delayNeeds.push(cstr(buf, toOffset(r.u32(p) & 1 ? name : name - imageBase)));
  }
  return base;
}

/** "linux x64 (glibc, 64-bit)": one line for a header, in the check's messages. */
export function describeHeader(h) {
  const extra = [h.libc, h.bits ? `${h.bits}-bit` : undefined, h.arches && h.arches.length > 1 ? `slices ${h.arches.join('+')}` : undefined].filter(Boolean);
  return `${h.format} ${h.os} ${h.arch}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}
