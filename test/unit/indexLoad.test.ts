import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import type { SourceInput } from '../../src/core/index/source';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { IndexGenerationGone, indexDir, readManifest, writeManifest, type Manifest } from '../../src/core/index/store/manifest';
import { decodePostings, encodeShard, memoryPostings, passageHash, PostingsFileError } from '../../src/core/index/store/postingsFile';
import { CHECKS_FILE } from '../../src/core/index/store/shardChecks';
import { readPassageShard, readShardPostings, VECTOR_FILE, type ShardSource } from '../../src/core/index/store/shards';
import { decodeVectorFile, encodeVectorFile } from '../../src/core/index/store/vectorFile';
import { updateIndex } from '../../src/core/index/write/indexer';
import { Bm25Index } from '../../src/core/retrieval/bm25';
import { PostingsIndex } from '../../src/core/retrieval/postingsIndex';
import { queryTerms } from '../../src/core/retrieval/representation';
import { sha256 } from '../../src/core/util/hash';

/** Seeded words, so every run builds the same library. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const EN =
  'grain trade merchants harvest famine bread prices ships harbour Venice Genoa council bishop letters archive plague taxes silk cotton river monastery ledger credit debt war treaty'.split(
    ' ',
  );
const FR =
  'blé commerce marchands récolte disette pain prix navires port conseil évêque lettres archives peste impôts soie coton rivière monastère registre crédit dette guerre traité'.split(
    ' ',
  );
const QUERIES = [
  'grain trade of Venice and the famine',
  'bishop letters in the archive',
  'les marchands de blé et la disette',
  'silk and cotton credit in Genoa',
  'plague taxes war treaty harbour',
  'registre du monastère et crédit',
];

function sentence(r: () => number, words: string[], n: number): string {
  const w = Array.from({ length: n }, () => words[Math.floor(r() * words.length)]);
  return w.join(' ').replace(/^./, (c) => c.toUpperCase()) + '.';
}

/** A library of `n` sources, a third in French, each a few pages of paragraphs (no PDF involved: extract builds the pages). */
function inputs(root: string, n: number, extracted: { count: number }): SourceInput[] {
  return Array.from({ length: n }, (_, i) => {
    const r = rng(i + 1);
    const words = i % 3 === 2 ? FR : EN;
    const pages = Array.from({ length: 3 }, (_, p) => ({
      page: p + 1,
      label: `${p + 11}`,
      blocks: Array.from({ length: 4 }, () => ({ text: Array.from({ length: 5 }, () => sentence(r, words, 8 + Math.floor(r() * 10))).join(' ') })),
    }));
    return {
      path: join(root, 'library', `source-${i}.pdf`),
      size: 1000 + i,
      mtimeMs: 1_600_000_000_000,
      sourceType: 'secondary',
      contentHash: `synthetic-${i}`,
      extract: async () => {
        extracted.count++;
        return {
          pages,
          pageCount: pages.length,
          meta: {
            title: `Source ${i} on ${words[i % words.length]}`,
            authors: [`Author ${i}`],
            year: 1990 + i,
            citekey: `source${i}`,
            collections: [],
            titleFrom: 'pdf-info',
          },
        };
      },
    } as unknown as SourceInput;
  });
}

async function build(n = 24, shardCapacity = 20) {
  const root = await fs.mkdtemp(join(tmpdir(), 'ss-load-'));
  const extracted = { count: 0 };
  const list = inputs(root, n, extracted);
  await updateIndex(list, { workspace: root, provider: new EmbeddedProvider(), shardCapacity });
  return { root, dir: indexDir(root), list, extracted };
}

/** Everything a search gives back, scores included. */
async function results(index: LibraryIndex): Promise<string> {
  const out = [];
  for (const q of QUERIES) out.push(await index.search(q, { k: 15 }));
  out.push(
    await index.searchMany(
      QUERIES.map((text) => ({ text })),
      { k: 10 },
    ),
  );
  const overlap = index.overlap(QUERIES[0]);
  out.push(Array.from({ length: index.size }, (_, row) => overlap.of(row)));
  return JSON.stringify(out);
}

