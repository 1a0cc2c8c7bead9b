/**
 * A small server speaking OpenAI's `POST /v1/embeddings` on 127.0.0.1, as LM Studio, llama.cpp's
 * server or vLLM do, with faults on demand.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeEmbedding } from './fakeOllama';

export interface FakeOpenAIOptions {
  apiKey?: string;
  models?: string[];
  dimension?: number;
  /** Answer with this raw body (status 200) instead. */
  rawBody?: (input: string[]) => string;
  /** Delay before answering, in ms. */
  latencyMs?: number;
  /** Send the vectors in reverse order (with their `index`), as some servers may. */
  reverse?: boolean;
}

export async function startFakeOpenAI(
  opts: FakeOpenAIOptions = {},
): Promise<{ url: string; requests: { auth?: string; body: any }[]; close(): Promise<void> }> {
  const requests: { auth?: string; body: any }[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const answer = () => {
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') return void res.writeHead(404).end();
        const body = JSON.parse(raw);
        requests.push({ auth: req.headers.authorization, body });
        if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
          return void res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
        }
        if (!(opts.models ?? ['nomic-embed-text-v1.5']).includes(body.model)) {
          return void res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: `model ${body.model} not found` } }));
        }
        const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
        if (opts.rawBody) return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(opts.rawBody(input));
        const data = input.map((t, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(t, opts.dimension ?? 48) }));
        if (opts.reverse) data.reverse();
        res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
      };
      if (opts.latencyMs) setTimeout(answer, opts.latencyMs);
      else answer();
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}
