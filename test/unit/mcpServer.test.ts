import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { buildPdf } from '../support/pdfWriter';
import { GRAIN_PARAGRAPH } from '../support/exampleDraft';

const CLI = resolve('dist/cli.js');

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 180_000 });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

type Text = { type: string; text: string };
const textOf = (r: object) => ((r as { content?: Text[] }).content ?? []).map((c) => c.text).join('\n');
const dataOf = (r: object) => {
  const t = textOf(r);
  return JSON.parse(t.slice(t.indexOf('\n') + 1)) as Record<string, unknown>;
};

describe('MCP server (dist/cli.js mcp) with the SDK client over stdio', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-mcp-'));
  const ws = join(root, 'examples');
  let client: Client;
  let transport: StdioClientTransport;
  const transportErrors: Error[] = [];
  const stderr: string[] = [];
  /** Every message both ways, as the JSON lines on the pipe. */
  const transcript: Array<{ dir: '→' | '←'; message: JSONRPCMessage }> = [];

  before(async () => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    cpSync(resolve('examples'), ws, { recursive: true, filter: (src) => !src.includes('.similar-sources') });
    cli(['index', '--workspace', '.', '--provider', 'embedded', '--ocr', 'off'], ws);
    writeFileSync(join(ws, 'chapter.md'), 'Fine: “no grain could leave a port without a tratta” [@whitfield2019grain, p. 214].\nAnd [@whitfeld2019grain, p. 3].\n');
    transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', ws], cwd: root, stderr: 'pipe' });
    transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    client = new Client({ name: 'similar-sources-test', version: '1.0.0' });
    client.onerror = (e) => transportErrors.push(e);
    // Every message recorded, initialize included: the client sets its handler just before it starts the transport.
    const send = transport.send.bind(transport);
    transport.send = (m) => (transcript.push({ dir: '→', message: m }), send(m));
    const start = transport.start.bind(transport);
    transport.start = () => {
      const receive = transport.onmessage!;
      transport.onmessage = (m) => (transcript.push({ dir: '←', message: m }), receive(m));
      return start();
    };
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
    if (process.env.SS_MCP_TRANSCRIPT) writeFileSync(process.env.SS_MCP_TRANSCRIPT, transcript.map((t) => `${t.dir} ${JSON.stringify(t.message)}`).join('\n') + '\n');
    rmSync(root, { recursive: true, force: true });
  });

  it('initializes, and lists the three read-only tools with their JSON-schema inputs', async () => {
    assert.equal(client.getServerVersion()?.name, 'similar-sources');
    assert.ok(client.getServerCapabilities()?.tools && client.getServerCapabilities()?.resources);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['search', 'sources_for', 'check_citations']);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.annotations?.readOnlyHint, true);
      assert.equal(t.annotations?.openWorldHint, false);
    }
    assert.deepEqual(tools[0].inputSchema.required, ['query']);
  });

  it('search: a paragraph of the example draft finds whitfield2019grain with its page', async () => {
    const r = await client.callTool({ name: 'search', arguments: { query: GRAIN_PARAGRAPH, k: 3 } });
    assert.notEqual(r.isError, true, textOf(r));
    const passages = dataOf(r).passages as Array<{ citekey: string; pageLabel: string; citation: string }>;
    assert.equal(passages[0].citekey, 'whitfield2019grain');
    assert.match(passages[0].pageLabel, /^21\d$/);
    assert.equal(passages[0].citation, `[@whitfield2019grain, p. ${passages[0].pageLabel}]`);
  });

  it('sources_for and check_citations answer too', async () => {
    const s = await client.callTool({ name: 'sources_for', arguments: { text: GRAIN_PARAGRAPH } });
    const cards = (dataOf(s).segments as Array<{ sources: Array<{ citekey: string; band: string }> }>)[0].sources;
    assert.equal(cards[0].citekey, 'whitfield2019grain');
    assert.equal(cards[0].band, 'strong');
    const c = await client.callTool({ name: 'check_citations', arguments: { path: 'chapter.md' } });
    assert.deepEqual((dataOf(c).citations as Array<{ status: string }>).map((x) => x.status), ['unknown-key', 'ok']);
  });

  it('a bad call gets an error result and the server goes on serving', async () => {
    const bad = [
      await client.callTool({ name: 'search', arguments: {} }),
      await client.callTool({ name: 'search', arguments: { query: 'grain', k: 500 } }),
      await client.callTool({ name: 'search', arguments: { query: ['grain'] } }),
      await client.callTool({ name: 'no_such_tool', arguments: {} }),
      await client.callTool({ name: 'check_citations', arguments: { path: '../../etc/passwd' } }),
    ];
    assert.deepEqual(bad.map((r) => r.isError), [true, true, true, true, true]);
    assert.match(textOf(bad[0]), /"query" is required/);
    assert.match(textOf(bad[1]), /"k" must be between 1 and 20/);
    assert.match(textOf(bad[2]), /"query" must be a string/);
    assert.match(textOf(bad[3]), /unknown tool "no_such_tool"/);
    assert.match(textOf(bad[4]), /the draft must lie inside the workspace/);
    const again = await client.callTool({ name: 'search', arguments: { query: 'Sicilian grain export permits', k: 1 } });
    assert.equal((dataOf(again).passages as Array<{ citekey: string }>)[0].citekey, 'whitfield2019grain');
  });

  it('the index status is a resource', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ['similar-sources://index/status']);
    const { contents } = await client.readResource({ uri: 'similar-sources://index/status' });
    const status = JSON.parse(String((contents[0] as { text: string }).text)) as { health: { state: string; sources: number } };
    assert.equal(status.health.state, 'ready');
    assert.ok(status.health.sources >= 10);
  });

  it('keeps its loaded index until the library changes on disk, then answers from the new one', async () => {
    const query = 'Lighthouse keepers of the Faroe Islands logged every whale stranding in brass ledgers';
    const before = dataOf(await client.callTool({ name: 'search', arguments: { query, k: 1 } })).passages as Array<{ title: string }>;
    assert.notEqual(before[0]?.title, 'Ledgers of the Faroe Lighthouses');
    writeFileSync(join(ws, 'library', 'faroe.pdf'), buildPdf({ info: { Title: 'Ledgers of the Faroe Lighthouses' }, pages: [{ paragraphs: [`${query}, from 1830 to 1910, with the weather of each day.`] }] }));
    cli(['index', '--workspace', '.', '--provider', 'embedded', '--ocr', 'off'], ws);
    const after = dataOf(await client.callTool({ name: 'search', arguments: { query, k: 1 } })).passages as Array<{ title: string }>;
    assert.equal(after[0].title, 'Ledgers of the Faroe Lighthouses');
  });

  it('wrote nothing but protocol messages on stdout (its lines went to stderr)', () => {
    assert.deepEqual(transportErrors.map((e) => e.message), []);
    assert.match(stderr.join(''), /serving the library of .*examples on stdio/);
    assert.ok(transcript.length >= 20 && transcript.every((t) => t.message.jsonrpc === '2.0'));
  });
});
