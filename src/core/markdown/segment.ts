/**
 * Markdown-aware segmentation (remark + GFM + front matter + math): sections,
 * paragraph-level blocks, or sentences. Code, front matter, HTML, math and
 * tables are never segments; a `#` inside a code block is code.
 * Every segment keeps exact 1-based lines and a query text free of markup.
 */
import type { Root, RootContent, Heading, Parent, PhrasingContent, ListItem } from 'mdast';
import * as crypto from 'node:crypto';
import { sha256 } from '../util/hash';
import { EngineError } from '../../shared/errors';
import { lineOf, lineStarts } from '../../shared/lines';
import { splitSentences } from '../text/sentences';
import { pandocAsMarkdown } from './pandoc';
import { parseDraft } from './parse';
import { plainInline, stripCitationMarkup } from './plainText';

import type { Granularity } from '../../shared/settings';

export type { Granularity };
export type SegmentType = 'section' | 'paragraph' | 'list-item' | 'blockquote' | 'footnote' | 'sentence';

export interface Segment {
  /** Unique in the document; stable when other parts of the document change. */
  id: string;
  type: SegmentType;
  startLine: number;
  endLine: number;
  /** Its heading, or its first words. */
  title: string;
  /** The Markdown source of the segment, as displayed. */
  text: string;
  /** Plain text for searching: no Markdown, citation or footnote markup; link text kept. */
  query: string;
  /** Headings above the segment, outermost first. */
  headingPath: string[];
  /** False when too short to search (listed, not searched). */
  searchable: boolean;
  /** A LaTeX draft's: the file it reads through `\input` that holds the segment (workspace-relative); absent in the draft itself. */
  file?: string;
}

export interface SegmentOptions {
  /** Segments with fewer words are not searched. */
  minWords?: number;
  /** Bytes parsed at once (tests: 1 parses every block alone; Infinity the whole draft at once). */
  blockBytes?: number;
  /** False: blocks of the plainest shapes go through the parser too (tests: see plainBlocks.ts). */
  plainBlocks?: boolean;
}

export interface SegmentedDocument {
  /** Front-matter title, else the first level-1 heading. */
  title?: string;
  segments: Segment[];
  /** Parts of the draft read otherwise than as Markdown, each naming its line (issue 28); absent when none. */
  warnings?: string[];
}

export const DEFAULT_MIN_WORDS = 4;

interface Block {
  type: Exclude<SegmentType, 'section' | 'sentence'>;
  start: number;
  end: number;
  startLine: number;
  endLine: number;
  query: string;
  headingPath: string[];
  /** Offsets (into the source) of the block's own prose, for sentence splitting. */
  prose: Array<{ start: number; end: number }>;
}

/**
 * Deepest nesting of lists or block quotes segmented. The Markdown parser's time grows
 * about with the cube of the depth (measured: 200 levels 0.4 s, 1,000 levels 76 s and
 * 280 MB), and no real draft nests anywhere near this deep.
 */
export const MAX_NESTING = 100;

