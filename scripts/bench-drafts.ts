/**
 * Segmentation time of drafts of pathological shapes (issue 28): `npx tsx scripts/bench-drafts.ts
 * [--size 1000000] [--json] [shape…]`. Each shape is one unit repeated to the size; prints, per
 * shape and granularity, the size, the wall and CPU time (CPU: what a shared machine's load does
 * not inflate), the segments and the warnings. The first row, ordinary prose (examples/draft.md
 * repeated), is the floor to read the others against.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { errorCode, segmentDraft } from '../src/engine';
import type { Granularity } from '../src/shared/settings';

const argv = process.argv.slice(2);
const opt = (n: string) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : undefined;
};
const SIZE = Number(opt('--size') ?? 1_000_000);
const JSON_OUT = argv.includes('--json');
const only = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--size');

const draft = readFileSync(path.join(__dirname, '..', 'examples', 'draft.md'), 'utf8');
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

/** Shape → its draft. The issue's four first, then their neighbours. */
export const SHAPES: Record<string, () => string> = {
  'prose (examples/draft.md repeated)': () => fill(draft + '\n\n'),
  'setext headings, no blank line (Title\\n=====\\n)': () => fill('Title\n=====\n'),
  '*a repeated (one paragraph)': () => fill('*a'),
  "'- ' repeated on one line, then text": () => '- '.repeat(Math.floor(SIZE / 2) - 1) + 'x',
  'one line of citations ([@a; @b, p. 3] )': () => fill('[@a; @b, p. 3] '),
  'setext headings with blank lines': () => fill('Title\n=====\n\n'),
  'setext h2 (Title\\n-----\\n)': () => fill('Title\n-----\n'),
  'emphasis pairs (*a* )': () => fill('*a* '),
  'underscores (_a)': () => fill('_a'),
  'brackets ([x] )': () => fill('[x] '),
  'citations, one a line': () => fill('[@a; @b, p. 3]\n'),
  'links ([a](b) )': () => fill('[a](b) '),
  'strikethrough (~~a)': () => fill('~~a'),
  'backticks (`a)': () => fill('`a'),
  'angle brackets (<a)': () => fill('<a'),
  'footnote marks ([^a)': () => fill('[^a'),
  'periods (one run)': () => fill('.'),
  'tiny paragraphs (a\\n\\n)': () => fill('a\n\n'),
  'definitions and references': () => fill('[a]: /u\n\n[a] and [b]\n\n'),
  'quoted setext (> T\\n> ==\\n)': () => fill('> T\n> ==\n'),
  'quoted lines of citations (one quote)': () => fill('> Words [@a; @b, p. 3]\n'),
  'one 1 MB paragraph of prose': () => fill(draft.replace(/\s+/g, ' ') + ' '),
  'ATX headings (# h\\n)': () => fill('# h\n'),
  'list items (- a\\n)': () => fill('- a\n'),
  'quote lines (> a\\n)': () => fill('> a\n'),
  'thematic breaks (---\\n)': () => fill('---\n'),
  'indented code (    code\\n)': () => fill('    code\n'),
  'table rows (| a | b |\\n)': () => '| a | b |\n| - | - |\n' + fill('| a | b |\n'),
  'footnote definitions ([^n]: note\\n)': () => fill('[^n]: note\n'),
  'HTML lines (<div>a</div>\\n)': () => fill('<div>a</div>\n'),
  'link definitions ([a]: /u\\n)': () => fill('[a]: /u\n'),
  'short prose paragraphs (Some words here.\\n\\n)': () => fill('Some words here.\n\n'),
};

interface Row {
  shape: string;
  granularity: Granularity;
  bytes: number;
  wallMs: number;
  cpuMs: number;
  segments: number | string;
  warnings: number;
}

async function main() {
  await segmentDraft(draft, 'markdown', 'sentence'); // loads and warms the parser
  const rows: Row[] = [];
  for (const [shape, make] of Object.entries(SHAPES)) {
    if (only.length && !only.some((o) => shape.includes(o))) continue;
    const src = make();
    for (const granularity of ['paragraph', 'sentence'] as const) {
      (globalThis as { gc?: () => void }).gc?.();
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      let segments: number | string;
      let warnings = 0;
      try {
        const d = await segmentDraft(src, 'markdown', granularity);
        segments = d.segments.length;
        warnings = d.warnings?.length ?? 0;
      } catch (err) {
        segments = `refused (${errorCode(err)}): ${(err as Error).message.slice(0, 60)}…`;
      }
      const c = process.cpuUsage(c0);
      const row = {
        shape,
        granularity,
        bytes: src.length,
        wallMs: Math.round(performance.now() - t0),
        cpuMs: Math.round((c.user + c.system) / 1000),
        segments,
        warnings,
      };
      rows.push(row);
      if (!JSON_OUT)
        console.log(
          `${shape.padEnd(48)} ${granularity.padEnd(9)} ${(row.bytes / 1e6).toFixed(2)} MB ${String(row.wallMs).padStart(7)} ms wall ${String(row.cpuMs).padStart(7)} ms CPU  ${row.segments} segments${warnings ? `, ${warnings} warning(s)` : ''}`,
        );
    }
  }
  if (JSON_OUT) console.log(JSON.stringify(rows, null, 2));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
