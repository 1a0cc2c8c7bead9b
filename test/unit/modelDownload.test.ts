import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTestModel } from '../../scripts/make-test-model';
import { downloadModel, hubEndpoint, ModelDownloadError, parseLfsPointer, sha256FromEtag, verifyFile } from '../../src/core/embedding/local/download';
import { COMPLETE_MARKER, locateModel, modelStatus, removeModel, repoDir } from '../../src/core/embedding/local/modelStore';
import { startFakeHub, type FakeHub, type FakeHubOptions } from '../support/fakeHub';

const REPO = 'Xenova/gte-small';
const SHARED = resolve('test/fixtures/bert-base-uncased-tokenizer');

describe('local model download (fake Hub on 127.0.0.1)', function () {
  this.timeout(30_000);
  let dir: string;
  let files: Record<string, Uint8Array>;
  let hubs: FakeHub[] = [];
  let n = 0;

  before(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'ss-dl-'));
    const model = makeTestModel(join(dir, 'source'), { layers: 1, hidden: 32, quantized: true, fp32: false });
    files = {};
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx'])
      files[f] = readFileSync(join(model, f));
  });
  afterEach(async () => {
    await Promise.all(hubs.map((h) => h.close()));
    hubs = [];
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  const hub = async (o: Partial<FakeHubOptions> = {}) => {
    const h = await startFakeHub({ repos: { [REPO]: files }, ...o });
    hubs.push(h);
    return h;
  };
  const cache = () => join(dir, `cache-${n++}`);
  const fail = (p: Promise<unknown>) =>
    p.then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e as ModelDownloadError,
    );

  it('downloads every file into the cache (never elsewhere), with progress, then serves it from there', async () => {
    const h = await hub();
    const cacheDir = cache();
    const seen: number[] = [];
    let total = 0;
    const folder = await downloadModel({ model: REPO, cacheDir, endpoint: h.url, onProgress: (p) => (seen.push(p.doneBytes), (total = p.totalBytes)) });
    assert.equal(folder, repoDir(cacheDir, REPO, 'main'));
    for (const [f, bytes] of Object.entries(files)) assert.deepEqual(readFileSync(join(folder, f)), Buffer.from(bytes), f);
    const expectedTotal = Object.values(files).reduce((s, b) => s + b.length, 0);
    assert.equal(total, expectedTotal);
    assert.equal(seen.at(-1), expectedTotal);
    assert.ok(
      seen.every((v, i) => i === 0 || v >= seen[i - 1]),
      'progress never goes back',
    );
    const marker = JSON.parse(readFileSync(join(folder, COMPLETE_MARKER), 'utf8'));
    assert.equal(marker.commit, 'c0ffee'.padEnd(40, '0'));
    assert.equal(marker.files['onnx/model_quantized.onnx'].sha256, createHash('sha256').update(files['onnx/model_quantized.onnx']).digest('hex'));
    const status = await modelStatus(REPO, cacheDir);
    assert.equal(status.installed, true);
    assert.equal(status.commit, marker.commit);
    // The LFS file went through the redirect to the CDN, like the Hub's.
    assert.ok(h.requests.some((r) => r.method === 'GET' && r.path.startsWith('/cdn/')));
    // A second download only asks for the headers: everything checks out already.
    const before = h.requests.length;
    await downloadModel({ model: REPO, cacheDir, endpoint: h.url });
    assert.ok(h.requests.slice(before).every((r) => r.method === 'HEAD'));
    assert.equal(await removeModel(REPO, cacheDir), true);
    assert.equal((await modelStatus(REPO, cacheDir)).installed, false);
  });

  it('resumes an interrupted transfer with a Range request and keeps what was fetched', async () => {
    const h = await hub({ interruptAfter: { 'model_quantized.onnx': 200_000 } });
    const cacheDir = cache();
    const e = await fail(downloadModel({ model: REPO, cacheDir, endpoint: h.url }));
    assert.ok(e instanceof ModelDownloadError);
    assert.match(e.message, /interrupted.*run the download again to resume/);
    const part = join(repoDir(cacheDir, REPO, 'main'), 'onnx/model_quantized.onnx.part');
    const kept = statSync(part).size;
    assert.ok(kept >= 100_000 && kept <= 200_000, `part holds ${kept} bytes`);
    assert.equal((await modelStatus(REPO, cacheDir)).installed, false);
    const folder = await downloadModel({ model: REPO, cacheDir, endpoint: h.url });
    assert.ok(
      h.requests.some((r) => r.range === `bytes=${kept}-`),
      'asked only for the rest',
    );
    assert.deepEqual(readFileSync(join(folder, 'onnx/model_quantized.onnx')), Buffer.from(files['onnx/model_quantized.onnx']));
    assert.ok(!existsSync(part));
  });

  it('refuses a file whose SHA-256 differs from the one the Hub announced, and deletes it', async () => {
    const h = await hub({ corrupt: ['model_quantized.onnx'] });
    const cacheDir = cache();
    const e = await fail(downloadModel({ model: REPO, cacheDir, endpoint: h.url }));
    assert.equal(e.failure, 'checksum');
    assert.match(e.message, /does not match.*SHA-256 [0-9a-f]{64}, expected [0-9a-f]{64}.*run the download again/);
    const onnxDir = join(repoDir(cacheDir, REPO, 'main'), 'onnx');
    assert.deepEqual(existsSync(onnxDir) ? readdirSync(onnxDir) : [], []);
    assert.equal((await modelStatus(REPO, cacheDir)).installed, false);
  });

  it('says what to do on a 404 (unknown repository) and when the endpoint is unreachable', async () => {
    const h = await hub();
    const e = await fail(downloadModel({ model: 'Xenova/no-such-model', cacheDir: cache(), endpoint: h.url }));
    assert.equal(e.failure, 'not-found');
    assert.equal(e.reason, 'unknown-model');
    assert.match(e.message, /no config\.json in Xenova\/no-such-model .*HTTP 404.*Check the model id/);
    // A port nobody listens on: the fake Hub's, once closed.
    const closed = await hub();
    await closed.close();
    const u = await fail(downloadModel({ model: REPO, cacheDir: cache(), endpoint: closed.url }));
    assert.equal(u.failure, 'unreachable');
    assert.match(u.message, /Cannot reach http:\/\/127\.0\.0\.1:\d+ .*ECONNREFUSED.*copy it here and set the local model to that folder/);
  });

  it('gives up on a server that stops sending (bounded), keeping the part for a resume', async () => {
    const h = await hub({ stallAfter: { 'model_quantized.onnx': 50_000 } });
    const cacheDir = cache();
    const t0 = Date.now();
    const e = await fail(downloadModel({ model: REPO, cacheDir, endpoint: h.url, stallTimeoutMs: 400 }));
    assert.equal(e.failure, 'timeout');
    assert.ok(Date.now() - t0 < 20_000, 'a hang guard: the stalled server never sends the rest');
    assert.match(e.message, /stopped sending onnx\/model_quantized\.onnx.*resume/);
    assert.equal(statSync(join(repoDir(cacheDir, REPO, 'main'), 'onnx/model_quantized.onnx.part')).size, 50_000);
  });

  it('cancels when asked, and the next run resumes', async () => {
    const h = await hub();
    const cacheDir = cache();
    const ac = new AbortController();
    const e = await fail(
      downloadModel({
        model: REPO,
        cacheDir,
        endpoint: h.url,
        signal: ac.signal,
        onProgress: (p) => p.file.endsWith('.onnx') && p.doneBytes > 0 && ac.abort(),
      }),
    );
    assert.equal(e.failure, 'aborted');
    assert.equal(e.reason, 'aborted');
    assert.equal((await modelStatus(REPO, cacheDir)).installed, false);
    await downloadModel({ model: REPO, cacheDir, endpoint: h.url });
    assert.equal((await modelStatus(REPO, cacheDir)).installed, true);
  });

  it('takes the endpoint from HF_ENDPOINT, as the Hugging Face tools do', async () => {
    const old = process.env.HF_ENDPOINT;
    try {
      process.env.HF_ENDPOINT = 'http://mirror.example/';
      assert.equal(hubEndpoint(), 'http://mirror.example');
      delete process.env.HF_ENDPOINT;
      assert.equal(hubEndpoint(), 'https://huggingface.co');
    } finally {
      if (old === undefined) delete process.env.HF_ENDPOINT;
      else process.env.HF_ENDPOINT = old;
    }
  });

  it('uses a folder as it is: no download, never removed', async () => {
    const folder = join(dir, 'source');
    const loc = locateModel(folder, cache(), { revision: 'main' });
    assert.equal(loc.kind, 'folder');
    assert.equal(locateModel(REPO, '/c', { revision: 'main' }).kind, 'repo');
    assert.equal((await modelStatus(folder, cache(), { onnxFile: 'onnx/model_quantized.onnx' })).installed, true);
    await assert.rejects(removeModel(folder, cache()), /your own folder/);
    await assert.rejects(downloadModel({ model: folder, cacheDir: cache() }), /is a folder/);
  });

  it("verifies against the real gte-small LFS pointers (sha256 and size) and the Hub's ETags", async () => {
    const ptr = parseLfsPointer(readFileSync(join(SHARED, 'model_quantized.onnx.LFS-POINTER.txt'), 'utf8'));
    assert.deepEqual(ptr, { sha256: '34440558460f3d0d05fda102ade2d2a0672d112dd8c05b540c8fc3bc2051db90', size: 34014427 });
    // A file of the right size but other bytes is caught by the hash, one of another size by its size.
    const same = join(dir, 'same-size.onnx');
    await fs.writeFile(same, '');
    await fs.truncate(same, ptr.size);
    assert.match((await verifyFile(same, ptr))!, /^SHA-256 [0-9a-f]{64}, expected 34440558/);
    assert.match((await verifyFile(join(SHARED, 'vocab.txt'), ptr))!, /^size 231508 bytes, expected 34014427/);
    const vocab = readFileSync(join(SHARED, 'vocab.txt'));
    assert.equal(await verifyFile(join(SHARED, 'vocab.txt'), { size: vocab.length, sha256: createHash('sha256').update(vocab).digest('hex') }), undefined);
    assert.equal(sha256FromEtag(`"${ptr.sha256}"`), ptr.sha256);
    assert.equal(sha256FromEtag('W/"' + 'a'.repeat(40) + '"'), undefined, 'a git blob hash is not a SHA-256');
    assert.throws(() => parseLfsPointer('hello'), /not a Git LFS pointer/);
  });
});
