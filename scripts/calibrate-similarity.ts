/**
 * Fits the shown similarity: P(passage's source is relevant | standout) by
 * logistic regression on BEIR SciFact train (top-20 passages per
 * claim). Prints the coefficients to paste into src/core/analysis/similarity.ts.
 * Run: npx tsx scripts/calibrate-similarity.ts [path/to/scifact]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { loadBeir, BEIR_SCHEME } from '../src/core/eval/beir';
import { LibraryIndex } from '../src/core/index/libraryIndex';
import { runBeirEval } from '../src/core/eval/beir';

async function main() {
  const dir = process.argv[2] ?? '../shared/data/scifact';
  const ws = mkdtempSync(join(tmpdir(), 'ss-calib-'));
  const provider = new EmbeddedProvider();
  await runBeirEval({ dir, split: 'train', provider, workspace: ws });
  const index = await LibraryIndex.open(ws, provider);
  const { queries, qrels } = await loadBeir(dir, 'train');
  const X: number[][] = [];
  const y: number[] = [];
  for (const [qid, judged] of qrels) {
    const text = queries.get(qid);
    if (!text) continue;
    for (const h of await index.search(text, { k: 20 })) {
      X.push([h.standout]);
      y.push((judged.get(h.sourceRecord.path.slice(BEIR_SCHEME.length)) ?? 0) > 0 ? 1 : 0);
    }
  }
  const w = fitLogistic(X, y);
  const positives = y.reduce((a, b) => a + b, 0);
  console.log(JSON.stringify({ model: provider.key, pairs: X.length, positives, intercept: w[0], standout: w[1] }, null, 2));
  // How the fitted probability spreads, for a sanity check.
  for (const z of [2, 4, 6, 8, 10, 12]) console.log(`standout ${z}: ${(1 / (1 + Math.exp(-(w[0] + w[1] * z)))).toFixed(3)}`);
}

/** Logistic regression by Newton's method; returns [intercept, ...coefficients]. */
function fitLogistic(X: number[][], y: number[]): number[] {
  const d = X[0].length + 1;
  let w = new Array<number>(d).fill(0);
  for (let it = 0; it < 50; it++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    X.forEach((x, i) => {
      const f = [1, ...x];
      const p = 1 / (1 + Math.exp(-f.reduce((s, v, j) => s + v * w[j], 0)));
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
