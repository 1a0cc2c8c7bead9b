/**
 * Item 4 of issue 14, huge drafts: segmentation time, memory, and the event-loop
 * delay of the calling thread while segmenting — in the segmentation worker, as the
 * extension does (dist/segment-worker.js), and in the thread itself, as the CLI does.
 * p99 of the delay is what the editor would feel.
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { segmentMarkdown } from '../../src/core/markdown/segment';
import { SegmentThread } from '../../src/core/markdown/segmentThread';
import { errorCode } from '../../src/shared/errors';
import { paragraph, rng } from '../support/stressLibrary';
import { record } from './report';

/**
 * Segments `src` with a 5 ms timer ticking beside it, as the editor's other work would, and
 * records how late each tick came (the event-loop delay; monitorEventLoopDelay is read too, but
 * a single long block shows there as one late sample only).
 */
async function measure(src: string, segment: (src: string) => ReturnType<typeof segmentMarkdown> = (x) => segmentMarkdown(x)) {
  (globalThis as { gc?: () => void }).gc?.();
  const rss0 = process.memoryUsage().rss;
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const delays: number[] = [];
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    delays.push(Math.max(0, now - last - 5));
    last = now;
  }, 5);
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  let segments = -1;
  let error: unknown;
  try {
    segments = (await segment(src)).segments.length;
  } catch (err) {
    error = err;
  }
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 50));
  clearInterval(tick);
  h.disable();
  delays.sort((a, b) => a - b);
  const p99 = delays[Math.min(delays.length - 1, Math.floor(delays.length * 0.99))] ?? 0;
  const max = Math.max(delays.at(-1) ?? 0, h.max / 1e6);
  return { ms, segments, error, p99, max, rssMb: Math.round((process.memoryUsage().rss - rss0) / 1e6) };
}

describe('huge drafts: time, memory, event-loop delay', function () {
  this.timeout(5 * 60_000);
  const r = rng(4);
  // test:stress builds first: the worker bundle lies in dist/.
  const thread = SegmentThread.beside(resolve('dist'));
  before(() => assert.ok(thread, 'dist/segment-worker.js is built'));
  after(() => thread?.close());
  const cases: Array<[string, () => string, (m: Awaited<ReturnType<typeof measure>>) => void]> = [
    ['typical draft (50 KB, 100 paragraphs)', () => Array.from({ length: 100 }, () => paragraph(r, 4)).join('\n\n'), (m) => assert.equal(m.segments, 100)],
    ['5 MB draft, 10,000 paragraphs', () => Array.from({ length: 10_000 }, () => paragraph(r, 5)).join('\n\n'), (m) => assert.equal(m.segments, 10_000)],
    ['1 MB paragraph', () => Array.from({ length: 8_000 }, () => paragraph(r, 1)).join(' '), (m) => assert.equal(m.segments, 1)],
    [
      'table of 10,000 rows',
      () => '| a | b |\n|---|---|\n' + Array.from({ length: 10_000 }, (_, i) => `| cell ${i} words | more ${i} |`).join('\n'),
      (m) => assert.equal(m.segments, 0),
    ],
    [
      '1 MB of binary garbage',
      () => {
        const b = Buffer.alloc(1_000_000);
        for (let i = 0; i < b.length; i++) b[i] = Math.floor(r() * 256);
        return b.toString('utf8');
      },
      (m) => assert.equal(m.error, undefined),
    ],
    [
      '1,000 levels of nested lists',
      () => Array.from({ length: 1000 }, (_, i) => '  '.repeat(i) + `- item ${i} words`).join('\n'),
      (m) => assert.equal(errorCode(m.error), 'unreadable'),
    ],
    [
      '1,000 levels of nested quotes',
      () => Array.from({ length: 1000 }, (_, i) => '>'.repeat(i + 1) + ` quote ${i} words`).join('\n'),
      (m) => assert.equal(errorCode(m.error), 'unreadable'),
    ],
  ];
  for (const [name, make, check] of cases) {
    it(name, async () => {
      const src = make();
      const m = await measure(src, (x) => thread!.segment(x, 'paragraph'));
      check(m);
      const inThread = await measure(src);
      check(inThread);
      const what = m.error ? `refused: "${(m.error as Error).message.slice(0, 70)}…"` : `${m.segments} segments`;
      record(`draft: ${name}`, {
        tried: 1,
        crashes: 0,
        dataLost: 0,
        note: `${what}; ${(src.length / 1e6).toFixed(2)} MB segmented in ${Math.round(m.ms)} ms in the extension's worker: event-loop delay p99 ${m.p99.toFixed(0)} ms, max ${m.max.toFixed(0)} ms${m.max > 50 ? ' (the editor would be blocked > 50 ms)' : ''}; in the calling thread (the CLI) ${Math.round(inThread.ms)} ms, RSS +${inThread.rssMb} MB, delay max ${inThread.max.toFixed(0)} ms`,
      });
    });
  }
});
