/**
 * Text normalisation shared by the lexical index and the embedded encoder:
 * case + accent folding, FR/EN stopwords, light FR/EN stemming.
 * Pure functions, no corpus state, so index terms never change under a document.
 */

import { foldAccents } from '../../shared/fold';

export type Lang = 'en' | 'fr';

const LIGATURES: Record<string, string> = {
  œ: 'oe',
  Œ: 'oe',
  æ: 'ae',
  Æ: 'ae',
  ß: 'ss',
  ﬁ: 'fi',
  ﬂ: 'fl',
  ﬀ: 'ff',
  ﬃ: 'ffi',
  ﬄ: 'ffl',
  ﬅ: 'st',
  ﬆ: 'st',
};
const LIGATURE_RE = /[œŒæÆßﬁﬂﬀﬃﬄﬅﬆ]/g;
// Typographic apostrophes and hyphens become ASCII so elision and splitting see one form.
const APOS_RE = /[\u2019\u2018\u02BC\u0060\u00B4]/g;
const ELISION_RE = /\b(?:l|d|j|m|n|s|t|c|qu|lorsqu|puisqu|jusqu|quoiqu)'(?=[a-z])/g;

// Greek letters are spelled out, as writers do when the symbol is not at hand:
// "TNF-α" and "TNF-alpha", "IL-1β" and "IL-1 beta" meet. Spaces around the name
// keep it a word of its own.
const GREEK: Record<string, string> = {
  α: 'alpha',
  β: 'beta',
  γ: 'gamma',
  δ: 'delta',
  ε: 'epsilon',
  ζ: 'zeta',
  η: 'eta',
  θ: 'theta',
  ι: 'iota',
  κ: 'kappa',
  λ: 'lambda',
  μ: 'mu',
  µ: 'mu',
  ν: 'nu',
  ξ: 'xi',
  ο: 'omicron',
  π: 'pi',
  ρ: 'rho',
  σ: 'sigma',
  ς: 'sigma',
  τ: 'tau',
  υ: 'upsilon',
  φ: 'phi',
  ϕ: 'phi',
  χ: 'chi',
  ψ: 'psi',
  ω: 'omega',
};
const GREEK_RE = /[\u0391-\u03A9\u03B1-\u03C9\u00B5\u03D5]/g;

/** Lowercase, fold accents and ligatures, spell out Greek letters, drop French elisions (l', d', qu'...). */
export function foldText(s: string): string {
  let t = s.replace(LIGATURE_RE, (c) => LIGATURES[c] ?? c).replace(APOS_RE, "'");
  t = t.replace(GREEK_RE, (c) => {
    const name = GREEK[c.toLowerCase()];
    return name ? ` ${name} ` : c;
  });
  t = foldAccents(t);
  return t.replace(ELISION_RE, '');
}

// English function words (a mid-sized list; bag-of-words ranking cannot use negation anyway).
const EN_STOP = (
  'a about above after again against all am an and any are as at be because been before being below between both but by ' +
  'can could did do does doing down during each few for from further had has have having he her here hers herself him himself ' +
  'his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ' +
  'ourselves out over own same she should so some such than that the their theirs them themselves then there these they this ' +
  'those through to too under until up very was we were what when where which while who whom why will with would you your ' +
  'yours yourself yourselves also may might must shall us et al via upon within without whether thus however therefore ' +
  'although though yet either neither whose'
).split(' ');

// French, already folded (accents removed).
const FR_STOP = (
  'a au aux avec ce ces cet cette dans de des du elle elles en et eux il ils je la le les leur leurs lui ma mais me meme mes ' +
  'moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous ' +
  'c d j l m n s t y ete etee etees etes etant suis es est sommes etes sont serai sera seront serait seraient etait etaient ' +
  'ai as avons avez ont aura auront aurait auraient avait avaient eu eue eus ceci cela celà celui celle ceux celles ci la ' +
  'donc or ni car si sans sous entre vers chez selon comme ainsi alors aussi bien tres plus moins peu tout tous toute toutes ' +
  'autre autres lorsque puisque quand dont ou cet leur ici deja encore certains certaines plusieurs chaque afin'
).split(' ');

const EN_SET = new Set(EN_STOP);
const FR_SET = new Set(FR_STOP);
// English text keeps French-looking tokens ("il" in IL-6, "sur", "son"); French text
// also drops English function words, which appear in titles and quotations.
const STOP_FOR: Record<Lang, ReadonlySet<string>> = { en: EN_SET, fr: new Set([...EN_STOP, ...FR_STOP]) };

export function stopwords(lang: Lang): ReadonlySet<string> {
  return STOP_FOR[lang];
}
// Words that only one language uses as a function word decide the language of a text.
const EN_ONLY = new Set(EN_STOP.filter((w) => !FR_SET.has(w) && w.length > 1));
const FR_ONLY = new Set(FR_STOP.filter((w) => !EN_SET.has(w) && w.length > 1));

