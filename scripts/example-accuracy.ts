/**
 * How often the source a paragraph of examples/draft.md is about comes first
 * (and within the top 3), from examples/expected.json (written by the author
 * of the draft, before any system output). Run after `npm run demo`:
 *   npx tsx scripts/example-accuracy.ts [--provider embedded] [--json]
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { analyzeDocument } from '../src/core/analysis/analyze';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { LibraryIndex } from '../src/core/index/libraryIndex';

async function main() {
  const ws = path.resolve('examples');
  const expected = JSON.parse(readFileSync(path.join(ws, 'expected.json'), 'utf8')) as { paragraphs: Array<{ startsWith: string; sources: string[] }> };
  const draft = readFileSync(path.join(ws, 'draft.md'), 'utf8');
  const index = await LibraryIndex.open(ws, new EmbeddedProvider());
  const rows: Array<{ paragraph: string; expected: string[]; got: string[]; first: boolean; top3: boolean }> = [];
  for (const sourceType of ['both'] as const) {
    const r = await analyzeDocument(draft, { sourceType, useReranking: false, maxResults: 5 }, { index, workspace: ws, cache: false });
    for (const e of expected.paragraphs) {
      const seg = r.segments.find((s) => s.text.startsWith(e.startsWith));
      if (!seg) throw new Error(`no segment starts with "${e.startsWith}"`);
      const got = seg.recommendations.map((x) => path.basename(x.path));
      rows.push({ paragraph: e.startsWith, expected: e.sources, got: got.slice(0, 3), first: e.sources.includes(got[0]), top3: got.slice(0, 3).some((g) => e.sources.includes(g)) });
    }
  }
  const first = rows.filter((r) => r.first).length;
  const top3 = rows.filter((r) => r.top3).length;
  if (process.argv.includes('--json')) console.log(JSON.stringify({ paragraphs: rows.length, first, top3, rows }, null, 2));
  else {
    for (const r of rows) console.log(`${r.first ? 'ok ' : r.top3 ? '~  ' : 'no '} ${r.paragraph.slice(0, 50).padEnd(50)} expected ${r.expected.join('+')}  got ${r.got.join(', ')}`);
    console.log(`\nright source first: ${first} of ${rows.length}; within the top 3: ${top3} of ${rows.length}`);
  }
}
void main();
