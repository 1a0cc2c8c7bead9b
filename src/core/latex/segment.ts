/**
 * LaTeX drafts segmented as Markdown ones are (issue 25), parsed with
 * @unified-latex (the parser of LaTeX Workshop): sections by `\part` …
 * `\subsubsection` (starred too) and `\paragraph`, paragraphs by blank lines,
 * sentences as elsewhere. The text of `\emph{}`, `\textit{}`, `\enquote{}`…
 * is kept and `\footnote{}` text stays in its paragraph; commands, comments,
 * math, verbatim and listings, citations, the preamble, `thebibliography`
 * and floats (all but their `\caption`, a paragraph of its own) are left out.
 * `\input`/`\include` are not followed: only the file given is read.
 *
 * The draft is parsed in pieces where nothing reaches across (issue 35: scan.ts, units.ts), so that
 * its time and memory stay linear whatever its shape, and the plainest paragraphs are read without
 * the parser (plain.ts). A draft larger than MAX_LATEX_BYTES, or nesting groups and environments
 * deeper than LaTeX does, is refused (`unreadable`) with its size or its line, not half read.
 */
import type { getParser } from '@unified-latex/unified-latex-util-parse';
import { EngineError } from '../../shared/errors';
import { latexCiteStyle } from '../../shared/latexCiteFormat';
import { sha256 } from '../util/hash';
import { lineOf, lineStarts } from '../../shared/lines';
import { splitSentences } from '../text/sentences';
import type { Granularity, Segment, SegmentedDocument, SegmentOptions } from '../markdown/segment';
import { FLOATS, MATH_ENVS, type Node, PARSER_ENVIRONMENTS, PARSER_MACROS, SKIPPED_ENVS } from './macros';
import { type Known, readPlain } from './plain';
import { firstMaskFrom, scanLatex, VERBATIM_ENVS, type LatexScan } from './scan';
import { checkLatexSize, documentEnv, firstLineEnd, type Item, MAX_UNIT, paragraphs, pieces } from './units';
import { clean, findMacro, lastArg, textOf, Walker } from './walk';

/** Groups and environments nested deeper than this are refused: LaTeX itself stops at 255 grouping levels. */
export const MAX_LATEX_NESTING = 255;
/**
 * Bytes given to the parser in one draft, at most: what the plain reader cannot read (a paragraph of
 * commands it does not know, an environment of its own). A thesis of 1 MB gives it a few hundred bytes;
 * 32 KB cost it 0.1–0.8 s.
 */
export const PARSE_BUDGET = 32 * 1024;
const MAX_WARNINGS = 10;

let parser: ReturnType<typeof getParser> | undefined;

/** The parser, loaded on first use (45–80 ms to load: not on every start of the engine). */
async function loadParser(): Promise<ReturnType<typeof getParser>> {
  const { getParser: make } = await import('@unified-latex/unified-latex-util-parse');
  return (parser ??= make({ macros: PARSER_MACROS, environments: PARSER_ENVIRONMENTS }));
}

async function parseLatex(source: string): Promise<Node[]> {
  return ((await loadParser()).parse(source) as unknown as Node).content as Node[];
}

/** Commands that change how the parser reads what follows them: never read without it. */
const NOT_PLAIN = new Set(['makeatletter', 'makeatother', 'ExplSyntaxOn', 'ExplSyntaxOff', 'verb', 'lstinline', 'mintinline', 'mint', 'begin', 'end', 'item']);
const argless = new Map<string, boolean>();
const plainEnvs = new Map<string, boolean>();
/** Names asked of the parser, at most (a draft of thousands of made-up commands is not probed for each). */
const MAX_PROBED = 2048;
const shape = (nodes: Node[]): string => JSON.stringify(nodes, (k, v) => (k === 'position' || k === '_renderInfo' ? undefined : v));

/** What the parser makes of commands and environments macros.ts does not name, asked of it once per name (a parse of a few bytes). */
function knownTo(p: ReturnType<typeof getParser>): Known {
  const parse = (text: string) => (p.parse(text) as unknown as Node).content as Node[];
  return {
    command(name) {
      let v = argless.get(name);
      if (v === undefined) {
        if (argless.size >= MAX_PROBED) return false;
        const [n] = parse(`\\${name}{x}[y]`);
        v = !NOT_PLAIN.has(name) && n?.type === 'macro' && n.content === name && n.args === undefined;
        argless.set(name, v);
      }
      return v;
    },
    environment(name) {
      let v = plainEnvs.get(name);
      if (v === undefined) {
        if (plainEnvs.size >= MAX_PROBED) return false;
        const [n] = parse(`\\begin{${name}}[o]{m}x y\\end{${name}}`);
        v = n?.type === 'environment' && n.env === name && n.args === undefined && shape(n.content as Node[]) === shape(parse('[o]{m}x y'));
        plainEnvs.set(name, v);
      }
      return v;
    },
  };
}

