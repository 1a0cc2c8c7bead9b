/**
 * Content hashes: a PDF's identity in the index and the OCR cache, cache keys of
 * analyses and bibliographies, source ids. One function, so every key is the same
 * hex SHA-256 of the same bytes. And the two 32-bit hashes of strings that buckets
 * and keys are made of (the embedded model's features, the rankings' tie keys).
 */
import { createHash } from 'node:crypto';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** FNV-1a over a string's UTF-16 code units; `seed` varies the offset basis (kinds of features that must not collide systematically). */
export function fnv1a32(s: string, seed = 0): number {
  let h = (2166136261 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** murmur3's 32-bit finaliser: every input bit reaches every output bit (an FNV hash's low bits alone are poorly mixed). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
