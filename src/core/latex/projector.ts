/**
 * A LaTeX draft's paragraphs projected to plain text as the reader sees it, with every character's
 * place in the source (issue 25; for citations.ts): quotation marks as printed (` ``…'' `,
 * `\enquote{…}`, `\textquote[cite]{…}`, `\blockquote`, « » and babel-french's `\og … \fg`), `~` as
 * a space, `--` as a dash, `\emph{x}` as x, accents composed, and each citation command as its Pandoc
 * equivalent (`\autocite[see][p.~12]{a}` → `[see @a, p. 12]`, `\footcite` → `^[@a, 12]`, `\textcite`
 * → `@a [12]`). Comments, math, verbatim and `thebibliography` are not read. One pass over the source
 * (issue 35): an argument left open ends at its paragraph, as TeX ends a runaway argument. Pure: no I/O.
 */
import type { Para } from '../citecheck/draftCitations';
import { lineOf, lineStarts } from '../../shared/lines';
import {
  delimited,
  LATEX_CQUOTE_COMMANDS,
  LATEX_FOOTNOTE_CITES,
  LATEX_SILENT_CITES,
  LATEX_TEXTUAL_CITES,
  parseCiteAt,
  scanLatexCites,
  skipOpaque,
  type CiteItem,
  type CiteKey,
  type LatexCite,
} from '../../shared/latexCite';

const SECTIONS = new Set(['part', 'chapter', 'section', 'subsection', 'subsubsection', 'paragraph', 'subparagraph']);
/** Commands whose arguments are no prose. */
// prettier-ignore
const DROPPED = new Set([
  'label', 'ref', 'eqref', 'pageref', 'autoref', 'cref', 'Cref', 'nameref', 'url', 'input', 'include', 'subfile', 'includegraphics', 'addbibresource',
  'bibliography', 'bibliographystyle', 'printbibliography', 'vspace', 'hspace', 'index', 'glossary', 'usepackage', 'documentclass', 'newcommand',
  'renewcommand', 'setlength', 'setcounter', 'addtocounter', 'hyphenation', 'pagestyle', 'thispagestyle', 'bibitem', 'nocite', 'maketitle', 'tableofcontents',
]);
/** Quotation commands of csquotes: `\textquote[cite][punct]{text}`; the foreign ones take a language first. */
// prettier-ignore
const QUOTE_COMMANDS = new Set(['enquote', 'textquote', 'blockquote', 'foreignquote', 'foreignblockquote', 'hyphenquote', 'hyphenblockquote', 'hybridblockquote']);
const QUOTE_ENVS = new Set(['quote', 'quotation', 'displayquote', 'verse', 'foreigndisplayquote', 'hyphendisplayquote']);
/** Environments and how many braced arguments (not prose) they take. */
const ARG_ENVS: Record<string, number> = { tabular: 1, 'tabular*': 2, tabularx: 2, longtable: 1, minipage: 1, wrapfigure: 2, multicols: 1, tabulary: 2 };
// prettier-ignore
const SYMBOLS: Record<string, string> = {
  ldots: '…', dots: '…', textellipsis: '…', textendash: '–', textemdash: '—', og: '«', fg: '»', guillemotleft: '«', guillemotright: '»',
  guillemetleft: '«', guillemetright: '»', textquoteleft: '‘', textquoteright: '’', textquotedblleft: '“', textquotedblright: '”', S: '§',
  oe: 'œ', OE: 'Œ', ae: 'æ', AE: 'Æ', ss: 'ß', o: 'ø', O: 'Ø', aa: 'å', AA: 'Å', l: 'ł', L: 'Ł', i: 'ı', textasciitilde: '~',
};
/** Accent commands and their combining marks (`\'e` → é, `\c{c}` → ç). */
// prettier-ignore
const ACCENTS: Record<string, string> = {
  "'": '\u0301', '`': '\u0300', '^': '\u0302', '"': '\u0308', '~': '\u0303', '=': '\u0304', '.': '\u0307',
  c: '\u0327', v: '\u030c', u: '\u0306', H: '\u030b', r: '\u030a', k: '\u0328', d: '\u0323', b: '\u0331',
};

