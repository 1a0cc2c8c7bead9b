/**
 * The library server's benchmark (issue 37): `npm run bench:server [-- --sources N] [--words W] [--big] [--clients C] [--runs R] [--url postgres://…] [--keep]`.
 *
 * Builds a deterministic synthetic library (scripts/bench/corpus.ts; default 1,000 sources of
 * 2,000 words, ≈ 15k passages; `--big`: 6,700 sources of 2,000 words, ≈ 100k passages), indexes it
 * locally with the embedded provider, publishes it into a fresh schema of the PostgreSQL + pgvector
 * dev server (scripts/server/dev-server.mjs, or `--url`), and prints a Markdown table of figures,
 * each beside its local counterpart measured in the same run: publication vs local indexing
 * throughput, re-publication (unchanged, 1 % changed), load (local vs server; a member's copy of the
 * generation; a new generation's first load with the copy of the last one), warm analysis of a
 * draft of 100 paragraphs on both (and whether the recommendations are identical), C members
 * (default 10) loading and analysing at once in child processes vs one alone, peak RSS and the
 * schema's size on the server. It never asserts a timing: the targets are stated beside the ratios.
 * The schema is dropped at the end (`--keep` keeps it and the temp folder). At a million passages
 * (`--sources 67000`), run it under `node --expose-gc --import tsx` so that the two indexes compared
 * are freed before the members start (each member then needs ~7 GB).
 *
 * The dev server's state lives in the checkout's `.cache/pg-server/`; in a git worktree, point
 * SIMILAR_SOURCES_PG_DIR at the main checkout's to reuse its server, or pass `--url`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { analyzeDocument, type AnalysisResult } from '../src/core/analysis/analyze';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import type { LibraryServer } from '../src/core/index/server/connection';
import { loadServerLibrary, openServerLibrary, type ServerLibrary } from '../src/core/index/server/open';
import { publishIndex } from '../src/core/index/server/publish';
import { currentGeneration, currentGenerationHead, currentGenerationId } from '../src/core/index/server/read';
import { LibraryIndex } from '../src/core/index/search/libraryIndex';
import type { SourceInput } from '../src/core/index/source';
import { indexDir } from '../src/core/index/store/manifest';
import { updateIndex } from '../src/core/index/write/indexer';
import { serverState } from '../src/engine/libraryServer';
import { devServerUrl, freshSchema } from '../test/support/pgServer';
import { median, peakRss, timed } from './bench/measure';
import { draftMarkdown, syntheticDraft, syntheticSource } from './bench/corpus';

const ANALYSIS = { useReranking: false } as const;
const DRAFT_PARAGRAPHS = 100;
const MB = 1024 * 1024;

const log = (s: string) => process.stderr.write(s + '\n');

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  return a >= 100 ? Math.round(v).toLocaleString('en-US') : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
}

async function dirSize(p: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(p, { withFileTypes: true })) {
    const f = path.join(p, e.name);
    if (e.isDirectory()) n += await dirSize(f);
    else if (e.isFile()) n += (await fs.stat(f)).size;
  }
  return n;
}

/** What is compared between the local and the server analyses: everything but timings and cache flags. */
function recommendationsJson(r: AnalysisResult): string {
  return JSON.stringify(r.segments.map((s) => ({ ...s, fromCache: undefined })));
}

/** 'identical', or where two analyses' cards first differ. */
function sameCards(a: string, b: string, aName: string, bName: string): string {
  if (a === b) return 'identical';
  let k = 0;
  while (k < a.length && a[k] === b[k]) k++;
  return `DIFFERENT (first difference at character ${k}: ${aName} …${a.slice(Math.max(0, k - 80), k + 80)}… ${bName} …${b.slice(Math.max(0, k - 80), k + 80)}…)`;
}

