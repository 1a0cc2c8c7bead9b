/**
 * Where a draft can be cut into blocks that parse alone exactly as they parse in the
 * whole document (issue 28): one pass over the lines, no regular expression that can
 * backtrack over a line.
 *
 * A cut lies before a line that starts in its first column, after a blank line, outside
 * fenced code, math blocks, the HTML blocks that run over blank lines (`<!-- -->`,
 * `<script>`/`<pre>`/`<style>`/`<textarea>`, `<? ?>`, `<!X >`, `<![CDATA[ ]]>`) and front
 * matter. Every container (list item, block quote, footnote, indented code) and every
 * other block ends there: a line in the first column after a blank line continues none.
 * What still reaches across a cut — link and footnote definitions — the parser hands on
 * (parse.ts).
 *
 * Setext headings cost micromark the whole event list of their parse each, so a block
 * holds at most MAX_SETEXT of them; a run of them with no blank line between is also cut
 * after an underline, where nothing but a top-level paragraph can have stood above it.
 */

export interface DraftBlock {
  start: number;
  end: number;
  /** 0-based line of `start`. */
  line: number;
  /**
   * Setext underlines inside block quotes or list items, when the block holds more than
   * MAX_SETEXT of them (a container's headings cannot be cut apart): offsets of their marks,
   * which the parser reads as text (`═`, `─`), and the first one's 0-based line.
   */
  quotedUnderlines?: { line: number; at: number[] };
  /** 0-based line where this block cuts a paragraph longer than MAX_PARAGRAPH in two (at a line break). */
  splitsParagraph?: number;
  /** Its densest stretch of emphasis and bracket marks, when one passes the limit (MARK_DENSITY_LIMIT): 0-based line, marks. */
  dense?: { line: number; marks: number };
  /**
   * Where else inside it a block could have started, whatever the bytes gathered (see
   * `plainBlocks.ts`): [offset, 0-based line, weak] triples; weak (1) before a line that a parse must
   * not start with (`---`, `+++`, see startsSpecial), which only a block read without the parser may.
   * Besides the cuts above: after an ATX heading or a thematic break in a flat stretch, and after front matter;
   * not before a list item after a blank line (it may continue a list above: the parse would give two).
   */
  cuts: number[];
}

/**
 * Above this density of emphasis and bracket marks (`*`, `_`, `~`, `[`, `]`: their count squared
 * over the length of a stretch of lines with no blank line, outside code and HTML), a block is read
 * without emphasis, links and footnote calls: micromark's time for a paragraph grows with the
 * product of its marks and its length. Prose stays far below: a paragraph of 1,000 characters
 * with 20 citations and 10 emphases has 60 marks, 3.6 per character; the limit is 64, and below
 * MARK_FLOOR marks nothing is changed at all.
 */
export const MARK_DENSITY_LIMIT = 64;
export const MARK_FLOOR = 256;
/**
 * The same for backticks and `<` (code spans, inline HTML, autolinks), with a far higher bar: each
 * costs micromark ~20 µs however small (1 MB of `` `a `` — 250,000 code spans — took 6 s), but
 * technical prose has many. Past 4,096 of them in a stretch with no blank line, and more than one
 * per 32 characters of a megabyte (one per 8 of 64 KB: count² over length above 1,024), none in a draft.
 */
export const CODE_DENSITY_LIMIT = 1_024;
export const CODE_FLOOR = 4_096;

/** Bytes gathered into one block before the next cut (a few paragraphs: the parse's fixed cost stays small). */
export const BLOCK_BYTES = 8_192;
/**
 * A paragraph of several lines longer than this is cut at a line break (into paragraphs of about
 * this size, with a warning): micromark merges each line's text with one splice of the whole
 * paragraph's events, so a paragraph's time grows with its lines times its length (66,000 lines
 * of citations in one paragraph: 20 s). No paragraph of a draft comes near: 16 KB is 2,500 words.
 */
export const MAX_PARAGRAPH = 16_384;
/** Setext headings in one block, at most (beyond: a cut at the next place one may be made). */
export const MAX_SETEXT = 64;

type State = { kind: 'normal' } | { kind: 'fence'; char: number; length: number } | { kind: 'html'; end: string } | { kind: 'front'; end: number };

const SP = 32;
const TAB = 9;

