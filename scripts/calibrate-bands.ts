/**
 * Fits the shown similarity (src/core/analysis/similarity.ts) and the band
 * cut-offs (src/core/analysis/bands.ts) on queries that look like the
 * product's, and tests them on a held-out part:
 *  - SciFact train (BEIR): every claim, and paragraphs — the claims about one
 *    document joined (one right source), two such groups joined (two);
 *  - the bundled example: each paragraph of examples/draft.md with its right
 *    sources (examples/expected.json), searched as the product searches it.
 * Split (fixed seed): by SciFact document (a claim and the paragraphs built
 * from it fall on the same side) and by example paragraph; 30% / 50% held out.
 * Compares, on the held-out queries, the ranking of the cards in retrieval
 * order against sorting them by each candidate similarity model (nDCG@10), and
 * reports AUC, band precision and a reliability diagram (docs/reliability.svg,
 * converted to docs/reliability.png with rsvg-convert from Debian's librsvg2-bin).
 * Prints the calibration and cut-offs to paste into similarity.ts and bands.ts.
 * Run: npx tsx scripts/calibrate-bands.ts [--scifact DIR] [--workspace DIR (keeps the SciFact index)]
 *
 * Per model (issue 27): `--model <folder>` (a local model in the transformers.js layout, e.g.
 * .tmp/models/Xenova/bge-small-en-v1.5) fits only the band cut-offs for that model's similarity
 * (the shipped curve, SciFact claims and paragraphs, the same split; the example is left out:
 * its index is the embedded model's) and prints AUC and band precision on the held-out part, with
 * the row to paste into BANDS_BY_MODEL (src/shared/bands.ts). --workspace reuses an index.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { contextualText } from '../src/core/analysis/analyze';
import { BANDS, bandOf, type Band, type BandCuts } from '../src/shared/bands';
import { LocalProvider } from '../src/core/embedding/local/localProvider';
import type { EmbeddingProvider } from '../src/core/embedding/provider';
import { updateIndex } from '../src/core/index/write/indexer';
import { CALIBRATIONS, FEATURE_NAMES, evidenceOf, probability, similarityFeatures, type Calibration } from '../src/core/analysis/similarity';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { BEIR_SCHEME, docInput, loadBeir, runBeirEval } from '../src/core/eval/beir';
import { ndcgAt } from '../src/core/eval/metrics';
import { LibraryIndex, type SearchHit } from '../src/core/index/search/libraryIndex';
import { segmentMarkdown } from '../src/core/markdown/segment';
import { sha256 } from '../src/core/util/hash';

type Kind = 'claim' | 'paragraph' | 'example';
interface Card {
  key: string;
  x: number[];
  y: 0 | 1;
}
interface Query {
  kind: Kind;
  test: boolean;
  relevant: Set<string>;
  /** One card per source, in retrieval order (the product's cards before sorting). */
  cards: Card[];
}

/** Passages retrieved per query and cards kept per query, as analyze.ts does. */
const CANDIDATE_PASSAGES = 60;
const CARDS = 20;
/** Cards looked at for band precision (the panel shows 5 by default, up to 20). */
const SHOWN = 10;
const SEED = 'bands-2026';
/** Band targets on the fit part: a strong card is a right source at least this often… */
const STRONG_PRECISION = 0.7;
/** …and a related card at least this often (weak: below). */
const RELATED_PRECISION = 0.25;

/** The curve of SIMILARITY_VERSION 4 (content features, fitted on SciFact claims and paragraphs), for comparison. */
const PREVIOUS: Calibration = {
  intercept: -8.6743,
  weights: { standout: 0.2302, queryCoverage: 5.8614, passageCoverage: 7.9887, logQueryTerms: 0.9469, logSourceRank: 0, scoreShare: 0 },
};

const inTest = (id: string, share: number) => parseInt(sha256(`${SEED}:${id}`).slice(0, 8), 16) / 2 ** 32 < share;

