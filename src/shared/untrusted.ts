/**
 * Text the product did not write — PDF text and metadata, bibliography fields,
 * file names, the draft's headings — made safe to show. Invisible formatting
 * that can disguise text (bidirectional overrides and isolates, zero-width
 * characters, NUL and other control characters) is removed, so the text reads
 * in the order it was written; lengths are bounded, so one 100,000-character
 * word cannot take over a CodeLens, a hover or a card. Escaping for a given
 * medium (HTML in webviews, Markdown in hovers) happens where it is shown.
 */

// C0 controls but tab/newline, DEL, C1 controls; bidi embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), marks (U+200E, U+200F, U+061C); zero-width and BOM.
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B-\u200D\u2060\uFEFF]/g;

/** Without invisible formatting and control characters (tabs and line breaks stay). */
export function visibleText(s: string): string {
  return String(s ?? '').replace(INVISIBLE, '');
}

/** At most `max` characters (whole code points), with an ellipsis when cut. */
export function bounded(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length <= max ? s : chars.slice(0, Math.max(0, max - 1)).join('') + '…';
}

/** One line of visible text, whitespace collapsed, at most `max` characters: for a CodeLens or a hover. */
export function lineText(s: string, max: number): string {
  return bounded(visibleText(s).replace(/\s+/g, ' ').trim(), max);
}

/**
 * Markdown that shows `s` as plain text: one line, bounded, and every ASCII
 * punctuation mark written as a numeric character reference. No character can
 * then start markup, and no URL, `www.` or e-mail address is turned into a link
 * (autolinking reads the raw text, where `https&#58;//` is no URL); the reader
 * sees the characters as they were.
 */
