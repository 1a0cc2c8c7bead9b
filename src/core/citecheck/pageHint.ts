/**
 * For a citation without a quotation: does another page of the source match
 * the citing sentence far better than the cited one? The source's pages are
 * scored against the sentence with the product's BM25 (the index's terms:
 * folded, stopwords out, stemmed in the source's language); a page wins when
 * it scores `RATIO` times the best cited page and shares enough of the
 * sentence's weight. A hint, never a verdict: a paraphrase may rightly cite a
 * page that uses other words. Pure: no I/O.
 */
import { Bm25Index } from '../retrieval/bm25';
import { detectLanguage, tokenize as indexTerms, words, type Lang } from '../text/tokenize';
import type { SourceText } from './match';

export interface PageHint {
  /** The printed label of the page that matches better. */
  page: string;
  /** Its BM25 score over the best cited page's; null when the cited pages share no term with the sentence. */
  ratio: number | null;
  /** The page's words that match the sentence best (a few lines). */
  excerpt: string;
}

/** What the scores of one citing sentence say (the measurement reads them to choose the thresholds). */
export interface PageScores {
  /** Distinct index terms of the sentence. */
  terms: number;
  /** The best page outside the cited ones (index into src.pages), its score, and its share of the sentence's term weight (0–1). */
  best: number;
  bestScore: number;
  bestShare: number;
  /** The best cited page's score. */
  citedScore: number;
}

/**
 * Thresholds, chosen on the development set (scripts/measure-citation-check.ts --features, seed 21):
 * the better page scores at least RATIO times the cited one and holds MIN_SHARE of the sentence's
 * idf weight; the sentence has MIN_TERMS index terms. There, sentences citing their right page
 * reached at most 1.86 times (none fired; 2 of 217 at 1.5), wrong pages fired 165 of 184 times.
 */
export const HINT_RATIO = 2.5;
export const HINT_MIN_SHARE = 0.4;
export const HINT_MIN_TERMS = 4;

interface Lexicon {
  index: Bm25Index;
  lang: Lang;
}

const lexicons = new WeakMap<SourceText, Lexicon>();

function lexicon(src: SourceText): Lexicon {
  let lex = lexicons.get(src);
  if (lex) return lex;
  // One language for the source (its first pages tell), so that page and sentence stem alike.
  let sample = '';
  for (const p of src.pages) {
    if (sample.length > 20000) break;
    sample += ` ${p.text}`;
  }
  const lang = detectLanguage(words(sample));
  const index = new Bm25Index();
  src.pages.forEach((p, i) => index.add(i, indexTerms(p.text, lang)));
  lexicons.set(src, (lex = { index, lang }));
  return lex;
}

/** The sentence's scores against the source's pages; undefined when no page outside `cited` shares a term. */
export function pageScores(src: SourceText, cited: { from: number; to: number }, sentence: string): PageScores | undefined {
  const { index, lang } = lexicon(src);
  const q = indexTerms(sentence, lang);
  const terms = new Set(q).size;
  if (!terms) return undefined;
  const hits = index.search(q, src.pages.length);
  let best = -1;
  let bestScore = 0;
  let citedScore = 0;
  for (const h of hits) {
    if (h.id >= cited.from && h.id <= cited.to) citedScore = Math.max(citedScore, h.score);
    else if (best < 0) {
      best = h.id;
      bestScore = h.score;
    }
  }
  if (best < 0) return undefined;
  return { terms, best, bestScore, bestShare: index.overlapWith(q).of(best).query, citedScore };
}

/** The hint for a citation of `cited` by `sentence`, or undefined. */
export function betterPage(src: SourceText, cited: { from: number; to: number }, sentence: string): PageHint | undefined {
  if (src.pages.length < 2) return undefined;
  const s = pageScores(src, cited, sentence);
  if (!s || s.terms < HINT_MIN_TERMS || s.bestShare < HINT_MIN_SHARE || s.bestScore < HINT_RATIO * s.citedScore) return undefined;
  return { page: src.pages[s.best].label, ratio: s.citedScore > 0 ? s.bestScore / s.citedScore : null, excerpt: excerpt(src, s.best, sentence) };
}

const EXCERPT_WORDS = 30;

/** The stretch of the page's words that holds most of the sentence's terms. */
function excerpt(src: SourceText, page: number, sentence: string): string {
  const { lang } = lexicon(src);
  const want = new Set(indexTerms(sentence, lang));
  const a = src.pageStart[page];
  const b = src.pageStart[page + 1];
  if (b <= a) return '';
  const hit: number[] = [];
  for (let i = a; i < b; i++) hit.push(indexTerms(src.tokens[i], lang).some((t) => want.has(t)) ? 1 : 0);
  let bestAt = a;
  let bestN = -1;
  let n = 0;
  for (let i = 0; i < hit.length; i++) {
    n += hit[i];
    if (i >= EXCERPT_WORDS) n -= hit[i - EXCERPT_WORDS];
    if (n > bestN) {
      bestN = n;
      bestAt = a + Math.max(0, i - EXCERPT_WORDS + 1);
    }
  }
  // From its first matching word.
  while (bestAt < b - 1 && !hit[bestAt - a]) bestAt++;
  return src.textBetween(bestAt, Math.min(b - 1, bestAt + EXCERPT_WORDS - 1));
}