function cardsOf(hits: SearchHit[], overlap: ReturnType<LibraryIndex['overlap']>, keyOf: (h: SearchHit) => string, relevant: Set<string>): Card[] {
  const ev = evidenceOf(hits, overlap);
  const seen = new Set<number>();
  const out: Card[] = [];
  hits.forEach((h, i) => {
    if (seen.has(h.source) || out.length >= CARDS) return;
    seen.add(h.source);
    const key = keyOf(h);
    out.push({ key, x: similarityFeatures(ev[i]), y: relevant.has(key) ? 1 : 0 });
  });
  return out;
}

async function scifactQueries(dir: string, workspace: string, provider: EmbeddingProvider = new EmbeddedProvider()): Promise<Query[]> {
  if (provider.id === 'embedded') await runBeirEval({ dir, split: 'train', provider, workspace });
  else await updateIndex((await loadBeir(dir, 'train')).corpus.map(docInput), { workspace, provider, commitEvery: 5000 });
  const index = await LibraryIndex.open(workspace, provider);
  const { queries, qrels } = await loadBeir(dir, 'train');
  const out: Query[] = [];
  const keyOf = (h: SearchHit) => h.sourceRecord.path.slice(BEIR_SCHEME.length);
  // Searched in batches (searchMany: the same lists as search, one embedding call per batch).
  const todo: Array<{ kind: Kind; text: string; relevant: Set<string>; test: boolean }> = [];
  const add = async (kind: Kind, text: string, relevant: Set<string>, test: boolean) => {
    todo.push({ kind, text, relevant, test });
  };
  const flush = async () => {
    for (let i = 0; i < todo.length; i += 64) {
      const batch = todo.slice(i, i + 64);
      const lists = await index.searchMany(
        batch.map((q) => ({ text: q.text })),
        { k: CANDIDATE_PASSAGES },
      );
      batch.forEach((q, j) =>
        out.push({ kind: q.kind, test: q.test, relevant: q.relevant, cards: cardsOf(lists[j], index.overlap(q.text), keyOf, q.relevant) }),
      );
    }
  };
  const docTest = (d: string) => inTest(`scifact:${d}`, 0.3);
  const claimsOf = new Map<string, string[]>();
  for (const [qid, judged] of qrels) {
    const text = queries.get(qid);
    if (!text) continue;
    const relevant = new Set([...judged].filter(([, v]) => v > 0).map(([d]) => d));
    if (!relevant.size) continue;
    // A claim goes where its (first) document goes, so no text is on both sides.
    const docs = [...relevant].sort();
    const test = docTest(docs[0]);
    await add('claim', text, relevant, test);
    for (const d of docs) if (docTest(d) === test) claimsOf.set(d, [...(claimsOf.get(d) ?? []), text]);
  }
  for (const side of [false, true]) {
    const groups = [...claimsOf].filter(([d, c]) => c.length >= 2 && docTest(d) === side);
    for (const [d, claims] of groups) await add('paragraph', claims.join(' '), new Set([d]), side);
    for (let i = 0; i + 1 < groups.length; i += 2) {
      await add('paragraph', [...groups[i][1], ...groups[i + 1][1]].join(' '), new Set([groups[i][0], groups[i + 1][0]]), side);
    }
  }
  await flush();
  return out;
}

