import assert from 'node:assert/strict';
import { reciprocalRankFusion } from '../../src/core/retrieval/fusion';

describe('reciprocalRankFusion', () => {
  it('sums weight / (k + rank) over lists', () => {
    const fused = reciprocalRankFusion([{ ids: [1, 2, 3] }, { ids: [3, 1], weight: 0.5 }], 10);
    const byId = new Map(fused.map((f) => [f.id, f]));
    assert.ok(Math.abs(byId.get(1)!.score - (1 / 11 + 0.5 / 12)) < 1e-12);
    assert.ok(Math.abs(byId.get(2)!.score - 1 / 12) < 1e-12);
    assert.ok(Math.abs(byId.get(3)!.score - (1 / 13 + 0.5 / 11)) < 1e-12);
    assert.deepEqual(
      fused.map((f) => f.id),
      [1, 3, 2],
    );
    assert.deepEqual(byId.get(3)!.ranks, [3, 1]);
    assert.deepEqual(byId.get(2)!.ranks, [2, undefined]);
  });

  it('counts a repeated id once per list, at its best rank', () => {
    const fused = reciprocalRankFusion([{ ids: [5, 5, 6] }], 60);
    assert.ok(Math.abs(fused[0].score - 1 / 61) < 1e-12);
    assert.equal(fused.find((f) => f.id === 6)!.ranks[0], 3);
  });

  it('breaks ties by id and handles empty lists', () => {
    assert.deepEqual(
      reciprocalRankFusion([{ ids: [9] }, { ids: [4] }]).map((f) => f.id),
      [4, 9],
    );
    assert.deepEqual(reciprocalRankFusion([{ ids: [] }]), []);
  });
});