export async function segmentMarkdown(source: string, granularity: Granularity = 'paragraph', options: SegmentOptions = {}): Promise<SegmentedDocument> {
  // The parser drops a byte-order mark from its offsets: every segment's text would be off by one.
  // Segments are reported by line, and a BOM is on no line of its own, so it is simply removed.
  if (source.charCodeAt(0) === 0xfeff) source = source.slice(1);
  // Quarto / R Markdown: fenced div marks, shortcodes, inline chunks and attributes are no prose
  // (blanked in place, for the parser and the queries); a segment's text stays what the author wrote.
  const written = source;
  source = pandocAsMarkdown(source);
  checkNesting(source);
  const { tree, warnings } = await parseDraft(source, { maxBlock: options.blockBytes, plain: options.plainBlocks });
  const minWords = options.minWords ?? DEFAULT_MIN_WORDS;
  let lines: number[] | undefined; // sentences only
  const title = frontMatterTitle(tree) ?? firstH1(tree);
  const raw: Array<Omit<Segment, 'id' | 'searchable'>> = [];

  if (granularity === 'section') {
    for (const s of sections(tree, written)) raw.push(s);
  } else {
    const blocks = collectBlocks(tree, source);
    for (const b of blocks) {
      if (granularity === 'paragraph') {
        const text = written.slice(b.start, b.end);
        raw.push({ type: b.type, startLine: b.startLine, endLine: b.endLine, title: firstWords(b.query), text, query: b.query, headingPath: b.headingPath });
        continue;
      }
      for (const part of b.prose) {
        const chunk = source.slice(part.start, part.end);
        for (const s of splitSentences(chunk)) {
          const start = part.start + s.start;
          const end = part.start + s.end;
          const query = stripCitationMarkup(inlineMarkdownToText(s.text));
          if (!query) continue;
          raw.push({
            type: 'sentence',
            startLine: lineOf((lines ??= lineStarts(source)), start),
            endLine: lineOf(lines, end - 1),
            title: firstWords(query),
            text: written.slice(start, end),
            query,
            headingPath: b.headingPath,
          });
        }
      }
    }
  }
  const segments = assignIds(raw, minWords);
  return warnings.length ? { title, segments, warnings } : { title, segments };
}

/**
 * Refuses, with the line, a draft nesting quotes or lists deeper than MAX_NESTING (cheap: one pass
 * over line prefixes). Nesting is counted both as indentation over several lines and as container
 * marks on one line (`- - - - x`, `> > >`, `1. - > x`), which the parser opens one inside the other.
 */
function checkNesting(source: string): void {
  let line = 0;
  for (let start = 0; ;) {
    line++;
    let quotes = 0;
    let markers = 0;
    let columns = 0;
    let i = start;
    for (; i < source.length; i++) {
      const c = source.charCodeAt(i);
      if (c === 62 /* > */) quotes++;
      else if (c === 32) columns++;
      else if (c === 9) columns += 4;
      else if ((c === 45 || c === 43 || c === 42) && isSpaceOrEnd(source, i + 1)) markers++;
      else if (c >= 48 && c <= 57) {
        let j = i;
        while (j < source.length && j - i < 9 && source.charCodeAt(j) >= 48 && source.charCodeAt(j) <= 57) j++;
        const d = source.charCodeAt(j);
        if ((d !== 46 && d !== 41) || !isSpaceOrEnd(source, j + 1)) break;
        markers++;
        i = j;
      } else break;
      if (quotes > MAX_NESTING || quotes + markers > MAX_NESTING || columns > 2 * MAX_NESTING) break;
    }
    // A line of marks and spaces only (`- - - -`) is a thematic break, read at once: only marks before text nest.
    let lineEnd = i;
    while (lineEnd < source.length && source.charCodeAt(lineEnd) !== 10 && source.charCodeAt(lineEnd) !== 13) lineEnd++;
    let onlyMarks = quotes === 0;
    for (let k = i; onlyMarks && k < lineEnd; k++) {
      const c = source.charCodeAt(k);
      onlyMarks = c === 45 || c === 42 || c === 43 || c === 32 || c === 9;
    }
    // A nested list item is indented at least two columns per level.
    if (!onlyMarks && (quotes > MAX_NESTING || quotes + markers > MAX_NESTING || columns > 2 * MAX_NESTING)) {
      const what = quotes > MAX_NESTING ? 'block quotes' : markers > 0 && columns <= 2 * MAX_NESTING ? 'lists (written on one line)' : 'lists or indentation';
      throw new EngineError(
        'unreadable',
        `The draft nests ${what} more than ${MAX_NESTING} levels deep (line ${line}); Similar Sources does not segment a document nested this deeply.`,
      );
    }
    const nl = lineEnd;
    if (nl >= source.length) return;
    start = source.charCodeAt(nl) === 13 && source.charCodeAt(nl + 1) === 10 ? nl + 2 : nl + 1;
  }
}

function isSpaceOrEnd(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return i >= s.length || c === 32 || c === 9 || c === 10 || c === 13;
}

