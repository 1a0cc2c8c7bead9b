import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bandOf } from '../../src/shared/bands';
import { writeFixtureLibrary } from '../support/pdfCorpus';

const CLI = resolve('dist/cli.js');

function cli(args: string[], cwd?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A small BEIR folder: topics with distinctive words, one judged document per query. */
function writeBeir(dir: string) {
  const topics = [
    'grain ships Sicily licences',
    'railway time zones clocks',
    'plague Marseille quarantine',
    'printing press pamphlets Luther',
    'cotton famine Lancashire mills',
  ];
  const docs: string[] = [];
  topics.forEach((t, i) => {
    for (let j = 0; j < 6; j++)
      docs.push(
        JSON.stringify({
          _id: `d${i}-${j}`,
          title: j === 0 ? `Study of ${t}` : `Note ${i}.${j}`,
          text:
            j === 0
              ? `A detailed account of ${t} and its history, with ${t} discussed at length.`
              : `Unrelated remarks number ${j} on topic ${i} about weather and gardens.`,
        }),
      );
  });
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), docs.join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), topics.map((t, i) => JSON.stringify({ _id: `q${i}`, text: `What about ${t}?` })).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'train.tsv'), 'query-id\tcorpus-id\tscore\n' + topics.map((_, i) => `q${i}\td${i}-0\t1`).join('\n') + '\n');
}

