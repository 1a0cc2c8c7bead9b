/**
 * What a card shows of a passage: a window around its sentence with the rarest matching words, and
 * the words to highlight there (those that carry the match, by their rarity in the library). Pure.
 */
import { detectLanguage, foldText, tokenize } from '../text/tokenize';
import { isCommonTerm } from './commonWords';

/** How rare a term is in the library (BM25 idf); a term it does not hold counts as rarest. */
export type IdfLookup = (term: string) => number;

/** A window of the passage around the sentence with the rarest matches, at most `max` characters. */
export function preview(text: string, terms: Set<string>, idf: IdfLookup = () => 1, max = 320): string {
  if (text.length <= max) return text;
  const sentences = text.split(/(?<=[.!?])\s+/);
  let best = 0;
  let bestScore = -1;
  sentences.forEach((sen, i) => {
    const score = matchedTerms(sen, terms, idf).reduce((sum, m) => sum + (isCommonTerm(m.term) ? 0 : m.idf), 0);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  let out = sentences.slice(best).join(' ');
  if (out.length > max) out = out.slice(0, max).replace(/\s+\S*$/, '') + '…';
  return best > 0 ? '…' + out : out;
}

/** A query term found in a text: the words that spell it there, and its rarity. */
export interface MatchedTerm {
  term: string;
  words: string[];
  idf: number;
}

/** The query terms found in `text`, through its words' index terms (folded, stemmed, stop words out). */
export function matchedTerms(text: string, terms: Set<string>, idf: IdfLookup): MatchedTerm[] {
  const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const lang = detectLanguage(words.map((w) => foldText(w)));
  const byTerm = new Map<string, MatchedTerm>();
  for (const word of words) {
    for (const term of tokenize(word, lang)) {
      if (!terms.has(term)) continue;
      const m = byTerm.get(term);
      if (!m) byTerm.set(term, { term, words: [word], idf: idf(term) });
      else if (!m.words.includes(word)) m.words.push(word);
    }
  }
  return [...byTerm.values()];
}

/**
 * A matched term carries the match when it is no everyday word (commonWords.ts)
 * and at least this share as rare (idf) as the rarest matched term: a word
 * found in much of the library is dropped when rarer ones matched.
 */
const CARRYING_SHARE = 0.5;
const MAX_HIGHLIGHTS = 8;

/**
 * The words to highlight: the matched terms that carried the match, rarest
 * first; none when only everyday words matched (nothing specific to show).
 */
export function wordsToHighlight(text: string, terms: Set<string>, idf: IdfLookup): string[] {
  const matched = matchedTerms(text, terms, idf)
    .filter((m) => !isCommonTerm(m.term))
    .sort((a, b) => b.idf - a.idf);
  if (!matched.length) return [];
  const floor = matched[0].idf * CARRYING_SHARE;
  const kept = matched.filter((m) => m.idf >= floor).slice(0, MAX_HIGHLIGHTS);
  // Every form of a kept term in the text ("harvest", "harvests"): the webview highlights words as given.
  return [...new Set(kept.flatMap((m) => m.words))];
}