/** A post-note as plain text for the locator reader: `p.~12--14` → "p. 12–14"; no `[`, `]`, `;` or `@` to confuse it. */
export function noteText(note: string): string {
  return note
    .replace(/\\psqq\b/g, ' ff.')
    .replace(/\\psq\b/g, ' f.')
    .replace(/\\ppno\b/g, 'pp.')
    .replace(/\\pno\b/g, 'p.')
    .replace(/\\[,;: ]/g, ' ')
    .replace(/\\[a-zA-Z]+\*?/g, '')
    .replace(/---/g, '—')
    .replace(/--/g, '–')
    .replace(/~/g, ' ')
    .replace(/[{}]/g, '')
    .replace(/\[/g, '(')
    .replace(/\]/g, ')')
    .replace(/;/g, ',')
    .replace(/@/g, '\uff20')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface KeyPlace {
  cite: LatexCite;
  item: CiteItem;
  key: CiteKey;
  /** The key is its item's last: the post-note is its locator. */
  last: boolean;
}

/**
 * Where a group `{…}` at `i` ends (balanced braces); unclosed, where its paragraph ends, as TeX ends a
 * runaway argument there (not at the draft's end: the rest of the draft is read on).
 */
function groupEnd(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) j++;
    else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return j + 1;
    else if (c === 10 && /^\n[ \t]*\r?\n/.test(text.slice(j, j + 40))) return j;
  }
  return text.length;
}

/** After spaces (not a blank line). */
function after(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || (text[i] === '\n' && !/^\n[ \t]*\n/.test(text.slice(i, i + 40))))) i++;
  return i;
}

/** The optional `[…]` arguments at `i`, read; the offset after them and their contents. */
function optionals(text: string, i: number, max = 2): { args: Array<{ start: number; end: number }>; end: number } {
  const args: Array<{ start: number; end: number }> = [];
  let j = i;
  while (args.length < max) {
    const at = after(text, j);
    const d = delimited(text, at, '[', ']');
    if (!d) break;
    args.push({ start: at + 1, end: d.end - 1 });
    j = d.end;
  }
  return { args, end: j };
}

export class Projector {
  /** The paragraph being projected: its text in parts, and the source offset of each of its UTF-16 units. */
  private parts: string[] = [];
  private length = 0;
  private offs = new Int32Array(256);
  private blockQuote = false;
  private quoteDepth = 0;
  /** Closing actions of the open groups `{…}`, innermost last, given the offset of their `}`. */
  private frames: Array<((close: number) => void) | undefined> = [];
  /** The citation of each open quotation environment (`\begin{displayquote}[\cite{a}]`). */
  private envs: Array<{ name: string; cite?: { start: number; end: number } }> = [];
  /** How many of `envs` have each name: a stray `\end{x}` is told at once, not by a search of every open environment. */
  private open = new Map<string, number>();
  readonly paras: Para[] = [];
  /** The key of each projected `@`, by the source offset it is mapped to (just before the key). */
  readonly keys = new Map<number, KeyPlace>();
  private readonly starts: number[];

  constructor(private readonly src: string) {
    this.starts = lineStarts(src);
  }

  private emit(s: string, at: number): void {
    // A paragraph starts at its first character (a quotation environment's first line, not its line break).
    if (!this.length && !/\S/.test(s)) return;
    if (this.length + s.length > this.offs.length) {
      const grown = new Int32Array(Math.max(2 * this.offs.length, this.length + s.length));
      grown.set(this.offs.subarray(0, this.length));
      this.offs = grown;
    }
    this.offs.fill(at, this.length, this.length + s.length);
    this.length += s.length;
    this.parts.push(s);
  }

  flush(): void {
    const text = this.parts.join('');
    if (this.length && /\S/.test(text)) {
      const line = new Int32Array(this.length);
      const col = new Int32Array(this.length);
      // The first character's line found by a binary search, the others' from it (a paragraph's lines, not the draft's).
      let l = lineOf(this.starts, this.offs[0]) - 1;
      for (let k = 0; k < this.length; k++) {
        const o = this.offs[k];
        while (l + 1 < this.starts.length && this.starts[l + 1] <= o) l++;
        while (l > 0 && this.starts[l] > o) l--;
        line[k] = l;
        col[k] = o - this.starts[l];
      }
      this.paras.push({ text, line, col, blockQuote: this.blockQuote });
    }
    this.parts = [];
    this.length = 0;
    if (this.offs.length > 65536) this.offs = new Int32Array(256);
  }

