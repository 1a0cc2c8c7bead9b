/**
 * Errors the engine reports to its callers carry a code, so neither the host
 * nor the CLI ever reads message text or class names. The extension and the
 * engine are two bundles (two copies of every class), so codes are read with
 * `errorCode`, never with `instanceof`.
 */
import type { IndexHealth } from './health';

export type EngineErrorCode =
  /** The index cannot answer: `health` says why (never reported as "no result"). */
  | 'index-not-ready'
  /** Another process holds the index's writer lock. */
  | 'locked'
  | 'cancelled'
  | 'provider-unreachable'
  | 'provider-unknown-model'
  | 'provider-timeout'
  | 'provider-bad-response'
  /** The provider cannot run on this machine: the local model in a build without ONNX Runtime for its platform. */
  | 'provider-unavailable'
  /** An option or setting out of range. */
  | 'invalid-options'
  /** A file the caller named cannot be read. */
  | 'unreadable'
  /** The index (or cache) cannot be written: full disk, read-only folder, no rights. */
  | 'unwritable'
  /** The lab's library server (PostgreSQL) cannot be reached, or a query on it failed. */
  | 'server-unreachable';

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    /** For `index-not-ready`. */
    readonly health?: IndexHealth,
  ) {
    super(message);
    this.name = 'EngineError';
  }
  /** The brand `errorCode` reads: subclasses keep their own names. */
  readonly engineError = true;
}

/** The code of an engine error from either bundle; undefined for any other error. */
export function errorCode(err: unknown): EngineErrorCode | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (err as { engineError?: unknown }).engineError === true ? (code as EngineErrorCode) : undefined;
}

/** The health carried by an `index-not-ready` error. */
export function errorHealth(err: unknown): IndexHealth | undefined {
  return errorCode(err) === 'index-not-ready' ? (err as EngineError).health : undefined;
}
