/**
 * The Markdown parser, loaded on first use: remark and its plugins are ESM-only
 * and not needed until a document is analysed.
 *
 * GitHub syntax comes as separate extensions — tables, footnotes, strikethrough,
 * task lists — rather than remark-gfm, to leave out autolink literals: they
 * only turn a bare URL into a link whose text is that same URL (nothing changes
 * for searching), yet tripled the parse time of a long draft (37 → 17 ms for
 * 100 paragraphs), the largest part of a re-analysis served from the cache.
 *
 * A draft is parsed in blocks (`draftBlocks`, issue 28): micromark's time grows with the
 * square of what one parse holds in several places (every setext heading rebuilds the
 * document's whole event list; every emphasis, link or bracket it resolves in a paragraph
 * splices that paragraph's events), so 30,000 setext headings took over a minute. Blocks
 * cut at blank lines outside fences, HTML blocks, math and front matter parse exactly as
 * the whole document does; link and footnote definitions, which reach across the whole
 * document, are handed to every block (`predefine`). Where a block cannot be cut small
 * enough, the costly construct is read as text and the caller is told, naming the line: a
 * paragraph dense with emphasis and bracket marks (thousands in a few kilobytes: no prose), or
 * with backticks and `<` (tens of thousands), is read without emphasis, links, footnote calls,
 * code spans and inline HTML; setext underlines past MAX_SETEXT inside one block quote or list
 * are read as text; a paragraph over MAX_PARAGRAPH is cut at a line break.
 *
 * Within a block, stretches of the plainest shapes are built without the parser (`plainBlocks`:
 * micromark costs tens of µs for each element however small), and the rest is parsed in pieces
 * of about PIECE_BYTES, each handed the draft's definitions.
 */
import type { Root, RootContent } from 'mdast';
import { draftBlocks, MAX_PARAGRAPH, type DraftBlock } from './blocks';
import { plainBlocks } from './plainBlocks';

type Processor = { parse(doc: string): Root };
let processors: Promise<{ full: Processor; plain: Processor }> | undefined;

/** Parses one string as one document (no blocks): for small, trusted text and for tests. */
export function parseMarkdown(source: string): Promise<Root> {
  return loadMarkdownParser().then((p) => p.parse(source));
}

/** Loads the parser (modules only). Started early, the import overlaps the index load. */
export function loadMarkdownParser(): Promise<Processor> {
  return loadProcessors().then((p) => p.full);
}

/**
 * Definitions known before a block is parsed, and those the block defined, read from
 * micromark's parser by a construct that never matches (`predefine`): micromark keeps
 * link and footnote labels on the parser object, nowhere an extension can reach otherwise.
 */
const labels: { links: readonly string[]; footnotes: readonly string[]; parser?: MicromarkParser } = { links: [], footnotes: [] };
interface MicromarkParser {
  defined: string[];
  gfmFootnotes?: string[];
  similarSourcesSeen?: boolean;
}

/** An array whose `includes` is a set lookup: micromark looks every reference up in its list of definitions. */
class LabelList extends Array<string> {
  private readonly set = new Set<string>();
  static of2(items: Iterable<string>): LabelList {
    const l = new LabelList();
    for (const x of items) l.push(x);
    return l;
  }
  override push(...items: string[]): number {
    for (const x of items) {
      this.set.add(x);
      super.push(x);
    }
    return this.length;
  }
  override includes(x: string): boolean {
    return this.set.has(x);
  }
  static override get [Symbol.species]() {
    return Array;
  }
}

const predefine = {
  name: 'similarSourcesPredefine',
  tokenize(this: { parser: MicromarkParser }, _effects: unknown, _ok: unknown, nok: (code: unknown) => unknown) {
    const parser = this.parser;
    if (!parser.similarSourcesSeen) {
      parser.similarSourcesSeen = true;
      labels.parser = parser;
      const links = LabelList.of2(parser.defined);
      for (const x of labels.links) links.push(x);
      parser.defined = links;
      const notes = LabelList.of2(parser.gfmFootnotes ?? []);
      for (const x of labels.footnotes) notes.push(x);
      parser.gfmFootnotes = notes;
    }
    return nok;
  },
};

