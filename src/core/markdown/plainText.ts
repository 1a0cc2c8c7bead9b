/**
 * Plain text from Markdown inline content, for searching: link text kept, URLs,
 * images, HTML, footnote references and Pandoc citations dropped.
 */
import type { PhrasingContent } from 'mdast';

export function plainInline(nodes: readonly PhrasingContent[]): string {
  let out = '';
  for (const n of nodes) {
    switch (n.type) {
      case 'text':
      case 'inlineCode':
        out += n.value;
        break;
      case 'image':
      case 'imageReference':
        out += n.alt ?? '';
        break;
      case 'footnoteReference':
      case 'html':
        break;
      case 'break':
        out += ' ';
        break;
      default:
        if ('children' in n) out += plainInline(n.children as PhrasingContent[]);
        break;
    }
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** Pandoc citations `[@key, p. 3; @other]`, bare `@key`, and `[^1]` markers. */
export function stripCitationMarkup(text: string): string {
  const KEY = String.raw`-?@[\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?`;
  return text
    .replace(new RegExp(String.raw`\s*\[[^\[\]]*?${KEY}[^\[\]]*\]`, 'gu'), '')
    .replace(/\s*\[\^[^\]]+\]/g, '')
    .replace(new RegExp(String.raw`(^|[\s(;])${KEY}(?=$|[\s.,;:!?)])`, 'gu'), '$1')
    .replace(/\(\s*\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Citekeys cited in a text (Pandoc `@key`), for "already cited" flags. */
export function citedKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s\[;(])-?@([\p{L}\p{N}_](?:[\p{L}\p{N}_:.#$%&+?<>~/-]*[\p{L}\p{N}_])?)/gu)) keys.add(m[1]);
  return keys;
}
