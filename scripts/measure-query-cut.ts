/**
 * Issue 39, item 2: does cutting a paragraph-long query into sentences help the local model?
 * `npx tsx scripts/measure-query-cut.ts [--model <folder>] [--sets xling-dev/en2fr,xling-dev/fr2en]`
 *
 * On each BEIR set, the product's eval (runBeirEval: its index, fusion and BM25) with the query
 * embedded three ways by the same LocalProvider (the corpus's vectors are computed once, in a
 * workspace under the temp folder): whole (the product), the mean of its sentences' vectors, and
 * the whole weighted as much as all its sentences together. Prints nDCG@10 fused and vectors alone.
 * Needs dist/ (npm run build) and a provisioned model (npm run models:real).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LocalProvider } from '../src/core/embedding/local/localProvider';
import type { EmbedOptions } from '../src/core/embedding/provider';
import { runBeirEval } from '../src/core/eval/beir';
import { DATA, E5, opt } from './bench/measureArgs';

const MODEL = opt('model') ?? E5;
const SETS = (opt('sets') ?? 'xling-dev/en2fr,xling-dev/fr2en').split(',');

/** Sentences: a stop, then a space and a capital. */
const sentences = (t: string) => t.split(/(?<=[.!?])\s+(?=[A-ZÀ-Ý])/).filter((s) => s.trim());

type Mode = 'whole' | 'mean of sentences' | 'whole + mean of sentences';

/** The provider with its queries embedded the `mode` way (passages unchanged: the same index serves all three). */
function queriesAs(base: LocalProvider, mode: Mode): LocalProvider {
  if (mode === 'whole') return base;
  const p = Object.create(base) as LocalProvider;
  p.embed = async (texts: string[], o: EmbedOptions = {}) => {
    if (o.kind !== 'query') return base.embed(texts, o);
    const out: Float32Array[] = [];
    for (const t of texts) {
      const parts = sentences(t);
      const vs = await base.embed(mode === 'mean of sentences' ? parts : [t, ...parts], o);
      const weights = mode === 'mean of sentences' ? vs.map(() => 1) : [parts.length, ...parts.map(() => 1)];
      const v = new Float32Array(vs[0].length);
      vs.forEach((x, i) => x.forEach((y, j) => (v[j] += weights[i] * y)));
      const n = Math.hypot(...v);
      out.push(v.map((y) => y / n));
    }
    return out;
  };
  return p;
}

async function main(): Promise<void> {
  const base = new LocalProvider({ model: MODEL, modelDir: MODEL, workerFile: resolve('dist/local-embed-worker.js') });
  const root = mkdtempSync(join(tmpdir(), 'ss-query-cut-'));
  console.log('| set | query embedded as | nDCG@10 fused | vectors alone |\n| --- | --- | --- | --- |');
  try {
    for (const set of SETS) {
      const workspace = join(root, set.replace(/\W+/g, '-'));
      for (const mode of ['whole', 'mean of sentences', 'whole + mean of sentences'] as const) {
        const r = await runBeirEval({ dir: join(DATA, set), split: 'test', provider: queriesAs(base, mode), workspace, deferEmbedding: true });
        console.log(`| ${set} | ${mode} | ${r['ndcg@10'].toFixed(4)} | ${r.vectorOnly['ndcg@10'].toFixed(4)} |`);
      }
    }
  } finally {
    await base.close();
  }
}

main().catch((e: Error) => {
  console.error(e.stack ?? e.message);
  process.exit(1);
});
