/**
 * Decides, page by page, whether a PDF's text layer is usable or the page needs
 * OCR: no text at all, or text that is mostly not words — an old scanner's OCR
 * layer, replacement characters, a font without a Unicode map that yields
 * symbol soup. The thresholds were measured on fixtures (scripts/measure-ocr.ts
 * prints the figures; README "Scanned PDFs"). A layer the rules keep on a scanned page, and one
 * they find garbage by its words alone, is only doubted: OCR of a sample page decides
 * (agreementWithOcr here, the verdict in ocrPlan.ts).
 */
import { foldText, stopwords } from '../text/tokenize';

export interface PageTextQuality {
  /** Letters on the page. */
  letters: number;
  /** Whitespace-separated tokens that contain at least one letter or digit. */
  tokens: number;
  /** Share of those tokens that look like words (see wordLike). */
  wordShare: number;
  /** Share of the non-space characters that are replacement, control or private-use characters. */
  badCharShare: number;
  /** Share of the letters that stand in word-like runs of four or more (see wordRunShare). */
  runShare: number;
  /** 'ok', or why the page needs OCR. */
  verdict: 'ok' | 'no-text' | 'garbage';
}

/** Fewer letters than this on a page means no usable text layer (a scan, perhaps with a stray page number). */
export const MIN_LETTERS = 40;
/**
 * Below this share of word-like tokens, a text layer is garbage. Measured (scripts/measure-ocr.ts,
 * 67 pages of the example library and test corpus): clean pages ≥ 0.98; damaged layers ≤ 0.54
 * (35% of characters misread) and ≤ 0.53 (a symbol font read as Latin-1); layers of private-use
 * or replacement characters are caught by MAX_BAD_CHAR_SHARE instead (≥ 0.12 there, 0 on clean pages).
 */
export const MIN_WORD_SHARE = 0.6;
/** Above this share of replacement/control/private-use characters, the encoding is broken (clean pages: 0). */
export const MAX_BAD_CHAR_SHARE = 0.05;
/**
 * A page below MIN_WORD_SHARE is still a good layer when at least this share of its letters stand in
 * word-like runs of four letters or more: code (`\def\bbl@tempa{USenglish}`, `DeclareInputText`),
 * formulas and tables break whitespace tokens into non-words but keep their words whole, where a
 * damaged layer breaks the words themselves. Measured (scripts/measure-ocr.ts, and 13,258 pages of
 * Debian's TeX manuals, BENCHMARKS.md "OCR decisions"): clean prose pages (the example library) ≥ 0.75; damaged layers ≤ 0.41
 * (35% misread), ≤ 0.38 (glued, case-scrambled), 0 (symbol font, private-use glyphs).
 */
export const MIN_RUN_SHARE = 0.5;

/**
 * Adobe's corporate-use code points (the Adobe Glyph List) that fonts without a full Unicode map
 * still give for old-style figures and small capitals: U+F721–F77E are ASCII's characters
 * (`\uF733\uF730\uF739` is "309" in old-style figures), U+F7A1–F7FF Latin-1's (small-cap à…ÿ).
 * They decode, so they are read as what they are, not as broken private-use glyphs.
 */
const ADOBE_PRIVATE_USE = /[\uF721-\uF77E\uF7A1-\uF7FF]/gu;

export function decodeAdobePrivateUse(text: string): string {
  return text.replace(ADOBE_PRIVATE_USE, (c) => String.fromCharCode(c.charCodeAt(0) - 0xf700));
}

const BAD_CHAR = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uE000-\uF8FF]/gu;