// ---------------------------------------------------------------- a member (child process)
/** `--client <url> <schema> <workspace> <draft file>`: loads the server's library, analyses the draft once, prints its figures as JSON. */
async function client(args: string[]) {
  const [url, schema, ws, draftFile] = args;
  const draft = await fs.readFile(draftFile, 'utf8');
  const server: LibraryServer = { url, schema };
  const t0 = performance.now();
  // The server's rows, not the member's copy step 3 wrote in the same workspace.
  const index = await openServerLibrary(ws, server, new EmbeddedProvider(), { copy: false });
  const t1 = performance.now();
  const r = await analyzeDocument(draft, ANALYSIS, { index, workspace: ws, cache: false });
  const t2 = performance.now();
  process.stdout.write(
    JSON.stringify({ openMs: t1 - t0, analysisMs: t2 - t1, passages: index.size, segments: r.segments.length, maxRss: process.resourceUsage().maxRSS * 1024 }),
  );
}

interface ClientFigures {
  openMs: number;
  analysisMs: number;
  passages: number;
  segments: number;
  maxRss: number;
  wallMs: number;
}

/** One member as a child process running this script under the same loader (tsx). */
function runClient(server: { url: string; schema: string }, ws: string, draftFile: string): Promise<ClientFigures> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...process.execArgv, __filename, '--client', server.url, server.schema, ws, draftFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      if (code !== 0) {
        reject(new Error(`a member process exited with ${code}:\n${err.trim().split('\n').slice(-15).join('\n')}`));
        return;
      }
      try {
        resolve({ ...(JSON.parse(out) as Omit<ClientFigures, 'wallMs'>), wallMs });
      } catch {
        reject(new Error(`a member process printed no figures: ${JSON.stringify(out.slice(0, 200))}\n${err.trim()}`));
      }
    });
  });
}

// ---------------------------------------------------------------- the benchmark
interface Row {
  metric: string;
  value: string;
  baseline?: string;
  ratio?: string;
  note?: string;
}

