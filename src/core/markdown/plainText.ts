/**
 * Plain text from Markdown inline content, for searching: link text kept, URLs,
 * images, HTML, footnote references and Pandoc citations dropped.
 */
import type { PhrasingContent } from 'mdast';
import { isCrossReference } from '../../shared/crossref';

export function plainInline(nodes: readonly PhrasingContent[]): string {
  // Iterative (emphasis can nest thousands deep in a hostile draft); each nested node's text is
  // normalised and trimmed on its own before it joins its parent's, as the recursive form did.
  const stack: Array<{ nodes: readonly PhrasingContent[]; i: number; out: string }> = [{ nodes, i: 0, out: '' }];
  for (;;) {
    const top = stack[stack.length - 1];
    if (top.i >= top.nodes.length) {
      const text = top.out.replace(/\s+/g, ' ').trim();
      stack.pop();
      if (!stack.length) return text;
      stack[stack.length - 1].out += text;
      continue;
    }
    const n = top.nodes[top.i++];
    switch (n.type) {
      case 'text':
      case 'inlineCode':
        top.out += n.value;
        break;
      case 'image':
      case 'imageReference':
        top.out += n.alt ?? '';
        break;
      case 'footnoteReference':
      case 'html':
        break;
      case 'break':
        top.out += ' ';
        break;
      default:
        if ('children' in n) stack.push({ nodes: n.children as PhrasingContent[], i: 0, out: '' });
        break;
    }
  }
}

const KEY = String.raw`-?@[\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?`;
/** `@` and a key's first character: a bracket holding this holds a citation. */
const KEY_START = /-?@[\p{L}\p{N}_]/u;
const BARE_KEY = new RegExp(String.raw`(^|[\s(;])${KEY}(?=$|[\s.,;:!?)])`, 'gu');

/**
 * Pandoc citations `[@key, p. 3; @other]`, bare `@key`, and `[^1]` markers. Linear on any text:
 * brackets are matched without backtracking (the former `\[[^\[\]]*?KEY[^\[\]]*\]` tried every `@`
 * of an unclosed bracket to the end of the text), and spaces before a bracket are tried from the
 * first of their run only (`(?<!\s)`: from each space of a long run, `\s*` ran to its end).
 */
export function stripCitationMarkup(text: string): string {
  // No bracket, `@` or parenthesis: no citation, footnote mark or empty parentheses to remove (the
  // passes below would only normalise the spaces): a draft of 300,000 short paragraphs asks this for each.
  if (!/[[@(]/.test(text)) return text.replace(/\s+/g, ' ').trim();
  return removeFootnoteMarks(text.replace(/(?<!\s)\s*\[([^\[\]]*)\]/g, (m: string, inner: string) => (KEY_START.test(inner) ? '' : m)))
    .replace(BARE_KEY, '$1')
    .replace(/\(\s*\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `\s*\[\^[^\]]+\]` removed, in one pass (the expression scanned to the end of the text from every `[^` of a text with no `]`). */
function removeFootnoteMarks(text: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf('[^'); at >= 0;) {
    const close = text.indexOf(']', at + 2);
    if (close < 0) break; // no `]` after: no mark from here on
    if (close === at + 2) {
      at = text.indexOf('[^', at + 1);
      continue;
    }
    let ws = at;
    while (ws > from && /\s/.test(text[ws - 1])) ws--;
    out += text.slice(from, ws);
    from = close + 1;
    at = text.indexOf('[^', from);
  }
  return out + text.slice(from);
}

/** Citekeys cited in a text (Pandoc `@key`), for "already cited" flags. */
export function citedKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s\[;(])-?@([\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?)/gu)) if (!isCrossReference(m[1])) keys.add(m[1]);
  return keys;
}
