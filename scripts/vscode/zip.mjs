// Reading a VSIX (a zip file) without a dependency: its entries from the central directory, an
// entry's bytes, and the VS Code target vsce wrote into its manifest.
import { inflateRawSync } from 'node:zlib';

/** Entries of a zip file from its central directory: name, method, sizes, local header offset. */
export function zipEntries(buf) {
  const EOCD = 0x06054b50;
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file (no end-of-central-directory record)');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || p === 0xffffffff) throw new Error('ZIP64 archives are not supported here');
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`corrupt central directory at entry ${i}`);
    const method = buf.readUInt16LE(p + 10);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const localOffset = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    entries.push({ name, method, compressedSize, size, localOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** An entry's bytes, inflated. */
export function zipRead(buf, entry) {
  const p = entry.localOffset;
  if (buf.readUInt32LE(p) !== 0x04034b50) throw new Error(`corrupt local header for ${entry.name}`);
  const start = p + 30 + buf.readUInt16LE(p + 26) + buf.readUInt16LE(p + 28);
  const data = buf.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return data;
  if (entry.method === 8) return inflateRawSync(data);
  throw new Error(`${entry.name}: unsupported compression method ${entry.method}`);
}

/** The target vsce wrote into extension.vsixmanifest (`vsce package --target`), else 'universal'. */
export function vsixTarget(buf, entries = zipEntries(buf)) {
  const entry = entries.find((e) => e.name === 'extension.vsixmanifest');
  if (!entry) throw new Error('no extension.vsixmanifest: not a VSIX');
  const identity = /<Identity\b[^>]*>/.exec(zipRead(buf, entry).toString('utf8'))?.[0] ?? '';
  return /\bTargetPlatform="([^"]+)"/.exec(identity)?.[1] ?? 'universal';
}
