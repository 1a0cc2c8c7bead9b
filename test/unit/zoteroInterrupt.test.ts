/**
 * Issue 35, row 11: a process stopped while it copies Zotero's database leaves no copy behind.
 * The copy is made slow (test/support/zotero/slowReads.mjs: every read of zotero.sqlite waits 2 s)
 * so that the signal comes while it is under way; each child has a TMPDIR of its own, and what
 * it leaves there is looked at once it has ended.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { makeZoteroLibrary, type GeneratedLibrary } from '../support/zotero/library';

const SLOW = path.resolve('test/support/zotero/slowReads.mjs');
const READER = path.resolve('test/support/zotero/readInChild.ts');
const CLI = path.resolve('dist/cli.js');
const copies = (tmp: string) => readdirSync(tmp).filter((f) => f.startsWith('similar-sources-zotero-'));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

/** Starts `args`, sends `signals` (100 ms apart) once a copy folder is in `tmp`, and waits (at most 20 s) for its end. */
function stopWhileCopying(args: string[], tmp: string, home: string, signals: NodeJS.Signals[]): Promise<Ended> {
  const child = spawn(process.execPath, ['--import', SLOW, ...args], {
    env: { ...process.env, TMPDIR: tmp, HOME: home, SLOW_READ_MS: '2000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      if (!copies(tmp).length) return;
      clearInterval(poll);
      signals.forEach((s, i) => setTimeout(() => child.kill(s), 100 + 100 * i));
    }, 20);
    const limit = setTimeout(() => {
      clearInterval(poll);
      child.kill('SIGKILL');
      reject(new Error(`the child did not end within 20 s: ${out}`));
    }, 20_000);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(limit);
      resolve({ code, signal, out });
    });
  });
}

describe('Zotero: no copy of the database outlives a process stopped while copying it', function () {
  this.timeout(60_000);
  let root: string;
  let lib: GeneratedLibrary;
  let tmp: string;
  let home: string;

  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'zint-'));
    lib = makeZoteroLibrary(root);
    home = path.join(root, 'home');
    mkdirSync(home);
  });
  after(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(() => (tmp = mkdtempSync(path.join(root, 'tmp-'))));

  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    it(`a reader with no listener of its own, sent ${sig}: it dies of ${sig}, the copy is removed`, async () => {
      const r = await stopWhileCopying(['--import', 'tsx', READER, lib.dataDir], tmp, home, [sig]);
      assert.equal(r.signal, sig, r.out);
      assert.doesNotMatch(r.out, /^read \d+/m, 'stopped before the read ended');
      assert.deepEqual(copies(tmp), []);
    });
  }

  it('the CLI, Ctrl-C: the index run is cancelled, the copy removed', async () => {
    const ws = mkdtempSync(path.join(root, 'ws-'));
    const r = await stopWhileCopying([CLI, 'index', '--zotero', lib.dataDir, '--workspace', ws], tmp, home, ['SIGINT']);
    assert.match(r.out, /cancelling/, r.out);
    assert.match(r.out, /zotero\.sqlite was not read: cancelled/, 'the read stopped, said so');
    assert.deepEqual(copies(tmp), []);
  });

  it('the CLI, Ctrl-C twice (it exits at once, 130) and SIGTERM twice: the copy removed', async () => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      const ws = mkdtempSync(path.join(root, 'ws-'));
      const r = await stopWhileCopying([CLI, 'index', '--zotero', lib.dataDir, '--workspace', ws], tmp, home, [sig, sig]);
      assert.ok(r.code !== null || r.signal !== null, r.out);
      assert.deepEqual(copies(tmp), [], `${sig} twice: ${r.out}`);
    }
  });
});
