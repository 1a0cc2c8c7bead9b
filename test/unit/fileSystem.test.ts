/**
 * The library's file system at its worst (issue 14, item 6): link loops, links
 * leading outside the library, unreadable files, a folder named x.pdf, names
 * that are not UTF-8 or are very long, a file changed or deleted while it is
 * read. Everything is handled and reported by name; nothing aborts the run.
 * (100,000 files in one folder: test/stress/library.stress.ts.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { discoverPdfs } from '../../src/core/library/discover';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { buildPdf } from '../support/pdfWriter';
import { smallPdfSpec, snapshotIndex } from '../support/stressLibrary';

const pdf = (seed: number) => buildPdf(smallPdfSpec(seed, 1));

/** The first folder above `dir` that other users cannot pass through (no o+x), if any. */
function ancestorsClosedToOthers(dir: string): string | undefined {
  for (let d = dirname(dir); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return d;
    if (dirname(d) === d) return undefined;
  }
}

describe('library file system', function () {
  this.timeout(60_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-fs-'));
  const lib = join(root, 'library');
  const outside = join(root, 'elsewhere');

  before(() => {
    mkdirSync(join(lib, 'sub'), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(lib, 'a.pdf'), pdf(1));
    writeFileSync(join(lib, 'sub', 'b.pdf'), pdf(2));
    writeFileSync(join(outside, 'private.pdf'), pdf(3));
    symlinkSync(lib, join(lib, 'sub', 'loop')); // a folder link back to the top: a loop if followed
    symlinkSync(join(lib, 'sub'), join(lib, 'sub', 'self.pdf')); // a folder link named like a PDF
    symlinkSync(join(outside, 'private.pdf'), join(lib, 'outside.pdf')); // a file elsewhere
    symlinkSync(outside, join(lib, 'outside-folder'));
    symlinkSync(join(lib, 'a.pdf'), join(lib, 'sub', 'alias.pdf')); // a file inside the library
    symlinkSync(join(lib, 'gone.pdf'), join(lib, 'dangling.pdf'));
    mkdirSync(join(lib, 'folder.pdf'));
    writeFileSync(join(lib, 'folder.pdf', 'inner.pdf'), pdf(4));
    writeFileSync(join(lib, `${'l'.repeat(250)}.pdf`), pdf(5)); // 254 bytes, the longest name most file systems take
    writeFileSync(Buffer.from(join(lib, 'latin1-\xe9t\xe9.pdf'), 'latin1'), pdf(6)); // not UTF-8
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('follows links to files inside the library only; never folder links (no loop); says what it skipped', async () => {
    const { files, warnings } = await discoverPdfs({ folders: [lib], baseDir: root });
    const rels = files.map((f) => f.rel).sort();
    assert.deepEqual(rels, ['a.pdf', 'folder.pdf/inner.pdf', `${'l'.repeat(250)}.pdf`, 'sub/alias.pdf', 'sub/b.pdf']);
    const w = warnings.join('\n');
    assert.match(w, /link not followed: .*outside\.pdf points outside the library folders \(.*elsewhere\/private\.pdf\)/);
    assert.match(w, /link not followed: .*sub\/loop is a link to a folder/);
    assert.match(w, /link not followed: .*outside-folder is a link to a folder/);
    assert.match(w, /link not followed: .*sub\/self\.pdf is a link to a folder/);
    assert.match(w, /link not followed: .*dangling\.pdf points to nothing \(ENOENT\)/);
    assert.match(w, /cannot read .*latin1-.*\.pdf: its file name is not valid UTF-8; rename the file/);
  });

  it('a library folder reached through a link is read (the link is the folder the user named)', async () => {
    const link = join(root, 'lib-link');
    symlinkSync(lib, link);
    const { files } = await discoverPdfs({ folders: [link], baseDir: root });
    assert.ok(files.some((f) => f.rel === 'sub/alias.pdf'));
  });

  it('indexes the rest when a file is deleted, or changed, between discovery and reading', async () => {
    const ws = join(root, 'ws-race');
    const lib2 = join(root, 'lib2');
    mkdirSync(lib2);
    for (let i = 1; i <= 4; i++) writeFileSync(join(lib2, `p${i}.pdf`), pdf(10 + i));
    const { inputs } = await libraryInputs({ folders: [lib2], baseDir: root });
    rmSync(join(lib2, 'p2.pdf'));
    writeFileSync(join(lib2, 'p3.pdf'), pdf(99)); // changed: other bytes, other size
    const report = await updateIndex(inputs, { workspace: ws, provider: new EmbeddedProvider() });
    assert.equal(report.sources, 3);
    assert.deepEqual(
      report.skipped.map((s) => s.path),
      [join(lib2, 'p2.pdf')],
    );
    assert.match(report.skipped[0].reason, /cannot read the file: it does not exist/);
    // The next run sees the library as it is, and the index equals a clean build of it.
    const again = await updateIndex((await libraryInputs({ folders: [lib2], baseDir: root })).inputs, { workspace: ws, provider: new EmbeddedProvider() });
    assert.equal(again.added + again.updated, 0, 'the changed file was indexed from its new bytes already');
    const clean = join(root, 'ws-clean');
    await updateIndex((await libraryInputs({ folders: [lib2], baseDir: root })).inputs, { workspace: clean, provider: new EmbeddedProvider() });
    const key = new EmbeddedProvider().key;
    assert.deepEqual((await snapshotIndex(ws, key))!.sources, (await snapshotIndex(clean, key))!.sources);
  });

  it('an unreadable file (chmod 000), for a user who cannot read it: skipped and reported by name, the rest indexed', function () {
    // Root reads any file, so the CLI runs as "nobody" (setpriv); without setpriv or root, this cannot be shown.
    const setpriv = spawnSync('setpriv', ['--version']);
    if (setpriv.status !== 0 || process.getuid?.() !== 0) {
      console.log('      skipped: running the CLI as another user needs root and setpriv');
      this.skip();
    }
    assert.ok(existsSync(resolve('dist/cli.js')), 'dist/cli.js is missing: run npm run build first');
    // "nobody" may not reach the clone (a mktemp -d folder or /root is mode 700): it runs a copy
    // of the self-contained bundle from the test's own folder, which it can reach.
    chmodSync(root, 0o755);
    const blocked = ancestorsClosedToOthers(root);
    if (blocked) {
      console.log(`      skipped: ${blocked} (an ancestor of the temp folder) is closed to other users, so no other user can be shown the file`);
      this.skip();
    }
    const bundle = join(root, 'dist');
    cpSync(resolve('dist'), bundle, { recursive: true });
    const cli = join(bundle, 'cli.js');
    const lib3 = join(root, 'lib3');
    const ws = join(root, 'ws3');
    mkdirSync(lib3);
    mkdirSync(ws);
    writeFileSync(join(lib3, 'ok.pdf'), pdf(21));
    writeFileSync(join(lib3, 'locked.pdf'), pdf(22));
    chmodSync(join(lib3, 'locked.pdf'), 0o000);
    chownSync(ws, 65534, 65534);
    const r = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, cli, 'index', '--library', lib3, '--workspace', ws, '--json'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.sources, 1);
    assert.equal(report.skipped.length, 1);
    assert.equal(report.skipped[0].path, join(lib3, 'locked.pdf'));
    assert.match(report.skipped[0].reason, /EACCES|permission denied/i);
  });
});
