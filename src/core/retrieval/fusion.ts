/**
 * Weighted reciprocal rank fusion (Cormack et al. 2009):
 * score(d) = sum over lists of weight / (k + rank), rank starting at 1.
 * Ranks, not raw scores, so BM25 and cosine need no common scale.
 */
import { tieCompare } from './tieKeys';

export interface RankedList {
  ids: readonly number[];
  weight?: number;
}

export interface FusedItem {
  id: number;
  score: number;
  /** 1-based rank in each input list, undefined where absent. */
  ranks: Array<number | undefined>;
}

/** `tie`: the order between equal scores (tieKeys.ts; absent: by lower id). */
export function reciprocalRankFusion(lists: readonly RankedList[], k = 60, tie?: ArrayLike<number>): FusedItem[] {
  const byId = new Map<number, FusedItem>();
  lists.forEach((list, li) => {
    const w = list.weight ?? 1;
    list.ids.forEach((id, i) => {
      let item = byId.get(id);
      if (!item) {
        item = { id, score: 0, ranks: new Array(lists.length).fill(undefined) };
        byId.set(id, item);
      }
      // A repeated id keeps its best rank.
      if (item.ranks[li] !== undefined) return;
      item.ranks[li] = i + 1;
      item.score += w / (k + i + 1);
    });
  });
  return [...byId.values()].sort((a, b) => b.score - a.score || tieCompare(tie, a.id, b.id));
}
