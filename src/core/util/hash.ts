/**
 * Content hashes: a PDF's identity in the index and the OCR cache, cache keys of
 * analyses and bibliographies, source ids. One function, so every key is the same
 * hex SHA-256 of the same bytes.
 */
import { createHash } from 'node:crypto';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