/** Ids: a hash of type, heading path and text, plus an occurrence number for identical twins. */
function assignIds(raw: Array<Omit<Segment, 'id' | 'searchable'>>, minWords: number): Segment[] {
  const seen = new Map<string, number>();
  return raw.map((s) => {
    const base = idHash(`${s.type}\u0000${s.headingPath.join('\u0001')}\u0000${s.text.replace(/\s+/g, ' ').trim()}`);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const words = wordCount(s.query);
    return { id: n === 1 ? base : `${base}-${n}`, ...s, searchable: words >= minWords };
  });
}

/** The first 12 hex digits of the SHA-256 of a text: one call, no Hash object, where Node has `crypto.hash` (20.12). */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
function idHash(text: string): string {
  return (oneShot ? oneShot('sha256', text, 'hex') : sha256(text)).slice(0, 12);
}

/** Words in a text (runs of anything but white space), as `text.split(/\s+/).filter(Boolean).length`, without the arrays. */
function wordCount(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(text[i]));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

function collectBlocks(tree: Root, source: string): Block[] {
  const out: Block[] = [];
  const path: Array<{ depth: number; text: string }> = [];
  const headingPath = () => path.map((h) => h.text);

  const visit = (node: RootContent, inContainer: boolean) => {
    switch (node.type) {
      case 'heading': {
        const text = plainInline(node.children as PhrasingContent[]);
        while (path.length && path[path.length - 1].depth >= node.depth) path.pop();
        path.push({ depth: node.depth, text });
        return;
      }
      case 'paragraph':
        if (!inContainer) out.push(block('paragraph', node, [node], source, headingPath()));
        return;
      case 'blockquote':
        out.push(block('blockquote', node, proseNodes(node), source, headingPath()));
        return;
      case 'footnoteDefinition':
        out.push(block('footnote', node, proseNodes(node), source, headingPath()));
        return;
      case 'list':
        for (const item of node.children) visitItem(item);
        return;
      default:
        // code, yaml, html, math, table, thematicBreak, definition: never segments
        return;
    }
  };
  const visitItem = (item: ListItem) => {
    const own = item.children.filter((c) => c.type === 'paragraph');
    if (own.length) {
      const last = own[own.length - 1];
      const b = block('list-item', item, own, source, headingPath());
      // A list item's segment is its own prose; nested lists are segments of their own.
      b.end = last.position!.end.offset!;
      b.endLine = last.position!.end.line;
      out.push(b);
    }
    for (const c of item.children) if (c.type === 'list') for (const sub of c.children) visitItem(sub);
  };
  for (const node of tree.children) visit(node, false);
  return out;
}

function proseNodes(node: Parent): RootContent[] {
  const out: RootContent[] = [];
  const walk = (n: Parent) => {
    for (const c of n.children as RootContent[]) {
      if (c.type === 'paragraph') out.push(c);
      else if (c.type === 'blockquote' || c.type === 'list' || c.type === 'listItem') walk(c as Parent);
    }
  };
  walk(node);
  return out;
}

