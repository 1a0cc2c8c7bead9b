/**
 * The one way the product reads a file (issue 35). A draft, a setting, a library, Zotero or an
 * agent names files; the product reads its own index. Every read goes through here, under one rule:
 *
 * - the name is resolved with `realpath` (links followed) and must lie within the roots the caller
 *   allows (the workspace for a draft, its `\input`s and the bibliographies it names; the library
 *   folders; Zotero's storage folder; the index folder), checked before the file system is asked
 *   anything about a name outside them (no answer says whether a file elsewhere exists), and again
 *   once links are followed;
 * - it must be a regular file: FIFOs, sockets and devices are refused on `stat`, before they are
 *   opened, and the handle is checked again after a non-blocking `open` (a file swapped meanwhile is
 *   refused, not read), so no read can wait for a writer that never comes;
 * - it is read by chunks up to a byte cap per kind, never trusting `stat.size` (0 for devices and
 *   `/proc`), within a deadline, and at most two reads at a time occupy Node's I/O threads (four):
 *   a file on a stalled disk costs its caller a timeout, never the process its I/O.
 *
 * `npm run lint:deps` keeps raw `fs` reads out of the rest of `src` (scripts/lint-reads.mjs).
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync, promises as fs, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { lineText } from '../../shared/untrusted';

const MiB = 1024 * 1024;

/** What is read, with its cap (bytes) and deadline (ms): a refusal names the kind. */
export const FILE_KINDS = {
  draft: { name: 'draft', maxBytes: 16 * MiB, deadlineMs: 30_000 },
  'latex-input': { name: 'LaTeX input file', maxBytes: 16 * MiB, deadlineMs: 30_000 },
  bibliography: { name: 'bibliography', maxBytes: 256 * MiB, deadlineMs: 60_000 },
  settings: { name: 'settings file', maxBytes: 4 * MiB, deadlineMs: 10_000 },
  pdf: { name: 'PDF', maxBytes: 512 * MiB, deadlineMs: 120_000 },
  'zotero-database': { name: "Zotero's database", maxBytes: 2048 * MiB, deadlineMs: 300_000 },
  'zotero-wal': { name: "Zotero's write-ahead log", maxBytes: 1024 * MiB, deadlineMs: 120_000 },
  'zotero-profile': { name: "Zotero's profile file", maxBytes: 16 * MiB, deadlineMs: 10_000 },
  'ocr-language': { name: 'OCR language file', maxBytes: 256 * MiB, deadlineMs: 60_000 },
  model: { name: 'model file', maxBytes: 4096 * MiB, deadlineMs: 300_000 },
  dataset: { name: 'evaluation dataset', maxBytes: 512 * MiB, deadlineMs: 120_000 },
  index: { name: 'index file', maxBytes: 2048 * MiB, deadlineMs: 120_000 },
  package: { name: 'file of Similar Sources', maxBytes: 256 * MiB, deadlineMs: 60_000 },
  system: { name: 'system file', maxBytes: 1 * MiB, deadlineMs: 5_000 },
} as const;

export type FileKind = keyof typeof FILE_KINDS;

export interface FileRule {
  kind: FileKind;
  /** Folders the file must lie in once links are followed; absent: anywhere (the user named it). */
  within?: readonly string[];
  /** The roots in words, for a refusal: "the workspace", "the library folders". */
  rootName?: string;
  /** Who named the file, for a refusal: "the draft's front matter", "\input in a.tex". */
  namedBy?: string;
  /** The setting that lets the user name a file elsewhere, said when one is refused. */
  widenedBy?: string;
  /** Overrides the kind's cap (bytes) or deadline (ms). */
  maxBytes?: number;
  deadlineMs?: number;
  signal?: AbortSignal;
}

export type RefusalCode = 'outside' | 'not-a-file' | 'too-large' | 'timeout' | 'missing' | 'unreadable' | 'cancelled';

/** A file not read, and why, in words a user can act on (the path shown is bounded and visible). */
export class FileRefused extends Error {
  readonly code: RefusalCode;
  readonly path: string;
  /** The message without the path that opens it ("is a FIFO (named pipe), …"), for a caller that names the file its own way. */
  readonly reason: string;
  constructor(code: RefusalCode, file: string, reason: string) {
    super(`${shown(file)} ${reason}`);
    this.name = 'FileRefused';
    this.code = code;
    this.path = file;
    this.reason = reason;
  }
}

export const isFileRefused = (e: unknown): e is FileRefused => e instanceof FileRefused;

/** A file that is not there: refused as missing here, or ENOENT from another fs call. */
export const isMissing = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | undefined)?.code;
  return code === 'missing' || code === 'ENOENT';
};

