/**
 * The fuzz suite's seed and time budget (issue 28). Every harness draws from one seed, printed
 * at the start so that a failure can be replayed: FUZZ_SEED=<n> npm run test:fuzz. Each harness
 * runs for FUZZ_SECONDS (default 30) of generated inputs; CI keeps the default, a long local
 * run raises it.
 */
import { rng } from '../../scripts/bench/corpus';

const fromEnv = Number(process.env.FUZZ_SEED);
export const FUZZ_SEED = Number.isSafeInteger(fromEnv) && process.env.FUZZ_SEED !== '' ? fromEnv : Math.floor(Math.random() * 2 ** 31);
const seconds = Number(process.env.FUZZ_SECONDS);
/** Milliseconds of generated inputs per harness. */
export const FUZZ_BUDGET_MS = (Number.isFinite(seconds) && seconds > 0 ? seconds : 30) * 1000;

/** fast-check parameters for a harness: the suite's seed, as many runs as fit in the budget. */
export function fuzzParams(extra: { interruptAfterTimeLimit?: number } = {}) {
  return {
    seed: FUZZ_SEED,
    numRuns: Number.MAX_SAFE_INTEGER,
    interruptAfterTimeLimit: extra.interruptAfterTimeLimit ?? FUZZ_BUDGET_MS,
    markInterruptAsFailure: false,
  };
}

/** A small deterministic generator for mutation-based harnesses (the benchmarks' mulberry32), seeded from FUZZ_SEED. */
export function seededRandom(salt = 0): () => number {
  return rng((FUZZ_SEED ^ salt) >>> 0);
}

console.log(`fuzz: seed ${FUZZ_SEED} (replay with FUZZ_SEED=${FUZZ_SEED}), ${FUZZ_BUDGET_MS / 1000} s per harness`);

/** CPU milliseconds this process spent since `c0` (a harness's per-input guard: CPU, not wall time, on a shared machine). */
export function cpuMs(c0: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}