export function pageTextQuality(text: string): PageTextQuality {
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  const nonSpace = text.replace(/\s+/g, '').length;
  const bad = (text.match(BAD_CHAR) ?? []).length;
  const tokens = text.split(/\s+/).filter((t) => /[\p{L}\p{N}]/u.test(t));
  const words = tokens.filter(wordLike).length;
  const wordShare = tokens.length ? words / tokens.length : 0;
  const badCharShare = nonSpace ? bad / nonSpace : 0;
  const runShare = wordRunShare(text);
  let verdict: PageTextQuality['verdict'] = 'ok';
  if (letters < MIN_LETTERS) verdict = 'no-text';
  else if (badCharShare > MAX_BAD_CHAR_SHARE || (wordShare < MIN_WORD_SHARE && runShare < MIN_RUN_SHARE)) verdict = 'garbage';
  return { letters, tokens: tokens.length, wordShare, badCharShare, runShare, verdict };
}

/**
 * Letter runs, with camelCase split into its parts (`DeclareInputText` → Declare, Input, Text;
 * `tHeHiStOrY` → t, He, Hi, St, Or, Y) and runs of caseless scripts whole.
 */
const LETTER_RUN = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{Lo}+/gu;

/**
 * The share of a page's letters that stand in word-like runs of at least four letters. Whatever
 * surrounds words in code or formulas (backslashes, braces, @, digits) leaves them whole; noise
 * that replaces a third of the characters, or scrambles case, leaves few four-letter runs intact.
 */
export function wordRunShare(text: string): number {
  let all = 0;
  let good = 0;
  for (const run of text.match(LETTER_RUN) ?? []) {
    all += run.length;
    if (run.length >= 4 && wordLike(run)) good += run.length;
  }
  return all ? good / all : 0;
}

