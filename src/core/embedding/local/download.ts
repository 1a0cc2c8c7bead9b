/**
 * Downloads a model from the Hugging Face Hub (or a mirror: HF_ENDPOINT) into the model cache:
 * `<endpoint>/<repo>/resolve/<revision>/<file>`. Each file is fetched into `<file>.part`,
 * resumed with an HTTP Range request after an interruption, checked against the size and
 * SHA-256 the Hub gives (X-Linked-Size / X-Linked-Etag for LFS files on the HEAD answer, which
 * is a redirect to the CDN; Content-Length otherwise), then renamed into place. A marker file
 * written last says the folder is complete.
 */
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { hashConfined } from '../../util/confinedFiles';
import { ProviderError } from '../provider';
import { type LocalModelOverrides, resolveModelSpec } from './models';
import { locateModel, modelFiles, writeCompleteMarker } from './modelStore';

export const DEFAULT_HF_ENDPOINT = 'https://huggingface.co';

export type DownloadFailure = 'not-found' | 'unreachable' | 'http' | 'checksum' | 'timeout' | 'aborted' | 'disk';

/** A download failure with a message that says what to do. `failure` tells the cases apart (`code` is the engine's error code). */
export class ModelDownloadError extends ProviderError {
  constructor(
    message: string,
    model: string,
    host: string,
    readonly failure: DownloadFailure,
  ) {
    const reason: ProviderError['reason'] =
      failure === 'not-found'
        ? 'unknown-model'
        : failure === 'unreachable'
          ? 'unreachable'
          : failure === 'timeout'
            ? 'timeout'
            : failure === 'aborted'
              ? 'aborted'
              : 'bad-response';
    super(message, 'local', model, host, reason);
    this.name = 'ModelDownloadError';
  }
}

export interface DownloadProgress {
  file: string;
  /** Bytes on disk for the whole model so far (resumed parts included). */
  doneBytes: number;
  /** Sum of the sizes the Hub announced (0 while unknown). */
  totalBytes: number;
}

export interface DownloadOptions {
  /** Repository id; a folder is refused (it is used as it is). */
  model: string;
  cacheDir: string;
  overrides?: LocalModelOverrides;
  /** Default: HF_ENDPOINT, else https://huggingface.co. */
  endpoint?: string;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
  /** Give up when the server sends nothing for this long (default 30 s); the part is kept. */
  stallTimeoutMs?: number;
  fetch?: typeof fetch;
}

interface Remote {
  file: string;
  url: string;
  size?: number;
  sha256?: string;
  commit?: string;
}

export function hubEndpoint(explicit?: string): string {
  return (explicit ?? process.env.HF_ENDPOINT ?? DEFAULT_HF_ENDPOINT).replace(/\/+$/, '');
}