const WORD_RE = /[a-z0-9]+/g;

/** Folded alphanumeric words, stopwords included. */
export function words(text: string): string[] {
  return foldText(text).match(WORD_RE) ?? [];
}

/** French if French-only function words outnumber English-only ones; English otherwise. */
export function detectLanguage(ws: readonly string[]): Lang {
  let en = 0;
  let fr = 0;
  for (const w of ws) {
    if (EN_ONLY.has(w)) en++;
    else if (FR_ONLY.has(w)) fr++;
  }
  return fr > en ? 'fr' : 'en';
}

/**
 * The language a text is written in, from its function words (at most its first 400 words);
 * undefined when they do not tell (fewer than `minWords`, or as many of each).
 */
export function languageOf(text: string, minWords = 3): Lang | undefined {
  let en = 0;
  let fr = 0;
  const ws = text.match(/\p{L}+/gu) ?? [];
  for (let i = 0; i < ws.length && i < 400; i++) {
    const w = foldText(ws[i]);
    if (EN_ONLY.has(w)) en++;
    else if (FR_ONLY.has(w)) fr++;
  }
  if (en + fr < minWords || en === fr) return undefined;
  return fr > en ? 'fr' : 'en';
}

const FRENCH_LETTERS_RE = /[éèêàçùûîôœëï]/i;

/**
 * The language of a text however short (a sentence, a title): its function words, one of them
 * being enough (languageOf with minWords 1 answers as languageOf whenever that answers), else
 * French when it has a letter only French uses here (é, è, ç…); undefined when nothing tells.
 * For the fusion's cross-language test, not for stemming.
 */
export function languageHint(text: string): Lang | undefined {
  return languageOf(text, 1) ?? (FRENCH_LETTERS_RE.test(text) ? 'fr' : undefined);
}

// Stems are pure functions of the word, so a bounded cache saves most of the stemming cost.
const stemCache: [Map<string, string>, Map<string, string>] = [new Map(), new Map()];
const CACHE_MAX = 200_000;

export function stem(word: string, lang: Lang): string {
  const cache = stemCache[lang === 'fr' ? 1 : 0];
  let s = cache.get(word);
  if (s === undefined) {
    s = lang === 'fr' ? stemFrench(word) : stemEnglish(americanSpelling(word));
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(word, s);
  }
  return s;
}

const LETTER_DIGIT_RE = /[a-z]+|[0-9]+/g;

/**
 * Index terms: folded words, stopwords removed, stemmed in the text's language.
 * A word mixing letters and digits (NLRP3, IL6, B12, 3T3) is kept whole and also
 * gives its letter and digit runs, so "IL6" meets "IL-6" and "NIH3T3" meets "NIH 3T3".
 */
export function tokenize(text: string, lang?: Lang): string[] {
  const ws = words(text);
  const l = lang ?? detectLanguage(ws);
  const stop = STOP_FOR[l];
  const out: string[] = [];
  for (const w of ws) {
    if (stop.has(w)) continue;
    // Single letters carry no meaning; long digit runs (ids, page numbers) are kept.
    if (w.length < 2 && !(w >= '0' && w <= '9')) continue;
    if (isAlphanumericMix(w)) {
      out.push(w);
      for (const run of w.match(LETTER_DIGIT_RE)!) out.push(run);
      continue;
    }
    out.push(stem(w, l));
  }
  return out;
}

function isAlphanumericMix(w: string): boolean {
  let letters = false;
  let digits = false;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 48 && c <= 57) digits = true;
    else letters = true;
    if (letters && digits) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// British spellings folded onto American ones before stemming, so "tumour",
// "ischaemia", "randomised" and "analyse" meet "tumor", "ischemia", "randomized",
// "analyze". Applied to both sides, a rule that rewrites a word with no American
// twin (exercise -> exercize) is harmless: it only ever merges true variants.
const AE_PREFIX_RE = /^(?:an|leuk|isch|septic|hypo?glyc|hyperglyc|glyc|ur|bacter|vir|tox|lip|hyperkal|hypokal|hyponatr|hypernatr)?aem/;
const OE_AE_PREFIX_RE = /^(?:oestr|oedem|oesoph|foet|paed|orthopaed|gynaec|diarrhoe|haem|coeliac|anaesth|caesar)/;
const OUR_RE = /(tum|col|behavi|fav|lab|neighb|hum|rum|vap|od|flav|hon|harb|vig|rig|savi|endeav)our/;

