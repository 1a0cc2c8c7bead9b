/**
 * A tiny real HTTP server speaking the part of the Ollama API our client uses, so tests exercise
 * the actual `ollama` package, fetch, timeouts and aborts without an Ollama install.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOllamaOptions {
  /** Models the server "has"; default ['nomic-embed-text', 'llama3.2']. */
  models?: string[];
  /** Models reported with the 'completion' capability only; default ['llama3.2']. */
  chatModels?: string[];
  /** Embedding length; default 64. */
  dimension?: number;
  /** Delay before every answer, in ms. */
  latencyMs?: number;
  /** 1-based request numbers (counting every request) answered with HTTP 500. */
  failRequests?: number[];
  /** Text for /api/generate; default echoes a fixed answer. */
  generate?: (prompt: string, model: string) => string;
  /** Answer /api/embed with this body instead (to test malformed responses). */
  embedOverride?: (input: string[]) => unknown;
  /** Answer /api/embed (request number `n`) with this raw text when it returns one (invalid JSON, NaN…). */
  embedRaw?: (input: string[], n: number) => string | undefined;
  /** Answer /api/generate with this raw text instead (invalid JSON). */
  generateRaw?: string;
  /** 1-based request numbers whose connection is cut without an answer. */
  dropRequests?: number[];
  /** 1-based request numbers never answered (the connection stays open until close()). */
  hangRequests?: number[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: any;
  /** For /api/embed: how many texts were in the batch. */
  batchSize?: number;
}

export interface FakeOllama {
  url: string;
  requests: RecordedRequest[];
  /** Batch sizes of the /api/embed calls, in order. */
  embedBatchSizes(): number[];
  close(): Promise<void>;
}

/** Deterministic hashed bag of words: texts sharing words get similar vectors. */
export function fakeEmbedding(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  v[0] = 0.01; // never a zero vector, like a real model
  const words = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  for (const w of words) {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    h >>>= 0;
    v[h % dimension] += h & 0x100 ? 1 : -1;
  }
  return v;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return; // the client gave up (timeout/abort)
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

const baseName = (m: string) => m.replace(/:latest$/, '');

export async function startFakeOllama(opts: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = opts.models ?? ['nomic-embed-text', 'llama3.2'];
  const chatModels = new Set(opts.chatModels ?? ['llama3.2']);
  const dimension = opts.dimension ?? 64;
  const requests: RecordedRequest[] = [];
  const has = (m: unknown) => typeof m === 'string' && models.some((x) => baseName(x) === baseName(m));

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const path = (req.url ?? '/').split('?')[0];
    const rec: RecordedRequest = { method: req.method ?? 'GET', path, body };
    requests.push(rec);
    const n = requests.length;

    if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
    if (opts.hangRequests?.includes(n)) return;
    if (opts.dropRequests?.includes(n)) return void res.socket?.destroy();
    if (opts.failRequests?.includes(n)) return sendJson(res, 500, { error: `simulated failure of request ${n}` });
    const notFound = (m: unknown) => sendJson(res, 404, { error: `model "${m}" not found, try pulling it first` });

    if (req.method === 'GET' && path === '/api/tags') {
      return sendJson(res, 200, {
        models: models.map((name) => ({ name, model: name, size: 1, digest: 'fake', details: {} })),
      });
    }
    if (req.method === 'GET' && path === '/api/version') return sendJson(res, 200, { version: '0.0.0-fake' });
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });

    if (path === '/api/show') {
      const m = body?.model ?? body?.name;
      if (!has(m)) return notFound(m);
      return sendJson(res, 200, {
        details: { family: 'fake' },
        model_info: {},
        capabilities: chatModels.has(baseName(m)) ? ['completion'] : ['embedding'],
      });
    }
    if (path === '/api/embed') {
      if (!has(body?.model)) return notFound(body?.model);
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input ?? ''];
      rec.batchSize = input.length;
      if (opts.embedOverride) return sendJson(res, 200, opts.embedOverride(input));
      const raw = opts.embedRaw?.(input, n);
      if (raw !== undefined) {
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
        return void res.end(raw);
      }
      return sendJson(res, 200, { model: body.model, embeddings: input.map((t) => fakeEmbedding(t, dimension)) });
    }
    if (path === '/api/generate') {
      if (!has(body?.model)) return notFound(body?.model);
      if (opts.generateRaw !== undefined) {
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
        return void res.end(opts.generateRaw);
      }
      const text = opts.generate ? opts.generate(String(body.prompt ?? ''), body.model) : 'fake answer';
      return sendJson(res, 200, { model: body.model, created_at: new Date().toISOString(), response: text, done: true });
    }
    return sendJson(res, 404, { error: `unknown endpoint ${path}` });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    embedBatchSizes: () => requests.filter((r) => r.path === '/api/embed').map((r) => r.batchSize ?? 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // do not wait for delayed answers
        server.close(() => resolve());
      }),
  };
}

/** A URL nothing listens on: bind a port, then release it. */
export async function closedPortUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}
