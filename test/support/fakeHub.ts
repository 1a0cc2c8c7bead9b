/**
 * A small HTTP server in the Hugging Face Hub's URL layout, on 127.0.0.1: `HEAD|GET
 * /<org>/<name>/resolve/<revision>/<path>`. Large files (".onnx") behave as LFS files do on the
 * Hub: the resolve URL redirects (302) to a CDN URL and carries X-Linked-Size, X-Linked-Etag
 * (the SHA-256) and X-Repo-Commit; small files are served directly with Content-Length and a
 * git-blob ETag. The CDN honours Range. Faults can be injected per file.
 */
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeHubOptions {
  /** repo id → path → bytes. */
  repos: Record<string, Record<string, Uint8Array>>;
  revision?: string;
  commit?: string;
  /** Close the connection after this many body bytes, on the first GET of each listed file. */
  interruptAfter?: Record<string, number>;
  /** Serve these files with one byte changed (headers still announce the true hash). */
  corrupt?: string[];
  /** Send this many body bytes of the listed files, then stall (send nothing more). */
  stallAfter?: Record<string, number>;
}

export interface FakeHub {
  url: string;
  /** Every request: method, path, Range header. */
  requests: { method: string; path: string; range?: string }[];
  close(): Promise<void>;
}

const isLfs = (path: string) => path.endsWith('.onnx');

export async function startFakeHub(opts: FakeHubOptions): Promise<FakeHub> {
  const revision = opts.revision ?? 'main';
  const commit = opts.commit ?? 'c0ffee'.padEnd(40, '0');
  const requests: FakeHub['requests'] = [];
  const interrupted = new Set<string>();
  const blobs = new Map<string, { path: string; data: Uint8Array }>();
  for (const [repo, files] of Object.entries(opts.repos)) {
    for (const [path, data] of Object.entries(files)) blobs.set(createHash('sha256').update(data).digest('hex'), { path: `${repo}/${path}`, data });
  }
  const sockets = new Set<import('node:net').Socket>();

  const sendBody = (res: ServerResponse, key: string, data: Uint8Array, range: string | undefined, method: string) => {
    let start = 0;
    const m = range && /^bytes=(\d+)-$/.exec(range);
    if (m) start = Number(m[1]);
    if (start >= data.length && m) {
      res.writeHead(416, { 'Content-Range': `bytes */${data.length}` }).end();
      return;
    }
    let body = Buffer.from(data.subarray(start));
    if (opts.corrupt?.some((f) => key.endsWith(f)) && body.length > 0) {
      body = Buffer.from(body);
      body[body.length - 1] ^= 0xff;
    }
    const headers: Record<string, string | number> = { 'Content-Length': body.length, 'Accept-Ranges': 'bytes' };
    if (m) headers['Content-Range'] = `bytes ${start}-${data.length - 1}/${data.length}`;
    res.writeHead(m ? 206 : 200, headers);
    if (method === 'HEAD') return void res.end();
    const file = Object.keys(opts.interruptAfter ?? {}).find((f) => key.endsWith(f));
    if (file && !interrupted.has(key)) {
      interrupted.add(key);
      res.write(body.subarray(0, opts.interruptAfter![file]), () => res.socket?.destroy());
      return;
    }
    const stallFile = Object.keys(opts.stallAfter ?? {}).find((f) => key.endsWith(f));
    if (stallFile) {
      res.write(body.subarray(0, opts.stallAfter![stallFile]));
      return; // never ends: the client's stall timeout must fire
    }
    res.end(body);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const range = req.headers.range;
    requests.push({ method: req.method ?? 'GET', path: url.pathname, range });
    const cdn = /^\/cdn\/([0-9a-f]{64})$/.exec(url.pathname);
    if (cdn) {
      const blob = blobs.get(cdn[1]);
      if (!blob) return void res.writeHead(404).end();
      return sendBody(res, blob.path, blob.data, range, req.method ?? 'GET');
    }
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const repo = m && opts.repos[m[1]];
    const path = m && decodeURIComponent(m[3]);
    const data = repo && path ? repo[path] : undefined;
    if (!m || decodeURIComponent(m[2]) !== revision || !data) {
      return void res.writeHead(404, { 'Content-Type': 'text/plain', 'X-Error-Code': 'EntryNotFound' }).end('Entry not found');
    }
    const sha = createHash('sha256').update(data).digest('hex');
    if (isLfs(path!)) {
      return void res
        .writeHead(302, { Location: `/cdn/${sha}`, 'X-Linked-Size': data.length, 'X-Linked-Etag': `"${sha}"`, 'X-Repo-Commit': commit, 'Content-Length': 0 })
        .end();
    }
    const gitSha = createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
    res.setHeader('ETag', `"${gitSha}"`);
    res.setHeader('X-Repo-Commit', commit);
    sendBody(res, `${m[1]}/${path}`, data, range, req.method ?? 'GET');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
