/**
 * How often the source a paragraph of examples/draft.md is about comes first
 * (and within the top 3), from examples/expected.json (written by the author
 * of the draft, before any system output), and how the strength bands read
 * there: the band of each right source, and how often a strong card is right.
 * Run after `npm run demo`:
 *   npx tsx scripts/example-accuracy.ts [--provider embedded | --provider local --model <folder>] [--json]
 * With a local model, the example library's passages it lacks are embedded first (kept in
 * examples/.similar-sources beside the embedded model's vectors), as `analyze` does.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createEngine, createProvider, type EmbeddingProvider } from '../src/engine';
import type { Band } from '../src/shared/bands';
import { defaultSettings } from '../src/shared/settings';

const argv = process.argv.slice(2);
const opt = (n: string) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : undefined;
};

async function providerOf(): Promise<EmbeddingProvider> {
  const kind = opt('--provider') ?? 'embedded';
  if (kind !== 'embedded' && kind !== 'local') throw new Error(`--provider embedded or local (got ${kind})`);
  const model = opt('--model');
  if (kind === 'local' && !model) throw new Error('--provider local needs --model <folder>');
  // A folder as `analyze --provider local --model <folder>` takes it (the same vectors).
  const { provider } = await createProvider({ provider: kind, localModel: model && path.resolve(model), workerDir: path.resolve(__dirname, '../dist') });
  return provider;
}

async function main() {
  const ws = path.resolve('examples');
  const expected = JSON.parse(readFileSync(path.join(ws, 'expected.json'), 'utf8')) as { paragraphs: Array<{ startsWith: string; sources: string[] }> };
  const draft = readFileSync(path.join(ws, 'draft.md'), 'utf8');
  const provider = await providerOf();
  const engine = createEngine({ workspace: ws, settings: defaultSettings(), provider });
  // A local model's missing vectors are computed first, as `analyze` does.
  const ready = await engine.ready({ vectors: 'wait' });
  if (!ready.ready)
    throw new Error(`the example's index cannot serve ${provider.id} (${ready.why}${ready.health ? `: ${ready.health.state}` : ''}): run npm run demo first`);
  const rows: Array<{ paragraph: string; expected: string[]; got: string[]; first: boolean; top3: boolean; rightBands: Band[] }> = [];
  const shown: Array<{ band: Band; right: boolean }> = [];
  for (const sourceType of ['both'] as const) {
    const r = await engine.analyze(draft, { sourceType, useReranking: false, maxResults: 5 }, { documentPath: path.join(ws, 'draft.md'), cache: false });
    for (const e of expected.paragraphs) {
      const seg = r.segments.find((s) => s.text.startsWith(e.startsWith));
      if (!seg) throw new Error(`no segment starts with "${e.startsWith}"`);
      const got = seg.recommendations.map((x) => path.basename(x.path));
      const rightBands = seg.recommendations.filter((x) => e.sources.includes(path.basename(x.path))).map((x) => x.band);
      for (const x of seg.recommendations) shown.push({ band: x.band, right: e.sources.includes(path.basename(x.path)) });
      rows.push({
        paragraph: e.startsWith,
        expected: e.sources,
        got: got.slice(0, 3),
        first: e.sources.includes(got[0]),
        top3: got.slice(0, 3).some((g) => e.sources.includes(g)),
        rightBands,
      });
    }
  }
  const first = rows.filter((r) => r.first).length;
  const top3 = rows.filter((r) => r.top3).length;
  const bands = Object.fromEntries(
    (['strong', 'related', 'weak'] as Band[]).map((b) => {
      const cards = shown.filter((c) => c.band === b);
      return [b, { cards: cards.length, right: cards.filter((c) => c.right).length }];
    }),
  );
  const best = (r: (typeof rows)[number]) =>
    r.rightBands.includes('strong') ? 'strong' : r.rightBands.includes('related') ? 'related' : r.rightBands.length ? 'weak' : 'not shown';
  const bestBands = Object.fromEntries(['strong', 'related', 'weak', 'not shown'].map((b) => [b, rows.filter((r) => best(r) === b).length]));
  await (provider as { close?: () => Promise<void> }).close?.();
  if (argv.includes('--json')) console.log(JSON.stringify({ paragraphs: rows.length, first, top3, bands, rightSourceBand: bestBands, rows }, null, 2));
  else {
    for (const r of rows)
      console.log(
        `${r.first ? 'ok ' : r.top3 ? '~  ' : 'no '} ${r.paragraph.slice(0, 50).padEnd(50)} expected ${r.expected.join('+')}  got ${r.got.join(', ')}  (right: ${best(r)})`,
      );
    console.log(`\nright source first: ${first} of ${rows.length}; within the top 3: ${top3} of ${rows.length}`);
    console.log(
      `best band of the right source: ${Object.entries(bestBands)
        .map(([b, n]) => `${b} ${n}`)
        .join(', ')}`,
    );
    console.log(
      `cards (top 5): ${Object.entries(bands)
        .map(([b, v]) => `${b} ${v.right} right of ${v.cards}`)
        .join('; ')}`,
    );
  }
}
void main();