function loadProcessors(): Promise<{ full: Processor; plain: Processor }> {
  processors ??= (async () => {
    const [{ unified }, remarkParse, remarkFrontmatter, remarkMath, table, footnote, strike, task, mdTable, mdFootnote, mdStrike, mdTask] = await Promise.all([
      import('unified'),
      import('remark-parse'),
      import('remark-frontmatter'),
      import('remark-math'),
      import('micromark-extension-gfm-table'),
      import('micromark-extension-gfm-footnote'),
      import('micromark-extension-gfm-strikethrough'),
      import('micromark-extension-gfm-task-list-item'),
      import('mdast-util-gfm-table'),
      import('mdast-util-gfm-footnote'),
      import('mdast-util-gfm-strikethrough'),
      import('mdast-util-gfm-task-list-item'),
    ]);
    const make = (plain: boolean) => {
      function gfmWithoutAutolinks(this: { data(): Record<string, unknown[] | undefined> }) {
        const data = this.data();
        const micromark = (data.micromarkExtensions ??= []);
        micromark.push(table.gfmTable(), footnote.gfmFootnote(), strike.gfmStrikethrough(), task.gfmTaskListItem(), { flowInitial: { null: [predefine] } });
        // Emphasis, strikethrough, links, images, footnote calls, code spans, inline HTML and autolinks off: the marks stay text.
        if (plain)
          micromark.push({
            disable: {
              null: [
                'attention',
                'strikethrough',
                'labelStartLink',
                'labelStartImage',
                'labelEnd',
                'gfmFootnoteCall',
                'gfmPotentialFootnoteCall',
                'codeText',
                'htmlText',
                'autolink',
              ],
            },
          });
        (data.fromMarkdownExtensions ??= []).push(
          mdTable.gfmTableFromMarkdown(),
          mdFootnote.gfmFootnoteFromMarkdown(),
          mdStrike.gfmStrikethroughFromMarkdown(),
          mdTask.gfmTaskListItemFromMarkdown(),
        );
      }
      return unified()
        .use(remarkParse.default)
        .use(remarkFrontmatter.default, ['yaml', 'toml'])
        .use(gfmWithoutAutolinks as never)
        .use(remarkMath.default) as unknown as Processor;
    };
    return { full: make(false), plain: make(true) };
  })();
  return processors;
}

export interface ParsedDraft {
  tree: Root;
  /** What was read otherwise than Markdown would: "line 12: …". */
  warnings: string[];
}

export interface ParseDraftOptions {
  /** Bytes gathered into one parse before a cut (tests pass 1 to cut at every boundary). */
  maxBlock?: number;
  /** False: every block through the parser, none read by plainBlocks (tests compare the two). */
  plain?: boolean;
}

