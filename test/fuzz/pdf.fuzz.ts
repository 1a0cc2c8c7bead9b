/**
 * PDF fuzz harness (issue 28, item 4): mutated PDFs through the real indexing path — the
 * extraction pool (dist/pdf-extract-worker.js) with a small read budget, cleaning, metadata,
 * chunking and the indexer's commit. Every input must either be indexed or be reported with a
 * reason; none may crash the process or the run, or hang past its budget.
 *
 * Inputs are real-shaped PDFs written by test/support/pdfWriter.ts (uncompressed content
 * streams: text operators, page labels, Info, an encrypted one) and the crafted corpus of
 * test/support/hostilePdf.ts, mutated by byte flips, truncation, splicing of one file's bytes
 * into another, duplicated or deleted ranges, changed digits (offsets, lengths, counts) and
 * crafted operators inserted into a content stream (deep `q` nesting, unbalanced `Q`, nested
 * arrays and dictionaries, huge numbers, references to missing objects).
 *
 * Runs for FUZZ_BUDGET_MS (FUZZ_SECONDS, default 30 s); FUZZ_SEED replays a run. Inputs that
 * crash or hang are written to test-results/fuzz/ to be replayed. Prints what was tried.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, promises as fs, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { EXTRACT_WORKER_FILE, PdfExtractPool, type ReadBudget } from '../../src/core/pdf/extractPool';
import { hostileCorpus } from '../support/hostilePdf';
import { englishHistorySpec, encryptedSpec, frenchSpec, truncatedSourceSpec } from '../support/pdfCorpus';
import { buildPdf } from '../support/pdfWriter';
import { FUZZ_BUDGET_MS, FUZZ_SEED, seededRandom } from './budget';

const DIST = resolve('dist');
/** Small, so a mutated file that spins pdf.js is given up quickly (the product's is 30 s + 0.5 s a page, ≤ 180 s). */
const BUDGET: ReadBudget = { baseMs: 2_000, perPageMs: 20, capMs: 5_000 };
/** Files indexed per run (one library, one index run): the indexer's read-ahead window. */
const BATCH = 8;
/** A run slower than this hangs: every file at its cap, one at a time, plus the commit. */
const HANG_MS = BATCH * BUDGET.capMs + 10_000;

function seeds(): Array<{ name: string; bytes: Buffer }> {
  const labelled = buildPdf({
    pages: Array.from({ length: 5 }, (_, i) => ({
      heading: `Chapter ${i + 1}`,
      paragraphs: [`Page ${i + 1} tells of the grain fleets of Alexandria and the harbour dues of Rhodes.`],
      footer: String(i + 1),
    })),
    pageLabels: [
      { startPage: 0, style: 'r' },
      { startPage: 2, style: 'D', start: 7, prefix: 'A-' },
    ],
    info: { Title: 'Labelled', Author: 'Tester', CreationDate: new Date(Date.UTC(2019, 4, 1)) },
  });
  return [
    { name: 'english-history', bytes: buildPdf(englishHistorySpec()) },
    { name: 'francais', bytes: buildPdf(frenchSpec()) },
    { name: 'encrypted', bytes: buildPdf(encryptedSpec()) },
    { name: 'arsenal', bytes: buildPdf(truncatedSourceSpec()) },
    { name: 'labelled', bytes: labelled },
    // The crafted corpus, smaller versions of the slow ones (mutations of the full ones only take their budget).
    ...hostileCorpus().filter((c) => c.bytes.length < 100_000),
  ];
}

/** Operators and tokens that have stopped or slowed PDF readers. */
const CRAFTED = [
  () => 'q '.repeat(20_000),
  () => 'Q '.repeat(20_000),
  () => '['.repeat(5_000),
  () => '<<'.repeat(5_000),
  () => '('.repeat(5_000),
  () => ' 99999999999999999999999999 ',
  () => ' -1 ',
  () => ' 9999 0 R ',
  () => 'BT '.repeat(10_000),
  () => ' /F1 1e308 Tf ',
  () => ' 1 0 0 1 1e300 1e300 cm ',
  () => 'BI /W 100000 /H 100000 /BPC 8 /CS /G ID x EI ',
];

type Mutation = (b: Buffer, rnd: () => number, others: Buffer[]) => Buffer;
const at = (b: Buffer, rnd: () => number) => Math.floor(rnd() * (b.length + 1));

