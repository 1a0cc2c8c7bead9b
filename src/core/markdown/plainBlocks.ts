/**
 * Blocks of the plainest shapes, read without the Markdown parser (issue 28): micromark costs
 * ~20–80 µs of CPU for every block element however small, so a draft dense in them (1 MB of
 * `a\n\n`: 333,000 paragraphs; of `- a\n`; of `Title\n=====\n`) took 6–27 s to parse. A stretch
 * of a block between two places where a parse may start (`DraftBlock.cuts`) that holds only
 * such blocks gets its nodes built here, exactly as remark would build them (same nodes, values
 * and positions: `test/unit/plainBlocks.test.ts` compares the two on random drafts); any other
 * stretch is given to the parser.
 *
 * Read here: paragraphs and setext headings of plain lines; ATX headings of plain text; thematic
 * breaks of one repeated mark; tight bullet lists of one plain line per item, one marker; block
 * quotes of one paragraph of `> ` and a plain line each. A plain line starts with a letter (or any
 * character past ASCII but a space), has no space at either end, no tab or control character, and
 * none of the characters that can open inline Markdown here (`\`, backtick, `*`, `_`, `~`, `[`,
 * `]`, `<`, `&`, `$`, `|`, `!`).
 */
import type { Blockquote, Heading, List, ListItem, Paragraph, RootContent, Text, ThematicBreak } from 'mdast';

interface Point {
  line: number;
  column: number;
  offset: number;
}

const SP = 32;

/** Characters that can open or change inline Markdown (see the module comment), by code. */
const SPECIAL = new Uint8Array(128);
for (const c of '\\`*_~[]<&$|!') SPECIAL[c.charCodeAt(0)] = 1;
for (let c = 0; c < 32; c++) SPECIAL[c] = 1;
SPECIAL[127] = 1;

/** [i, eol) holds plain text: no special character, no space at its end. */
function plainRun(s: string, i: number, eol: number): boolean {
  if (i >= eol || s.charCodeAt(eol - 1) === SP) return false;
  for (let j = i; j < eol; j++) {
    const c = s.charCodeAt(j);
    if (c < 128 && SPECIAL[c] === 1) return false;
  }
  return true;
}

/** A plain line's first character: a letter, or past ASCII and no space (nor a byte-order mark). */
function plainStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c > 127 && c !== 0xfeff && !/\s/.test(String.fromCharCode(c)));
}

/** A line that is plain text from its first column. */
function plainLine(s: string, i: number, eol: number): boolean {
  return i < eol && plainStart(s.charCodeAt(i)) && plainRun(s, i, eol);
}

type Open =
  | { kind: 'none' }
  | { kind: 'paragraph'; start: Point; lines: number[] /* [start, end) of each line's text */; ends: string[] /* line endings between */ }
  | { kind: 'list'; marker: number; start: Point; items: ListItem[]; end: Point }
  | { kind: 'quote'; start: Point; textStart: Point; lines: number[]; ends: string[]; end: Point };

/**
 * The nodes of `text`'s stretch [start, end), or undefined when it holds anything else than the
 * shapes above (then it is the parser's). `offset` is where `text` starts in the draft (at 0,
 * `---` opens front matter), `line` the 0-based line of `start` in the draft.
 */