export async function segmentLatex(source: string, granularity: Granularity = 'paragraph', options: SegmentOptions = {}): Promise<SegmentedDocument> {
  if (source.charCodeAt(0) === 0xfeff) source = source.slice(1);
  checkLatexSize(source);
  try {
    return await segmentParsed(source, granularity, options);
  } catch (err) {
    // The parser and the walk recurse with the nesting: thousands of nested groups exhaust the stack.
    if (err instanceof RangeError)
      throw new EngineError('unreadable', 'The LaTeX draft nests groups, commands or environments too deeply to be read (or leaves thousands of them open).');
    throw err;
  }
}

async function segmentParsed(source: string, granularity: Granularity, options: SegmentOptions): Promise<SegmentedDocument> {
  const walker = new Walker();
  const warnings: string[] = [];
  let title: string | undefined;
  if (options.blockBytes === Infinity) {
    // The whole draft parsed at once (tests compare the pieces with it).
    const children = await parseLatex(source);
    const documentNode = children.find((n) => n.type === 'environment' && n.env === 'document');
    const titleMacro = findMacro(children, 'title');
    title = titleMacro ? clean(textOf(lastArg(titleMacro))) || undefined : undefined;
    walker.walk(documentNode ? (documentNode.content as Node[]) : children, 0);
  } else {
    const scan = scanLatex(source);
    if (scan.deepest.depth > MAX_LATEX_NESTING) {
      const line = lineOf(lineStarts(source), scan.deepest.at);
      throw new EngineError(
        'unreadable',
        `The LaTeX draft nests groups, commands or environments too deeply to be read: ${scan.deepest.depth} open at line ${line} (or left open before it), where LaTeX stops at ${MAX_LATEX_NESTING}.`,
      );
    }
    title = await readPieces(source, scan, walker, warnings, options);
  }
  walker.finish();
  const { blocks, headings } = walker;

  const lines = lineStarts(source);
  const lineAt = (offset: number) => lineOf(lines, offset);
  const minWords = options.minWords ?? 4;
  // Built as literals, their ids set after (tens of thousands of segments in a long draft).
  const segments: Segment[] = [];
  if (granularity === 'section') {
    const bounds = [
      { start: 0, title: undefined as string | undefined, path: [] as string[], headingStart: -1 },
      ...headings.map((h) => ({ start: h.end, title: h.title, path: h.path, headingStart: h.start })),
    ];
    // Blocks come in the order of the source: each section's are those from its heading to the next (one pass).
    let k = 0;
    bounds.forEach((b, i) => {
      const next = bounds[i + 1]?.headingStart ?? Infinity;
      while (k < blocks.length && blocks[k].start < b.start) k++;
      const first = k;
      while (k < blocks.length && blocks[k].start < next) k++;
      const inside = blocks.slice(first, k);
      if (!inside.length) return;
      const from = b.headingStart >= 0 ? b.headingStart : inside[0].start;
      const to = inside[inside.length - 1].end;
      const query = [b.title, inside.map((x) => x.query).join(' ')].filter(Boolean).join('. ');
      segments.push({
        id: '',
        type: 'section',
        startLine: lineAt(from),
        endLine: lineAt(to - 1),
        title: b.title ?? firstWords(query),
        text: source.slice(from, to),
        query,
        headingPath: b.path,
        searchable: hasWords(query, minWords),
      });
    });
  } else {
    for (const b of blocks) {
      const startLine = lineAt(b.start);
      const endLine = lineAt(b.end - 1);
      if (granularity === 'paragraph') {
        segments.push({
          id: '',
          startLine,
          endLine,
          headingPath: b.headingPath,
          type: b.type,
          title: firstWords(b.query),
          text: source.slice(b.start, b.end),
          query: b.query,
          searchable: hasWords(b.query, minWords),
        });
        continue;
      }
      // Sentences of the block's plain text (their lines are the block's).
      for (const s of splitSentences(b.query))
        segments.push({
          id: '',
          startLine,
          endLine,
          headingPath: b.headingPath,
          type: 'sentence',
          title: firstWords(s.text),
          text: s.text,
          query: s.text,
          searchable: hasWords(s.text, minWords),
        });
    }
  }
  if (warnings.length > MAX_WARNINGS) warnings.splice(MAX_WARNINGS, Infinity, `and ${(warnings.length - MAX_WARNINGS).toLocaleString('en')} more such places`);
  assignIds(segments);
  return warnings.length ? { title, segments, warnings } : { title, segments };
}

