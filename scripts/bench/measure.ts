/** Timing and memory helpers shared by the benchmarks (bench.ts, bench-server.ts). */

/** How long `f` took (ms), and what it gave. */
export async function timed<T>(f: () => Promise<T> | T): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await f();
  return [performance.now() - t0, v];
}

/**
 * The peak resident set while `f` runs, sampled every 50 ms (the work awaits often enough
 * for the timer to run; the kernel's own peak, process.resourceUsage().maxRSS, is for the
 * whole process so far, and is given beside it).
 */
export async function peakRss<T>(f: () => Promise<T>): Promise<[number, T]> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  try {
    const v = await f();
    return [Math.max(peak, process.memoryUsage.rss()), v];
  } finally {
    clearInterval(timer);
  }
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
