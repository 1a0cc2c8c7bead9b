import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { CallToolRequestSchema, InitializeRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineTransport, type ParamsSchema, type StopReason } from '../../src/cli/mcpTransport';

/** The transport over two in-memory pipes: what it passes on, what it answers itself, what it logs. */
function harness(maxMessageBytes = 1000) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: Array<Record<string, unknown>> = [];
  let pendingOut = '';
  output.on('data', (d: Buffer) => {
    pendingOut += d.toString();
    const lines = pendingOut.split('\n');
    pendingOut = lines.pop()!;
    for (const l of lines) written.push(JSON.parse(l) as Record<string, unknown>);
  });
  const logged: string[] = [];
  const received: JSONRPCMessage[] = [];
  const stops: StopReason[] = [];
  const requestSchemas = new Map<string, ParamsSchema>([
    ['initialize', InitializeRequestSchema],
    ['tools/call', CallToolRequestSchema],
  ]);
  const t = new LineTransport(input, output, { maxMessageBytes, requestSchemas, log: (l) => logged.push(l) });
  t.onmessage = (m) => received.push(m);
  t.onstop = (r) => stops.push(r);
  const tick = () => new Promise((r) => setImmediate(r));
  return { input, t, written, logged, received, stops, tick };
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('MCP line transport (mcpTransport.ts)', () => {
  it('frames lines however the chunks fall: split, several in one chunk, CRLF, a last line without its newline', async () => {
    const h = harness();
    await h.t.start();
    const text = `${INIT}\r\n${ping(1)}\n\n${ping(2)}\n${ping(3)}`;
    for (let i = 0; i < text.length; i += 7) h.input.write(text.slice(i, i + 7));
    h.input.end();
    await h.tick();
    assert.deepEqual(
      h.received.map((m) => (m as { id: number }).id),
      [0, 1, 2, 3],
    );
    assert.deepEqual(h.written, []);
    assert.deepEqual(h.stops, [{ code: 0, message: 'client closed stdin', drain: true }]);
  });

  it('takes a line of exactly the limit and refuses one byte more, at once, then serves the next line of the same chunk', async () => {
    const h = harness(100);
    await h.t.start();
    // (ping is served before initialize, as MCP allows)
    const exact = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }).padEnd(100, ' ');
    assert.equal(Buffer.byteLength(exact), 100);
    h.input.write(`${exact}\n`);
    await h.tick();
    // The refusal comes before the line's end has arrived.
    h.input.write(`${exact} `);
    await h.tick();
    assert.equal(h.written.length, 1);
    assert.deepEqual(h.written[0], {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: the message is longer than 100 bytes (the limit of one line); it was not read',
        data: { maxBytes: 100 },
      },
    });
    h.input.write(`${'x'.repeat(5000)}\n${ping(6)}\n`);
    await h.tick();
    assert.deepEqual(
      h.received.map((m) => (m as { id: number }).id),
      [5, 6],
    );
    assert.equal(h.written.length, 1, 'one refusal for the whole long line');
    assert.match(h.logged[0], /longer than 100 bytes/);
  });

  it('a byte order mark opening a line is dropped; one anywhere else, or bytes that are not UTF-8, are parse errors', async () => {
    const h = harness();
    await h.t.start();
    h.input.write(`\uFEFF${INIT}\n`);
    h.input.write(`{"jsonrpc":"2.0",\uFEFF"id":1,"method":"ping"}\n`);
    h.input.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":2,"method":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]));
    await h.tick();
    assert.deepEqual(
      h.received.map((m) => (m as { id: number }).id),
      [0],
    );
    assert.deepEqual(
      h.written.map((w) => [w.id, (w.error as { code: number }).code]),
      [
        [null, -32700],
        [null, -32700],
      ],
    );
    assert.equal((h.written[1].error as { message: string }).message, 'Parse error: the line is not UTF-8');
  });

  it('answers what is no JSON-RPC message -32600 (with its id where it has one) and ignores a malformed response', async () => {
    const h = harness();
    await h.t.start();
    for (const line of [
      '{"jsonrpc":"2.0","id":1}',
      '[]',
      '42',
      '{"jsonrpc":"1.0","id":"a","method":"ping"}',
      '{"jsonrpc":"2.0","id":2,"method":"ping","params":[1]}',
      '{"jsonrpc":"2.0","id":3.5,"method":"ping"}',
      '{"jsonrpc":"2.0","id":4,"method":"ping","extra":1}',
      '{"jsonrpc":"2.0","id":7,"result":5}',
    ])
      h.input.write(line + '\n');
    await h.tick();
    assert.deepEqual(
      h.written.map((w) => [w.id, (w.error as { code: number; message: string }).code, (w.error as { message: string }).message]),
      [
        [1, -32600, 'Invalid Request: a request needs a "method"'],
        [null, -32600, 'Invalid Request: batches are not supported (one message a line)'],
        [null, -32600, 'Invalid Request: a message is a JSON object, not a number'],
        ['a', -32600, 'Invalid Request: "jsonrpc" must be "2.0"'],
        [2, -32600, 'Invalid Request: "params" must be an object'],
        [null, -32600, 'Invalid Request: "id" must be a string or an integer'],
        [4, -32600, 'Invalid Request: unexpected member "extra"'],
      ],
    );
    assert.deepEqual(h.received, []);
  });

  it('refuses requests before initialize, except ping, and ignores notifications then; checks params against the schemas', async () => {
    const h = harness(10_000);
    await h.t.start();
    h.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`);
    h.input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    h.input.write(`${ping(2)}\n`);
    h.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { capabilities: {} } })}\n`);
    h.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' })}\n`);
    await h.tick();
    assert.deepEqual(
      h.received.map((m) => (m as { id: number }).id),
      [2],
    );
    assert.deepEqual(
      h.written.map((w) => [w.id, (w.error as { code: number }).code, (w.error as { message: string }).message]),
      [
        [1, -32600, 'the server is not initialized: send "initialize" before "tools/list"'],
        [3, -32602, 'initialize: params.protocolVersion is required (a string); params.clientInfo is required (an object)'],
        [4, -32600, 'the server is not initialized: send "initialize" before "tools/list"'],
      ],
    );
    h.input.write(`${INIT}\n`);
    h.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'search', arguments: 'grain' } })}\n`);
    h.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' })}\n`);
    await h.tick();
    assert.deepEqual(
      h.received.map((m) => (m as { id: number }).id),
      [2, 0, 6],
    );
    assert.deepEqual(h.written[3], { jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'tools/call: params.arguments must be an object, not a string' } });
  });

  it('the end of input waits for the requests passed on: their responses, or their cancellation', async () => {
    const h = harness();
    await h.t.start();
    h.input.write(`${INIT}\n${ping(1)}\n${ping(2)}\n${ping(3)}\n`);
    h.input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } })}\n`);
    h.input.end();
    await h.tick();
    let settled: boolean | undefined;
    void h.t.settled(5_000).then((s) => (settled = s));
    await h.t.send({ jsonrpc: '2.0', id: 0, result: {} });
    await h.t.send({ jsonrpc: '2.0', id: 1, result: {} });
    await h.tick();
    assert.equal(settled, undefined, 'ping 2 is still unanswered (ping 3 was cancelled)');
    await h.t.send({ jsonrpc: '2.0', id: 2, result: {} });
    await h.tick();
    assert.equal(settled, true);
    assert.equal(await h.t.settled(10), true);
  });
});
