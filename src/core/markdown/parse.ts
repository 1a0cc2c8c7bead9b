/**
 * The Markdown parser, loaded on first use: remark and its plugins are ESM-only
 * and not needed until a document is analysed.
 */
import type { Root } from 'mdast';

type Processor = { parse(doc: string): Root };
let processor: Promise<Processor> | undefined;

export function parseMarkdown(source: string): Promise<Root> {
  processor ??= (async () => {
    const [{ unified }, remarkParse, remarkGfm, remarkFrontmatter, remarkMath] = await Promise.all([
      import('unified'),
      import('remark-parse'),
      import('remark-gfm'),
      import('remark-frontmatter'),
      import('remark-math'),
    ]);
    return unified()
      .use(remarkParse.default)
      .use(remarkFrontmatter.default, ['yaml', 'toml'])
      .use(remarkGfm.default)
      .use(remarkMath.default) as unknown as Processor;
  })();
  return processor.then((p) => p.parse(source));
}
