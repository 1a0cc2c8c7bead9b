/**
 * What a sentence-embedding model needs beyond its weights: how token vectors become one
 * vector (pooling), the task prefixes its card mandates, how many tokens it reads. Known models
 * are listed; any other repository or folder in the transformers.js layout works when these
 * are given explicitly.
 */

export type Pooling = 'mean' | 'cls';

export interface LocalModelSpec {
  pooling: Pooling;
  /** L2-normalise the pooled vector (every retrieval model here is used with cosine). */
  normalize: boolean;
  queryPrefix: string;
  passagePrefix: string;
  /** Longer inputs are truncated to this many tokens (special tokens included). */
  maxTokens: number;
  /** Vector length when known in advance; otherwise read from config.json (hidden_size). */
  dimension?: number;
  /** Hub revision downloaded (a branch or commit). */
  revision: string;
  /** Weights file inside the folder: the int8 export is ~4× smaller and ~3× faster on CPU. */
  onnxFile: string;
  /**
   * A query is embedded twice, after the query prefix and after the passage prefix, and the two
   * vectors averaged (then normalised): a draft's paragraph is as much a passage as a question,
   * and the passage-side vector matches passages in the other language better. Costs a second
   * embedding per query; passages are unchanged.
   */
  queryAlsoAsPassage?: boolean;
}

export const DEFAULT_LOCAL_MODEL = 'Xenova/multilingual-e5-small';
export const QUANTIZED_ONNX = 'onnx/model_quantized.onnx';
export const FP32_ONNX = 'onnx/model.onnx';
const BGE_QUERY = 'Represent this sentence for searching relevant passages: ';
const E5_QUERY = 'query: ';
const E5_PASSAGE = 'passage: ';

/** What the known models share: small (384 dimensions, 512 tokens), normalised, int8, from `main`; their pooling and prefixes differ. */
function small(pooling: LocalModelSpec['pooling'], queryPrefix: string, passagePrefix: string): LocalModelSpec {
  return { pooling, normalize: true, queryPrefix, passagePrefix, maxTokens: 512, dimension: 384, revision: 'main', onnxFile: QUANTIZED_ONNX };
}

/**
 * Revisions are `main`: no commit of these repositories could be looked up from these machines
 * (the Hub is unreachable), so a hash could not be checked. The download records the commit the
 * Hub served (X-Repo-Commit) beside the files.
 */
export const KNOWN_MODELS: Record<string, LocalModelSpec> = {
  // Multilingual (≈100 languages, French and English included), cross-lingual retrieval. Queries
  // also as passages: measured 2026-12-04 on the development sets (int8, the product's fusion;
  // BENCHMARKS.md, "Queries embedded twice"): xling fr2en 0.826 → 0.858, en2fr 0.853 → 0.864,
  // SciFact train claims 0.807 → 0.812 (1,662-abstract part); e5-small-v2 lost 0.03 on SciFact with
  // passage-prefixed queries, so the English models keep one query vector.
  'Xenova/multilingual-e5-small': { ...small('mean', E5_QUERY, E5_PASSAGE), queryAlsoAsPassage: true },
  // English; the card mandates "query: " / "passage: " (even for symmetric tasks).
  'Xenova/e5-small-v2': small('mean', E5_QUERY, E5_PASSAGE),
  'Xenova/bge-small-en-v1.5': small('cls', BGE_QUERY, ''),
  'Xenova/gte-small': small('mean', '', ''),
  // sentence-transformers trained it on 256-token inputs (max_seq_length 256).
  'Xenova/all-MiniLM-L6-v2': { ...small('mean', '', ''), maxTokens: 256 },
};

/** A folder named like a known repository (`…/Xenova/gte-small`, or just `…/gte-small`) gets its entry. */
function knownByFolderName(path: string): LocalModelSpec | undefined {
  const parts = path.replace(/\\/g, '/').replace(/\/+$/, '').split('/');
  const name = parts.at(-1)?.toLowerCase();
  const key =
    Object.keys(KNOWN_MODELS).find((k) => k.toLowerCase() === parts.slice(-2).join('/').toLowerCase()) ??
    Object.keys(KNOWN_MODELS).find((k) => k.split('/')[1].toLowerCase() === name);
  return key ? KNOWN_MODELS[key] : undefined;
}

/** Settings a user may give for a model the table does not know (or to override it). */
export type LocalModelOverrides = Partial<LocalModelSpec>;

const GENERIC: LocalModelSpec = {
  pooling: 'mean',
  normalize: true,
  queryPrefix: '',
  passagePrefix: '',
  maxTokens: 512,
  revision: 'main',
  onnxFile: QUANTIZED_ONNX,
};

/** The table entry for a repository id (case-insensitive), or undefined. */
export function knownModel(id: string): LocalModelSpec | undefined {
  const key = Object.keys(KNOWN_MODELS).find((k) => k.toLowerCase() === id.toLowerCase());
  return key ? KNOWN_MODELS[key] : undefined;
}

/**
 * The spec for a model: the table's entry (or, for a folder, the entry its name matches, e.g.
 * `…/Xenova/gte-small`), then explicit overrides. Unknown models get mean pooling, no prefixes.
 */
export function resolveModelSpec(model: string, overrides: LocalModelOverrides = {}): LocalModelSpec {
  const base = knownModel(model) ?? knownByFolderName(model) ?? GENERIC;
  const spec: LocalModelSpec = { ...base };
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) (spec as unknown as Record<string, unknown>)[k] = v;
  if (spec.pooling !== 'mean' && spec.pooling !== 'cls') throw new Error(`pooling must be "mean" or "cls" (got "${String(spec.pooling)}")`);
  if (!Number.isInteger(spec.maxTokens) || spec.maxTokens < 8 || spec.maxTokens > 8192)
    throw new Error(`maxTokens must be a whole number from 8 to 8192 (got ${spec.maxTokens})`);
  return spec;
}
