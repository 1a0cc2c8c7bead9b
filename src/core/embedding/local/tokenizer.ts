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
  readonly padId: number;
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
  const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
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
  return {
    padId,
    encode(text, maxTokens) {
      if (maxTokens < minTokens) throw new Error(`maxTokens ${maxTokens} leaves no room for text`);
      let ids = encodeFull(text);
      if (ids.length > maxTokens) ids = ids.slice(0, maxTokens - suffix.length).concat(suffix);
      return { ids, typeIds: new Array<number>(ids.length).fill(0) };
    },
  };
}
