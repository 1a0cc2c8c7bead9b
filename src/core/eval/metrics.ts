/**
 * Standard IR metrics over ranked id lists, averaged over judged queries only
 * (a query without judgements says nothing about the ranking).
 */

/** query id -> (doc id -> graded relevance). */
export type Qrels = Map<string, Map<string, number>>;

/** nDCG@k with gains = relevance grade and discount 1/log2(rank + 1); ideal from the qrels. */
export function ndcgAt(ranked: readonly string[], judged: ReadonlyMap<string, number>, k = 10): number {
  let dcg = 0;
  const seen = new Set<string>();
  for (let i = 0, r = 0; i < ranked.length && r < k; i++) {
    const id = ranked[i];
    if (seen.has(id)) continue; // a repeated id earns nothing twice
    seen.add(id);
    const g = judged.get(id) ?? 0;
    if (g > 0) dcg += g / Math.log2(r + 2);
    r++;
  }
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => (idcg += g / Math.log2(i + 2)));
  return idcg > 0 ? dcg / idcg : 0;
}

/** Share of the relevant documents found in the first k. */
export function recallAt(ranked: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  const relevant = [...judged].filter(([, g]) => g > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

/** Reciprocal rank of the first relevant document within k, else 0. */
export function mrrAt(ranked: readonly string[], judged: ReadonlyMap<string, number>, k = 10): number {
  for (let i = 0; i < Math.min(k, ranked.length); i++) if ((judged.get(ranked[i]) ?? 0) > 0) return 1 / (i + 1);
  return 0;
}

export interface EvalSummary {
  queries: number;
  ndcg10: number;
  recall10: number;
  recall100: number;
  mrr10: number;
}

/** Averages over the queries that have at least one positive judgement. */
export function evaluateRun(run: ReadonlyMap<string, readonly string[]>, qrels: Qrels): EvalSummary {
  let n = 0;
  let ndcg = 0;
  let r10 = 0;
  let r100 = 0;
  let mrr = 0;
  for (const [qid, judged] of qrels) {
    if (![...judged.values()].some((g) => g > 0)) continue;
    const ranked = run.get(qid) ?? [];
    n++;
    ndcg += ndcgAt(ranked, judged, 10);
    r10 += recallAt(ranked, judged, 10);
    r100 += recallAt(ranked, judged, 100);
    mrr += mrrAt(ranked, judged, 10);
  }
  const avg = (x: number) => (n > 0 ? x / n : 0);
  return { queries: n, ndcg10: avg(ndcg), recall10: avg(r10), recall100: avg(r100), mrr10: avg(mrr) };
}

/** Parses a BEIR qrels TSV (`query-id corpus-id score`, header optional). */
export function parseQrels(tsv: string): Qrels {
  const q: Qrels = new Map();
  for (const line of tsv.split(/\r?\n/)) {
    const parts = line.trim().split(/\t| +/);
    if (parts.length < 3 || parts[0] === 'query-id') continue;
    const score = Number(parts[2]);
    if (!Number.isFinite(score)) continue;
    let m = q.get(parts[0]);
    if (!m) q.set(parts[0], (m = new Map()));
    m.set(parts[1], score);
  }
  return q;
}