async function main(argv: string[]) {
  const flag = (n: string) => argv.includes(n);
  const opt = (n: string) => {
    const i = argv.indexOf(n);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${n} needs a value`);
    return v;
  };
  const num = (n: string, dflt: number) => {
    const v = opt(n);
    if (v === undefined) return dflt;
    const x = Number(v.replace(/_/g, ''));
    if (!Number.isInteger(x) || x <= 0) throw new Error(`${n} takes a positive whole number (got ${JSON.stringify(v)})`);
    return x;
  };
  const BIG = flag('--big');
  const SOURCES = num('--sources', BIG ? 6700 : 1000);
  const WORDS = num('--words', 2000);
  const CLIENTS = num('--clients', 10);
  const RUNS = num('--runs', 3);
  const KEEP = flag('--keep');

  const url = opt('--url') ?? (await devServerUrl());
  const fresh = await freshSchema(url, 'bench_server');
  const server = { url, schema: fresh.schema };
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ss-bench-server-'));
  const rows: Row[] = [];
  const add = (r: Row) => {
    rows.push(r);
    log(`  ${r.metric}: ${r.value}${r.ratio ? `  (×${r.ratio} of ${r.baseline})` : r.baseline ? `  (${r.baseline})` : ''}`);
  };
  log(`schema ${fresh.schema} on ${url.replace(/:[^:@/]*@/, ':…@')}; temp folder ${tmp}`);
  try {
    const ws = path.join(tmp, 'publisher');
    const member = path.join(tmp, 'member');
    await fs.mkdir(ws);
    await fs.mkdir(member);
    const source = (i: number, variant: number) => {
      const g = syntheticSource(i + variant * 1_000_003, WORDS);
      return {
        pages: g.pages,
        pageCount: g.pages.length,
        meta: { title: g.title, authors: [g.author], year: g.year, citekey: `source${i}`, collections: [], titleFrom: 'pdf-info' as const },
      };
    };
    const input = (i: number, variant = 0): SourceInput => ({
      path: path.join(ws, 'library', `source-${i}.pdf`),
      size: 1000 + i + variant,
      mtimeMs: 1_600_000_000_000 + variant,
      sourceType: 'secondary',
      contentHash: `synthetic-server-${i}-${WORDS}${variant ? `-v${variant}` : ''}`,
      extract: async () => source(i, variant),
    });

    // 1. Local indexing vs publication. Generating the synthetic text is the bench's, not the product's: timed apart and taken out.
    log(`\n${SOURCES} sources of ${WORDS} words: indexing locally (embedded provider)`);
    const [genMs] = await timed(() => {
      for (let i = 0; i < SOURCES; i++) source(i, 0);
    });
    const [indexPeak, [indexRawMs, rep]] = await peakRss(() =>
      timed(() =>
        updateIndex(
          Array.from({ length: SOURCES }, (_, i) => input(i)),
          { workspace: ws, provider: new EmbeddedProvider() },
        ),
      ),
    );
    if (rep.skipped.length || rep.damaged.length)
      throw new Error(`the synthetic library did not index cleanly: ${JSON.stringify({ skipped: rep.skipped.slice(0, 3), damaged: rep.damaged.slice(0, 3) })}`);
    const P = rep.passages;
    const indexMs = indexRawMs - genMs;
    const localRate = (P / indexMs) * 1000;
    add({
      metric: 'local indexing (updateIndex, embedded)',
      value: `${fmt(indexMs / 1000)} s`,
      note: `${P} passages, ${rep.sources} sources; synthetic text generation (${fmt(genMs / 1000)} s) taken out; ${fmt(localRate)} passages/s`,
    });

    log('publishing to a fresh schema');
    const publish = () => publishIndex(indexDir(ws), server, { publisher: 'bench-server', waitMs: 60_000 });
    const [publishPeak, [publishMs, pub]] = await peakRss(() => timed(publish));
    if (pub.passages !== P) throw new Error(`the publication holds ${pub.passages} passages, the index ${P}`);
    const pubRate = (P / publishMs) * 1000;
    add({
      metric: 'publication (publishIndex, fresh schema)',
      value: `${fmt(publishMs / 1000)} s`,
      baseline: 'local indexing time',
      ratio: fmt(publishMs / indexMs),
      note: `generation ${pub.generation}: ${pub.sent} contents sent, ${Object.values(pub.vectors).reduce((a, b) => a + b, 0)} vectors`,
    });
    add({
      metric: 'publication throughput',
      value: `${fmt(pubRate)} passages/s`,
      baseline: `local indexing ${fmt(localRate)} passages/s`,
      ratio: fmt(pubRate / localRate),
      note: 'target ≥ 0.8×',
    });
    add({
      metric: 'index + publish (total)',
      value: `${fmt((indexMs + publishMs) / 1000)} s`,
      baseline: 'local indexing alone',
      ratio: fmt((indexMs + publishMs) / indexMs),
      note: `end-to-end ${fmt((P / (indexMs + publishMs)) * 1000)} passages/s`,
    });

    // 2. Re-publications: unchanged, then 1 % of the sources changed (a new content hash each).
    const [againMs, again] = await timed(publish);
    add({
      metric: 're-publication, unchanged',
      value: `${fmt(againMs)} ms`,
      baseline: 'first publication',
      ratio: fmt(againMs / publishMs),
      note: `${again.sent} contents sent, ${again.kept} kept, vectors ${JSON.stringify(again.vectors)}, ${again.removed} removed`,
    });
    const changed = Math.max(1, Math.round(SOURCES / 100));
    const every = Math.floor(SOURCES / changed);
    const isChanged = (i: number) => i % every === 0 && i / every < changed;
    const inputs2 = Array.from({ length: SOURCES }, (_, i) => input(i, isChanged(i) ? 1 : 0));
    const [update2Ms, rep2] = await timed(() => updateIndex(inputs2, { workspace: ws, provider: new EmbeddedProvider() }));
    const [changedMs, pub2] = await timed(publish);
    add({
      metric: `re-publication, ${changed} source${changed === 1 ? '' : 's'} changed (1 %)`,
      value: `${fmt(changedMs)} ms`,
      baseline: 'first publication',
      ratio: fmt(changedMs / publishMs),
      note: `${pub2.sent} contents sent, ${pub2.kept} kept, vectors ${JSON.stringify(pub2.vectors)}, ${pub2.removed} removed; the local update took ${fmt(update2Ms)} ms (${rep2.updated} updated)`,
    });

    // 2b. What each search and analysis asks the server (is the loaded generation still the current one?): its id only, vs its whole record.
    const idMs: number[] = [];
    const recordMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      idMs.push((await timed(() => currentGenerationId(server)))[0]);
      recordMs.push((await timed(() => currentGeneration(server)))[0]);
    }
    add({
      metric: 'asking which generation is current (at each search and analysis)',
      value: `${fmt(median(idMs))} ms`,
      baseline: `the generation's record ${fmt(median(recordMs))} ms`,
      ratio: fmt(median(idMs) / median(recordMs)),
      note: 'median of 5; the record lists every PDF of the library',
    });
    // The readiness before each search and analysis (serverState): the generation's head once (its
    // record without the list of sources, counted on the server), then its id only while it is current.
    const headMs: number[] = [];
    const healthMs: number[] = [];
    for (let i = 0; i < 5; i++) headMs.push((await timed(() => currentGenerationHead(server)))[0]);
    const asking = new EmbeddedProvider();
    for (let i = 0; i < 5; i++) healthMs.push((await timed(() => serverState(server, asking)))[0]);
    add({
      metric: "the library's health, first asked for a generation",
      value: `${fmt(median(headMs))} ms`,
      baseline: `from the generation's record ${fmt(median(recordMs))} ms`,
      ratio: fmt(median(headMs) / median(recordMs)),
      note: "median of 5; the generation's head: its record without the list of sources, counted on the server",
    });
    add({
      metric: "the library's health, asked again (the readiness before each search and analysis)",
      value: `${fmt(median(healthMs))} ms`,
      baseline: `from the generation's record ${fmt(median(recordMs))} ms`,
      ratio: fmt(median(healthMs) / median(recordMs)),
      note: 'median of 5 (serverState); the id of the current generation, its head kept while it is the same',
    });

    // 3–4 in a function of their own: its two loaded indexes are unreachable once it returns, so
    // that the members of step 5 have the memory (at a million passages each holds gigabytes).
    const { draftFile, serverLoadPeak, copyAt } = await (async () => {
      // 3. Load: local vs server, alternated, median of RUNS.
      log('loading: local vs server');
      const provider = new EmbeddedProvider();
      const localLoads: number[] = [];
      const serverLoads: number[] = [];
      let localIndex: LibraryIndex | undefined;
      let serverIndex: LibraryIndex | undefined;
      let serverLoadPeak = 0;
      let read: ServerLibrary | undefined;
      for (let i = 0; i < RUNS; i++) {
        localIndex = serverIndex = read = undefined;
        const [ms, idx] = await timed(() => LibraryIndex.open(ws, provider));
        localLoads.push(ms);
        localIndex = idx;
        // No copy is written until every run has read the server.
        const [peak, [ms2, lib]] = await peakRss(() => timed(() => loadServerLibrary(member, server, provider)));
        if (lib.from !== 'server') throw new Error('the member read a copy, not the server');
        serverLoads.push(ms2);
        read = lib;
        serverIndex = lib.index;
        serverLoadPeak = Math.max(serverLoadPeak, peak);
      }
      if (!localIndex || !serverIndex) throw new Error('no index loaded');
      if (localIndex.size !== serverIndex.size) throw new Error(`the local index has ${localIndex.size} passages, the server's ${serverIndex.size}`);
      add({
        metric: 'load (LibraryIndex.open vs openServerLibrary)',
        value: `${fmt(median(serverLoads))} ms`,
        baseline: `local ${fmt(median(localLoads))} ms`,
        ratio: fmt(median(serverLoads) / median(localLoads)),
        note: `median of ${RUNS}, ${serverIndex.size} passages, this process (warm)`,
      });

      // 3b. A member's later starts: the generation's copy written once after the read, then loaded as a local index is.
      log("a member's copy of the generation");
      const [writeMs, copyAt] = await timed(() => read!.keepCopy!());
      read = undefined;
      const copyLoads: number[] = [];
      let copyIndex: LibraryIndex | undefined;
      for (let i = 0; i < RUNS; i++) {
        copyIndex = undefined;
        const [ms, lib] = await timed(() => loadServerLibrary(member, server, provider));
        if (lib.from !== 'copy') throw new Error("the member's copy was not read");
        copyLoads.push(ms);
        copyIndex = lib.index;
      }
      add({
        metric: "writing a member's copy of the generation (once per generation)",
        value: `${fmt(writeMs)} ms`,
        baseline: `the load from the server ${fmt(median(serverLoads))} ms`,
        ratio: fmt(writeMs / median(serverLoads)),
        note: `${fmt((await dirSize(copyAt)) / MB)} MB on disk; the local index ${fmt((await dirSize(indexDir(ws))) / MB)} MB`,
      });
      add({
        metric: "a member's later start: load from its copy",
        value: `${fmt(median(copyLoads))} ms`,
        baseline: `local ${fmt(median(localLoads))} ms`,
        ratio: fmt(median(copyLoads) / median(localLoads)),
        note: `median of ${RUNS}; from the server ${fmt(median(serverLoads))} ms (×${fmt(median(serverLoads) / median(copyLoads))} the copy's); one query for the current generation included`,
      });

      // 4. Warm analysis of 100 paragraphs: local vs server-loaded, one warm-up each, alternated.
      log('warm analysis: local vs server-loaded');
      const draft = draftMarkdown(syntheticDraft(DRAFT_PARAGRAPHS, SOURCES));
      const draftFile = path.join(tmp, 'draft.md');
      await fs.writeFile(draftFile, draft);
      const lctx = { index: localIndex, workspace: ws, cache: false as const };
      const sctx = { index: serverIndex, workspace: member, cache: false as const };
      const localResult = await analyzeDocument(draft, ANALYSIS, lctx);
      const serverResult = await analyzeDocument(draft, ANALYSIS, sctx);
      const copyResult = await analyzeDocument(draft, ANALYSIS, { index: copyIndex!, workspace: member, cache: false });
      copyIndex = undefined;
      const localMs: number[] = [];
      const serverMs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        localMs.push((await timed(() => analyzeDocument(draft, ANALYSIS, lctx)))[0]);
        serverMs.push((await timed(() => analyzeDocument(draft, ANALYSIS, sctx)))[0]);
      }
      const b = recommendationsJson(serverResult);
      let same = sameCards(recommendationsJson(localResult), b, 'local', 'server');
      if (recommendationsJson(copyResult) !== b) same += "; from the member's copy: DIFFERENT";
      else same += "; from the member's copy: identical";
      const recs = localResult.segments.reduce((n, s) => n + s.recommendations.length, 0);
      add({
        metric: `warm analysis (${localResult.segments.length} paragraphs)`,
        value: `${fmt(median(serverMs))} ms`,
        baseline: `local ${fmt(median(localMs))} ms`,
        ratio: fmt(median(serverMs) / median(localMs)),
        note: `target ≤ 1.5×; median of ${RUNS} after one warm-up each; recommendations ${same} (${recs} on both)`,
      });
      return { draftFile, serverLoadPeak, copyAt };
    })();
    (globalThis as { gc?: () => void }).gc?.();

    // 3c. A new generation: a member that has the copy of the last one makes the new one's from it
    // and what changed on the server (server/nextCopy.ts; where changes touch every shard, it reads
    // the generation, taking the contents it can from the copy), vs a read of the whole generation.
    // Each run starts from the same copy of the last generation (restored as hard links).
    const lastCopy = path.join(tmp, 'last-copy');
    const restore = async () => {
      await fs.rm(path.dirname(copyAt), { recursive: true, force: true });
      await fs.mkdir(path.dirname(copyAt), { recursive: true });
      if (spawnSync('cp', ['-al', lastCopy, copyAt]).status !== 0) throw new Error('the copy could not be restored');
    };
    if (spawnSync('cp', ['-al', copyAt, lastCopy]).status !== 0) throw new Error('the copy could not be kept aside');
    const newGeneration = async (what: string, inputs: SourceInput[]) => {
      log(`a new generation (${what}): a member's first load of it, with and without its copy of the last one`);
      await updateIndex(inputs, { workspace: ws, provider: new EmbeddedProvider() });
      const pub = await publish();
      const provider = new EmbeddedProvider();
      const wholeLoads: number[] = [];
      const nextLoads: number[] = [];
      const draft = await fs.readFile(draftFile, 'utf8');
      const cards = async (index: LibraryIndex) => recommendationsJson(await analyzeDocument(draft, ANALYSIS, { index, workspace: member, cache: false }));
      const gc = () => (globalThis as { gc?: () => void }).gc?.();
      // Each load in a function of its own, which keeps nothing of the index it loaded: at a million
      // passages an index read from the server holds its texts in the JS heap (about 2.4 GB of its 4
      // GB), and an async function's frame can keep an awaited index alive until it returns.
      const whole = async (use: (index: LibraryIndex) => Promise<string>) => {
        const [ms, index] = await timed(() => openServerLibrary(member, server, provider, { copy: false }));
        return { ms, cards: await use(index) };
      };
      const next = async (use: (index: LibraryIndex) => Promise<string>) => {
        await restore();
        const [ms, lib] = await timed(() => loadServerLibrary(member, server, provider));
        if (lib.from !== 'server' || !lib.reused) throw new Error('the member did not load the new generation with its copy of the last one');
        const how = lib.keepCopy ? 'generation read, then its copy written in the background' : 'its copy made from the last one, then loaded';
        return { ms, reused: lib.reused, how, cards: await use(lib.index) };
      };
      const none = async () => '';
      let last: Awaited<ReturnType<typeof next>> | undefined;
      for (let i = 0; i < RUNS; i++) {
        gc();
        wholeLoads.push((await whole(none)).ms);
        gc();
        last = await next(none);
        nextLoads.push(last.ms);
      }
      gc();
      const mine = (await next(cards)).cards;
      gc();
      const same = sameCards(mine, (await whole(cards)).cards, 'with the copy', 'whole');
      const r = last!.reused;
      const how = last!.how;
      add({
        metric: `a member's first load of a new generation (${what}), with its copy of the last one`,
        value: `${fmt(median(nextLoads))} ms`,
        baseline: `the whole generation from the server ${fmt(median(wholeLoads))} ms`,
        ratio: fmt(median(nextLoads) / median(wholeLoads)),
        note: `median of ${RUNS}; ${how}; ${r.contents} of ${r.of} PDFs taken from the copy of generation ${r.generation}, ${pub.passages} passages; cards ${same}`,
      });
      gc();
      return pub.passages;
    };
    const added = Array.from({ length: changed }, (_, k) => input(SOURCES + k));
    await newGeneration(`${changed} PDFs added (1 %)`, [...inputs2, ...added]);
    await restore();
    const P3 = await newGeneration(`${changed} PDFs added and ${changed} replaced, spread over the library`, [
      ...Array.from({ length: SOURCES }, (_, i) => input(i, isChanged(i) ? 1 : isChanged(i - 1) ? 2 : 0)),
      ...added,
    ]);

    // 5. Members at once: C child processes, each loads from the server and analyses the draft once (cold for it), vs one alone.
    log(`members: 1, then ${CLIENTS} at once (child processes)`);
    const one = await runClient(server, member, draftFile);
    // As many members as this machine's free memory holds (each needs about what one alone did, plus a quarter).
    const fits = Math.max(1, Math.floor(os.freemem() / (one.maxRss * 1.25)));
    const members = Math.min(CLIENTS, fits);
    if (members < CLIENTS)
      log(`  only ${members} members at once: ${CLIENTS} would need ${fmt((CLIENTS * one.maxRss * 1.25) / MB)} MB, ${fmt(os.freemem() / MB)} MB free`);
    const [wallMs, many] = await timed(() => Promise.all(Array.from({ length: members }, () => runClient(server, member, draftFile))));
    for (const c of [one, ...many]) if (c.passages !== P3) throw new Error(`a member loaded ${c.passages} passages, expected ${P3}`);
    const per = (f: (c: ClientFigures) => number) => `median ${fmt(median(many.map(f)))}, max ${fmt(Math.max(...many.map(f)))}`;
    add({
      metric: `${members} members at once: wall time`,
      value: `${fmt(wallMs / 1000)} s`,
      baseline: `1 member ${fmt(one.wallMs / 1000)} s`,
      ratio: fmt(wallMs / one.wallMs),
      note: `process start, load, one analysis each; ${os.cpus().length} CPUs on this machine, server included${members < CLIENTS ? `; ${CLIENTS} asked, ${members} fit in the free memory (${fmt(os.freemem() / MB)} MB)` : ''}`,
    });
    add({
      metric: `${members} members at once: load per member`,
      value: `${per((c) => c.openMs)} ms`,
      baseline: `1 member ${fmt(one.openMs)} ms`,
      ratio: fmt(median(many.map((c) => c.openMs)) / one.openMs),
    });
    add({
      metric: `${members} members at once: analysis per member`,
      value: `${per((c) => c.analysisMs)} ms`,
      baseline: `1 member ${fmt(one.analysisMs)} ms`,
      ratio: fmt(median(many.map((c) => c.analysisMs)) / one.analysisMs),
      note: 'the first analysis in each process (cold JIT)',
    });
    add({
      metric: 'peak RSS of one member',
      value: `${fmt(one.maxRss / MB)} MB`,
      note: `alone; ${members} at once: ${per((c) => c.maxRss / MB)} MB each`,
    });

    // 6. Memory and the server's storage.
    add({
      metric: 'peak RSS of this process',
      value: `${fmt((process.resourceUsage().maxRSS * 1024) / MB)} MB`,
      note: `sampled peaks: indexing ${fmt(indexPeak / MB)} MB, publication ${fmt(publishPeak / MB)} MB, server loads ${fmt(serverLoadPeak / MB)} MB (two indexes held during the loads)`,
    });
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    let tables: { name: string; bytes: string }[];
    try {
      tables = (
        await c.query<{ name: string; bytes: string }>(
          `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relkind IN ('r', 'm', 'p') ORDER BY 2 DESC`,
          [fresh.schema],
        )
      ).rows;
    } finally {
      await c.end();
    }
    const schemaBytes = tables.reduce((n, t) => n + Number(t.bytes), 0);
    const disk = await dirSize(indexDir(ws));
    add({
      metric: 'schema size on the server',
      value: `${fmt(schemaBytes / MB)} MB`,
      baseline: `local index on disk ${fmt(disk / MB)} MB`,
      ratio: fmt(schemaBytes / disk),
      note: `two generations kept (${P3} passages now); tables with indexes and TOAST: ${tables
        .slice(0, 4)
        .map((t) => `${t.name} ${fmt(Number(t.bytes) / MB)} MB`)
        .join(', ')}`,
    });

    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    process.stdout.write(
      `\n### Library server benchmark: ${SOURCES} sources of ${WORDS} words, ${P} passages\n\n` +
        `${os.cpus().length} × ${cpu}, Node ${process.version}, PostgreSQL on the same machine (loopback). Ratios: this figure / the local one measured in the same run.\n\n` +
        '| metric | value | baseline | ratio | note |\n|---|---|---|---|---|\n' +
        rows
          .map((r) => `| ${r.metric} | ${r.value} | ${r.baseline ?? ''} | ${r.ratio ? `×${r.ratio}` : ''} | ${(r.note ?? '').replace(/\|/g, '\\|')} |`)
          .join('\n') +
        '\n',
    );
  } finally {
    if (KEEP) log(`kept: schema ${fresh.schema}, folder ${tmp}`);
    else {
      await fresh.drop().catch((err) => log(`warning: could not drop schema ${fresh.schema}: ${(err as Error).message}`));
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }
}

const args = process.argv.slice(2);
(args[0] === '--client' ? client(args.slice(1)) : main(args)).catch((err: unknown) => {
  const e = err as { code?: string; message?: string };
  process.stderr.write(`bench-server failed${e.code ? ` (${e.code})` : ''}: ${e.message ?? String(err)}\n`);
  process.exit(1);
});
