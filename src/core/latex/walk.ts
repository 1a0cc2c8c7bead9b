/**
 * The walk over a LaTeX draft's nodes that gathers its blocks and headings (issue 25), fed the
 * nodes of one piece of the draft after another (issue 35: units.ts): what it has gathered of a
 * paragraph stays open across pieces until a paragraph break (`parbreak`), and an environment too
 * long to parse at once is entered and left around the pieces it holds (`enter`, `leave`).
 */
import type { SegmentType } from '../markdown/segment';
import { CITES, DROPPED, FLOATS, LISTS, MULTI_CITES, type Node, QUOTES, SECTIONS, SKIPPED_ENVS, TEXT } from './macros';

export type BlockType = Exclude<SegmentType, 'section' | 'sentence'>;

export interface Block {
  type: BlockType;
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

export class Walker {
  readonly blocks: Block[] = [];
  readonly headings: Array<Heading & { path: string[] }> = [];
  private readonly path: Heading[] = [];
  private text = '';
  private start = -1;
  private end = -1;
  private type: BlockType = 'paragraph';
  /** The block type of each environment entered (the draft's own first). */
  private readonly types: BlockType[] = ['paragraph'];
  /** Offset of the current piece in the draft (node positions are the piece's). */
  private base = 0;

  /** Walks the nodes of a piece whose offsets start at `base`. */
  walk(nodes: Node[], base: number): void {
    this.base = base;
    this.nodes(nodes, this.types[this.types.length - 1]);
  }

  /** A paragraph break between two pieces. */
  parbreak(): void {
    this.flush();
    this.type = this.types[this.types.length - 1];
  }

  /** Whitespace between two pieces of a paragraph. */
  space(): void {
    this.text += ' ';
  }

  /** An environment whose content comes in the pieces that follow (its first line's, `content`, walked here). */
  enter(env: string, content: Node[], base: number): void {
    const inner = this.types[this.types.length - 1];
    if (QUOTES.has(env) || LISTS.has(env)) {
      this.flush();
      this.type = QUOTES.has(env) ? 'blockquote' : 'list-item';
      this.types.push(this.type);
    } else this.types.push(inner);
    // The last item's text goes on in the pieces that follow: its block stays open (comments after it are no text).
    let k = content.length - 1;
    while (k >= 0 && (content[k].type === 'comment' || content[k].type === 'whitespace')) k--;
    const last = content[k];
    if (!LISTS.has(env) || last?.type !== 'macro' || last.content !== 'item') return this.walk(content, base);
    this.walk(content.slice(0, k), base);
    this.flush();
    this.type = this.types[this.types.length - 1];
    const args = last.args ?? [];
    if (args.length) this.walk(args[args.length - 1].content, base);
    this.walk(content.slice(k + 1), base);
  }

  leave(env: string): void {
    this.types.pop();
    if (QUOTES.has(env) || LISTS.has(env)) {
      this.flush();
      this.type = this.types[this.types.length - 1];
    }
  }

  finish(): void {
    this.flush();
  }

  private flush(): void {
    const query = clean(this.text);
    if (query && this.start >= 0) this.blocks.push({ type: this.type, start: this.start, end: this.end, query, headingPath: this.path.map((h) => h.title) });
    this.text = '';
    this.start = -1;
    this.end = -1;
  }

  private extend(n: Node): void {
    if (!n.position) return;
    if (this.start < 0) this.start = this.base + n.position.start.offset;
    this.end = Math.max(this.end, this.base + n.position.end.offset);
  }

  private nodes(nodes: Node[], blockType: BlockType): void {
    for (const n of nodes) {
      switch (n.type) {
        case 'parbreak':
          this.flush();
          this.type = blockType;
          break;
        case 'string':
          this.extend(n);
          this.text += (n.content as string).replace(/~/g, ' ');
          break;
        case 'whitespace':
        case 'comment':
          // A comment ends its line: the words on either side stay apart.
          this.text += ' ';
          break;
        case 'group':
          this.extend(n);
          this.nodes(n.content as Node[], blockType);
          break;
        case 'macro':
          this.macro(n, blockType);
          break;
        case 'environment':
        case 'mathenv':
          this.environment(n, blockType);
          break;
        default:
          // comment, inlinemath, displaymath, verbatim, verb: no prose
          if (n.type === 'inlinemath') this.extend(n);
          break;
      }
    }
  }

  private macro(n: Node, blockType: BlockType): void {
    const name = n.content as string;
    if (name in SECTIONS) {
      this.flush();
      const level = SECTIONS[name];
      const h = { level, title: clean(textOf(lastArg(n))), start: this.base + n.position!.start.offset, end: this.base + n.position!.end.offset };
      while (this.path.length && this.path[this.path.length - 1].level >= level) this.path.pop();
      this.headings.push({ ...h, path: this.path.map((x) => x.title) });
      this.path.push(h);
      this.type = blockType;
    } else if (name === 'item') {
      // The parser hands an item its text as the last argument (its label `[x]` before it).
      this.flush();
      this.type = blockType;
      const args = n.args ?? [];
      if (args.length) this.nodes(args[args.length - 1].content, blockType);
      this.flush();
    } else if (name === '\\' || name === 'newline' || name === ' ') {
      this.text += ' ';
    } else if (TEXT.includes(name)) {
      this.extend(n);
      this.text += ' ' + textOf(lastArg(n)) + ' ';
    } else if (CITES.includes(name) || MULTI_CITES.includes(name) || name in DROPPED) {
      this.extend(n);
    } else if (name.length === 1 && !/[a-zA-Z]/.test(name)) {
      // An escaped character (`\%`, `\&`, `\_`) is that character; an accent command keeps its letter.
      this.extend(n);
      if ('%&_#$'.includes(name)) this.text += name;
      else if (n.args?.length) this.text += textOf(lastArg(n));
    }
  }

  private environment(n: Node, blockType: BlockType): void {
    const env = n.env ?? '';
    if (n.type === 'mathenv' || SKIPPED_ENVS.has(env)) return;
    if (FLOATS.has(env)) {
      // A float's caption is a paragraph of its own; the rest of the float is not prose.
      const caption = findMacro(n.content as Node[], 'caption');
      if (caption) {
        this.flush();
        this.extend(n);
        this.text = textOf(lastArg(caption));
        this.type = 'paragraph';
        this.flush();
      }
      return;
    }
    if (QUOTES.has(env) || LISTS.has(env)) {
      this.flush();
      const inner: BlockType = QUOTES.has(env) ? 'blockquote' : 'list-item';
      this.type = inner;
      this.nodes(n.content as Node[], inner);
      this.flush();
      this.type = blockType;
      return;
    }
    this.nodes(n.content as Node[], blockType);
  }
}

export function lastArg(n: Node): Node[] {
  const args = (n.args ?? []).filter((a) => a.openMark === '{');
  return args.length ? args[args.length - 1].content : [];
}

export function findMacro(nodes: Node[], name: string): Node | undefined {
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
export function textOf(nodes: Node[]): string {
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
export function clean(s: string): string {
  return (
    s
      // Spaces made one first: the patterns below never run along a long stretch of them (a page of comments).
      .replace(/\s+/g, ' ')
      .replace(/---/g, '—')
      .replace(/--/g, '–')
      .replace(/``|''/g, '"')
      .replace(/\s+([.,;:!?)])/g, '$1')
      .replace(/([,;])(?:\s*[,;])+/g, '$1')
      .replace(/\(\s+/g, '(')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
