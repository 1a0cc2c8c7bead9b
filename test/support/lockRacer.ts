/**
 * A child process for the lock tests: takes the index lock `rounds` times; while
 * holding it, claims a marker file with O_EXCL (two holders at once → exit 3);
 * after some releases it plants a lock of a dead process (as a kill -9 leaves),
 * so the others race to take it over. Usage: lockRacer <dir> <rounds> <seed>
 */
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { acquireLock } from '../../src/core/index/store/lock';

const [dir, roundsArg, seedArg] = process.argv.slice(2);
const rounds = Number(roundsArg);
let seed = Number(seedArg) >>> 0;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const DEAD_PID = 2 ** 22 + 777;

async function main() {
  for (let i = 0; i < rounds; i++) {
    const release = await acquireLock(dir, { waitMs: 120_000 });
    const marker = join(dir, 'holder');
    try {
      await fs.writeFile(marker, String(process.pid), { flag: 'wx' });
    } catch {
      console.error(`pid ${process.pid}: another process holds the lock too (${await fs.readFile(marker, 'utf8').catch(() => '?')})`);
      process.exit(3);
    }
    await new Promise((r) => setTimeout(r, Math.floor(rand() * 8)));
    await fs.rm(marker);
    await release();
    // A pause between runs, as between real indexing runs (a process that re-locks at once starves the pollers).
    await new Promise((r) => setTimeout(r, 20 + Math.floor(rand() * 40)));
    if (rand() < 0.4) {
      // A dead process's lock, planted only where no lock is (link fails on an existing name).
      const tmp = join(dir, `planted-${process.pid}`);
      await fs.writeFile(tmp, JSON.stringify({ pid: DEAD_PID, host: hostname(), since: 'then', what: 'indexing' }));
      await fs.link(tmp, join(dir, 'index.lock')).catch(() => undefined);
      await fs.rm(tmp);
    }
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
