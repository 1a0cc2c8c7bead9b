/**
 * Issue 14, item 7, without a tmpfs: ENOSPC injected at the one write path
 * (writeFileAtomic's file handle) at every write of an incremental indexing run
 * in turn. Each time: the error is `unwritable` and says the disk is full, the
 * index stays at a commit whose every source equals a clean build's, no temp file
 * or lock is left, and a run with space completes it. (The same on a real full
 * disk: test/stress/diskFaults.stress.ts.)
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir } from '../../src/core/index/store/manifest';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { errorCode } from '../../src/shared/errors';
import { buildPdf } from '../support/pdfWriter';
import { betweenBuilds, smallPdfSpec, snapshotIndex } from '../support/stressLibrary';

describe('write faults injected at the atomic write path', function () {
  this.timeout(120_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-wfault-'));
  const lib = join(root, 'library');
  const key = new EmbeddedProvider().key;
  const realOpen = fsp.open;
  const v1 = () => {
    mkdirSync(lib, { recursive: true });
    for (let i = 1; i <= 6; i++) writeFileSync(join(lib, `p${i}.pdf`), buildPdf(smallPdfSpec(i, 1)));
    rmSync(join(lib, 'n.pdf'), { force: true });
  };
  const v2 = () => {
    writeFileSync(join(lib, 'p2.pdf'), buildPdf(smallPdfSpec(102, 2)));
    writeFileSync(join(lib, 'n.pdf'), buildPdf(smallPdfSpec(200, 1)));
    rmSync(join(lib, 'p5.pdf'));
  };
  const run = async (ws: string) =>
    updateIndex((await libraryInputs({ folders: [lib], baseDir: root })).inputs, {
      workspace: ws,
      provider: new EmbeddedProvider(),
      commitEvery: 1,
      keepPageTexts: true,
    });

  /** Makes the `nth` atomic write from now on (1-based) fail with ENOSPC; returns how many were attempted. */
  function failWrite(nth: number): { count: () => number } {
    let n = 0;
    (fsp as { open: typeof fsp.open }).open = (async (
      file: Parameters<typeof fsp.open>[0],
      flags?: Parameters<typeof fsp.open>[1],
      mode?: Parameters<typeof fsp.open>[2],
    ) => {
      const handle = await realOpen(file, flags, mode);
      if (!String(file).includes('.tmp-') || flags !== 'w') return handle;
      if (++n !== nth) return handle;
      const writeFile = handle.writeFile.bind(handle);
      handle.writeFile = (async (data: Parameters<typeof handle.writeFile>[0]) => {
        await writeFile(typeof data === 'string' ? data.slice(0, 10) : Buffer.from(data as Uint8Array).subarray(0, 10)); // part of it, then the disk is full
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
      }) as typeof handle.writeFile;
      return handle;
    }) as typeof fsp.open;
    return { count: () => n };
  }
  afterEach(() => ((fsp as { open: typeof fsp.open }).open = realOpen));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('fails cleanly at every write of a run, and the next run completes the index', async () => {
    v1();
    await run(join(root, 'clean1'));
    const clean1 = (await snapshotIndex(join(root, 'clean1'), key))!;
    v2();
    await run(join(root, 'clean2'));
    const clean2 = (await snapshotIndex(join(root, 'clean2'), key))!;
    // How many atomic writes the update makes.
    v1();
    await run(join(root, 'count'));
    v2();
    const counter = failWrite(Number.MAX_SAFE_INTEGER);
    await run(join(root, 'count'));
    const writes = counter.count();
    (fsp as { open: typeof fsp.open }).open = realOpen;
    assert.ok(writes >= 6, `only ${writes} writes`);

    for (let nth = 1; nth <= writes; nth++) {
      const ws = join(root, `ws-${nth}`);
      v1();
      await run(ws);
      v2();
      failWrite(nth);
      await assert.rejects(run(ws), (e) => errorCode(e) === 'unwritable' && /the disk is full \(ENOSPC\)/.test((e as Error).message), `write ${nth}`);
      (fsp as { open: typeof fsp.open }).open = realOpen;
      const snap = (await snapshotIndex(ws, key))!;
      assert.equal(betweenBuilds(snap, clean1, clean2), undefined, `write ${nth}`);
      await LibraryIndex.open(ws, new EmbeddedProvider());
      assert.deepEqual(
        readdirSync(indexDir(ws), { recursive: true }).filter((f) => /\.tmp-|index\.lock/.test(String(f))),
        [],
        `write ${nth}`,
      );
      await run(ws);
      assert.deepEqual(await snapshotIndex(ws, key), clean2, `write ${nth}: the next run`);
    }
  });
});