export function markdownText(s: string, max: number): string {
  return lineText(s, max).replace(/[!-/:-@[-`{-~]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Bounds for the fields of a card, generous enough for any real title or excerpt. */
export const LIMITS = { title: 400, author: 120, authors: 30, heading: 200, preview: 1200, label: 40, highlight: 80, duplicates: 20, comment: 400 } as const;

interface CardText {
  title: string;
  authors: string[];
  pageLabel: string | null;
  preview: string;
  highlights: string[];
  duplicates: string[];
  citekey: string | null;
  passages: Array<{ pageLabel: string | null; heading: string | null; preview: string }>;
  highlight?: { page: string; text: string; comment?: string; color?: string };
  doi?: string;
  itemType?: string;
  tags?: string[];
}

/** A hex colour ("#ffd400"), else undefined: it is written into a style. */
export function safeColor(c: string | undefined): string | undefined {
  return typeof c === 'string' && /^#[0-9a-f]{3,8}$/i.test(c.trim()) ? c.trim().toLowerCase() : undefined;
}

/** A card's untrusted fields made visible and bounded (its path is left as it is: it names the file). */
export function safeCard<T extends CardText>(c: T): T {
  const line = (s: string, max: number) => lineText(s, max);
  const opt = (s: string | null, max: number) => (s === null ? null : line(s, max));
  return {
    ...c,
    title: line(c.title, LIMITS.title),
    authors: c.authors.slice(0, LIMITS.authors).map((a) => line(a, LIMITS.author)),
    pageLabel: opt(c.pageLabel, LIMITS.label),
    preview: line(c.preview, LIMITS.preview),
    highlights: c.highlights.map((h) => line(h, LIMITS.highlight)).filter(Boolean),
    duplicates: c.duplicates.slice(0, LIMITS.duplicates).map((d) => line(d, LIMITS.title)),
    citekey: opt(c.citekey, LIMITS.title),
    passages: c.passages.map((p) => ({
      ...p,
      pageLabel: opt(p.pageLabel, LIMITS.label),
      heading: opt(p.heading, LIMITS.heading),
      preview: line(p.preview, LIMITS.preview),
    })),
    ...(c.highlight ? { highlight: safeHighlight(c.highlight) } : {}),
    ...(c.doi !== undefined ? { doi: line(c.doi, LIMITS.heading) } : {}),
    ...(c.itemType !== undefined ? { itemType: line(c.itemType, LIMITS.label) } : {}),
    ...(c.tags !== undefined
      ? {
          tags: c.tags
            .slice(0, LIMITS.duplicates)
            .map((t) => line(t, LIMITS.highlight))
            .filter(Boolean),
        }
      : {}),
  };
}

/** A Zotero highlight made visible and bounded, its colour kept only when it is a hex colour. */
export function safeHighlight<H extends { page: string; text: string; comment?: string; color?: string }>(h: H): H {
  const color = safeColor(h.color);
  const comment = h.comment === undefined ? '' : lineText(h.comment, LIMITS.comment);
  const { comment: _c, color: _k, ...rest } = h;
  return {
    ...rest,
    page: lineText(h.page, LIMITS.label),
    text: lineText(h.text, LIMITS.preview),
    ...(comment ? { comment } : {}),
    ...(color ? { color } : {}),
  } as H;
}

/**
 * What a terminal acts on or what hides text on it: C0 and C1 controls and DEL (ESC starts CSI
 * and OSC sequences — screen clearing, colours, OSC 8 links, the window title —, U+009B is CSI
 * in one byte, CR and BS overwrite, BEL rings, a newline makes a fake line), format characters
 * (bidi embeddings, overrides, isolates and marks, zero-width characters, the soft hyphen, tag
 * characters: \p{Cf}), the line and paragraph separators and lone surrogates.
 */
const TERMINAL_UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;
const UNSAFE_CHAR = /^[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]$/u;
/** What stands for a break or a space in prose. */
const SPACING_CONTROL = /^[\t\n\v\f\r\u0085\u2028\u2029]$/;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\x1b`, `\n`, `\u202e`, `\u{e0041}`: the character as it would be written in JavaScript. */
function escaped(c: string): string {
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16);
  return ESCAPES[c] ?? (cp <= 0xff ? `\\x${hex.padStart(2, '0')}` : cp <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`);
}

/**
 * Untrusted text made safe for one line of a terminal (the CLI's human output), at most `max`
 * characters with "…" when cut. Nothing in it can move the cursor, clear the screen, make a
 * link, change the title, start a new line or reorder what follows.
 *
 * - `name` (file names and paths, citekeys, locators, messages that embed them): each unsafe
 *   character is written as an escape (`\x1b`, `\n`, `\u202e`), not removed. A name is what the
 *   user looks for or types: with the ESC or the right-to-left override removed, `evil‮txt.exe`
 *   would read as an innocent name, two files whose names differ by a hidden character would
 *   print alike, and the user could not tell the file that has it. The backslash itself is kept
 *   as it is (Windows paths), so a name that holds the text `\x1b` prints like one with an ESC.
 * - `prose` (PDF text, titles, authors, quotations): whitespace, line breaks and tabs become one
 *   space and the other unsafe characters are removed, as the extension's views show such text
 *   (`lineText`): they carry no meaning in running text, and escapes would only clutter it.
 */
export function terminalText(s: string, max: number, kind: 'name' | 'prose' = 'name'): string {
  const text = String(s ?? '');
  if (kind === 'prose') {
    const clean = text
      .replace(TERMINAL_UNSAFE, (c) => (SPACING_CONTROL.test(c) ? ' ' : ''))
      .replace(/\s+/g, ' ')
      .trim();
    return bounded(clean, max);
  }
  // Escapes lengthen the text: the bound counts what is printed, and never cuts an escape in two.
  const pieces: string[] = [];
  const widths: number[] = [];
  let n = 0;
  for (const c of text) {
    const piece = UNSAFE_CHAR.test(c) ? escaped(c) : c;
    pieces.push(piece);
    widths.push(piece === c ? 1 : piece.length);
    n += widths[widths.length - 1];
    if (n > max) break; // a 100,000-character name is not escaped whole
  }
  if (n <= max) return pieces.join('');
  while (pieces.length && n > max - 1) {
    pieces.pop();
    n -= widths.pop()!;
  }
  return pieces.join('') + '…';
}