const MUTATIONS: Record<string, Mutation> = {
  flip: (b, rnd) => {
    const out = Buffer.from(b);
    const n = 1 + Math.floor(rnd() * 16);
    for (let i = 0; i < n && out.length; i++) out[Math.floor(rnd() * out.length)] ^= 1 << Math.floor(rnd() * 8);
    return out;
  },
  randomBytes: (b, rnd) => {
    const out = Buffer.from(b);
    const start = at(out, rnd);
    for (let i = start; i < Math.min(out.length, start + 1 + Math.floor(rnd() * 64)); i++) out[i] = Math.floor(rnd() * 256);
    return out;
  },
  truncate: (b, rnd) => b.subarray(0, at(b, rnd)),
  splice: (b, rnd, others) => {
    const o = others[Math.floor(rnd() * others.length)];
    const from = at(o, rnd);
    const piece = o.subarray(from, from + Math.floor(rnd() * 2000));
    const cut = at(b, rnd);
    return Buffer.concat([b.subarray(0, cut), piece, b.subarray(cut + Math.floor(rnd() * 2000))]);
  },
  duplicate: (b, rnd) => {
    const s = at(b, rnd);
    const piece = b.subarray(s, s + Math.floor(rnd() * 4000));
    const times = 1 + Math.floor(rnd() * 20);
    return Buffer.concat([b.subarray(0, s), ...Array.from({ length: times }, () => piece), b.subarray(s)]);
  },
  delete: (b, rnd) => {
    const s = at(b, rnd);
    return Buffer.concat([b.subarray(0, s), b.subarray(s + Math.floor(rnd() * 500))]);
  },
  digits: (b, rnd) => {
    // Offsets, /Length, /Count, object numbers: a digit run rewritten.
    const text = b.toString('latin1');
    const runs = [...text.matchAll(/\d+/g)];
    if (!runs.length) return b;
    let out = text;
    for (let k = 0; k < 1 + Math.floor(rnd() * 4); k++) {
      const m = runs[Math.floor(rnd() * runs.length)];
      const v = ['0', '-1', '1', String(Math.floor(rnd() * 1e6)), '4294967296', '99999999999'][Math.floor(rnd() * 6)];
      out = out.slice(0, m.index) + v.padStart(m[0].length, '0').slice(-Math.max(m[0].length, v.length)) + out.slice(m.index! + m[0].length);
    }
    return Buffer.from(out, 'latin1');
  },
  crafted: (b, rnd) => {
    // Into a content stream where there is one (after "stream\n"), else anywhere.
    const text = b.toString('latin1');
    const streams = [...text.matchAll(/stream\n/g)];
    const pos = streams.length && rnd() < 0.8 ? streams[Math.floor(rnd() * streams.length)].index! + 7 : at(b, rnd);
    const token = CRAFTED[Math.floor(rnd() * CRAFTED.length)]();
    return Buffer.concat([b.subarray(0, pos), Buffer.from(token, 'latin1'), b.subarray(pos)]);
  },
};