/** Parses a draft block by block (see the module comment); positions are the draft's. */
export async function parseDraft(source: string, options: ParseDraftOptions = {}): Promise<ParsedDraft> {
  const { full, plain } = await loadProcessors();
  const blocks = draftBlocks(source, options.maxBlock);
  const warnings: string[] = [];
  const parseText = (text: string, useFull: boolean, links: readonly string[], footnotes: readonly string[]) => {
    labels.links = links;
    labels.footnotes = footnotes;
    labels.parser = undefined;
    try {
      const tree = (useFull ? full : plain).parse(text);
      const parser = labels.parser as MicromarkParser | undefined;
      return { tree, links: parser ? [...parser.defined] : [], footnotes: parser?.gfmFootnotes ? [...parser.gfmFootnotes] : [] };
    } finally {
      labels.parser = undefined;
    }
  };
  // After a byte-order mark opening the draft, micromark's offsets are one short (segmentMarkdown removes it first).
  const tryPlain = options.plain !== false && source.charCodeAt(0) !== 0xfeff;
  type Parsed = { children: RootContent[]; links: string[]; footnotes: string[] };
  /** Each block's text and pieces: stretches of plain shapes built here, the others to parse. */
  const cut = blocks.map((b) => {
    const text = b.quotedUnderlines ? textOfUnderlines(source, b.start, b.end, b.quotedUnderlines.at) : source.slice(b.start, b.end);
    return { b, text, pieces: pieces(text, b, tryPlain), parsed: new Map<Piece, Parsed>() };
  });
  const parsePiece = (c: (typeof cut)[number], piece: Piece, links: readonly string[], footnotes: readonly string[]): Parsed => {
    const r = parseText(piece.start === 0 && piece.end === c.text.length ? c.text : c.text.slice(piece.start, piece.end), !c.b.dense, links, footnotes);
    shiftPositions(r.tree, c.b.start + piece.start, piece.line);
    return { children: r.tree.children, links: r.links, footnotes: r.footnotes };
  };
  // Definitions first: a reference is a link wherever in the draft its label is defined. Labels as
  // micromark lists them (normalizeIdentifier: plainBlocks' labels are ASCII letters, digits and single spaces).
  const links = new Set<string>();
  const footnotes = new Set<string>();
  for (const c of cut) {
    for (const piece of c.pieces) {
      if (piece.nodes) {
        for (const n of piece.nodes) {
          if (n.type === 'definition') links.add(n.label!.toUpperCase());
          else if (n.type === 'footnoteDefinition') footnotes.add(n.label!.toUpperCase());
        }
      } else if (c.text.slice(piece.start, piece.end).includes(']:')) {
        const r = parsePiece(c, piece, [], []);
        c.parsed.set(piece, r);
        for (const x of r.links) links.add(x);
        for (const x of r.footnotes) footnotes.add(x);
      }
    }
  }
  const linkList = [...links];
  const footnoteList = [...footnotes];
  const root: Root = { type: 'root', children: [], position: { start: { line: 1, column: 1, offset: 0 }, end: endPoint(source) } };
  for (const c of cut) {
    const b = c.b;
    const first = root.children.length;
    for (const piece of c.pieces) {
      if (piece.nodes) {
        for (const n of piece.nodes) root.children.push(n);
        continue;
      }
      const known = c.parsed.get(piece);
      // A piece that defined every label it could be handed was parsed as it is.
      const r =
        known && new Set(known.links).size === links.size && new Set(known.footnotes).size === footnotes.size
          ? known
          : parsePiece(c, piece, linkList, footnoteList);
      for (const n of r.children) root.children.push(n);
    }
    // A dense stretch that is an HTML block (`<div>` lines) has no inline Markdown to lose: no warning,
    // unless the block holds more (a paragraph above an indented HTML block, which cannot be cut at).
    if (b.dense && !root.children.slice(first).every((n) => n.type === 'html')) warnings.push(denseWarning(b.dense));
    if (b.quotedUnderlines) warnings.push(quotedWarning(b.quotedUnderlines));
    if (b.splitsParagraph !== undefined)
      warnings.push(
        `line ${(b.splitsParagraph + 1).toLocaleString('en')}: a paragraph longer than ${MAX_PARAGRAPH / 1024} KB was cut at this line break into two paragraphs`,
      );
  }
  if (warnings.length > MAX_WARNINGS) warnings.splice(MAX_WARNINGS, Infinity, `and ${(warnings.length - MAX_WARNINGS).toLocaleString('en')} more such places`);
  return { tree: root, warnings };
}

interface Piece {
  /** [start, end) of the block's text, and the draft's 0-based line of start. */
  start: number;
  end: number;
  line: number;
  /** Built by plainBlocks; undefined: to be parsed. */
  nodes?: RootContent[];
  /** It starts at a weak cut (see DraftBlock.cuts): not where a parse may start. */
  weak: boolean;
}

/**
 * The block cut at each of its cuts into stretches read by plainBlocks where they can be, and
 * stretches to parse (neighbours joined: one parse for each run of them). A stretch that starts at
 * a weak cut and cannot be read here is joined to the one before.
 */
function pieces(text: string, b: DraftBlock, tryPlain: boolean): Piece[] {
  if (!tryPlain) return [{ start: 0, end: text.length, line: b.line, weak: false }];
  const out: Piece[] = [];
  const bounds = b.cuts;
  for (let k = -3; k < bounds.length; k += 3) {
    const start = k < 0 ? 0 : bounds[k] - b.start;
    const line = k < 0 ? b.line : bounds[k + 1];
    const weak = k >= 0 && bounds[k + 2] === 1;
    const end = k + 3 < bounds.length ? bounds[k + 3] - b.start : text.length;
    const nodes = plainBlocks(text, start, end, b.start, line);
    if (nodes) {
      out.push({ start, end, line, nodes, weak });
      continue;
    }
    let piece: Piece = { start, end, line, weak };
    // Joined to the parse before it, up to PIECE_BYTES; a weak start also to the plain stretch before it (parsed with it, then).
    while (out.length && (piece.weak || (!out[out.length - 1].nodes && piece.start - out[out.length - 1].start < PIECE_BYTES))) {
      const prev = out.pop()!;
      piece = { start: prev.start, end: piece.end, line: prev.line, weak: prev.weak };
    }
    out.push(piece);
  }
  return foldShortRuns(out);
}

