// The fuzz suite (npm run test:fuzz): each harness in a process of its own, one after the other, so
// that what one leaves running (a PDF worker still reading, a heap grown large) counts in no other's
// CPU-time bounds (process.cpuUsage is the whole process's). One seed for all of them, printed
// once: FUZZ_SEED=<n> replays the run; `node scripts/fuzz.mjs <file>…` runs some harnesses only.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const seed = process.env.FUZZ_SEED || String(Math.floor(Math.random() * 2 ** 31));
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : readdirSync('test/fuzz')
      .filter((f) => f.endsWith('.fuzz.ts'))
      .sort()
      .map((f) => `test/fuzz/${f}`);
console.log(`fuzz: ${files.length} harnesses, seed ${seed} (replay with FUZZ_SEED=${seed})`);
const failed = [];
for (const file of files) {
  const r = spawnSync('npx', ['mocha', '--config', 'test/fuzz/mocharc.json', file], { stdio: 'inherit', env: { ...process.env, FUZZ_SEED: seed } });
  if (r.status !== 0) failed.push(`${file} (exit ${r.status ?? r.signal})`);
}
if (failed.length) {
  console.error(`fuzz: ${failed.length} of ${files.length} harnesses failed: ${failed.join(', ')}; replay with FUZZ_SEED=${seed}`);
  process.exit(1);
}
console.log(`fuzz: all ${files.length} harnesses passed (seed ${seed})`);