async function exampleQueries(): Promise<Query[]> {
  const ws = resolve('examples');
  if (!existsSync(join(ws, '.similar-sources'))) {
    console.error('indexing the bundled example (npm run demo)…');
    const r = spawnSync(process.execPath, ['scripts/demo.mjs'], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error('npm run demo failed: the example could not be indexed');
  }
  const index = await LibraryIndex.open(ws, new EmbeddedProvider());
  const expected = JSON.parse(readFileSync(join(ws, 'expected.json'), 'utf8')).paragraphs as Array<{ startsWith: string; sources: string[] }>;
  const { title, segments } = await segmentMarkdown(readFileSync(join(ws, 'draft.md'), 'utf8'), 'paragraph');
  const out: Query[] = [];
  for (const e of expected) {
    const s = segments.find((x) => x.text.startsWith(e.startsWith));
    if (!s) throw new Error(`examples/draft.md has no paragraph starting "${e.startsWith}"`);
    const [hits] = await index.searchMany([{ text: s.query, vectorText: contextualText(title, s) }], { k: CANDIDATE_PASSAGES });
    const relevant = new Set(e.sources);
    out.push({
      kind: 'example',
      test: inTest(`example:${e.startsWith}`, 0.5),
      relevant,
      cards: cardsOf(hits, index.overlap(s.query), (h) => basename(h.sourceRecord.path), relevant),
    });
  }
  return out;
}

async function main() {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const dir = arg('--scifact') ?? '../shared/data/scifact';
  const keep = arg('--workspace');
  const ws = keep ?? mkdtempSync(join(tmpdir(), 'ss-bands-'));
  const modelDir = arg('--model');
  if (modelDir) {
    try {
      await fitModelBands(dir, ws, modelDir);
    } finally {
      if (!keep) rmSync(ws, { recursive: true, force: true });
    }
    return;
  }
  try {
    const all = [...(await scifactQueries(dir, ws)), ...(await exampleQueries())];
    const fit = all.filter((q) => !q.test);
    const test = all.filter((q) => q.test);
    const count = (qs: Query[], k: Kind) => qs.filter((q) => q.kind === k).length;
    console.log(
      `queries: fit ${fit.length} (claims ${count(fit, 'claim')}, paragraphs ${count(fit, 'paragraph')}, example ${count(fit, 'example')}); ` +
        `held out ${test.length} (claims ${count(test, 'claim')}, paragraphs ${count(test, 'paragraph')}, example ${count(test, 'example')})`,
    );

    // The example's few paragraphs count, all together, as a quarter of the SciFact paragraphs.
    const rows = fit.flatMap((q) => q.cards.map((c) => ({ c, kind: q.kind })));
    const exampleWeight = (0.25 * rows.filter((r) => r.kind === 'paragraph').length) / Math.max(1, rows.filter((r) => r.kind === 'example').length);
    const weights = rows.map((r) => (r.kind === 'example' ? exampleWeight : 1));
    const fitModel = (cols: number[]): Calibration => {
      const w = fitLogistic(
        rows.map((r) => cols.map((j) => r.c.x[j])),
        rows.map((r) => r.c.y),
        weights,
      );
      const out = Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as Calibration['weights'];
      cols.forEach((j, i) => (out[FEATURE_NAMES[j]] = round(w[i + 1])));
      return { intercept: round(w[0]), weights: out };
    };
    const models: Record<string, Calibration> = {
      'previous (v4, content only)': PREVIOUS,
      'shipped (similarity.ts)': CALIBRATIONS['embedded-hashgram-v2'],
      'content (refit)': fitModel([0, 1, 2, 3]),
      'content + rank': fitModel([0, 1, 2, 3, 4, 5]),
    };

    // Ranking: retrieval order against sorting by each model, on held-out queries.
    const groups: Array<[string, (q: Query) => boolean]> = [
      ['claims', (q) => q.kind === 'claim'],
      ['paragraphs', (q) => q.kind === 'paragraph'],
      ['example', (q) => q.kind === 'example'],
    ];
    const ndcg = (qs: Query[], order: (q: Query) => Card[]) =>
      mean(
        qs.map((q) =>
          ndcgAt(
            order(q).map((c) => c.key),
            new Map([...q.relevant].map((d) => [d, 1])),
            10,
          ),
        ),
      );
    const sortedBy = (m: Calibration) => (q: Query) =>
      [...q.cards]
        .map((c, i) => ({ c, p: probability(m, c.x), i }))
        .sort((a, b) => b.p - a.p || a.i - b.i)
        .map((e) => e.c);
    console.log('\nnDCG@10 on held-out queries (cards of the top 60 passages, at most 20 sources):');
    const orders: Array<[string, (q: Query) => Card[]]> = [
      ['retrieval order', (q) => q.cards],
      ...Object.entries(models).map(([n, m]): [string, (q: Query) => Card[]] => [`sorted by ${n}`, sortedBy(m)]),
    ];
    for (const [name, order] of orders)
      console.log(`  ${name.padEnd(40)} ${groups.map(([g, f]) => `${g} ${ndcg(test.filter(f), order).toFixed(4)}`).join('  ')}`);

    console.log('\nAUC on held-out cards (a right source against the others):');
    for (const [name, m] of Object.entries(models)) {
      console.log(
        `  ${name.padEnd(40)} ${groups.map(([g, f]) => `${g} ${auc(test.filter(f).flatMap((q) => q.cards.map((c) => ({ p: probability(m, c.x), y: c.y })))).toFixed(3)}`).join('  ')}`,
      );
    }

    // The other way to agree with the order: keep retrieval order and make each model's similarity
    // non-increasing along it (isotonic, pool-adjacent-violators), then compare how well it separates.
    console.log('  (retrieval order, similarity made non-increasing along it):');
    for (const [name, m] of Object.entries(models)) {
      const iso = (q: Query) => nonIncreasing(q.cards.map((c) => probability(m, c.x))).map((p, i) => ({ p, y: q.cards[i].y }));
      console.log(`  ${name.padEnd(40)} ${groups.map(([g, f]) => `${g} ${auc(test.filter(f).flatMap(iso)).toFixed(3)}`).join('  ')}`);
    }

    const chosen = models['content + rank'];
    console.log('\ncalibration to paste into similarity.ts:');
    console.log(JSON.stringify({ intercept: chosen.intercept, weights: chosen.weights }));

    // Band cut-offs on the fit part's shown cards, as the product shows them (sorted by similarity).
    const shown = (qs: Query[], kinds: Kind[]) =>
      qs
        .filter((q) => kinds.includes(q.kind))
        .flatMap((q) =>
          sortedBy(chosen)(q)
            .slice(0, SHOWN)
            .map((c) => ({ p: round3(probability(chosen, c.x)), y: c.y, kind: q.kind })),
        );
    const fitShown = shown(fit, ['paragraph', 'example']);
    const precisionIn = (cards: Array<{ p: number; y: number }>, lo: number, hi = Infinity) => {
      const inside = cards.filter((c) => c.p >= lo && c.p < hi);
      return { n: inside.length, precision: inside.length ? inside.filter((c) => c.y).length / inside.length : NaN };
    };
    const grid = Array.from({ length: 99 }, (_, i) => (i + 1) / 100);
    const strong =
      grid.find((t) => {
        const b = precisionIn(fitShown, t);
        return b.n >= 20 && b.precision >= STRONG_PRECISION;
      }) ?? 0.9;
    const related = grid.find((t) => t < strong && precisionIn(fitShown, t, strong).precision >= RELATED_PRECISION) ?? strong / 2;
    console.log(`band cut-offs fitted (paragraph queries of the fit part, top ${SHOWN} cards): strong ≥ ${strong}, related ≥ ${related}`);
    if (BANDS.strong !== strong || BANDS.related !== related)
      console.log(`  (bands.ts has strong ≥ ${BANDS.strong}, related ≥ ${BANDS.related}: paste the values above)`);

    console.log(`\nband precision on held-out queries (top ${SHOWN} cards, sorted by similarity; bands of bands.ts):`);
    for (const [label, kinds] of [
      ['claims', ['claim']],
      ['paragraphs', ['paragraph']],
      ['example', ['example']],
      ['paragraphs + example', ['paragraph', 'example']],
    ] as Array<[string, Kind[]]>) {
      const cards = shown(test, kinds);
      const by = (b: Band) => cards.filter((c) => bandOf(c.p) === b);
      const line = (['strong', 'related', 'weak'] as Band[]).map((b) => {
        const cs = by(b);
        return `${b} ${cs.length ? pct(cs.filter((c) => c.y).length / cs.length) : '—'} of ${cs.length}`;
      });
      const right = cards.filter((c) => c.y);
      console.log(
        `  ${label.padEnd(22)} ${line.join('   ')}   (right sources: ${(['strong', 'related', 'weak'] as Band[]).map((b) => `${pct(right.filter((c) => bandOf(c.p) === b).length / Math.max(1, right.length))} ${b}`).join(', ')})`,
      );
    }

    const example = all.filter((q) => q.kind === 'example').flatMap((q) => q.cards.slice(0, SHOWN).map((c) => ({ p: probability(chosen, c.x), y: c.y })));
    const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];
    console.log(
      `\nexample (all 16 paragraphs, half of them fitted on): right sources median ${pct(med(example.filter((c) => c.y).map((c) => c.p)))}, others median ${pct(med(example.filter((c) => !c.y).map((c) => c.p)))}`,
    );

    const bins = (cards: Array<{ p: number; y: number }>) =>
      Array.from({ length: 10 }, (_, b) => {
        const inside = cards.filter((c) => Math.min(9, Math.floor(c.p * 10)) === b);
        return { n: inside.length, predicted: mean(inside.map((c) => c.p)), observed: mean(inside.map((c) => c.y)) };
      });
    const series = [
      { name: 'held-out paragraphs (SciFact + example)', color: '#1f77b4', bins: bins(shown(test, ['paragraph', 'example'])) },
      { name: 'held-out SciFact claims', color: '#d62728', bins: bins(shown(test, ['claim'])) },
    ];
    console.log('\nreliability (held-out, top 10 cards): bin → n, mean similarity, share right');
    for (const s of series)
      console.log(
        `  ${s.name}: ${s.bins.map((b, i) => `${i * 10}–${i * 10 + 10}%: ${b.n}${b.n ? ` ${pct(b.predicted)}→${pct(b.observed)}` : ''}`).join('; ')}`,
      );
    writeDiagram(series, { strong: BANDS.strong, related: BANDS.related });
  } finally {
    if (!keep) rmSync(ws, { recursive: true, force: true });
  }
}

