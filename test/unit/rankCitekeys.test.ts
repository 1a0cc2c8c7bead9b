import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { errorCode } from '../../src/shared/errors';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { indexLibrary } from '../../src/engine/indexLibrary';
import { indexCitekeys, openIndex, rankCitekeys, readBibliography } from '../../src/engine/search';

const EXAMPLE = resolve('examples/library');

describe('engine API: citekeys for completion', function () {
  this.timeout(120_000);
  let ws: string;
  before(async () => {
    ws = await fs.mkdtemp(join(tmpdir(), 'ss-citekeys-'));
    await indexLibrary({
      library: {
        workspace: ws,
        folders: [EXAMPLE],
        fromSettings: true,
        primary: [join(EXAMPLE, 'archives')],
        bibliography: join(EXAMPLE, 'library.bib'),
        include: [],
        exclude: [],
        ocr: { mode: 'off', languages: 'eng+fra' },
      },
      provider: new EmbeddedProvider(),
      jobs: 0,
    });
  });
  after(() => fs.rm(ws, { recursive: true, force: true }));

  it('ranks the keys by relevance to a paragraph, each with its best page and passage', async () => {
    const index = await openIndex(ws, new EmbeddedProvider());
    const paragraph =
      'The Sicilian crown sold export permits for grain, and Genoese houses speculated on them before the reaping, so that feeding Venice and Naples was a matter of ships.';
    const hits = await rankCitekeys(index, paragraph, 5);
    assert.ok(hits.length >= 2 && hits.length <= 5, JSON.stringify(hits.map((h) => h.citekey)));
    assert.equal(hits[0].citekey, 'whitfield2019grain');
    assert.ok(hits[0].page >= 1 && hits[0].passage.length > 20 && hits[0].passage.length <= 400);
    assert.match(hits[0].passage, /permit|licen|grain|Sicil/i);
    assert.equal(new Set(hits.map((h) => h.citekey)).size, hits.length, 'one entry per key');
    const railway = await rankCitekeys(index, 'Railway timetables pushed every English town onto Greenwich time, carried by the telegraph.', 3);
    assert.equal(railway[0].citekey, 'pemberton2004clocks');
    assert.deepEqual(await rankCitekeys(index, '   ', 5), []);
  });

  it('lists every key of the index alphabetically', async () => {
    const index = await openIndex(ws, new EmbeddedProvider());
    const keys = indexCitekeys(index).map((e) => e.citekey);
    assert.ok(keys.includes('whitfield2019grain') && keys.includes('pemberton2004clocks'));
    assert.deepEqual(
      keys,
      [...keys].sort((a, b) => a.localeCompare(b)),
    );
  });

  it("reads the Better BibTeX export's keys alphabetically, and says when it cannot", async () => {
    const { entries } = await readBibliography(join(EXAMPLE, 'library.bib'));
    const keys = entries.map((e) => e.citekey);
    assert.ok(keys.length >= 8 && keys.includes('whitfield2019grain'), keys.join(' '));
    assert.deepEqual(
      keys,
      [...keys].sort((a, b) => a.localeCompare(b)),
    );
    const w = entries.find((e) => e.citekey === 'whitfield2019grain')!;
    assert.ok(w.title && w.year && w.authors.length);
    await assert.rejects(readBibliography(join(ws, 'missing.bib')), (e: unknown) => errorCode(e) === 'unreadable');
  });
});
