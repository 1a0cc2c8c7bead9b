import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, IndexBusyError } from '../../src/core/index/lock';

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
});
