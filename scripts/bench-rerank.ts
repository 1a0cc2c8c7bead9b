/**
 * The local reranker's speed (issue 39): `npm run bench:rerank [-- --paragraphs N] [--cards K] [--max-tokens M] [--threads T] [--model <folder>]`.
 *
 * What one paragraph's cards cost to rerank on this machine: a paragraph of the development sets
 * (an xling-dev abstract's first half, ~120 tokens) against K cards (default 10, what analyze.ts
 * reranks), each a title and a passage of ~250 tokens, through CrossEncoder as an analysis runs it
 * (its worker, int8 one pair at a time); median and p95 over N paragraphs (default 40), after one
 * warm-up. Without --model, models of the published rerankers' shapes are generated with random
 * weights (speed depends on the shape, not on the weights' values): ms-marco-MiniLM-L-6-v2 (6
 * layers, 384 wide, BERT's vocabulary) and mmarco-mMiniLMv2-L12-H384 (12 layers, 384 wide, XLM-R's
 * 250k vocabulary, read from the provisioned multilingual-e5-small's tokenizer when there). Their
 * scores mean nothing; no real cross-encoder weights can be fetched here. Each figure is held
 * against the budget (≤ 1 s p95 a paragraph); the fp32 export is run beside the int8 one.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTestModel } from './make-test-model';
import { CROSS_ENCODER_WORKER_FILE, CrossEncoder } from '../src/core/rerank/crossEncoder';
import { loadTokenizer } from '../src/core/embedding/local/tokenizer';
import { median, timed } from './bench/measure';
import { DATA, E5, opt } from './bench/measureArgs';

const PARAGRAPHS = Number(opt('paragraphs') ?? 40);
const CARDS = Number(opt('cards') ?? 10);
const THREADS = opt('threads') ? Number(opt('threads')) : undefined;
const MAX_TOKENS = Number(opt('max-tokens') ?? 512);
const WORKER = resolve('dist', CROSS_ENCODER_WORKER_FILE);

function texts(): { queries: string[]; passages: string[] } {
  const rows = (f: string) =>
    readFileSync(join(DATA, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => (JSON.parse(l) as { text: string; title?: string }).text);
  const queries = rows('xling-dev/en2fr/queries.jsonl');
  const passages = rows('scifact/corpus.jsonl').slice(0, 2000);
  return { queries, passages };
}

async function run(label: string, dir: string, onnxFile: string): Promise<void> {
  const { queries, passages } = texts();
  const tok = loadTokenizer(dir);
  const ce = new CrossEncoder({ model: label, modelDir: dir, onnxFile, workerFile: WORKER, threads: THREADS, maxTokens: MAX_TOKENS });
  try {
    const [loadMs, why] = await timed(() => ce.unavailable());
    if (why) throw new Error(why);
    const cardsOf = (i: number) => Array.from({ length: CARDS }, (_, k) => `Source ${k}: ${passages[(i * CARDS + k) % passages.length]}`);
    await ce.score(queries[0], cardsOf(0));
    const ms: number[] = [];
    let tokens = 0;
    for (let i = 1; i <= PARAGRAPHS; i++) {
      const q = queries[i % queries.length];
      const cards = cardsOf(i);
      tokens += cards.reduce((n, c) => n + tok.encodePair(q, c, MAX_TOKENS).ids.length, 0);
      ms.push((await timed(() => ce.score(q, cards)))[0]);
    }
    ms.sort((a, b) => a - b);
    const p95 = ms[Math.min(ms.length - 1, Math.floor(0.95 * ms.length))];
    console.log(
      `| ${label} | ${onnxFile} | ${Math.round(loadMs)} ms | ${Math.round(tokens / (PARAGRAPHS * CARDS))} | ${Math.round(median(ms))} ms | ${Math.round(p95)} ms | ${p95 <= 1000 ? 'met' : 'missed'} |`,
    );
  } finally {
    await ce.close();
  }
}

async function main(): Promise<void> {
  if (!existsSync(WORKER)) throw new Error(`${WORKER} is missing: npm run build`);
  console.log(`### Local reranker: ${CARDS} cards a paragraph, ${PARAGRAPHS} paragraphs, pairs cut to ${MAX_TOKENS} tokens, threads ${THREADS ?? 'default'}\n`);
  console.log('| model | weights | load | tokens a pair (mean) | a paragraph (median) | p95 | budget ≤ 1 s p95 |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  const given = opt('model');
  if (given) {
    for (const f of ['onnx/model_quantized.onnx', 'onnx/model.onnx'].filter((x) => existsSync(join(given, x)))) await run(given, given, f);
    return;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'ss-bench-rerank-'));
  try {
    const shapes: Array<[string, Parameters<typeof makeTestModel>[1]]> = [
      ['ms-marco-MiniLM-L-6-v2 shape (generated)', { layers: 6, hidden: 384, heads: 12, intermediate: 1536 }],
      [
        'mmarco-mMiniLMv2-L12-H384 shape (generated)',
        { layers: 12, hidden: 384, heads: 12, intermediate: 1536, maxPositions: 514, tokenizerDir: existsSync(E5) ? E5 : undefined },
      ],
    ];
    for (const [label, shape] of shapes) {
      const dir = makeTestModel(join(tmp, label.split(' ')[0]), { ...shape, quantized: true, fp32: true, classifier: true });
      await run(label, dir, 'onnx/model_quantized.onnx');
      await run(label, dir, 'onnx/model.onnx');
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(e.stack ?? e.message);
  process.exit(1);
});
