/**
 * Does the highlight boost (HybridParams.highlightBoost, core/zotero/highlights.ts) make rankings
 * worse when the highlights have nothing to do with the paragraph, and better when they are on
 * the passages it is about? Measured on SciFact train (development data) through the product's own
 * index and rankSources, with the offline embedded provider:
 * A highlighted passage's highlight is a span of about 25 words of it, at random (the boost is
 * scaled by how much of the highlighted words the query uses).
 *  - none: no highlight (the ranking as it is without Zotero);
 *  - unrelated N %: N % of the library's passages highlighted at random, none of them in a source
 *    judged relevant to any query measured (the worst case: every boosted passage is a wrong one);
 *  - relevant: for half of the queries (chosen at random), one passage of each relevant source
 *    highlighted, on top of 10 % unrelated ones: either a random span of it ("random span"), or
 *    the sentence of it that shares most (idf-weighted) with the claim ("claim's sentence": the
 *    user highlighted the finding the paragraph is about).
 * For each boost, nDCG@10 and MRR@10 over the same queries (a boost of 0 is the baseline), and,
 * for the relevant conditions, over the queries whose sources were highlighted alone.
 *
 *   npx tsx scripts/measure-highlights.ts [--scifact DIR] [--ws .tmp/highlights-ws] [--queries 300]
 *     [--boosts 0,0.05,0.1,0.2,0.3] [--whole-passage] [--fusion product|neural] [--json]
 *
 * --whole-passage: the boost in full for every highlighted passage (no scaling by the highlighted words).
 *
 * The index is built once in --ws (kept: a second run indexes nothing).
 */
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { BEIR_SCHEME, docInput, loadBeir } from '../src/core/eval/beir';
import { mrrAt, ndcgAt } from '../src/core/eval/metrics';
import { LibraryIndex } from '../src/core/index/search/libraryIndex';
import { indexDir } from '../src/core/index/store/manifest';
import { updateIndex } from '../src/core/index/write/indexer';
import { fusionFor, NEURAL_FUSION, rankSources, type HybridParams } from '../src/core/retrieval/hybrid';
import { queryTerms } from '../src/core/retrieval/representation';
import { rng } from './bench/corpus';

const argv = process.argv.slice(2);
const opt = (n: string, d: string) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const SCIFACT = path.resolve(opt('scifact', path.join(__dirname, '../../shared/data/scifact')));
const WS = path.resolve(opt('ws', '.tmp/highlights-ws'));
const QUERIES = Number(opt('queries', '300'));
const BOOSTS = opt('boosts', '0,0.05,0.1,0.2,0.3').split(',').map(Number);
const log = (s: string) => process.stderr.write(s + '\n');
const order = (id: string) => createHash('sha256').update(`highlights:${id}`).digest('hex');

