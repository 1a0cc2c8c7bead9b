/**
 * The pure parts of citekey completion: whether the cursor is on a citekey
 * being typed inside a Pandoc citation (`[@whi|`, `[see @a; @|`), and the
 * paragraph being written around it, as a query (citations taken out).
 */

import { isCrossReference } from './crossref';
import { scanLatexCites } from './latexCite';

const KEY_CHAR = /[\p{L}\p{N}_:.#$%&+?<>~/-]/u;

export interface CitekeyAtCursor {
  /** What has been typed of the key (after `@`). */
  prefix: string;
  /** Column after `@`, and one past the last key character (the cursor, or further when the cursor is inside a key). */
  start: number;
  end: number;
}

/**
 * The key being typed at `col`: after an `@` that opens a key (at the start of
 * the brackets, after `;`, or after a space inside them), inside `[` … with no
 * `]` between. Undefined elsewhere (an e-mail address, a link's text).
 */
export function citekeyAt(line: string, col: number): CitekeyAtCursor | undefined {
  const before = line.slice(0, col);
  const open = before.lastIndexOf('[');
  if (open < 0 || before.indexOf(']', open) >= 0) return undefined;
  const m = /(?:^|[\s;\[])-?@([\p{L}\p{N}_:.#$%&+?<>~/-]*)$/u.exec(before.slice(open));
  // A Quarto cross-reference being typed (`[@fig-`) is no citekey.
  if (!m || isCrossReference(m[1])) return undefined;
  let end = col;
  while (end < line.length && KEY_CHAR.test(line[end]) && line[end] !== ']') end++;
  return { prefix: m[1], start: col - m[1].length, end };
}

/**
 * The paragraph around `line` (the lines between blank lines), as plain text
 * for a search: Pandoc citations, bare `@keys`, heading marks and emphasis
 * taken out, so the query is what the author wrote.
 */
export function paragraphAround(lines: readonly string[], line: number): string {
  if (line < 0 || line >= lines.length) return '';
  let a = line;
  let b = line;
  while (a > 0 && lines[a - 1].trim() !== '') a--;
  while (b < lines.length - 1 && lines[b + 1].trim() !== '') b++;
  return lines
    .slice(a, b + 1)
    .join(' ')
    .replace(/\[[^\[\]]*@[^\[\]]*\]?/g, ' ')
    .replace(/(?:^|\s)-?@[\p{L}\p{N}_][^\s\]]*/gu, ' ')
    .replace(/^\s*#{1,6}\s+/, '')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The paragraph around `line` of a LaTeX draft, as plain text for a search:
 * comments and cite commands taken out, other commands' names dropped (the
 * text of `\emph{…}` kept), braces and ties made spaces.
 */
export function latexParagraphAround(lines: readonly string[], line: number): string {
  if (line < 0 || line >= lines.length) return '';
  let a = line;
  let b = line;
  while (a > 0 && lines[a - 1].trim() !== '') a--;
  while (b < lines.length - 1 && lines[b + 1].trim() !== '') b++;
  const text = lines
    .slice(a, b + 1)
    .map((l) => l.replace(/(^|[^\\])((?:\\\\)*)%.*$/, '$1$2'))
    .join('\n');
  let plain = '';
  let at = 0;
  for (const c of scanLatexCites(text)) {
    plain += text.slice(at, c.start) + ' ';
    at = c.end;
  }
  plain += text.slice(at);
  return plain
    .replace(/\\(?:begin|end)\s*\{[^}]*\}/g, ' ')
    .replace(/\\(?:label|ref|eqref|cref|autoref|url|includegraphics)\s*(?:\[[^\]]*\])?\s*\{[^}]*\}/g, ' ')
    .replace(/\\[A-Za-z]+\*?/g, ' ')
    .replace(/\\(.)/g, '$1')
    .replace(/[{}~]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