export function draftBlocks(source: string, maxBlock = BLOCK_BYTES): DraftBlock[] {
  const blocks: DraftBlock[] = [];
  let state: State = { kind: 'normal' };
  let blockStart = 0;
  let blockLine = 0;
  let setext = 0;
  let prevBlank = false;
  let prevText = false; // the line above is paragraph text (starts with a letter or digit), in a flat stretch
  let prevUnderline = false;
  let prevProse = false; // the line above, at column 0, can only be a paragraph's
  let prevQuoteProse = false; // the line above is `>` marks, then what can only be a paragraph's
  let quoteUnsafe = false; // this stretch holds, in a quote, a fence, HTML, math or indented code
  let flat = true; // since the last cut or blank line: no container, indented line, table, HTML, fence
  let line = 0;
  let regionMarks = 0;
  let regionCode = 0; // backticks and `<` (code spans, inline HTML, autolinks)
  let regionLength = 0;
  let regionLine = 0;
  let regionStart = 0;
  let dense: DraftBlock['dense'];
  let splitsParagraph: number | undefined;
  // Where a block may start at or before the current stretch (the last line after a blank line
  // where one may be cut), else -1: a stretch opening with an indented line cannot be cut at.
  let regionCut = -1;
  let regionCutLine = 0;
  let lastCut = -1;
  let lastCutLine = 0;
  let regionTable = false;
  let regionLines = 0;
  let isolate = false; // a dense stretch has just ended: cut at the next blank line
  let inner: number[] = []; // underlines inside containers in this block: [start, end) pairs
  let innerLine = 0;
  let cuts: number[] = [];
  let prevClosed = false; // the line above is an ATX heading or a thematic break, at column 0 in a flat stretch
  let afterFront = false; // this line follows front matter
  const pushRaw = (end: number) => {
    // Cuts at or past `end` belong to the block that starts there.
    let k = 0;
    while (k < cuts.length && cuts[k] < end) k += 3;
    const b: DraftBlock = { start: blockStart, end, line: blockLine, cuts: cuts.slice(0, k) };
    cuts = cuts.slice(k);
    while (cuts.length && cuts[0] <= end) cuts.splice(0, 3);
    if (dense) b.dense = dense;
    if (splitsParagraph !== undefined) b.splitsParagraph = splitsParagraph;
    if (inner.length / 2 > MAX_SETEXT) b.quotedUnderlines = { line: innerLine, at: inner };
    inner = [];
    blocks.push(b);
    dense = undefined;
    splitsParagraph = undefined;
    isolate = false;
  };
  const endRegion = () => {
    const isDense =
      !regionTable &&
      ((regionMarks > MARK_FLOOR && regionMarks * regionMarks > MARK_DENSITY_LIMIT * regionLength) ||
        (regionCode > CODE_FLOOR && regionCode * regionCode > CODE_DENSITY_LIMIT * regionLength));
    if (isDense) {
      // Its own block, from the last place one may start (the stretch's first line when it can be
      // cut at; else the line after an earlier blank line, as a parse block by block would have it):
      // what stands before and after it keeps its emphasis and links, whatever the bytes gathered.
      if (regionCut > blockStart) {
        pushRaw(regionCut);
        blockStart = regionCut;
        blockLine = regionCutLine;
        setext = 0;
      }
      if (!(dense && dense.marks >= regionMarks + regionCode)) dense = { line: regionLine, marks: regionMarks + regionCode };
      isolate = true;
    }
    regionMarks = 0;
    regionCode = 0;
    regionLength = 0;
    regionLines = 0;
    regionTable = false;
  };
  const push = (end: number) => {
    endRegion();
    pushRaw(end);
  };

  const front = frontMatterEnd(source);
  if (front > 0) state = { kind: 'front', end: front };
  // After an unclosed `---` or `+++` opening the draft, micromark reads what follows otherwise (a
  // list as a paragraph): no stretch of it is read without the parser.
  const noCuts = front === 0 && /^(?:---|\+\+\+)[ \t]*(?:\r|\n|$)/.test(source);

  for (let pos = 0; pos < source.length; line++) {
    afterFront = state.kind === 'front' && pos >= state.end;
    if (afterFront) state = { kind: 'normal' };
    // The line: [pos, eol); the next one starts at next.
    let eol = pos;
    while (eol < source.length) {
      const c = source.charCodeAt(eol);
      if (c === 10 || c === 13) break;
      eol++;
    }
    const next = eol >= source.length ? eol : source.charCodeAt(eol) === 13 && source.charCodeAt(eol + 1) === 10 ? eol + 2 : eol + 1;
    let indent = 0;
    let i = pos;
    for (; i < eol; i++) {
      const c = source.charCodeAt(i);
      if (c === SP) indent++;
      else if (c === TAB) indent += 4 - (indent % 4);
      else break;
    }
    const blank = i === eol;
    const first = blank ? -1 : source.charCodeAt(i);

    // Not before what only the start of a document makes special: front matter, a byte-order mark.
    const mayCut = state.kind === 'normal' && pos > blockStart && !blank && indent === 0 && !startsSpecial(source, pos);
    if (mayCut && prevBlank) {
      lastCut = pos;
      lastCutLine = line;
    }
    if (mayCut) {
      const size = pos - blockStart;
      const cutAfterBlank = prevBlank && (size >= maxBlock || setext >= MAX_SETEXT || isolate);
      // A run of setext headings with no blank line: cut after an underline whose text line was a top-level paragraph.
      const cutAfterUnderline = !prevBlank && setext >= MAX_SETEXT && prevUnderline && flat && !isUnderline(source, i, eol);
      // A paragraph of many lines: cut between two lines of text (see MAX_PARAGRAPH).
      const long = pos - Math.max(regionStart, blockStart) >= MAX_PARAGRAPH;
      let cutInParagraph = !prevBlank && flat && prevProse && startsProse(source, i, eol) && long;
      // The same in a block quote (a quote's paragraph merges its lines the same way): two quotes then.
      if (!cutInParagraph && long && !prevBlank && prevQuoteProse && !quoteUnsafe && first === 62) {
        const j = afterQuotes(source, i, eol);
        cutInParagraph = j < eol && startsProse(source, j, eol);
      }
      if (cutAfterBlank || cutAfterUnderline || cutInParagraph) {
        const splits = cutInParagraph && !cutAfterUnderline;
        push(pos);
        if (splits) {
          splitsParagraph = line;
          regionStart = pos;
        }
        blockStart = pos;
        blockLine = line;
        setext = 0;
        flat = true;
      } else if (
        !noCuts &&
        ((prevBlank && !isListMarker(source, i, eol)) || (prevUnderline && flat && !isUnderline(source, i, eol)) || (prevClosed && flat) || afterFront)
      ) {
        cuts.push(pos, line, 0);
      }
    } else if (
      !noCuts &&
      state.kind === 'normal' &&
      pos > blockStart &&
      !blank &&
      indent === 0 &&
      (prevBlank || (prevClosed && flat) || afterFront) &&
      startsSpecial(source, pos)
    ) {
      cuts.push(pos, line, 1);
    }

    let underline = false;
    switch (state.kind) {
      case 'front':
        break;
      case 'fence':
        if (indent <= 3 && !blank && isFenceClose(source, i, eol, state.char, state.length)) state = { kind: 'normal' };
        break;
      case 'html':
        if (source.slice(pos, eol).toLowerCase().includes(state.end)) state = { kind: 'normal' };
        break;
      case 'normal': {
        if (blank) break;
        if (indent <= 3) {
          const fence = fenceOpen(source, i, eol);
          if (fence) {
            state = { kind: 'fence', ...fence };
            flat = false;
            break;
          }
          const html = htmlOpen(source, i, eol);
          if (html) {
            if (
              !source
                .slice(i + 2, eol)
                .toLowerCase()
                .includes(html)
            )
              state = { kind: 'html', end: html };
            flat = false;
            break;
          }
          underline = isUnderline(source, i, eol) && !prevBlank;
        }
        if (!prevBlank && (indent > 0 || first === 62)) {
          // An underline inside a block quote or list item: `> ===`, `  ---`.
          let j = i;
          while (j < eol && (source.charCodeAt(j) === 62 || source.charCodeAt(j) === SP || source.charCodeAt(j) === TAB)) j++;
          if (j < eol && isUnderline(source, j, eol)) {
            if (!inner.length) innerLine = line;
            let k = j;
            while (k < eol && source.charCodeAt(k) === source.charCodeAt(j)) k++;
            inner.push(j, k);
          }
        }
        if (indent <= 3) {
          if (underline && prevText) setext++;
        }
        if (regionMarks === 0 && regionLength === 0) {
          regionLine = line;
          regionStart = pos;
          regionCut = lastCut;
          regionCutLine = lastCutLine;
        }
        // A table's cells are parsed one by one: its marks cost nothing together.
        if (++regionLines === 2 && isDelimiterRow(source.slice(i, eol))) regionTable = true;
        regionMarks += marksIn(source, i, eol);
        regionCode += codeMarksIn(source, i, eol);
        regionLength += eol - pos + 1;
        if (indent > 0 || first === 62 /* > */ || first === 60 /* < */ || isListMarker(source, i, eol) || source.slice(i, eol).includes('|')) flat = false;
        break;
      }
    }
    if (state.kind !== 'normal') flat = false;
    prevUnderline = underline && prevText && indent === 0;
    prevClosed = !blank && indent === 0 && state.kind === 'normal' && (isAtx(source, i, eol) || (!underline && isThematicBreak(source, i, eol)));
    prevText = !blank && indent === 0 && state.kind === 'normal' && isWordChar(first) && !isListMarker(source, i, eol);
    prevProse = !blank && indent === 0 && state.kind === 'normal' && flat && !underline && (startsProse(source, i, eol) || first === 64 || first === 91);
    prevQuoteProse = false;
    if (!blank && indent === 0 && first === 62 && state.kind === 'normal') {
      const j = afterQuotes(source, i, eol);
      const c = j < eol ? source.charCodeAt(j) : -1;
      let sp = 0;
      for (let k = j - 1; k > i && source.charCodeAt(k) === SP; k--) sp++;
      if (c === 96 || c === 126 || c === 36 || c === 60 || sp >= 5) quoteUnsafe = true;
      prevQuoteProse = j < eol && (startsProse(source, j, eol) || c === 64 || c === 91);
    }
    prevBlank = blank;
    if (blank) {
      quoteUnsafe = false;
      flat = true;
      endRegion();
    }
    pos = next;
  }
  push(source.length);
  return blocks;
}

