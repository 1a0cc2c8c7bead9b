/**
 * Sentence splitting for French and English scholarly prose. A boundary is a
 * terminal mark followed by space and a capital (or an opening quote/bracket),
 * except after abbreviations (p., cf., M., etc.) and initials (J.-P., J. R. R.).
 * The text is never altered: sentences are slices of the input.
 */

const ABBREVIATIONS = new Set(
  [
    // English
    'mr',
    'mrs',
    'ms',
    'dr',
    'prof',
    'st',
    'jr',
    'sr',
    'vs',
    'etc',
    'e.g',
    'i.e',
    'cf',
    'al',
    'et al',
    'ibid',
    'id',
    'op',
    'cit',
    'loc',
    'vol',
    'vols',
    'no',
    'nos',
    'nr',
    'fig',
    'figs',
    'ed',
    'eds',
    'trans',
    'ch',
    'chap',
    'sec',
    'p',
    'pp',
    'para',
    'n',
    'nn',
    'ca',
    'c',
    'approx',
    'col',
    'cols',
    'ser',
    'repr',
    'rev',
    'esp',
    'viz',
    'resp',
    'jan',
    'feb',
    'mar',
    'apr',
    'jun',
    'jul',
    'aug',
    'sep',
    'sept',
    'oct',
    'nov',
    'dec',
    'univ',
    'dept',
    'inc',
    'ltd',
    'co',
    'gen',
    'gov',
    'lt',
    'col',
    'capt',
    'sgt',
    'ms',
    'mss',
    'fol',
    'fols',
    'f',
    'ff',
    'art',
    'al',
    'ref',
    'suppl',
    // French
    'm',
    'mm',
    'mme',
    'mmes',
    'mlle',
    'mlles',
    'me',
    'mgr',
    'dr',
    'pr',
    'ste',
    'st',
    'cf',
    'éd',
    'éds',
    'coll',
    'dir',
    'trad',
    'env',
    'av',
    'apr',
    'j.-c',
    'hab',
    'chap',
    'p',
    'pp',
    't',
    'tt',
    'vol',
    'n°',
    'fig',
    'ill',
    'ibid',
    'id',
    'op',
    'cit',
    'art',
    'éd',
    'réed',
    'rééd',
    'suiv',
    'sq',
    'sqq',
    'janv',
    'févr',
    'avr',
    'juil',
    'sept',
    'oct',
    'nov',
    'déc',
    'etc',
    'cie',
    'bd',
    'ms',
    'fo',
    'vo',
    'ro',
  ].map((a) => a.toLowerCase()),
);

/** Words that take a following number or name, so "p. 45" or "M. Dupont" never ends a sentence. */
const BEFORE_NUMBER = new Set(['p', 'pp', 'vol', 'no', 'n', 'nr', 'fig', 'ch', 'chap', 't', 'art', 'fol', 'f', 'sec', 'col']);

export interface SentenceSpan {
  start: number;
  end: number;
  text: string;
}

export function splitSentences(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  // Closers may include footnote markers: "…the end.[^2] Next". Linear on any text: a run of
  // marks is tried from its first mark only (the lookbehind), and a footnote label holds no `[`
  // (from every mark of ".[^x.[^x.[^x…" the label was scanned to the end of the text); the space
  // after the marks is taken whole (`(?!\s)`: giving some back never helps the lookahead, and
  // trying each length was quadratic in a long run of spaces).
  const boundary = /(?<![.!?…])([.!?…]+)((?:[»”"’')\]]|\[\^[^\]\s[]+\])*)(\s+)(?!\s)(?=[«“"‘'(\[]?\s*[\p{Lu}\p{N}¿¡«“])/gu;
  let start = 0;
  let m: RegExpExecArray | null;
  while ((m = boundary.exec(text)) !== null) {
    const markEnd = m.index + m[1].length + m[2].length;
    if (!isBoundary(text, m.index, m[1], m[2], markEnd + m[3].length)) continue;
    push(spans, text, start, markEnd);
    start = markEnd + m[3].length;
  }
  push(spans, text, start, text.length);
  return spans;
}

function push(spans: SentenceSpan[], text: string, start: number, end: number) {
  // Trim without changing offsets' meaning: the span covers exactly the sentence.
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  if (end > start) spans.push({ start, end, text: text.slice(start, end) });
}

function isBoundary(text: string, markIndex: number, mark: string, closers: string, nextIndex: number): boolean {
  if (mark !== '.') {
    // "« Qui ? » demanda-t-il" — a question inside a quotation followed by a lower-case
    // verb is caught by the lookahead (needs a capital); here only guard "?!" runs.
    return true;
  }
  if (closers) return true; // period after a closing quote or bracket ends the sentence
  const before = text.slice(Math.max(0, markIndex - 40), markIndex);
  const wordMatch = /([\p{L}\p{N}°][\p{L}\p{N}°.'’-]*)$/u.exec(before);
  if (!wordMatch) return true;
  const word = wordMatch[1];
  const lower = word.toLowerCase();
  const next = text.slice(nextIndex, nextIndex + 30);
  // Initials: "J.", "J.-P.", "R.R." — a single capital letter (possibly hyphen-joined).
  if (/^(?:\p{Lu}\.?-)*\p{Lu}$/u.test(word) || /^(?:\p{Lu}\.)+\p{Lu}$/u.test(word)) {
    return false;
  }
  const bare = lower.replace(/^.*[-']/, '');
  if (ABBREVIATIONS.has(lower) || ABBREVIATIONS.has(bare)) {
    if (BEFORE_NUMBER.has(lower) && /^[\p{N}IVXLCivxlc]/u.test(next)) return false;
    // "etc.", "ibid." and "op. cit." often end a sentence; "M.", "cf.", "Dr.", "et al." do not.
    return lower === 'etc' || lower === 'ibid' || lower === 'cit';
  }
  // Abbreviations with inner periods: "e.g.", "i.e.", "J.-C."
  if (/^(?:\p{L}\.)+\p{L}$/u.test(word)) return false;
  // Numbers like "3." in enumerations followed by a digit are decimals, handled by the lookahead.
  return true;
}