/** The cut-off rule of the shipped bands, on the fit part's paragraphs (top SHOWN cards, sorted by similarity). */
function fitCuts(cards: Array<{ p: number; y: number }>): BandCuts {
  const precisionIn = (lo: number, hi = Infinity) => {
    const inside = cards.filter((c) => c.p >= lo && c.p < hi);
    return { n: inside.length, precision: inside.length ? inside.filter((c) => c.y).length / inside.length : NaN };
  };
  const grid = Array.from({ length: 99 }, (_, i) => (i + 1) / 100);
  const strong =
    grid.find((t) => {
      const b = precisionIn(t);
      return b.n >= 20 && b.precision >= STRONG_PRECISION;
    }) ?? 0.9;
  const related = grid.find((t) => t < strong && precisionIn(t, strong).precision >= RELATED_PRECISION) ?? strong / 2;
  return { strong, related };
}

async function fitModelBands(dir: string, ws: string, modelDir: string) {
  // Named by its folder, as the CLI names it (`--provider local --model <folder>`): an `eval` workspace's vectors are reused.
  const provider = new LocalProvider({ model: basename(modelDir), modelDir, workerFile: resolve('dist/local-embed-worker.js') });
  try {
    const all = await scifactQueries(dir, ws, provider);
    const curve = CALIBRATIONS['embedded-hashgram-v2'];
    const sorted = (q: Query) => [...q.cards].map((c, i) => ({ c, p: probability(curve, c.x), i })).sort((a, b) => b.p - a.p || a.i - b.i);
    const shown = (qs: Query[], kinds: Kind[]) =>
      qs
        .filter((q) => kinds.includes(q.kind))
        .flatMap((q) =>
          sorted(q)
            .slice(0, SHOWN)
            .map((e) => ({ p: round3(e.p), y: e.c.y })),
        );
    const fit = all.filter((q) => !q.test);
    const test = all.filter((q) => q.test);
    const cuts = fitCuts(shown(fit, ['paragraph']));
    const name = basename(modelDir);
    console.log(
      `${name}: ${fit.length} fit queries, ${test.length} held out; cut-offs fitted on fit paragraphs: strong ≥ ${cuts.strong}, related ≥ ${cuts.related}`,
    );
    const report: Record<string, unknown> = { model: name, cuts };
    for (const [label, kinds] of [
      ['claims', ['claim']],
      ['paragraphs', ['paragraph']],
    ] as Array<[string, Kind[]]>) {
      const cards = shown(test, kinds);
      const a = auc(test.filter((q) => kinds.includes(q.kind)).flatMap((q) => q.cards.map((c) => ({ p: probability(curve, c.x), y: c.y }))));
      const per = (cs: BandCuts) =>
        Object.fromEntries(
          (['strong', 'related', 'weak'] as Band[]).map((b) => {
            const inside = cards.filter((c) => bandOf(c.p, cs) === b);
            return [b, { n: inside.length, precision: inside.length ? round3(inside.filter((c) => c.y).length / inside.length) : null }];
          }),
        );
      const mine = per(cuts);
      const today = per(BANDS);
      report[label] = { auc: round3(a), bands: mine, todaysBands: today };
      const fmtB = (x: ReturnType<typeof per>) =>
        (['strong', 'related', 'weak'] as Band[]).map((b) => `${b} ${x[b].precision === null ? '—' : pct(x[b].precision as number)} of ${x[b].n}`).join('   ');
      console.log(`  held-out ${label.padEnd(10)} AUC ${a.toFixed(3)}   fitted bands: ${fmtB(mine)}   (today's bands: ${fmtB(today)})`);
    }
    console.log(JSON.stringify(report));
  } finally {
    await provider.close();
  }
}

