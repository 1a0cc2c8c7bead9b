import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { segmentMarkdown } from '../../src/core/markdown/segment';
import { SEGMENT_WORKER_FILE, SegmentThread } from '../../src/core/markdown/segmentThread';
import { errorCode } from '../../src/shared/errors';

const DIST = resolve('dist');

describe('segmentation in a worker thread (bundled dist/segment-worker.js)', function () {
  this.timeout(120_000);
  let thread: SegmentThread;
  before(() => {
    if (!existsSync(join(DIST, SEGMENT_WORKER_FILE))) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, `build failed: ${b.stderr}`);
    }
    thread = SegmentThread.beside(DIST)!;
    assert.ok(thread, 'the thread finds its worker beside the bundle');
  });
  after(() => thread.close());

  it('gives exactly what segmenting in this thread gives', async () => {
    const draft =
      '---\ntitle: Grain\n---\n# Grain\n\nThe viceroys of Sicily sold export licences, and Genoese houses bought them months ahead [@whitfield2019grain, p. 214].\n\n## Ships\n\nVenice and Naples depended on grain ships from Apulia. M. Dupont wrote, p. 45, that « Qui ? » demanda-t-il.\n';
    for (const g of ['section', 'paragraph', 'sentence'] as const) {
      assert.deepEqual(await thread.segment(draft, g, { minWords: 4 }), await segmentMarkdown(draft, g, { minWords: 4 }), g);
    }
  });

  it('passes on a refusal as the same coded error', async () => {
    const nested = Array.from({ length: 150 }, (_, i) => `${'>'.repeat(i + 1)} level ${i}`).join('\n');
    await assert.rejects(thread.segment(nested, 'paragraph'), (e: Error) => errorCode(e) === 'unreadable' && /nests block quotes more than/.test(e.message));
  });

  it('keeps the calling thread free while a large draft is segmented (event-loop delay printed)', async () => {
    const paragraph =
      'The grain trade of the Mediterranean ran on licences sold by the viceroys, and on ships that carried wheat from Sicily to Genoa and Venice. ';
    const draft = Array.from({ length: 4000 }, (_, i) => `${i % 50 === 0 ? `## Part ${i}\n\n` : ''}${paragraph.repeat(3)}\n`).join('\n');
    // The longest gap between ticks of a 5 ms timer: how long this thread was held.
    const measure = async (f: () => Promise<unknown>) => {
      let last = Date.now();
      let worst = 0;
      const tick = setInterval(() => {
        const now = Date.now();
        worst = Math.max(worst, now - last - 5);
        last = now;
      }, 5);
      const t0 = Date.now();
      const r = await f();
      const ms = Date.now() - t0;
      await new Promise((res) => setTimeout(res, 20));
      clearInterval(tick);
      return { r, ms, held: worst };
    };
    await thread.segment('warm up', 'paragraph');
    const inWorker = await measure(() => thread.segment(draft, 'paragraph'));
    const inThread = await measure(() => segmentMarkdown(draft, 'paragraph'));
    console.log(
      `      ${(draft.length / 1e6).toFixed(1)} MB draft: in the worker ${inWorker.ms} ms, this thread held at most ${inWorker.held} ms; in this thread ${inThread.ms} ms, held ${inThread.held} ms`,
    );
    assert.deepEqual(inWorker.r, inThread.r);
  });
});
