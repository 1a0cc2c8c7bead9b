import assert from 'node:assert/strict';
import { evaluateRun, mrrAt, ndcgAt, parseQrels, recallAt } from '../../src/core/eval/metrics';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

describe('metrics', () => {
  // Relevant: a (grade 2), b (grade 1). Ranking: x, a, y, b.
  const judged = new Map([
    ['a', 2],
    ['b', 1],
  ]);
  const ranked = ['x', 'a', 'y', 'b'];

  it('nDCG@10 with graded gains and log2 discount', () => {
    const dcg = 2 / Math.log2(3) + 1 / Math.log2(5);
    const idcg = 2 / Math.log2(2) + 1 / Math.log2(3);
    close(ndcgAt(ranked, judged, 10), dcg / idcg);
    close(ndcgAt(['a', 'b'], judged, 10), 1);
    close(ndcgAt(ranked, judged, 1), 0);
  });

  it('recall and MRR', () => {
    close(recallAt(ranked, judged, 2), 0.5);
    close(recallAt(ranked, judged, 4), 1);
    close(mrrAt(ranked, judged, 10), 0.5);
    close(mrrAt(['x'], judged, 10), 0);
  });

  it('averages over judged queries only', () => {
    const qrels = parseQrels('query-id\tcorpus-id\tscore\nq1\ta\t1\nq2\tb\t1\nq3\tc\t0\n');
    assert.equal(qrels.size, 3);
    const s = evaluateRun(
      new Map([
        ['q1', ['a']],
        ['q2', ['z', 'b']],
        ['q9', ['a']],
      ]),
      qrels,
    );
    assert.equal(s.queries, 2);
    close(s.ndcg10, (1 + 1 / Math.log2(3)) / 2);
    close(s.mrr10, 0.75);
    close(s.recall10, 1);
  });
});