/** The SHA-256 an ETag carries, when it is one (LFS files); a git blob hash (40 hex) is not. */
export function sha256FromEtag(etag: string | null | undefined): string | undefined {
  const m = etag?.replace(/^W\//, '').replace(/"/g, '').trim();
  return m && /^[0-9a-f]{64}$/i.test(m) ? m.toLowerCase() : undefined;
}

/** Reads a Git LFS pointer (`oid sha256:…`, `size …`): what a file must hash to. */
export function parseLfsPointer(text: string): { sha256: string; size: number } {
  const oid = /^oid sha256:([0-9a-f]{64})$/m.exec(text)?.[1];
  const size = Number(/^size (\d+)$/m.exec(text)?.[1]);
  if (!oid || !Number.isFinite(size)) throw new Error('not a Git LFS pointer (no "oid sha256:" and "size" lines)');
  return { sha256: oid, size };
}

/** Checks a file against an expected size and SHA-256; returns what is wrong, or undefined. */
export async function verifyFile(file: string, expected: { size?: number; sha256?: string }): Promise<string | undefined> {
  const size = (await fs.stat(file)).size;
  if (expected.size !== undefined && size !== expected.size) return `size ${size} bytes, expected ${expected.size}`;
  if (expected.sha256) {
    const got = await hashFile(file);
    if (got !== expected.sha256) return `SHA-256 ${got}, expected ${expected.sha256}`;
  }
  return undefined;
}

function hashFile(file: string): Promise<string> {
  return hashConfined(file, { kind: 'model' });
}

/** Downloads every file the model needs; returns the folder. Files already complete are kept. */
export async function downloadModel(opts: DownloadOptions): Promise<string> {
  const spec = resolveModelSpec(opts.model, opts.overrides);
  const location = locateModel(opts.model, opts.cacheDir, spec);
  if (location.kind === 'folder')
    throw new ModelDownloadError(`"${opts.model}" is a folder: it is used as it is, nothing to download.`, opts.model, '', 'not-found');
  const endpoint = hubEndpoint(opts.endpoint);
  const ctx = new Ctx(opts, location.repo, location.revision, endpoint);
  const { required, optional } = modelFiles(spec);

  const remotes: Remote[] = [];
  for (const file of [...required, ...optional]) {
    const r = await ctx.head(file, !required.includes(file));
    if (r) remotes.push(r);
  }
  ctx.total = remotes.reduce((s, r) => s + (r.size ?? 0), 0);
  await fs.mkdir(location.dir, { recursive: true });
  for (const r of remotes) await ctx.fetchFile(r, join(location.dir, r.file));
  await writeCompleteMarker(location.dir, {
    repo: location.repo,
    revision: location.revision,
    commit: remotes.find((r) => r.commit)?.commit,
    files: Object.fromEntries(remotes.map((r) => [r.file, { size: r.size ?? 0, sha256: r.sha256 }])),
  });
  return location.dir;
}

class Ctx {
  total = 0;
  private done = 0;
  private readonly fetch: typeof fetch;
  constructor(
    private readonly opts: DownloadOptions,
    private readonly repo: string,
    private readonly revision: string,
    private readonly endpoint: string,
  ) {
    this.fetch = opts.fetch ?? fetch;
  }

  private url(file: string): string {
    return `${this.endpoint}/${this.repo}/resolve/${encodeURIComponent(this.revision)}/${file.split('/').map(encodeURIComponent).join('/')}`;
  }

  private fail(message: string, code: DownloadFailure): ModelDownloadError {
    return new ModelDownloadError(message, this.repo, this.endpoint, code);
  }

  private mapNetwork(err: unknown, file: string, timeout?: AbortSignal): ModelDownloadError {
    if (err instanceof ModelDownloadError) return err;
    if (this.opts.signal?.aborted)
      return this.fail(`Download of ${this.repo} was cancelled; what was fetched is kept and the next download resumes it.`, 'aborted');
    if (timeout?.aborted) {
      return this.fail(
        `${this.endpoint} stopped sending ${file} of ${this.repo} (nothing for ${Math.round((this.opts.stallTimeoutMs ?? 30_000) / 1000)} s). What was fetched is kept: run the download again to resume it.`,
        'timeout',
      );
    }
    const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
    const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
    return this.fail(
      `Cannot reach ${this.endpoint} to download ${this.repo} (${why}). Check the network or proxy (or HF_ENDPOINT), ` +
        'or download the model folder on another machine, copy it here and set the local model to that folder.',
      'unreachable',
    );
  }

  private httpError(status: number, file: string): ModelDownloadError {
    if (status === 404) {
      return this.fail(
        `${this.endpoint} has no ${file} in ${this.repo} at revision "${this.revision}" (HTTP 404). Check the model id, or use a folder in the transformers.js layout (config.json, tokenizer.json, onnx/model_quantized.onnx).`,
        'not-found',
      );
    }
    if (status === 401 || status === 403) {
      return this.fail(
        `${this.endpoint} refused ${file} of ${this.repo} (HTTP ${status}): the repository is private or gated. Download it yourself and set the local model to the folder.`,
        'http',
      );
    }
    return this.fail(`${this.endpoint} answered HTTP ${status} for ${file} of ${this.repo}. Try again later.`, 'http');
  }

  /** Size, SHA-256 and commit of one file; undefined for an optional file the repository lacks. */
  async head(file: string, optional: boolean): Promise<Remote | undefined> {
    const url = this.url(file);
    const timeout = AbortSignal.timeout(this.opts.stallTimeoutMs ?? 30_000);
    let res: Response;
    try {
      // Not following the redirect: the Hub puts the LFS size and hash on the redirect itself.
      res = await this.fetch(url, { method: 'HEAD', redirect: 'manual', signal: this.signalWith(timeout) });
    } catch (err) {
      throw this.mapNetwork(err, file, timeout);
    }
    if (res.status === 404 && optional) return undefined;
    if (res.status >= 400) throw this.httpError(res.status, file);
    const h = res.headers;
    const linkedSize = Number(h.get('x-linked-size') ?? NaN);
    const plainSize = res.status < 300 ? Number(h.get('content-length') ?? NaN) : NaN;
    const size = Number.isFinite(linkedSize) ? linkedSize : Number.isFinite(plainSize) ? plainSize : undefined;
    return { file, url, size, sha256: sha256FromEtag(h.get('x-linked-etag') ?? h.get('etag')), commit: h.get('x-repo-commit') ?? undefined };
  }

  async fetchFile(r: Remote, target: string): Promise<void> {
    await fs.mkdir(dirname(target), { recursive: true });
    // A file already in place from an earlier run is kept when it still checks out.
    if (await exists(target)) {
      if (!(await verifyFile(target, r))) {
        this.advance(r.file, (await fs.stat(target)).size);
        return;
      }
      await fs.rm(target, { force: true });
    }
    const part = `${target}.part`;
    let have = (await exists(part)) ? (await fs.stat(part)).size : 0;
    if (r.size !== undefined && have > r.size) {
      await fs.rm(part, { force: true });
      have = 0;
    }
    if (r.size === undefined || have < r.size) have = await this.transfer(r, part, have);
    else this.advance(r.file, have);
    const wrong = await verifyFile(part, r);
    if (wrong) {
      await fs.rm(part, { force: true });
      throw this.fail(
        `${r.file} of ${this.repo} downloaded from ${this.endpoint} does not match what the Hub announced (${wrong}). It was deleted: run the download again; if it fails again, the server (or HF_ENDPOINT mirror) serves another file.`,
        'checksum',
      );
    }
    try {
      await fs.rename(part, target);
    } catch (err) {
      throw this.fail(`Could not move ${r.file} into ${dirname(target)} (${(err as Error).message}).`, 'disk');
    }
  }

  /** GET (with Range when a part exists) appended to the part; returns the part's size. */
  private async transfer(r: Remote, part: string, have: number): Promise<number> {
    const stallMs = this.opts.stallTimeoutMs ?? 30_000;
    const stall = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const kick = () => {
      clearTimeout(timer);
      timer = setTimeout(() => stall.abort(new Error('stalled')), stallMs);
    };
    kick();
    let res: Response;
    try {
      res = await this.fetch(r.url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, signal: this.signalWith(stall.signal) });
    } catch (err) {
      clearTimeout(timer);
      throw this.mapNetwork(err, r.file, stall.signal);
    }
    if (res.status === 416 && have > 0) {
      // The part already holds the whole file (its size was unknown): verification decides.
      clearTimeout(timer);
      this.advance(r.file, have);
      return have;
    }
    if (res.status >= 400 || !res.body) {
      clearTimeout(timer);
      throw this.httpError(res.status, r.file);
    }
    // A server that ignores Range sends the whole file again (200): start the part over.
    const append = res.status === 206 && have > 0;
    if (!append) have = 0;
    this.advance(r.file, have);
    const out = await fs.open(part, append ? 'a' : 'w');
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        kick();
        await out.write(chunk);
        have += chunk.length;
        this.advance(r.file, chunk.length);
      }
    } catch (err) {
      const mapped = this.mapNetwork(err, r.file, stall.signal);
      if (mapped.failure !== 'unreachable') throw mapped;
      const why = (err as { cause?: { code?: string } })?.cause?.code ?? (err as Error).message;
      throw this.fail(
        `The transfer of ${r.file} of ${this.repo} from ${this.endpoint} was interrupted (${why}) after ${(have / 1e6).toFixed(1)} MB. What was fetched is kept: run the download again to resume it.`,
        'unreachable',
      );
    } finally {
      clearTimeout(timer);
      await out.close();
    }
    return have;
  }

  private advance(file: string, bytes: number): void {
    this.done += bytes;
    this.opts.onProgress?.({ file, doneBytes: this.done, totalBytes: this.total });
  }

  private signalWith(s: AbortSignal): AbortSignal {
    return this.opts.signal ? AbortSignal.any([s, this.opts.signal]) : s;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}
