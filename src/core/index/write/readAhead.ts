/**
 * Files read and handed to extraction ahead of the one being indexed, so a PDF worker
 * pool extracts while the indexer embeds and commits; and the two waits the indexer
 * races against them (a cancel, a timer).
 */
import type { SourceInput } from '../source';
import type { Early } from './sourceFile';

/** A file started (read, extraction handed to the workers) and not yet indexed. */
export interface Pending {
  early: Promise<Early>;
  /** Settles when the file's extraction has (successfully or not). */
  ready: Promise<void>;
  settled: boolean;
  since: number;
}

export class ReadAhead {
  /** Files started and not yet indexed, by their place in `todo`. */
  readonly pending = new Map<number, Pending>();
  /** The place in `todo` of the next file to start. */
  next = 0;

  constructor(
    private readonly todo: SourceInput[],
    /** Files started beyond the one being indexed. */
    private readonly count: number,
    /** Bytes of the files started at most (the next file is always started). */
    private readonly bytes: number,
    private readonly start: (input: SourceInput) => Promise<Early>,
  ) {}

  /** Starts files until `count` or `bytes` is reached. */
  fill(): void {
    const { todo, pending } = this;
    let bytes = 0;
    for (const j of pending.keys()) bytes += todo[j].size;
    while (this.next < todo.length && pending.size <= this.count) {
      if (pending.size > 0 && bytes + todo[this.next].size > this.bytes) break;
      bytes += todo[this.next].size;
      const j = this.next++;
      const early = this.start(todo[j]);
      const entry: Pending = { early, settled: false, since: Date.now(), ready: Promise.resolve() };
      entry.ready = early
        .then((e) =>
          e.extracted?.then(
            () => undefined,
            () => undefined,
          ),
        )
        .then(() => {
          entry.settled = true;
        });
      pending.set(j, entry);
    }
  }

  /** The first file in `todo` order not yet indexed. */
  head(): number {
    return this.pending.size ? Math.min(...this.pending.keys()) : this.next;
  }
}

/** A promise settled when the signal aborts (never, without one); dispose() drops the listener. */
export function abortPromise(signal: AbortSignal | undefined): { promise: Promise<void>; dispose(): void } {
  if (!signal) return { promise: new Promise<void>(() => undefined), dispose: () => undefined };
  let onAbort: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** A timer as a promise, cancellable (a cancelled one never settles and keeps nothing alive). */
export function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
  });
  return { promise, cancel: () => clearTimeout(timer) };
}
