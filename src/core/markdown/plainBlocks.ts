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
 * quotes of paragraphs of `> ` and a plain line each (`>` alone between them); indented code of
 * lines with no control character; link definitions of a plain label and URL, footnote
 * definitions of one plain line; tables written `| a | b |` with a delimiter row and plain cells,
 * every row as many as the header. A plain line starts with a letter (or any character past
 * ASCII but a space), has no space at either end, no tab or control character, and none of the
 * characters that can open inline Markdown here (`\`, backtick, `*`, `_`, `~`, `[`, `]`, `<`,
 * `&`, `$`, `|`, `!`).
 */
import type {
  Blockquote,
  Code,
  Definition,
  FootnoteDefinition,
  Heading,
  List,
  ListItem,
  Paragraph,
  RootContent,
  Table,
  TableCell,
  TableRow,
  Text,
  ThematicBreak,
} from 'mdast';

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
  | { kind: 'quote'; start: Point; paras: Paragraph[]; textStart: Point; lines: number[]; ends: string[]; textEnd: Point; end: Point }
  | { kind: 'code'; start: Point; lines: number[]; ends: string[]; end: Point }
  | { kind: 'table'; cells: number; align: Table['align']; start: Point; rows: TableRow[]; end: Point; delimiter: boolean };

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
  // After a link definition, only another, an ATX heading or a blank line; after a footnote definition, only another or a blank line.
  let after: 0 | 'definition' | 'footnote' = 0;
  // Helpers are module functions, not closures: this runs for every line of a draft of 300,000 of them.
  const close = () => {
    if (open.kind !== 'none') out.push(closed(text, open, lastPoint));
    open = NONE;
  };

  for (let pos = start; pos < end;) {
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
      if (open.kind === 'table' && !open.delimiter) return undefined; // a header with no delimiter row: a paragraph
      close();
      blankSeen = true;
      after = 0;
    } else {
      // After a blank line, a line in this stretch continues something the parser must read.
      if (blankSeen) return undefined;
      const c = text.charCodeAt(pos);
      const c1 = text.charCodeAt(pos + 1);
      const was: 0 | 'definition' | 'footnote' = after;
      after = 0;
      if (open.kind === 'table' && !was) {
        // Its rows, after the delimiter row: as many cells as the header, each `| text ` (GitHub tables).
        const cells = tableCells(text, pos, eol);
        if (!cells) return undefined;
        if (!open.delimiter) {
          const align = delimiterRow(text, cells);
          if (!align || align.length !== open.cells) return undefined;
          open.align = align;
          open.delimiter = true;
          open.end = pt(eol, pos, ln, offset);
        } else {
          if (cells.length / 2 !== open.cells || !cellsPlain(text, cells)) return undefined;
          open.rows.push(tableRow(text, cells, pos, eol, ln, offset));
          open.end = pt(eol, pos, ln, offset);
        }
      } else if (c === 124 /* | */) {
        const cells = tableCells(text, pos, eol);
        if (open.kind !== 'none' || was || !cells || !cellsPlain(text, cells)) return undefined;
        open = {
          kind: 'table',
          cells: cells.length / 2,
          align: [],
          start: pt(pos, pos, ln, offset),
          rows: [tableRow(text, cells, pos, eol, ln, offset)],
          end: pt(eol, pos, ln, offset),
          delimiter: false,
        };
      } else if (c === SP) {
        // Indented code: four spaces, then anything but a control character, no space at the end.
        if ((open.kind !== 'none' && open.kind !== 'code') || was || !codeLine(text, pos, eol)) return undefined;
        if (open.kind === 'code') {
          open.lines.push(pos + 4, eol);
          open.ends.push(prevEnding);
          open.end = pt(eol, pos, ln, offset);
        } else open = { kind: 'code', start: pt(pos, pos, ln, offset), lines: [pos + 4, eol], ends: [], end: pt(eol, pos, ln, offset) };
      } else if (c === 91 /* [ */) {
        const def = definitionLine(text, pos, eol);
        if (
          !def ||
          (was === 'footnote' && !def.footnote) ||
          (was === 'definition' && def.footnote) ||
          (was === 0 && open.kind !== 'none' && open.kind !== 'code')
        )
          return undefined;
        close();
        const s0 = pt(pos, pos, ln, offset);
        const e0 = pt(eol, pos, ln, offset);
        if (def.footnote) {
          const t: Text = { type: 'text', value: text.slice(def.value, eol), position: { start: pt(def.value, pos, ln, offset), end: e0 } };
          const p: Paragraph = { type: 'paragraph', children: [t], position: { start: pt(def.value, pos, ln, offset), end: e0 } };
          out.push({
            type: 'footnoteDefinition',
            identifier: def.label.toLowerCase(),
            label: def.label,
            children: [p],
            position: { start: s0, end: e0 },
          } satisfies FootnoteDefinition);
        } else {
          out.push({
            type: 'definition',
            identifier: def.label.toLowerCase(),
            label: def.label,
            title: null,
            url: text.slice(def.value, eol),
            position: { start: s0, end: e0 },
          } satisfies Definition);
        }
        after = def.footnote ? 'footnote' : 'definition';
      } else if (was === 'footnote' || (was === 'definition' && c !== 35)) {
        return undefined;
      } else if (c === 35 /* # */) {
        let j = pos;
        while (j < eol && text.charCodeAt(j) === 35) j++;
        const depth = j - pos;
        if (depth > 6 || text.charCodeAt(j) !== SP || !plainRun(text, j + 1, eol) || text.charCodeAt(j + 1) === SP || text.slice(j + 1, eol).includes('#'))
          return undefined;
        close();
        const t: Text = { type: 'text', value: text.slice(j + 1, eol), position: { start: pt(j + 1, pos, ln, offset), end: pt(eol, pos, ln, offset) } };
        const h: Heading = {
          type: 'heading',
          depth: depth as Heading['depth'],
          children: [t],
          position: { start: pt(pos, pos, ln, offset), end: pt(eol, pos, ln, offset) },
        };
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
        if (open.kind === 'paragraph' || open.kind === 'code') close();
        if (open.kind === 'quote' || (open.kind === 'list' && open.marker !== c)) return undefined;
        // Point objects are shared between nodes (never changed in place: a draft of 250,000 items makes a million of them).
        const s2 = pt(pos + 2, pos, ln, offset);
        const e2 = pt(eol, pos, ln, offset);
        const t: Text = { type: 'text', value: text.slice(pos + 2, eol), position: { start: s2, end: e2 } };
        const p: Paragraph = { type: 'paragraph', children: [t], position: { start: s2, end: e2 } };
        const s0 = pt(pos, pos, ln, offset);
        const item: ListItem = { type: 'listItem', spread: false, checked: null, children: [p], position: { start: s0, end: e2 } };
        if (open.kind === 'list') {
          open.items.push(item);
          open.end = e2;
        } else open = { kind: 'list', marker: c, start: s0, items: [item], end: e2 };
      } else if (c === 62 /* > */ && c1 === SP && plainLine(text, pos + 2, eol)) {
        if (open.kind === 'quote') {
          if (!open.lines.length) open.textStart = pt(pos + 2, pos, ln, offset);
          else open.ends.push(prevEnding);
          open.lines.push(pos + 2, eol);
          open.textEnd = open.end = pt(eol, pos, ln, offset);
        } else if (open.kind === 'none') {
          const e0 = pt(eol, pos, ln, offset);
          open = {
            kind: 'quote',
            start: pt(pos, pos, ln, offset),
            paras: [],
            textStart: pt(pos + 2, pos, ln, offset),
            lines: [pos + 2, eol],
            ends: [],
            textEnd: e0,
            end: e0,
          };
        } else return undefined;
      } else if (c === 62 && eol === pos + 1 && open.kind === 'quote') {
        // `>` alone: a blank line inside the quote, between its paragraphs.
        if (open.lines.length) open.paras.push(quoteParagraph(text, open));
        open.lines = [];
        open.ends = [];
        open.end = pt(eol, pos, ln, offset);
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
  if (open.kind === 'table' && !open.delimiter) return undefined;
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
  if (open.kind === 'table') return { type: 'table', align: open.align, children: open.rows, position: { start: open.start, end: open.end } } satisfies Table;
  if (open.kind === 'code')
    return { type: 'code', lang: null, meta: null, value: joined(text, open.lines, open.ends), position: { start: open.start, end: open.end } } satisfies Code;
  if (open.kind === 'list')
    return { type: 'list', ordered: false, start: null, spread: false, children: open.items, position: { start: open.start, end: open.end } } satisfies List;
  const children = open.lines.length ? [...open.paras, quoteParagraph(text, open)] : open.paras;
  return { type: 'blockquote', children, position: { start: open.start, end: open.end } } satisfies Blockquote;
}

function quoteParagraph(text: string, open: Extract<Open, { kind: 'quote' }>): Paragraph {
  const t: Text = { type: 'text', value: joined(text, open.lines, open.ends), position: { start: open.textStart, end: open.textEnd } };
  return { type: 'paragraph', children: [t], position: { start: open.textStart, end: open.textEnd } };
}

/**
 * A table row written `| a | b |`: the offsets of each cell's `|` and of the end of its text
 * (pairs), or undefined. One space after each `|` and before the next; the last `|` ends the line.
 */
function tableCells(s: string, pos: number, eol: number): number[] | undefined {
  if (eol - pos < 5 || s.charCodeAt(eol - 1) !== 124 || s.charCodeAt(eol - 2) !== SP) return undefined;
  const out: number[] = [];
  let bar = pos;
  for (let j = pos + 1; j < eol; j++) {
    if (s.charCodeAt(j) !== 124) continue;
    // `| text |`: a space after the bar, a space before the next.
    if (s.charCodeAt(bar + 1) !== SP || s.charCodeAt(j - 1) !== SP || j - bar < 4 || s.charCodeAt(bar + 2) === SP || s.charCodeAt(j - 2) === SP)
      return undefined;
    out.push(bar, j - 1);
    bar = j;
  }
  return out.length ? out : undefined;
}

function cellsPlain(s: string, cells: number[]): boolean {
  for (let k = 0; k < cells.length; k += 2) if (!plainRun(s, cells[k] + 2, cells[k + 1])) return false;
  return true;
}

/** The alignments of a delimiter row's cells (`-`, `:-`, `-:`, `:-:`), or undefined. */
function delimiterRow(s: string, cells: number[]): Table['align'] | undefined {
  const align: Table['align'] = [];
  for (let k = 0; k < cells.length; k += 2) {
    const cell = s.slice(cells[k] + 2, cells[k + 1]);
    if (!/^:?-+:?$/.test(cell)) return undefined;
    const left = cell.startsWith(':');
    const right = cell.endsWith(':');
    align.push(left && right ? 'center' : left ? 'left' : right ? 'right' : null);
  }
  return align;
}

/** A row's node: each cell from its `|` to the next (the last to the end of the line), its text inside. */
function tableRow(s: string, cells: number[], pos: number, eol: number, ln: number, offset: number): TableRow {
  const children: TableCell[] = [];
  for (let k = 0; k < cells.length; k += 2) {
    const from = cells[k];
    const to = k + 2 < cells.length ? cells[k + 2] : eol;
    const t: Text = {
      type: 'text',
      value: s.slice(from + 2, cells[k + 1]),
      position: { start: pt(from + 2, pos, ln, offset), end: pt(cells[k + 1], pos, ln, offset) },
    };
    children.push({ type: 'tableCell', children: [t], position: { start: pt(from, pos, ln, offset), end: pt(to, pos, ln, offset) } });
  }
  return { type: 'tableRow', children, position: { start: pt(pos, pos, ln, offset), end: pt(eol, pos, ln, offset) } };
}

/** A line of indented code: four spaces, then no control character and no space at the end. */
function codeLine(s: string, pos: number, eol: number): boolean {
  if (eol - pos < 5 || s.charCodeAt(pos + 1) !== SP || s.charCodeAt(pos + 2) !== SP || s.charCodeAt(pos + 3) !== SP || s.charCodeAt(eol - 1) === SP)
    return false;
  for (let j = pos + 4; j < eol; j++) {
    const c = s.charCodeAt(j);
    if (c < 32 || c === 127) return false;
  }
  return true;
}

/**
 * `[label]: url` (a link definition: ASCII letters, digits and single inner spaces in the label, a
 * URL of letters, digits and `/:._~#?=%+-`, no title) or `[^label]: text` (a footnote definition:
 * letters and digits, then a plain line): where the label and the value start.
 */
