/**
 * A stretch of LaTeX read into the parser's nodes without the parser (issue 35), in one pass.
 *
 * Strict, it reads only what it reads as the parser does — words, spaces, comments, groups,
 * `$…$`, `\(…\)`, `\[…\]`, `\verb|…|`, the commands of macros.ts with their arguments by the same
 * signatures (PLAIN_SIGNATURES), commands and environments the parser gives no argument (asked of
 * it: `Known`), lists, quotations, floats, and environments of no prose (not read further) — and
 * gives up (undefined) on anything else: another command or environment, `&`, `^`, `_`, a bracket
 * in an optional argument, a `{` never closed; the segmenter then asks the parser. Nearly every
 * paragraph of a thesis is read so, at a tenth of the parser's cost.
 *
 * Lenient, it reads anything, as near the parser as it can: what the parser cannot read at once
 * (a stretch longer than MAX_UNIT with nowhere to cut it) is read so, with a warning. Unknown
 * commands take no argument, environments are those scan.ts paired, math ends at a blank line.
 * Positions are offsets in the whole draft.
 */
import {
  type Arg,
  CITES,
  DROPPED,
  FLOATS,
  LISTS,
  MULTI_CITES,
  MATH_ENVS,
  type Node,
  PLAIN_ENVS,
  PLAIN_NO_ARGS,
  PLAIN_SIGNATURES,
  PLAIN_SYMBOLS,
  QUOTES,
  SKIPPED_ENVS,
} from './macros';
import { afterBreak, blankAfter, commandName, lineEnd, maskAt, Pair, type LatexScan } from './scan';

/** Groups nested deeper than this: strict gives up, lenient reads their content flat. */
const MAX_DEPTH = 200;

/** Commands whose arguments the walk never reads (it takes their place only). */
const DROPS_ARGS: ReadonlySet<string> = new Set([...CITES, ...MULTI_CITES, ...Object.keys(DROPPED)]);

class Fail extends Error {}
const FAIL = new Fail();

const at = (start: number, end: number) => ({ start: { offset: start }, end: { offset: end } });

/** A list's content as the parser gives it: each `\item` with the nodes up to the next as its last argument. */
function items(content: Node[]): Node[] {
  const out: Node[] = [];
  let item: Node | undefined;
  for (const n of content) {
    if (n.type === 'macro' && n.content === 'item') {
      item = n;
      item.args!.push({ type: 'argument', content: [], openMark: '', closeMark: '' });
      out.push(item);
    } else if (item) item.args![item.args!.length - 1].content.push(n);
    else out.push(n);
  }
  return out;
}

/** What the parser makes of a command or an environment the tables of macros.ts do not name (asked of the parser itself). */
export interface Known {
  /** The parser reads `\name` with no argument. */
  command(name: string): boolean;
  /** The parser reads environment `name` with no argument, its content as it reads any text. */
  environment(name: string): boolean;
}

const NONE: Known = { command: () => false, environment: () => false };

/** The nodes of `from`–`to`, or undefined where the strict reader gives up. */
export function readPlain(s: string, scan: LatexScan, from: number, to: number, lenient: boolean, known: Known = NONE): Node[] | undefined {
  const r = new Reader(s, scan, lenient, known);
  try {
    return r.seq(from, to, 0, 0);
  } catch (e) {
    if (e === FAIL) return undefined;
    throw e;
  }
}

class Reader {
  i = 0;
  /** The depth of the list content being read (strict): `\item` is read there only, not in a group or an argument in it. */
  private listDepth = -1;
  /**
   * Lenient: the closing mark of the optional argument the last command left open (0 if none), and
   * the arguments found open, by offset, end and mark: each is looked for once (issue 35's second
   * round: `\cite[` repeated without its `]` cost time exponential in their number).
   */
  private leftOpen = 0;
  private readonly open = new Set<string>();
  constructor(
    private readonly s: string,
    private readonly scan: LatexScan,
    private readonly lenient: boolean,
    private readonly known: Known,
  ) {}

  private fail(): never {
    throw FAIL;
  }