async function main() {
  const provider = new EmbeddedProvider();
  const { corpus, queries, qrels } = await loadBeir(SCIFACT, 'train');
  if (!existsSync(path.join(indexDir(WS), 'manifest.json'))) {
    log(`indexing ${corpus.length} SciFact abstracts into ${WS}`);
    const t0 = Date.now();
    await updateIndex(corpus.map(docInput), { workspace: WS, provider, commitEvery: 5000 });
    log(`indexed in ${Math.round((Date.now() - t0) / 1000)} s`);
  }
  const index = await LibraryIndex.open(WS, provider);
  const c = index.retrieval;
  const docOf = (source: number) => index.sources[source].path.slice(BEIR_SCHEME.length);
  const judged = [...qrels.keys()]
    .filter((q) => queries.has(q))
    .sort((a, b) => order(a).localeCompare(order(b)))
    .slice(0, QUERIES);
  const vectors = await provider.embed(
    judged.map((q) => queries.get(q)!),
    { kind: 'query' },
  );
  const relevantDocs = new Set(judged.flatMap((q) => [...qrels.get(q)!].filter(([, g]) => g > 0).map(([d]) => d)));

  const rowsOfDoc = new Map<string, number[]>();
  for (let row = 0; row < c.count; row++) {
    const d = docOf(c.sourceOfRow[row]);
    rowsOfDoc.set(d, [...(rowsOfDoc.get(d) ?? []), row]);
  }
  /** `share` of the passages outside every relevant source, at random. */
  const unrelated = (share: number, seed: number) => {
    const r = rng(seed);
    const h = new Uint8Array(c.count);
    for (let row = 0; row < c.count; row++) if (!relevantDocs.has(docOf(c.sourceOfRow[row])) && r() < share) h[row] = 1;
    return h;
  };
  /** The highlighted words of a row: a span of ~25 words of its text, at random (fixed per row), unless set. */
  const spanTerms = new Map<number, string[]>();
  const termsOf = (row: number) => {
    let t = spanTerms.get(row);
    if (!t) {
      const words = index.passages[row].text.split(/\s+/);
      const r = rng(row + 1);
      const len = Math.min(words.length, 25);
      const start = Math.floor(r() * (words.length - len + 1));
      spanTerms.set(row, (t = queryTerms(words.slice(start, start + len).join(' '))));
    }
    return t;
  };
  /** The sentence of a row sharing most (idf-weighted) with a claim. */
  const claimSentence = (row: number, claim: string) => {
    const q = new Set(queryTerms(claim));
    let best: string[] = [];
    let bestScore = -1;
    for (const s of index.passages[row].text.match(/[^.!?]+[.!?]*/g) ?? []) {
      const t = queryTerms(s);
      const score = [...new Set(t)].filter((w) => q.has(w)).reduce((a, w) => a + c.lexical.idf(w), 0);
      if (score > bestScore) [best, bestScore] = [t, score];
    }
    return best;
  };
  /** One passage of each relevant source of half the queries, on top of 10 % unrelated ones. */
  const relevant = (sentence: boolean) => {
    const r = rng(7);
    const h = unrelated(0.1, 3);
    const set: Array<[number, string[]]> = [];
    const queriesHighlighted = new Set<string>();
    for (const q of judged) {
      if (r() >= 0.5) continue;
      queriesHighlighted.add(q);
      for (const [d, g] of qrels.get(q)!) {
        const rows = g > 0 ? rowsOfDoc.get(d) : undefined;
        if (!rows?.length) continue;
        const row = rows[Math.floor(r() * rows.length)];
        h[row] = 1;
        if (sentence) set.push([row, claimSentence(row, queries.get(q)!)]);
      }
    }
    return { h, queriesHighlighted, set };
  };

  c.highlightTerms = argv.includes('--whole-passage') ? undefined : termsOf;
  // --fusion neural: the neural models' convex fusion on the same (embedded) vectors: how the boost
  // meets min-max normalised scores, where no neural model is at hand.
  const fusion = opt('fusion', 'product') === 'neural' ? { ...NEURAL_FUSION } : fusionFor(provider.id);
  const score = (highlighted: Uint8Array | undefined, boost: number, only?: Set<string>) => {
    c.highlighted = highlighted;
    const params: Partial<HybridParams> = { ...fusion, highlightBoost: boost };
    let ndcg = 0;
    let mrr = 0;
    let n = 0;
    judged.forEach((q, i) => {
      if (only && !only.has(q)) return;
      const ranked = rankSources(c, { text: queries.get(q)!, vector: vectors[i] }, { k: 100, params }).map((s) => docOf(s.source));
      ndcg += ndcgAt(ranked, qrels.get(q)!, 10);
      mrr += mrrAt(ranked, qrels.get(q)!, 10);
      n++;
    });
    const r4 = (x: number) => Math.round((x / n) * 10000) / 10000;
    return { 'ndcg@10': r4(ndcg), 'mrr@10': r4(mrr), queries: n };
  };

  const relSpan = relevant(false);
  const relSentence = relevant(true);
  const conditions: Array<{ name: string; highlighted?: Uint8Array; marked: number; only?: Set<string>; before?: () => void }> = [
    { name: 'none', marked: 0 },
    ...[0.1, 0.3].map((s) => {
      const h = unrelated(s, Math.round(s * 1000));
      return { name: `unrelated ${s * 100} %`, highlighted: h, marked: h.reduce((a, b) => a + b, 0) };
    }),
    { name: 'relevant: random span + 10 % unrelated', highlighted: relSpan.h, marked: relSpan.h.reduce((a, b) => a + b, 0) },
    {
      name: `  the same, its ${relSpan.queriesHighlighted.size} queries`,
      highlighted: relSpan.h,
      marked: relSpan.h.reduce((a, b) => a + b, 0),
      only: relSpan.queriesHighlighted,
    },
    {
      name: "relevant: claim's sentence + 10 % unrelated",
      highlighted: relSentence.h,
      marked: relSentence.h.reduce((a, b) => a + b, 0),
      before: () => relSentence.set.forEach(([row, t]) => spanTerms.set(row, t)),
    },
    {
      name: `  the same, its ${relSentence.queriesHighlighted.size} queries`,
      highlighted: relSentence.h,
      marked: relSentence.h.reduce((a, b) => a + b, 0),
      only: relSentence.queriesHighlighted,
    },
  ];
  const rows: Array<Record<string, unknown>> = [];
  const t0 = Date.now();
  for (const cond of conditions) {
    cond.before?.();
    for (const boost of BOOSTS) {
      if (cond.name === 'none' && boost !== 0) continue;
      rows.push({ condition: cond.name, passagesHighlighted: cond.marked, boost, ...score(cond.highlighted, boost, cond.only) });
    }
  }
  const result = {
    set: 'scifact train',
    provider: provider.key,
    passages: c.count,
    sources: index.sources.length,
    queries: judged.length,
    seconds: Math.round((Date.now() - t0) / 1000),
    rows,
  };
  if (argv.includes('--json')) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  log(`fusion: ${JSON.stringify(fusion)}`);
  log(`SciFact train, ${judged.length} queries, ${c.count} passages of ${index.sources.length} abstracts, ${provider.key}`);
  console.table(rows);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
