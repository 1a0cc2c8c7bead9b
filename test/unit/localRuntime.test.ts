import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { makeTestModel } from '../../scripts/make-test-model';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { LOCAL_WORKER_FILE, LocalProvider } from '../../src/core/embedding/local/localProvider';
import type { FromWorker, LocalWorkerData } from '../../src/core/embedding/local/protocol';
import { localRuntime, platformLabel } from '../../src/core/embedding/local/runtime';
import { ProviderError } from '../../src/core/embedding/provider';
import { createProvider } from '../../src/core/embedding/providerFactory';
import { errorCode } from '../../src/shared/errors';
import { localModelRuntime } from '../../src/engine';

const DIST = resolve('dist');

/**
 * A VSIX without ONNX Runtime for the machine it runs on (the universal one, another platform's,
 * Intel macOS, Alpine): the local model says it is unavailable, and the embedded model is used.
 * Built here by copying the bundled worker into a folder with no runtime, or with a binding the
 * system cannot load.
 */
describe('local model without ONNX Runtime for this platform', function () {
  this.timeout(120_000);
  let dir: string;
  let model: string;
  let bare: string; // the worker bundle alone
  let broken: string; // the worker bundle beside a binding that is not a loadable library

  before(async () => {
    if (!existsSync(join(DIST, LOCAL_WORKER_FILE))) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, `build failed: ${b.stderr}`);
    }
    dir = await fs.mkdtemp(join(tmpdir(), 'ss-runtime-'));
    model = makeTestModel(join(dir, 'tiny-bert'), { layers: 1, hidden: 32 });
    bare = join(dir, 'bare');
    broken = join(dir, 'broken');
    for (const d of [bare, broken]) {
      await fs.mkdir(d);
      await fs.copyFile(join(DIST, LOCAL_WORKER_FILE), join(d, LOCAL_WORKER_FILE));
    }
    const at = join(broken, 'onnxruntime', process.platform, process.arch);
    await fs.mkdir(at, { recursive: true });
    await fs.writeFile(join(at, 'onnxruntime_binding.node'), 'not a shared library\n');
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('the build in dist/ has the runtime for this machine; a folder without it says which platform lacks it', () => {
    assert.equal(localRuntime(DIST).available, true);
    assert.equal(localModelRuntime(DIST).available, true);
    const none = localModelRuntime(bare);
    assert.equal(none.available, false);
    assert.equal(none.platform, platformLabel());
    assert.match(none.platform, new RegExp(`^(${process.platform}|alpine)-${process.arch}$`));
    assert.match(none.message!, new RegExp(`^This build of Similar Sources has no ONNX Runtime for ${none.platform}: the local model is unavailable here\\.`));
  });

  it('`local` fails with provider-unavailable before any model is looked for, or falls back to the embedded model with the message', async () => {
    const err = await createProvider({ provider: 'local', localModel: 'Xenova/not-downloaded', modelCacheDir: join(dir, 'empty'), workerDir: bare }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(errorCode(err), 'provider-unavailable');
    assert.match((err as Error).message, /has no ONNX Runtime for .*: the local model is unavailable/);
    assert.doesNotMatch((err as Error).message, /download/i, 'no advice to download a model that cannot run');

    const warnings: string[] = [];
    const fb = await createProvider(
      { provider: 'local', localModel: model, workerDir: bare },
      { fallbackToEmbedded: true, onWarning: (w) => warnings.push(w) },
    );
    assert.ok(fb.provider instanceof EmbeddedProvider);
    assert.match(fb.warning!, /has no ONNX Runtime for .*: the local model is unavailable here\..* Using the embedded offline model instead\.$/);
    assert.deepEqual(warnings, [fb.warning]);
    assert.equal((await fb.provider.embed(['the embedded model works']))[0].length > 0, true);
  });

  it('`auto` with a model on disk falls back to the embedded model and says why', async () => {
    const auto = await createProvider({ provider: 'auto', localModel: model, workerDir: bare });
    assert.ok(auto.provider instanceof EmbeddedProvider);
    assert.match(auto.warning!, /has no ONNX Runtime for/);
  });

  it('LocalProvider itself refuses to start a worker that could not load the runtime', async () => {
    const p = new LocalProvider({ model: 'tiny-bert', modelDir: model, workerFile: join(bare, LOCAL_WORKER_FILE), threads: 1 });
    const e = await p.dimension().then(
      () => undefined,
      (x: unknown) => x as ProviderError,
    );
    assert.ok(e instanceof ProviderError);
    assert.equal(e.reason, 'unavailable');
    await p.close();
  });

  it('the worker reports a missing binding as the runtime, not the model', async () => {
    const data: LocalWorkerData = { modelDir: model, onnxFile: 'onnx/model_quantized.onnx', threads: 1 };
    const w = new Worker(join(bare, LOCAL_WORKER_FILE), { workerData: data, execArgv: [] });
    try {
      const m = await new Promise<FromWorker>((res, rej) => {
        w.once('message', res);
        w.once('error', rej);
      });
      assert.equal(m.type, 'load-error');
      assert.equal((m as Extract<FromWorker, { type: 'load-error' }>).runtime, 'missing');
    } finally {
      await w.terminate();
    }
  });

  it("a binding the system cannot load (another C library, a cut file) is provider-unavailable with the loader's reason", async () => {
    assert.equal(localRuntime(broken).available, true, 'the file is there');
    const err = await createProvider({ provider: 'local', localModel: model, workerDir: broken }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(errorCode(err), 'provider-unavailable');
    assert.match((err as Error).message, /^ONNX Runtime could not be loaded on [a-z0-9]+-[a-z0-9]+ \(.+\): the local model is unavailable here\./);
  });
});
