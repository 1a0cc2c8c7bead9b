/**
 * A lab's library on a real PostgreSQL + pgvector server (issue 37), started by
 * scripts/server/dev-server.mjs: the example library published by the CLI, then analysed from a
 * second, empty workspace (the same cards as the local index); a publisher killed with -9 halfway
 * (readers keep the previous generation, the next publisher goes on); two publishers at once; a
 * read-only role that reads and is refused a publication.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pg from 'pg';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { loadServerLibrary, openServerLibrary } from '../../src/core/index/server/open';
import { publishIndex } from '../../src/core/index/server/publish';
import {
  currentGeneration,
  currentGenerationHead,
  currentGenerationId,
  generationHealth,
  readGenerationRows,
  serverPageTexts,
} from '../../src/core/index/server/read';
import type { SourceInput } from '../../src/core/index/source';
import { indexDir } from '../../src/core/index/store/manifest';
import { readPageTexts } from '../../src/core/index/store/pageTexts';
import { analyzeDocument } from '../../src/core/analysis/analyze';
import { updateIndex } from '../../src/core/index/write/indexer';
import { checkCitations } from '../../src/engine/citations';
import { createEngine } from '../../src/engine/instance';
import { serverState } from '../../src/engine/libraryServer';
import { search, servedIndex } from '../../src/engine/search';
import { errorCode } from '../../src/shared/errors';
import { describeHealth } from '../../src/shared/health';
import { defaultSettings } from '../../src/shared/settings';
import { draftMarkdown, syntheticDraft, syntheticSource } from '../../scripts/bench/corpus';
import { devServerUrl, freshSchema } from '../support/pgServer';
import { tcpRelay } from '../support/tcpRelay';

const CLI = resolve('dist/cli.js');
const ROOT = resolve('.');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, values)).rows;
  } finally {
    await c.end();
  }
}

/** Synthetic sources numbered `numbers`, of `words` words each, as PDFs of the workspace `ws`; those in `replaced` with other contents. */
function syntheticInputs(ws: string, numbers: number[], words: number, replaced: ReadonlySet<number> = new Set()): SourceInput[] {
  return numbers.map((i) => ({
    path: join(ws, 'library', `source-${i}.pdf`),
    size: 1000 + i + (replaced.has(i) ? 1 : 0),
    mtimeMs: 1_600_000_000_000,
    sourceType: 'secondary',
    contentHash: `synthetic-server-${i}-${words}${replaced.has(i) ? '-v1' : ''}`,
    extract: async () => {
      const g = syntheticSource(replaced.has(i) ? i + 1_000_003 : i, words);
      return {
        pages: g.pages,
        pageCount: g.pages.length,
        meta: { title: g.title, authors: [g.author], year: g.year, citekey: `source${i}`, collections: [], titleFrom: 'pdf-info' as const },
      };
    },
  }));
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** A workspace indexed with `sources` synthetic sources of `words` words each (a library that takes seconds to publish). */
async function syntheticWorkspace(root: string, sources: number, words: number, opts: { keepPageTexts?: boolean } = {}): Promise<string> {
  const ws = mkdtempSync(join(root, 'synthetic-'));
  await updateIndex(syntheticInputs(ws, range(0, sources), words), { workspace: ws, provider: new EmbeddedProvider(), ...opts });
  return ws;
}

describe('a library on PostgreSQL + pgvector (issue 37)', function () {
  this.timeout(600_000);
  let url: string;
  let schema: { schema: string; drop(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'ss-server-'));
  const publisher = join(root, 'publisher');
  const member = join(root, 'member');

  before(async () => {
    if (!existsSync(CLI)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' }).status, 0);
    url = await devServerUrl();
    schema = await freshSchema(url, 'library');
    // The example as a publisher has it (its settings name the library); the member has the draft only.
    cpSync(join(ROOT, 'examples'), publisher, { recursive: true, filter: (f) => !f.includes('.similar-sources') });
    mkdirSync(member);
    cpSync(join(ROOT, 'examples', 'draft.md'), join(member, 'draft.md'));
    // The first publication, which every test reads.
    published = cli(['index', '--workspace', publisher, '--provider', 'embedded', '--server', url, '--schema', schema.schema, '--json']);
  });
  let published: ReturnType<typeof cli>;

  after(async () => {
    await schema?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  const server = () => ({ url, schema: schema.schema });

  it('index --server publishes the example library; a second, empty workspace analyses the draft from the server: the same cards as the local index', () => {
    const pub = published;
    assert.equal(pub.code, 0, pub.stderr);
    const report = JSON.parse(pub.stdout);
    assert.equal(report.published.generation, 1);
    assert.equal(report.published.sources, report.sources);
    assert.equal(report.published.sent, report.published.sources, 'every PDF sent the first time');
    assert.deepEqual(report.published.models, ['embedded-hashgram-v2']);
    assert.ok(!pub.stderr.includes(new URL(url).password), 'the password is never printed');

    const local = cli(['analyze', join(publisher, 'draft.md'), '--workspace', publisher, '--provider', 'embedded', '--json', '--no-cache']);
    assert.equal(local.code, 0, local.stderr);
    const remote = cli(['analyze', join(member, 'draft.md'), '--workspace', member, '--server', url, '--schema', schema.schema, '--json', '--no-cache']);
    assert.equal(remote.code, 0, remote.stderr);
    const cards = (out: string) => (JSON.parse(out) as { segments: Array<{ recommendations: unknown[] }> }).segments.map((s) => s.recommendations);
    const a = cards(local.stdout);
    assert.ok(a.flat().length > 20, 'the example draft gets cards');
    assert.deepEqual(cards(remote.stdout), a);
    // The member's workspace holds no index of its own (neither PDFs nor passages were needed
    // there): only its copy of the generation read, for its next start.
    assert.deepEqual(readdirSync(member).sort(), ['.similar-sources', 'draft.md']);
    assert.deepEqual(
      readdirSync(indexDir(member)).filter((n) => n !== 'server-read.json'),
      ['server-copy'],
    );
    assert.deepEqual(
      readdirSync(join(indexDir(member), 'server-copy')).map((n) => n.replace(/^[0-9a-f]{16}-/, '')),
      ['g1'],
    );

    // search too, and a second publication of an unchanged library sends nothing again.
    const q = ['search', 'grain prices and the famine of the 1690s', '--k', '5', '--json'];
    const s1 = cli([...q, '--workspace', publisher, '--provider', 'embedded']);
    const s2 = cli([...q, '--workspace', member, '--server', url, '--schema', schema.schema]);
    assert.equal(s2.code, 0, s2.stderr);
    const hits = JSON.parse(s1.stdout).results;
    assert.equal(hits.length, 5);
    assert.deepEqual(JSON.parse(s2.stdout).results, hits);
    const again = cli(['index', '--workspace', publisher, '--provider', 'embedded', '--server', url, '--schema', schema.schema, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const second = JSON.parse(again.stdout).published;
    assert.deepEqual([second.sent, second.kept], [0, report.published.sources]);
  });

  it('check --server from the empty workspace: the same verdicts as on the publisher’s index, from the page texts on the server', () => {
    const hit = (
      JSON.parse(cli(['search', 'grain licences in Sicily', '--k', '5', '--json', '--workspace', publisher, '--provider', 'embedded']).stdout)
        .results as Array<{
        citekey: string | null;
        pageLabel: string | null;
        text: string;
      }>
    ).find((h) => h.citekey && h.pageLabel)!;
    const quote = hit.text.split(/\s+/).slice(0, 9).join(' ');
    const draft = [
      `As the study shows, "${quote}" [@${hit.citekey}, p. ${hit.pageLabel}].`,
      '',
      `The same words at another page: "${quote}" [@${hit.citekey}, p. ${Number(hit.pageLabel) + 2}].`,
      '',
      `A key nobody has [@${hit.citekey}x, p. 3].`,
      '',
    ].join('\n');
    for (const ws of [publisher, member]) writeFileSync(join(ws, 'check.md'), draft);
    const local = cli(['check', join(publisher, 'check.md'), '--workspace', publisher, '--json']);
    const remote = cli(['check', join(member, 'check.md'), '--workspace', member, '--server', url, '--schema', schema.schema, '--json']);
    assert.equal(remote.code, local.code, remote.stderr);
    const verdicts = (out: string) => (JSON.parse(out).citations as Array<{ key: string; status: string }>).map((c) => [c.key, c.status]);
    assert.deepEqual(verdicts(local.stdout), [
      [hit.citekey, 'ok'],
      [hit.citekey, 'wrong-page'],
      [`${hit.citekey}x`, 'unknown-key'],
    ]);
    assert.deepEqual(verdicts(remote.stdout), verdicts(local.stdout));
    rmSync(join(member, 'check.md'));
  });

  it('mcp --server: an agent in the empty workspace gets the publisher’s passages, sources and verdicts', async () => {
    writeFileSync(join(member, 'chapter.md'), readFileSync(join(publisher, 'draft.md'), 'utf8'));
    writeFileSync(join(publisher, 'chapter.md'), readFileSync(join(publisher, 'draft.md'), 'utf8'));
    const agent = async (ws: string, extra: string[]) => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', ws, ...extra], stderr: 'pipe' });
      const client = new Client({ name: 'similar-sources-server-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const text = (r: object) => ((r as { content?: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');
        const call = async (name: string, args: Record<string, unknown>) => {
          const r = await client.callTool({ name, arguments: args });
          assert.notEqual(r.isError, true, text(r));
          return text(r);
        };
        return [
          await call('search', { query: 'grain licences in Sicily', k: 3 }),
          await call('sources_for', { text: 'Grain could not leave a Sicilian port without a licence bought from the crown.' }),
          await call('check_citations', { path: 'chapter.md' }),
        ];
      } finally {
        await client.close();
      }
    };
    const local = await agent(publisher, ['--provider', 'embedded']);
    const remote = await agent(member, ['--server', url, '--schema', schema.schema]);
    assert.match(local[0], /whitfield2019grain/);
    assert.deepEqual(remote, local);
    rmSync(join(member, 'chapter.md'));
  });

  it('the password from the host’s secret storage (VS Code’s), never from settings: with it the engine reads; without it, or with a wrong one, the server refuses and this machine’s copy does not stand in', async () => {
    const env = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
    delete process.env.PGPASSWORD;
    process.env.PGPASSFILE = join(root, 'no-such-pgpass');
    try {
      const bare = new URL(url);
      const password = decodeURIComponent(bare.password);
      bare.password = '';
      const settings = { ...defaultSettings(), libraryServer: bare.toString(), libraryServerSchema: schema.schema };
      const engine = (secret?: string) =>
        createEngine({ workspace: member, settings, provider: { provider: 'embedded' }, host: { serverPassword: async () => secret } });
      // With the password, the engine reads (and keeps this machine's copy of the generation).
      const letIn = engine(password);
      const { hits } = await letIn.search('grain licences', { k: 3 });
      assert.equal(hits.length, 3);
      await letIn.dispose();
      assert.ok(readdirSync(join(indexDir(member), 'server-copy')).length, 'a copy of the generation was kept');
      // Without it the server refuses: the copy does not stand in for a server that refused the member.
      for (const secret of [undefined, `${password}-wrong`]) {
        const refused = engine(secret);
        await assert.rejects(refused.search('grain licences', { k: 3 }), (err: Error) => {
          assert.equal(errorCode(err), 'server-unreachable');
          if (secret === undefined) assert.match(err.message, /asks for a password and none was given \(VS Code: Set Library Server Password/);
          else assert.match(err.message, /password authentication failed/);
          assert.ok(!err.message.includes(password));
          return true;
        });
        const health = await refused.health();
        assert.ok(health.state === 'unreachable' && !health.copy, JSON.stringify(health));
      }
    } finally {
      for (const [k, v] of Object.entries(env))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  it('Open PDF on a member’s machine: the copy a shared folder gives it (same last folders, same size), else a message that says what to do', async () => {
    // The member has two of the library's PDFs under a folder of their own (a shared drive mounted
    // elsewhere), one of them a different file of the same name: only the same size counts.
    const papers = join(root, 'member-papers');
    mkdirSync(join(papers, 'library'), { recursive: true });
    cpSync(join(publisher, 'library', 'grain-trade.pdf'), join(papers, 'library', 'grain-trade.pdf'));
    writeFileSync(join(papers, 'library', 'railway-time.pdf'), '%PDF-1.4 another file');
    const settings = { ...defaultSettings(), libraryServer: url, libraryServerSchema: schema.schema, libraryFolders: [papers], zotero: 'off' as const };
    const engine = createEngine({ workspace: member, settings, provider: { provider: 'embedded' } });
    const published = (name: string) => join(publisher, 'library', name);
    assert.deepEqual(await engine.pdfOnThisMachine(published('grain-trade.pdf')), { path: join(papers, 'library', 'grain-trade.pdf'), copy: true });
    const missing = await engine.pdfOnThisMachine(published('railway-time.pdf'));
    assert.ok('problem' in missing, JSON.stringify(missing));
    assert.match(missing.problem, /is in the lab's library, but not on this machine: it was published from .*railway-time\.pdf/);
    assert.match(missing.problem, /Sync the group library in Zotero, or add the folder that holds it to similarSources\.libraryFolders/);
    // A path that is no source of the library is given back as asked (the editor's own checks apply).
    const stranger = join(root, 'elsewhere.pdf');
    assert.deepEqual(await engine.pdfOnThisMachine(stranger), { path: stranger });
    await engine.dispose();
  });

  it("a member's copy of the generation: the next start reads it, not the server, with the same cards; a damaged copy is removed and the server read; a new generation replaces it", async () => {
    const ws = mkdtempSync(join(root, 'copy-'));
    const draft = readFileSync(join(publisher, 'draft.md'), 'utf8');
    const settings = { ...defaultSettings(), libraryServer: url, libraryServerSchema: schema.schema };
    const copies = join(indexDir(ws), 'server-copy');
    let logs: string[] = [];
    // One start of the editor or the CLI: load, analyse, search, stop (which waits for the copy to be written).
    const start = async () => {
      logs = [];
      const engine = createEngine({ workspace: ws, settings, provider: { provider: 'embedded' }, host: { log: (line) => logs.push(line) } });
      // No cache: each start analyses with the index it loaded.
      const analysed = await engine.analyze(draft, { useReranking: false }, { documentPath: join(ws, 'draft.md'), cache: false });
      const { hits } = await engine.search('grain licences in Sicily', { k: 5 });
      await engine.dispose();
      const read = logs.find((l) => l.startsWith('library server: generation read'));
      return { cards: analysed.segments.map((x) => x.recommendations), hits, read };
    };
    const fromServer = 'library server: generation read from the server';
    const fromCopy = "library server: generation read from this machine's copy";

    const first = await start();
    assert.equal(first.read, fromServer);
    assert.ok(first.cards.flat().length > 20);
    assert.ok(
      logs.some((l) => l.startsWith('library server: generation copied to')),
      logs.join('\n'),
    );
    const generation = (await currentGeneration(server()))!.id;
    assert.deepEqual(
      readdirSync(copies).map((n) => n.replace(/^[0-9a-f]{16}-/, '')),
      [`g${generation}`],
    );

    const second = await start();
    assert.equal(second.read, fromCopy);
    assert.deepEqual(second.cards, first.cards);
    assert.deepEqual(second.hits, first.hits);

    // A vector file of the copy changed on disk: the copy is not trusted, the server is read, and the copy written again.
    const [copy] = readdirSync(copies);
    const vectors = join(copies, copy, 'vectors');
    const [model] = readdirSync(vectors);
    const [shard] = readdirSync(join(vectors, model));
    const file = join(vectors, model, shard, 'index.pb');
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(file, bytes);
    const third = await start();
    assert.equal(third.read, fromServer);
    assert.deepEqual(third.cards, first.cards);
    assert.equal((await start()).read, fromCopy);

    // A copy of another library under the same name and generation (the database made again): not used.
    const record = join(copies, readdirSync(copies)[0], 'copy.json');
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), publishedAt: '2001-01-01T00:00:00.000Z' }));
    assert.equal((await start()).read, fromServer);
    assert.equal((await start()).read, fromCopy);

    // A new publication is a new generation: read from the server (its contents, all unchanged, from
    // the copy of the previous one), and its copy replaces the old one.
    const next = await publishIndex(indexDir(publisher), server(), { publisher: 'copy-test' });
    assert.ok(next.generation > generation);
    const fourth = await start();
    const pdfs = new Set(
      Object.values(JSON.parse(readFileSync(join(indexDir(publisher), 'manifest.json'), 'utf8')).sources).map(
        (r) => (r as { contentHash: string }).contentHash,
      ),
    ).size;
    assert.equal(
      fourth.read,
      `${fromServer}, but for the passages and vectors of ${pdfs} of its ${pdfs} PDFs, taken from this machine's copy of generation ${generation}`,
    );
    assert.deepEqual(fourth.cards, first.cards);
    assert.deepEqual(
      readdirSync(copies).map((n) => n.replace(/^[0-9a-f]{16}-/, '')),
      [`g${next.generation}`],
    );
    assert.equal((await start()).read, fromCopy);
  });

  it("a new generation is made from the member's copy of the last one and what changed on the server: shards whose PDFs are all kept are linked (wherever the generation now lists them), those that lost one written again, new PDFs read; changes spread over the library take the contents from the copy; the same cards, hits and page texts as a read of the whole generation; a damaged shard is read from the server", async () => {
    const own = await freshSchema(url, 'increment');
    try {
      const lib = { url, schema: own.schema };
      const provider = new EmbeddedProvider();
      const words = 1_200;
      const ws = await syntheticWorkspace(root, 40, words, { keepPageTexts: true });
      const publishSources = async (numbers: number[], replaced?: Set<number>) => {
        await updateIndex(syntheticInputs(ws, numbers, words, replaced), { workspace: ws, provider, keepPageTexts: true });
        return (await publishIndex(indexDir(ws), lib, { publisher: 'increment-test' })).generation;
      };
      const g1 = (await publishIndex(indexDir(ws), lib, { publisher: 'increment-test' })).generation;
      const member = mkdtempSync(join(root, 'increment-member-'));
      const draft = draftMarkdown(syntheticDraft(12, 46));
      const cards = async (index: Awaited<ReturnType<typeof loadServerLibrary>>['index']) => {
        const r = await analyzeDocument(draft, { useReranking: false }, { index, workspace: member, cache: false });
        // As users and agents get them (the engine's hits): not the rows' places in the index, which the copy may order otherwise.
        const hits = await search(servedIndex(index), 'trade and taxation of grain', { k: 8 });
        return { segments: r.segments.map((x) => x.recommendations), hits };
      };
      // The rows, in the index's order (a copy made from the last one may order them otherwise: the cards do not depend on it).
      const rowsOf = (index: Awaited<ReturnType<typeof loadServerLibrary>>['index']) =>
        Array.from({ length: index.size }, (_, row) => {
          const p = index.passage(row);
          return `${index.sources[p.source].id} ${p.text}`;
        });
      const sortedRows = (index: Awaited<ReturnType<typeof loadServerLibrary>>['index']) => rowsOf(index).sort();
      // The whole generation as read from the server alone, in a workspace of its own.
      const whole = async () => {
        const index = await openServerLibrary(mkdtempSync(join(root, 'increment-whole-')), lib, provider, { copy: false });
        return { ...(await cards(index)), rows: sortedRows(index) };
      };
      const mine = async (index: Awaited<ReturnType<typeof loadServerLibrary>>['index']) => ({ ...(await cards(index)), rows: sortedRows(index) });
      const copyOf = (g: number) =>
        join(
          indexDir(member),
          'server-copy',
          readdirSync(join(indexDir(member), 'server-copy')).find((n) => n.endsWith(`-g${g}`))!,
        );
      const shardFile = (dir: string, key: string) =>
        join(dir, (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { shards: Record<string, { file: string }> }).shards[key].file);

      const first = await loadServerLibrary(member, lib, provider);
      assert.equal(first.from, 'server');
      assert.equal(first.reused, undefined);
      await first.keepCopy!();
      const linkedIno = statSync(shardFile(copyOf(g1), '0')).ino;

      // Six PDFs added: the copy's one shard is linked, the six read from the server into a shard of their own.
      const g2 = await publishSources(range(0, 46).map((i) => (i < 40 ? i : i + 60)));
      const second = await loadServerLibrary(member, lib, provider);
      assert.deepEqual([second.from, second.keepCopy], ['server', undefined]);
      assert.deepEqual(second.reused, { generation: g1, contents: 40, of: 46 });
      assert.deepEqual(await mine(second.index), await whole());
      const copy2 = copyOf(g2);
      assert.equal(statSync(shardFile(copy2, '0')).ino, linkedIno, 'the shard of the earlier copy is linked, not written again');
      assert.deepEqual(readdirSync(join(indexDir(member), 'server-copy')), [copy2.split('/').pop()], 'the earlier copy is removed');
      // Its page texts: those of every PDF of the generation, the same as the server's (40 taken from the earlier copy).
      assert.equal(readdirSync(join(copy2, 'pages')).length, 46);
      for (const h of [`synthetic-server-0-${words}`, `synthetic-server-105-${words}`])
        assert.deepEqual(await readPageTexts(copy2, h), await serverPageTexts(lib, h));
      const again = await loadServerLibrary(member, lib, provider);
      assert.equal(again.from, 'copy');
      assert.deepEqual(await cards(again.index), await cards(second.index));

      // Two of the added PDFs removed, one replaced (the same file, other contents), three more added:
      // the first shard linked, the second written again without the three, the four read from the server.
      const g3 = await publishSources([...range(0, 40), ...range(102, 109)], new Set([102]));
      const third = await loadServerLibrary(member, lib, provider);
      assert.equal(third.keepCopy, undefined);
      assert.deepEqual(third.reused, { generation: g2, contents: 43, of: 47 });
      assert.deepEqual(await mine(third.index), await whole());
      assert.equal(statSync(shardFile(copyOf(g3), '0')).ino, linkedIno);

      // Three PDFs of the first shard removed, one added: most of the copy would be written again, so
      // the generation is read, its contents from the copy where it has them, and its copy written after.
      await publishSources([...range(3, 40), ...range(102, 109), 110], new Set([102]));
      const fourth = await loadServerLibrary(member, lib, provider);
      assert.deepEqual(fourth.reused, { generation: g3, contents: 44, of: 45 });
      assert.ok(fourth.keepCopy);
      assert.deepEqual(await mine(fourth.index), await whole());
      const copy4 = await fourth.keepCopy!();

      // A shard of the copy changed on disk: its PDFs are read from the server, the cards are the same.
      const damaged = shardFile(copy4, '0');
      const bytes = readFileSync(damaged);
      bytes[Math.floor(bytes.length / 2)] ^= 0x01;
      writeFileSync(damaged, bytes);
      const g5 = await publishSources([...range(3, 40), ...range(102, 109), 110, 111], new Set([102]));
      const fifth = await loadServerLibrary(member, lib, provider);
      assert.equal(fifth.reused?.contents, 0);
      assert.deepEqual(await mine(fifth.index), await whole());

      // The publisher's index made again, a new PDF among the others: the generation lists the kept
      // PDFs in another order. The copy's shard is linked all the same, the new PDF written after it:
      // rows in another order than the generation's, and the same cards (they do not depend on it).
      const ino5 = statSync(shardFile(copyOf(g5), '0')).ino;
      rmSync(indexDir(ws), { recursive: true, force: true });
      const order = [...range(3, 20), 999, ...range(20, 40), ...range(102, 109), 110, 111];
      await updateIndex(syntheticInputs(ws, order, words, new Set([102])), { workspace: ws, provider, keepPageTexts: true });
      await publishIndex(indexDir(ws), lib, { publisher: 'increment-test' });
      const g6 = (await currentGeneration(lib))!.id;
      const sixth = await loadServerLibrary(member, lib, provider);
      assert.equal(sixth.keepCopy, undefined, 'made from the copy of the last one');
      assert.equal(sixth.reused?.contents, order.length - 1);
      assert.equal(statSync(shardFile(copyOf(g6), '0')).ino, ino5);
      const read = await openServerLibrary(mkdtempSync(join(root, 'increment-whole-')), lib, provider, { copy: false });
      assert.notDeepEqual(rowsOf(sixth.index), rowsOf(read), "the copy's rows are not in the generation's order");
      assert.deepEqual(await mine(sixth.index), await whole());
    } finally {
      await own.drop();
    }
  });

  it("the server out of reach: the health says so, a draft analysed before gets its cached results, a new one is analysed and its citations checked with this machine's copy of the generation (neither without a copy); a new generation is not served from the cache", async () => {
    // The member reaches the server through a TCP relay the test can cut, as a laptop leaving the lab's network.
    const relay = await tcpRelay(new URL(url));
    const ws = mkdtempSync(join(root, 'offline-'));
    const draft = readFileSync(join(publisher, 'draft.md'), 'utf8');
    const another = draft + '\n\nA paragraph never analysed, about grain and ships.\n';
    const settings = { ...defaultSettings(), libraryServer: relay.url, libraryServerSchema: schema.schema };
    const engine = () => createEngine({ workspace: ws, settings, provider: { provider: 'embedded' } });
    const request = { documentPath: join(ws, 'draft.md'), cache: { ttlHours: 24 } };
    const uncached = { ...request, cache: false as const };
    const cards = (r: { segments: Array<{ recommendations: unknown[] }> }) => r.segments.map((x) => x.recommendations);
    const unreachable = /^unreachable: postgres:\/\/similar_sources@127\.0\.0\.1:\d+\/similar_sources \(schema \w+\) cannot be reached: /;
    try {
      const online = engine();
      const provider = await online.provider();
      const first = await online.analyze(draft, { useReranking: false }, request);
      assert.ok(cards(first).flat().length > 20);
      assert.equal((await online.health()).state, 'ready');
      const generation = (await currentGeneration(server()))!.id;
      // A quotation at its page and at a wrong one, checked online: the verdicts the copy must give offline.
      const hit = (
        JSON.parse(cli(['search', 'grain licences in Sicily', '--k', '5', '--json', '--workspace', publisher, '--provider', 'embedded']).stdout)
          .results as Array<{ citekey: string | null; pageLabel: string | null; text: string }>
      ).find((h) => h.citekey && h.pageLabel)!;
      const quote = hit.text.split(/\s+/).slice(0, 9).join(' ');
      const cited = `"${quote}" [@${hit.citekey}, p. ${hit.pageLabel}].\n\n"${quote}" [@${hit.citekey}, p. ${Number(hit.pageLabel) + 2}].\n`;
      const verdicts = (r: { citations: Array<{ key: string; status: string }> }) => r.citations.map((c) => [c.key, c.status]);
      const checkedOnline = verdicts(await online.checkCitations(cited));
      assert.deepEqual(checkedOnline, [
        [hit.citekey, 'ok'],
        [hit.citekey, 'wrong-page'],
      ]);
      // Stopping waits for this machine's copy of the generation read.
      await online.dispose();

      relay.cut();
      const offline = engine();
      const health = await offline.health();
      assert.equal(health.state, 'unreachable');
      assert.deepEqual(health.state === 'unreachable' && health.copy?.generation, generation);
      assert.match(describeHealth(health), unreachable);
      assert.match(
        describeHealth(health),
        new RegExp(
          `; searching this machine's copy of generation ${generation} \\(published \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\), which may not be the newest$`,
        ),
      );
      assert.equal((await offline.ready({ provider, index: 'never', vectors: 'wait' })).ready, true, 'the copy serves');
      const restored = await offline.cachedAnalysis(draft, { useReranking: false }, request, provider);
      assert.ok(restored, 'the draft analysed before gets its results back while the server is out of reach');
      assert.deepEqual(cards(restored), cards(first));
      assert.equal(await offline.cachedAnalysis(another, { useReranking: false }, request, provider), undefined);
      // A paragraph never analysed gets the cards the server would give, from the copy.
      const fromCopy = await offline.analyze(another, { useReranking: false }, uncached);
      // The citation check too, with the page texts the copy keeps.
      assert.deepEqual(verdicts(await offline.checkCitations(cited)), checkedOnline);
      await offline.dispose();

      // Without a copy, nothing new is searched.
      rmSync(join(indexDir(ws), 'server-copy'), { recursive: true });
      const bare = engine();
      const without = await bare.health();
      assert.ok(without.state === 'unreachable' && !without.copy);
      assert.match(describeHealth(without), unreachable);
      assert.match(describeHealth(without), /; the editor still shows the analyses cached on this machine$/);
      assert.equal((await bare.ready({ provider, index: 'never', vectors: 'wait' })).ready, false);
      for (const attempt of [() => bare.analyze(draft, { useReranking: false }, uncached), () => bare.checkCitations(cited)])
        await assert.rejects(attempt(), (err: Error) => {
          assert.equal(errorCode(err), 'server-unreachable');
          assert.match(err.message, /cannot be reached/);
          return true;
        });

      relay.restore();
      const back = engine();
      assert.deepEqual(cards(await back.analyze(another, { useReranking: false }, uncached)), cards(fromCopy));
      assert.ok(cards(fromCopy).flat().length > cards(first).flat().length);
      assert.ok(await back.cachedAnalysis(draft, { useReranking: false }, request, provider), 'the same generation, back online');
      await back.dispose();
      await publishIndex(indexDir(publisher), server(), { publisher: 'republisher' });
      assert.equal(
        await engine().cachedAnalysis(draft, { useReranking: false }, request, provider),
        undefined,
        'another generation: analysed again, not restored',
      );
    } finally {
      await relay.close();
    }
  });

  it('a workspace reading an empty schema is told nothing is published there, not "no result"', () => {
    const r = cli(['search', 'grain', '--workspace', member, '--server', url, '--schema', `${schema.schema}_none`, '--json']);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /Nothing is published on postgres:\/\/similar_sources@127\.0\.0\.1:\d+\/similar_sources \(schema \w+_none\)\. Publish the library there first/,
    );
    const status = cli(['status', '--workspace', member, '--server', url, '--schema', `${schema.schema}_none`]);
    assert.equal(status.code, 1);
    assert.match(status.stdout, /^missing: nothing is published on postgres:\/\/similar_sources@127\.0\.0\.1:\d+\/similar_sources/);
    const published = cli(['status', '--workspace', member, '--server', url, '--schema', schema.schema]);
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stdout, /^ready: \d+ sources, \d+ passages, model embedded-hashgram-v2\n {2}published on postgres:/);
  });

  it("the readiness asks the generation's head, not its list of sources: the same health as the whole record's; a load handed a record no longer current reads the current generation; the citation check keeps a generation's list of sources while it is the current one", async () => {
    const own = await freshSchema(url, 'head');
    try {
      const lib = { url, schema: own.schema };
      const provider = new EmbeddedProvider();
      const ws = await syntheticWorkspace(root, 4, 400);
      await publishIndex(indexDir(ws), lib, { publisher: 'head-test' });
      const old = (await currentGeneration(lib))!;
      // The citation check keeps a generation's list of sources while the generation is the same, and no longer.
      const reader = mkdtempSync(join(root, 'head-reader-'));
      const keys = async () => (await checkCitations('[@source2] [@source5]\n', { workspace: reader, server: lib })).citations.map((c) => [c.key, c.status]);
      assert.deepEqual(await keys(), [
        ['source2', 'ok'],
        ['source5', 'unknown-key'],
      ]);
      // The engine's health keeps a generation's head while it is the current one, and no longer.
      const state = async () => {
        const r = await serverState(lib, provider);
        return [r.generation, r.health.state === 'ready' ? r.health.sources : undefined];
      };
      assert.deepEqual(await state(), [old.id, 4]);
      assert.deepEqual(await state(), [old.id, 4]);
      await updateIndex(syntheticInputs(ws, range(0, 7), 400), { workspace: ws, provider });
      await publishIndex(indexDir(ws), lib, { publisher: 'head-test' });
      assert.deepEqual(await keys(), [
        ['source2', 'ok'],
        ['source5', 'ok'],
      ]);
      const now = (await currentGeneration(lib))!;
      assert.deepEqual(await state(), [now.id, 7]);
      const head = (await currentGenerationHead(lib))!;
      assert.equal(head.id, now.id);
      assert.equal(head.sources, 7);
      assert.equal(
        head.passages,
        now.library.sources.reduce((n, r) => n + r.passages, 0),
      );
      assert.ok(!('sources' in head.library), 'the list of sources is not fetched');
      assert.deepEqual(generationHealth(lib, head, provider.key), generationHealth(lib, now, provider.key));
      assert.equal(generationHealth(lib, head, 'other-model').state, 'incomplete');
      // A record fetched just before the next publication committed: the read takes the current one, whole.
      const read = await readGenerationRows(lib, provider.key, await provider.dimension(), { known: old });
      assert.equal(read.g.id, now.id);
      assert.equal(read.g.library.sources.length, 7);
      assert.equal(read.rows.count, head.passages);
      const same = await readGenerationRows(lib, provider.key, await provider.dimension(), { known: now });
      assert.equal(same.g, now, 'the current record is not fetched again');
      // The small questions go over kept connections; one the server dropped meanwhile is replaced, not reported.
      assert.equal(await currentGenerationId(lib), now.id);
      const mine = `application_name = 'similar-sources reader (${own.schema})'`;
      assert.ok((await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${mine}`))[0].n >= 1, 'a connection is kept');
      await query(url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE ${mine}`);
      assert.equal(await currentGenerationId(lib), now.id);
    } finally {
      await own.drop();
    }
  });

  it('a publisher killed with -9 halfway: readers keep the previous generation, nothing of it stays, and the next publication goes through', async () => {
    const before = await currentGeneration(server());
    const contents = async () => Number((await query<{ n: string }>(url, `SELECT count(*) AS n FROM ${schema.schema}.contents`))[0].n);
    const contentsBefore = await contents();
    const big = await syntheticWorkspace(root, 1_500, 2_000);
    // A SHARE lock on the generations table lets readers read and stops the publisher at its last
    // step, its generation's row, after every passage and vector is sent: it is killed there, however
    // fast it sent them.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    let child: ReturnType<typeof spawn> | undefined;
    try {
      await blocker.query('BEGIN');
      await blocker.query(`LOCK TABLE ${schema.schema}.generations IN SHARE MODE`);
      child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '-e',
          `import('${resolve('src/core/index/server/publish.ts')}').then((m) => (m.publishIndex ?? m.default.publishIndex)(${JSON.stringify(indexDir(big))}, ${JSON.stringify(server())}, { publisher: 'doomed' }))`,
        ],
        { stdio: 'ignore' },
      );
      const waiting = async () =>
        (
          await query<{ n: string }>(url, `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [
            `INSERT INTO ${schema.schema}.generations%`,
          ])
        )[0].n === '1';
      for (let i = 0; i < 1200 && !(await waiting()) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(await waiting(), 'the publisher sent its rows and waits to write its generation');
      assert.deepEqual(
        (await query<{ holder: string }>(url, `SELECT holder FROM ${schema.schema}.publisher`)).map((r) => r.holder),
        ['doomed'],
        'the publisher holds the lock',
      );
      assert.equal((await currentGeneration(server()))?.id, before?.id, 'meanwhile readers read the previous generation');
      assert.equal(child.exitCode, null, 'the publication was still under way when it was killed');
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    } finally {
      if (child?.exitCode === null) child.kill('SIGKILL');
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }

    const after = await currentGeneration(server());
    assert.equal(after?.id, before?.id, 'readers still get the previous generation');
    assert.equal(await contents(), contentsBefore, 'nothing of the killed publication is left');
    const index = await openServerLibrary(member, server(), new EmbeddedProvider());
    assert.equal(index.generation, before?.id);
    assert.ok(index.size > 50);
    // The server released the dead publisher's lock: the next one publishes at once.
    const t0 = Date.now();
    const next = await publishIndex(indexDir(big), server(), { publisher: 'next', waitMs: 5_000 });
    console.log(
      `      ${next.passages.toLocaleString('en')} passages published in ${((Date.now() - t0) / 1000).toFixed(1)} s (the killed one was stopped after sending them all, before its generation)`,
    );
    // (The killed one's generation number was drawn from its sequence, which no rollback returns.)
    assert.ok(next.generation > (before?.id ?? 0));
    assert.equal((await currentGeneration(server()))?.id, next.generation);
    assert.equal(next.sources, 1_500);
    const reread = await openServerLibrary(member, server(), new EmbeddedProvider());
    assert.equal(reread.generation, next.generation);
    assert.equal(reread.size, next.passages);
  });

  it('two publishers at once take turns; one that cannot wait is told who holds the lock', async () => {
    const dir = indexDir(publisher);
    const before = (await currentGeneration(server()))!.id;
    const both = await Promise.all([publishIndex(dir, server(), { publisher: 'first' }), publishIndex(dir, server(), { publisher: 'second' })]);
    assert.deepEqual(both.map((r) => r.generation).sort(), [before + 1, before + 2]);

    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(hashtext('similar-sources:' || $1::text))", [schema.schema]);
      await holder.query(
        `INSERT INTO ${schema.schema}.publisher (holder) VALUES ('alice@lab pid 42') ON CONFLICT (one) DO UPDATE SET holder = 'alice@lab pid 42'`,
      );
      await assert.rejects(publishIndex(dir, server(), { publisher: 'bob', waitMs: 500 }), (err: Error) => {
        assert.equal(errorCode(err), 'locked');
        assert.match(err.message, /another publication .* under way \(alice@lab pid 42, since /);
        return true;
      });
    } finally {
      await holder.end();
    }
    assert.equal((await currentGeneration(server()))!.id, before + 2);
  });

  it('the roles of docs/team-library.md: the publisher publishes into its schema, the reader reads and is refused a publication', async () => {
    const sql = /```sql\n([\s\S]*?)```/.exec(readFileSync('docs/team-library.md', 'utf8'))![1];
    const tag = `${process.pid}`;
    const names = { library_publisher: `ss_pub_${tag}`, library_reader: `ss_read_${tag}`, similar_sources: `roles_${tag}` };
    const statements = sql
      .split(';')
      .map((x) => x.replace(/--.*$/gm, '').trim())
      .filter(Boolean)
      .map((x) => x.replace(/\b(library_publisher|library_reader|similar_sources)\b/g, (n) => names[n as keyof typeof names]).replace("'…'", "'secret'"));
    assert.equal(statements.length, 7, statements.join('\n'));
    const as = (role: string) => {
      const u = new URL(url);
      u.username = role;
      u.password = 'secret';
      return { url: u.toString(), schema: names.similar_sources };
    };
    try {
      for (const x of statements) await query(url, x);
      const published = await publishIndex(indexDir(publisher), as(names.library_publisher), { publisher: 'the lab' });
      assert.equal(published.generation, 1);
      const index = await openServerLibrary(member, as(names.library_reader), new EmbeddedProvider());
      assert.equal(index.size, published.passages);
      assert.equal((await index.search('grain prices', { k: 3 })).length, 3);
      await assert.rejects(publishIndex(indexDir(publisher), as(names.library_reader), { publisher: 'reader', waitMs: 500 }), (err: Error) => {
        assert.match(err.message, /permission denied/);
        return true;
      });
      assert.equal((await currentGeneration(as(names.library_reader)))!.id, 1);
    } finally {
      await query(url, `DROP SCHEMA IF EXISTS ${names.similar_sources} CASCADE`);
      for (const role of [names.library_reader, names.library_publisher]) {
        await query(url, `DROP OWNED BY ${role}`).catch(() => undefined);
        await query(url, `DROP ROLE IF EXISTS ${role}`);
      }
    }
  });
});
