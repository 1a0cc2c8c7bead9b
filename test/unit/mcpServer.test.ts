import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    writeFileSync(
      join(ws, 'chapter.md'),
      'Fine: “no grain could leave a port without a tratta” [@whitfield2019grain, p. 214].\nAnd [@whitfeld2019grain, p. 3].\n',
    );
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
    if (process.env.SS_MCP_TRANSCRIPT)
      writeFileSync(process.env.SS_MCP_TRANSCRIPT, transcript.map((t) => `${t.dir} ${JSON.stringify(t.message)}`).join('\n') + '\n');
    rmSync(root, { recursive: true, force: true });
  });

  it('initializes, and lists the three read-only tools with their JSON-schema inputs', async () => {
    assert.equal(client.getServerVersion()?.name, 'similar-sources');
    assert.ok(client.getServerCapabilities()?.tools && client.getServerCapabilities()?.resources);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search', 'sources_for', 'check_citations'],
    );
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
    assert.deepEqual(
      (dataOf(c).citations as Array<{ status: string }>).map((x) => x.status),
      ['unknown-key', 'ok'],
    );
  });

  it('a bad call gets an error result and the server goes on serving', async () => {
    const bad = [
      await client.callTool({ name: 'search', arguments: {} }),
      await client.callTool({ name: 'search', arguments: { query: 'grain', k: 500 } }),
      await client.callTool({ name: 'search', arguments: { query: ['grain'] } }),
      await client.callTool({ name: 'no_such_tool', arguments: {} }),
      await client.callTool({ name: 'check_citations', arguments: { path: '../../etc/passwd' } }),
    ];
    assert.deepEqual(
      bad.map((r) => r.isError),
      [true, true, true, true, true],
    );
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
    assert.deepEqual(
      resources.map((r) => r.uri),
      ['similar-sources://index/status'],
    );
    const { contents } = await client.readResource({ uri: 'similar-sources://index/status' });
    const status = JSON.parse(String((contents[0] as { text: string }).text)) as { health: { state: string; sources: number } };
    assert.equal(status.health.state, 'ready');
    assert.ok(status.health.sources >= 10);
  });

  it('keeps its loaded index until the library changes on disk, then answers from the new one', async () => {
    const query = 'Lighthouse keepers of the Faroe Islands logged every whale stranding in brass ledgers';
    const before = dataOf(await client.callTool({ name: 'search', arguments: { query, k: 1 } })).passages as Array<{ title: string }>;
    assert.notEqual(before[0]?.title, 'Ledgers of the Faroe Lighthouses');
    writeFileSync(
      join(ws, 'library', 'faroe.pdf'),
      buildPdf({
        info: { Title: 'Ledgers of the Faroe Lighthouses' },
        pages: [{ paragraphs: [`${query}, from 1830 to 1910, with the weather of each day.`] }],
      }),
    );
    cli(['index', '--workspace', '.', '--provider', 'embedded', '--ocr', 'off'], ws);
    const after = dataOf(await client.callTool({ name: 'search', arguments: { query, k: 1 } })).passages as Array<{ title: string }>;
    assert.equal(after[0].title, 'Ledgers of the Faroe Lighthouses');
  });

  it('wrote nothing but protocol messages on stdout (its lines went to stderr)', () => {
    assert.deepEqual(
      transportErrors.map((e) => e.message),
      [],
    );
    assert.match(stderr.join(''), /serving the library of .*examples on stdio/);
    assert.ok(transcript.length >= 20 && transcript.every((t) => t.message.jsonrpc === '2.0'));
  });
});

/**
 * The server driven line by line, as a fuzzer or a broken client would: raw bytes on stdin, each
 * stdout line parsed, stderr kept.
 */
class RawSession {
  readonly child: ChildProcessWithoutNullStreams;
  readonly replies: Array<Record<string, unknown>> = [];
  stderr = '';
  private out = '';
  private wake?: () => void;
  readonly exited: Promise<number | null>;