describe('PDF fuzzing (issue 28): every mutated PDF is indexed or reported, never a crash or a hang', function () {
  this.timeout(FUZZ_BUDGET_MS + 10 * 60_000);

  it(`indexes or reports every input, for ${FUZZ_BUDGET_MS / 1000} s`, async () => {
    if (!existsSync(join(DIST, EXTRACT_WORKER_FILE))) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs']).status, 0);
    const rnd = seededRandom(0x9df);
    const base = seeds();
    const others = base.map((s) => s.bytes);
    const names = Object.keys(MUTATIONS);
    const root = await fs.mkdtemp(join(tmpdir(), 'ss-fuzz-pdf-'));
    const keep = resolve('test-results', 'fuzz');
    const pool = new PdfExtractPool({ workerFile: join(DIST, EXTRACT_WORKER_FILE), budget: BUDGET }).warm();
    const tally = { tried: 0, indexed: 0, damaged: 0, skipped: 0, overBudget: 0, crashes: 0, hangs: 0, runs: 0, slowestMs: 0 };
    const byMutation: Record<string, number> = {};
    const reasons: Record<string, number> = {};
    /** Reported, not a failure (the worker is replaced and the run goes on), but worth reading. */
    const workerCrashes: string[] = [];
    const failures: string[] = [];
    const started = Date.now();
    try {
      while (Date.now() - started < FUZZ_BUDGET_MS) {
        const lib = join(root, `lib-${tally.runs}`);
        const workspace = join(root, `ws-${tally.runs}`);
        await fs.mkdir(lib, { recursive: true });
        const batch: Array<{ file: string; how: string; bytes: Buffer }> = [];
        for (let i = 0; i < BATCH; i++) {
          const seed = base[Math.floor(rnd() * base.length)];
          let bytes = seed.bytes;
          const how: string[] = [seed.name];
          // One to three mutations stacked.
          for (let k = 0, n = 1 + Math.floor(rnd() * 3); k < n; k++) {
            const m = names[Math.floor(rnd() * names.length)];
            bytes = MUTATIONS[m](bytes, rnd, others);
            how.push(m);
            byMutation[m] = (byMutation[m] ?? 0) + 1;
          }
          const file = join(lib, `f${i}.pdf`);
          await fs.writeFile(file, bytes);
          batch.push({ file, how: how.join('+'), bytes });
        }
        tally.tried += batch.length;
        tally.runs++;
        const t = Date.now();
        let failure: string | undefined;
        try {
          const { inputs, dispose } = await libraryInputs({ folders: [lib], baseDir: lib, extractor: (b) => pool.extract(b), ocr: 'off' });
          const run = updateIndex(inputs, { workspace, provider: new EmbeddedProvider(), lockWaitMs: 1000 });
          let timer: NodeJS.Timeout | undefined;
          const hang = new Promise<'hang'>((r) => (timer = setTimeout(() => r('hang'), HANG_MS)));
          const r = await Promise.race([run, hang]).finally(() => {
            clearTimeout(timer);
            return dispose();
          });
          if (r === 'hang') {
            tally.hangs++;
            failure = `hang: the run took longer than ${HANG_MS} ms`;
          } else {
            const indexed = new Set(r.damaged.map((d) => d.path));
            tally.indexed += r.added;
            tally.damaged += indexed.size;
            tally.skipped += r.skipped.length;
            for (const x of r.skipped) {
              const kind = x.reason.replace(/\s*[(:].*$/s, '').replace(/\d+(\.\d+)?( ms| s)/g, 'N$2');
              reasons[kind] = (reasons[kind] ?? 0) + 1;
              if (/crashed|stopped on this file/.test(x.reason) && workerCrashes.length < 5) workerCrashes.push(x.reason.slice(-300));
            }
            tally.overBudget += r.skipped.filter((s) => /took longer than|too slow to read/.test(s.reason)).length;
            const unreported = batch.filter((f) => !r.skipped.some((s) => s.path === f.file)).length - r.added;
            const noReason = r.skipped.filter((s) => !s.reason.trim() || /undefined/.test(s.reason));
            if (unreported !== 0 || noReason.length) {
              tally.crashes++;
              failure = `${unreported} file(s) neither indexed nor reported; ${noReason.length} reported without a reason`;
            }
          }
        } catch (err) {
          tally.crashes++;
          failure = `the run failed: ${(err as Error)?.stack ?? err}`;
        }
        tally.slowestMs = Math.max(tally.slowestMs, Date.now() - t);
        if (failure) {
          mkdirSync(keep, { recursive: true });
          for (const f of batch) writeFileSync(join(keep, `pdf-seed${FUZZ_SEED}-run${tally.runs}-${f.file.split('/').pop()}`), f.bytes);
          failures.push(`run ${tally.runs} (${batch.map((f) => f.how).join(', ')}): ${failure}`);
        }
        await fs.rm(lib, { recursive: true, force: true });
        await fs.rm(workspace, { recursive: true, force: true });
      }
    } finally {
      await pool.close();
      await fs.rm(root, { recursive: true, force: true });
    }
    const s = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `      pdf fuzz (seed ${FUZZ_SEED}): ${tally.tried} inputs in ${tally.runs} index runs, ${s} s — ` +
        `${tally.indexed} indexed (${tally.damaged} as damaged), ${tally.skipped} reported (${tally.overBudget} over the read budget), ` +
        `${tally.crashes} crashes, ${tally.hangs} hangs; slowest run ${(tally.slowestMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `      mutations: ${Object.entries(byMutation)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    console.log(
      `      reasons: ${Object.entries(reasons)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join('; ')}`,
    );
    for (const w of workerCrashes) console.log(`      worker crash (reported, the run went on): ${w}`);
    for (const f of failures) console.log(`      FAILED ${f}`);
    assert.equal(tally.crashes + tally.hangs, 0, failures.join('\n'));
  });
});