function block(type: Block['type'], node: RootContent, prose: RootContent[], source: string, headingPath: string[]): Block {
  const pos = node.position!;
  const query = stripCitationMarkup(
    prose
      .map((p) => plainInline(((p as Parent).children ?? []) as PhrasingContent[]))
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return {
    type,
    start: pos.start.offset!,
    end: pos.end.offset!,
    startLine: pos.start.line,
    endLine: pos.end.line,
    query,
    headingPath,
    prose: prose.map((p) => ({ start: p.position!.start.offset!, end: p.position!.end.offset! })),
  };
}

function sections(tree: Root, source: string): Array<Omit<Segment, 'id' | 'searchable'>> {
  const out: Array<Omit<Segment, 'id' | 'searchable'>> = [];
  const nodes = tree.children.filter((n) => n.type !== 'yaml');
  const path: Array<{ depth: number; text: string }> = [];
  let current: { heading?: Heading; nodes: RootContent[]; path: string[] } = { nodes: [], path: [] };
  const flush = () => {
    const content = current.nodes;
    const prose = content.filter(
      (n) => n.type !== 'code' && n.type !== 'html' && n.type !== 'math' && n.type !== 'table' && n.type !== 'definition' && n.type !== 'thematicBreak',
    );
    if (prose.length === 0) return; // a heading with no content is not a segment
    const first = current.heading ?? content[0];
    const last = content[content.length - 1];
    const start = first.position!.start.offset!;
    const end = last.position!.end.offset!;
    const headingText = current.heading ? plainInline(current.heading.children) : undefined;
    const bodyQuery = prose
      .map((n) => blockPlain(n))
      .filter(Boolean)
      .join(' ');
    const query = stripCitationMarkup([headingText, bodyQuery].filter(Boolean).join('. ').replace(/\s+/g, ' ').trim());
    out.push({
      type: 'section',
      startLine: first.position!.start.line,
      endLine: last.position!.end.line,
      title: headingText ?? firstWords(bodyQuery),
      text: source.slice(start, end),
      query,
      headingPath: current.path,
    });
  };
  for (const n of nodes) {
    if (n.type === 'heading') {
      flush();
      const text = plainInline(n.children);
      while (path.length && path[path.length - 1].depth >= n.depth) path.pop();
      const parents = path.map((h) => h.text);
      path.push({ depth: n.depth, text });
      current = { heading: n, nodes: [], path: parents };
      continue;
    }
    current.nodes.push(n);
  }
  flush();
  return out;
}

/** Plain text of a block (paragraphs, lists, quotes, footnotes); code and HTML dropped. */
function blockPlain(n: RootContent): string {
  if (n.type === 'paragraph') return plainInline(n.children);
  if (n.type === 'code' || n.type === 'html' || n.type === 'math' || n.type === 'table' || n.type === 'yaml') return '';
  if ('children' in n) return (n.children as RootContent[]).map(blockPlain).filter(Boolean).join(' ');
  return '';
}

/**
 * Where each expression of inlineMarkdownToText can start (`[`, `<`, a backtick, `*`, `_`, `~`, `$`):
 * each scans at most the sentence from there, so a sentence with more of these than this is read
 * by a linear approximation instead (none in prose: a sentence with 60 citations has 60 `[`).
 */
const MAX_INLINE_STARTS = 256;

/** Sentence-level query: strips inline Markdown from a source slice. */
function inlineMarkdownToText(s: string): string {
  let starts = 0;
  for (let i = 0; i < s.length && starts <= MAX_INLINE_STARTS; i++) {
    const c = s.charCodeAt(i);
    if (c === 91 || c === 60 || c === 96 || c === 42 || c === 95 || c === 126 || c === 36) starts++;
  }
  if (starts > MAX_INLINE_STARTS)
    return s
      .replace(/[*_~`<>$]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  // None of the expressions below can match (each needs one of these marks): only the spaces change.
  if (starts === 0) return s.replace(/\s+/g, ' ').trim();
  return s
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_|~~)(?=\S)([^]*?\S)\1/g, '$2')
    .replace(/\$[^$\n]+\$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function frontMatterTitle(tree: Root): string | undefined {
  const yaml = tree.children.find((n) => n.type === 'yaml');
  if (!yaml || yaml.type !== 'yaml') return undefined;
  // `(.+)` then trim, not `(.+?)\s*$`, which tried every end of a title line before a run of spaces.
  const m = /^title:\s*(?:"((?:[^"\\]|\\.)*)"\s*|'((?:[^']|'')*)'\s*|(.+))$/m.exec(yaml.value);
  const t = m?.[1] ?? m?.[2]?.replace(/''/g, "'") ?? m?.[3];
  return t?.trim() || undefined;
}

function firstH1(tree: Root): string | undefined {
  const h = tree.children.find((n): n is Heading => n.type === 'heading' && n.depth === 1);
  return h ? plainInline(h.children) : undefined;
}

export function firstWords(text: string, n = 8): string {
  if (!/\s/.test(text)) return text; // one word, or none
  const words = text.split(/\s+/).filter(Boolean);
  return words.slice(0, n).join(' ') + (words.length > n ? '…' : '');
}
