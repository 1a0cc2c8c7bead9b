/**
 * The offline "embedded" encoder: signed feature hashing of stemmed words, word
 * bigrams and character n-grams into a small dense vector. Deterministic, no model
 * file, no network, and a passage's vector depends on that passage alone, so an
 * incremental index never has to re-embed old passages.
 */
import { detectLanguage, stem, stopwords, words } from '../text/tokenize';
import { l2normalize } from './provider';
import { fmix32, fnv1a32 } from '../util/hash';

/** Bump whenever the features, weights or hashing change: stored vectors key on it. */
export const EMBEDDED_MODEL = 'hashgram-v2';
export const EMBEDDED_DIM = 512;

export interface EncoderConfig {
  dim: number;
  unigram: number;
  bigram: number;
  /** Total weight of one word's character n-grams, shared among them. */
  chargram: number;
  minN: number;
  maxN: number;
  /** Sublinear term frequency: 1 + log(tf). */
  sublinear: boolean;
}

export const DEFAULT_ENCODER: EncoderConfig = {
  dim: EMBEDDED_DIM,
  unigram: 1,
  bigram: 0.5,
  chargram: 0.5,
  minN: 3,
  maxN: 5,
  sublinear: true,
};

export interface EncodeOptions {
  /** Query-side weight per stemmed term (e.g. idf from the index); 1 when absent. */
  termWeight?: (term: string) => number;
  config?: EncoderConfig;
}

const SEED_UNI = 0x01;
const SEED_BI = 0x02;
const SEED_CHAR = 0x03;

/** Raw feature mass, plus (for weighted queries) the term-weighted mass. */
class Features {
  raw = new Map<number, number>();
  weighted: Map<number, number> | null;
  tw = 1;
  constructor(weighted: boolean) {
    this.weighted = weighted ? new Map() : null;
  }
  add(h: number, w: number): void {
    this.raw.set(h, (this.raw.get(h) ?? 0) + w);
    if (this.weighted) this.weighted.set(h, (this.weighted.get(h) ?? 0) + w * this.tw);
  }
}

export function encode(text: string, kind: 'query' | 'passage' = 'passage', options: EncodeOptions = {}): Float32Array {
  void kind; // Queries and passages share one space; only the optional term weights differ.
  const cfg = options.config ?? DEFAULT_ENCODER;
  const weightOf = options.termWeight;
  const ws = words(text);
  const lang = detectLanguage(ws);
  const stop = stopwords(lang);
  const feats = new Features(weightOf !== undefined);
  // Words whose character n-grams are added after the word features: (word, weight) pairs.
  const charGrams: Array<string | number> = [];
  let prev: string | null = null;
  let prevW = 1;
  for (const w of ws) {
    if (stop.has(w) || (w.length < 2 && !(w >= '0' && w <= '9'))) {
      prev = null; // Bigrams do not bridge stopwords.
      continue;
    }
    const s = stem(w, lang);
    const tw = weightOf ? weightOf(s) : 1;
    feats.tw = tw;
    if (cfg.unigram > 0) feats.add(fmix32(fnv1a32(s, SEED_UNI)), cfg.unigram);
    if (cfg.bigram > 0 && prev !== null) {
      feats.tw = Math.sqrt(tw * prevW);
      feats.add(fmix32(fnv1a32(prev + ' ' + s, SEED_BI)), cfg.bigram);
      feats.tw = tw;
    }
    if (cfg.chargram > 0) charGrams.push(w, tw);
    prev = s;
    prevW = tw;
  }
  const v = new Float32Array(cfg.dim);
  const mask = cfg.dim - 1; // dim is a power of two
  for (const [h, c] of feats.raw) {
    // Sublinear tf: repeats count as 1 + log(tf); fractional (n-gram) mass stays linear below 1.
    let val = cfg.sublinear ? (c >= 1 ? 1 + Math.log(c) : c) : c;
    // Query term weights scale the feature after the tf curve, so idf is not flattened by it.
    if (feats.weighted) val *= (feats.weighted.get(h) ?? 0) / c;
    // Bit 31 gives the sign, so collisions cancel in expectation instead of piling up.
    v[h & mask] += h & 0x80000000 ? -val : val;
  }
  // N-gram mass is fractional (below the sublinear knee), so it is added linearly, straight into v.
  for (let i = 0; i < charGrams.length; i += 2) {
    const signed = charGramBuckets(charGrams[i] as string, cfg);
    const w = cfg.chargram * (charGrams[i + 1] as number);
    for (let j = 0; j < signed.length; j++) {
      const b = signed[j];
      if (b >= 0) v[b & mask] += w * (1 / signed.length);
      else v[~b & mask] -= w * (1 / signed.length);
    }
  }
  return l2normalize(v);
}

// Per-word cache of signed n-gram buckets (~b encodes a negative sign); words repeat a lot.
const gramCache = new Map<string, Int32Array>();
let gramCacheCfg: EncoderConfig | null = null;
const GRAM_CACHE_MAX = 100_000;

function charGramBuckets(word: string, cfg: EncoderConfig): Int32Array {
  if (gramCacheCfg !== cfg) {
    gramCache.clear();
    gramCacheCfg = cfg;
  }
  const hit = gramCache.get(word);
  if (hit) return hit;
  const padded = '<' + word + '>';
  const L = padded.length;
  let n = 0;
  for (let g = cfg.minN; g <= cfg.maxN; g++) if (L >= g) n += L - g + 1;
  const out = new Int32Array(n);
  let k = 0;
  for (let g = cfg.minN; g <= cfg.maxN; g++) {
    for (let i = 0; i + g <= L; i++) {
      // Hash the substring in place: no string allocation per n-gram.
      let h = (2166136261 ^ SEED_CHAR ^ (g << 8)) >>> 0;
      for (let j = i; j < i + g; j++) {
        h ^= padded.charCodeAt(j);
        h = Math.imul(h, 16777619);
      }
      const m = fmix32(h >>> 0);
      const bucket = m & 0x7fffffff & (cfg.dim - 1);
      out[k++] = m & 0x80000000 ? ~bucket : bucket;
    }
  }
  if (gramCache.size >= GRAM_CACHE_MAX) gramCache.clear();
  gramCache.set(word, out);
  return out;
}
