/**
 * Local embedding model benchmark (issue 11): `npx tsx scripts/bench-local.ts [--passages N] [--json]`
 * (npm run bench runs it in a fresh process and adds its rows).
 *
 * Generates a graph of the real shape (12 layers × 384, int8 MatMulInteger, random weights, the
 * real bert-base-uncased vocabulary) and embeds the same passages twice in this run:
 *  - through LocalProvider (worker thread: tokenising, length-sorted batches, pooling, messages);
 *  - through bare ONNX Runtime on this thread, on the same batches, pre-tokenised (the floor).
 * Also: model load time, and the process's extra RSS (sampled peak) with the model loaded.
 *
 * Then the same for each real model found (issue 27): folders in the transformers.js layout
 * (tokenizer.json + onnx/model_quantized.onnx) under `--real-models DIR` (`--real-names a,b`: only those; default:
 * ~/.cache/similar-sources/real-models and .tmp/models of this checkout), with their product
 * spec (prefixes, pooling: the folder name), plus how many cores the provider kept busy
 * (process CPU time over wall time while it embedded) and the provider with one ONNX thread.
 * No real model: one line says so and those rows are skipped.
 * Per real model also: Python onnxruntime on the same pre-tokenised batches (the provisioning
 * venv, `<real models>/.venv`, through scripts/models-real/reference.py; absent: one line says so).
 * Then, with the default model (multilingual-e5-small, else the first found): the time to index
 * and embed the example library (examples/library) and `--real-pdfs` generated PDFs of
 * `--real-pdf-pages` pages (default 100 × 20, as the bench's real-PDF rows) through `dist/cli.js
 * index --provider local`, beside the same with the embedded model (`--no-real-library` skips).
 * The rounds pause `--pause-ms` (default 300) between the provider's turn and the bare session's:
 * ONNX Runtime's threads spin a while after a run, and whichever ran second shared the cores
 * with them (the per-round ratios alternated ×0.7/×1.4 without a pause).
 * Needs dist/local-embed-worker.js and dist/cli.js (npm run build).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { LocalProvider } from '../src/core/embedding/local/localProvider';
import { defaultThreads } from '../src/core/util/threads';
import { resolveModelSpec } from '../src/core/embedding/local/models';
import { loadTokenizer } from '../src/core/embedding/local/tokenizer';
import { makeTestModel } from './make-test-model';
import { makePdfs } from './bench/pdfs';
import { paragraph, rng, topic } from './bench/corpus';
import type { Row } from './bench/row';

const argv = process.argv.slice(2);
const opt = (n: string) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : undefined;
};
const PASSAGES = Number(opt('--passages') ?? 160);
const REAL_PASSAGES = Number(opt('--real-passages') ?? 96);
const PAUSE_MS = Number(opt('--pause-ms') ?? 300);
const REAL_PDFS = Number(opt('--real-pdfs') ?? 100);
const REAL_PDF_PAGES = Number(opt('--real-pdf-pages') ?? 20);
const CLI = resolve(__dirname, '../dist/cli.js');
const REFERENCE = resolve(__dirname, 'models-real/reference.py');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SCIFACT = resolve(__dirname, '../../shared/data/scifact/corpus.jsonl');
const WORKER = resolve(__dirname, '../dist/local-embed-worker.js');
const MAX_TOKENS = 512;
const TOKEN_BUDGET = 2048;
const MAX_BATCH = 32;
const log = (s: string) => process.stderr.write(s + '\n');
const MB = 1024 * 1024;
const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[v.length >> 1] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/** Real abstracts when the SciFact folder is there, else the synthetic corpus's paragraphs. */
function passages(n: number): string[] {
  if (existsSync(SCIFACT)) {
    return readFileSync(SCIFACT, 'utf8')
      .split('\n')
      .filter(Boolean)
      .slice(0, n)
      .map((l) => {
        const d = JSON.parse(l) as { title: string; text: string };
        return `${d.title}. ${d.text}`;
      });
  }
  const r = rng(11);
  return Array.from({ length: n }, (_, i) => paragraph(topic(i % 40), r, 120));
}

function rssSampler() {
  let peak = process.memoryUsage().rss;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  return { stop: () => (clearInterval(t), (peak = Math.max(peak, process.memoryUsage().rss))) };
}

/** The provisioning venv's Python (scripts/models-real), if there is one beside the real models. */
function venvPython(modelDir: string): string | undefined {
  for (const root of [resolve(modelDir, '..'), resolve(modelDir, '../..')]) {
    const py = join(root, '.venv', 'bin', 'python');
    if (existsSync(py)) return py;
  }
  return undefined;
}

