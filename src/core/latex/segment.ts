/**
 * LaTeX drafts segmented as Markdown ones are (issue 25), parsed with
 * @unified-latex (the parser of LaTeX Workshop): sections by `\part` …
 * `\subsubsection` (starred too) and `\paragraph`, paragraphs by blank lines,
 * sentences as elsewhere. The text of `\emph{}`, `\textit{}`, `\enquote{}`…
 * is kept and `\footnote{}` text stays in its paragraph; commands, comments,
 * math, verbatim and listings, citations, the preamble, `thebibliography`
 * and floats (all but their `\caption`, a paragraph of its own) are left out.
 * `\input`/`\include` are not followed: only the file given is read. A draft nested too
 * deeply for the parser's recursion is refused (`unreadable`), not half read.
 */
import type { getParser } from '@unified-latex/unified-latex-util-parse';
import { EngineError } from '../../shared/errors';
import { latexCiteStyle } from '../../shared/latexCite';
import { sha256 } from '../util/hash';
import { lineOf, lineStarts } from '../../shared/lines';
import { splitSentences } from '../text/sentences';
import type { Granularity, Segment, SegmentedDocument, SegmentOptions, SegmentType } from '../markdown/segment';

type Node = { type: string; content?: string | Node[]; env?: string; args?: Arg[]; position?: { start: { offset: number }; end: { offset: number } } };
type Arg = { type: 'argument'; content: Node[]; openMark: string; closeMark: string };

const SECTIONS: Record<string, number> = { part: 0, chapter: 1, section: 2, subsection: 3, subsubsection: 4, paragraph: 5, subparagraph: 6 };
const CITES = ['cite', 'citep', 'citet', 'parencite', 'textcite', 'autocite', 'footcite', 'smartcite', 'supercite', 'citeauthor', 'citeyear', 'citetitle', 'nocite', 'Cite', 'Parencite', 'Textcite', 'Autocite', 'citealp', 'citealt'];
const MULTI_CITES = ['cites', 'parencites', 'textcites', 'autocites', 'footcites', 'Cites', 'Parencites', 'Textcites', 'Autocites'];
/** Macros whose last argument is prose. */
const TEXT = ['textcquote', 'blockcquote', 'foreigntextcquote', 'foreignblockcquote', 'hyphentextcquote', 'hyphenblockcquote', 'hybridblockcquote', 'emph', 'textit', 'textbf', 'textsc', 'textsl', 'textup', 'textrm', 'textsf', 'texttt', 'textmd', 'underline', 'enquote', 'mbox', 'textquote', 'foreignquote', 'hyphenquote', 'foreignlanguage', 'footnote', 'footnotetext', 'caption', 'hbox', 'uline', 'textnormal', 'emph*'];
/** Macros whose arguments are no prose (read, so their braces are not taken for text). */
const DROPPED: Record<string, string> = {
  label: 'm',
  ref: 'm',
  eqref: 'm',
  pageref: 'm',
  autoref: 'm',
  cref: 'm',
  Cref: 'm',
  nameref: 'm',
  url: 'm',
  input: 'm',
  include: 'm',
  includegraphics: 'o m',
  addbibresource: 'o m',
  bibliography: 'm',
  bibliographystyle: 'm',
  printbibliography: 'o',
  vspace: 's m',
  hspace: 's m',
  index: 'm',
  glossary: 'm',
};
const SKIPPED_ENVS = new Set(['thebibliography', 'verbatim', 'Verbatim', 'lstlisting', 'minted', 'comment', 'tikzpicture', 'tabular', 'tabular*', 'tabularx', 'longtable', 'equation', 'equation*', 'align', 'align*', 'gather', 'gather*', 'multline', 'multline*', 'eqnarray', 'eqnarray*', 'displaymath', 'math']);
const FLOATS = new Set(['figure', 'figure*', 'table', 'table*', 'wrapfigure', 'sidewaysfigure', 'sidewaystable']);
const QUOTES = new Set(['quote', 'quotation', 'displayquote', 'verse']);
const LISTS = new Set(['itemize', 'enumerate', 'description']);

let parser: ReturnType<typeof getParser> | undefined;

/** The parser, loaded on first use (45–80 ms to load: not on every start of the engine). */
async function parseLatex(source: string): Promise<Node> {
  const { getParser: make } = await import('@unified-latex/unified-latex-util-parse');
  parser ??= make({
    macros: {
      ...Object.fromEntries(CITES.map((m) => [m, { signature: 's o o m' }])),
      // `\cites(pre)(post)[12]{a}[14]{b}`: read as a run of arguments, dropped whole.
      ...Object.fromEntries(MULTI_CITES.map((m) => [m, { signature: `d() d() ${'o o d{} '.repeat(8).trim()}` }])),
      ...Object.fromEntries(Object.entries(DROPPED).map(([m, signature]) => [m, { signature }])),
      textquote: { signature: 'o o m o' },
      // csquotes' quotation with its citation: `\textcquote[pre][post]{key}[punct]{text}`, the text kept.
      ...Object.fromEntries(['textcquote', 'blockcquote'].map((m) => [m, { signature: 's o o m o m' }])),
      ...Object.fromEntries(['foreigntextcquote', 'foreignblockcquote', 'hyphentextcquote', 'hyphenblockcquote', 'hybridblockcquote'].map((m) => [m, { signature: 's m o o m o m' }])),
      foreignquote: { signature: 'm o o m o' },
      foreignlanguage: { signature: 'o m m' },
      enquote: { signature: 's m' },
      footnote: { signature: 'o m' },
      title: { signature: 'o m' },
    },
    environments: { displayquote: { signature: 'o o' } },
  });
  return parser.parse(source) as unknown as Node;
}

