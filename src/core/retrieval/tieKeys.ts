/**
 * The order between equal scores, and the rows a query's cosines are sampled on, taken from what a
 * passage is, not from where it lies in the loaded index: the same library loaded in another order
 * (a member's copy of a server's generation made from the last one's shards, an index rebuilt)
 * gives the same rankings, cards and similarity figures.
 * - A row's key is a 32-bit hash of its PDF's content hash and its place in it: the same PDF gives
 *   the same keys on every machine, wherever it lies;
 * - then, for copies of one PDF (the same content at two paths, which always tie), 21 bits of a
 *   hash of the source's id; the keys are whole numbers below 2⁵³, exact in a Float64Array.
 * Two passages with the same key (about one pair in four billion) fall back to their rows.
 */

import { fmix32, fnv1a32 } from '../util/hash';

export interface TieSource {
  id: string;
  contentHash: string;
}

const LOW = 2 ** 21;

/** FNV-1a, then murmur3's finaliser: well spread 32-bit keys. */
function hashString(s: string): number {
  return fmix32(fnv1a32(s));
}

/** Each source's key: its content's, then its id's. */
export function sourceTieKeys(sources: readonly (TieSource | undefined)[]): Float64Array {
  return Float64Array.from(sources, (s) => hashString(s?.contentHash ?? '') * LOW + (hashString(s?.id ?? '') >>> 11));
}

/** Each row's key: its content and place in it, then its source's id. */
export function rowTieKeys(sources: readonly (TieSource | undefined)[], sourceOfRow: Int32Array, passageIndex: ArrayLike<number>, count: number): Float64Array {
  // A source the manifest does not record (damage, said where its passages are read) still gets keys.
  const content = sources.map((s) => hashString(s?.contentHash ?? ''));
  const low = sources.map((s) => hashString(s?.id ?? '') >>> 11);
  const keys = new Float64Array(count);
  for (let r = 0; r < count; r++) {
    const s = sourceOfRow[r];
    keys[r] = fmix32(content[s] ^ Math.imul(passageIndex[r] + 1, 0x9e3779b1)) * LOW + low[s];
  }
  return keys;
}

/** Whether `a` comes after `b` between equal scores: by key, then by row. */
export function tieAfter(tie: ArrayLike<number> | undefined, a: number, b: number): boolean {
  if (tie) {
    const ta = tie[a];
    const tb = tie[b];
    if (ta !== tb) return ta > tb;
  }
  return a > b;
}

/** A sort's order between equal scores (negative: `a` first). */
export function tieCompare(tie: ArrayLike<number> | undefined, a: number, b: number): number {
  if (tie) {
    const ta = tie[a];
    const tb = tie[b];
    if (ta !== tb) return ta < tb ? -1 : 1;
  }
  return a - b;
}

/**
 * About `target` rows of `count`, chosen by their content's part of the key (those below a bound:
 * copies of one PDF are in or out together), in key order: the same passages whatever the rows'
 * order, so that a sum over them is the same to the last bit.
 */
export function sampleRows(keys: Float64Array, count: number, target: number): Int32Array {
  const rows: number[] = [];
  if (count <= target) for (let r = 0; r < count; r++) rows.push(r);
  else {
    const bound = Math.floor((target / count) * 2 ** 32) * LOW;
    for (let r = 0; r < count; r++) if (keys[r] < bound) rows.push(r);
  }
  return Int32Array.from(rows.sort((a, b) => tieCompare(keys, a, b)));
}
