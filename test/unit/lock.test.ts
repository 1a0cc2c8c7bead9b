import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, GUARD_FILE, IndexBusyError } from '../../src/core/index/store/lock';

describe('index lock', () => {
  it('lets one writer in and makes a second one wait, then refuse with who holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-lock-'));
    const release = await acquireLock(dir, { what: 'indexing' });
    let waited = '';
    await assert.rejects(
      acquireLock(dir, { waitMs: 300, onWait: (h) => (waited = h) }),
      (e: Error) => e instanceof IndexBusyError && /being updated by another process \(pid \d+/.test(e.message),
    );
    assert.match(waited, new RegExp(`pid ${process.pid}`));
    await release();
    assert.ok(!existsSync(join(dir, 'index.lock')));
    const again = await acquireLock(dir, { waitMs: 100 });
    await again();
  });

  it('a waiting writer gets the lock when the holder releases it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-lock-'));
    const release = await acquireLock(dir);
    setTimeout(() => void release(), 150);
    const second = await acquireLock(dir, { waitMs: 5000 });
    await second();
  });

  it('takes over a lock left by a dead process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-lock-'));
    writeFileSync(join(dir, 'index.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), since: 'then', what: 'index' }));
    const release = await acquireLock(dir, { waitMs: 100 });
    await release();
  });

  it('a guard left by a process killed while removing a lock does not stop the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-lock-'));
    const dead = JSON.stringify({ pid: 2 ** 22 + 12346, host: hostname(), since: 'then', what: 'index' });
    writeFileSync(join(dir, 'index.lock'), dead);
    writeFileSync(join(dir, GUARD_FILE), JSON.stringify({ pid: 2 ** 22 + 12346, host: hostname(), token: 'x' }));
    const release = await acquireLock(dir, { waitMs: 2000 });
    await release();
    assert.deepEqual(readdirSync(dir), [], 'the dead lock, the dead guard and ours are gone');
  });

  it('release removes only its own lock (one taken over while its holder was suspended stays)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-lock-'));
    const release = await acquireLock(dir);
    // As if this holder had stopped for over a minute and another process had taken the lock over.
    const other = JSON.stringify({ pid: process.ppid, host: hostname(), since: 'now', what: 'indexing', token: 'theirs' });
    writeFileSync(join(dir, 'index.lock'), other);
    await release();
    assert.equal(readFileSync(join(dir, 'index.lock'), 'utf8'), other);
  });
});

describe('index lock, several processes', function () {
  this.timeout(120_000);

  it("never has two holders while processes race for it and take over dead processes' locks", async () => {
    const { spawn } = await import('node:child_process');
    const { readdirSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'ss-lock-race-'));
    writeFileSync(join(dir, 'index.lock'), JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), since: 'then', what: 'index' }));
    const n = 4;
    const codes = await Promise.all(
      Array.from(
        { length: n },
        (_, i) =>
          new Promise<{ code: number | null; err: string }>((resolve) => {
            const c = spawn(process.execPath, ['--import', 'tsx', 'test/support/lockRacer.ts', dir, '15', String(i + 1)], {
              stdio: ['ignore', 'ignore', 'pipe'],
            });
            let err = '';
            c.stderr.on('data', (d) => (err += d));
            c.on('exit', (code) => resolve({ code, err }));
          }),
      ),
    );
    for (const c of codes) assert.equal(c.code, 0, c.err);
    // Nothing left but, possibly, a planted dead lock: no temp files, no marker.
    assert.deepEqual(
      readdirSync(dir).filter((f) => f !== 'index.lock'),
      [],
    );
  });
});