export function americanSpelling(w: string): string {
  if (w.length < 5) return w;
  let x = w;
  if (x.includes('ae') || x.includes('oe')) {
    x = x.replace(AE_PREFIX_RE, (m) => m.replace('ae', 'e')).replace('aemi', 'emi');
    x = x.replace(OE_AE_PREFIX_RE, (m) => m.replace(/ae|oe/, 'e'));
  }
  if (x.includes('our')) x = x.replace(OUR_RE, '$1or');
  if (x.includes('is')) x = x.replace('isation', 'ization').replace(/^(.{3,})is(e|ed|es|ing|er|ers)$/, '$1iz$2');
  if (x.includes('ys')) x = x.replace(/yse(d|s)?$/, 'yze$1').replace(/ysing$/, 'yzing');
  if (x.endsWith('tre') || x.endsWith('tres')) x = x.replace(/tre(s?)$/, 'ter$1');
  return x;
}

// ---------------------------------------------------------------------------
// English: the Porter (1980) algorithm, written from its published description.

function isCons(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false;
  if (c === 121) return i === 0 ? true : !isCons(w, i - 1); // y
  return true;
}

/** Number of VC sequences in w[0..end). */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isCons(w, i)) i++;
  while (i < end) {
    while (i < end && !isCons(w, i)) i++;
    if (i >= end) break;
    while (i < end && isCons(w, i)) i++;
    n++;
  }
  return n;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isCons(w, i)) return true;
  return false;
}

function endsDoubleCons(w: string, end: number): boolean {
  return end >= 2 && w[end - 1] === w[end - 2] && isCons(w, end - 1);
}

/** cvc where the last c is not w, x or y. */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false;
  if (!isCons(w, end - 1) || isCons(w, end - 2) || !isCons(w, end - 3)) return false;
  const c = w[end - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

const STEP2: Array<[string, string]> = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];
const STEP3: Array<[string, string]> = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];
// Longest suffix first so the first match is the one Porter's rules mean.
const byLen = (a: string, b: string) => b.length - a.length;
STEP2.sort((a, b) => byLen(a[0], b[0]));
STEP3.sort((a, b) => byLen(a[0], b[0]));
STEP4.sort(byLen);

function replaceIfMeasure(w: string, rules: Array<[string, string]>, minM: number): string {
  for (const [suf, rep] of rules) {
    if (w.endsWith(suf)) {
      const stemEnd = w.length - suf.length;
      return measure(w, stemEnd) > minM ? w.slice(0, stemEnd) + rep : w;
    }
  }
  return w;
}

export function stemEnglish(word: string): string {
  if (word.length <= 2 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  // Step 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);
  // Step 1b
  let extra = false;
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleCons(w, w.length) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && endsCvc(w, w.length)) w += 'e';
  }
  // Step 1c
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + 'i';
  // Steps 2, 3
  w = replaceIfMeasure(w, STEP2, 0);
  w = replaceIfMeasure(w, STEP3, 0);
  // Step 4
  for (const suf of STEP4) {
    if (w.endsWith(suf)) {
      const stemEnd = w.length - suf.length;
      if (measure(w, stemEnd) > 1) {
        if (suf !== 'ion' || (stemEnd > 0 && (w[stemEnd - 1] === 's' || w[stemEnd - 1] === 't'))) w = w.slice(0, stemEnd);
      }
      break;
    }
  }
  // Step 5a
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  // Step 5b
  if (w.endsWith('ll') && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

// ---------------------------------------------------------------------------
// French: a light stemmer (plurals, feminine, common inflections), on folded words.

export function stemFrench(word: string): string {
  let w = word;
  if (w.length <= 3 || !/^[a-z]+$/.test(w)) return w;
  // journaux -> journal, travaux -> traval: the plural in -aux returns to -al.
  if (w.length > 5 && w.endsWith('aux')) return w.slice(0, -3) + 'al';
  if (w.endsWith('s') || w.endsWith('x')) w = w.slice(0, -1);
  // Adverbs in -ement/-ment: rapidement -> rapid.
  if (w.length > 7 && w.endsWith('ement')) w = w.slice(0, -5);
  else if (w.length > 6 && w.endsWith('ment') && !isCons(w, w.length - 5)) w = w.slice(0, -4);
  // Infinitive -er and participles -e/-ee fold onto one stem: etudier, etudie(e)(s) -> etudi.
  if (w.length > 5 && w.endsWith('er')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  // -eux/-euse and -if/-ive collapse to one form.
  if (w.length > 5 && w.endsWith('eus')) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith('iv')) w = w.slice(0, -1) + 'f';
  // Doubled final consonant after the cut (nouvelle -> nouvel, cancerologie fine).
  if (w.length > 4 && w[w.length - 1] === w[w.length - 2] && isCons(w, w.length - 1)) w = w.slice(0, -1);
  return w;
}
