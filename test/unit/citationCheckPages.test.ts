import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prunePageTexts, readPageTexts, writePageTexts } from '../../src/core/index/store/pageTexts';

describe('citation check: the page-text store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ss-pages-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const hash = 'a'.repeat(64);

  it('keeps each page with its printed label (the page number when none) and its OCR flag', async () => {
    await writePageTexts(
      dir,
      hash,
      [
        {
          page: 1,
          label: 'xi',
          blocks: [
            { kind: 'heading', text: 'Preface' },
            { kind: 'text', text: 'First words.' },
          ],
        },
        { page: 2, blocks: [{ kind: 'text', text: 'Scanned words.' }] },
      ],
      new Set([2]),
    );
    assert.deepEqual(await readPageTexts(dir, hash), [
      { page: 1, label: 'xi', ocr: false, text: 'Preface\n\nFirst words.' },
      { page: 2, label: '2', ocr: true, text: 'Scanned words.' },
    ]);
  });

  it('a damaged file or one of another version is absent, never wrong', async () => {
    const file = join(dir, 'pages', `${hash.slice(0, 32)}.json`);
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.slice(0, 20));
    assert.equal(await readPageTexts(dir, hash), undefined);
    writeFileSync(file, good.replace('"chunker":1', '"chunker":999'));
    assert.equal(await readPageTexts(dir, hash), undefined);
    assert.equal(await readPageTexts(dir, 'b'.repeat(64)), undefined);
  });

  it('removes the page texts of PDFs no longer indexed', async () => {
    await writePageTexts(dir, 'c'.repeat(64), [{ page: 1, blocks: [] }], new Set());
    await prunePageTexts(dir, ['c'.repeat(64)]);
    assert.deepEqual(readdirSync(join(dir, 'pages')), [`${'c'.repeat(32)}.json`]);
  });
});
