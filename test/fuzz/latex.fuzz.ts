/**
 * Fuzzing LaTeX drafts (issue 35, item 8): the segmenter (`core/latex/segment.ts`, read in pieces)
 * and the citation reader (`core/latex/citations.ts`) on generated drafts (test/support/latexDrafts,
 * well-formed and malformed) and on mutations of real ones (`examples/draft.tex`, the thesis
 * fixture): pieces spliced, repeated up to thousands of times, cut, and runs of what costs a LaTeX
 * parser most (`{`, `}`, `$`, `\[`, `\verb|`, `\begin{x}`, `%`, `\cite{`, `\\`) inserted. Every input must
 * segment without a throw (a draft nested past 255 levels or over 8 MB is refused with `unreadable`,
 * by design), in CPU time bounded by its size, into segments whose text lies in the draft; its
 * citations must lie inside it with their keys as written there.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { findLatexCitations } from '../../src/core/latex/citations';
import { segmentLatex } from '../../src/core/latex/segment';
import type { Granularity } from '../../src/core/markdown/segment';
import { errorCode } from '../../src/shared/errors';
import { latexDraft } from '../support/latexDrafts';
import { cpuMs, FUZZ_BUDGET_MS, seededRandom } from './budget';

/** CPU milliseconds allowed per input: a hang guard, not a benchmark (the machine may be shared). */
const allowedMs = (bytes: number) => 3_000 + 30 * (bytes / 1024);

interface Tally {
  tried: number;
  refused: number;
  bytes: number;
  citations: number;
  worst: { msPerKb: number; ms: number; bytes: number; shape: string };
}

async function check(source: string, g: Granularity, tally: Tally, shape: string): Promise<void> {
  tally.tried++;
  const c0 = process.cpuUsage();
  let segments;
  try {
    segments = (await segmentLatex(source, g)).segments;
  } catch (err) {
    assert.equal(errorCode(err), 'unreadable', `${shape}: threw ${(err as Error).stack}`);
    tally.refused++;
    return;
  }
  const cites = findLatexCitations(source);
  const ms = cpuMs(c0);
  tally.bytes += source.length;
  tally.citations += cites.length;
  const kb = Math.max(1, source.length / 1024);
  if (ms / kb > tally.worst.msPerKb && source.length >= 1024) tally.worst = { msPerKb: ms / kb, ms, bytes: source.length, shape };
  assert.ok(ms <= allowedMs(source.length), `${shape}: ${Math.round(ms)} ms of CPU for ${source.length} characters`);
  const lines = source.split(/\r\n|\r|\n/).length;
  for (const s of segments) {
    assert.ok(s.startLine >= 1 && s.startLine <= s.endLine && s.endLine <= lines, `${shape}: lines ${s.startLine}–${s.endLine} of ${lines}`);
    assert.ok(s.text.trim().length > 0, `${shape}: an empty segment`);
  }
  for (const c of cites) {
    assert.ok(c.start >= 0 && c.end <= source.length && c.start < c.end, `${shape}: citation at ${c.start}–${c.end}`);
    assert.ok(
      source.slice(c.start, c.end).includes(c.key),
      `${shape}: key ${JSON.stringify(c.key)} not in its command ${JSON.stringify(source.slice(c.start, c.end).slice(0, 80))}`,
    );
  }
}

const REAL = [
  'examples/draft.tex',
  ...readdirSync('test/fixtures/latex-thesis', { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.tex'))
    .map((f) => path.join('test/fixtures/latex-thesis', f)),
].map((f) => readFileSync(f, 'utf8'));
const COSTLY = [
  '{',
  '}',
  '$',
  '$$',
  '\\[',
  '\\]',
  '\\verb|',
  '\\begin{quote}',
  '\\end{quote}',
  '\\begin{verbatim}',
  '%',
  '\\cite{',
  '\\cite[p.~1]{k}',
  '\\\\',
  '\\footnote{',
  '\\(',
  '\n\n',
  '\\item ',
  '&',
  '\\',
];

function mutate(rand: () => number): { source: string; shape: string } {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  let s = rand() < 0.3 ? latexDraft(Math.floor(rand() * 1e9), { malformed: rand() < 0.5, prose: rand() < 0.5 }) : pick(REAL);
  const ops: string[] = [];
  for (let r = 1 + Math.floor(rand() * 4); r > 0; r--) {
    const a = Math.floor(rand() * s.length);
    const len = Math.floor(rand() ** 3 * 600);
    const piece = s.slice(a, a + len);
    const at = Math.floor(rand() * (s.length + 1));
    switch (Math.floor(rand() * 5)) {
      case 0:
        s = s.slice(0, at) + piece + s.slice(at);
        ops.push(`splice ${len}`);
        break;
      case 1: {
        const times = Math.floor(rand() ** 2 * 3_000) + 1;
        s = s.slice(0, at) + piece.repeat(Math.min(times, Math.floor(600_000 / Math.max(1, piece.length)))) + s.slice(at);
        ops.push(`repeat ${len}×${times}`);
        break;
      }
      case 2:
        s = s.slice(0, a) + s.slice(a + len);
        ops.push(`cut ${len}`);
        break;
      case 3:
        s = s.slice(0, at) + latexDraft(Math.floor(rand() * 1e9), { malformed: true }).slice(0, Math.floor(rand() * 3_000)) + s.slice(at);
        ops.push('graft');
        break;
      default: {
        const mark = pick(COSTLY);
        s = s.slice(0, at) + mark.repeat(1 + Math.floor(rand() ** 4 * 20_000)) + s.slice(at);
        ops.push(`insert ${JSON.stringify(mark)}`);
      }
    }
  }
  return { source: s, shape: ops.join(', ') };
}

describe('fuzz: LaTeX drafts', function () {
  this.timeout(FUZZ_BUDGET_MS * 3 + 120_000);
  // Loads the parser and warms it: the first parse's module loading is no input's cost.
  before(async () => {
    for (const r of REAL) await segmentLatex(r, 'sentence');
  });

  it('generated and mutated drafts: no throw but a refusal, bounded CPU, segments and citations inside the draft', async () => {
    const tally: Tally = { tried: 0, refused: 0, bytes: 0, citations: 0, worst: { msPerKb: 0, ms: 0, bytes: 0, shape: '' } };
    const rand = seededRandom(0x7e4);
    const end = Date.now() + FUZZ_BUDGET_MS;
    while (Date.now() < end) {
      const { source, shape } =
        tally.tried % 4 === 0 ? { source: latexDraft(Math.floor(rand() * 1e9), { malformed: rand() < 0.5 }), shape: 'generated' } : mutate(rand);
      await check(source, (['paragraph', 'sentence', 'section'] as const)[tally.tried % 3], tally, shape);
    }
    console.log(
      `      drafts: ${tally.tried.toLocaleString('en')} (${(tally.bytes / 1e6).toFixed(1)} MB), ${tally.refused} refused; ${tally.citations.toLocaleString('en')} citations; worst ${tally.worst.msPerKb.toFixed(2)} ms/KB (${Math.round(tally.worst.ms)} ms for ${(tally.worst.bytes / 1024).toFixed(0)} KB: ${tally.worst.shape})`,
    );
    assert.ok(tally.tried > 0);
  });
});
