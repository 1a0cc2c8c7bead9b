/**
 * An honest plain-BM25 baseline in the Lucene/Anserini style: lowercase,
 * Lucene's English stopwords, Porter stemming, k1 = 0.9, b = 0.4, title and
 * text as one field. Our own pipeline is measured against it.
 */
import { Bm25Index } from '../retrieval/bm25';
import { stemEnglish } from '../text/tokenize';

// Lucene's EnglishAnalyzer default stop set.
const LUCENE_EN_STOP = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

export function plainAnalyze(text: string): string[] {
  const out: string[] = [];
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (LUCENE_EN_STOP.has(w)) continue;
    out.push(stemEnglish(w));
  }
  return out;
}

export class PlainBm25 {
  private readonly index = new Bm25Index({ k1: 0.9, b: 0.4 });
  private readonly ids: string[];

  constructor(docs: Array<{ id: string; title: string; text: string }>) {
    this.ids = docs.map((d) => d.id);
    docs.forEach((d, i) => this.index.add(i, plainAnalyze(`${d.title} ${d.text}`)));
  }

  search(query: string, k: number): Array<{ id: string; score: number }> {
    return this.index.search(plainAnalyze(query), k).map((h) => ({ id: this.ids[h.id], score: h.score }));
  }
}
