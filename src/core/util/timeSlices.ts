/**
 * Long synchronous work cut into slices: a step function written as a generator (one `yield`
 * per step) runs to its end in one go (`runToEnd`), or in slices of about `sliceMs` with the
 * event loop turned between them (`runInSlices`), so that loading a large index in an editor's
 * extension host never holds it for seconds. One body for both: no second copy of the work.
 */

/** Runs every step at once. */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs the steps, letting the event loop turn (setImmediate) whenever a slice has taken `sliceMs`. */
export async function runInSlices<T>(steps: Generator<void, T>, sliceMs = 25): Promise<T> {
  let since = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - since >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}