export function plainBlocks(text: string, start: number, end: number, offset: number, line: number): RootContent[] | undefined {
  const out: RootContent[] = [];
  let open: Open = { kind: 'none' };
  let blankSeen = false;
  let lineNo = line + 1;
  // The end of the last line of text read (a paragraph's end).
  let lastPoint: Point = { line: 0, column: 0, offset: 0 };
  let prevEnding = '';
  // Helpers are module functions, not closures: this runs for every line of a draft of 300,000 of them.
  const close = () => {
    if (open.kind !== 'none') out.push(closed(text, open, lastPoint));
    open = NONE;
  };

  for (let pos = start; pos < end; ) {
    let eol = pos;
    while (eol < end) {
      const c = text.charCodeAt(eol);
      if (c === 10 || c === 13) break;
      eol++;
    }
    const next = eol >= end ? eol : text.charCodeAt(eol) === 13 && text.charCodeAt(eol + 1) === 10 ? eol + 2 : eol + 1;
    const ending = eol === next ? '' : next - eol === 1 ? (text.charCodeAt(eol) === 10 ? '\n' : '\r') : '\r\n';
    const ln = lineNo;
    let blank = true;
    for (let j = pos; j < eol; j++) {
      const c = text.charCodeAt(j);
      if (c !== SP && c !== 9) {
        blank = false;
        break;
      }
    }
    if (blank) {
      close();
      blankSeen = true;
    } else {
      // After a blank line, a line in this stretch continues something the parser must read.
      if (blankSeen) return undefined;
      const c = text.charCodeAt(pos);
      const c1 = text.charCodeAt(pos + 1);
      if (c === 35 /* # */) {
        let j = pos;
        while (j < eol && text.charCodeAt(j) === 35) j++;
        const depth = j - pos;
        if (depth > 6 || text.charCodeAt(j) !== SP || !plainRun(text, j + 1, eol) || text.charCodeAt(j + 1) === SP || text.slice(j + 1, eol).includes('#')) return undefined;
        close();
        const t: Text = { type: 'text', value: text.slice(j + 1, eol), position: { start: pt(j + 1, pos, ln, offset), end: pt(eol, pos, ln, offset) } };
        const h: Heading = { type: 'heading', depth: depth as Heading['depth'], children: [t], position: { start: pt(pos, pos, ln, offset), end: pt(eol, pos, ln, offset) } };
        out.push(h);
      } else if ((c === 61 || c === 45) && runOf(text, pos, eol, c)) {
        // An underline: of the paragraph above (a setext heading), or, for `---` with none, a thematic break.
        if (open.kind === 'paragraph') {
          const t: Text = { type: 'text', value: joined(text, open.lines, open.ends), position: { start: open.start, end: lastPoint } };
          const h: Heading = { type: 'heading', depth: c === 61 ? 1 : 2, children: [t], position: { start: open.start, end: pt(eol, pos, ln, offset) } };
          out.push(h);
          open = NONE;
        } else if (open.kind === 'none' && c === 45 && eol - pos >= 3 && !(offset + pos === 0)) {
          out.push(thematicBreak(pt(pos, pos, ln, offset), pt(eol, pos, ln, offset)));
        } else return undefined;
      } else if ((c === 42 || c === 95) && runOf(text, pos, eol, c) && eol - pos >= 3) {
        if (open.kind !== 'none') return undefined;
        out.push(thematicBreak(pt(pos, pos, ln, offset), pt(eol, pos, ln, offset)));
      } else if ((c === 45 || c === 42 || c === 43) && c1 === SP && plainLine(text, pos + 2, eol)) {
        if (open.kind === 'paragraph') close();
        if (open.kind === 'quote' || (open.kind === 'list' && open.marker !== c)) return undefined;
        const t: Text = { type: 'text', value: text.slice(pos + 2, eol), position: { start: pt(pos + 2, pos, ln, offset), end: pt(eol, pos, ln, offset) } };
        const p: Paragraph = { type: 'paragraph', children: [t], position: { start: pt(pos + 2, pos, ln, offset), end: pt(eol, pos, ln, offset) } };
        const item: ListItem = { type: 'listItem', spread: false, checked: null, children: [p], position: { start: pt(pos, pos, ln, offset), end: pt(eol, pos, ln, offset) } };
        if (open.kind === 'list') {
          open.items.push(item);
          open.end = pt(eol, pos, ln, offset);
        } else open = { kind: 'list', marker: c, start: pt(pos, pos, ln, offset), items: [item], end: pt(eol, pos, ln, offset) };
      } else if (c === 62 /* > */ && c1 === SP && plainLine(text, pos + 2, eol)) {
        if (open.kind === 'quote') {
          open.lines.push(pos + 2, eol);
          open.ends.push(prevEnding);
          open.end = pt(eol, pos, ln, offset);
        } else if (open.kind === 'none') open = { kind: 'quote', start: pt(pos, pos, ln, offset), textStart: pt(pos + 2, pos, ln, offset), lines: [pos + 2, eol], ends: [], end: pt(eol, pos, ln, offset) };
        else return undefined;
      } else if (plainLine(text, pos, eol)) {
        if (open.kind === 'paragraph') {
          open.lines.push(pos, eol);
          open.ends.push(prevEnding);
        } else if (open.kind === 'none') open = { kind: 'paragraph', start: pt(pos, pos, ln, offset), lines: [pos, eol], ends: [] };
        else return undefined;
        lastPoint = pt(eol, pos, ln, offset);
      } else return undefined;
    }
    prevEnding = ending;
    if (next > eol) lineNo++;
    pos = next;
  }
  close();
  return out;
}

const NONE: Open = { kind: 'none' };

function pt(at: number, lineStart: number, line: number, offset: number): Point {
  return { line, column: at - lineStart + 1, offset: offset + at };
}

/** Lines [start, end) pairs joined by their line endings, as the parser's text value. */
function joined(text: string, lines: number[], ends: string[]): string {
  let v = text.slice(lines[0], lines[1]);
  for (let k = 2; k < lines.length; k += 2) v += ends[k / 2 - 1] + text.slice(lines[k], lines[k + 1]);
  return v;
}

/** The node of an open paragraph, list or quote; `lastPoint`: where a paragraph's last line ends. */
function closed(text: string, open: Exclude<Open, { kind: 'none' }>, lastPoint: Point): RootContent {
  if (open.kind === 'paragraph') {
    const t: Text = { type: 'text', value: joined(text, open.lines, open.ends), position: { start: open.start, end: lastPoint } };
    return { type: 'paragraph', children: [t], position: { start: open.start, end: lastPoint } } satisfies Paragraph;
  }
  if (open.kind === 'list') return { type: 'list', ordered: false, start: null, spread: false, children: open.items, position: { start: open.start, end: open.end } } satisfies List;
  const t: Text = { type: 'text', value: joined(text, open.lines, open.ends), position: { start: open.textStart, end: open.end } };
  const p: Paragraph = { type: 'paragraph', children: [t], position: { start: open.textStart, end: open.end } };
  return { type: 'blockquote', children: [p], position: { start: open.start, end: open.end } } satisfies Blockquote;
}

function thematicBreak(start: Point, end: Point): ThematicBreak {
  return { type: 'thematicBreak', position: { start, end } };
}

/** [i, eol) is one character repeated. */
function runOf(s: string, i: number, eol: number, c: number): boolean {
  for (let j = i; j < eol; j++) if (s.charCodeAt(j) !== c) return false;
  return true;
}