/**
 * Runs of one or two short plain stretches beside a parse go into that parse: each parse costs micromark
 * ~50 µs before its first byte (it combines its extensions anew), more than parsing a short stretch
 * or two with its neighbour (a definition between two paragraphs of references).
 */
/**
 * Bytes gathered into one parse within a block, at most (a stretch may pass it): micromark's time per
 * element grows with what one parse holds (definitions between paragraphs of references: ~110 µs a
 * pair in parses of 1 KB, ~300 µs in parses of 8 KB).
 */
const PIECE_BYTES = 1_024;

/** A run of plain stretches this short (bytes) goes into the parse beside it. */
const FOLD_BYTES = 256;

function foldShortRuns(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  const parse = (p: Piece) => {
    const last = out[out.length - 1];
    if (last && !last.nodes && (p.weak || last.end - last.start < PIECE_BYTES)) last.end = p.end;
    else out.push({ start: p.start, end: p.end, line: p.line, weak: p.weak });
  };
  for (let i = 0; i < pieces.length;) {
    if (!pieces[i].nodes) {
      parse(pieces[i++]);
      continue;
    }
    let j = i;
    while (j < pieces.length && pieces[j].nodes) j++;
    const afterParse = out.length > 0 && !out[out.length - 1].nodes;
    // A parse may not start at a weak cut: a run there joins only the parse before it.
    if (j - i <= 2 && pieces[j - 1].end - pieces[i].start <= FOLD_BYTES && (afterParse || (j < pieces.length && !pieces[i].weak)))
      parse({ start: pieces[i].start, end: pieces[j - 1].end, line: pieces[i].line, weak: pieces[i].weak });
    else for (let k = i; k < j; k++) out.push(pieces[k]);
    i = j;
  }
  return out;
}

/**
 * The block's text with the marks of setext underlines inside containers replaced, one UTF-16 unit
 * for one (`=` → `═`, `-` → `─`): offsets stay the draft's, and micromark reads them as text.
 */
function textOfUnderlines(source: string, start: number, end: number, at: number[]): string {
  const parts: string[] = [];
  let from = start;
  for (let k = 0; k < at.length; k += 2) {
    parts.push(source.slice(from, at[k]));
    parts.push((source[at[k]] === '=' ? '\u2550' : '\u2500').repeat(at[k + 1] - at[k]));
    from = at[k + 1];
  }
  parts.push(source.slice(from, end));
  return parts.join('');
}

function quotedWarning({ line, at }: { line: number; at: number[] }): string {
  return `line ${(line + 1).toLocaleString('en')}: ${(at.length / 2).toLocaleString('en')} setext headings inside a block quote or list were read as text`;
}

/** Warnings listed one by one, at most (then one line says how many more). */
const MAX_WARNINGS = 10;

function denseWarning({ line, marks }: { line: number; marks: number }): string {
  return `line ${(line + 1).toLocaleString('en')}: a paragraph with ${marks.toLocaleString('en')} emphasis, bracket and code marks was read without emphasis, links, footnote calls and code spans (its marks stay in the search text)`;
}

/** Moves a block's positions to the draft's (iteratively: a tree can be deep). */
function shiftPositions(tree: Root, offset: number, lines: number): void {
  if (offset === 0 && lines === 0) return;
  const stack: Array<{ position?: Root['position']; children?: unknown[] }> = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    const p = n.position;
    if (p) {
      p.start = { ...p.start, line: p.start.line + lines, offset: (p.start.offset ?? 0) + offset };
      p.end = { ...p.end, line: p.end.line + lines, offset: (p.end.offset ?? 0) + offset };
    }
    if (n.children) for (const c of n.children) stack.push(c as typeof n);
  }
}

function endPoint(source: string): { line: number; column: number; offset: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || (c === 13 && source.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: source.length - lineStart + 1, offset: source.length };
}