  /** The nodes from `from` to `to`; in an optional argument, up to its closing `]` or `)` (`close`, its offset left at `this.i`). */
  seq(from: number, to: number, close: number, depth: number): Node[] {
    const bracket = close !== 0;
    const s = this.s;
    const out: Node[] = [];
    let i = from;
    let text = -1; // start of the string being read
    const endText = () => {
      if (text >= 0) out.push({ type: 'string', content: s.slice(text, i), position: at(text, i) });
      text = -1;
    };
    while (i < to) {
      const c = s.charCodeAt(i);
      switch (c) {
        case 32:
        case 9:
        case 10:
        case 13: {
          endText();
          let j = i;
          while (j < to && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j++;
          if (j < to && (s.charCodeAt(j) === 10 || s.charCodeAt(j) === 13)) {
            const b = blankAfter(s, j);
            if (b >= 0) {
              if (bracket && !this.lenient) this.fail();
              out.push({ type: 'parbreak' });
              i = Math.min(b, to);
              continue;
            }
            j = afterBreak(s, j);
            while (j < to && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j++;
          }
          // The parser's comment takes the spaces (and line break) before it: no space of its own then.
          if (s.charCodeAt(j) !== 37 || j >= to) out.push({ type: 'whitespace' });
          i = j;
          continue;
        }
        case 37: {
          // % to the line's end, and the line break with the next line's indent unless a blank line follows.
          endText();
          out.push({ type: 'comment' });
          i = Math.min(lineEnd(s, i), to);
          if (i < to && blankAfter(s, i) < 0) {
            i = Math.min(afterBreak(s, i), to);
            while (i < to && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
          }
          continue;
        }
        case 123: {
          // {
          endText();
          if (this.scan.kind[i] !== Pair.Group || this.scan.close[i] > to) {
            if (!this.lenient) this.fail();
            text = i++;
            continue;
          }
          const end = this.scan.close[i];
          if (depth >= MAX_DEPTH) {
            if (!this.lenient) this.fail();
            out.push(...this.seq(i + 1, end - 1, 0, depth));
          } else out.push({ type: 'group', content: this.seq(i + 1, end - 1, 0, depth + 1), position: at(i, end) });
          i = end;
          continue;
        }
        case 93: // ]
        case 41: // )
          if (c === close) {
            endText();
            this.i = i;
            return out;
          }
          break;
        case 91: // [ or ( in an optional argument: the parser would not nest it
        case 40:
          if (bracket && !this.lenient) this.fail();
          break;
        case 36: // $
          endText();
          i = this.math(i, to, out);
          continue;
        case 92: {
          // \
          endText();
          i = this.command(i, to, out, depth);
          const open = this.leftOpen;
          this.leftOpen = 0;
          // An argument in this one, closed by the same mark, was never closed: read from there on,
          // this one would not be either (the reading is the same), so it ends here.
          if (bracket && open === close) {
            this.i = -1;
            return out;
          }
          continue;
        }
        case 125: // } not closing a group: text, as the parser reads it
        case 38:
        case 35:
        case 94:
        case 95:
        case 0:
          if (!this.lenient) this.fail();
          break;
      }
      if (text < 0) text = i;
      i++;
    }
    endText();
    if (bracket) {
      if (!this.lenient) this.fail();
      this.i = -1;
    }
    return out;
  }

  /** `$…$` (and, lenient, `$$…$$`); the offset after it. */
  private math(i: number, to: number, out: Node[]): number {
    const s = this.s;
    const display = s.charCodeAt(i + 1) === 36;
    if (display && !this.lenient) this.fail();
    let depth = 0;
    for (let j = i + (display ? 2 : 1); j < to; j++) {
      const c = s.charCodeAt(j);
      if (c === 92) {
        if (!this.lenient && (s.startsWith('\\begin', j) || s.startsWith('\\end', j) || s.startsWith('\\verb', j))) this.fail();
        j++;
      } else if (c === 123) depth++;
      else if (c === 125) depth--;
      else if (c === 37 && !this.lenient) this.fail();
      else if ((c === 10 || c === 13) && blankAfter(s, j) >= 0) break;
      else if (c === 36) {
        if (depth !== 0 && !this.lenient) this.fail();
        if (display && s.charCodeAt(j + 1) !== 36) continue;
        const end = j + (display ? 2 : 1);
        out.push({ type: display ? 'displaymath' : 'inlinemath', content: [], position: at(i, end) });
        return end;
      }
    }
    // Not closed in its paragraph: a `$` of text.
    if (!this.lenient) this.fail();
    out.push({ type: 'string', content: '$', position: at(i, i + 1) });
    return i + 1;
  }

  /** The command at `i` with its arguments; the offset after them. */
  private command(i: number, to: number, out: Node[], depth: number): number {
    const s = this.s;
    const name = commandName(s, i);
    if (!name) {
      const sym = s[i + 1] ?? '';
      if (sym === '\\') {
        if (s[i + 2] === '*' || s[i + 2] === '[') {
          if (!this.lenient) this.fail();
        }
      } else if (sym === '(' || sym === '[') return this.delimitedMath(i, to, out, sym === '(' ? '\\)' : '\\]');
      else if (!sym || !PLAIN_SYMBOLS.includes(sym)) {
        if (!this.lenient) this.fail();
      }
      out.push({ type: 'macro', content: sym, position: at(i, i + 2) });
      return Math.min(i + 2, to);
    }
    let j = i + 1 + name.length;
    const kind = this.scan.kind[i];
    if (kind) return this.lenient ? this.paired(i, kind, out, depth) : this.strictPaired(i, kind, out, depth);
    if (name === 'item' && !this.lenient) {
      // In a list only (strictPaired hands it its text), with its label `[b)]`.
      if (depth !== this.listDepth) this.fail();
      const node: Node = { type: 'macro', content: name, args: [], position: at(i, j) };
      const k = this.space(j, to);
      if (s[k] === '<') this.fail();
      if (s[k] === '[') {
        const content = this.seq(k + 1, to, 93, depth + 1);
        node.args!.push({ type: 'argument', content, openMark: '[', closeMark: ']' });
        j = this.i + 1;
      }
      out.push(node);
      return j;
    }
    const signature = PLAIN_SIGNATURES.get(name);
    const node: Node = { type: 'macro', content: name, position: at(i, j) };
    out.push(node);
    if (signature === undefined) {
      if (!PLAIN_NO_ARGS.has(name) && !this.lenient && !this.known.command(name)) this.fail();
      return j;
    }
    const args: Arg[] = [];
    for (const spec of signature.split(' ')) {
      const k = this.space(j, to);
      const c = s[k];
      if (spec === 's') {
        if (c === '*') {
          args.push({ type: 'argument', content: [{ type: 'string', content: '*' }], openMark: '', closeMark: '' });
          j = k + 1;
        }
      } else if (spec === 'o' || spec === 'd()') {
        // An optional argument `[…]`, or `(…)` (a multicite's notes).
        const [open, shut] = spec === 'o' ? ['[', 93] : ['(', 41];
        if (c === open) {
          const key = `${k}:${to}`;
          if (this.open.has(key)) {
            this.leftOpen = shut;
            break;
          }
          const content = this.seq(k + 1, to, shut, depth + 1);
          if (this.i < 0) {
            // Lenient: a `[` never closed is text.
            this.open.add(key);
            this.leftOpen = shut;
            break;
          }
          args.push({ type: 'argument', content, openMark: open, closeMark: String.fromCharCode(shut) });
          j = this.i + 1;
        }
      } else if (spec === 'm' || spec === 'd{}') {
        if (c === '{' && this.scan.kind[k] === Pair.Group && this.scan.close[k] <= to) {
          const end = this.scan.close[k];
          args.push({ type: 'argument', content: this.seq(k + 1, end - 1, 0, depth + 1), openMark: '{', closeMark: '}' });
          j = end;
        } else if (spec === 'm' && !this.lenient) this.fail();
      } else if (c === spec[1] && !this.lenient) this.fail(); // `d<>`: a beamer overlay
    }
    // The arguments of a citation or of a command dropped are no prose: only where they end matters.
    node.args = DROPS_ARGS.has(name) ? [] : args;
    return j;
  }

  /** Spaces and one line break before an argument (not a blank line, not a comment). */
  private space(j: number, to: number): number {
    const s = this.s;
    let k = j;
    while (k < to && (s.charCodeAt(k) === 32 || s.charCodeAt(k) === 9)) k++;
    if (k < to && (s.charCodeAt(k) === 10 || s.charCodeAt(k) === 13)) {
      if (blankAfter(s, k) >= 0) return j;
      k = afterBreak(s, k);
      while (k < to && (s.charCodeAt(k) === 32 || s.charCodeAt(k) === 9)) k++;
    }
    return k;
  }

  /**
   * What scan.ts paired at `i`, read strictly: `\verb|…|`, a verbatim environment, an environment of
   * no prose (its content not read, unless a `\caption` or `\title` is in it), a list (each `\item`
   * given the text up to the next as its last argument, as the parser does), a quotation, a float, and
   * the environments of PLAIN_ENVS; the parser reads any other.
   */
  private strictPaired(i: number, kind: Pair, out: Node[], depth: number): number {
    const s = this.s;
    const end = this.scan.close[i];
    const env = this.scan.envs.get(i) ?? '';
    if (kind === Pair.Verb) {
      out.push({ type: 'verb', position: at(i, end) });
      return end;
    }
    if (kind === Pair.OpenVerb) this.fail();
    if (kind === Pair.Verbatim) {
      out.push({ type: 'verbatim', env, position: at(i, end) });
      return end;
    }
    const from = i + '\\begin{'.length + env.length + 1;
    const to = end - '\\end{}'.length - env.length;
    if (SKIPPED_ENVS.has(env) || MATH_ENVS.has(env)) {
      if (s.slice(from, to).includes('\\caption') || s.slice(from, to).includes('\\title')) this.fail();
      out.push({ type: MATH_ENVS.has(env) ? 'mathenv' : 'environment', env, content: [], position: at(i, end) });
      return end;
    }
    const list = LISTS.has(env);
    if (!list && !QUOTES.has(env) && !FLOATS.has(env) && !PLAIN_ENVS.has(env) && !this.known.environment(env)) this.fail();
    // An optional argument the parser would take (a list's `[label=…]`, a displayquote's `[\cite{a}]`);
    // a float's is no matter, and other environments take none (a `[` there is text).
    const k = this.space(from, to);
    if ((list || env === 'displayquote') && s[k] === '[') this.fail();
    if (depth >= MAX_DEPTH) this.fail();
    const outer = this.listDepth;
    this.listDepth = list ? depth + 1 : -1;
    let content = this.seq(from, to, 0, depth + 1);
    this.listDepth = outer;
    if (list) content = items(content);
    out.push({ type: 'environment', env, content, position: at(i, end) });
    return end;
  }

  /** What scan.ts paired at `i` (lenient): an environment, a verbatim one, `\verb`. */
  private paired(i: number, kind: Pair, out: Node[], depth: number): number {
    const end = this.scan.close[i];
    const env = this.scan.envs.get(i) ?? '';
    if (kind === Pair.Verb || kind === Pair.OpenVerb) out.push({ type: 'verb', position: at(i, end) });
    else if (kind === Pair.Verbatim) out.push({ type: 'verbatim', env, position: at(i, end) });
    else if (MATH_ENVS.has(env)) out.push({ type: 'mathenv', env, position: at(i, end) });
    else {
      const from = i + '\\begin{'.length + env.length + 1;
      const content = depth >= MAX_DEPTH ? [] : this.seq(from, end - '\\end{}'.length - env.length, 0, depth + 1);
      out.push({ type: 'environment', env, content, position: at(i, end) });
    }
    return end;
  }

  /** `\(…\)`, `\[…\]`: math to its end in the paragraph (strict: with nothing in it the parser could read otherwise), else the command alone. */
  private delimitedMath(i: number, to: number, out: Node[], close: string): number {
    const s = this.s;
    let depth = 0;
    // Never closed in its paragraph (scan.ts): not looked for again at every one of them.
    if (maskAt(this.scan, i + 1) !== undefined) to = i + 2;
    for (let j = i + 2; j < to; j++) {
      const c = s.charCodeAt(j);
      if (depth === 0 && s.startsWith(close, j)) {
        out.push({ type: close === '\\)' ? 'inlinemath' : 'displaymath', content: [], position: at(i, j + 2) });
        return j + 2;
      }
      if (c === 92) {
        if (
          !this.lenient &&
          (s.startsWith('\\begin', j) || s.startsWith('\\end', j) || s.startsWith('\\verb', j) || s.startsWith('\\(', j) || s.startsWith('\\[', j))
        )
          this.fail();
        j++;
      } else if (c === 123) depth++;
      else if (c === 125) depth--;
      else if ((c === 37 || c === 36) && !this.lenient) this.fail();
      else if ((c === 10 || c === 13) && blankAfter(s, j) >= 0) break;
    }
    if (!this.lenient) this.fail();
    out.push({ type: 'macro', content: s[i + 1], position: at(i, i + 2) });
    return i + 2;
  }
}