  /** Projects the source from `from` to `to`. */
  walk(from: number, to: number): void {
    const src = this.src;
    for (let i = from; i < to; i++) {
      const c = src[i];
      switch (c) {
        case '\r':
          continue;
        case '\n':
          if (/^\n[ \t]*\r?\n/.test(src.slice(i, i + 40))) {
            this.flush();
            while (i + 1 < to && /\s/.test(src[i + 1])) i++;
          } else this.emit(' ', i);
          continue;
        case '%':
        case '$': {
          const end = skipOpaque(src, i);
          if (c === '$') this.emit(' ', i);
          i = Math.min(end, to) - 1;
          continue;
        }
        case '{':
          this.frames.push(undefined);
          continue;
        case '}':
          this.frames.pop()?.(i);
          continue;
        case '~':
          this.emit(' ', i);
          continue;
        case '-':
          if (src.startsWith('---', i)) {
            this.emit('—', i);
            i += 2;
          } else if (src.startsWith('--', i)) {
            this.emit('–', i);
            i += 1;
          } else this.emit('-', i);
          continue;
        case '`':
          if (src[i + 1] === '`') {
            this.emit('“', i);
            i++;
          } else this.emit('‘', i);
          continue;
        case "'":
          if (src[i + 1] === "'") {
            this.emit('”', i);
            i++;
          } else this.emit('’', i);
          continue;
        case '<':
        case '>':
          if (src[i + 1] === c) {
            this.emit(c === '<' ? '«' : '»', i);
            i++;
          } else this.emit(c, i);
          continue;
        case '@':
          // Not a citation: the projection's `@` are the commands' keys only.
          this.emit('\uff20', i);
          continue;
        case '\\':
          i = this.command(i, to) - 1;
          continue;
        default:
          this.emit(c, i);
      }
    }
  }

