/**
 * Hostile drafts at ordinary sizes (issue 14, item 4); the huge ones, with
 * time, memory and event-loop delay, are in test/stress/drafts.stress.ts.
 */
import assert from 'node:assert/strict';
import { MAX_NESTING, segmentMarkdown } from '../../src/core/markdown/segment';
import { errorCode } from '../../src/shared/errors';

const nestedList = (n: number) => Array.from({ length: n }, (_, i) => '  '.repeat(i) + `- item ${i} has a few words`).join('\n');
const nestedQuote = (n: number) => Array.from({ length: n }, (_, i) => '>'.repeat(i + 1) + ` quote ${i} has a few words`).join('\n');

describe('hostile drafts', () => {
  it('1,000 levels of nested lists or quotes: refused at once with the line, not parsed for a minute', async () => {
    for (const src of [nestedList(1000), nestedQuote(1000)]) {
      const t0 = Date.now();
      await assert.rejects(segmentMarkdown(src), (e) => errorCode(e) === 'unreadable' && /more than 100 levels deep \(line 10[12]\)/.test((e as Error).message));
      assert.ok(Date.now() - t0 < 500);
    }
  });

  it(`${MAX_NESTING} levels are still segmented`, async () => {
    const { segments } = await segmentMarkdown(nestedList(MAX_NESTING));
    assert.equal(segments.length, MAX_NESTING);
    assert.equal(segments.at(-1)!.startLine, MAX_NESTING);
  });

  it('a byte-order mark: segment texts and lines exact', async () => {
    const { segments } = await segmentMarkdown('\uFEFF# Title\n\nFirst paragraph has words.\n\nSecond paragraph has words.\n');
    assert.deepEqual(segments.map((s) => [s.startLine, s.text]), [[3, 'First paragraph has words.'], [5, 'Second paragraph has words.']]);
  });

  it('mixed line endings (LF, CRLF, lone CR): lines counted as the editor counts them, in every granularity', async () => {
    const src = 'First paragraph has words.\r\n\r\nSecond paragraph has words.\r\rThird paragraph has words.\n\nFourth one. It has two sentences.';
    for (const g of ['paragraph', 'sentence'] as const) {
      const { segments } = await segmentMarkdown(src, g);
      const lines = src.split(/\r\n|\r|\n/);
      for (const s of segments) assert.ok(lines[s.startLine - 1].includes(s.text.split(/\r\n|\r|\n/)[0]), `${g}: ${s.text} not on line ${s.startLine}`);
      assert.deepEqual(segments.slice(0, 4).map((s) => s.startLine), [1, 3, 5, 7]);
    }
  });

  it('binary garbage and NUL bytes: segmented without error, nothing outside the document', async () => {
    let seed = 7;
    const bytes = Buffer.alloc(20_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
    const src = bytes.toString('utf8') + '\n\nA real paragraph after the garbage.\u0000';
    const { segments } = await segmentMarkdown(src);
    const lineCount = src.split(/\r\n|\r|\n/).length;
    for (const s of segments) assert.ok(s.endLine <= lineCount);
    assert.ok(segments.some((s) => s.text.startsWith('A real paragraph after the garbage.')));
  });
});