  constructor(ws: string) {
    this.child = spawn(process.execPath, [CLI, 'mcp', '--workspace', ws], { cwd: ws });
    this.child.stdout.on('data', (d: Buffer) => {
      this.out += d.toString();
      const lines = this.out.split('\n');
      this.out = lines.pop()!;
      for (const l of lines) this.replies.push(JSON.parse(l) as Record<string, unknown>);
      this.wake?.();
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.child.stdin.on('error', () => {}); // a refused write shows in the exit, not here
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => (this.child.stdin.write(data) ? resolve() : this.child.stdin.once('drain', () => resolve())));
  }

  /** The next stdout message, in order (none other is skipped). */
  async next(): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 60_000;
    while (this.replies.length === 0) {
      assert.ok(Date.now() < deadline, `no reply; stderr:\n${this.stderr}`);
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 200);
      });
    }
    return this.replies.shift()!;
  }

  async request(line: string | Buffer): Promise<Record<string, unknown>> {
    await this.write(line);
    return this.next();
  }

  /** The peak resident memory of the server so far (VmHWM), in MB; undefined where /proc is not. */
  peakMb(): number | undefined {
    if (!existsSync(`/proc/${this.child.pid}/status`)) return undefined;
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.child.pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  }
}

const line = (o: object) => JSON.stringify(o) + '\n';
const INITIALIZE = line({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const errorOf = (reply: Record<string, unknown>) => reply.error as { code: number; message: string; data?: unknown };

describe('MCP server (dist/cli.js mcp) as a server: malformed, over-long and early lines, and how it stops', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-mcp-raw-'));
  const ws = join(root, 'examples');
  let s: RawSession;

  before(() => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    cpSync(resolve('examples'), ws, { recursive: true, filter: (src) => !src.includes('.similar-sources') });
    cli(['index', '--workspace', '.', '--provider', 'embedded', '--ocr', 'off'], ws);
    s = new RawSession(ws);
  });
  after(async () => {
    if (s && s.child.exitCode === null) {
      s.child.kill();
      await s.exited;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses requests before initialize (ping excepted) and ignores notifications then', async () => {
    const early = await s.request(line({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    assert.equal(early.id, 1);
    assert.equal(errorOf(early).code, -32600);
    assert.match(errorOf(early).message, /^the server is not initialized/);
    await s.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    // No reply to the notification: the next one is the ping's.
    assert.deepEqual(await s.request(line({ jsonrpc: '2.0', id: 2, method: 'ping' })), { jsonrpc: '2.0', id: 2, result: {} });
    const init = await s.request(INITIALIZE);
    assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, 'similar-sources');
    await s.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const tools = await s.request(line({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    assert.equal((tools.result as { tools: unknown[] }).tools.length, 3);
  });

  it('answers a line that is not JSON -32700 with id null, and serves a line opening with a byte order mark', async () => {
    const garbage = await s.request('this is not json {\n');
    assert.equal(garbage.id, null);
    assert.equal(errorOf(garbage).code, -32700);
    assert.match(errorOf(garbage).message, /^Parse error/);
    const invalidUtf8 = await s.request(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    assert.deepEqual([invalidUtf8.id, errorOf(invalidUtf8).code], [null, -32700]);
    // Documented: one leading U+FEFF on a line is dropped (RFC 8259 lets a parser ignore it).
    const bom = await s.request('\uFEFF' + line({ jsonrpc: '2.0', id: 4, method: 'tools/list' }));
    assert.equal(bom.id, 4);
    assert.equal((bom.result as { tools: unknown[] }).tools.length, 3);
  });

  it('answers JSON that is no JSON-RPC request -32600, with its id where it has one', async () => {
    const noMethod = await s.request('{"jsonrpc":"2.0","id":1}\n');
    assert.deepEqual(noMethod, { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid Request: a request needs a "method"' } });
    const batch = await s.request('[{"jsonrpc":"2.0","id":5,"method":"ping"}]\n');
    assert.deepEqual([batch.id, errorOf(batch).code], [null, -32600]);
    const scalar = await s.request('"ping"\n');
    assert.deepEqual([scalar.id, errorOf(scalar).code], [null, -32600]);
  });

  it("answers invalid params -32602 with a short message, not the schema library's JSON", async () => {
    const cases: Array<[object, string]> = [
      [{ method: 'tools/call', params: { arguments: { query: 'grain' } } }, 'tools/call: params.name is required (a string)'],
      [{ method: 'tools/call', params: { name: 'search', arguments: 'grain' } }, 'tools/call: params.arguments must be an object, not a string'],
      [{ method: 'tools/call' }, 'tools/call: params is required (an object)'],
      [{ method: 'resources/read', params: { uri: 7 } }, 'resources/read: params.uri must be a string, not a number'],
    ];
    let id = 10;
    for (const [request, message] of cases) {
      const reply = await s.request(line({ jsonrpc: '2.0', id: ++id, ...request }));
      assert.deepEqual(reply, { jsonrpc: '2.0', id, error: { code: -32602, message } });
    }
    // A wrong argument inside a known tool's arguments stays a tool error the model can read.
    const tool = await s.request(line({ jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'search', arguments: { query: 3 } } }));
    assert.equal((tool.result as { isError: boolean }).isError, true);
    const unknown = await s.request(line({ jsonrpc: '2.0', id: 21, method: 'resources/read', params: { uri: 'similar-sources://nothing' } }));
    assert.equal(errorOf(unknown).code, -32002);
  });

  it('answers a 256 MiB line at once with -32600, says the limit on stderr, holds none of it, and serves the next line', async () => {
    // Loaded and warmed first, so that the peak measured before is the server's own.
    const warm = await s.request(
      line({ jsonrpc: '2.0', id: 30, method: 'tools/call', params: { name: 'search', arguments: { query: 'grain permits', k: 1 } } }),
    );
    assert.notEqual((warm.result as { isError?: boolean }).isError, true);
    const peakBefore = s.peakMb();
    await s.write('{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"search","arguments":{"query":"');
    const mib = Buffer.alloc(1 << 20, 'a');
    for (let i = 0; i < 256; i++) await s.write(mib);
    const refused = await s.next();
    await s.write('"}}}\n');
    assert.equal(refused.id, null);
    assert.equal(errorOf(refused).code, -32600);
    assert.match(errorOf(refused).message, /longer than 4194304 bytes/);
    assert.deepEqual(errorOf(refused).data, { maxBytes: 4194304 });
    const tools = await s.request(line({ jsonrpc: '2.0', id: 32, method: 'tools/list' }));
    assert.equal((tools.result as { tools: unknown[] }).tools.length, 3);
    assert.match(s.stderr, /refused a message \(-32600\): .*longer than 4194304 bytes/);
    assert.match(s.stderr, /messages up to 4 MiB a line/);
    const peakAfter = s.peakMb();
    if (peakBefore !== undefined && peakAfter !== undefined) {
      // A bound, not a timing: holding the line would add 256 MB at least.
      assert.ok(peakAfter - peakBefore < 100, `peak resident memory grew from ${peakBefore.toFixed(0)} to ${peakAfter.toFixed(0)} MB`);
      assert.ok(peakAfter < 400, `peak resident memory ${peakAfter.toFixed(0)} MB`);
    }
  });

  it('stops when the client closes stdin: the request under way answered first, exit 0 and a line on stderr', async () => {
    await s.write(
      line({ jsonrpc: '2.0', id: 40, method: 'tools/call', params: { name: 'search', arguments: { query: 'Sicilian grain export permits', k: 1 } } }),
    );
    s.child.stdin.end();
    assert.equal(await s.exited, 0);
    const answer = s.replies.find((r) => r.id === 40);
    assert.ok(answer && !(answer.result as { isError?: boolean }).isError, JSON.stringify(answer));
    assert.match(s.stderr, /similar-sources mcp: client closed stdin, stopping\n/);
  });

  it('stops on SIGTERM with a line and 143, and on a closed stdout with a line and 1', async () => {
    const term = new RawSession(ws);
    await term.request(INITIALIZE);
    term.child.kill('SIGTERM');
    assert.equal(await term.exited, 143);
    assert.match(term.stderr, /similar-sources mcp: terminated \(SIGTERM\), stopping\n/);

    const gone = new RawSession(ws);
    await gone.request(INITIALIZE);
    gone.child.stdout.destroy();
    await gone.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    assert.equal(await gone.exited, 1);
    assert.match(gone.stderr, /similar-sources mcp: stdout is closed \(the client stopped reading\), stopping\n/);
  });
});
