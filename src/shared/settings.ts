/**
 * Every `similarSources.*` setting, defined once: type, default, range or
 * choices, scope, and whether Restricted Mode withholds it. The extension reads
 * VS Code's configuration through it, the CLI a workspace's settings.json, and a
 * test checks package.json's `contributes.configuration` against it.
 * Pure data and pure functions: every layer may import it.
 */

export type Granularity = 'section' | 'paragraph' | 'sentence';
export type SourceTypeFilter = 'secondary' | 'primary' | 'both';
export type ProviderName = 'auto' | 'embedded' | 'local' | 'ollama' | 'openai';

interface Common {
  /** `resource`: may differ per workspace folder; absent: VS Code's default (window). */
  scope?: 'resource';
  /** Withheld in Restricted Mode (it names files to read or a server to contact). */
  restricted?: boolean;
}
export type SettingSpec = Common &
  (
    | {
        type: 'string';
        default: string;
        enum?: readonly string[];
        enumDescriptions?: boolean;
        /** The choice a true or false of an earlier boolean version of the setting stands for. */
        fromBoolean?: { readonly true: string; readonly false: string };
      }
    | { type: 'boolean'; default: boolean }
    | { type: 'integer' | 'number'; default: number; minimum: number; maximum: number }
    | { type: 'array'; default: readonly string[] }
  );

export const SETTINGS_SECTION = 'similarSources';

export const SETTINGS = {
  libraryFolders: { type: 'array', default: [], scope: 'resource', restricted: true },
  primarySourceFolders: { type: 'array', default: [], scope: 'resource', restricted: true },
  bibliographyFile: { type: 'string', default: '', scope: 'resource', restricted: true },
  /** 'auto': Zotero's library joins the library folders when its data directory exists; 'off': never read. */
  zotero: { type: 'string', default: 'auto', enum: ['auto', 'off'], enumDescriptions: true, scope: 'resource', restricted: true },
  /** Zotero's data directory; '' = the profile's prefs.js, else ~/Zotero. */
  zoteroDataDir: { type: 'string', default: '', scope: 'resource', restricted: true },
  include: { type: 'array', default: [], scope: 'resource' },
  exclude: { type: 'array', default: [], scope: 'resource' },
  provider: { type: 'string', default: 'auto', enum: ['auto', 'embedded', 'local', 'ollama', 'openai'], enumDescriptions: true, restricted: true },
  localModel: { type: 'string', default: 'Xenova/multilingual-e5-small', restricted: true },
  localModelPooling: { type: 'string', default: '', enum: ['', 'mean', 'cls'] },
  localModelQueryPrefix: { type: 'string', default: '' },
  localModelPassagePrefix: { type: 'string', default: '' },
  localModelMaxTokens: { type: 'integer', default: 0, minimum: 0, maximum: 8192 },
  openaiBaseUrl: { type: 'string', default: 'http://127.0.0.1:1234/v1', restricted: true },
  openaiModel: { type: 'string', default: '' },
  /** 'auto': the served model's documented prefix when its name is a known one; '' = none; else that text. */
  openaiQueryPrefix: { type: 'string', default: 'auto' },
  openaiPassagePrefix: { type: 'string', default: 'auto' },
  ollamaHost: { type: 'string', default: 'http://127.0.0.1:11434', restricted: true },
  /** A lab's library on PostgreSQL + pgvector (postgres://user@host/db, no password): read from there, never indexed here. */
  libraryServer: { type: 'string', default: '', restricted: true },
  libraryServerSchema: { type: 'string', default: 'similar_sources', restricted: true },
  ollamaModel: { type: 'string', default: 'nomic-embed-text' },
  ollamaQueryPrefix: { type: 'string', default: 'auto' },
  ollamaPassagePrefix: { type: 'string', default: 'auto' },
  rerankModel: { type: 'string', default: 'llama3.2' },
  /** A local cross-encoder that reranks (a folder, or a Hub repository downloaded with consent); '' for none. Used before the Ollama model. */
  localReranker: { type: 'string', default: '', restricted: true },
  granularity: { type: 'string', default: 'paragraph', enum: ['section', 'paragraph', 'sentence'] },
  maxResults: { type: 'integer', default: 5, minimum: 1, maximum: 20 },
  similarityThreshold: { type: 'number', default: 0, minimum: 0, maximum: 1 },
  sourceType: { type: 'string', default: 'secondary', enum: ['secondary', 'primary', 'both'] },
  collectionFilter: { type: 'array', default: [] },
  /** 'auto': rerank when an LLM is configured and reachable, quietly not otherwise; 'on': say why when it cannot; 'off'. */
  useReranking: { type: 'string', default: 'auto', enum: ['auto', 'on', 'off'], enumDescriptions: true, fromBoolean: { true: 'auto', false: 'off' } },
  useContextualEmbedding: { type: 'boolean', default: true },
  minWords: { type: 'integer', default: 4, minimum: 1, maximum: 50 },
  citationTemplate: { type: 'string', default: '[@{key}, p. {page}]' },
  codeLens: { type: 'boolean', default: true },
  /** The weakest band a CodeLens counts; below it the lens says, dimmer, that nothing reached it. */
  codeLensMinBand: { type: 'string', default: 'related', enum: ['strong', 'related', 'weak'], enumDescriptions: true },
  cacheLifetimeHours: { type: 'number', default: 24, minimum: 0, maximum: 8760 },
  autoIndex: { type: 'boolean', default: false },
  /** Load the index (and warm its search code) once the window has settled, before any analysis asks for it. */
  preloadIndex: { type: 'boolean', default: true },
  ocr: { type: 'string', default: 'auto', enum: ['auto', 'off'], enumDescriptions: true, scope: 'resource' },
  ocrLanguages: { type: 'string', default: 'eng+fra', scope: 'resource' },
  ocrLanguageFolder: { type: 'string', default: '', scope: 'resource', restricted: true },
  watchLibrary: { type: 'boolean', default: true },
  /** Check the draft's citations against the library when it is saved (once indexed), or only on the command. */
  citationCheck: { type: 'string', default: 'onSave', enum: ['onSave', 'manual'], enumDescriptions: true },
  /** Language ids read as drafts besides markdown, quarto and rmd (shared/draftLanguages.ts). */
  draftLanguages: { type: 'array', default: [] },
  /** How Insert citation cites in a LaTeX draft: from its preamble, or one style always (shared/latexStyle.ts). */
  latexCitationStyle: { type: 'string', default: 'auto', enum: ['auto', 'biblatex', 'natbib', 'plain'], enumDescriptions: true },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;

type ValueOf<S> = S extends { type: 'array' }
  ? string[]
  : S extends { type: 'boolean' }
    ? boolean
    : S extends { type: 'integer' | 'number' }
      ? number
      : S extends { enum: readonly (infer E)[] }
        ? E
        : string;

export type Settings = { -readonly [K in SettingKey]: ValueOf<(typeof SETTINGS)[K]> };

/** The analysis options a user sets (panel controls write them back as settings). */
export const OPTION_KEYS = [
  'granularity',
  'maxResults',
  'similarityThreshold',
  'sourceType',
  'collectionFilter',
  'useReranking',
  'useContextualEmbedding',
] as const;
export type PanelOptions = Pick<Settings, (typeof OPTION_KEYS)[number]>;

/**
 * Settings from any source (VS Code's configuration, a settings.json): each
 * value of the wrong type or out of range is replaced by its default, and said
 * so in `problems`, so a typo never stops the product.
 */
export function resolveSettings(get: (key: SettingKey) => unknown): { settings: Settings; problems: string[] } {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const spec: SettingSpec = SETTINGS[key];
    let raw = get(key);
    // A boolean kept from an earlier version of a setting that became a choice: its meaning, silently.
    if (typeof raw === 'boolean' && spec.type === 'string' && spec.fromBoolean) raw = raw ? spec.fromBoolean.true : spec.fromBoolean.false;
    if (raw === undefined || raw === null) {
      out[key] = cloneDefault(spec.default);
      continue;
    }
    const problem = checkValue(spec, raw);
    if (problem) {
      problems.push(`${SETTINGS_SECTION}.${key} ${problem}; using ${JSON.stringify(spec.default)}`);
      out[key] = cloneDefault(spec.default);
    } else out[key] = spec.type === 'array' ? [...(raw as string[])] : raw;
  }
  return { settings: out as Settings, problems };
}

