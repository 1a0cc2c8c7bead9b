/**
 * The Markdown parser, loaded on first use: remark and its plugins are ESM-only
 * and not needed until a document is analysed.
 *
 * GitHub syntax comes as separate extensions — tables, footnotes, strikethrough,
 * task lists — rather than remark-gfm, to leave out autolink literals: they
 * only turn a bare URL into a link whose text is that same URL (nothing changes
 * for searching), yet tripled the parse time of a long draft (37 → 17 ms for
 * 100 paragraphs), the largest part of a re-analysis served from the cache.
 */
import type { Root } from 'mdast';

type Processor = { parse(doc: string): Root };
let processor: Promise<Processor> | undefined;

export function parseMarkdown(source: string): Promise<Root> {
  return loadMarkdownParser().then((p) => p.parse(source));
}

/** Loads the parser (modules only). Started early, the import overlaps the index load. */
export function loadMarkdownParser(): Promise<Processor> {
  processor ??= (async () => {
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
    function gfmWithoutAutolinks(this: { data(): Record<string, unknown[] | undefined> }) {
      const data = this.data();
      (data.micromarkExtensions ??= []).push(table.gfmTable(), footnote.gfmFootnote(), strike.gfmStrikethrough(), task.gfmTaskListItem());
      (data.fromMarkdownExtensions ??= []).push(mdTable.gfmTableFromMarkdown(), mdFootnote.gfmFootnoteFromMarkdown(), mdStrike.gfmStrikethroughFromMarkdown(), mdTask.gfmTaskListItemFromMarkdown());
    }
    return unified()
      .use(remarkParse.default)
      .use(remarkFrontmatter.default, ['yaml', 'toml'])
      .use(gfmWithoutAutolinks as never)
      .use(remarkMath.default) as unknown as Processor;
  })();
  return processor;
}
