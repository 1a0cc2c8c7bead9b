import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverPdfs } from '../../src/core/library/discover';
import { resolveMetadata, fileTitle } from '../../src/core/library/metadata';
import type { RawPdf } from '../../src/core/pdf/extract';

describe('discoverPdfs', () => {
  const root = mkdtempSync(join(tmpdir(), 'ss-discover-'));
  const lib = join(root, 'library');
  for (const f of ['a.pdf', 'sub/b.PDF', 'sub/deep/c.pdf', 'archives/d.pdf', 'drafts/e.pdf', 'notes.txt', '.similar-sources/x.pdf', 'node_modules/y.pdf']) {
    mkdirSync(join(lib, f, '..'), { recursive: true });
    writeFileSync(join(lib, f), '%PDF-1.4');
  }

  it('finds PDFs recursively, case-insensitively, skipping our own index and node_modules', async () => {
    const { files, warnings } = await discoverPdfs({ folders: [lib], baseDir: root });
    assert.deepEqual(files.map((f) => f.rel).sort(), ['a.pdf', 'archives/d.pdf', 'drafts/e.pdf', 'sub/b.PDF', 'sub/deep/c.pdf']);
    assert.deepEqual(warnings, []);
  });

  it('applies include and exclude globs relative to the library folder', async () => {
    const { files } = await discoverPdfs({ folders: [lib], baseDir: root, include: ['sub/**/*.pdf'], exclude: ['**/deep/**'] });
    assert.deepEqual(
      files.map((f) => f.rel),
      ['sub/b.PDF'],
    );
  });

  it('marks primary sources by folder or glob and reports missing folders', async () => {
    const { files, warnings } = await discoverPdfs({ folders: ['library', 'nowhere'], baseDir: root, primary: ['library/archives', '**/e.pdf'] });
    const primary = files
      .filter((f) => f.sourceType === 'primary')
      .map((f) => f.rel)
      .sort();
    assert.deepEqual(primary, ['archives/d.pdf', 'drafts/e.pdf']);
    assert.equal(files.filter((f) => f.sourceType === 'secondary').length, 3);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /library folder not found: .*nowhere/);
  });
});

describe('resolveMetadata', () => {
  const raw = (info: RawPdf['info']): RawPdf => ({ pageCount: 1, pages: [''], info });

  it('prefers the bibliography entry', () => {
    const m = resolveMetadata('/x/braudel.pdf', raw({ title: 'Info title', author: 'Someone' }), undefined, {
      citekey: 'braudel1949',
      title: 'La Méditerranée',
      authors: ['Braudel, Fernand'],
      year: 1949,
      collections: ['Thesis'],
    });
    assert.deepEqual(
      [m.title, m.citekey, m.year, m.authors, m.collections, m.titleFrom],
      ['La Méditerranée', 'braudel1949', 1949, ['Braudel, Fernand'], ['Thesis'], 'bibliography'],
    );
  });

  it('uses PDF Info, then the first page, then the file name, never a blank title', () => {
    const a = resolveMetadata('/x/a.pdf', raw({ title: 'Grain and Power', author: 'A. Smith; B. Jones', creationDate: "D:20190314093000+01'00'" }), undefined);
    assert.deepEqual([a.title, a.authors, a.year, a.titleFrom], ['Grain and Power', ['A. Smith', 'B. Jones'], 2019, 'pdf-info']);
    const b = resolveMetadata('/x/b.pdf', raw({ title: 'Microsoft Word - draft3.docx' }), [
      {
        page: 1,
        blocks: [
          { kind: 'heading', text: 'L’école des Annales' },
          { kind: 'text', text: 'Texte.' },
        ],
      },
    ]);
    assert.deepEqual([b.title, b.titleFrom], ['L’école des Annales', 'first-page']);
    const c = resolveMetadata('/x/my_scan_1987.pdf', raw({}), [{ page: 1, blocks: [] }]);
    assert.deepEqual([c.title, c.titleFrom], ['my scan 1987', 'file-name']);
    assert.equal(fileTitle('/x/.pdf'), '.pdf');
  });
});
