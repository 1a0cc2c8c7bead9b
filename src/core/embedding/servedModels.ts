/**
 * The task prefixes of a model served by Ollama or an OpenAI-compatible server. Such a server
 * knows the model by a name of its own (`intfloat/multilingual-e5-small`,
 * `jeffh/intfloat-multilingual-e5-small:f16`, `bge-small-en-v1.5`…), so the name is matched
 * loosely against the product's model table (`KNOWN_MODELS`, read here, never copied) and a
 * table of served models whose cards mandate prefixes. An explicit prefix (even '') always wins.
 *
 * The prefixes change the vectors: a provider's storage `key` names a passage prefix, and its
 * `queryKey` (the analysis cache's model) a query prefix, unless it is the one the provider used
 * before prefixes could be set (`legacy`, provider.ts's `prefixedKey`), so that stored vectors and cached
 * analyses stay valid.
 */
import { KNOWN_MODELS } from './local/models';

export interface TaskPrefixes {
  query: string;
  passage: string;
}

const E5: TaskPrefixes = { query: 'query: ', passage: 'passage: ' };
const BGE: TaskPrefixes = { query: 'Represent this sentence for searching relevant passages: ', passage: '' };
const NOMIC: TaskPrefixes = { query: 'search_query: ', passage: 'search_document: ' };

/**
 * Served models beyond the local table (whose `multilingual-e5-small`, `bge-small-en-v1.5`… count
 * too), by the last part of their name in lower case, each as its model card documents it. The
 * local table's entries take precedence where both list one.
 */
export const SERVED_MODEL_PREFIXES: Readonly<Record<string, TaskPrefixes>> = {
  'multilingual-e5-base': E5,
  'multilingual-e5-large': E5,
  'e5-small-v2': E5,
  'e5-base-v2': E5,
  'e5-large-v2': E5,
  'bge-base-en-v1.5': BGE,
  'bge-large-en-v1.5': BGE,
  'mxbai-embed-large': BGE,
  'mxbai-embed-large-v1': BGE,
  'nomic-embed-text': NOMIC,
  'nomic-embed-text-v1': NOMIC,
  'nomic-embed-text-v1.5': NOMIC,
};

/** Format and quantisation suffixes a served name may carry (`-GGUF`, `.f16`, `-q8_0`…). */
const FORMAT_SUFFIX = /[-_.](gguf|ggml|onnx|f16|f32|fp16|fp32|bf16|int8|q[2-8](_[0-9a-z]+)*)$/;

/**
 * The bare model name: lower case, without an Ollama tag (`:f16`, `:latest`), an owner or
 * registry path (`intfloat/`, `hf.co/user/`) or a format suffix.
 */
export function servedModelBase(name: string): string {
  let s = name.trim().toLowerCase().replace(/\\/g, '/');
  s = s.replace(/:[^/:]*$/, '');
  s = s.split('/').filter(Boolean).at(-1) ?? s;
  for (let prev = ''; prev !== s;) {
    prev = s;
    s = s.replace(FORMAT_SUFFIX, '');
  }
  return s;
}

/**
 * The documented prefixes for a served model's name, or undefined when no table knows it. The
 * bare name must be a known name or end with one after a separator (`intfloat-multilingual-e5-small`);
 * the longest known name wins, so `multilingual-e5-large-instruct` (another format) matches none.
 */
export function servedModelPrefixes(name: string): TaskPrefixes | undefined {
  const base = servedModelBase(name);
  if (!base) return undefined;
  const candidates: [string, TaskPrefixes][] = [
    ...Object.entries(KNOWN_MODELS).map(([id, spec]): [string, TaskPrefixes] => [
      servedModelBase(id),
      { query: spec.queryPrefix, passage: spec.passagePrefix },
    ]),
    ...Object.entries(SERVED_MODEL_PREFIXES),
  ];
  let best: [string, TaskPrefixes] | undefined;
  for (const c of candidates) {
    const [known] = c;
    const matches = base === known || (base.endsWith(known) && /[-_.]/.test(base[base.length - known.length - 1]));
    if (matches && (!best || known.length > best[0].length)) best = c;
  }
  return best && { ...best[1] };
}

/** The prefixes a served provider uses: explicit ones, else the documented ones, else none. */
export function resolvePrefixes(model: string, explicit: { queryPrefix?: string; passagePrefix?: string }): TaskPrefixes {
  const known = servedModelPrefixes(model);
  return { query: explicit.queryPrefix ?? known?.query ?? '', passage: explicit.passagePrefix ?? known?.passage ?? '' };
}
