/**
 * A lab's library server against the local index (issue 37), on a throwaway PostgreSQL + pgvector
 * (scripts/server/dev-server.mjs) on this machine's loopback: a generated library indexed locally,
 * then published; published again unchanged and with 1 % of its PDFs changed; loaded from the
 * workspace and from the server; a 100-paragraph draft analysed warm on each (and the results
 * compared); ten readers at once. Figures are ratios against the local index measured in the same
 * run, never assertions. `npx tsx scripts/bench-server.ts [--sources N] [--words W] [--json]`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { analyzeDocument } from '../src/core/analysis/analyze';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import type { SourceInput } from '../src/core/index/source';
import { LibraryIndex } from '../src/core/index/search/libraryIndex';
import { openServerLibrary } from '../src/core/index/server/open';
import { publishIndex } from '../src/core/index/server/publish';
import { indexDir } from '../src/core/index/store/manifest';
import { updateIndex } from '../src/core/index/write/indexer';
import { draftMarkdown, syntheticDraft, syntheticSource } from './bench/corpus';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SOURCES = arg('sources', 1_000);
const WORDS = arg('words', 2_000);
const json = process.argv.includes('--json');
const log = (line: string) => process.stderr.write(`${line}\n`);
const ms = async <T>(f: () => Promise<T>): Promise<[number, T]> => {
  const t = performance.now();
  const r = await f();
  return [performance.now() - t, r];
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function inputs(ws: string, changed = new Set<number>()): SourceInput[] {
  return Array.from({ length: SOURCES }, (_, i) => {
    const variant = changed.has(i) ? 1 : 0;
    return {
      path: join(ws, 'library', `source-${i}.pdf`),
      size: 1000 + i + variant,
      mtimeMs: 1_600_000_000_000 + variant,
      sourceType: 'secondary',
      contentHash: `bench-server-${i}-${WORDS}${variant ? '-v1' : ''}`,
      extract: async () => {
        const g = syntheticSource(i + variant * 1_000_003, WORDS);
        return {
          pages: g.pages,
          pageCount: g.pages.length,
          meta: { title: g.title, authors: [g.author], year: g.year, citekey: `source${i}`, collections: [], titleFrom: 'pdf-info' as const },
        };
      },
    };
  });
}

async function main() {
  const url = (JSON.parse(execFileSync(process.execPath, [resolve('scripts/server/dev-server.mjs'), '--json'], { encoding: 'utf8' }).trim()) as { url: string })
    .url;
  const schema = `bench_${process.pid}`;
  const server = { url, schema };
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const root = mkdtempSync(join(tmpdir(), 'ss-bench-server-'));
  const rows: Array<{ metric: string; value: string; baseline: string; ratio: string }> = [];
  const row = (metric: string, value: number, unit: string, baselineName: string, baseline: number) =>
    rows.push({
      metric,
      value: `${value.toFixed(unit === 's' ? 1 : 0)} ${unit}`,
      baseline: `${baselineName}: ${baseline.toFixed(unit === 's' ? 1 : 0)} ${unit}`,
      ratio: (value / baseline).toFixed(2),
    });
  const provider = new EmbeddedProvider();
  try {
    const ws = join(root, 'publisher');
    log(`indexing ${SOURCES} generated sources of ${WORDS} words locally…`);
    const [indexMs, report] = await ms(() => updateIndex(inputs(ws), { workspace: ws, provider }));
    const passages = report.passages;
    log(`publishing ${passages} passages…`);
    const [publishMs] = await ms(() => publishIndex(indexDir(ws), server, { publisher: 'bench' }));
    row(`publication (${passages.toLocaleString('en')} passages)`, publishMs / 1000, 's', 'local indexing', indexMs / 1000);
    rows.push({
      metric: 'publication throughput',
      value: `${Math.round(passages / (publishMs / 1000)).toLocaleString('en')} passages/s`,
      baseline: `local indexing: ${Math.round(passages / (indexMs / 1000)).toLocaleString('en')} passages/s`,
      ratio: (indexMs / publishMs).toFixed(2),
    });
    const [againMs, again] = await ms(() => publishIndex(indexDir(ws), server, { publisher: 'bench' }));
    row(`publication again, unchanged (${again.sent} PDFs sent)`, againMs / 1000, 's', 'first publication', publishMs / 1000);
    const changed = new Set(Array.from({ length: Math.max(1, Math.round(SOURCES / 100)) }, (_, i) => i * 100));
    const [reindexMs] = await ms(() => updateIndex(inputs(ws, changed), { workspace: ws, provider }));
    const [changedMs, ch] = await ms(() => publishIndex(indexDir(ws), server, { publisher: 'bench' }));
    row(
      `publication after 1 % changed (${ch.sent} PDFs sent, ${ch.removed} removed)`,
      changedMs / 1000,
      's',
      'local re-indexing of the change',
      reindexMs / 1000,
    );

    const [localLoad, local] = await ms(() => LibraryIndex.open(ws, provider));
    const member = join(root, 'member');
    const [serverLoad, remote] = await ms(() => openServerLibrary(member, server, provider));
    row('load', serverLoad, 'ms', 'local index', localLoad);

    const draft = draftMarkdown(syntheticDraft(100, SOURCES));
    const opts = { granularity: 'paragraph' as const, maxResults: 5 };
    const times = async (index: LibraryIndex, workspace: string) => {
      const ctx = { index, workspace, cache: false as const };
      const first = await analyzeDocument(draft, opts, ctx); // warm-up
      const t: number[] = [];
      for (let i = 0; i < 3; i++) t.push((await ms(() => analyzeDocument(draft, opts, ctx)))[0]);
      return { ms: median(t), result: first };
    };
    const a = await times(local, ws);
    const b = await times(remote, member);
    row(`warm analysis (${a.result.segments.length} paragraphs)`, b.ms, 'ms', 'local index', a.ms);
    const same = JSON.stringify(a.result.segments.map((s) => s.recommendations)) === JSON.stringify(b.result.segments.map((s) => s.recommendations));
    rows.push({ metric: 'the same cards as the local index', value: same ? 'yes' : 'NO', baseline: '', ratio: '' });

    const [oneMs] = await ms(async () => {
      const idx = await openServerLibrary(join(root, 'one'), server, provider);
      await analyzeDocument(draft, opts, { index: idx, workspace: join(root, 'one'), cache: false });
    });
    const [tenMs] = await ms(() =>
      Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const idx = await openServerLibrary(join(root, `client${i}`), server, provider);
          await analyzeDocument(draft, opts, { index: idx, workspace: join(root, `client${i}`), cache: false });
        }),
      ),
    );
    row('10 readers at once (load + analysis each, one process)', tenMs / 1000, 's', '1 reader', oneMs / 1000);
    const size = await admin.query<{ bytes: string }>(
      `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    rows.push({
      metric: 'size on the server (tables, indexes, TOAST)',
      value: `${(Number(size.rows[0].bytes) / 2 ** 20).toFixed(0)} MiB`,
      baseline: '',
      ratio: '',
    });
    rows.push({ metric: 'peak RSS of this process', value: `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`, baseline: '', ratio: '' });
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
    rmSync(root, { recursive: true, force: true });
  }
  if (json) process.stdout.write(JSON.stringify({ sources: SOURCES, words: WORDS, rows }, null, 2) + '\n');
  else {
    process.stdout.write(`\n${SOURCES.toLocaleString('en')} sources of ${WORDS.toLocaleString('en')} words, embedded model, server on loopback\n\n`);
    process.stdout.write('| measure | server | baseline | ratio |\n|---|---|---|---|\n');
    for (const r of rows) process.stdout.write(`| ${r.metric} | ${r.value} | ${r.baseline} | ${r.ratio} |\n`);
  }
}

main().catch((err) => {
  log(`bench-server: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