/** Real models: folders with tokenizer.json and the int8 export, one or two levels below each root. */
function realModels(): string[] {
  const given = opt('--real-models');
  const roots = given ? [resolve(given)] : [join(homedir(), '.cache/similar-sources/real-models'), resolve(__dirname, '../.tmp/models')];
  const out: string[] = [];
  const isModel = (d: string) => existsSync(join(d, 'tokenizer.json')) && existsSync(join(d, 'onnx/model_quantized.onnx'));
  for (const root of roots) {
    if (!existsSync(root)) continue;
    for (const a of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      const d = join(root, a.name);
      if (isModel(d)) out.push(d);
      else for (const b of readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory())) if (isModel(join(d, b.name))) out.push(join(d, b.name));
    }
  }
  // One folder per model name (the first root wins); `--real-names a,b` keeps only those.
  const seen = new Set<string>();
  const names = opt('--real-names')?.split(',');
  return out.filter((d) => {
    if (names && !names.includes(d.split('/').slice(-1)[0])) return false;
    const n = d.split('/').slice(-2).join('/').toLowerCase();
    return seen.has(n) ? false : (seen.add(n), true);
  });
}

/** LocalProvider against bare ONNX Runtime on the same batches, for one model folder. */
async function measure(
  label: string,
  modelDir: string,
  texts: string[],
  threads: number,
  extra: { oneThread?: boolean; python?: boolean } = {},
): Promise<Row[]> {
  const spec = resolveModelSpec(modelDir);
  const n = texts.length;
  // Enough for full batches (≈ 2,048 tokens): the RSS peak of the provider alone is taken here.
  const warm = texts.slice(0, 12);

  // Both load first; then each round embeds one slice of the passages through the provider and
  // through bare ONNX Runtime, in turn, so a neighbour's load on this shared machine hits both alike.
  const rss0 = process.memoryUsage().rss;
  const sampler = rssSampler();
  const provider = new LocalProvider({ model: modelDir, modelDir, workerFile: WORKER, threads, tokenBudget: TOKEN_BUDGET, maxBatch: MAX_BATCH });
  let t = performance.now();
  await provider.dimension();
  const providerLoadMs = performance.now() - t;
  await provider.embed(warm);
  const peak = sampler.stop();

  const tok = loadTokenizer(modelDir);
  t = performance.now();
  const session = await ort.InferenceSession.create(join(modelDir, spec.onnxFile), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const bareLoadMs = performance.now() - t;
  const withTypes = session.inputNames.includes('token_type_ids');
  /** The provider's batching, done here beforehand (with the model's passage prefix): only the session runs are timed. */
  /** The same grouping as below, as id lists (for the Python row). */
  const groupsOf = (encoded: number[][]) => {
    const out: number[][][] = [];
    for (let i = 0; i < encoded.length;) {
      const size = Math.max(1, Math.min(MAX_BATCH, Math.floor(TOKEN_BUDGET / encoded[i].length)));
      out.push(encoded.slice(i, i + size));
      i += size;
    }
    return out;
  };
  const batchesOf = (slice: string[]) => {
    const encoded = slice.map((s) => tok.encode(spec.passagePrefix + s, Math.min(MAX_TOKENS, spec.maxTokens)).ids).sort((a, b) => b.length - a.length);
    const batches: Record<string, ort.Tensor>[] = [];
    for (let i = 0; i < encoded.length;) {
      const size = Math.max(1, Math.min(MAX_BATCH, Math.floor(TOKEN_BUDGET / encoded[i].length)));
      const group = encoded.slice(i, i + size);
      i += size;
      const seq = group[0].length;
      const ids = new BigInt64Array(group.length * seq).fill(BigInt(tok.padId));
      const mask = new BigInt64Array(group.length * seq);
      group.forEach((g, b) => g.forEach((id, k) => ((ids[b * seq + k] = BigInt(id)), (mask[b * seq + k] = 1n))));
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', ids, [group.length, seq]),
        attention_mask: new ort.Tensor('int64', mask, [group.length, seq]),
      };
      if (withTypes) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(group.length * seq), [group.length, seq]);
      batches.push(feeds);
    }
    return { batches, tokens: encoded.reduce((s, e) => s + e.length, 0), groups: groupsOf(encoded) };
  };
  await session.run(batchesOf(warm).batches[0]);
  const ROUNDS = Math.min(8, n);
  let providerMs = 0;
  let bareMs = 0;
  let providerCpuMs = 0;
  const roundRatios: number[] = [];
  let batchCount = 0;
  let tokens = 0;
  const peakRound = rssSampler();
  const allGroups: number[][][] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const slice = texts.filter((_, i) => i % ROUNDS === r);
    const { batches, tokens: k, groups } = batchesOf(slice);
    allGroups.push(...groups);
    batchCount += batches.length;
    tokens += k;
    const order = r % 2 === 0 ? ['provider', 'bare'] : ['bare', 'provider'];
    const ms: Record<string, number> = {};
    for (const which of order) {
      t = performance.now();
      // The process's CPU time covers every thread: the worker's and ONNX Runtime's.
      const cpu0 = process.cpuUsage();
      if (which === 'provider') await provider.embed(slice);
      else for (const b of batches) await session.run(b);
      ms[which] = performance.now() - t;
      // Let the other's spinning threads go quiet before the next one runs.
      await sleep(PAUSE_MS);
      if (which === 'provider') {
        const c = process.cpuUsage(cpu0);
        providerCpuMs += (c.user + c.system) / 1000;
      }
    }
    providerMs += ms.provider;
    bareMs += ms.bare;
    roundRatios.push(ms.provider / ms.bare);
    log(`  ${label} round ${r + 1}/${ROUNDS}: provider ${(providerMs / 1000).toFixed(1)} s, bare ${(bareMs / 1000).toFixed(1)} s so far`);
  }
  const peakBoth = peakRound.stop();
  await provider.close();
  await session.release();
  const meanTokens = tokens / n;
  // The median of the rounds' ratios: a burst of a neighbour's work spoils one round, not the figure.
  const ratio = median(roundRatios);
  const ours = (n / providerMs) * 1000;
  const bare = (n / bareMs) * 1000;
  const extraMB = (peak - rss0) / MB;
  const busy = providerCpuMs / providerMs;
  const rows: Row[] = [
    {
      size: 'local',
      metric: `${label}: passages/s (${n} passages, mean ${meanTokens.toFixed(0)} tokens)`,
      value: ours,
      unit: 'passages/s',
      baselineName: 'bare ONNX Runtime, same batches',
      baseline: bare,
      ratio,
      target: '≥ 0.9× bare',
      limit: 1 / 0.9,
      runs: ROUNDS,
      note: `ratio: median of ${ROUNDS} interleaved rounds (time ÷ bare time: ${roundRatios.map((x) => x.toFixed(2)).join(', ')}); ${batchCount} batches, ${threads} thread(s)`,
    },
    {
      size: 'local',
      metric: `${label}: cores busy while the provider embeds (CPU time ÷ wall time)`,
      value: busy,
      unit: 'cores',
      baselineName: `ONNX threads`,
      baseline: threads,
      ratio: busy / threads,
      runs: ROUNDS,
      note: `${availableParallelism()} cores on this machine, shared`,
    },
    {
      size: 'local',
      metric: `${label}: extra RSS with the model loaded (peak while embedding full batches)`,
      value: extraMB,
      unit: 'MB',
      baselineName: 'target 600 MB',
      baseline: 600,
      ratio: extraMB / 600,
      target: '≤ 600 MB',
      limit: 1,
      runs: 1,
      note: `${((peakBoth - rss0) / MB).toFixed(0)} MB later with the bare session loaded beside it`,
    },
    {
      size: 'local',
      metric: `${label}: load (worker start + tokenizer + session + probe)`,
      value: providerLoadMs,
      unit: 'ms',
      baselineName: 'bare session create',
      baseline: bareLoadMs,
      ratio: providerLoadMs / bareLoadMs,
      runs: 1,
    },
  ];
  const python = extra.python ? venvPython(modelDir) : undefined;
  if (extra.python && !python)
    log(`  ${label}: Python onnxruntime row skipped: no provisioning venv (.venv) beside ${modelDir} (npm run models:real makes it)`);
  if (python) {
    // The bare session's batches, run by Python onnxruntime in its own process, same threads.
    const r = spawnSync(python, [REFERENCE], {
      input: JSON.stringify({
        ops: [{ op: 'bench', onnx: join(modelDir, spec.onnxFile), batches: allGroups, padId: tok.padId, threads, tokenTypes: withTypes }],
      }),
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    if (r.status !== 0) log(`  ${label}: Python onnxruntime row skipped: reference.py failed (${r.stderr?.slice(-400)})`);
    else {
      const { ms } = (JSON.parse(r.stdout) as { results: Array<{ ms: number }> }).results[0];
      const py = (n / ms) * 1000;
      rows.push({
        size: 'local',
        metric: `${label}: passages/s vs Python onnxruntime (same batches)`,
        value: ours,
        unit: 'passages/s',
        baselineName: 'Python onnxruntime',
        baseline: py,
        ratio: ours / py,
        runs: 1,
        note: `Python ${(ms / 1000).toFixed(1)} s, bare onnxruntime-node ${(bareMs / 1000).toFixed(1)} s (×${(py / bare).toFixed(2)} of it), the provider ${(providerMs / 1000).toFixed(1)} s`,
      });
    }
  }
  if (extra.oneThread && threads > 1) {
    // The same passages through the provider with one ONNX thread: what the extra core brings.
    const one = new LocalProvider({ model: modelDir, modelDir, workerFile: WORKER, threads: 1, tokenBudget: TOKEN_BUDGET, maxBatch: MAX_BATCH });
    await one.embed(warm);
    t = performance.now();
    await one.embed(texts);
    const oneMs = performance.now() - t;
    await one.close();
    rows.push({
      size: 'local',
      metric: `${label}: passages/s with ${threads} ONNX threads vs 1`,
      value: ours,
      unit: 'passages/s',
      baselineName: '1 thread',
      baseline: (n / oneMs) * 1000,
      ratio: ours / ((n / oneMs) * 1000),
      runs: 1,
    });
  }
  return rows;
}

/** `dist/cli.js index` on a library, timed; the report's passage count. */
function indexTimed(library: string, workspace: string, provider: string[]): { seconds: number; passages: number } {
  const t = performance.now();
  const out = execFileSync(process.execPath, [CLI, 'index', '--library', library, '--workspace', workspace, '--json', ...provider], {
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();
  const seconds = (performance.now() - t) / 1000;
  return { seconds, passages: (JSON.parse(out) as { passages: number }).passages };
}

/** The time to index and embed the example library and the generated PDFs with a real model, against the embedded model. */
async function libraryRows(modelDir: string, dir: string): Promise<Row[]> {
  if (!existsSync(CLI)) {
    log('library rows skipped: dist/cli.js is missing (npm run build)');
    return [];
  }
  const name = modelDir.split('/').slice(-1)[0];
  const pdfs = join(dir, 'pdfs');
  await makePdfs(pdfs, REAL_PDFS, REAL_PDF_PAGES);
  const rows: Row[] = [];
  for (const [what, library] of [
    ['the example library', resolve(__dirname, '../examples/library')],
    [`${REAL_PDFS} generated PDFs × ${REAL_PDF_PAGES} pages`, pdfs],
  ] as const) {
    if (!existsSync(library)) {
      log(`${what}: skipped (${library} is missing)`);
      continue;
    }
    log(`${what}: indexing with the embedded model, then with ${name} …`);
    const base = indexTimed(library, mkdtempSync(join(dir, 'ws-')), ['--provider', 'embedded']);
    const real = indexTimed(library, mkdtempSync(join(dir, 'ws-')), ['--provider', 'local', '--model', modelDir]);
    rows.push({
      size: 'local',
      metric: `real ${name}: index + embed ${what} (${real.passages} passages)`,
      value: real.seconds,
      unit: 's',
      baselineName: 'embedded model',
      baseline: base.seconds,
      ratio: real.seconds / base.seconds,
      runs: 1,
      note: `${(real.passages / real.seconds).toFixed(1)} passages/s overall`,
    });
  }
  return rows;
}

async function main() {
  if (!existsSync(WORKER)) throw new Error('dist/local-embed-worker.js is missing: run npm run build first');
  const dir = mkdtempSync(join(tmpdir(), 'ss-bench-local-'));
  const threads = defaultThreads();
  const rows: Row[] = [];
  try {
    if (!argv.includes('--real-only')) {
      const t0 = performance.now();
      const modelDir = makeTestModel(join(dir, 'bert-12x384-int8'), { layers: 12, hidden: 384, quantized: true, fp32: false });
      log(`local model: generated 12×384 int8 graph in ${Math.round(performance.now() - t0)} ms; ${PASSAGES} passages; ${threads} ONNX thread(s)`);
      rows.push(...(await measure('local model 12×384 int8', modelDir, passages(PASSAGES), threads)));
    }
    const real = argv.includes('--no-real') ? [] : realModels();
    if (!real.length && !argv.includes('--no-real'))
      log('real models: none found (~/.cache/similar-sources/real-models, .tmp/models, or --real-models DIR): their rows are skipped');
    for (const m of real) {
      log(`real model ${m}: ${REAL_PASSAGES} SciFact abstracts, ${threads} ONNX thread(s)`);
      rows.push(...(await measure(`real ${m.split('/').slice(-1)[0]} int8`, m, passages(REAL_PASSAGES), threads, { oneThread: true, python: true })));
    }
    if (real.length && !argv.includes('--no-real-library'))
      rows.push(...(await libraryRows(real.find((m) => m.endsWith('multilingual-e5-small')) ?? real[0], dir)));
    if (argv.includes('--json')) process.stdout.write(JSON.stringify(rows) + '\n');
    else
      for (const r of rows)
        process.stdout.write(
          `${r.metric}: ${r.value.toFixed(1)} ${r.unit} (${r.baselineName} ${r.baseline?.toFixed(1)}, ratio ×${r.ratio?.toFixed(3)}${r.target ? `, target ${r.target}` : ''})${r.note ? ` — ${r.note}` : ''}\n`,
        );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
