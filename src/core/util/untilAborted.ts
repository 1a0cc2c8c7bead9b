/**
 * `p`, or what `onAbort` gives (or throws) once `signal` is aborted first; the listener is removed
 * either way. For a wait a caller may give up (a model loading in its worker) without stopping the
 * work itself, which others may still await.
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined, onAbort: () => T): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve().then(onAbort);
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      try {
        resolve(onAbort());
      } catch (e) {
        reject(e as Error);
      }
    };
    signal.addEventListener('abort', abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
