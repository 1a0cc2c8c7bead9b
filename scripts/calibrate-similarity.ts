/**
 * Fits the shown similarity (src/core/analysis/similarity.ts): P(the passage's
 * source is relevant | standout, query coverage, passage coverage, query
 * length) by logistic regression on BEIR SciFact train, top 20 passages per
 * query. Queries: every claim, and paragraph-like queries — the claims about
 * one document joined (one relevant document), and two such groups joined
 * (two relevant documents) — since users query with whole paragraphs.
 * Prints the coefficients to paste into similarity.ts, the fit with fewer
 * features for comparison, and a check on the bundled example (never fitted on).
 * Run: npx tsx scripts/calibrate-similarity.ts [path/to/scifact]   (after npm run demo, for the check)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { BEIR_SCHEME, loadBeir, runBeirEval } from '../src/core/eval/beir';
import { LibraryIndex } from '../src/core/index/libraryIndex';
import { segmentMarkdown } from '../src/core/markdown/segment';

type Features = [standout: number, queryCoverage: number, passageCoverage: number, logQueryTerms: number];
const NAMES = ['standout', 'queryCoverage', 'passageCoverage', 'logQueryTerms'];

async function evidence(index: LibraryIndex, text: string, k: number) {
  const overlap = index.overlap(text);
  return (await index.search(text, { k })).map((h) => {
    const o = overlap.of(h.row);
    return { hit: h, x: [h.standout, o.query, o.doc, Math.log1p(overlap.terms)] as Features };
  });
}

async function main() {
  const dir = process.argv[2] ?? '../shared/data/scifact';
  const ws = mkdtempSync(join(tmpdir(), 'ss-calib-'));
  const provider = new EmbeddedProvider();
  try {
    await runBeirEval({ dir, split: 'train', provider, workspace: ws });
    const index = await LibraryIndex.open(ws, provider);
    const { queries, qrels } = await loadBeir(dir, 'train');
    const rows: Array<{ x: Features; y: number }> = [];
    const add = async (text: string, relevant: Set<string>) => {
      for (const { hit, x } of await evidence(index, text, 20)) rows.push({ x, y: relevant.has(hit.sourceRecord.path.slice(BEIR_SCHEME.length)) ? 1 : 0 });
    };
    const claimsOf = new Map<string, string[]>();
    for (const [qid, judged] of qrels) {
      const text = queries.get(qid);
      if (!text) continue;
      const relevant = new Set([...judged].filter(([, v]) => v > 0).map(([d]) => d));
      await add(text, relevant);
      for (const d of relevant) claimsOf.set(d, [...(claimsOf.get(d) ?? []), text]);
    }
    const groups = [...claimsOf].filter(([, c]) => c.length >= 2);
    for (const [d, claims] of groups) await add(claims.join(' '), new Set([d]));
    for (let i = 0; i + 1 < groups.length; i += 2) await add([...groups[i][1], ...groups[i + 1][1]].join(' '), new Set([groups[i][0], groups[i + 1][0]]));

    const y = rows.map((r) => r.y);
    const w = fitLogistic(rows.map((r) => r.x), y);
    const w1 = fitLogistic(rows.map((r) => [r.x[0]]), y);
    const ll = (ws: number[], cols: number[]) =>
      rows.reduce((s, r) => {
        const p = sigmoid(ws[0] + cols.reduce((a, c, j) => a + ws[j + 1] * r.x[c], 0));
        return s + (r.y ? Math.log(p) : Math.log(1 - p));
      }, 0);
    const coef = Object.fromEntries(NAMES.map((n, i) => [n, round(w[i + 1])]));
    console.log(JSON.stringify({ model: provider.key, pairs: rows.length, positives: y.filter(Boolean).length, paragraphQueries: groups.length + Math.floor(groups.length / 2), intercept: round(w[0]), ...coef }, null, 2));
    console.log(`log-likelihood: all four features ${ll(w, [0, 1, 2, 3]).toFixed(1)}; standout alone ${ll(w1, [0]).toFixed(1)}`);

    // The bundled example, as a check only: right sources against the others.
    const exampleWs = resolve('examples');
    if (existsSync(join(exampleWs, '.similar-sources'))) {
      const ex = await LibraryIndex.open(exampleWs, provider);
      const expected = JSON.parse(readFileSync(join(exampleWs, 'expected.json'), 'utf8')).paragraphs as Array<{ startsWith: string; sources: string[] }>;
      const { segments } = await segmentMarkdown(readFileSync(join(exampleWs, 'draft.md'), 'utf8'), 'paragraph');
      const right: number[] = [];
      const other: number[] = [];
      for (const e of expected) {
        const s = segments.find((x) => x.text.startsWith(e.startsWith));
        if (!s) continue;
        const seen = new Set<string>();
        for (const { hit, x } of await evidence(ex, s.query, 30)) {
          const name = basename(hit.sourceRecord.path);
          if (seen.has(name)) continue;
          seen.add(name);
          (e.sources.includes(name) ? right : other).push(sigmoid(w[0] + x.reduce((a, v, j) => a + w[j + 1] * v, 0)));
        }
      }
      const q = (a: number[], f: number) => [...a].sort((m, n) => m - n)[Math.floor(f * (a.length - 1))];
      console.log(`example: right sources median ${pct(q(right, 0.5))}, min ${pct(q(right, 0))}; others median ${pct(q(other, 0.5))}, 90th percentile ${pct(q(other, 0.9))}`);
    } else console.log('example check skipped: examples/ has no index (run npm run demo first)');
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const round = (v: number) => Math.round(v * 10_000) / 10_000;
const pct = (p: number) => `${(p * 100).toFixed(1)}%`;

/** Logistic regression by Newton's method; returns [intercept, ...coefficients]. */
function fitLogistic(X: number[][], y: number[]): number[] {
  const d = X[0].length + 1;
  let w = new Array<number>(d).fill(0);
  for (let it = 0; it < 30; it++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    X.forEach((x, i) => {
      const f = [1, ...x];
      const p = sigmoid(f.reduce((s, v, j) => s + v * w[j], 0));
      for (let a = 0; a < d; a++) {
        g[a] += (y[i] - p) * f[a];
        for (let b = 0; b < d; b++) H[a][b] -= p * (1 - p) * f[a] * f[b];
      }
    });
    const step = solve(H, g);
    w = w.map((v, a) => v - step[a]);
  }
  return w;
}

function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((r, i) => [...r, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((r, i) => r[n] / r[i]);
}

void main();
