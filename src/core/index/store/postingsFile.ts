/**
 * A passage shard's binary companion (`passages/shard-N.gG.postings`): what opening the
 * index needs from the shard, laid out so that loading is reading bytes and taking
 * typed-array views, with no per-passage parsing:
 * - the shard's sources (id, content hash, passage count), a small JSON header;
 * - per passage: its number of lexical terms, where its JSON object lies in the shard's
 *   JSON file (so the text is read on demand) and a hash of those bytes;
 * - the lexical postings: the shard's distinct terms, and per term the passages holding
 *   it with their term frequencies.
 * The JSON shard stays the source of truth (the indexer reads and rewrites it); this
 * file is derived from it and is rebuilt from it when missing, outdated or damaged.
 *
 * Layout (little-endian): magic "SSPX", u32 version, u32 header length H, H bytes of
 * header JSON, padding to 4; then u32 docLen[P], u32 jsonStart[P], u32 jsonEnd[P],
 * u32 hash[P], u32 postOff[T+1], u32 postDocs[N], u16 postTf[N] (padding to 4), and the
 * terms as UTF-8 joined by "\n" (terms never hold spaces or newlines).
 */
import type { ShardSource } from './shards';
import { POSTINGS_VERSION } from './versions';

const MAGIC = 0x58505353; // "SSPX" read as a little-endian u32
/** Typed-array views read the platform's byte order; the file is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export class PostingsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PostingsFileError';
  }
}

export interface PostingsHeader {
  passages: number;
  terms: number;
  postings: number;
  /** Byte length of the JSON shard the offsets point into. */
  jsonBytes: number;
  /** Byte length of the terms at the end of the file. */
  termBytes: number;
  sources: Array<{ id: string; contentHash: string; passages: number }>;
}

/** A decoded postings file: views over its bytes (nothing is copied). */
export interface ShardPostings {
  header: PostingsHeader;
  docLen: Uint32Array;
  jsonStart: Uint32Array;
  jsonEnd: Uint32Array;
  hash: Uint32Array;
  /** Term t's postings are postDocs/postTf[postOff[t] .. postOff[t+1]), in increasing passage order. */
  postOff: Uint32Array;
  postDocs: Uint32Array;
  postTf: Uint16Array;
  terms: string[];
}

