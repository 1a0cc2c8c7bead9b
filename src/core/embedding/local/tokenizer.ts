/**
 * The model's own tokenizer, read from its tokenizer.json with @lenml/tokenizers (the
 * tokenizer half of transformers.js, no dependencies): WordPiece for BERT-like models,
 * SentencePiece/Unigram for XLM-R ones such as multilingual-e5.
 */
import { join } from 'node:path';
import { readConfinedTextSync } from '../../util/confinedFiles';
import { TokenizerLoader } from '@lenml/tokenizers';

export interface Encoded {
  ids: number[];
  /** Segment ids (all 0 for a single text). */
  typeIds: number[];
}

export interface TextTokenizer {
  /** Ids with the model's special tokens, truncated to maxTokens (special tokens included). */
  encode(text: string, maxTokens: number): Encoded;
  /**
   * A pair (a cross-encoder's query and passage) with the model's special tokens between and
   * around them and its segment ids, truncated to maxTokens as Hugging Face's `longest_first`
   * does: the longer text is cut first, both to half when both are long.
   */
  encodePair(a: string, b: string, maxTokens: number): Encoded;
  readonly padId: number;
}

/** Where the special tokens of a pair go: before A, between A and B, after B, with each part's segment ids. */
interface PairTemplate {
  prefix: number[];
  middle: number[];
  suffix: number[];
  types: { prefix: number[]; a: number; middle: number[]; b: number; suffix: number[] };
}

/**
 * Lengths of A and B after Hugging Face tokenizers' LongestFirst truncation to `room` tokens
 * (special tokens not counted): nothing cut when they fit; else only the longer one, down to what
 * the shorter leaves; else both, to half each (the second gets the odd token).
 */
export function longestFirst(n1: number, n2: number, room: number): [number, number] {
  if (n1 + n2 <= room) return [n1, n2];
  const swap = n1 > n2;
  let [short, long] = swap ? [n2, n1] : [n1, n2];
  long = short > room ? short : Math.max(short, room - short);
  if (short + long > room) {
    short = Math.floor(room / 2);
    long = short + (room % 2);
  }
  return swap ? [long, short] : [short, long];
}

export function loadTokenizer(modelDir: string): TextTokenizer {
  const read = (f: string) => JSON.parse(readConfinedTextSync(join(modelDir, f), { kind: 'model', maxBytes: 256 * 1024 * 1024 }).text);
  const tokenizerJSON = read('tokenizer.json');
  let tokenizerConfig: Record<string, unknown> = {};
  try {
    tokenizerConfig = read('tokenizer_config.json');
  } catch {
    // Optional in the layout: tokenizer.json alone describes the pipeline.
  }
  const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig }) as unknown as LoadedTokenizer;
  const padToken = typeof tokenizerConfig.pad_token === 'string' ? tokenizerConfig.pad_token : undefined;
  const padId = (padToken && (tok as unknown as { model: { tokens_to_ids: Map<string, number> } }).model.tokens_to_ids.get(padToken)) || 0;
  const encodeFull = (text: string): number[] => tok.encode(text, { add_special_tokens: true });
  // The tokens the post-processor appends (e.g. [SEP], </s>): truncation keeps them, as HF does
  // (the library's own truncation cuts them off).
  const probeFull = encodeFull('probe');
  const probeBare = tok.encode('probe', { add_special_tokens: false });
  const start = probeFull.findIndex((_, i) => probeBare.every((id, j) => probeFull[i + j] === id));
  const suffix = start < 0 ? [] : probeFull.slice(start + probeBare.length);
  const minTokens = probeFull.length - probeBare.length + 1;
  let template: PairTemplate | undefined;
  return {
    padId,
    encodePair(a, b, maxTokens) {
      template ??= pairTemplate(tok);
      const t = template;
      const specials = t.prefix.length + t.middle.length + t.suffix.length;
      if (maxTokens < specials + 2) throw new Error(`maxTokens ${maxTokens} leaves no room for a pair`);
      const ia = tok.encode(a, { add_special_tokens: false });
      const ib = tok.encode(b, { add_special_tokens: false });
      const [na, nb] = longestFirst(ia.length, ib.length, maxTokens - specials);
      const ids = [...t.prefix, ...ia.slice(0, na), ...t.middle, ...ib.slice(0, nb), ...t.suffix];
      const typeIds = [
        ...t.types.prefix,
        ...new Array<number>(na).fill(t.types.a),
        ...t.types.middle,
        ...new Array<number>(nb).fill(t.types.b),
        ...t.types.suffix,
      ];
      return { ids, typeIds };
    },
    encode(text, maxTokens) {
      if (maxTokens < minTokens) throw new Error(`maxTokens ${maxTokens} leaves no room for text`);
      let ids = encodeFull(text);
      if (ids.length > maxTokens) ids = ids.slice(0, maxTokens - suffix.length).concat(suffix);
      return { ids, typeIds: new Array<number>(ids.length).fill(0) };
    },
  };
}

type LoadedTokenizer = {
  encode(text: string, options: { add_special_tokens: boolean; text_pair?: string }): number[];
  _encode_plus(
    text: string,
    options: { text_pair: string; add_special_tokens: boolean; return_token_type_ids: boolean },
  ): { input_ids: number[]; token_type_ids?: number[] };
};

/**
 * The model's own pair layout, read off its post-processor by encoding two probe words as a pair
 * ([CLS] A [SEP] B [SEP] with segments 0 and 1 for BERT, <s> A </s></s> B </s> for XLM-R): pairs
 * are then assembled around texts truncated beforehand, as Hugging Face truncates before adding
 * special tokens.
 */
function pairTemplate(tok: LoadedTokenizer): PairTemplate {
  const A = 'alpha';
  const B = 'omega';
  const ia = tok.encode(A, { add_special_tokens: false });
  const ib = tok.encode(B, { add_special_tokens: false });
  const full = tok._encode_plus(A, { text_pair: B, add_special_tokens: true, return_token_type_ids: true });
  const ids = full.input_ids.map(Number);
  const types = (full.token_type_ids ?? ids.map(() => 0)).map(Number);
  const at = (needle: number[], from: number) => {
    for (let i = from; i + needle.length <= ids.length; i++) if (needle.every((id, j) => ids[i + j] === id)) return i;
    throw new Error("the tokenizer does not keep a pair's texts apart: not a cross-encoder's tokenizer");
  };
  const sa = at(ia, 0);
  const sb = at(ib, sa + ia.length);
  const eb = sb + ib.length;
  return {
    prefix: ids.slice(0, sa),
    middle: ids.slice(sa + ia.length, sb),
    suffix: ids.slice(eb),
    types: { prefix: types.slice(0, sa), a: types[sa], middle: types.slice(sa + ia.length, sb), b: types[sb], suffix: types.slice(eb) },
  };
}