function writeDiagram(
  series: Array<{ name: string; color: string; bins: Array<{ n: number; predicted: number; observed: number }> }>,
  cut: { strong: number; related: number },
) {
  const W = 640;
  const H = 520;
  const L = 70;
  const T = 40;
  const S = 400;
  const X = (p: number) => L + p * S;
  const Y = (p: number) => T + (1 - p) * S;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${L}" y="24" font-size="15" font-weight="bold">Reliability of the shown similarity (held-out queries)</text>`,
    // Band areas behind the plot.
    `<rect x="${X(cut.strong)}" y="${T}" width="${X(1) - X(cut.strong)}" height="${S}" fill="#2ca02c" fill-opacity="0.08"/>`,
    `<rect x="${X(cut.related)}" y="${T}" width="${X(cut.strong) - X(cut.related)}" height="${S}" fill="#ff7f0e" fill-opacity="0.08"/>`,
    `<text x="${X(cut.strong) + 4}" y="${T + 14}" fill="#2ca02c">strong</text>`,
    `<text x="${X(cut.related) + 4}" y="${T + 14}" fill="#ff7f0e">related</text>`,
    `<text x="${X(0) + 4}" y="${T + 14}" fill="#777">weak</text>`,
  ];
  for (let i = 0; i <= 10; i++) {
    const v = i / 10;
    parts.push(
      `<line x1="${X(v)}" y1="${Y(0)}" x2="${X(v)}" y2="${Y(1)}" stroke="#eee"/>`,
      `<line x1="${X(0)}" y1="${Y(v)}" x2="${X(1)}" y2="${Y(v)}" stroke="#eee"/>`,
    );
    parts.push(
      `<text x="${X(v)}" y="${Y(0) + 16}" text-anchor="middle">${i * 10}%</text>`,
      `<text x="${X(0) - 6}" y="${Y(v) + 4}" text-anchor="end">${i * 10}%</text>`,
    );
  }
  parts.push(
    `<rect x="${X(0)}" y="${Y(1)}" width="${S}" height="${S}" fill="none" stroke="#333"/>`,
    `<line x1="${X(0)}" y1="${Y(0)}" x2="${X(1)}" y2="${Y(1)}" stroke="#999" stroke-dasharray="5,4"/>`,
    `<text x="${X(0.5)}" y="${Y(0) + 34}" text-anchor="middle">shown similarity (mean in each 10% bin)</text>`,
    `<text transform="translate(${L - 46},${Y(0.5)}) rotate(-90)" text-anchor="middle">share of cards that are a right source</text>`,
  );
  series.forEach((s, k) => {
    const pts = s.bins.filter((b) => b.n > 0);
    parts.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts.map((b) => `${X(b.predicted).toFixed(1)},${Y(b.observed).toFixed(1)}`).join(' ')}"/>`,
    );
    // Marker area grows with the cards in the bin.
    for (const b of pts)
      parts.push(
        `<circle cx="${X(b.predicted).toFixed(1)}" cy="${Y(b.observed).toFixed(1)}" r="${(2.5 + Math.sqrt(b.n) / 3).toFixed(1)}" fill="${s.color}" fill-opacity="0.7"/>`,
      );
    const ly = Y(0) + 56 + k * 18;
    parts.push(
      `<line x1="${L}" y1="${ly - 4}" x2="${L + 24}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"/>`,
      `<text x="${L + 30}" y="${ly}">${esc(s.name)}, ${pts.reduce((a, b) => a + b.n, 0)} cards</text>`,
    );
  });
  parts.push(`<text x="${X(1) + 8}" y="${Y(1) + 12}" fill="#999">perfect</text>`, '</svg>');
  mkdirSync('docs', { recursive: true });
  writeFileSync('docs/reliability.svg', parts.join('\n') + '\n');
  const r = spawnSync('rsvg-convert', ['-o', 'docs/reliability.png', 'docs/reliability.svg']);
  if (r.error || r.status !== 0) console.error('docs/reliability.svg written; no PNG: install rsvg-convert (apt-get install librsvg2-bin) and run again');
  else console.log('\nwrote docs/reliability.svg and docs/reliability.png');
}

