/**
 * The fuzz suite's seed and time budget (issue 28). Every harness draws from one seed, printed
 * at the start so that a failure can be replayed: FUZZ_SEED=<n> npm run test:fuzz. Each harness
 * runs for FUZZ_SECONDS (default 30) of generated inputs; CI keeps the default, a long local
 * run raises it.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
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

/**
 * A watchdog on its own thread: an input that hangs a harness blocks the main thread, where no
 * timeout of mocha's can fire, and CI then ran out its 90 minutes with nothing said. When the
 * main thread has not turned for HANG_SECONDS, the watchdog names the test and the seed, and
 * ends the run with a failure.
 */
const HANG_SECONDS = Number(process.env.FUZZ_HANG_SECONDS) || Math.max(180, (FUZZ_BUDGET_MS / 1000) * 4);
const titles = new MessageChannel();
const beat = new Int32Array(new SharedArrayBuffer(4));
const watchdog = new Worker(
  `const { workerData, receiveMessageOnPort } = require('node:worker_threads');
   const { writeSync } = require('node:fs');
   const { beat, seconds, seed, port } = workerData;
   let last = Atomics.load(beat, 0), since = Date.now(), title = '(before the first test)';
   setInterval(() => {
     for (let m; (m = receiveMessageOnPort(port)); ) title = m.message;
     const now = Atomics.load(beat, 0);
     if (now !== last) { last = now; since = Date.now(); return; }
     if (Date.now() - since < seconds * 1000) return;
     // Straight to the descriptor: a worker's process.stderr goes through the blocked main thread.
     writeSync(2, '\\nfuzz: the main thread has not turned for ' + seconds + ' s in "' + title + '": an input hangs; replay with FUZZ_SEED=' + seed + '\\n');
     process.kill(process.pid, 'SIGKILL');
   }, 1000);`,
  { eval: true, workerData: { beat, seconds: HANG_SECONDS, seed: FUZZ_SEED, port: titles.port2 }, transferList: [titles.port2] },
);
watchdog.unref();
setInterval(() => Atomics.add(beat, 0, 1), 1000).unref();

/** Mocha's root hook: the watchdog is told which test runs. */
export const mochaHooks = {
  beforeEach(this: { currentTest?: { fullTitle(): string } }) {
    titles.port1.postMessage(this.currentTest?.fullTitle() ?? '');
  },
};
