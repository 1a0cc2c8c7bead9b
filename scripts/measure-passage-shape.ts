/**
 * Issue 39, item 2: what of a passage is embedded (source title, heading path, text) and how long
 * passages are (maxWords, overlap), measured on the development sets.
 * `npx tsx scripts/measure-passage-shape.ts [--providers embedded,local] [--model <folder>]
 *   [--sets scifact:train,xling-dev/en2fr,xling-dev/fr2en] [--variants today,text-only,words-120,…]
 *   [--subset-every N] [--json <file>]`
 *
 * Each variant is the product's eval (runBeirEval: its passages, index, BM25, fusion) in a fresh
 * workspace under the temp folder, with one thing changed:
 * - what is embedded (`today`: title, heading, text as `embeddingText` joins them; `no-title`:
 *   heading and text; `no-heading`: title and text; `text-only`). The lexical terms are the
 *   product's in every variant (title twice, heading once): only the vectors change. The provider
 *   is wrapped: the passage text `embeddingText` made is taken apart again (its first line must be
 *   the source's title, a third line means a heading) and joined without the parts left out.
 * - how passages are cut (`words-N`: maxWords N, the overlap and the stub merge as today;
 *   `overlap-0`; `overlap-1-sentence`: the previous passage's last sentence, whatever its length).
 * A BEIR record has no heading (one page, one text block), so on these sets `no-heading` is `today`
 * and `no-title` is `text-only`; the script counts the headings it met and says so. A record with no
 * title gets its id as title (docInput, as a PDF without one gets its file name).
 * Query vectors do not depend on the passages: they are computed once per provider and set.
 * `--subset-every N`: the corpus cut to the documents the split's qrels judge plus every N-th other
 * one (a local model on 2 cores embeds ~10 passages/s); the table says so.
 * Prints nDCG@10 fused and vectors alone, the fused recall@100 and MRR@10, BM25 alone, and the
 * passages each variant made. Needs dist/ (npm run build) and, for `local`, a provisioned model
 * (npm run models:real).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { LocalProvider } from '../src/core/embedding/local/localProvider';
import type { EmbeddingProvider, EmbedOptions } from '../src/core/embedding/provider';
import { loadBeir, runBeirEval, type BeirEvalResult } from '../src/core/eval/beir';
import { indexDir, readManifest } from '../src/core/index/store/manifest';
import type { ChunkOptions } from '../src/core/passages/chunker';
import { DATA, E5, opt } from './bench/measureArgs';

export interface Shape {
  /** What of a passage is embedded. */
  embed: { title: boolean; heading: boolean };
  chunk?: Partial<ChunkOptions>;
}

/** The variants by name: `words-N` for any N. */
export function shapeOf(name: string): Shape {
  const all = { title: true, heading: true };
  const m = /^words-(\d+)$/.exec(name);
  if (m) return { embed: all, chunk: { maxWords: Number(m[1]) } };
  switch (name) {
    case 'today':
      return { embed: all };
    case 'no-title':
      return { embed: { title: false, heading: true } };
    case 'no-heading':
      return { embed: { title: true, heading: false } };
    case 'text-only':
      return { embed: { title: false, heading: false } };
    case 'overlap-0':
      return { embed: all, chunk: { overlapWords: 0 } };
    case 'overlap-1-sentence':
      // Any length that fits (the chunker still drops an overlap that leaves no room), one sentence.
      return { embed: all, chunk: { overlapWords: 1e9, overlapSentences: 1 } };
    default:
      throw new Error(`unknown variant "${name}" (today, no-title, no-heading, text-only, words-N, overlap-0, overlap-1-sentence)`);
  }
}

/**
 * `embeddingText`'s output (title, then the heading if any, then the text, one per line) with the
 * parts `keep` leaves out taken away. `titles`: every source's title, to check the first line is one.
 */
export function reshape(text: string, keep: Shape['embed'], titles: Set<string>, seen: { headings: number }): string {
  const lines = text.split('\n');
  if (!titles.has(lines[0]) || lines.length < 2 || lines.length > 3) {
    throw new Error(`not a title, (a heading,) a text: ${JSON.stringify(text.slice(0, 120))}`);
  }
  const heading = lines.length === 3 ? lines[1] : undefined;
  if (heading !== undefined) seen.headings++;
  return [keep.title ? lines[0] : '', keep.heading ? heading : '', lines[lines.length - 1]].filter((s) => s).join('\n');
}

