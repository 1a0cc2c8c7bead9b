/**
 * The MCP server's stdio transport (the SDK's `Transport`): one JSON-RPC message a line, as MCP's
 * stdio transport frames them. It replaces the SDK's `StdioServerTransport`, which buffered a line
 * whole, closed the connection without a word when a line passed 10 MB, and let malformed lines
 * go unanswered. Here:
 *
 * - stdin is read as a stream and each line's bytes are counted up to the newline: a line over
 *   `maxMessageBytes` is answered at once and the rest of it dropped as it arrives, never held,
 *   so a 1 GB line costs no more memory than a 4 MiB one; the next line is served as usual;
 * - what is not JSON is answered -32700 (Parse error), what is JSON but no JSON-RPC 2.0 message
 *   -32600 (Invalid Request), a request whose params do not fit its method -32602 (Invalid
 *   params) with a short message, before the SDK sees any of them;
 * - requests before `initialize` are refused (ping excepted, as MCP allows) and notifications
 *   and responses before it ignored;
 * - it says why it stops (`onstop`): the end of stdin, a broken stdin or stdout.
 *
 * Error replies whose request id cannot be known carry `"id": null`, as JSON-RPC 2.0 requires
 * (MCP's schema would let it be left out; a null is what every JSON-RPC peer understands).
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, RequestIdSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The longest message taken, in bytes of its line. The largest legitimate one is a `tools/call`
 * of `sources_for` with its paragraph (6,000 characters at most, TOOL_LIMITS.text): even with
 * every character escaped as `\uXXXX` that is under 40 KB; a line a hundred times longer is no
 * call a client means, and 4 MiB held while it is parsed costs the process little.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Why the transport stopped by itself: the exit code and the reason, said on stderr. */
export interface StopReason {
  code: number;
  message: string;
  /** The client may still read: the requests under way may be answered before the server stops. */
  drain?: boolean;
}

/** A request schema of the SDK, as far as the transport uses it (zod's safeParse). */
export interface ParamsSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly Issue[] } };
}
interface Issue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: string;
}

export interface LineTransportOptions {
  maxMessageBytes?: number;
  /** Each served method's request schema (the SDK's): a request that does not fit is answered -32602. */
  requestSchemas?: ReadonlyMap<string, ParamsSchema>;
  /** A line for stderr (what was refused). */
  log?: (line: string) => void;
}

/** Refusals said on stderr before they are only answered: a client sending garbage in a loop must not flood it. */
const LOGGED_REFUSALS = 20;

