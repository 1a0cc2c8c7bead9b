/**
 * Retrieval speed benchmark: `npx tsx scripts/bench-retrieval.ts [--json] [--rows N]`.
 *
 * Prints figures only and never fails: timings on shared machines are too noisy
 * for assertions, so each figure comes with its ratio to a floor measured in the
 * same run on the same machine (the work nobody can avoid), which is comparable
 * across machines where absolute milliseconds are not.
 */
import { Bm25Index } from '../src/core/retrieval/bm25';
import { topKDot } from '../src/core/retrieval/vectorScan';
import { EMBEDDED_DIM, encode } from '../src/core/embedding/embeddedEncoder';
import { words } from '../src/core/text/tokenize';

interface Row {
  name: string;
  value: number;
  unit: string;
  floorName: string;
  floor: number;
  /** value / floor for times, floor / value for rates: above 1 means slower than the floor. */
  ratio: number;
  /** Product target, informational. */
  target?: string;
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const rowsArg = args.indexOf('--rows');
const ROWS = rowsArg >= 0 ? Number(args[rowsArg + 1]) : 100_000;
const REPS = 5;

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

/** Median of REPS runs after one warm-up (the JIT must have compiled both sides). */
function timeMs(f: () => unknown): number {
  f();
  const t: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return t[REPS >> 1];
}

function benchScan(): Row {
  const dim = EMBEDDED_DIM;
  const rnd = lcg(7);
  const m = new Float32Array(ROWS * dim);
  for (let i = 0; i < m.length; i++) m[i] = rnd() - 0.5;
  const q = new Float32Array(dim);
  for (let j = 0; j < dim; j++) q[j] = rnd() - 0.5;
  // Floor: the plainest loop computing every row's dot product and the best one.
  const bare = () => {
    let best = -Infinity;
    for (let r = 0; r < ROWS; r++) {
      let s = 0;
      const base = r * dim;
      for (let j = 0; j < dim; j++) s += m[base + j] * q[j];
      if (s > best) best = s;
    }
    return best;
  };
  const floor = timeMs(bare);
  const value = timeMs(() => topKDot(m, dim, ROWS, q, 100));
  return {
    name: `topKDot k=100, ${ROWS} x ${dim}`,
    value,
    unit: 'ms/query',
    floorName: 'bare dot-product loop',
    floor,
    ratio: value / floor,
    target: '<= 1.5 x floor',
  };
}

function benchEmbed(): Row {
  const vocab = (
    'cell protein gene expression tumour patients cohort risk increased reduced mice receptor pathway signalling ' +
    'inflammation therapy trial dose response mortality archives correspondance paroisse seigneurie royaume ' +
    'historians municipal council taxation treaty parliament revolution'
  ).split(' ');
  const rnd = lcg(11);
  // ~200-word passages drawn from a mixed EN/FR vocabulary, with inflections so stemming and caches work.
  const texts = Array.from({ length: 1000 }, () =>
    Array.from({ length: 200 }, () => {
      const w = vocab[Math.floor(rnd() * vocab.length)];
      const r = rnd();
      return r < 0.1 ? w + 's' : r < 0.15 ? w + 'ed' : r < 0.18 ? w + Math.floor(rnd() * 1000) : w;
    }).join(' '),
  );
  // Floor: folding and word splitting, which any text encoder pays before its own work.
  const floorMs = timeMs(() => {
    let n = 0;
    for (const t of texts) n += words(t).length;
    return n;
  });
  const ms = timeMs(() => {
    for (const t of texts) encode(t, 'passage');
  });
  const rate = texts.length / (ms / 1000);
  const floorRate = texts.length / (floorMs / 1000);
  return {
    name: 'embedded encoder, 200-word passages',
    value: rate,
    unit: 'passages/s',
    floorName: 'words() only',
    floor: floorRate,
    ratio: floorRate / rate,
    target: '>= 1500 passages/s',
  };
}

function benchBm25(): Row {
  const idx = new Bm25Index();
  const rnd = lcg(1);
  // Zipf-like vocabulary of 50k terms, 120 terms per passage.
  for (let d = 0; d < ROWS; d++) {
    const terms: string[] = [];
    for (let j = 0; j < 120; j++) terms.push('t' + Math.floor(Math.exp(rnd() * Math.log(50_000))));
    idx.add(d, terms);
  }
  const q = Array.from({ length: 20 }, (_, i) => 't' + (i * 37 + 5));
  // Floor: one multiply-add per posting the query touches, into a dense accumulator, plus its reset.
  let postings = 0;
  for (const t of new Set(q)) postings += idx.docFreq(t);
  const docs = new Int32Array(postings);
  const tfs = new Uint16Array(postings);
  for (let i = 0; i < postings; i++) {
    docs[i] = Math.floor(rnd() * ROWS);
    tfs[i] = 1 + Math.floor(rnd() * 3);
  }
  const acc = new Float32Array(ROWS);
  const floor = timeMs(() => {
    for (let i = 0; i < postings; i++) {
      const tf = tfs[i];
      acc[docs[i]] += (2.2 * tf) / (tf + 1.2);
    }
    let best = 0;
    for (let d = 0; d < ROWS; d++) {
      if (acc[d] > best) best = acc[d];
      acc[d] = 0;
    }
    return best;
  });
  const value = timeMs(() => idx.search(q, 100));
  return {
    name: `BM25 20-term query, ${ROWS} passages (${postings} postings)`,
    value,
    unit: 'ms/query',
    floorName: 'bare posting accumulation',
    floor,
    ratio: value / floor,
    target: '< 60 ms/query',
  };
}

const rows = [benchScan(), benchEmbed(), benchBm25()];
const meta = { node: process.version, platform: `${process.platform}-${process.arch}`, rows: ROWS, reps: REPS };
if (json) {
  console.log(JSON.stringify({ ...meta, results: rows }, null, 2));
} else {
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
  console.log(`node ${meta.node} ${meta.platform}; median of ${REPS} runs after a warm-up`);
  console.log(['benchmark'.padEnd(52), 'value'.padStart(10), 'unit'.padEnd(11), 'floor'.padStart(10), 'ratio'.padStart(7), '  floor is / target'].join(' '));
  for (const r of rows) {
    console.log(
      [
        r.name.padEnd(52),
        f(r.value).padStart(10),
        r.unit.padEnd(11),
        f(r.floor).padStart(10),
        r.ratio.toFixed(2).padStart(7),
        `  ${r.floorName} / ${r.target ?? '-'}`,
      ].join(' '),
    );
  }
  console.log('ratio: value/floor for times, floor/value for rates (1.00 = as fast as the floor).');
}
