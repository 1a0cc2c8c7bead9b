import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import type { SourceInput } from '../../src/core/index/source';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { updateIndex } from '../../src/core/index/write/indexer';
import { CHECKS_FILE } from '../../src/core/index/store/shardChecks';

const TOPICS = [
  'grain prices in the markets of Genoa',
  'the wool guilds of Florence',
  'silver from Potosí and Seville',
  'the salt tax of the French crown',
  'plague and hospitals in Milan',
  'ships and insurance in Venice',
  'the printing of almanacs in Lyon',
  'pilgrims on the road to Compostela',
];

/** A source of two pages, its text about `TOPICS[i]`; `variant` gives other text for the same file. */
function source(i: number, variant = 0, where = `source-${i}.pdf`): SourceInput {
  const about = TOPICS[i % TOPICS.length];
  const para = (n: number) =>
    `Paragraph ${n} of version ${variant} on ${about}. ` + `The records of ${about} were kept by clerks who wrote down every account. `.repeat(6);
  return {
    path: join('/library', where),
    size: 1000 + i + variant,
    mtimeMs: 1_700_000_000_000 + variant,
    sourceType: 'secondary',
    contentHash: `content-${i}-v${variant}`,
    extract: async () => ({
      pages: [1, 2].map((page) => ({ page, label: String(page), blocks: [0, 1, 2].map((b) => ({ kind: 'text' as const, text: para(page * 10 + b) })) })),
      pageCount: 2,
      meta: { title: `On ${about}`, authors: [`Author ${i}`], collections: [], titleFrom: 'pdf-info' as const },
    }),
  };
}

async function workspace() {
  return fs.mkdtemp(join(tmpdir(), 'ss-shards-'));
}

describe('index: shards read and written only where a change lands', function () {
  this.timeout(120_000);

  it('a changed file rewrites its own shard and the last one, and no other', async () => {
    const ws = await workspace();
    const lib = TOPICS.map((_, i) => source(i));
    const first = await updateIndex(lib, { workspace: ws, provider: new EmbeddedProvider(), shardCapacity: 8 });
    const before = (await readManifest(indexDir(ws)))!;
    const shards = Object.keys(before.shards);
    assert.ok(shards.length >= 4, `shards: ${shards.length}`);
    const changedShard = String(Object.values(before.sources).find((s) => s.contentHash === 'content-1-v0')!.shard);
    const last = String(Math.max(...shards.map(Number)));

    const r = await updateIndex(
      lib.map((x, i) => (i === 1 ? source(1, 1) : x)),
      { workspace: ws, provider: new EmbeddedProvider(), shardCapacity: 8 },
    );
    assert.deepEqual([r.updated, r.unchanged, r.passages], [1, TOPICS.length - 1, first.passages]);
    const after = (await readManifest(indexDir(ws)))!;
    const rewritten = Object.keys(after.shards).filter((k) => after.shards[k].gen !== before.shards[k]?.gen);
    // Its own shard (emptied, it may take the new version) and at most the one being filled.
    assert.ok(rewritten.includes(changedShard), `rewritten: ${rewritten}`);
    assert.ok(rewritten.length <= 2 && rewritten.every((k) => k === changedShard || k === last || !before.shards[k]), `rewritten: ${rewritten}`);
    const idx = await LibraryIndex.open(ws, new EmbeddedProvider());
    assert.equal(idx.size, first.passages);
    assert.ok(idx.passages.some((p) => p.text.includes('of version 1 on the wool guilds')));
    assert.ok(!idx.passages.some((p) => p.text.includes('of version 0 on the wool guilds')));
  });

  it('a moved file keeps its vectors even when commits come between its removal and its return', async () => {
    const ws = await workspace();
    const lib = TOPICS.map((_, i) => source(i));
    // Shards of a few sources each: the moved one's shard is rewritten (with its neighbours) at the first commit.
    await updateIndex(lib, { workspace: ws, provider: new EmbeddedProvider(), shardCapacity: 20 });
    const m0 = (await readManifest(indexDir(ws)))!;
    assert.ok(Object.values(m0.sources).filter((s) => s.shard === 0).length >= 2);
    // Two files changed, read first, each committed on its own; then source 0 under another name.
    const next = [source(2, 1), source(3, 1), ...lib.slice(4), source(0, 0, 'moved/source-0.pdf'), lib[1]];
    const r = await updateIndex(next, { workspace: ws, provider: new EmbeddedProvider(), shardCapacity: 20, commitEvery: 1 });
    const m = (await readManifest(indexDir(ws)))!;
    const changedPassages = Object.values(m.sources)
      .filter((s) => s.contentHash.endsWith('-v1'))
      .reduce((n, s) => n + s.passages, 0);
    assert.deepEqual([r.moved, r.updated, r.removed], [1, 2, 0]);
    assert.equal(r.embedded, changedPassages, 'only the changed files were embedded');
    const idx = await LibraryIndex.open(ws, new EmbeddedProvider());
    assert.ok(idx.sources.some((s) => s.path.endsWith('moved/source-0.pdf')));
    assert.equal((await idx.search('grain prices in the markets of Genoa', { k: 1 }))[0].sourceRecord.path, join('/library', 'moved/source-0.pdf'));
  });

  it('a damaged record of checked files costs one hashing, nothing else', async () => {
    const ws = await workspace();
    const lib = TOPICS.map((_, i) => source(i));
    await updateIndex(lib, { workspace: ws, provider: new EmbeddedProvider(), shardCapacity: 8 });
    const file = join(indexDir(ws), CHECKS_FILE);
    const m = (await readManifest(indexDir(ws)))!;
    // A passage shard, its postings file where the version writes one, and a vector shard each.
    const live = Object.values(m.shards).reduce((n, s) => n + 2 + ((s as { postings?: unknown }).postings ? 1 : 0), 0);
    assert.equal(Object.keys(JSON.parse(await fs.readFile(file, 'utf8'))).length, live, 'one entry per index file');
    await fs.writeFile(file, '{"half');
    const warnings: string[] = [];
    const r = await updateIndex(lib, { workspace: ws, provider: new EmbeddedProvider(), shardCapacity: 8, onWarning: (w) => warnings.push(w) });
    assert.deepEqual([r.unchanged, r.embedded, warnings.length], [TOPICS.length, 0, 0]);
    assert.equal(Object.keys(JSON.parse(await fs.readFile(file, 'utf8'))).length, live, 'written again after the hashing');
  });
});