/**
 * The draft's pieces (units.ts) walked in order: the preamble's and what follows the document only
 * for its `\title`, the document's for its blocks. Each piece is read by the plain reader, else parsed
 * (a piece no longer than MAX_UNIT), else cut smaller, else read leniently with a warning. Returns the title.
 */
async function readPieces(source: string, scan: LatexScan, walker: Walker, warnings: string[], options: SegmentOptions): Promise<string | undefined> {
  const maxUnit = options.blockBytes ?? MAX_UNIT;
  const plain = options.plainBlocks !== false;
  const known = knownTo(await loadParser());
  let title: string | undefined;
  let titles = 0; // the next `\title` not yet looked at
  const lines = lineStarts(source);
  const warn = (at: number, why: string) => warnings.push(`line ${lineOf(lines, at).toLocaleString('en')}: ${why}`);
  // The parser's time per byte varies tenfold with what it reads (2–40 µs): it reads PARSE_BUDGET bytes of a draft at most.
  const budget = Math.max(PARSE_BUDGET, maxUnit);
  let parsed = 0;
  const over = { bytes: 0, at: -1 };
  /** Nodes of `from`–`to` and the offset their positions start at, or undefined when it is to be cut smaller. */
  const read = async (from: number, to: number, cut: boolean): Promise<{ nodes: Node[]; base: number } | undefined> => {
    // A stretch too long to parse is cut before it is read: its pieces' nodes are not all held at once.
    if (cut && to - from > maxUnit) return undefined;
    const nodes = plain ? readPlain(source, scan, from, to, false, known) : undefined;
    if (nodes) return { nodes, base: 0 };
    if (to - from <= maxUnit && parsed + (to - from) <= budget) {
      parsed += to - from;
      return { nodes: await parseUnit(source, scan, from, to), base: from };
    }
    if (to - from <= maxUnit) {
      over.bytes += to - from;
      if (over.at < 0) over.at = from;
    } else
      warn(
        from,
        `${Math.round((to - from) / 1024)} KB with no paragraph break or space between words outside groups and environments: read without the LaTeX parser (commands it does not know take no argument)`,
      );
    return { nodes: readPlain(source, scan, from, to, true)!, base: 0 };
  };
  const lookForTitle = (nodes: Node[], from: number, to: number) => {
    while (titles < scan.titles.length && scan.titles[titles] < from) titles++;
    if (title !== undefined || titles >= scan.titles.length || scan.titles[titles] >= to) return;
    const t = findMacro(nodes, 'title');
    if (t) title = clean(textOf(lastArg(t))) || undefined;
  };
  const hasTitle = (from: number, to: number) => {
    while (titles < scan.titles.length && scan.titles[titles] < from) titles++;
    return title === undefined && titles < scan.titles.length && scan.titles[titles] < to;
  };

  const doc = documentEnv(source, scan);
  const regions = doc
    ? [
        { from: 0, to: doc.from, body: false },
        { from: doc.contentFrom, to: doc.contentTo, body: true },
        { from: doc.to, to: source.length, body: false },
      ]
    : [{ from: 0, to: source.length, body: true }];
  for (const region of regions) {
    if (!region.body) {
      // Outside the document only a `\title` is looked for: a stretch without one is not read.
      for (const item of paragraphs(source, scan, region.from, region.to)) {
        if (item.t !== 'text' || !hasTitle(item.from, item.to)) continue;
        const r = (await read(item.from, item.to, false))!;
        lookForTitle(r.nodes, item.from, item.to);
      }
      continue;
    }
    // Items to walk, innermost last; an item is cut smaller by pushing what it is cut into.
    const stack: Array<{ items: Item[]; k: number; cut: boolean }> = [{ items: paragraphs(source, scan, region.from, region.to), k: 0, cut: true }];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top.k >= top.items.length) {
        stack.pop();
        continue;
      }
      const item = top.items[top.k++];
      if (item.t === 'break') walker.parbreak();
      else if (item.t === 'close') walker.leave(item.name);
      else if (item.t === 'text') {
        const r = await read(item.from, item.to, top.cut);
        if (!r) {
          stack.push({ items: pieces(source, scan, item.from, item.to, item.space, maxUnit), k: 0, cut: false });
          continue;
        }
        if (item.space) walker.space();
        lookForTitle(r.nodes, item.from, item.to);
        walker.walk(r.nodes, r.base);
      } else {
        // An environment longer than MAX_UNIT.
        if (SKIPPED_ENVS.has(item.name) || MATH_ENVS.has(item.name) || VERBATIM_ENVS.has(item.name)) {
          // No prose in it: left out (a space, where the source has one around it, keeps the words apart).
          if (item.space) walker.space();
          continue;
        }
        if (item.space) walker.space();
        if (FLOATS.has(item.name)) {
          // Only its caption is read.
          const r = (await read(item.from, item.to, false))!;
          lookForTitle(r.nodes, item.from, item.to);
          walker.walk(r.nodes, r.base);
          continue;
        }
        // Opened: its first line (where its arguments are) parsed with an end added, its paragraphs cut alike.
        const contentFrom = item.from + '\\begin{}'.length + item.name.length;
        const contentTo = item.to - '\\end{}'.length - item.name.length;
        let head = firstLineEnd(source, scan, contentFrom, contentTo, item.from + maxUnit);
        if (head < 0) head = contentFrom;
        parsed += head - item.from;
        const nodes = await parseUnit(source, scan, item.from, head, `\n\\end{${item.name}}`);
        const env = nodes.find((n) => n.type === 'environment' && n.env === item.name);
        walker.enter(item.name, env ? (env.content as Node[]) : nodes, item.from);
        lookForTitle(nodes, item.from, head);
        const inner = paragraphs(source, scan, head, contentTo);
        if (inner[0].t === 'text') inner[0].space = true;
        inner.push({ t: 'close', name: item.name });
        stack.push({ items: inner, k: 0, cut: true });
      }
    }
  }
  if (over.at >= 0)
    warn(
      over.at,
      `the LaTeX parser reads ${PARSE_BUDGET / 1024} KB of a draft at most (of what is not plain prose); ${Math.ceil(over.bytes / 1024)} KB from here on were read without it (commands it does not know take no argument)`,
    );
  return title;
}