/** `base` with passages embedded as `shape` says and query vectors kept in `queries` across variants. */
export function shapedProvider(
  base: EmbeddingProvider,
  shape: Shape,
  titles: Set<string>,
  queries: Map<string, Float32Array>,
  seen: { headings: number },
): EmbeddingProvider {
  const whole = shape.embed.title && shape.embed.heading;
  return {
    id: base.id,
    model: base.model,
    key: base.key,
    ...(base.queryKey ? { queryKey: base.queryKey } : {}),
    dimension: (signal) => base.dimension(signal),
    embed: async (texts: string[], o: EmbedOptions = {}) => {
      if (o.kind === 'query') {
        const missing = [...new Set(texts.filter((t) => !queries.has(t)))];
        if (missing.length) (await base.embed(missing, o)).forEach((v, i) => queries.set(missing[i], v));
        return texts.map((t) => queries.get(t)!);
      }
      return base.embed(whole ? texts : texts.map((t) => reshape(t, shape.embed, titles, seen)), o);
    },
  };
}

/** A BEIR folder with the documents the split judges and every `every`-th other one (same queries and qrels). */
async function subset(dir: string, split: string, every: number, into: string): Promise<string> {
  const { qrels } = await loadBeir(dir, split);
  const judged = new Set<string>();
  for (const rel of qrels.values()) for (const id of rel.keys()) judged.add(id);
  let other = 0;
  const lines = readFileSync(join(dir, 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .filter((l) => judged.has(String((JSON.parse(l) as { _id: string })._id)) || other++ % every === 0);
  mkdirSync(join(into, 'qrels'), { recursive: true });
  writeFileSync(join(into, 'corpus.jsonl'), lines.join('\n') + '\n');
  writeFileSync(join(into, 'queries.jsonl'), readFileSync(join(dir, 'queries.jsonl')));
  writeFileSync(join(into, 'qrels', `${split}.tsv`), readFileSync(join(dir, 'qrels', `${split}.tsv`)));
  return into;
}

async function main(): Promise<void> {
  const MODEL = opt('model') ?? E5;
  const providers = (opt('providers') ?? 'embedded').split(',');
  const sets = (opt('sets') ?? 'scifact:train,xling-dev/en2fr,xling-dev/fr2en').split(',');
  const variants = (opt('variants') ?? 'today,text-only,words-120,words-260,overlap-0,overlap-1-sentence').split(',');
  variants.forEach(shapeOf); // unknown names fail before any work
  const every = opt('subset-every') ? Number(opt('subset-every')) : undefined;
  const jsonFile = opt('json');
  const root = mkdtempSync(join(tmpdir(), 'ss-passage-shape-'));
  const rows: Array<Record<string, unknown>> = [];
  console.log(
    '| provider | set | variant | passages | nDCG@10 fused | vectors alone | BM25 alone | fused recall@100 | fused MRR@10 |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const name of providers) {
    const base: EmbeddingProvider & { close?: () => Promise<void> } =
      name === 'embedded' ? new EmbeddedProvider() : new LocalProvider({ model: MODEL, modelDir: MODEL, workerFile: resolve('dist/local-embed-worker.js') });
    try {
      for (const spec of sets) {
        const [set, split = 'test'] = spec.split(':');
        const slug = set.replace(/\W+/g, '-');
        const dir = every ? await subset(join(DATA, set), split, every, join(root, `${slug}-subset`)) : join(DATA, set);
        const { corpus } = await loadBeir(dir, split);
        const titles = new Set(corpus.map((d) => d.title || d.id));
        const label = every ? `${set} (${split}; ${corpus.length} docs: judged + every ${every}th)` : `${set} (${split}; ${corpus.length} docs)`;
        const queries = new Map<string, Float32Array>();
        for (const variant of variants) {
          const shape = shapeOf(variant);
          const seen = { headings: 0 };
          const workspace = join(root, `${name}-${slug}-${variant}`);
          const t0 = Date.now();
          const r: BeirEvalResult = await runBeirEval({
            dir,
            split,
            provider: shapedProvider(base, shape, titles, queries, seen),
            workspace,
            deferEmbedding: name !== 'embedded',
            chunk: shape.chunk,
            onProgress: (m) => process.stderr.write(`  ${name} ${set} ${variant}: ${m}\n`),
          });
          const m = await readManifest(indexDir(workspace));
          const passages = Object.values(m?.shards ?? {}).reduce((n, s) => n + s.passages, 0);
          const f = (x: number) => x.toFixed(4);
          console.log(
            `| ${name} | ${label} | ${variant} | ${passages} | ${f(r['ndcg@10'])} | ${f(r.vectorOnly['ndcg@10'])} | ${f(r.lexicalOnly['ndcg@10'])} | ${f(r['recall@100'])} | ${f(r['mrr@10'])} |`,
          );
          process.stderr.write(`  (${Math.round((Date.now() - t0) / 1000)} s; headings embedded: ${seen.headings})\n`);
          rows.push({ provider: name, set, split, docs: corpus.length, subsetEvery: every ?? null, variant, passages, headings: seen.headings, result: r });
          if (jsonFile) writeFileSync(jsonFile, JSON.stringify(rows, null, 1));
        }
      }
    } finally {
      await base.close?.();
    }
  }
}

if (require.main === module) {
  main().catch((e: Error) => {
    console.error(e.stack ?? e.message);
    process.exit(1);
  });
}
