/**
 * util/tempFolders.ts: a temporary folder never outlives its process, and the process ends as it
 * would have without it (a signal nobody else hears still kills it; a host's own listener still
 * decides). Each case runs in a child process with a TMPDIR of its own.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const CHILD = path.resolve('test/support/tempFolderChild.ts');
/** The child's folders left in its TMPDIR (tsx keeps its cache there too). */
const left = (tmp: string) => readdirSync(tmp).filter((f) => f.startsWith('similar-sources-zotero-'));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

/** Runs the child until it prints `made`, does `then` to it, and waits (at most 15 s) for its end. */
function run(tmp: string, how: string, then: (child: ReturnType<typeof spawn>) => void = () => undefined): Promise<Ended> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, how], { env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child did not end within 15 s: ${out} ${err}`));
    }, 15_000);
    child.stdout!.on('data', (d) => {
      const had = out.includes('made ');
      out += d;
      if (!had && out.includes('made ')) then(child);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(limit);
      resolve({ code, signal, out: out + err });
    });
  });
}

describe('temporary folders: removed whatever ends the process', function () {
  this.timeout(30_000);
  let tmp: string;
  beforeEach(() => (tmp = mkdtempSync(path.join(tmpdir(), 'ss-tempfolders-'))));
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('process.exit(): removed by the exit hook; the exit code is kept', async () => {
    const r = await run(tmp, 'exit');
    assert.equal(r.code, 3, r.out);
    assert.deepEqual(left(tmp), []);
  });

  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    it(`${sig} that nothing else listens to: removed, and the process still dies of ${sig}`, async () => {
      const r = await run(tmp, 'wait', (c) => c.kill(sig));
      assert.equal(r.signal, sig, r.out);
      assert.deepEqual(left(tmp), []);
    });
  }

  it("a host's own SIGINT listener decides: nothing is removed under it, and the process lives on", async () => {
    const r = await run(tmp, 'host', (c) => c.kill('SIGINT'));
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /host\nstill true/);
    assert.deepEqual(left(tmp), [], 'the host removed it itself');
  });
});