export interface ConfinedFile {
  /** The real path (links followed). */
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

const shown = (p: string) => lineText(p, 300);
const capOf = (rule: FileRule) => rule.maxBytes ?? FILE_KINDS[rule.kind].maxBytes;
const deadlineOf = (rule: FileRule) => rule.deadlineMs ?? FILE_KINDS[rule.kind].deadlineMs;
const sizeText = (n: number) => (n >= MiB ? `${Math.round((n / MiB) * 10) / 10} MB` : `${Math.ceil(n / 1024)} KB`);

function inside(file: string, root: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

function outsideError(asked: string, rule: FileRule, viaLink: boolean): FileRefused {
  const where = rule.rootName ?? (rule.within!.length === 1 ? shown(rule.within![0]) : 'the folders allowed');
  const what = viaLink ? `is a link to a file outside ${where}` : `is outside ${where}`;
  const by = rule.namedBy ? `; ${rule.namedBy} may not name a file elsewhere` : '';
  const widen = rule.widenedBy ? ` (name it in the setting ${rule.widenedBy} to use it)` : '';
  return new FileRefused('outside', asked, `${what}, not read${by}${widen}`);
}

function kindOfNode(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function notAFile(file: string, st: Stats, rule: FileRule): FileRefused {
  return new FileRefused('not-a-file', file, `is ${kindOfNode(st)}, not a regular file: not read as a ${FILE_KINDS[rule.kind].name}`);
}

function tooLarge(file: string, rule: FileRule): FileRefused {
  const cap = capOf(rule);
  return new FileRefused('too-large', file, `is larger than ${sizeText(cap)}, the most a ${FILE_KINDS[rule.kind].name} may be: not read`);
}

const timeout = (file: string, rule: FileRule) =>
  new FileRefused('timeout', file, `could not be read within ${Math.round(deadlineOf(rule) / 1000)} s, given up`);
const cancelled = (file: string) => new FileRefused('cancelled', file, 'was not read: cancelled');

function failure(file: string, e: unknown): FileRefused {
  if (e instanceof FileRefused) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new FileRefused('missing', file, 'does not exist');
  if (code === 'ELOOP') return new FileRefused('unreadable', file, 'changed while it was opened (now a link), not read');
  return new FileRefused('unreadable', file, `cannot be read (${code ?? (e as Error).message})`);
}

/** Roots as given and as the file system has them (a workspace reached through a link lies at both). */
function rootForms(roots: readonly string[]): string[] {
  const out = new Set<string>();
  for (const r of roots) {
    const abs = path.resolve(r);
    out.add(abs);
    try {
      out.add(realpathSync.native(abs));
    } catch {
      // A root that does not exist holds nothing: its name as given is enough.
    }
  }
  return [...out];
}

/** The name as given, inside its roots before the file system is asked anything about it. */
function nameInside(asked: string, rule: FileRule): { abs: string; roots?: string[] } {
  const abs = path.resolve(asked);
  const roots = rule.within && rootForms(rule.within);
  if (roots && !roots.some((r) => inside(abs, r))) throw outsideError(asked, rule, false);
  return { abs, roots };
}

/** The real path (links followed) inside the roots too. */
function realInside(asked: string, rule: FileRule, roots: string[] | undefined, real: string): string {
  if (roots && !roots.some((r) => inside(real, r))) throw outsideError(asked, rule, true);
  return real;
}

/** The rule's checks up to the open: inside its roots (as named, then linked), a regular file by `stat`. */
async function locate(asked: string, rule: FileRule): Promise<{ real: string; st: Stats }> {
  try {
    const { abs, roots } = nameInside(asked, rule);
    const real = realInside(asked, rule, roots, await fs.realpath(abs));
    return { real, st: regular(asked, await fs.stat(real), rule) };
  } catch (e) {
    throw failure(asked, e);
  }
}

function locateSync(asked: string, rule: FileRule): { real: string; st: Stats } {
  try {
    const { abs, roots } = nameInside(asked, rule);
    const real = realInside(asked, rule, roots, realpathSync.native(abs));
    return { real, st: regular(asked, statSync(real), rule) };
  } catch (e) {
    throw failure(asked, e);
  }
}

function regular(asked: string, st: Stats, rule: FileRule): Stats {
  if (!st.isFile()) throw notAFile(asked, st, rule);
  return st;
}

/**
 * Non-blocking (a FIFO put in the file's place after the stat opens without waiting for a writer)
 * and not through a link (the real path has none unless one was put there meanwhile).
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

// ---------------------------------------------------------------------------------------------
// Two reads at a time on the I/O threads, each within its deadline.

const SLOTS = 2;
let busy = 0;
const waiting: (() => void)[] = [];

/** A slot given back: handed to the first waiting op (still counted), else freed. */
function release(): void {
  const next = waiting.shift();
  if (next) next();
  else busy--;
}

/** The product's own files (its index, its package, /proc): not named by anyone, read without waiting for a slot. */
const OWN_KINDS: ReadonlySet<FileKind> = new Set(['index', 'package', 'system']);

/**
 * `op` run when a slot is free, answered within the deadline of the call (waiting for a slot
 * included). A late op keeps its slot until it settles (`cleanup` then takes what it made), so
 * files named from outside on a stalled disk hold two I/O threads, never all four: the index's
 * own reads (which take no slot) still get through.
 */
function scheduled<T>(asked: string, rule: FileRule, op: () => Promise<T>, cleanup?: (v: T) => void): Promise<T> {
  const ms = deadlineOf(rule);
  const slotted = !OWN_KINDS.has(rule.kind);
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const done = () => {
      if (slotted) release();
    };
    const run = () => {
      if (settled) return done();
      op().then(
        (v) => {
          done();
          if (settled) cleanup?.(v);
          else finish(() => resolve(v));
        },
        (e) => {
          done();
          finish(() => reject(failure(asked, e)));
        },
      );
    };
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      rule.signal?.removeEventListener('abort', onAbort);
      const i = waiting.indexOf(run);
      if (i >= 0) waiting.splice(i, 1);
      f();
    };
    const timer = setTimeout(() => finish(() => reject(timeout(asked, rule))), ms);
    const onAbort = () => finish(() => reject(cancelled(asked)));
    if (rule.signal?.aborted) return onAbort();
    rule.signal?.addEventListener('abort', onAbort, { once: true });
    if (!slotted) run();
    else if (busy < SLOTS) {
      busy++;
      run();
    } else waiting.push(run);
  });
}