/** A plain ASCII word, capitalised or not, in ASCII punctuation (what wordLike strips from its ends). */
const PLAIN_WORD = /^[!-/:-@[-`{-~]*([A-Z]?[a-z]+)[!-/:-@[-`{-~]*$/;
const ASCII_VOWEL = /[aeiouyAEIOUY]/;

/**
 * A token looks like a word when, stripped of surrounding punctuation, it is a
 * number, or letters (with inner apostrophes, hyphens, periods) that hold a
 * vowel when longer than three Latin letters, no letter tripled, and no more than one
 * case change inside (which "McDonald" has and OCR noise like "tHe" hardly does).
 */
export function wordLike(token: string): boolean {
  // Most tokens are plain ASCII words, perhaps capitalised, perhaps in ASCII punctuation: judged
  // here by the same rules without the Unicode expressions, which cost a quarter of a page's
  // extraction (a plain word has no inner case change, so only the tripled letter and the vowel
  // rules can fail it).
  const plain = PLAIN_WORD.exec(token);
  if (plain) {
    const w = plain[1];
    if (w.length > 25) return false;
    for (let i = 2; i < w.length; i++) if (w[i] === w[i - 1] && w[i] === w[i - 2]) return false;
    return w.length <= 3 || ASCII_VOWEL.test(w);
  }
  const t = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  if (!t) return false;
  if (/^[\p{N}]+(?:[.,:/–-][\p{N}]+)*\p{L}{0,3}$/u.test(t)) return true; // 1550, 12.3, 1550–1650, 2nd, 19e
  if (!/^\p{L}+(?:['’.\-]\p{L}+)*\.?$/u.test(t)) return false;
  const letters = t.replace(/[^\p{L}]/gu, '');
  if (letters.length > 25) return false;
  if (/(\p{L})\1\1/u.test(letters)) return false;
  // Vowels are Latin's: a Greek or Cyrillic word is judged by the other rules.
  if (letters.length > 3 && /\p{Script=Latin}/u.test(letters) && !/[aeiouyàâäéèêëîïôöùûüÿæœáíóúåøAEIOUYÀÂÄÉÈÊËÎÏÔÖÙÛÜŸÆŒÁÍÓÚÅØ]/u.test(letters)) return false;
  const changes = (letters.match(/\p{Ll}\p{Lu}/gu) ?? []).length;
  return changes === 0 || (changes === 1 && /^\p{Lu}/u.test(letters));
}

/**
 * Function words of the languages a scholar's Latin-script library is mostly written in (English and
 * French from the engine's stopword lists; German, Spanish, Italian, Portuguese, Dutch and Latin
 * here), folded. Prose in any of them is a quarter or more function words; a layer whose letters
 * decode to the wrong letters (a font whose map is off: "Uif ijtupsz pg") holds almost none, yet its
 * tokens can pass for words.
 */
const OTHER_FUNCTION_WORDS = (
  'der die das und ist nicht mit den dem des ein eine einer zu von sich auf fur im auch als wie bei oder wird sind ' +
  'el los las y del se por con para una es lo como al mas pero su sus este esta ' +
  'il che di non per della delle sono gli nel alla con una come anche ' +
  'o os as do da em um uma nao com dos das por mais ' +
  'de het een en van ik te dat niet zijn op voor met als ' +
  'et est in ad non cum sed quod ut qui quae ex ab per sunt esse'
).split(' ');
const FUNCTION_WORDS: ReadonlySet<string> = new Set([...stopwords('fr'), ...OTHER_FUNCTION_WORDS]);
/** Characters looked at for the share: a page's first few hundred words tell (it runs on every page). */
const FUNCTION_SAMPLE_CHARS = 2500;
const NON_ASCII = /[^\x00-\x7f]/;

/** The share of a text's words (letter runs, folded) that are function words of a language above. */
export function functionWordShare(text: string): number {
  const ws = (text.length > FUNCTION_SAMPLE_CHARS ? text.slice(0, FUNCTION_SAMPLE_CHARS) : text).toLowerCase().match(/\p{L}+/gu) ?? [];
  let f = 0;
  for (const w of ws) if (FUNCTION_WORDS.has(NON_ASCII.test(w) ? foldText(w) : w)) f++;
  return ws.length ? f / ws.length : 0;
}

/**
 * A layer the rules keep is still doubted, on a page that is a scan (an image over most of it),
 * when fewer than this share of its words are function words. Measured (pages of 400 letters or
 * more): the example library's 46 pages 0.42–0.55; the same pages with every letter shifted by 1, 2,
 * 3 or 13 (all of them passing the word rules) 0.03–0.04, at most 0.11. Of the 1,483 pages of
 * Debian's TeX manuals whose tokens are ≥ 90% words, median 0.38 and 5% under 0.1: indexes, tables,
 * lorem ipsum, Greek — born digital, so never doubted, and on a scan OCR would read them alike.
 */
export const DOUBT_FUNCTION_SHARE = 0.15;

/**
 * How far OCR of a page agrees with its text layer: the share of the words OCR read (three letters
 * or more, word-like) that the layer holds too. A right layer shares 0.8–1 of them (OCR's own
 * misreadings aside; code read alike both ways too), a layer of shifted or misread letters under
 * 0.3. It tells only when OCR read at least MIN_SAMPLE_WORDS (over a figure or a photograph it
 * reads too little): `right` when they agree, `wrong` when they do not and OCR's own text is
 * usable by the rules (OCR noise proves nothing).
 */
export function agreementWithOcr(layer: string, ocr: string): { agreement: number; words: number; right: boolean; wrong: boolean } {
  const read = comparable(ocr);
  const inLayer = new Set(comparable(layer));
  let shared = 0;
  for (const w of read) if (inLayer.has(w)) shared++;
  const agreement = read.length ? shared / read.length : 0;
  const enough = read.length >= MIN_SAMPLE_WORDS;
  return {
    agreement,
    words: read.length,
    right: enough && agreement >= MAX_AGREEMENT,
    wrong: enough && agreement < MAX_AGREEMENT && pageTextQuality(ocr).verdict === 'ok',
  };
}
export const MIN_SAMPLE_WORDS = 20;
/** Below this agreement OCR proves a layer wrong; at or above it, right. */
export const MAX_AGREEMENT = 0.5;

/** Words of three letters or more, folded, that look like words: what two readings of a page can share. */
function comparable(text: string): string[] {
  return (foldText(text).match(/[\p{L}]{3,}/gu) ?? []).filter(wordLike);
}
