/**
 * The passage-shape measurement (scripts/measure-passage-shape.ts, issue 39 item 2): the chunker's
 * one-sentence overlap, the eval's chunk options reaching the indexer, and the provider that embeds
 * passages without their title or heading (the lexical side and the queries unchanged).
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import type { EmbeddingProvider, EmbedOptions } from '../../src/core/embedding/provider';
import { runBeirEval } from '../../src/core/eval/beir';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { chunkPages } from '../../src/core/passages/chunker';
import { embeddingText } from '../../src/core/retrieval/representation';
import { reshape, shapedProvider, shapeOf } from '../../scripts/measure-passage-shape';

const sentence = (i: number, words: number) => `Sentence ${i} ` + Array.from({ length: words - 3 }, (_, j) => `w${i}x${j}`).join(' ') + ' end.';

describe('passage shape (issue 39, item 2)', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'ss-shape-'));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('the chunker carries at most overlapSentences sentences into the next passage', () => {
    const body = Array.from({ length: 30 }, (_, i) => sentence(i, 10)).join(' ');
    const pages = [{ page: 1, blocks: [{ kind: 'text' as const, text: body }] }];
    const first = (t: string) => Number(/^Sentence (\d+) /.exec(t)![1]);
    const last = (t: string) => Number(/Sentence (\d+) [^S]*$/.exec(t)![1]);
    // 30 words of overlap is three 10-word sentences; one sentence when so limited.
    const wide = chunkPages(pages, { maxWords: 60, overlapWords: 30, minWords: 5 });
    const one = chunkPages(pages, { maxWords: 60, overlapWords: 30, overlapSentences: 1, minWords: 5 });
    for (let i = 1; i < wide.length; i++) assert.equal(first(wide[i].text), last(wide[i - 1].text) - 2);
    for (let i = 1; i < one.length; i++) assert.equal(first(one[i].text), last(one[i - 1].text));
    assert.ok(one.length < wide.length);
    // …whatever its length, when overlapWords leaves it free (the measurement's "one sentence").
    const long = [{ page: 1, blocks: [{ kind: 'text' as const, text: Array.from({ length: 12 }, (_, i) => sentence(i, 25)).join(' ') }] }];
    const ps = chunkPages(long, { ...shapeOf('overlap-1-sentence').chunk, maxWords: 60, minWords: 5 });
    for (let i = 1; i < ps.length; i++) assert.equal(first(ps[i].text), last(ps[i - 1].text));
    // The default overlap (35 words) carries no 40-word sentence.
    const wordy = [{ page: 1, blocks: [{ kind: 'text' as const, text: Array.from({ length: 12 }, (_, i) => sentence(i, 40)).join(' ') }] }];
    const d = chunkPages(wordy, { maxWords: 100 });
    for (let i = 1; i < d.length; i++) assert.equal(first(d[i].text), last(d[i - 1].text) + 1);
  });

  it('takes the title and the heading out of what is embedded, and only that', () => {
    const titles = new Set(['A title']);
    const seen = { headings: 0 };
    const withHeading = embeddingText({ sourceTitle: 'A title', heading: 'II. Licences', text: 'The text.' });
    const without = embeddingText({ sourceTitle: 'A title', text: 'The text.' });
    assert.equal(reshape(withHeading, shapeOf('no-title').embed, titles, seen), 'II. Licences\nThe text.');
    assert.equal(reshape(withHeading, shapeOf('no-heading').embed, titles, seen), 'A title\nThe text.');
    assert.equal(reshape(withHeading, shapeOf('text-only').embed, titles, seen), 'The text.');
    assert.equal(reshape(without, shapeOf('no-title').embed, titles, seen), 'The text.');
    assert.equal(seen.headings, 3);
    assert.throws(() => reshape('Another title\nThe text.', shapeOf('text-only').embed, titles, seen), /not a title/);
    assert.throws(() => shapeOf('words'), /unknown variant/);
    assert.deepEqual(shapeOf('words-120').chunk, { maxWords: 120 });
  });

  it('the eval indexes passages cut as asked and embeds them as asked; queries once', async () => {
    const beir = join(dir, 'beir');
    await fs.mkdir(join(beir, 'qrels'), { recursive: true });
    const docs = Array.from({ length: 6 }, (_, i) => ({
      _id: `d${i}`,
      title: `Title ${i}`,
      text: Array.from({ length: 40 }, (_, j) => sentence(100 * i + j, 15)).join(' '),
    }));
    await fs.writeFile(join(beir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n'));
    await fs.writeFile(join(beir, 'queries.jsonl'), JSON.stringify({ _id: 'q0', text: 'Sentence 205 w205x1 w205x2' }));
    await fs.writeFile(join(beir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq0\td2\t1\n');
    const base = new EmbeddedProvider();
    const calls: Array<{ kind?: string; texts: string[] }> = [];
    const recording: EmbeddingProvider = {
      id: base.id,
      model: base.model,
      key: base.key,
      dimension: () => base.dimension(),
      embed: async (texts: string[], o: EmbedOptions = {}) => {
        calls.push({ kind: o.kind, texts });
        return base.embed(texts, o);
      },
    };
    const titles = new Set(docs.map((d) => d.title));
    const queries = new Map<string, Float32Array>();
    const passages = async (variant: string) => {
      const shape = shapeOf(variant);
      const workspace = join(dir, variant);
      calls.length = 0;
      const r = await runBeirEval({
        dir: beir,
        split: 'test',
        provider: shapedProvider(recording, shape, titles, queries, { headings: 0 }),
        workspace,
        chunk: shape.chunk,
      });
      assert.equal(r.queries, 1);
      const m = await readManifest(indexDir(workspace));
      return {
        n: Object.values(m!.shards).reduce((s, x) => s + x.passages, 0),
        embedded: calls.filter((c) => c.kind !== 'query').flatMap((c) => c.texts),
        queried: calls.filter((c) => c.kind === 'query').length,
      };
    };
    const today = await passages('today');
    assert.equal(today.queried, 1);
    assert.ok(today.embedded.every((t) => /^Title \d\nSentence /.test(t)));
    const short = await passages('words-120');
    const long = await passages('words-260');
    assert.ok(short.n > today.n && today.n > long.n, `${short.n} > ${today.n} > ${long.n}`);
    const bare = await passages('text-only');
    assert.equal(bare.n, today.n);
    assert.ok(bare.embedded.length > 0 && bare.embedded.every((t) => /^Sentence /.test(t) && !t.includes('\n')));
    assert.equal(bare.queried, 0, 'the query vector is reused across variants');
  });
});