/** The index as written before postings files existed: no `postings` in the manifest, no files. */
async function withoutPostings(dir: string): Promise<Manifest> {
  const m = (await readManifest(dir))!;
  for (const s of Object.values(m.shards)) {
    if (s.postings) await fs.rm(join(dir, s.postings.file), { force: true });
    delete s.postings;
  }
  await writeManifest(dir, m);
  return m;
}

describe('index load: postings files', function () {
  this.timeout(120_000);

  it('round trip: the JSON is the shard as JSON.stringify writes it, and the postings and offsets are those of its passages', () => {
    const sources: ShardSource[] = [
      {
        id: 'a',
        contentHash: 'h1',
        passages: [
          { p: 1, e: 1, t: 'Grain « prix » du blé — 1708', k: 'grain prix ble 1708 grain', l: 'iv', h: 'Chapitre' },
          { p: 2, e: 3, t: 'Ships and bread', k: 'ship bread', o: 1 },
        ],
      },
      {
        id: 'b"quoted',
        contentHash: 'h2',
        passages: [
          { p: 1, e: 1, t: 'Empty terms', k: '' },
          { p: 2, e: 2, t: 'bread again', k: 'bread bread bread' },
        ],
      },
    ];
    const { json, postings } = encodeShard(7, 3, sources);
    assert.equal(json.toString('utf8'), JSON.stringify({ shard: 7, gen: 3, sources }));
    const d = decodePostings(postings);
    assert.deepEqual(d.header.sources, [
      { id: 'a', contentHash: 'h1', passages: 2 },
      { id: 'b"quoted', contentHash: 'h2', passages: 2 },
    ]);
    assert.deepEqual([...d.docLen], [5, 2, 0, 3]);
    const all = sources.flatMap((s) => s.passages);
    all.forEach((p, row) => {
      assert.deepEqual(JSON.parse(json.subarray(d.jsonStart[row], d.jsonEnd[row]).toString('utf8')), p);
      assert.equal(d.hash[row], passageHash(json, d.jsonStart[row], d.jsonEnd[row]));
    });
    const postingsOf = (term: string) => {
      const t = d.terms.indexOf(term);
      return Array.from({ length: d.postOff[t + 1] - d.postOff[t] }, (_, i) => [d.postDocs[d.postOff[t] + i], d.postTf[d.postOff[t] + i]]);
    };
    assert.deepEqual(postingsOf('grain'), [[0, 2]]);
    assert.deepEqual(postingsOf('bread'), [
      [1, 1],
      [3, 3],
    ]);
    assert.equal(d.terms.length, new Set(all.flatMap((p) => (p.k ? p.k.split(' ') : []))).size);

    // A library server's rows, held in memory: the same postings, built without the file.
    const m = memoryPostings(sources);
    assert.deepEqual(m.header, { ...d.header, jsonBytes: 0, termBytes: 0 });
    assert.deepEqual(
      [m.terms, [...m.docLen], [...m.postOff], [...m.postDocs], [...m.postTf]],
      [d.terms, [...d.docLen], [...d.postOff], [...d.postDocs], [...d.postTf]],
    );
  });

  it('a truncated, mangled or other-version file is refused, never misread', () => {
    const { postings } = encodeShard(0, 1, [{ id: 'a', contentHash: 'h', passages: [{ p: 1, e: 1, t: 'x', k: 'grain bread' }] }]);
    for (let cut = 0; cut < postings.length; cut++) assert.throws(() => decodePostings(postings.subarray(0, cut)), PostingsFileError, `cut at ${cut}`);
    const badMagic = Uint8Array.from(postings);
    badMagic[0] ^= 1;
    assert.throws(() => decodePostings(badMagic), /not a postings file/);
    const otherVersion = Uint8Array.from(postings);
    otherVersion[4] = 99;
    assert.throws(() => decodePostings(otherVersion), /version 99/);
    const offset = Uint8Array.from(postings);
    const d = decodePostings(Uint8Array.from(postings));
    // A posting pointing past the passages.
    const at = d.postDocs.byteOffset;
    new DataView(offset.buffer).setUint32(at, 5, true);
    assert.throws(() => decodePostings(offset), /past the passages/);
  });

  it('ranks exactly as Bm25Index: same hits, same scores, same overlaps', () => {
    const r = rng(42);
    const docs = Array.from({ length: 300 }, (_, i) =>
      Array.from({ length: 5 + Math.floor(r() * 40) }, () => (i % 4 === 0 ? FR : EN)[Math.floor(r() * 20)].toLowerCase()),
    );
    docs[17] = [];
    const bm = new Bm25Index();
    docs.forEach((d, i) => bm.add(i, d));
    // Three shards of postings, as the stored files hold them.
    const parts = [docs.slice(0, 100), docs.slice(100, 250), docs.slice(250)].map((chunk) => {
      const { postings } = encodeShard(0, 1, [{ id: 's', contentHash: 'h', passages: chunk.map((d) => ({ p: 1, e: 1, t: '', k: d.join(' ') })) }]);
      return decodePostings(postings);
    });
    const pi = PostingsIndex.build(parts, (row) => docs[row]);
    assert.equal(pi.size, bm.size);
    assert.equal(pi.averageLength, bm.averageLength);
    for (const q of [...QUERIES, 'grain grain bread', 'nothing-here']) {
      const terms = q.toLowerCase().split(' ');
      assert.deepEqual(pi.search(terms, 50), bm.search(terms, 50), q);
      assert.deepEqual(
        pi.search(terms, 7, (d) => d % 2 === 0),
        bm.search(terms, 7, (d) => d % 2 === 0),
        q,
      );
      for (const t of terms) assert.equal(pi.idf(t), bm.idf(t));
      const a = pi.overlapWith(terms);
      const b = bm.overlapWith(terms);
      assert.equal(a.terms, b.terms);
      for (let d = 0; d < docs.length; d++) assert.deepEqual(a.of(d), b.of(d));
    }
  });

  it('ranks exactly as Bm25Index across several blocks of documents, with ties at the k-th place', () => {
    // 150k documents: scoreAll adds them 65,536 at a time. Every 997th document repeats an
    // earlier one, so equal scores meet at the cut whatever the k; Zipf-like words, as in prose.
    const r = rng(7);
    const vocab = Array.from({ length: 400 }, (_, i) => `w${i}`);
    const word = () => vocab[Math.floor(vocab.length * r() ** 3)];
    const docs: string[][] = [];
    for (let i = 0; i < 150_000; i++) docs.push(i % 997 === 996 ? docs[i - 500] : Array.from({ length: 3 + Math.floor(r() * 9) }, word));
    const bm = new Bm25Index();
    docs.forEach((d, i) => bm.add(i, d));
    const parts = [docs.slice(0, 70_000), docs.slice(70_000)].map((chunk) => {
      const { postings } = encodeShard(0, 1, [{ id: 's', contentHash: 'h', passages: chunk.map((d) => ({ p: 1, e: 1, t: '', k: d.join(' ') })) }]);
      return decodePostings(postings);
    });
    const pi = PostingsIndex.build(parts, (row) => docs[row]);
    let tied = 0;
    for (let q = 0; q < 60; q++) {
      // Short queries, and paragraph-long ones whose commonest words are looked up last.
      const terms = Array.from({ length: q < 30 ? 1 + (q % 12) : 20 + q }, word);
      for (const k of [1, 10, 100]) {
        const got = pi.search(terms, k);
        assert.deepEqual(got, bm.search(terms, k), `${terms.join(' ')} k=${k}`);
        if (got.length === k && got.filter((h) => h.score === got[k - 1].score).length > 1) tied++;
      }
      assert.deepEqual(
        pi.search(terms, 20, (d) => d % 3 === 0),
        bm.search(terms, 20, (d) => d % 3 === 0),
      );
    }
    assert.ok(tied > 0, 'some cut fell between equal scores');
    assert.ok(pi.lightTermsDeferred >= 20, `long queries looked their lightest terms up last (${pi.lightTermsDeferred})`);
  });

  it('an index opened from its postings files answers exactly as one read from its JSON shards (the old way)', async () => {
    const { root, dir } = await build();
    const m = (await readManifest(dir))!;
    assert.ok(Object.keys(m.shards).length >= 3, 'several shards');
    for (const s of Object.values(m.shards)) assert.ok(s.postings && (await readShardPostings(dir, s)), `shard ${s.file} has its postings file`);
    const fast = await LibraryIndex.open(root, new EmbeddedProvider());
    const viaPostings = await results(fast);
    const passages = JSON.stringify(fast.passages);
    // Every passage as the JSON holds it, in row order.
    const fromJson: string[] = [];
    for (const k of Object.keys(m.shards).sort((a, b) => Number(a) - Number(b)))
      for (const s of await readPassageShard(dir, m.shards[k])) for (const p of s.passages) fromJson.push(p.t);
    assert.deepEqual(
      fast.passages.map((p) => p.text),
      fromJson,
    );
    fast.close();

    await withoutPostings(dir);
    const old = await LibraryIndex.open(root, new EmbeddedProvider());
    assert.equal(await results(old), viaPostings);
    assert.equal(JSON.stringify(old.passages), passages);
    old.close();
  });

  it('an index from before postings files is upgraded by the next run, from its shards, without reading a PDF again', async () => {
    const { root, dir, list, extracted } = await build();
    const reference = await results(await LibraryIndex.open(root, new EmbeddedProvider()));
    const before = await withoutPostings(dir);
    const read = extracted.count;
    await updateIndex(list, { workspace: root, provider: new EmbeddedProvider(), shardCapacity: 20 });
    assert.equal(extracted.count, read, 'no PDF read again');
    const after = (await readManifest(dir))!;
    for (const [k, s] of Object.entries(after.shards)) {
      assert.equal(s.gen, before.shards[k].gen, 'the JSON shard is kept as it was');
      assert.ok(await readShardPostings(dir, s), `shard ${k} got its postings file`);
    }
    assert.equal(await results(await LibraryIndex.open(root, new EmbeddedProvider())), reference);
  });

  it('a damaged or truncated postings file is never read: the JSON answers, and the next run writes the file again', async () => {
    const { root, dir, list } = await build();
    const reference = await results(await LibraryIndex.open(root, new EmbeddedProvider()));
    const m = (await readManifest(dir))!;
    const [first, second] = Object.values(m.shards);
    const f1 = join(dir, first.postings!.file);
    const bytes = await fs.readFile(f1);
    await fs.writeFile(f1, bytes.subarray(0, bytes.length >> 1)); // truncated
    const f2 = join(dir, second.postings!.file);
    const b2 = await fs.readFile(f2);
    b2[b2.length - 3] ^= 0x20; // one term changed
    await fs.writeFile(f2, b2);
    assert.equal(await readShardPostings(dir, first), undefined);
    assert.equal(await readShardPostings(dir, second), undefined);
    assert.equal(await results(await LibraryIndex.open(root, new EmbeddedProvider())), reference);
    await updateIndex(list, { workspace: root, provider: new EmbeddedProvider(), shardCapacity: 20 });
    const after = (await readManifest(dir))!;
    for (const s of Object.values(after.shards)) assert.ok(await readShardPostings(dir, s), `${s.file}: postings file written again`);
    assert.equal(await results(await LibraryIndex.open(root, new EmbeddedProvider())), reference);
  });

  it("a vector file changed since the writer hashed it is found damaged on load; one the writer's checks vouch for is not hashed again", async () => {
    const { root, dir } = await build();
    const m = (await readManifest(dir))!;
    const rec = Object.values(Object.values(m.vectors)[0].shards)[0];
    const rel = `${rec.dir}/${VECTOR_FILE}`;
    const file = join(dir, rel);
    const checks = JSON.parse(await fs.readFile(join(dir, CHECKS_FILE), 'utf8')) as Record<string, [number, number, string]>;
    assert.equal(checks[rel]?.[2], rec.sha256, 'the writer recorded the file it wrote');
    const bytes = await fs.readFile(file);
    bytes[bytes.length - 7] ^= 0x40; // a bit of a float: same size, no layout error
    await fs.writeFile(file, bytes);
    // A time of its own even where the clock's tick is coarser than this test is quick.
    await fs.utimes(file, new Date(), new Date(checks[rel][1] + 5000));
    await assert.rejects(
      LibraryIndex.open(root, new EmbeddedProvider()),
      (e: Error) => /checksum mismatch/.test(e.message) || /checksum mismatch/.test(String((e as { cause?: Error }).cause?.message)),
    );
    // The same bytes, recorded by a writer as checked (size and time): the load trusts the check
    // as the writer does, and reads the file without hashing it.
    const st = await fs.stat(file);
    await fs.writeFile(join(dir, CHECKS_FILE), JSON.stringify({ ...checks, [rel]: [st.size, st.mtimeMs, rec.sha256] }));
    const index = await LibraryIndex.open(root, new EmbeddedProvider());
    assert.ok(index.size > 0);
    index.close();
  });

  it('vectors stored in another order are matched by id, not by position', async () => {
    const { root, dir } = await build();
    const reference = await results(await LibraryIndex.open(root, new EmbeddedProvider()));
    const m = (await readManifest(dir))!;
    const set = Object.values(m.vectors)[0];
    for (const rec of Object.values(set.shards)) {
      const file = join(dir, rec.dir, VECTOR_FILE);
      const d = decodeVectorFile(await fs.readFile(file));
      const items = d.ids.map((id, n) => ({ id, vector: d.vectors.slice(n * d.dim, (n + 1) * d.dim) })).reverse();
      const bytes = encodeVectorFile(items);
      await fs.writeFile(file, bytes);
      rec.sha256 = sha256(bytes);
    }
    await writeManifest(dir, m);
    assert.equal(await results(await LibraryIndex.open(root, new EmbeddedProvider())), reference);
  });

  it('a passage of a generation a newer commit removed is "gone" (open again), not damage', async () => {
    const { root, list } = await build();
    const index = await LibraryIndex.open(root, new EmbeddedProvider());
    // Another run removes the first source: its shard is written again, and this generation's file removed.
    await updateIndex(list.slice(1), { workspace: root, provider: new EmbeddedProvider(), shardCapacity: 20 });
    assert.throws(
      () => index.passage(0),
      (e: Error) => e instanceof IndexGenerationGone && /is gone .*open it again/.test(e.message),
    );
    index.close();
    const again = await LibraryIndex.open(root, new EmbeddedProvider());
    assert.ok(again.passage(again.size - 1).text.length > 0, 'opened again, it reads');
    again.close();
  });

  it('a passage whose bytes changed under the index is an error when read, not another text', async () => {
    const { root, dir } = await build();
    const index = await LibraryIndex.open(root, new EmbeddedProvider());
    const m = (await readManifest(dir))!;
    const shard = m.shards[Object.keys(m.shards).sort((a, b) => Number(a) - Number(b))[0]];
    const file = join(dir, shard.file);
    const text = await fs.readFile(file, 'utf8');
    // Same length, one letter changed: offsets still fit, the hash does not.
    await fs.writeFile(
      file,
      text.replace(/"t":"(.)/, (_, c: string) => `"t":"${c === 'X' ? 'Y' : 'X'}`),
    );
    assert.throws(() => index.passage(0), /damaged/);
    assert.ok(index.passage(index.size - 1).text.length > 0, 'the other shards still read');
    index.close();
    assert.ok(queryTerms(QUERIES[0]).length > 0);
  });
});

describe('index load: vector locations', () => {
  it('finds each id and vector where it lies, and compares ids on their bytes', async () => {
    const { locateVectors } = await import('../../src/core/index/store/vectorFile');
    const items = ['abc:0', 'abc:9', 'abc:10', 'abc:123', 'é:1'].map((id, n) => ({ id, vector: Float32Array.from([n, n + 0.5, -n]) }));
    const buf = Buffer.from(encodeVectorFile(items));
    const loc = locateVectors(buf)!;
    assert.equal(loc.count, 5);
    assert.equal(loc.dim, 3);
    items.forEach((it, n) => {
      assert.equal(loc.id(n), it.id);
      assert.deepEqual(new Float32Array(Uint8Array.from(buf.subarray(loc.at[n], loc.at[n] + 12)).buffer), it.vector);
    });
    assert.ok(loc.idIs(0, 'abc', 0) && loc.idIs(1, 'abc', 9) && loc.idIs(2, 'abc', 10) && loc.idIs(3, 'abc', 123));
    assert.ok(!loc.idIs(2, 'abc', 1) && !loc.idIs(2, 'abc', 100) && !loc.idIs(3, 'ab', 123) && !loc.idIs(0, 'abd', 0) && !loc.idIs(4, 'é', 1));
  });
});
