/**
 * The one way this folder talks to Zotero's HTTP server on the loopback (local API, Better
 * BibTeX): Node's fetch with a timeout joined to the caller's signal, and a bound on the bytes
 * read, so a misbehaving server can neither hang a read nor fill memory.
 */

export const ZOTERO_BASE_URL = 'http://127.0.0.1:23119';

export interface ZoteroHttpOptions {
  /** Per request, from the first byte sent to the last read (default 15 s). */
  timeoutMs?: number;
  /** Largest body read; a larger one fails the request (default 64 MiB). */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface ZoteroHttpResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** Why a request got no HTTP answer at all: nothing listens, it timed out, or the caller aborted. */
export class ZoteroHttpError extends Error {
  constructor(
    message: string,
    readonly reason: 'refused' | 'timeout' | 'aborted' | 'too-large' | 'network',
  ) {
    super(message);
    this.name = 'ZoteroHttpError';
  }
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export async function zoteroRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  opts: ZoteroHttpOptions = {},
): Promise<ZoteroHttpResponse> {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  try {
    // redirect: 'manual' — `items/<key>/file` answers 302 to a file:// URL, which fetch cannot follow.
    const res = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, signal, redirect: 'manual' });
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel();
      throw new ZoteroHttpError(`${url} answered ${declared} bytes, more than the ${maxBytes} read at most`, 'too-large');
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel();
          throw new ZoteroHttpError(`${url} answered more than the ${maxBytes} bytes read at most`, 'too-large');
        }
        chunks.push(value);
      }
    }
    return { status: res.status, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') };
  } catch (err) {
    if (err instanceof ZoteroHttpError) throw err;
    if (opts.signal?.aborted) throw new ZoteroHttpError(`request to ${url} was cancelled`, 'aborted');
    if (timeout.aborted) throw new ZoteroHttpError(`${url} did not answer within ${opts.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`, 'timeout');
    const code = causeCode(err);
    if (code === 'ECONNREFUSED') throw new ZoteroHttpError(`nothing answers at ${new URL(url).host}`, 'refused');
    throw new ZoteroHttpError(`${url}: ${code ?? (err instanceof Error ? err.message : String(err))}`, 'network');
  }
}

function causeCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown; errors?: { code?: unknown }[] } })?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  // Node reports a refused dual-stack connection as an AggregateError of per-address failures.
  const inner = cause?.errors?.find((e) => typeof e?.code === 'string');
  return inner ? String(inner.code) : undefined;
}