  /** A command at `i`: projected; returns the offset after what it took. */
  private command(i: number, to: number): number {
    const src = this.src;
    const opaque = skipOpaque(src, i);
    if (opaque >= 0) {
      // Display math or a verbatim environment: no prose, a paragraph of its own when it stands apart.
      if (src.startsWith('\\begin', i) || src[i + 1] === '[') this.emit(' ', i);
      return Math.min(opaque, to);
    }
    const cite = parseCiteAt(src, i);
    if (cite) {
      if (LATEX_CQUOTE_COMMANDS.has(cite.command) && cite.closed) return this.cquote(cite);
      this.cite(cite);
      return cite.end;
    }
    const m = /^\\([a-zA-Z]+|.)(\*?)/s.exec(src.slice(i, i + 40));
    if (!m) return i + 1;
    const name = m[1];
    let j = i + m[0].length;
    if (name.length === 1 && !/[a-zA-Z]/.test(name)) {
      if (name in ACCENTS) return this.accent(name, i, j);
      if ('%&_#${}'.includes(name)) this.emit(name, i);
      else if (name === '\\') {
        this.emit(' ', i);
        return optionals(src, j, 1).end;
      } else if (' ,;:\n\t'.includes(name)) this.emit(' ', i);
      return j;
    }
    if (name in ACCENTS && /^\s*\{/.test(src.slice(j, j + 10))) return this.accent(name, i, j);
    if (name in SYMBOLS) {
      this.emit(SYMBOLS[name], i);
      // A command's name ends at the space after it, which TeX swallows; `\og` keeps it as babel-french prints one.
      return name === 'og' || name === 'fg' ? j : src[j] === ' ' ? j + 1 : src.startsWith('{}', j) ? j + 2 : j;
    }
    if (name === 'begin' || name === 'end') return this.environment(name, i, j);
    if (name === 'item') {
      this.flush();
      return optionals(src, j, 1).end;
    }
    if (SECTIONS.has(name)) {
      this.flush();
      j = optionals(src, j, 1).end;
      const at = after(src, j);
      if (src[at] === '{') {
        this.frames.push(() => this.flush());
        return at + 1;
      }
      return j;
    }
    if (name === 'footnote' || name === 'footnotetext') {
      j = optionals(src, j, 1).end;
      const at = after(src, j);
      if (src[at] !== '{') return j;
      // A footnote is a Pandoc note `^[…]`: a citation in it anchors where the note is called.
      this.emit('^[', i);
      this.frames.push((close) => this.emit(']', close));
      return at + 1;
    }
    if (QUOTE_COMMANDS.has(name)) return this.quote(name, i, j);
    if (name === 'href') {
      const at = after(src, j);
      return src[at] === '{' ? groupEnd(src, at) : j;
    }
    if (DROPPED.has(name)) {
      // Every argument that follows (`[…]` and `{…}`).
      for (;;) {
        const at = after(src, j);
        if (src[at] === '[') j = delimited(src, at, '[', ']')?.end ?? at + 1;
        else if (src[at] === '{') j = groupEnd(src, at);
        else return j;
      }
    }
    // Any other command: its name (and options right after it) dropped, its braced text kept.
    if (src[j] === '[') j = delimited(src, j, '[', ']')?.end ?? j;
    else if (src[j] === ' ' && !src.startsWith('{', j + 1)) return j + 1;
    return j;
  }

  private accent(name: string, i: number, j: number): number {
    const src = this.src;
    let at = j;
    while (src[at] === ' ') at++;
    let letter: string;
    let end: number;
    if (src[at] === '{') {
      // One letter (or `\i`, `\j`) in braces; anything else is not an accent's argument.
      const d = /^\{\s*(\\[ij]|[^{}\\\s]?)\s*\}/.exec(src.slice(at, at + 12));
      letter = (d?.[1] ?? '').replace(/^\\i$/, 'i').replace(/^\\j$/, 'j');
      end = d ? at + d[0].length : at + 1;
    } else {
      letter = src[at] ?? '';
      end = at + 1;
    }
    if (!/^\p{L}$/u.test(letter)) {
      this.emit(letter, i);
      return end;
    }
    this.emit((letter + ACCENTS[name]).normalize('NFC'), i);
    return end;
  }

  private environment(kind: 'begin' | 'end', i: number, j: number): number {
    const src = this.src;
    const m = /^\s*\{([^{}]*)\}/.exec(src.slice(j, j + 80));
    if (!m) return j;
    const name = m[1].trim();
    let k = j + m[0].length;
    if (kind === 'begin') {
      if (name === 'thebibliography') {
        const e = src.indexOf('\\end{thebibliography}', k);
        return e < 0 ? src.length : e + '\\end{thebibliography}'.length;
      }
      if (name === 'document') return k;
      this.flush();
      let cite: { start: number; end: number } | undefined;
      if (!QUOTE_ENVS.has(name)) {
        // Placement `[htbp]`, a table's columns `{lp{3cm}}`, a minipage's width: no prose.
        k = optionals(src, k, 1).end;
        for (let n = ARG_ENVS[name] ?? 0; n > 0; n--) {
          const at = after(src, k);
          if (src[at] === '{') k = groupEnd(src, at);
        }
      } else {
        // csquotes' `\begin{displayquote}[\cite{a}][.]`, `\begin{foreigndisplayquote}{french}[…]`.
        if (name !== 'displayquote' && name.endsWith('displayquote')) k = groupEnd(src, after(src, k));
        if (name.endsWith('displayquote')) {
          const o = optionals(src, k);
          if (o.args[0]) cite = o.args[0];
          k = o.end;
        }
        this.quoteDepth++;
        this.blockQuote = true;
      }
      this.envs.push({ name, cite });
      this.open.set(name, (this.open.get(name) ?? 0) + 1);
      return k;
    }
    let at = this.open.get(name) ? this.envs.length - 1 : -1;
    while (at >= 0 && this.envs[at].name !== name) at--;
    // What is closed with it is closed too (searched no further than what is removed).
    for (let n = Math.max(at, 0); at >= 0 && n < this.envs.length; n++) this.open.set(this.envs[n].name, this.open.get(this.envs[n].name)! - 1);
    const env = at >= 0 ? this.envs.splice(at)[0] : undefined;
    if (env && QUOTE_ENVS.has(name)) {
      if (env.cite) {
        this.emit(' ', i);
        this.citesIn(env.cite.start, env.cite.end);
      }
      this.flush();
      this.quoteDepth--;
      this.blockQuote = this.quoteDepth > 0;
    } else this.flush();
    return k;
  }

  /** `\enquote{…}`, `\textquote[cite][punct]{…}`, `\foreignquote{lang}[cite]{…}`: “…”, its citation after it. */
  private quote(name: string, i: number, j: number): number {
    const src = this.src;
    if (src[j] === '*') j++;
    if (name.startsWith('foreign') || name.startsWith('hyphen') || name.startsWith('hybrid')) {
      const at = after(src, j);
      if (src[at] === '{') j = groupEnd(src, at);
    }
    let cite: { start: number; end: number } | undefined;
    if (name !== 'enquote') {
      const o = optionals(src, j);
      cite = o.args[0];
      j = o.end;
    }
    const at = after(src, j);
    if (src[at] !== '{') return j;
    this.emit('“', i);
    this.frames.push((close) => {
      this.emit('”', close);
      if (cite) {
        this.emit(' ', close);
        this.citesIn(cite.start, cite.end);
      }
    });
    return at + 1;
  }

  /**
   * The citations of a quotation's citation argument (`\textquote[\cite[12]{a}]{…}`), projected where
   * the quotation closes: its citation commands only, never a walk of it with the draft's open groups
   * (a quotation in it would close on the draft's braces, and walk its own argument again: 218 KB of
   * them made 18 MB of text and 800,000 citations).
   */
  private citesIn(start: number, end: number): void {
    for (const c of scanLatexCites(this.src, start, end)) this.cite(c);
  }

  /** `\textcquote[p.~12]{key}[punct]{text}`: “text” and its citation after it. */
  private cquote(cite: LatexCite): number {
    const src = this.src;
    const j = optionals(src, cite.end, 1).end;
    const at = after(src, j);
    if (src[at] !== '{') {
      this.cite(cite);
      return j;
    }
    this.emit('“', cite.start);
    this.frames.push((close) => {
      this.emit('”', close);
      this.emit(' ', close);
      this.cite(cite);
    });
    return at + 1;
  }

  /** A citation command as its Pandoc equivalent. */
  private cite(c: LatexCite): void {
    if (LATEX_SILENT_CITES.has(c.command)) return;
    const at = c.start;
    const keys = (item: CiteItem) =>
      item.keys.forEach((k, n) => {
        if (n) this.emit('; ', at);
        this.key(c, item, k, n === item.keys.length - 1);
      });
    if (LATEX_TEXTUAL_CITES.has(c.command)) {
      // "\textcite[12]{a}" is Pandoc's "@a [12]".
      c.items.forEach((item, n) => {
        if (n) this.emit('; ', at);
        keys(item);
        if (item.postnote?.trim()) this.emit(` [${noteText(item.postnote)}]`, at);
      });
      return;
    }
    this.emit(LATEX_FOOTNOTE_CITES.has(c.command) ? '^[' : '[', at);
    c.items.forEach((item, n) => {
      if (n) this.emit('; ', at);
      if (item.prenote?.trim()) this.emit(noteText(item.prenote) + ' ', at);
      keys(item);
      if (item.postnote?.trim()) this.emit(', ' + noteText(item.postnote), at);
    });
    this.emit(']', c.end - 1);
  }

  private key(cite: LatexCite, item: CiteItem, key: CiteKey, last: boolean): void {
    // The `@` stands on the character before the key (`{` or `,`): one place per key, found again below.
    this.emit('@', key.start - 1);
    for (let n = 0; n < key.key.length; n++) this.emit(key.key[n], key.start + n);
    this.keys.set(key.start - 1, { cite, item, key, last });
  }
}
