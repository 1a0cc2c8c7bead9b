/**
 * Fuzzing the MCP server's messages (issue 35, item 8): streams of lines a client — buggy or
 * hostile — may send, cut into chunks anywhere: well-formed requests of every method the server
 * answers with random params, the same mutated (bytes flipped, cut, spliced, duplicated), JSON of
 * every shape, random bytes and invalid UTF-8, byte order marks, CR/LF mixes, and lines past the
 * message limit. Through the server's own transport (`src/cli/mcpTransport.ts`, with the SDK's
 * request schemas, as `mcp` runs it): nothing throws; every line the server writes is a JSON-RPC
 * message; the transport answers a line at most once and passes on only valid messages, no
 * request but `ping` before `initialize`; memory stays bounded whatever a line's length; the end
 * of input is reported once.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { LineTransport, type ParamsSchema, type StopReason } from '../../src/cli/mcpTransport';
import { FUZZ_BUDGET_MS, fuzzParams } from './budget';

const MAX = 2_000;
const SCHEMAS = new Map<string, ParamsSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/read', ReadResourceRequestSchema],
]);

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
};
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.double(), fc.constant(undefined));
const json = fc.jsonValue({ maxDepth: 4 });
const request = fc.oneof(
  fc.constant(INIT),
  fc
    .tuple(id, fc.constantFrom(...SCHEMAS.keys(), 'notifications/initialized', 'notifications/cancelled', 'nope', ''), fc.option(json))
    .map(([i, method, params]) => ({ jsonrpc: '2.0', id: i, method, ...(params === null ? {} : { params }) })),
  fc
    .tuple(id, fc.constantFrom('search', 'sources_for', 'check_citations', '__proto__', ''), json)
    .map(([i, name, args]) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name, arguments: args } })),
  fc.tuple(id, json).map(([i, uri]) => ({ jsonrpc: '2.0', id: i, method: 'resources/read', params: { uri } })),
  fc.tuple(id, json).map(([i, r]) => ({ jsonrpc: '2.0', id: i, result: r })),
  json,
);

function mutate(line: string, rand: number[]): string {
  let s = line;
  for (const r of rand) {
    const at = Math.floor((r % 1) * (s.length + 1));
    switch (Math.floor(r * 7) % 7) {
      case 0:
        s = s.slice(0, at) + String.fromCharCode(Math.floor(r * 997) % 256) + s.slice(at + 1);
        break;
      case 1:
        s = s.slice(0, at);
        break;
      case 2:
        s = s.slice(0, at) + s + s.slice(at);
        break;
      case 3:
        s = '\uFEFF' + s;
        break;
      case 4:
        s = s.slice(0, at) + '\uFEFF' + s.slice(at);
        break;
      case 5:
        s = s.slice(0, at) + 'x'.repeat(Math.floor(r * 10_000)) + s.slice(at);
        break;
      default:
        s = s.slice(0, at) + '\r' + s.slice(at);
    }
  }
  return s;
}

const line = fc.oneof(
  { weight: 5, arbitrary: request.map((r) => JSON.stringify(r) ?? 'null') },
  {
    weight: 3,
    arbitrary: fc
      .tuple(request, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 3 }))
      .map(([r, rand]) => mutate(JSON.stringify(r) ?? '', rand)),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: MAX - 5, max: MAX * 20 }).map((n) => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'a'.repeat(n)}"}}`),
  },
);
/** Raw bytes too: invalid UTF-8 inside a line. */
const bytes = fc.oneof(
  { weight: 8, arbitrary: line.map((l) => Buffer.from(l)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b.filter((x) => x !== 10))) },
);
const stream = fc.tuple(
  fc.array(bytes, { minLength: 1, maxLength: 25 }),
  fc.array(fc.constantFrom('\n', '\r\n', '\n\n'), { minLength: 1, maxLength: 5 }),
  fc.integer({ min: 1, max: 4096 }),
  fc.boolean(),
);

describe('fuzz: MCP messages (the server transport)', function () {
  this.timeout(FUZZ_BUDGET_MS * 3 + 60_000);

  it('any stream of lines, chunked anywhere: answered in JSON-RPC, passed on only when valid, bounded', async () => {
    let tried = 0;
    let lines = 0;
    let answered = 0;
    let passed = 0;
    let maxHeap = 0;
    await fc.assert(
      fc.asyncProperty(stream, async ([items, eols, chunk, initFirst]) => {
        tried++;
        const input = new PassThrough();
        const output = new PassThrough();
        let outText = '';
        output.on('data', (d: Buffer) => (outText += d.toString()));
        const received: JSONRPCMessage[] = [];
        const stops: StopReason[] = [];
        const t = new LineTransport(input, output, { maxMessageBytes: MAX, requestSchemas: SCHEMAS });
        let initialized = false;
        t.onmessage = (m) => {
          received.push(m);
          if ('method' in m && m.method === 'initialize' && 'id' in m) initialized = true;
          else if ('method' in m && 'id' in m && m.id !== undefined) assert.ok(initialized || m.method === 'ping', `${m.method} passed on before initialize`);
        };
        t.onstop = (r) => stops.push(r);
        t.onerror = () => undefined;
        await t.start();
        const all = Buffer.concat([
          ...(initFirst ? [Buffer.from(JSON.stringify(INIT) + '\n')] : []),
          ...items.flatMap((b, i) => [b, Buffer.from(eols[i % eols.length])]),
        ]);
        const count = all.toString('latin1').split('\n').length - 1;
        lines += count;
        for (let i = 0; i < all.length; i += chunk) {
          input.write(all.subarray(i, i + chunk));
          if (i % (chunk * 8) === 0) await new Promise((r) => setImmediate(r));
        }
        input.end();
        await new Promise((r) => setImmediate(r));
        await new Promise((r) => setImmediate(r));
        const written = outText.split('\n').filter(Boolean);
        for (const w of written) {
          const m = JSON.parse(w) as unknown;
          assert.ok(JSONRPCMessageSchema.safeParse(m).success || (m as { id: unknown }).id === null, `not JSON-RPC: ${w.slice(0, 200)}`);
          const e = (m as { error?: { code: number; message: string } }).error;
          assert.ok(e && [-32700, -32600, -32602].includes(e.code), w.slice(0, 200));
          assert.ok(e.message.length < 600 && !/ZodError|"code":|at .*\.js:\d+/.test(e.message), e.message);
        }
        for (const m of received) assert.ok(JSONRPCMessageSchema.safeParse(m).success, JSON.stringify(m).slice(0, 200));
        assert.ok(written.length + received.length <= count + 1, `${written.length} answers and ${received.length} passed on for ${count} lines`);
        assert.equal(stops.length, 1, 'the end of input is said once');
        answered += written.length;
        passed += received.length;
        maxHeap = Math.max(maxHeap, process.memoryUsage().heapUsed);
        await t.close();
      }),
      fuzzParams(),
    );
    console.log(
      `      streams: ${tried.toLocaleString('en')} (${lines.toLocaleString('en')} lines): ${answered.toLocaleString('en')} answered by the transport, ${passed.toLocaleString('en')} passed on; heap at most ${Math.round(maxHeap / 1048576)} MB`,
    );
    assert.ok(tried > 0);
  });
});