describe('CLI (bundled dist/cli.js)', function () {
  this.timeout(180_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-cli-'));
  const lib = join(root, 'library');
  const ws = join(root, 'ws');

  before(async () => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    await writeFixtureLibrary(lib);
    mkdirSync(ws);
  });

  it('reads --library relative to the current directory, not to --workspace', () => {
    const other = join(root, 'elsewhere');
    mkdirSync(other);
    const r = cli(['index', '--library', 'library', '--workspace', other, '--json'], root);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).sources, 3);
    assert.doesNotMatch(r.stderr, /library folder not found/);
  });

  it('index lists sources, passages and every skipped file with its reason', () => {
    const r = cli(['index', '--library', lib, '--workspace', ws]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Indexed: 3 sources, \d+ passages/);
    assert.match(r.stdout, /Damaged, indexed with what could be read:\n  \S*truncated\.pdf — read 2 of 4 pages/);
    assert.match(r.stdout, /Skipped 4 files:/);
    assert.match(r.stdout, /encrypted\.pdf — encrypted: the PDF needs a password/);
    assert.match(r.stdout, /scanned\.pdf — no text layer/);
    assert.match(r.stderr, /indexing 7 PDF files/);
    const j = JSON.parse(cli(['index', '--library', lib, '--workspace', ws, '--json']).stdout);
    assert.equal(j.sources, 3);
    assert.equal(j.unchanged, 3);
    assert.equal(j.skipped.length, 4);
    const st = JSON.parse(cli(['status', '--workspace', ws, '--json']).stdout);
    assert.deepEqual(
      st.damaged.map((d: { path: string; problem: string }) => [d.path.split('/').pop(), d.problem.slice(0, 18)]),
      [['truncated.pdf', 'read 2 of 4 pages ']],
    );
  });

  it('search --json prints path, title, page, pageLabel, score and text', () => {
    const r = cli(['search', 'Sicilian export licences and the price of bread', '--workspace', ws, '--k', '3', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { results } = JSON.parse(r.stdout);
    assert.equal(results.length, 3);
    for (const h of results) {
      assert.ok(h.path.endsWith('.pdf'));
      assert.equal(typeof h.title, 'string');
      assert.ok(Number.isInteger(h.page) && h.page >= 1);
      assert.ok(h.pageLabel === null || typeof h.pageLabel === 'string');
      assert.equal(typeof h.score, 'number');
      assert.ok(h.text.length > 50);
    }
    assert.ok(results[0].path.endsWith('english-history.pdf'));
    const human = cli(['search', 'la longue durée', '--workspace', ws, '--k', '1'], ws);
    assert.match(human.stdout, /^1\. L’école des Annales/m);
  });

  it('says clearly when there is no index, and rejects bad usage', () => {
    const empty = mkdtempSync(join(tmpdir(), 'ss-cli-empty-'));
    const r = cli(['search', 'anything', '--workspace', empty]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /No library index in .*Index the library first/);
    assert.equal(cli(['index']).code, 2);
    assert.equal(cli(['search', 'x', '--k', '0', '--workspace', ws]).code, 2);
    assert.match(cli(['frobnicate']).stderr, /unknown command/);
  });

  it('eval --json prints the metrics and the plain-BM25 baseline', () => {
    const beir = join(root, 'beir');
    writeBeir(beir);
    const r = cli(['eval', '--beir', beir, '--split', 'train', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    for (const k of ['ndcg@10', 'recall@10', 'recall@100', 'mrr@10']) {
      assert.ok(j[k] >= 0 && j[k] <= 1, k);
      assert.ok(j.baseline[k] >= 0 && j.baseline[k] <= 1, `baseline ${k}`);
    }
    assert.equal(j.queries, 5);
    assert.equal(j.docs, 30);
    assert.equal(j['mrr@10'], 1, 'each distinctive query finds its document first');
  });
});

describe('CLI segment and analyze', function () {
  this.timeout(180_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-cli-an-'));
  const lib = join(root, 'library');
  const draft = join(root, 'draft.md');

  before(async () => {
    await writeFixtureLibrary(lib);
    writeFileSync(
      draft,
      '# Bread\n\nThe viceroys of Sicily sold export licences for grain to Genoese merchants [@x, p. 2].\n\n```\n# code\n```\n\nBraudel organise le temps historique en trois étages et la longue durée.\n',
    );
  });

  it('segment --json prints id, type, lines, title, text and query', () => {
    const r = cli(['segment', draft, '--granularity', 'paragraph', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { segments } = JSON.parse(r.stdout);
    assert.equal(segments.length, 2);
    assert.deepEqual(Object.keys(segments[0]).slice(0, 7), ['id', 'type', 'startLine', 'endLine', 'title', 'text', 'query']);
    assert.equal(segments[0].startLine, 3);
    assert.equal(segments[0].query, 'The viceroys of Sicily sold export licences for grain to Genoese merchants.');
    assert.equal(JSON.parse(cli(['segment', draft, '--granularity', 'section', '--json']).stdout).segments.length, 1);
  });

  it('analyze indexes the library, reports sources per segment, then serves the rerun from the cache', () => {
    const first = cli(['analyze', draft, '--workspace', root, '--library', lib, '--no-rerank', '--json']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /skipped .*encrypted\.pdf/);
    const j = JSON.parse(first.stdout);
    assert.equal(j.fromCache, false);
    assert.equal(j.segments.length, 2);
    const rec = j.segments[0].recommendations[0];
    for (const k of [
      'sourceId',
      'path',
      'title',
      'authors',
      'year',
      'citekey',
      'page',
      'pageLabel',
      'similarity',
      'reranked',
      'alreadyCited',
      'preview',
      'citation',
      'passages',
    ])
      assert.ok(k in rec, k);
    assert.ok(rec.path.endsWith('english-history.pdf'));
    assert.ok(j.segments[1].recommendations[0].path.endsWith('francais.pdf'));
    assert.deepEqual(Object.keys(j.stats), ['segments', 'segmentsAnalyzed', 'segmentsFromCache', 'ms']);
    const again = JSON.parse(cli(['analyze', draft, '--workspace', root, '--no-rerank', '--json']).stdout);
    assert.equal(again.fromCache, true);
    const human = cli(['analyze', draft, '--workspace', root, '--no-rerank', '--max-results', '1']);
    assert.match(human.stdout, /L3 +paragraph: The viceroys of Sicily/);
    assert.match(human.stdout, /1\. +\d+% (strong|related|weak) +Bread, Ships and Sovereigns/);
  });

  it('analyze --json gives each card a band and its similarity, strongest first; an absent reranker goes unmentioned', () => {
    // Reranking is 'auto' by default: with no Ollama at this address it is silently not used.
    const r = cli([
      'analyze',
      draft,
      '--workspace',
      root,
      '--json',
      '--no-cache',
      '--max-results',
      '8',
      '--source-type',
      'both',
      '--ollama-host',
      'http://127.0.0.1:9',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /ollama|rerank|warning/i);
    const j = JSON.parse(r.stdout);
    assert.equal(j.reranking.used, false);
    assert.equal(j.reranking.note, undefined);
    assert.match(j.reranking.hint, /reranking/);
    let cards = 0;
    for (const s of j.segments) {
      s.recommendations.forEach((rec: { band: string; similarity: number }, i: number) => {
        cards++;
        assert.ok(['strong', 'related', 'weak'].includes(rec.band));
        assert.equal(rec.band, bandOf(rec.similarity));
        if (i > 0) assert.ok(s.recommendations[i - 1].similarity >= rec.similarity, 'no card before one with a higher similarity');
      });
    }
    assert.ok(cards >= 4);
    const text = cli(['analyze', draft, '--workspace', root, '--no-cache', '--ollama-host', 'http://127.0.0.1:9']);
    assert.doesNotMatch(text.stdout + text.stderr, /ollama|rerank/i);
  });

  it('rejects out-of-range options and reports a missing index', () => {
    const bad = cli(['analyze', draft, '--workspace', root, '--max-results', '25']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /maxResults must be a whole number from 1 to 20/);
    const empty = mkdtempSync(join(tmpdir(), 'ss-cli-none-'));
    const none = cli(['analyze', draft, '--workspace', empty]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /No library index/);
  });
});