interface Block {
  type: Exclude<SegmentType, 'section' | 'sentence'>;
  start: number;
  end: number;
  query: string;
  headingPath: string[];
}

interface Heading {
  level: number;
  title: string;
  start: number;
  end: number;
}

export async function segmentLatex(source: string, granularity: Granularity = 'paragraph', options: SegmentOptions = {}): Promise<SegmentedDocument> {
  try {
    return await segmentParsed(source, granularity, options);
  } catch (err) {
    // The parser and the walk recurse with the nesting: thousands of nested groups exhaust the stack.
    if (err instanceof RangeError) throw new EngineError('unreadable', 'The LaTeX draft nests groups, commands or environments too deeply to be read (or leaves thousands of them open).');
    throw err;
  }
}

async function segmentParsed(source: string, granularity: Granularity, options: SegmentOptions): Promise<SegmentedDocument> {
  if (source.charCodeAt(0) === 0xfeff) source = source.slice(1);
  const root = await parseLatex(source);
  const children = root.content as Node[];
  const documentEnv = children.find((n) => n.type === 'environment' && n.env === 'document');
  const body = documentEnv ? (documentEnv.content as Node[]) : children;
  const titleMacro = findMacro(children, 'title') ?? (documentEnv && findMacro(body, 'title'));
  const title = titleMacro ? clean(textOf(lastArg(titleMacro))) || undefined : undefined;

  const blocks: Block[] = [];
  const headings: Array<Heading & { path: string[] }> = [];
  const path: Heading[] = [];
  let text = '';
  let start = -1;
  let end = -1;
  let type: Block['type'] = 'paragraph';

  const flush = () => {
    const query = clean(text);
    if (query && start >= 0) blocks.push({ type, start, end, query, headingPath: path.map((h) => h.title) });
    text = '';
    start = -1;
    end = -1;
  };
  const extend = (n: Node) => {
    if (!n.position) return;
    if (start < 0) start = n.position.start.offset;
    end = Math.max(end, n.position.end.offset);
  };

  const walk = (nodes: Node[], blockType: Block['type']) => {
    for (const n of nodes) {
      switch (n.type) {
        case 'parbreak':
          flush();
          type = blockType;
          break;
        case 'string':
          extend(n);
          text += (n.content as string).replace(/~/g, ' ');
          break;
        case 'whitespace':
        case 'comment':
          // A comment ends its line: the words on either side stay apart.
          text += ' ';
          break;
        case 'group':
          extend(n);
          walk(n.content as Node[], blockType);
          break;
        case 'macro': {
          const name = n.content as string;
          if (name in SECTIONS) {
            flush();
            const level = SECTIONS[name];
            const h = { level, title: clean(textOf(lastArg(n))), start: n.position!.start.offset, end: n.position!.end.offset };
            while (path.length && path[path.length - 1].level >= level) path.pop();
            headings.push({ ...h, path: path.map((x) => x.title) });
            path.push(h);
            type = blockType;
          } else if (name === 'item') {
            // The parser hands an item its text as the last argument (its label `[x]` before it).
            flush();
            type = blockType;
            const args = n.args ?? [];
            if (args.length) walk(args[args.length - 1].content, blockType);
            flush();
          } else if (name === '\\' || name === 'newline' || name === ' ') {
            text += ' ';
          } else if (TEXT.includes(name)) {
            extend(n);
            text += ' ' + textOf(lastArg(n)) + ' ';
          } else if (CITES.includes(name) || MULTI_CITES.includes(name) || name in DROPPED) {
            extend(n);
          } else if (name.length === 1 && !/[a-zA-Z]/.test(name)) {
            // An escaped character (`\%`, `\&`, `\_`) is that character; an accent command keeps its letter.
            extend(n);
            if ('%&_#$'.includes(name)) text += name;
            else if (n.args?.length) text += textOf(lastArg(n));
          }
          break;
        }
        case 'environment':
        case 'mathenv': {
          const env = n.env ?? '';
          if (n.type === 'mathenv' || SKIPPED_ENVS.has(env)) break;
          if (FLOATS.has(env)) {
            // A float's caption is a paragraph of its own; the rest of the float is not prose.
            const caption = findMacro(n.content as Node[], 'caption');
            if (caption) {
              flush();
              extend(n);
              text = textOf(lastArg(caption));
              type = 'paragraph';
              flush();
            }
            break;
          }
          if (QUOTES.has(env) || LISTS.has(env)) {
            flush();
            const inner: Block['type'] = QUOTES.has(env) ? 'blockquote' : 'list-item';
            type = inner;
            walk(n.content as Node[], inner);
            flush();
            type = blockType;
            break;
          }
          walk(n.content as Node[], blockType);
          break;
        }
        default:
          // comment, inlinemath, displaymath, verbatim, verb: no prose
          if (n.type === 'inlinemath') extend(n);
          break;
      }
    }
  };
  walk(body, 'paragraph');
  flush();

  const lines = lineStarts(source);
  const lineAt = (offset: number) => lineOf(lines, offset);
  const raw: Array<Omit<Segment, 'id' | 'searchable'>> = [];
  if (granularity === 'section') {
    const bounds = [{ start: 0, title: undefined as string | undefined, path: [] as string[], headingStart: -1 }, ...headings.map((h) => ({ start: h.end, title: h.title, path: h.path, headingStart: h.start }))];
    bounds.forEach((b, i) => {
      const next = bounds[i + 1]?.headingStart ?? Infinity;
      const inside = blocks.filter((x) => x.start >= b.start && x.start < next);
      if (!inside.length) return;
      const from = b.headingStart >= 0 ? b.headingStart : inside[0].start;
      const to = inside[inside.length - 1].end;
      const query = [b.title, inside.map((x) => x.query).join(' ')].filter(Boolean).join('. ');
      raw.push({ type: 'section', startLine: lineAt(from), endLine: lineAt(to - 1), title: b.title ?? firstWords(query), text: source.slice(from, to), query, headingPath: b.path });
    });
  } else {
    for (const b of blocks) {
      const base = { startLine: lineAt(b.start), endLine: lineAt(b.end - 1), headingPath: b.headingPath };
      if (granularity === 'paragraph') {
        raw.push({ ...base, type: b.type, title: firstWords(b.query), text: source.slice(b.start, b.end), query: b.query });
        continue;
      }
      // Sentences of the block's plain text (their lines are the block's).
      for (const s of splitSentences(b.query)) raw.push({ ...base, type: 'sentence', title: firstWords(s.text), text: s.text, query: s.text });
    }
  }
  return { title, segments: assignIds(raw, options.minWords ?? 4) };
}