/** The end offset (after its closing line) of YAML (`---`) or TOML (`+++`) front matter opening the draft, else 0. */
function frontMatterEnd(source: string): number {
  const fence = source.startsWith('---') ? '---' : source.startsWith('+++') ? '+++' : '';
  if (!fence) return 0;
  const lines = source.split(/(?<=\r\n|\r(?!\n)|\n)/);
  if (lines[0].trim() !== fence) return 0;
  let offset = lines[0].length;
  for (let k = 1; k < lines.length; k++) {
    offset += lines[k].length;
    if (lines[k].trim() === fence) return offset;
  }
  return 0;
}

/**
 * Lines a block must not start with: what only the start of a document makes special (front
 * matter, a byte-order mark), and an ordered list not numbered 1, which micromark reads as a
 * paragraph after indented code (CommonMark would not): in a block of its own it would be a list.
 */
function startsSpecial(s: string, pos: number): boolean {
  const c = s.charCodeAt(pos);
  if (c === 0xfeff || ((c === 45 || c === 43) && s.charCodeAt(pos + 1) === c && s.charCodeAt(pos + 2) === c)) return true;
  if (c < 48 || c > 57) return false;
  let j = pos;
  while (j - pos < 10 && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
  return (s.charCodeAt(j) === 46 || s.charCodeAt(j) === 41) && Number(s.slice(pos, j)) !== 1;
}

/** After a line's `>` marks and the spaces between them. */
function afterQuotes(s: string, i: number, eol: number): number {
  let j = i;
  while (j < eol && (s.charCodeAt(j) === 62 || s.charCodeAt(j) === SP || s.charCodeAt(j) === TAB)) j++;
  return j;
}

/**
 * A line that starts nothing but a paragraph, and continues one: a letter, a digit that is no
 * list marker, `(`, `@`, a quote, or `[` in a line that holds no `]:` (a definition).
 */
function startsProse(s: string, i: number, eol: number): boolean {
  const c = s.charCodeAt(i);
  if (c === 91) return !s.slice(i, eol).includes(']:');
  if (c === 40 || c === 64 || c === 34 || c === 39 || c === 0xab || c === 0x201c) return true;
  return isWordChar(c) && !isListMarker(s, i, eol);
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127;
}

/** An ATX heading's opening: one to six `#`, then a space, a tab or the end of the line. */
function isAtx(s: string, i: number, eol: number): boolean {
  let j = i;
  while (j < eol && j - i < 7 && s.charCodeAt(j) === 35) j++;
  return j > i && j - i <= 6 && (j === eol || s.charCodeAt(j) === SP || s.charCodeAt(j) === TAB);
}

/** A thematic break written plainly: three or more of one of `-`, `*`, `_`, nothing else. */
function isThematicBreak(s: string, i: number, eol: number): boolean {
  const c = s.charCodeAt(i);
  if ((c !== 45 && c !== 42 && c !== 95) || eol - i < 3) return false;
  for (let j = i + 1; j < eol; j++) if (s.charCodeAt(j) !== c) return false;
  return true;
}

/** A setext underline: `=` or `-` only, then spaces. */
function isUnderline(s: string, i: number, eol: number): boolean {
  const c = s.charCodeAt(i);
  if (c !== 61 && c !== 45) return false;
  let j = i;
  while (j < eol && s.charCodeAt(j) === c) j++;
  while (j < eol && (s.charCodeAt(j) === SP || s.charCodeAt(j) === TAB)) j++;
  return j === eol;
}

/** `-`, `+`, `*` or `1.`/`1)` followed by a space, a tab or the end of the line. */
function isListMarker(s: string, i: number, eol: number): boolean {
  const c = s.charCodeAt(i);
  let j = i;
  if (c === 45 || c === 43 || c === 42) j = i + 1;
  else {
    while (j < eol && j - i < 10 && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
    if (j === i || (s.charCodeAt(j) !== 46 && s.charCodeAt(j) !== 41)) return false;
    j++;
  }
  return j >= eol || s.charCodeAt(j) === SP || s.charCodeAt(j) === TAB;
}

/** A fence's opening: three or more backticks (no backtick after them) or tildes; math blocks: two or more `$`. */
function fenceOpen(s: string, i: number, eol: number): { char: number; length: number } | undefined {
  const c = s.charCodeAt(i);
  if (c !== 96 && c !== 126 && c !== 36) return undefined;
  let j = i;
  while (j < eol && s.charCodeAt(j) === c) j++;
  const length = j - i;
  if (length < (c === 36 ? 2 : 3)) return undefined;
  if (c !== 126 && s.slice(j, eol).includes(String.fromCharCode(c))) return undefined;
  return { char: c, length };
}

function isFenceClose(s: string, i: number, eol: number, char: number, length: number): boolean {
  let j = i;
  while (j < eol && s.charCodeAt(j) === char) j++;
  if (j - i < length) return false;
  while (j < eol && (s.charCodeAt(j) === SP || s.charCodeAt(j) === TAB)) j++;
  return j === eol;
}

/** The end marker of an HTML block that runs over blank lines (CommonMark kinds 1–5), lower-cased; undefined for any other line. */
function htmlOpen(s: string, i: number, eol: number): string | undefined {
  if (s.charCodeAt(i) !== 60) return undefined;
  const head = s.slice(i, Math.min(eol, i + 12)).toLowerCase();
  if (head.startsWith('<!--')) return '-->';
  if (head.startsWith('<![cdata[')) return ']]>';
  if (head.startsWith('<?')) return '?>';
  if (/^<![a-z]/.test(head)) return '>';
  const m = /^<(script|pre|style|textarea)(?=[\s>]|$)/.exec(head);
  return m ? `</${m[1]}>` : undefined;
}

/** A GFM table's delimiter row: `| --- | :-: |`. */
function isDelimiterRow(line: string): boolean {
  return /^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/.test(line) && line.includes('-') && (line.includes('|') || false);
}

/** Backticks and `<` in [i, eol). */
function codeMarksIn(s: string, i: number, eol: number): number {
  let marks = 0;
  for (; i < eol; i++) {
    const c = s.charCodeAt(i);
    if (c === 96 || c === 60) marks++;
  }
  return marks;
}

/** Emphasis and bracket marks (`*`, `_`, `~`, `[`, `]`) in [i, eol). */
function marksIn(s: string, i: number, eol: number): number {
  let marks = 0;
  for (; i < eol; i++) {
    const c = s.charCodeAt(i);
    if (c === 42 || c === 95 || c === 126 || c === 91 || c === 93) marks++;
  }
  return marks;
}
