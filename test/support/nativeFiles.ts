/**
 * Native files made byte by byte for the header readers' tests (scripts/vscode/nativeBinary.mjs):
 * the smallest ELF, Mach-O (thin and fat) and PE files that carry a CPU type and the libraries
 * they load, laid out as the formats' specifications say, and a zip writer (stored entries) to
 * put them in a VSIX.
 */

/** An ELF shared object: one loadable segment over the whole file, a dynamic section naming `needs`. */
export function elf(o: { machine: number; bits?: 32 | 64; little?: boolean; needs?: string[]; soname?: string; interp?: string }): Buffer {
  const bits = o.bits ?? 64;
  const little = o.little ?? true;
  const ehsize = bits === 64 ? 64 : 52;
  const phentsize = bits === 64 ? 56 : 32;
  const dynent = bits === 64 ? 16 : 8;
  const names = [...(o.needs ?? []), ...(o.soname ? [o.soname] : [])];
  const strtab = Buffer.concat([Buffer.from([0]), ...names.map((n) => Buffer.from(`${n}\0`))]);
  const nameAt = (i: number) => 1 + names.slice(0, i).reduce((s, n) => s + n.length + 1, 0);
  const phnum = o.interp ? 3 : 2;
  const strOff = ehsize + phnum * phentsize;
  const interpOff = strOff + strtab.length;
  const interp = o.interp ? Buffer.from(`${o.interp}\0`) : Buffer.alloc(0);
  const dynOff = interpOff + interp.length;
  const dyn: Array<[number, number]> = (o.needs ?? []).map((_, i) => [1, nameAt(i)]);
  if (o.soname) dyn.push([14, nameAt(names.length - 1)]);
  const BASE = 0x10000;
  dyn.push([5, BASE + strOff], [0, 0]);
  const total = dynOff + dyn.length * dynent;
  const b = Buffer.alloc(total);
  const u16 = (v: number, at: number) => (little ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at));
  const u32 = (v: number, at: number) => (little ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at));
  const word = (v: number, at: number) => (bits === 64 ? (little ? b.writeBigUInt64LE(BigInt(v), at) : b.writeBigUInt64BE(BigInt(v), at)) : u32(v, at));
  b.write('\x7fELF', 0, 'latin1');
  b[4] = bits === 64 ? 2 : 1;
  b[5] = little ? 1 : 2;
  b[6] = 1;
  u16(3, 16); // ET_DYN
  u16(o.machine, 18);
  u32(1, 20);
  word(ehsize, bits === 64 ? 32 : 28); // e_phoff
  u16(ehsize, bits === 64 ? 52 : 40);
  u16(phentsize, bits === 64 ? 54 : 42);
  u16(phnum, bits === 64 ? 56 : 44);
  const ph = (i: number, type: number, offset: number, size: number) => {
    const p = ehsize + i * phentsize;
    u32(type, p);
    if (bits === 64) {
      word(offset, p + 8);
      word(BASE + offset, p + 16);
      word(BASE + offset, p + 24);
      word(size, p + 32);
      word(size, p + 40);
    } else {
      u32(offset, p + 4);
      u32(BASE + offset, p + 8);
      u32(BASE + offset, p + 12);
      u32(size, p + 16);
      u32(size, p + 20);
    }
  };
  ph(0, 1, 0, total); // PT_LOAD
  ph(1, 2, dynOff, dyn.length * dynent); // PT_DYNAMIC
  if (o.interp) ph(2, 3, interpOff, interp.length); // PT_INTERP
  strtab.copy(b, strOff);
  interp.copy(b, interpOff);
  dyn.forEach(([tag, val], i) => {
    word(tag, dynOff + i * dynent);
    word(val, dynOff + i * dynent + dynent / 2);
  });
  return b;
}

/** A thin Mach-O: its CPU type and load commands naming libraries (cmd 0xc…), an id (0xd) or rpaths. */
export function macho(o: { cpu: number; bits?: 32 | 64; commands?: Array<{ cmd: number; name: string }> }): Buffer {
  const bits = o.bits ?? 64;
  const cmds = (o.commands ?? []).map(({ cmd, name }) => {
    const size = Math.ceil((12 + name.length + 1) / 8) * 8;
    const c = Buffer.alloc(size);
    c.writeUInt32LE(cmd, 0);
    c.writeUInt32LE(size, 4);
    c.writeUInt32LE(12, 8); // the name's offset; a dylib_command's other fields are left 0
    c.write(name, 12, 'utf8');
    return c;
  });
  const h = Buffer.alloc(bits === 64 ? 32 : 28);
  h.writeUInt32LE(bits === 64 ? 0xfeedfacf : 0xfeedface, 0);
  h.writeUInt32LE(o.cpu >>> 0, 4);
  h.writeUInt32LE(6, 12); // MH_DYLIB
  h.writeUInt32LE(cmds.length, 16);
  h.writeUInt32LE(
    cmds.reduce((s, c) => s + c.length, 0),
    20,
  );
  return Buffer.concat([h, ...cmds]);
}