function lastArg(n: Node): Node[] {
  const args = (n.args ?? []).filter((a) => a.openMark === '{');
  return args.length ? args[args.length - 1].content : [];
}

function findMacro(nodes: Node[], name: string): Node | undefined {
  for (const n of nodes) {
    if (n.type === 'macro' && n.content === name) return n;
    if ((n.type === 'group' || n.type === 'environment') && Array.isArray(n.content)) {
      const found = findMacro(n.content, name);
      if (found) return found;
    }
  }
  return undefined;
}

/** The prose of a run of nodes (an argument's), by the same rules as a paragraph's. */
function textOf(nodes: Node[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.type === 'string') out += (n.content as string).replace(/~/g, ' ');
    else if (n.type === 'whitespace' || n.type === 'parbreak') out += ' ';
    else if (n.type === 'group') out += textOf(n.content as Node[]);
    else if (n.type === 'macro' && TEXT.includes(n.content as string)) out += ' ' + textOf(lastArg(n)) + ' ';
    else if (n.type === 'macro' && n.content === '\\') out += ' ';
  }
  return out;
}

/** Spaces and TeX's typography (`--`, `---`, ``` `` ``` and `''`) as plain text; the commas around dropped math or citations once. */
function clean(s: string): string {
  return s
    .replace(/---/g, '—')
    .replace(/--/g, '–')
    .replace(/``|''/g, '"')
    .replace(/\s+([.,;:!?)])/g, '$1')
    .replace(/([,;])(?:\s*[,;])+/g, '$1')
    .replace(/\(\s+/g, '(')
    .replace(/\s+/g, ' ')
    .trim();
}

function firstWords(text: string, n = 8): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.slice(0, n).join(' ') + (words.length > n ? '…' : '');
}

/** Ids as Markdown segments get them: a hash of type, heading path and text, and an occurrence number. */
function assignIds(raw: Array<Omit<Segment, 'id' | 'searchable'>>, minWords: number): Segment[] {
  const seen = new Map<string, number>();
  return raw.map((s) => {
    const base = sha256(`${s.type}\u0000${s.headingPath.join('\u0001')}\u0000${s.text.replace(/\s+/g, ' ').trim()}`).slice(0, 12);
    const k = (seen.get(base) ?? 0) + 1;
    seen.set(base, k);
    return { id: k === 1 ? base : `${base}-${k}`, ...s, searchable: s.query.split(/\s+/).filter(Boolean).length >= minWords };
  });
}


/**
 * The citation template of a LaTeX draft, from its preamble: biblatex `\autocite[p.~214]{key}`,
 * natbib `\citep[p.~214]{key}`, plain `\cite[p.~214]{key}` otherwise.
 */
export function latexCitationTemplate(source: string): string {
  const style = latexCiteStyle(source);
  return style === 'biblatex' ? '\\autocite[p.~{page}]{{key}}' : style === 'natbib' ? '\\citep[p.~{page}]{{key}}' : '\\cite[p.~{page}]{{key}}';
}