// ---------------------------------------------------------------------------------------------
// Asynchronous reads

/** The file's real path and stat once the rule allows it, without reading it (stamps, sizes). */
export function statConfined(asked: string, rule: FileRule): Promise<ConfinedFile> {
  return scheduled(asked, rule, async () => {
    const { real, st } = await locate(asked, rule);
    return { path: real, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
  });
}

/** The file the rule allows, opened non-blocking, its handle checked again (closed if refused). */
async function opened(asked: string, rule: FileRule): Promise<{ real: string; handle: fs.FileHandle; st: Stats }> {
  const { real } = await locate(asked, rule);
  const handle = await fs.open(real, OPEN_FLAGS);
  try {
    return { real, handle, st: regular(asked, await handle.stat(), rule) };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/** Each chunk of an open file in turn, stopped at the rule's cap (and at a cancel). */
async function eachChunk(asked: string, rule: FileRule, handle: fs.FileHandle, take: (chunk: Buffer) => unknown): Promise<number> {
  const chunk = Buffer.allocUnsafe(MiB);
  let total = 0;
  for (;;) {
    if (rule.signal?.aborted) throw cancelled(asked);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return total;
    total += bytesRead;
    if (total > capOf(rule)) throw tooLarge(asked, rule);
    await take(chunk.subarray(0, bytesRead));
  }
}

/** Reads the whole file the rule allows, up to its cap. */
export function readConfined(asked: string, rule: FileRule): Promise<{ path: string; bytes: Buffer }> {
  return scheduled(asked, rule, async () => {
    const { real, handle, st } = await opened(asked, rule);
    try {
      const into = new Intake(asked, rule, st.size);
      for (let n; (n = (await handle.read(...into.space())).bytesRead) > 0;) into.took(n);
      return { path: real, bytes: into.bytes() };
    } finally {
      await handle.close();
    }
  });
}

/** readConfined as UTF-8 text (as `fs.readFile(f, 'utf8')` decodes it). */
export async function readConfinedText(asked: string, rule: FileRule): Promise<{ path: string; text: string }> {
  const { path: real, bytes } = await readConfined(asked, rule);
  return { path: real, text: bytes.toString('utf8') };
}

/**
 * An open handle on the file the rule allows, for reads of its parts (shards); the caller closes
 * it. Its size is the cap's business: a file over it is refused here.
 */
export function openConfined(asked: string, rule: FileRule): Promise<{ path: string; handle: fs.FileHandle; size: number }> {
  return scheduled(
    asked,
    rule,
    async () => {
      const { real, handle, st } = await opened(asked, rule);
      if (st.size <= capOf(rule)) return { path: real, handle, size: st.size };
      await handle.close();
      throw tooLarge(asked, rule);
    },
    (v) => void v.handle.close(),
  );
}

/** Copies the file the rule allows to `dest` (a path the product chose), by chunks up to the cap. */
export function copyConfined(asked: string, dest: string, rule: FileRule): Promise<{ path: string; size: number }> {
  return scheduled(asked, rule, async () => {
    const { real, handle } = await opened(asked, rule);
    try {
      const out = await fs.open(dest, 'w');
      try {
        return { path: real, size: await eachChunk(asked, rule, handle, (chunk) => out.write(chunk)) };
      } finally {
        await out.close();
      }
    } finally {
      await handle.close();
    }
  });
}

/** The SHA-256 (hex) of the file the rule allows, read by chunks. */
export function hashConfined(asked: string, rule: FileRule): Promise<string> {
  return scheduled(asked, rule, async () => {
    const { handle } = await opened(asked, rule);
    try {
      const hash = createHash('sha256');
      await eachChunk(asked, rule, handle, (chunk) => hash.update(chunk));
      return hash.digest('hex');
    } finally {
      await handle.close();
    }
  });
}

/**
 * A whole file's bytes as they are read, up to the cap. `stat.size` only sizes the first buffer
 * (bounded by the cap): a file that says 0 (a `/proc` file) or grows while read is read on by
 * chunks and stopped at the cap; the deadline is checked between chunks (a synchronous read has
 * no other way to keep it).
 */
class Intake {
  private buffer: Buffer;
  private used = 0;
  private readonly parts: Buffer[] = [];
  private total = 0;
  private readonly cap: number;
  private readonly until: number;

  constructor(
    private readonly asked: string,
    private readonly rule: FileRule,
    sizeHint: number,
  ) {
    this.cap = capOf(rule);
    this.until = Date.now() + deadlineOf(rule);
    if (sizeHint > this.cap) throw tooLarge(asked, rule);
    this.buffer = Buffer.allocUnsafe(Math.min(this.cap, sizeHint) + 1);
  }

  /** Where the next bytes go: buffer, offset, length, position (a new buffer once one is full). */
  space(): [Buffer, number, number, null] {
    if (this.used === this.buffer.length) {
      this.parts.push(this.buffer);
      this.buffer = Buffer.allocUnsafe(Math.min(MiB, this.cap + 1 - this.total) || 1);
      this.used = 0;
    }
    return [this.buffer, this.used, this.buffer.length - this.used, null];
  }

  took(n: number): void {
    this.used += n;
    this.total += n;
    if (this.total > this.cap) throw tooLarge(this.asked, this.rule);
    if (this.rule.signal?.aborted) throw cancelled(this.asked);
    if (Date.now() > this.until) throw timeout(this.asked, this.rule);
  }

  bytes(): Buffer {
    this.parts.push(this.buffer.subarray(0, this.used));
    return this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.total);
  }
}

// ---------------------------------------------------------------------------------------------
// Synchronous reads: for callers that cannot wait (a LaTeX project read while its draft is parsed,
// a model's files in its worker, the passages of an open shard). A regular file cannot block them;
// the deadline is checked between chunks.

export function readConfinedSync(asked: string, rule: FileRule): { path: string; bytes: Buffer } {
  const { path: real, fd, size } = openConfinedSync(asked, { ...rule, maxBytes: Number.MAX_SAFE_INTEGER });
  try {
    const into = new Intake(asked, rule, size);
    for (let n; (n = readSync(fd, ...into.space())) > 0;) into.took(n);
    return { path: real, bytes: into.bytes() };
  } catch (e) {
    throw failure(asked, e);
  } finally {
    closeSync(fd);
  }
}

/** statConfined for a caller that cannot wait: the rule's checks, nothing read. */
export function statConfinedSync(asked: string, rule: FileRule): ConfinedFile {
  const { real, st } = locateSync(asked, rule);
  return { path: real, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
}

export function readConfinedTextSync(asked: string, rule: FileRule): { path: string; text: string } {
  const { path: real, bytes } = readConfinedSync(asked, rule);
  return { path: real, text: bytes.toString('utf8') };
}

/** A descriptor on the file the rule allows, for reads of its parts; the caller closes it. */
export function openConfinedSync(asked: string, rule: FileRule): { path: string; fd: number; size: number } {
  const { real } = locateSync(asked, rule);
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (e) {
    throw failure(asked, e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notAFile(asked, st, rule);
    if (st.size > capOf(rule)) throw tooLarge(asked, rule);
    return { path: real, fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw failure(asked, e);
  }
}

/**
 * Bytes of a descriptor openConfinedSync gave, at `position`: the one raw read left to callers
 * that hold such a descriptor (a shard's passages, a model read in pieces).
 */
export function readAtSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number {
  return readSync(fd, buffer, offset, length, position);
}