/** A fat Mach-O holding `slices` (each a thin file), as lipo writes it: big-endian header, then the slices. */
export function fat(slices: Array<{ cpu: number; file: Buffer }>): Buffer {
  const head = Buffer.alloc(8 + 20 * slices.length);
  head.writeUInt32BE(0xcafebabe, 0);
  head.writeUInt32BE(slices.length, 4);
  let offset = head.length;
  slices.forEach((s, i) => {
    const p = 8 + 20 * i;
    head.writeUInt32BE(s.cpu >>> 0, p);
    head.writeUInt32BE(offset, p + 8);
    head.writeUInt32BE(s.file.length, p + 12);
    offset += s.file.length;
  });
  return Buffer.concat([head, ...slices.map((s) => s.file)]);
}

/** A PE image: its machine, and (with an optional header) one section holding its import and delay-import tables. */
export function pe(o: { machine: number; bits?: 32 | 64 | 0; imports?: string[]; delayImports?: string[] }): Buffer {
  const bits = o.bits ?? 64;
  const optSize = bits === 64 ? 240 : bits === 32 ? 224 : 0;
  const peAt = 0x40;
  const opt = peAt + 24;
  const secAt = opt + optSize;
  const RAW = 0x200;
  const VA = 0x1000;
  const b = Buffer.alloc(RAW + 0x400);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(peAt, 0x3c);
  b.write('PE\0\0', peAt, 'latin1');
  b.writeUInt16LE(o.machine, peAt + 4);
  b.writeUInt16LE(bits ? 1 : 0, peAt + 6);
  b.writeUInt16LE(optSize, peAt + 20);
  if (!bits) return b.subarray(0, opt);
  b.writeUInt16LE(bits === 64 ? 0x20b : 0x10b, opt);
  const dirs = opt + (bits === 64 ? 112 : 96);
  b.writeUInt32LE(16, opt + (bits === 64 ? 108 : 92));
  // One section: VA 0x1000 ↔ file offset 0x200, 0x400 bytes.
  b.write('.idata', secAt, 'latin1');
  b.writeUInt32LE(0x400, secAt + 8);
  b.writeUInt32LE(VA, secAt + 12);
  b.writeUInt32LE(0x400, secAt + 16);
  b.writeUInt32LE(RAW, secAt + 20);
  let names = 0x200; // names from VA + 0x200 on
  const name = (n: string) => {
    b.write(`${n}\0`, RAW + names, 'latin1');
    const rva = VA + names;
    names += n.length + 1;
    return rva;
  };
  (o.imports ?? []).forEach((n, i) => b.writeUInt32LE(name(n), RAW + i * 20 + 12));
  if (o.imports?.length) b.writeUInt32LE(VA, dirs + 8);
  (o.delayImports ?? []).forEach((n, i) => {
    b.writeUInt32LE(1, RAW + 0x100 + i * 32); // attributes: RVAs
    b.writeUInt32LE(name(n), RAW + 0x100 + i * 32 + 4);
  });
  if (o.delayImports?.length) b.writeUInt32LE(VA + 0x100, dirs + 8 * 13);
  return b;
}

/** CRC-32 (IEEE), as zip stores it: zlib.crc32 is newer than some Node 20 releases. */
function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const x of bytes) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A zip of stored (uncompressed) entries, enough for the VSIX reader. */
export function storedZip(files: Array<{ name: string; bytes: Buffer }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name);
    const crc = crc32(f.bytes);
    const l = Buffer.alloc(30);
    l.writeUInt32LE(0x04034b50, 0);
    l.writeUInt16LE(20, 4);
    l.writeUInt32LE(crc, 14);
    l.writeUInt32LE(f.bytes.length, 18);
    l.writeUInt32LE(f.bytes.length, 22);
    l.writeUInt16LE(name.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(f.bytes.length, 20);
    c.writeUInt32LE(f.bytes.length, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(l, name, f.bytes);
    centrals.push(c, name);
    offset += 30 + name.length + f.bytes.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, central, end]);
}