/** Settings from a settings.json object (keys `similarSources.x`). */
export function settingsFromJson(json: Record<string, unknown>): { settings: Settings; problems: string[] } {
  return resolveSettings((key) => json[`${SETTINGS_SECTION}.${key}`]);
}

/** What is wrong with `value` for the setting `key` (its type, range or choices), or undefined: a flag that sets it is checked alike. */
export function settingProblem(key: SettingKey, value: unknown): string | undefined {
  return checkValue(SETTINGS[key], value);
}

function checkValue(spec: SettingSpec, v: unknown): string | undefined {
  switch (spec.type) {
    case 'array':
      return Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : 'must be a list of strings';
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'must be true or false';
    case 'string':
      if (typeof v !== 'string') return 'must be a string';
      return spec.enum && !spec.enum.includes(v) ? `must be one of ${spec.enum.join(', ')} (got "${v}")` : undefined;
    case 'integer':
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v) || (spec.type === 'integer' && !Number.isInteger(v)))
        return `must be ${spec.type === 'integer' ? 'a whole number' : 'a number'}`;
      return v < spec.minimum || v > spec.maximum ? `must be from ${spec.minimum} to ${spec.maximum} (got ${v})` : undefined;
  }
}

function cloneDefault<T>(v: T): T {
  return (Array.isArray(v) ? [...v] : v) as T;
}

export function defaultSettings(): Settings {
  return resolveSettings(() => undefined).settings;
}
