/**
 * Where a passage lies in a page's text items (pdf.js getTextContent), for the
 * PDF viewer's highlight. Pure: tested under mocha without a DOM.
 */
import { foldAccents } from '../../src/shared/fold';

/** Words of the passage's start that are looked for (fewer when they are not found). */
export const HIGHLIGHT_WORDS = 12;

/** Folds one character (shared/fold: accents off, lower case); only letters and digits remain. */
export function foldChar(ch: string): string {
  return foldAccents(ch).replace(/[^\p{L}\p{N}]+/gu, '');
}

/** The search key of a passage: its first words, letters and digits only. */
export function needleOf(text: string, words: number): string {
  const parts = text
    .replace(/^[\s.…]+/, '')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, words);
  let out = '';
  for (const ch of parts.join(' ')) out += foldChar(ch);
  return out;
}

/**
 * Finds the passage in a page's text items, ignoring case, accents,
 * whitespace, punctuation and line-end hyphenation (all folded away).
 */
export function findPassage(items: string[], text: string): Map<number, [number, number]> | null {
  let hay = '';
  const itemOf: number[] = [];
  const startOf: number[] = [];
  const endOf: number[] = [];
  items.forEach((item, i) => {
    let k = 0;
    for (const ch of item) {
      const folded = foldChar(ch);
      for (let j = 0; j < folded.length; j++) {
        hay += folded[j];
        itemOf.push(i);
        startOf.push(k);
        endOf.push(k + ch.length);
      }
      k += ch.length;
    }
  });
  if (!hay) return null;
  for (const words of [HIGHLIGHT_WORDS, 8, 6, 4]) {
    const needle = needleOf(text, words);
    if (needle.length < 8 && words !== HIGHLIGHT_WORDS) break;
    if (!needle) return null;
    const at = hay.indexOf(needle);
    if (at < 0) continue;
    const last = at + needle.length - 1;
    const ranges = new Map<number, [number, number]>();
    for (let i = itemOf[at]!; i <= itemOf[last]!; i++) {
      const start = i === itemOf[at] ? startOf[at]! : 0;
      const end = i === itemOf[last] ? endOf[last]! : items[i]!.length;
      if (end > start) ranges.set(i, [start, end]);
    }
    return ranges;
  }
  return null;
}
