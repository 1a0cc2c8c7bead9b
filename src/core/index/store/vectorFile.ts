/**
 * Reads and writes a vector shard's `index.pb` directly: the exact protobuf layout of
 * vectra's LocalIndex with its ProtobufCodec (schemas/index.proto: IndexData { version,
 * metadata_config, repeated IndexItem items }, IndexItem { id, metadata, packed float
 * vector, double norm, metadata_file }), so the files stay vectra indexes that vectra
 * itself opens. Doing it here avoids what vectra costs at our scale: ~360 ms and
 * 120 MB just to load it, a number[] per vector on read, and O(N²) batch inserts
 * on write. Unknown fields are skipped, as protobuf readers must.
 */

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

export class VectorFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VectorFileError';
  }
}

export interface DecodedVectors {
  ids: string[];
  /** Row-major, `ids.length` rows of `dim` floats. */
  vectors: Float32Array;
  dim: number;
}

class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw new VectorFileError('truncated varint');
      const b = this.buf[this.pos++];
      // Values past 2^53 do not occur in this format; multiply keeps them exact up to there.
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
      if (shift > 63) throw new VectorFileError('malformed varint');
    }
  }
  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        break;
      case WIRE_I64:
        this.pos += 8;
        break;
      case WIRE_LEN: {
        const len = this.varint(); // read before adding: `pos += varint()` would add to the old pos
        this.pos += len;
        break;
      }
      case WIRE_I32:
        this.pos += 4;
        break;
      default:
        throw new VectorFileError(`unsupported wire type ${wire}`);
    }
    if (this.pos > this.end) throw new VectorFileError('truncated field');
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Decodes an IndexData message; every vector must have the same length. */
export function decodeVectorFile(buf: Uint8Array): DecodedVectors {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const top = new Reader(buf, 0, buf.length);
  // First pass: item boundaries (cheap), so the vectors land in one allocation.
  const items: Array<[number, number]> = [];
  while (top.pos < top.end) {
    const tag = top.varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 3 && wire === WIRE_LEN) {
      const len = top.varint();
      if (top.pos + len > top.end) throw new VectorFileError('truncated item');
      items.push([top.pos, top.pos + len]);
      top.pos += len;
    } else top.skip(wire);
  }
  const ids: string[] = new Array(items.length);
  let dim = -1;
  let vectors = new Float32Array(0);
  for (let n = 0; n < items.length; n++) {
    const r = new Reader(buf, items[n][0], items[n][1]);
    let id = '';
    let count = 0;
    let row = -1;
    while (r.pos < r.end) {
      const tag = r.varint();
      const field = Math.floor(tag / 8);
      const wire = tag & 7;
      if (field === 1 && wire === WIRE_LEN) {
        const len = r.varint();
        if (r.pos + len > r.end) throw new VectorFileError('truncated id');
        id = utf8.decode(buf.subarray(r.pos, r.pos + len));
        r.pos += len;
      } else if (field === 3 && (wire === WIRE_LEN || wire === WIRE_I32)) {
        let from = r.pos;
        let floats = 1;
        if (wire === WIRE_LEN) {
          const len = r.varint();
          from = r.pos;
          if (len % 4 !== 0 || from + len > r.end) throw new VectorFileError('malformed vector');
          floats = len / 4;
        }
        if (row < 0) {
          if (dim < 0) {
            dim = floats; // packed: the whole vector in one field, the common case
            vectors = new Float32Array(items.length * dim);
          }
          row = n * dim;
        }
        if (count + floats > dim) throw new VectorFileError(`item ${n} has more than ${dim} dimensions`);
        for (let i = 0; i < floats; i++) vectors[row + count + i] = view.getFloat32(from + 4 * i, true);
        count += floats;
        r.pos = from + floats * 4;
      } else r.skip(wire);
    }
    if (dim >= 0 && count !== dim) throw new VectorFileError(`item ${n} has ${count} dimensions, expected ${dim}`);
    ids[n] = id;
  }
  return { ids, vectors, dim: Math.max(dim, 0) };
}

/** Where each item's id and vector lie in an `index.pb`: what loading copies without decoding floats. */
export interface VectorLocations {
  count: number;
  dim: number;
  /** Item n's id is bytes idStart[n] .. idEnd[n]; its packed float32 vector starts at byte at[n]. */
  idStart: Float64Array;
  idEnd: Float64Array;
  at: Float64Array;
  /** Item n's id, decoded. */
  id(n: number): string;
  /** Whether item n's id is `${hash}:${index}` (the index's ids), compared on the bytes: a non-ASCII id compares as a mismatch. */
  idIs(n: number, hash: string, index: number): boolean;
}

/**
 * The ids and vector offsets of an `index.pb` whose vectors are each one packed field
 * of the same length (as encodeVectorFile and vectra write them); undefined for any other
 * layout (the caller decodes it with decodeVectorFile).
 */
