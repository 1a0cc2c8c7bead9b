/**
 * What a PDF viewer's copy differs by from the product's reading of the same page, and a writer's
 * never does (issue 38). A scholar copies a quotation from Evince, Okular, Firefox or VS Code's
 * viewer: poppler, MuPDF and pdf.js each decode a page's glyphs and order its lines their own way.
 * The alignment (match.ts) forgives these, and says which it forgave:
 * - `page-furniture`: a running head, footer or page number caught in the copy (page breaks; see
 *   match.ts, pageBreaks);
 * - `logo`: a logo typeset from letters (TeX's), which one reader spells out ("LATEX") and another
 *   drops;
 * - `small-caps`: a word in small capitals whose first letter one reader splits off ("T HIS") or loses;
 * - `glyph`: a symbol font's glyph decoded through another encoding (TeX's cmsy angle brackets and
 *   braces read as the letters of their slots: "〈lemma〉" against "hlemmai", "{x}" against "fxg");
 * - `footnote-mark`: a footnote number glued to the word it follows ("befinden.2");
 * - `cut-word`: a copy that starts or ends inside a word (the half of a word hyphenated at a line end).
 * Each rule asks for the viewer's own mark (capitals, glued digits, a trailing hyphen, the symbol
 * font's letters around a word), so a word the writer changed, added or removed is still flagged.
 */
import type { Forgiven, ForgivenKind } from '../../shared/viewerDifferences';
import type { Tokens } from './match';

export type { Forgiven, ForgivenKind };

/** Logos TeX typesets from raised and lowered letters: readers give them as a word, as letters, or not at all. */
const LOGOS = new Set([
  'tex',
  'latex',
  'latex2e',
  'bibtex',
  'biblatex',
  'xetex',
  'xelatex',
  'luatex',
  'lualatex',
  'pdftex',
  'pdflatex',
  'context',
  'metafont',
  'metapost',
  'amstex',
  'amslatex',
  'lyx',
]);

/** A token the quotation has and a viewer put there: marked `\u0001` + its kind's letter + the token. */
const MARK = '\u0001';
const MARK_OF: Record<string, ForgivenKind> = { l: 'logo', s: 'small-caps', f: 'footnote-mark', c: 'cut-word' };

export const plainToken = (t: string): string => (t.charCodeAt(0) === 1 ? t.slice(2) : t);
/** The kind of a marked quotation token (undefined: a plain word). */
export const tokenMark = (t: string): ForgivenKind | undefined => (t.charCodeAt(0) === 1 ? MARK_OF[t[1]] : undefined);
/** Whether the quotation's token may stand for nothing in the source (a viewer put it there). */
export const freeInQuote = (t: string): boolean => t.charCodeAt(0) === 1 && t[1] !== 'c';

const UPPER = /^[\p{Lu}\p{N}\s]+$/u;
/** What lies between a word and a number glued to it as a footnote mark: nothing, or one closing punctuation mark. */
const glued = (between: string) => /^[.,;:!?)\]»”’]?$/u.test(between);

/**
 * Marks the quotation's tokens a viewer's copy makes: an all-capital logo, a small-capital word's
 * split first letter, a footnote number glued to a word, a last word cut by a line-end hyphen.
 * `text` is what `t` was read from.
 */
export function markViewerTokens(t: Tokens, text: string): string[] {
  return t.tokens.map((tok, k) => {
    const raw = text.slice(t.starts[k], t.ends[k]);
    if (LOGOS.has(tok) && raw.length >= 3 && UPPER.test(raw)) return `${MARK}l${tok}`;
    if (tok.length === 1 && /\p{Lu}/u.test(raw) && k + 1 < t.tokens.length) {
      const next = text.slice(t.starts[k + 1], t.ends[k + 1]);
      if (t.starts[k + 1] === t.ends[k] + 1 && text[t.ends[k]] === ' ' && next.length >= 2 && UPPER.test(next)) return `${MARK}s${tok}`;
    }
    if (/^\d{1,2}$/.test(tok) && k > 0 && glued(text.slice(t.ends[k - 1], t.starts[k])) && /\p{L}/u.test(text.slice(t.starts[k - 1], t.ends[k - 1])))
      return `${MARK}f${tok}`;
    if (k === t.tokens.length - 1 && tok.length >= 3 && /^-\s*$/.test(text.slice(t.ends[k]))) return `${MARK}c${tok}`;
    return tok;
  });
}

/** Whether the source's token `k` may be missing from a copy: an all-capital logo, a footnote number glued to a word. */
export function freeInSource(tokens: readonly string[], raw: (k: number) => string, gap: (k: number) => string, k: number): ForgivenKind | undefined {
  const tok = tokens[k];
  if (LOGOS.has(tok)) {
    const r = raw(k);
    return r.length >= 3 && UPPER.test(r) ? 'logo' : undefined;
  }
  if (/^\d{1,2}$/.test(tok) && k > 0 && /\p{L}/u.test(raw(k - 1))) {
    return glued(gap(k)) ? 'footnote-mark' : undefined;
  }
  return undefined;
}

/**
 * Whether quotation word `a` (plain) and source word `b`, unequal, are one word read two ways by
 * viewers; `first`/`last`: `a` is the quotation's first or last word; `cut`: the quotation ends with
 * `a` cut at a hyphen; `upper`: the source's word is set in capitals.
 */
export function sameWordRead(a: string, b: string, first: boolean, cut: boolean, upper: (sj: number) => boolean, sj: number): ForgivenKind | undefined {
  const d = b.length - a.length;
  // Called for each unequal pair the alignment meets: the cheap tests first, no allocation.
  if (d > 2 || d < -2) return first && d > 0 && a.length >= 4 && b.endsWith(a) ? 'cut-word' : cut && d > 0 && b.startsWith(a) ? 'cut-word' : undefined;
  if (d === 0) return undefined;
  const short = d > 0 ? a : b;
  const long = d > 0 ? b : a;
  if ((d === 2 || d === -2) && short.length >= 2) {
    const f = long.charCodeAt(0);
    const l = long.charCodeAt(long.length - 1);
    // h…i, f…g: cmsy's 〈 〉 and { } slots.
    if (((f === 104 && l === 105) || (f === 102 && l === 103)) && long.slice(1, -1) === short) return 'glyph';
  }
  if (short.length >= 3 && long.startsWith(short) && /^\d+$/.test(long.slice(short.length)) && /^\p{L}+$/u.test(short)) return 'footnote-mark';
  if (d === -1 && b.length >= 2 && a.endsWith(b) && upper(sj)) return 'small-caps';
  if (first && d > 0 && a.length >= 4 && b.endsWith(a)) return 'cut-word';
  if (cut && d > 0 && b.startsWith(a)) return 'cut-word';
  return undefined;
}