/**
 * A leading byte order mark is dropped from each line (the decoder's default, `ignoreBOM: false`):
 * RFC 8259 lets a JSON parser ignore one, and a client on Windows may write one before its first
 * message. Bytes that are not UTF-8 are a parse error (RFC 8259: JSON exchanged is UTF-8).
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once, when the input ends or a stream fails; the owner decides when to close. */
  onstop?: (reason: StopReason) => void;

  private readonly max: number;
  private readonly schemas: ReadonlyMap<string, ParamsSchema>;
  private readonly log: (line: string) => void;
  /** The current line's bytes so far (never more than `max`), or `skipping` past an over-long one. */
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private initialized = false;
  /** Requests passed on whose response has not been sent: what the end of stdin waits for. */
  private readonly pending = new Set<RequestId>();
  private onSettled?: () => void;
  private stopped = false;
  private closed = false;
  private refusals = 0;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    opts: LineTransportOptions = {},
  ) {
    this.max = opts.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.schemas = opts.requestSchemas ?? new Map();
    this.log = opts.log ?? (() => {});
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && ('result' in message || 'error' in message) && message.id !== undefined) {
      this.pending.delete(message.id);
      this.settleIfIdle();
    }
    await this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    // Nothing more is read: a stdin left open by the client must not keep the process alive.
    this.input.destroy();
    this.parts = [];
    this.pending.clear();
    this.settleIfIdle();
    this.onclose?.();
  }

  /** Resolves when every request passed on has had its response (true), or after `timeoutMs` (false). */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.pending.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.onSettled = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  private settleIfIdle(): void {
    if (this.pending.size === 0 && this.onSettled) {
      const settle = this.onSettled;
      this.onSettled = undefined;
      settle();
    }
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    while (from < bytes.length && !this.closed) {
      const newline = bytes.indexOf(0x0a, from);
      const end = newline === -1 ? bytes.length : newline;
      if (!this.skipping && end > from) {
        if (this.size + (end - from) > this.max) {
          // Answered now, not at its end: the rest may be long in coming, and is dropped as it comes.
          this.parts = [];
          this.size = 0;
          this.skipping = true;
          this.refuse(
            null,
            ErrorCode.InvalidRequest,
            `Invalid Request: the message is longer than ${this.max} bytes (the limit of one line); it was not read`,
            { maxBytes: this.max },
            true,
          );
        } else {
          this.parts.push(bytes.subarray(from, end));
          this.size += end - from;
        }
      }
      if (newline === -1) return;
      from = newline + 1;
      if (this.skipping) this.skipping = false;
      else this.takeLine();
    }
  };

  private takeLine(): void {
    const line = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    this.onLine(line);
  }

  private readonly onEnd = (): void => {
    // A last message without its newline is still a message.
    if (this.size > 0 && !this.skipping) this.takeLine();
    this.stop({ code: 0, message: 'client closed stdin', drain: true });
  };

  private readonly onInputError = (e: Error): void => this.stop({ code: 1, message: `stdin failed: ${e.message}` });

  private readonly onOutputError = (e: NodeJS.ErrnoException): void =>
    this.stop({ code: 1, message: e.code === 'EPIPE' ? 'stdout is closed (the client stopped reading)' : `stdout failed: ${e.message}` });

  private stop(reason: StopReason): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onstop?.(reason);
  }

  private onLine(bytes: Buffer): void {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return this.refuse(null, ErrorCode.ParseError, 'Parse error: the line is not UTF-8');
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    // Blank lines between messages carry nothing to answer.
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      // Where, not what: the parser's message would quote the client's bytes back (a fuzzed line held NUL).
      const at = /at position (\d+)/.exec((e as Error).message)?.[1];
      return this.refuse(null, ErrorCode.ParseError, `Parse error: the line is not valid JSON${at ? ` (at byte ${at})` : ''}`);
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      // A malformed response is not answered: answering answers could make two peers loop.
      if (isObject(value) && !('method' in value) && ('result' in value || 'error' in value)) {
        this.logRefusal('a malformed response was ignored');
        return;
      }
      return this.refuse(idOf(value), ErrorCode.InvalidRequest, `Invalid Request: ${envelopeProblem(value)}`);
    }
    this.dispatch(parsed.data);
  }

  private dispatch(message: JSONRPCMessage): void {
    if (!('method' in message)) {
      // A response: the server sends no request before initialize, so one then answers nothing.
      if (this.initialized) this.onmessage?.(message);
      return;
    }
    if (!('id' in message)) {
      if (!this.initialized) return; // MCP: nothing before initialize but initialize (and ping)
      if (message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
        if (RequestIdSchema.safeParse(id).success) this.pending.delete(id as RequestId);
        this.settleIfIdle();
      }
      this.onmessage?.(message);
      return;
    }
    const { id, method } = message;
    if (!this.initialized && method !== 'initialize' && method !== 'ping') {
      return this.refuse(id, ErrorCode.InvalidRequest, `the server is not initialized: send "initialize" before "${clip(method, 80)}"`);
    }
    const schema = this.schemas.get(method);
    const checked = schema?.safeParse(message);
    if (checked && !checked.success) return this.refuse(id, ErrorCode.InvalidParams, paramsProblem(method, checked.error.issues, message));
    if (method === 'initialize') this.initialized = true;
    this.pending.add(id);
    this.onmessage?.(message);
  }

  /**
   * An error reply written by the transport itself (the SDK never saw the message), and a line on
   * stderr; an over-long line is always said (`always`): a limit met must be visible, and such
   * lines cannot come faster than 4 MiB each.
   */
  private refuse(id: RequestId | null, code: number, message: string, data?: unknown, always = false): void {
    if (always) this.log(`refused a message (${code}): ${message}`);
    else this.logRefusal(`refused a message (${code}): ${message}`);
    void this.write({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
  }

  private logRefusal(line: string): void {
    this.refusals++;
    if (this.refusals <= LOGGED_REFUSALS) this.log(line);
    if (this.refusals === LOGGED_REFUSALS) this.log(`(${LOGGED_REFUSALS} messages refused: further ones are answered, not said here)`);
  }

  /** Resolves once the line is handed on (or the stream has failed: the stop says so). */
  private write(message: object): Promise<void> {
    if (this.closed || this.output.destroyed || this.output.writableEnded) return Promise.resolve();
    return new Promise((resolve) => {
      this.output.write(JSON.stringify(message) + '\n', () => resolve());
    });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);

/** The request's id where it can be read (JSON-RPC 2.0: null where it cannot). */
function idOf(value: unknown): RequestId | null {
  if (!isObject(value)) return null;
  return RequestIdSchema.safeParse(value.id).success ? (value.id as RequestId) : null;
}

/** What is wrong with a JSON value that is no JSON-RPC message, in a few words. */
export function envelopeProblem(value: unknown): string {
  if (Array.isArray(value)) return 'batches are not supported (one message a line)';
  if (!isObject(value)) return `a message is a JSON object, not ${kindOf(value)}`;
  if (value.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if (!('method' in value)) return 'a request needs a "method"';
  if (typeof value.method !== 'string') return '"method" must be a string';
  if ('id' in value && !RequestIdSchema.safeParse(value.id).success) return '"id" must be a string or an integer';
  if ('params' in value && !isObject(value.params)) return '"params" must be an object';
  const extra = Object.keys(value).find((k) => !['jsonrpc', 'id', 'method', 'params'].includes(k));
  if (extra !== undefined) return `unexpected member "${clip(extra, 40)}"`;
  return 'not a JSON-RPC 2.0 request or notification';
}

/** A schema's complaints about a request as one short line: "tools/call: params.name is required (a string)". */
export function paramsProblem(method: string, issues: readonly Issue[], request: unknown): string {
  const said = issues.slice(0, 3).map((issue) => {
    const where = issue.path.map(String).join('.') || 'the request';
    if (issue.code === 'invalid_type' && issue.expected) {
      const value = valueAt(request, issue.path);
      const expected = withArticle(issue.expected);
      return value === undefined ? `${where} is required (${expected})` : `${where} must be ${expected}, not ${kindOf(value)}`;
    }
    return `${where}: ${clip(issue.message, 120)}`;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return `${clip(method, 80)}: ${said.join('; ')}${more}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return withArticle(typeof v);
}

const withArticle = (type: string) => (type === 'record' ? 'an object' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