export function locateVectors(buf: Uint8Array): VectorLocations | undefined {
  const top = new Reader(buf, 0, buf.length);
  const idStart: number[] = [];
  const idEnd: number[] = [];
  const at: number[] = [];
  let dim = -1;
  while (top.pos < top.end) {
    const tag = top.varint();
    const wire = tag & 7;
    if (Math.floor(tag / 8) !== 3 || wire !== WIRE_LEN) {
      top.skip(wire);
      continue;
    }
    const len = top.varint();
    const end = top.pos + len;
    if (end > top.end) throw new VectorFileError('truncated item');
    const r = new Reader(buf, top.pos, end);
    let id0 = 0;
    let id1 = 0;
    let vec = -1;
    while (r.pos < r.end) {
      const t = r.varint();
      const field = Math.floor(t / 8);
      const w = t & 7;
      if (field === 1 && w === WIRE_LEN) {
        const l = r.varint();
        if (r.pos + l > r.end) throw new VectorFileError('truncated id');
        id0 = r.pos;
        id1 = r.pos + l;
        r.pos += l;
      } else if (field === 3) {
        if (w !== WIRE_LEN || vec >= 0) return undefined;
        const l = r.varint();
        if (l % 4 !== 0 || r.pos + l > r.end) throw new VectorFileError('malformed vector');
        if (dim < 0) dim = l / 4;
        else if (l / 4 !== dim) return undefined;
        vec = r.pos;
        r.pos += l;
      } else r.skip(w);
    }
    if (vec < 0) return undefined;
    idStart.push(id0);
    idEnd.push(id1);
    at.push(vec);
    top.pos = end;
  }
  const starts = Float64Array.from(idStart);
  const ends = Float64Array.from(idEnd);
  return {
    count: at.length,
    dim: Math.max(dim, 0),
    idStart: starts,
    idEnd: ends,
    at: Float64Array.from(at),
    id: (n) => utf8.decode(buf.subarray(starts[n], ends[n])),
    idIs(n, hash, index) {
      let p = starts[n];
      const end = ends[n];
      for (let i = 0; i < hash.length; i++, p++) if (p >= end || buf[p] !== hash.charCodeAt(i)) return false;
      if (p >= end || buf[p++] !== 58 /* ':' */) return false;
      // The decimal digits of `index`, least significant last.
      let digits = 1;
      for (let v = index; v >= 10; v = Math.floor(v / 10)) digits++;
      if (end - p !== digits) return false;
      for (let d = digits - 1, v = index; d >= 0; d--, v = Math.floor(v / 10)) if (buf[p + d] !== 48 + (v % 10)) return false;
      return true;
    },
  };
}

class Writer {
  buf: Uint8Array;
  view: DataView;
  pos = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
  }
  varint(v: number): void {
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }
}

function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/**
 * Encodes items as vectra's ProtobufCodec would: version 1, an empty metadata
 * config, each item with its id, empty metadata, packed float32 vector and its
 * float64 L2 norm (vectra's `norm`).
 */
export function encodeVectorFile(items: ReadonlyArray<{ id: string; vector: Float32Array }>): Uint8Array {
  const enc = new TextEncoder();
  const idBytes = items.map((it) => enc.encode(it.id));
  const itemLen = items.map((it, i) => 1 + varintSize(idBytes[i].length) + idBytes[i].length + 1 + varintSize(it.vector.length * 4) + it.vector.length * 4 + 9);
  let total = 2 + 2; // version, metadata_config
  for (const l of itemLen) total += 1 + varintSize(l) + l;
  const w = new Writer(total);
  w.varint((1 << 3) | WIRE_VARINT);
  w.varint(1);
  w.varint((2 << 3) | WIRE_LEN);
  w.varint(0);
  for (let i = 0; i < items.length; i++) {
    const v = items[i].vector;
    w.varint((3 << 3) | WIRE_LEN);
    w.varint(itemLen[i]);
    w.varint((1 << 3) | WIRE_LEN);
    w.varint(idBytes[i].length);
    w.buf.set(idBytes[i], w.pos);
    w.pos += idBytes[i].length;
    w.varint((3 << 3) | WIRE_LEN);
    w.varint(v.length * 4);
    let sq = 0;
    for (let j = 0; j < v.length; j++) {
      w.view.setFloat32(w.pos, v[j], true);
      w.pos += 4;
      sq += v[j] * v[j];
    }
    w.varint((4 << 3) | WIRE_I64);
    w.view.setFloat64(w.pos, Math.sqrt(sq), true);
    w.pos += 8;
  }
  if (w.pos !== total) throw new Error(`vector file size mismatch (${w.pos} != ${total})`);
  return w.buf;
}