/** The source of `from`–`to` for the parser, with what scan.ts masks there; and whether a `{` was masked. */
function masked(source: string, scan: LatexScan, from: number, to: number): { text: string; braces: boolean } {
  const masks = scan.masks;
  const lo = firstMaskFrom(scan, from);
  if (lo >= masks.length || masks[lo].at >= to) return { text: source.slice(from, to), braces: false };
  const parts: string[] = [];
  let at = from;
  let braces = false;
  for (let k = lo; k < masks.length && masks[k].at < to; k++) {
    const m = masks[k];
    parts.push(source.slice(at, m.at), m.text);
    at = m.at + m.text.length;
    braces ||= m.text === '(';
  }
  parts.push(source.slice(at, to));
  return { text: parts.join(''), braces };
}

/** `from`–`to` parsed (`end`: text added after it, an environment's end); a `{` masked as `(` given back in its string. */
async function parseUnit(source: string, scan: LatexScan, from: number, to: number, end = ''): Promise<Node[]> {
  const { text, braces } = masked(source, scan, from, to);
  const nodes = await parseLatex(text + end);
  if (braces) restoreStrings(nodes, source, from);
  return nodes;
}

/** Each string's text from the source (a string is the source's text as written). */
function restoreStrings(nodes: Node[], source: string, base: number): void {
  for (const n of nodes) {
    if (n.type === 'string' && n.position) n.content = source.slice(base + n.position.start.offset, base + n.position.end.offset);
    else if (Array.isArray(n.content)) restoreStrings(n.content, source, base);
    for (const a of n.args ?? []) restoreStrings(a.content, source, base);
  }
}

function firstWords(text: string, n = 8): string {
  const words: string[] = [];
  for (const m of text.matchAll(/\S+/g)) if (words.push(m[0]) > n) break;
  return words.slice(0, n).join(' ') + (words.length > n ? '…' : '');
}

/** At least `n` words. */
function hasWords(text: string, n: number): boolean {
  let count = 0;
  for (const _ of text.matchAll(/\S+/g)) if (++count >= n) return true;
  return count >= n;
}

/** Ids as Markdown segments get them: a hash of type, heading path and text, and an occurrence number. */
function assignIds(segments: Segment[]): void {
  const seen = new Map<string, number>();
  for (const s of segments) {
    const base = sha256(`${s.type}\u0000${s.headingPath.join('\u0001')}\u0000${s.text.replace(/\s+/g, ' ').trim()}`).slice(0, 12);
    const k = (seen.get(base) ?? 0) + 1;
    seen.set(base, k);
    s.id = k === 1 ? base : `${base}-${k}`;
  }
}

/**
 * The citation template of a LaTeX draft, from its preamble: biblatex `\autocite[p.~214]{key}`,
 * natbib `\citep[p.~214]{key}`, plain `\cite[p.~214]{key}` otherwise.
 */
export function latexCitationTemplate(source: string): string {
  const style = latexCiteStyle(source);
  return style === 'biblatex' ? '\\autocite[p.~{page}]{{key}}' : style === 'natbib' ? '\\citep[p.~{page}]{{key}}' : '\\cite[p.~{page}]{{key}}';
}