function definitionLine(s: string, pos: number, eol: number): { footnote: boolean; label: string; value: number } | undefined {
  const footnote = s.charCodeAt(pos + 1) === 94; /* ^ */
  let j = footnote ? pos + 2 : pos + 1;
  const from = j;
  for (; j < eol; j++) {
    const c = s.charCodeAt(j);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alnum && !(c === SP && !footnote && j > from && s.charCodeAt(j - 1) !== SP)) break;
  }
  if (j === from || j - from > 100 || s.charCodeAt(j) !== 93 || s.charCodeAt(j - 1) === SP || s.charCodeAt(j + 1) !== 58 || s.charCodeAt(j + 2) !== SP)
    return undefined;
  const label = s.slice(from, j);
  const value = j + 3;
  if (footnote) return plainLine(s, value, eol) ? { footnote, label, value } : undefined;
  if (value >= eol) return undefined;
  for (let k = value; k < eol; k++) {
    const c = s.charCodeAt(k);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || '/:._~#?=%+-'.includes(s[k]);
    if (!ok) return undefined;
  }
  return { footnote, label, value };
}

function thematicBreak(start: Point, end: Point): ThematicBreak {
  return { type: 'thematicBreak', position: { start, end } };
}

/** [i, eol) is one character repeated. */
function runOf(s: string, i: number, eol: number, c: number): boolean {
  for (let j = i; j < eol; j++) if (s.charCodeAt(j) !== c) return false;
  return true;
}
