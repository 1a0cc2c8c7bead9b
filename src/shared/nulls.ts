/**
 * The one convention of results (the engine API's, the analysis cards') for what the core leaves out: a field is
 * there and null (JSON keeps the key, and `year: null` says "no year", where an
 * absent key would say nothing); a flag (`ocr?: true`) is absent when false.
 * The API's result types are the core's, picked and passed through `Present`,
 * never copied field by field.
 */

/** `T` with each optional field present: `year?: number` becomes `year: number | null`. */
export type Present<T> = { [K in keyof T]-?: undefined extends T[K] ? Exclude<T[K], undefined> | null : T[K] };

/** The `keys` of `o`, each one the core left out made null. */
export function present<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Pick<Present<T>, K> {
  const out: Partial<Record<K, unknown>> = {};
  for (const k of keys) out[k] = o[k] ?? null;
  return out as Pick<Present<T>, K>;
}

/** What a result says of its source: a search hit, a completion entry, an analysis card. */
export const SOURCE_FIELDS = ['path', 'title', 'authors', 'year', 'citekey'] as const;
