/**
 * A realistic Zotero / Better BibTeX export (test/fixtures/bib/zotero-export.bib, 30 entries:
 * LaTeX accents in every spelling, case-protecting braces, "and" lists with particles, suffixes
 * and institutions, math, Zotero "description:path:mime" file lists) against the entries it
 * must give, reviewed by hand (zotero-export.expected.json; relative files are relative to the
 * fixture's folder).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadBibliography, type BibEntry } from '../../src/core/library/bibliography';

const DIR = path.resolve(__dirname, '../fixtures/bib');

describe('a realistic Better BibTeX export', () => {
  it('gives every entry as reviewed, with no warning', async () => {
    const expected = (JSON.parse(readFileSync(path.join(DIR, 'zotero-export.expected.json'), 'utf8')) as BibEntry[]).map((e) => ({
      ...e,
      files: e.files.map((f) => (path.isAbsolute(f) || /^[A-Za-z]:\\/.test(f) ? f : path.join(DIR, f))),
    }));
    const r = await loadBibliography(path.join(DIR, 'zotero-export.bib'));
    assert.deepEqual(r.warnings, []);
    assert.equal(r.entries.length, 30);
    for (let i = 0; i < expected.length; i++) assert.deepEqual(r.entries[i], expected[i], expected[i].citekey);
  });
});
