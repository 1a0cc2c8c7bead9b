/**
 * Item 6 of issue 14, at scale: 100,000 files in one folder (20 PDFs, 2,000
 * empty files named .pdf, the rest notes): discovered, indexed and reported by
 * the CLI, nothing aborted. Time and peak RSS recorded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { discoverPdfs } from '../../src/core/library/discover';
import { buildPdf } from '../support/pdfWriter';
import { smallPdfSpec } from '../support/stressLibrary';
import { record } from './report';

const CLI = resolve('dist/cli.js');

describe('100,000 files in one folder', function () {
  this.timeout(10 * 60_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-100k-'));
  const lib = join(root, 'library');
  after(() => rmSync(root, { recursive: true, force: true }));

  it('discovers, indexes and reports them without aborting', async () => {
    mkdirSync(lib);
    for (let i = 0; i < 20; i++) writeFileSync(join(lib, `real-${i}.pdf`), buildPdf(smallPdfSpec(i + 1, 1)));
    for (let i = 0; i < 2000; i++) writeFileSync(join(lib, `empty-${i}.pdf`), '');
    for (let i = 0; i < 100_000 - 2020; i++) writeFileSync(join(lib, `note-${i}.txt`), 'n');
    const t0 = Date.now();
    const { files } = await discoverPdfs({ folders: [lib], baseDir: root });
    const discoverMs = Date.now() - t0;
    assert.equal(files.length, 2020);
    const t1 = Date.now();
    const r = spawnSync(
      '/bin/sh',
      [
        '-c',
        `command -v /usr/bin/time >/dev/null && exec /usr/bin/time -f 'RSS %M' "$0" "$@" || exec "$0" "$@"`,
        process.execPath,
        CLI,
        'index',
        '--library',
        lib,
        '--workspace',
        join(root, 'ws'),
        '--json',
      ],
      { encoding: 'utf8', maxBuffer: 256 << 20, timeout: 8 * 60_000 },
    );
    const indexMs = Date.now() - t1;
    assert.equal(r.status, 0, r.stderr.slice(-2000));
    const report = JSON.parse(r.stdout);
    assert.equal(report.sources, 20);
    assert.equal(report.skipped.length, 2000);
    assert.ok(report.skipped.every((s: { path: string; reason: string }) => /empty-\d+\.pdf$/.test(s.path) && s.reason.length > 0));
    const rss = /RSS (\d+)/.exec(r.stderr)?.[1];
    const again = spawnSync(process.execPath, [CLI, 'index', '--library', lib, '--workspace', join(root, 'ws'), '--json'], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    assert.equal(again.status, 0);
    const second = JSON.parse(again.stdout);
    assert.ok(second.skipped.every((s: { reason: string }) => /unchanged since the last attempt/.test(s.reason)));
    assert.equal(second.unchanged, 20);
    record('100,000 files in one folder (20 PDFs, 2,000 empty .pdf)', {
      tried: 1,
      crashes: 0,
      dataLost: 0,
      note: `discovered in ${discoverMs} ms; first index ${(indexMs / 1000).toFixed(1)} s${rss ? `, peak RSS ${Math.round(Number(rss) / 1024)} MB` : ''}: 20 indexed, each empty file skipped by name ("${report.skipped[0].reason}"); the next run re-reads none of them`,
    });
  });
});