/** The closest non-increasing sequence (least squares): pool adjacent violators. */
function nonIncreasing(v: number[]): number[] {
  const blocks: Array<{ sum: number; n: number }> = [];
  for (const x of v) {
    blocks.push({ sum: x, n: 1 });
    while (blocks.length > 1 && blocks[blocks.length - 2].sum / blocks[blocks.length - 2].n < blocks[blocks.length - 1].sum / blocks[blocks.length - 1].n) {
      const b = blocks.pop()!;
      blocks[blocks.length - 1].sum += b.sum;
      blocks[blocks.length - 1].n += b.n;
    }
  }
  return blocks.flatMap((b) => new Array<number>(b.n).fill(b.sum / b.n));
}

const mean = (a: number[]) => (a.length ? a.reduce((s, v) => s + v, 0) / a.length : NaN);
const round = (v: number) => Math.round(v * 10_000) / 10_000;
const round3 = (v: number) => Math.round(v * 1000) / 1000;
const pct = (p: number) => (Number.isFinite(p) ? `${(p * 100).toFixed(1)}%` : '—');
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Area under the ROC curve: the chance a right card scores above a wrong one (ties count half). */
function auc(cards: Array<{ p: number; y: number }>): number {
  const sorted = [...cards].sort((a, b) => a.p - b.p);
  let rankSum = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j].p === sorted[i].p) j++;
    const avg = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (sorted[k].y) rankSum += avg;
    i = j;
  }
  const pos = cards.filter((c) => c.y).length;
  const neg = cards.length - pos;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/** Weighted logistic regression by Newton's method (a touch of ridge for stability); [intercept, ...coefficients]. */
function fitLogistic(X: number[][], y: number[], weight: number[]): number[] {
  const d = X[0].length + 1;
  let w = new Array<number>(d).fill(0);
  for (let it = 0; it < 40; it++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    X.forEach((x, i) => {
      const f = [1, ...x];
      const p = sigmoid(f.reduce((s, v, j) => s + v * w[j], 0));
      for (let a = 0; a < d; a++) {
        g[a] += weight[i] * (y[i] - p) * f[a];
        for (let b = 0; b < d; b++) H[a][b] -= weight[i] * p * (1 - p) * f[a] * f[b];
      }
    });
    for (let a = 1; a < d; a++) {
      g[a] -= 1e-3 * w[a];
      H[a][a] -= 1e-3;
    }
    const step = solve(H, g);
    w = w.map((v, a) => v - step[a]);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}

function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((r, i) => [...r, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((r, i) => r[n] / r[i]);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
