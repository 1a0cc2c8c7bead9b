import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  copyConfined,
  hashConfined,
  openConfined,
  openConfinedSync,
  readConfined,
  readConfinedText,
  readConfinedTextSync,
  statConfined,
  type FileRefused,
  type FileRule,
} from '../../src/core/util/confinedFiles';
import { closeSync } from 'node:fs';

/** The refusal's code (and message) a call ends with, or 'read' when it reads. */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'read';
  } catch (e) {
    return (e as FileRefused).code ?? `thrown: ${(e as Error).message}`;
  }
}

function outcomeSync(f: () => unknown): string {
  try {
    f();
    return 'read';
  } catch (e) {
    return (e as FileRefused).code ?? `thrown: ${(e as Error).message}`;
  }
}

describe('confinedFiles: the one rule for every file read (issue 35)', function () {
  this.timeout(30_000);
  let dir: string;
  let ws: string;
  let outside: string;
  const draftRule = (): FileRule => ({ kind: 'draft', within: [ws], rootName: 'the workspace', namedBy: "the tool's argument" });

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ss-confined-'));
    ws = join(dir, 'ws');
    outside = join(dir, 'elsewhere');
    mkdirSync(join(ws, 'chapters'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(ws, 'draft.md'), '# Draft\n\nText.\n');
    writeFileSync(join(outside, 'secret.tex'), 'SECRET-WORD');
    symlinkSync(join(outside, 'secret.tex'), join(ws, 'chapters', 'leak.tex'));
    symlinkSync(join(ws, 'draft.md'), join(ws, 'alias.md'));
    execFileSync('mkfifo', [join(ws, 'pipe.md')]);
    symlinkSync('/dev/zero', join(ws, 'zero.bib'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file inside its root, by its real path, links inside followed', async () => {
    const r = await readConfinedText(join(ws, 'alias.md'), draftRule());
    assert.equal(r.text, '# Draft\n\nText.\n');
    assert.equal(r.path, await fsp.realpath(join(ws, 'draft.md')));
    assert.equal(readConfinedTextSync(join(ws, 'draft.md'), draftRule()).text, '# Draft\n\nText.\n');
  });

  it('refuses a name outside its root before asking the file system, saying who may widen it', async () => {
    const missing = join(outside, 'does-not-exist.bib');
    await assert.rejects(
      readConfined(missing, { ...draftRule(), kind: 'bibliography', namedBy: "the draft's front matter", widenedBy: 'similarSources.bibliographyFile' }),
      (e: FileRefused) => {
        assert.equal(e.code, 'outside'); // not "missing": no answer says whether a file elsewhere exists
        assert.match(
          e.message,
          /is outside the workspace, not read; the draft's front matter may not name a file elsewhere \(name it in the setting similarSources\.bibliographyFile to use it\)/,
        );
        return true;
      },
    );
    assert.equal(await outcome(readConfined(join(ws, '..', 'elsewhere', 'secret.tex'), draftRule())), 'outside');
  });

  it('refuses a link inside its root to a file outside (the symlinked \\input), sync and async', async () => {
    const leak = join(ws, 'chapters', 'leak.tex');
    await assert.rejects(
      readConfinedText(leak, draftRule()),
      (e: FileRefused) => e.code === 'outside' && /is a link to a file outside the workspace/.test(e.message) && !e.message.includes('SECRET'),
    );
    assert.equal(
      outcomeSync(() => readConfinedTextSync(leak, draftRule())),
      'outside',
    );
    assert.equal(await outcome(statConfined(leak, draftRule())), 'outside');
    // Without a root (a file the user named in a setting), the same link is read.
    assert.equal((await readConfinedText(leak, { kind: 'bibliography' })).text, 'SECRET-WORD');
  });

  it('refuses FIFOs and devices before opening them: nothing waits, nothing fills memory', async () => {
    const started = Date.now();
    // A link in the workspace to /dev/zero lies outside it; named in a setting (no root), it is a device.
    assert.equal(await outcome(readConfined(join(ws, 'zero.bib'), draftRule())), 'outside');
    for (const f of [join(ws, 'pipe.md'), join(ws, 'zero.bib')]) {
      assert.equal(await outcome(readConfined(f, { kind: 'bibliography' })), 'not-a-file', f);
      assert.equal(
        outcomeSync(() => readConfinedTextSync(f, { kind: 'latex-input' })),
        'not-a-file',
        f,
      );
      assert.equal(await outcome(openConfined(f, { kind: 'index' })), 'not-a-file', f);
      assert.equal(
        outcomeSync(() => openConfinedSync(f, { kind: 'index' })),
        'not-a-file',
        f,
      );
      assert.equal(await outcome(copyConfined(f, join(dir, 'copy'), { kind: 'zotero-wal' })), 'not-a-file', f);
      assert.equal(await outcome(hashConfined(f, { kind: 'index' })), 'not-a-file', f);
    }
    await assert.rejects(
      readConfined('/dev/zero', { kind: 'bibliography' }),
      (e: FileRefused) => e.code === 'not-a-file' && /is a device, not a regular file/.test(e.message),
    );
    await assert.rejects(readConfined(join(ws, 'pipe.md'), { kind: 'draft' }), /is a FIFO \(named pipe\), not a regular file/);
    assert.equal(await outcome(readConfined(ws, { kind: 'draft' })), 'not-a-file');
    // Twenty FIFO reads at once (more than Node's four I/O threads) leave the threads free.
    assert.deepEqual(
      new Set(await Promise.all(Array.from({ length: 20 }, () => outcome(readConfined(join(ws, 'pipe.md'), draftRule()))))),
      new Set(['not-a-file']),
    );
    assert.ok((await fsp.readFile(join(ws, 'draft.md'), 'utf8')).startsWith('# Draft'));
    assert.ok(Date.now() - started < 10_000, 'refused at once');
  });

  it('stops at the cap by reading, never trusting stat.size', async () => {
    const big = join(ws, 'big.md');
    writeFileSync(big, Buffer.alloc(3000, 0x61));
    assert.equal(await outcome(readConfined(big, { ...draftRule(), maxBytes: 2999 })), 'too-large');
    assert.equal((await readConfined(big, { ...draftRule(), maxBytes: 3000 })).bytes.length, 3000);
    assert.equal(
      outcomeSync(() => readConfinedTextSync(big, { ...draftRule(), maxBytes: 100 })),
      'too-large',
    );
    // A /proc file says 0 bytes and holds more: read whole, by chunks.
    const status = await readConfinedText('/proc/self/status', { kind: 'system' });
    assert.match(status.text, /^Name:/);
    const copied = await copyConfined(big, join(dir, 'copied'), { kind: 'zotero-wal' });
    assert.equal(copied.size, 3000);
    assert.equal(await outcome(copyConfined(big, join(dir, 'copied2'), { kind: 'zotero-wal', maxBytes: 10 })), 'too-large');
  });

  it('answers within its deadline, and a cancel at once', async () => {
    const big = join(dir, 'large.bin');
    writeFileSync(big, Buffer.alloc(64 * 1024 * 1024, 1));
    await assert.rejects(
      readConfined(big, { kind: 'pdf', deadlineMs: 1 }),
      (e: FileRefused) => e.code === 'timeout' && /could not be read within/.test(e.message),
    );
    const ac = new AbortController();
    ac.abort();
    assert.equal(await outcome(readConfined(big, { kind: 'pdf', signal: ac.signal })), 'cancelled');
    // The reads given up still free their slots: a later read goes through.
    assert.equal((await readConfined(big, { kind: 'pdf' })).bytes.length, 64 * 1024 * 1024);
  });

  it('says a missing file is missing (inside its root)', async () => {
    await assert.rejects(readConfined(join(ws, 'nope.md'), draftRule()), (e: FileRefused) => e.code === 'missing' && /does not exist/.test(e.message));
  });

  it('opens a handle for reads of parts, closed by the caller', async () => {
    const o = await openConfined(join(ws, 'draft.md'), draftRule());
    const buf = Buffer.alloc(7);
    await o.handle.read(buf, 0, 7, 0);
    await o.handle.close();
    assert.equal(buf.toString(), '# Draft');
    const s = openConfinedSync(join(ws, 'draft.md'), draftRule());
    assert.equal(s.size, 15);
    closeSync(s.fd);
  });
});