/** FNV-1a over bytes: catches a damaged passage read on demand (the whole file's sha256 is not re-read then). */
export function passageHash(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

const pad4 = (n: number) => (n + 3) & ~3;

/**
 * The shard's JSON text (what `JSON.parse` gives back as `{ shard, gen, sources }`) and
 * its postings file, built together so the offsets point at the JSON's own bytes.
 */
export function encodeShard(shard: number, gen: number, sources: readonly ShardSource[]): { json: Buffer; postings: Uint8Array } {
  const pieces: string[] = [`{"shard":${JSON.stringify(shard)},"gen":${JSON.stringify(gen)},"sources":[`];
  let pos = Buffer.byteLength(pieces[0]);
  const put = (s: string) => {
    pieces.push(s);
    pos += Buffer.byteLength(s);
  };
  const starts: number[] = [];
  const ends: number[] = [];
  const docLen: number[] = [];
  const termIds = new Map<string, number>();
  const postDocs: number[][] = [];
  const postTf: number[][] = [];
  let row = 0;
  sources.forEach((s, si) => {
    put(`${si ? ',' : ''}{"id":${JSON.stringify(s.id)},"contentHash":${JSON.stringify(s.contentHash)},"passages":[`);
    s.passages.forEach((p, pi) => {
      if (pi) put(',');
      starts.push(pos);
      put(JSON.stringify(p));
      ends.push(pos);
      const terms = p.k ? p.k.split(' ') : [];
      docLen.push(terms.length);
      const tf = new Map<number, number>();
      for (const term of terms) {
        let t = termIds.get(term);
        if (t === undefined) {
          t = postDocs.length;
          termIds.set(term, t);
          postDocs.push([]);
          postTf.push([]);
        }
        tf.set(t, (tf.get(t) ?? 0) + 1);
      }
      for (const [t, n] of tf) {
        postDocs[t].push(row);
        postTf[t].push(Math.min(n, 65535));
      }
      row++;
    });
    put(']}');
  });
  put(']}');
  const json = Buffer.from(pieces.join(''), 'utf8');
  if (json.length !== pos || pos > 0xffffffff) throw new PostingsFileError(`shard ${shard} cannot be laid out (${pos} bytes)`);

  const P = row;
  const T = postDocs.length;
  const N = postDocs.reduce((n, d) => n + d.length, 0);
  const termBytes = Buffer.from([...termIds.keys()].join('\n'), 'utf8');
  const header: PostingsHeader = {
    passages: P,
    terms: T,
    postings: N,
    jsonBytes: json.length,
    termBytes: termBytes.length,
    sources: sources.map((s) => ({ id: s.id, contentHash: s.contentHash, passages: s.passages.length })),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const layout = sections(headerBytes.length, P, T, N);
  const out = new Uint8Array(layout.termsAt + termBytes.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, POSTINGS_VERSION, true);
  dv.setUint32(8, headerBytes.length, true);
  out.set(headerBytes, 12);
  const u32 = (at: number, n: number) => new Uint32Array(out.buffer, at, n);
  u32(layout.docLen, P).set(docLen);
  u32(layout.jsonStart, P).set(starts);
  u32(layout.jsonEnd, P).set(ends);
  const hash = u32(layout.hash, P);
  for (let i = 0; i < P; i++) hash[i] = passageHash(json, starts[i], ends[i]);
  const off = u32(layout.postOff, T + 1);
  const docs = u32(layout.postDocs, N);
  const tfs = new Uint16Array(out.buffer, layout.postTf, N);
  let n = 0;
  for (let t = 0; t < T; t++) {
    off[t] = n;
    docs.set(postDocs[t], n);
    tfs.set(postTf[t], n);
    n += postDocs[t].length;
  }
  off[T] = n;
  out.set(termBytes, layout.termsAt);
  return { json, postings: out };
}

/**
 * The postings of passages held in memory (a library server's rows: index/server/read.ts), built
 * from their lexical terms as encodeShard builds them, without the JSON layout and byte file a
 * shard on disk needs: no passage is read from a file (jsonStart, jsonEnd and hash are zeros).
 */
export function memoryPostings(sources: readonly ShardSource[]): ShardPostings {
  const P = sources.reduce((n, s) => n + s.passages.length, 0);
  const docLen = new Uint32Array(P);
  const termIds = new Map<string, number>();
  const counts: number[] = [];
  // Two passes: term ids and posting counts, then the postings laid out in place (no array per term).
  const passageTerms: Int32Array[] = [];
  let row = 0;
  for (const s of sources)
    for (const p of s.passages) {
      const terms = p.k ? p.k.split(' ') : [];
      docLen[row++] = terms.length;
      const ids = new Int32Array(terms.length);
      terms.forEach((term, i) => {
        let t = termIds.get(term);
        if (t === undefined) {
          t = counts.length;
          termIds.set(term, t);
          counts.push(0);
        }
        ids[i] = t;
      });
      ids.sort();
      for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[i - 1]) counts[ids[i]]++;
      passageTerms.push(ids);
    }
  const T = counts.length;
  const postOff = new Uint32Array(T + 1);
  for (let t = 0; t < T; t++) postOff[t + 1] = postOff[t] + counts[t];
  const N = postOff[T];
  const postDocs = new Uint32Array(N);
  const postTf = new Uint16Array(N);
  const fill = postOff.slice(0, T);
  passageTerms.forEach((ids, doc) => {
    for (let i = 0; i < ids.length;) {
      let j = i + 1;
      while (j < ids.length && ids[j] === ids[i]) j++;
      const at = fill[ids[i]]++;
      postDocs[at] = doc;
      postTf[at] = Math.min(j - i, 65535);
      i = j;
    }
  });
  const zeros = new Uint32Array(P);
  return {
    header: {
      passages: P,
      terms: T,
      postings: N,
      jsonBytes: 0,
      termBytes: 0,
      sources: sources.map((s) => ({ id: s.id, contentHash: s.contentHash, passages: s.passages.length })),
    },
    docLen,
    jsonStart: zeros,
    jsonEnd: zeros,
    hash: zeros,
    postOff,
    postDocs,
    postTf,
    terms: [...termIds.keys()],
  };
}

function sections(headerLen: number, P: number, T: number, N: number) {
  const docLen = pad4(12 + headerLen);
  const jsonStart = docLen + 4 * P;
  const jsonEnd = jsonStart + 4 * P;
  const hash = jsonEnd + 4 * P;
  const postOff = hash + 4 * P;
  const postDocs = postOff + 4 * (T + 1);
  const postTf = postDocs + 4 * N;
  const termsAt = pad4(postTf + 2 * N);
  return { docLen, jsonStart, jsonEnd, hash, postOff, postDocs, postTf, termsAt };
}

/**
 * Decodes a postings file into views over `buf` (copied once when it is not 4-byte
 * aligned). Checks the layout, so a truncated or mangled file is an error, never a
 * wrong answer; the manifest's sha256 is checked by the caller.
 */
export function decodePostings(input: Uint8Array): ShardPostings {
  if (!LITTLE_ENDIAN) throw new PostingsFileError('this machine is big-endian; the shard is read from its JSON');
  const buf = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
  if (buf.length < 12) throw new PostingsFileError('truncated header');
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (dv.getUint32(0, true) !== MAGIC) throw new PostingsFileError('not a postings file');
  const version = dv.getUint32(4, true);
  if (version !== POSTINGS_VERSION) throw new PostingsFileError(`postings version ${version}, this version reads ${POSTINGS_VERSION}`);
  const headerLen = dv.getUint32(8, true);
  if (12 + headerLen > buf.length) throw new PostingsFileError('truncated header');
  let header: PostingsHeader;
  try {
    header = JSON.parse(Buffer.from(buf.buffer, buf.byteOffset + 12, headerLen).toString('utf8')) as PostingsHeader;
  } catch {
    throw new PostingsFileError('damaged header');
  }
  const { passages: P, terms: T, postings: N } = header;
  if (![P, T, N, header.jsonBytes, header.termBytes].every((x) => Number.isInteger(x) && x >= 0) || !Array.isArray(header.sources))
    throw new PostingsFileError('damaged header');
  if (header.sources.reduce((n, s) => n + s.passages, 0) !== P) throw new PostingsFileError('the sources do not add up to the passages');
  const layout = sections(headerLen, P, T, N);
  if (layout.termsAt + header.termBytes !== buf.length)
    throw new PostingsFileError(`${buf.length} bytes, the header says ${layout.termsAt + header.termBytes}`);
  const u32 = (at: number, n: number) => new Uint32Array(buf.buffer, buf.byteOffset + at, n);
  const postOff = u32(layout.postOff, T + 1);
  if (postOff[0] !== 0 || postOff[T] !== N) throw new PostingsFileError('damaged postings offsets');
  for (let t = 0; t < T; t++) if (postOff[t] > postOff[t + 1]) throw new PostingsFileError('damaged postings offsets');
  const postDocs = u32(layout.postDocs, N);
  for (let i = 0; i < N; i++) if (postDocs[i] >= P) throw new PostingsFileError('a posting points past the passages');
  const termText = Buffer.from(buf.buffer, buf.byteOffset + layout.termsAt, buf.length - layout.termsAt).toString('utf8');
  const terms = T === 0 ? [] : termText.split('\n');
  if (terms.length !== T) throw new PostingsFileError(`${terms.length} terms, the header says ${T}`);
  const jsonStart = u32(layout.jsonStart, P);
  const jsonEnd = u32(layout.jsonEnd, P);
  for (let i = 0; i < P; i++) if (jsonStart[i] > jsonEnd[i] || jsonEnd[i] > header.jsonBytes) throw new PostingsFileError('a passage lies outside its shard');
  return {
    header,
    docLen: u32(layout.docLen, P),
    jsonStart,
    jsonEnd,
    hash: u32(layout.hash, P),
    postOff,
    postDocs,
    postTf: new Uint16Array(buf.buffer, buf.byteOffset + layout.postTf, N),
    terms,
  };
}
