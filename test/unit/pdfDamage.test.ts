import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { damagedSources } from '../../src/core/index/search/libraryIndex';
import { indexDir, readManifest } from '../../src/core/index/store/manifest';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { extractPdf } from '../../src/core/pdf/extract';
import { declaredPageCount, structuralDamage } from '../../src/core/pdf/pdfDamage';
import { truncatedSourceSpec } from '../support/pdfCorpus';
import { buildPdf, truncatePdf } from '../support/pdfWriter';

const whole = buildPdf(truncatedSourceSpec()); // 4 pages, "The Arsenal of Venice, part N"

/** The same file with every cross-reference offset 3 bytes off: pdf.js must rebuild the table. */
function withBrokenXref(pdf: Buffer): Buffer {
  return Buffer.from(
    pdf.toString('latin1').replace(/^(\d{10}) 00000 n $/gm, (_m, o: string) => `${String(Number(o) + 3).padStart(10, '0')} 00000 n `),
    'latin1',
  );
}

describe('damaged PDFs: indexed with what could be read, reported with what was lost', function () {
  this.timeout(60_000);

  it('a sound file has no damage', async () => {
    assert.equal(structuralDamage(whole), undefined);
    assert.equal(declaredPageCount(whole), 4);
    assert.equal((await extractPdf(whole)).damage, undefined);
  });

  it('a truncated download: the pages that arrived are read, the rest reported', async () => {
    const raw = await extractPdf(truncatePdf(whole, 0.45));
    assert.equal(raw.damage, 'read 2 of 4 pages (missing: 3, 4): truncated file (no cross-reference table at its end)');
    assert.match(raw.pages[0], /The Arsenal of Venice, part 1/);
    assert.match(raw.pages[1], /The Arsenal of Venice, part 2/);
  });

  it('a truncated file with too little left is still refused as not a valid PDF', async () => {
    await assert.rejects(extractPdf(truncatePdf(whole, 0.05)), /not a valid PDF/);
  });

  it('a repaired cross-reference table is reported even though every page was read', async () => {
    const raw = await extractPdf(withBrokenXref(whole));
    assert.equal(raw.damage, 'damaged cross-reference table (13 object offsets wrong); repaired, all 4 pages read');
    assert.equal(raw.pages.filter((p) => /The Arsenal of Venice/.test(p)).length, 4);
  });

  it('a file whose middle is lost: the pages whose objects are gone are named', async () => {
    const s = whole.toString('latin1');
    const cut = Buffer.from(s.slice(0, s.indexOf('11 0 obj')) + s.slice(s.indexOf('xref\n')), 'latin1');
    const raw = await extractPdf(cut);
    assert.match(raw.damage ?? '', /^read 2 of 4 pages \(missing: 3, 4\): damaged cross-reference table/);
  });

  it('the index report, its warnings and the manifest (status) keep the problem until the file changes', async () => {
    const root = await fs.mkdtemp(join(tmpdir(), 'ss-damage-'));
    const lib = join(root, 'lib');
    await fs.mkdir(lib);
    await fs.writeFile(join(lib, 'half.pdf'), truncatePdf(whole, 0.45));
    await fs.writeFile(join(lib, 'repaired.pdf'), withBrokenXref(whole));
    const run = async () =>
      updateIndex((await libraryInputs({ folders: [lib], baseDir: root, ocr: 'off' })).inputs, { workspace: root, provider: new EmbeddedProvider() });
    const r = await run();
    assert.equal(r.sources, 2);
    assert.deepEqual(r.damaged.map((d) => [d.path.split('/').pop(), d.problem.split(':')[0]]).sort(), [
      ['half.pdf', 'read 2 of 4 pages (missing'],
      ['repaired.pdf', 'damaged cross-reference table (13 object offsets wrong); repaired, all 4 pages read'],
    ]);
    assert.ok(
      r.warnings.some((w) => w.startsWith(join(lib, 'half.pdf') + ': read 2 of 4 pages')),
      r.warnings.join('\n'),
    );
    const problems = async () => damagedSources(await readManifest(indexDir(root))).map((d) => d.path.split('/').pop());
    assert.deepEqual(await problems(), ['half.pdf', 'repaired.pdf']);
    const again = await run();
    assert.deepEqual([again.unchanged, again.damaged.length], [2, 0], 'an unchanged file is not read (nor reported) again');
    assert.deepEqual(await problems(), ['half.pdf', 'repaired.pdf'], 'status still lists them');
    await fs.writeFile(join(lib, 'half.pdf'), whole);
    const fixed = await run();
    assert.equal(fixed.updated, 1);
    assert.deepEqual(await problems(), ['repaired.pdf'], 'the complete file is no longer listed');
  });
});
