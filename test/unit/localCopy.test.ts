import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCandidates, findLocalCopy } from '../../src/core/library/localCopy';
import { createEngine } from '../../src/engine/instance';
import { defaultSettings } from '../../src/shared/settings';

describe("a library server's PDF on a member's machine (core/library/localCopy.ts)", () => {
  let root: string;
  let zotero: string;
  let shared: string;
  const pdf = (file: string, bytes: string) => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, bytes);
    return file;
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ss-local-copy-'));
    zotero = join(root, 'Zotero');
    shared = join(root, 'mnt', 'lab');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("finds a Zotero group's attachment under the same key in the member's storage, from a Windows publisher's path", async () => {
    const copy = pdf(join(zotero, 'storage', 'ABCD2345', 'Whitfield - 2019 - Bread.pdf'), '%PDF-1.4 same bytes');
    const published = 'C:\\Users\\alice\\Zotero\\storage\\ABCD2345\\Whitfield - 2019 - Bread.pdf';
    assert.equal(await findLocalCopy({ path: published, size: 19 }, { zoteroDataDir: zotero, folders: [] }), copy);
    assert.equal(await findLocalCopy({ path: published, size: 20 }, { zoteroDataDir: zotero, folders: [] }), undefined, 'another size: another file');
  });

  it('finds a shared folder mounted elsewhere by the longest matching tail of the path, the same size only', async () => {
    const right = pdf(join(shared, 'history', '1690s', 'famine.pdf'), '%PDF right');
    pdf(join(shared, 'famine.pdf'), '%PDF another, longer file');
    const published = '/home/alice/lab/history/1690s/famine.pdf';
    assert.equal(await findLocalCopy({ path: published, size: 10 }, { folders: [shared] }), right);
    assert.equal(await findLocalCopy({ path: published, size: 25 }, { folders: [shared] }), join(shared, 'famine.pdf'));
    assert.equal(await findLocalCopy({ path: published, size: 3 }, { folders: [shared] }), undefined);
  });

  it('the same path where it lies in one of the member’s folders (a drive mounted alike), however deep', async () => {
    const deep = pdf(join(shared, 'a', 'b', 'c', 'd', 'e', 'deep.pdf'), '%PDF deep');
    assert.equal(await findLocalCopy({ path: deep, size: 9 }, { folders: [shared] }), deep);
    assert.equal(await findLocalCopy({ path: deep, size: 9 }, { folders: [join(root, 'other')] }), undefined, 'outside every folder: not looked at');
  });

  it('a path from the server is never trusted as one: no .. or ., only PDFs, and a link out of the folder is not followed', async () => {
    const secret = pdf(join(root, 'secret.pdf'), '%PDF secret');
    assert.deepEqual(copyCandidates('/x/../../secret.pdf', { folders: [shared] }), []);
    assert.deepEqual(copyCandidates('/x/./secret.pdf', { folders: [shared] }), []);
    assert.deepEqual(copyCandidates('/home/alice/.ssh/id_rsa', { folders: [shared] }), []);
    assert.deepEqual(copyCandidates('/home/alice/\0.pdf', { folders: [shared] }), []);
    mkdirSync(shared, { recursive: true });
    symlinkSync(secret, join(shared, 'linked.pdf'));
    assert.equal(await findLocalCopy({ path: '/home/alice/linked.pdf', size: 11 }, { folders: [shared] }), undefined);
    // A storage folder name that is not a Zotero key is only a folder name.
    assert.ok(!copyCandidates('/z/storage/../x.pdf', { zoteroDataDir: zotero, folders: [] }).length);
    assert.deepEqual(
      copyCandidates('/z/storage/not-a-key/x.pdf', { zoteroDataDir: zotero, folders: [] }).map((c) => c.file),
      [],
    );
  });

  it("with the library server out of reach, Open PDF still finds the member's copy by its place and name, and says why when there is none", async () => {
    const copy = pdf(join(shared, 'history', 'famine.pdf'), '%PDF right');
    const ws = join(root, 'member');
    mkdirSync(ws);
    // Nothing listens on port 9: the server cannot be read, so the library's sizes are unknown.
    const settings = { ...defaultSettings(), libraryServer: 'postgres://reader@127.0.0.1:9/lab', libraryFolders: [shared], zotero: 'off' as const };
    const engine = createEngine({ workspace: ws, settings, provider: { provider: 'embedded' } });
    try {
      assert.deepEqual(await engine.pdfOnThisMachine('/home/alice/lab/history/famine.pdf'), { path: copy, copy: true });
      const none = await engine.pdfOnThisMachine('/home/alice/lab/history/plague.pdf');
      assert.ok('problem' in none, JSON.stringify(none));
      assert.match(none.problem, /is in the lab's library, which is out of reach: it was published from \/home\/alice\/lab\/history\/plague\.pdf/);
    } finally {
      await engine.dispose();
    }
  });
});
