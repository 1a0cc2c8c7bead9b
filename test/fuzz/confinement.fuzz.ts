/**
 * Fuzzing what a draft or an agent names (issue 35, item 8): Quarto / R Markdown front matter
 * (`bibliography:` as a value, a list, quoted, flow), LaTeX `\input` / `\include` / `\subfile` /
 * `\addbibresource` / `\bibliography`, and the path an agent gives `check_citations`, each drawn
 * from hostile names — `../` chains, absolute paths, links out of the workspace (to files, to a
 * folder, to `/dev/zero`, to a FIFO), FIFOs and devices inside, `/proc` files, long, empty, NUL,
 * URL- and Windows-shaped names — beside names of real files inside. Outside the workspace lie
 * canaries: a `.bib` whose only key is `canarykey` and a `.tex` quoting CANARYWORD. Every check
 * must finish (no FIFO or device waited on), in bounded CPU and memory, and nothing of a canary
 * may come back: no word of it in any answer or warning, `canarykey` never judged "ok".
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { createEngine, type WorkspaceEngine } from '../../src/engine';
import { readDraft } from '../../src/engine/agentTools';
import { defaultSettings } from '../../src/shared/settings';
import { cpuMs, FUZZ_BUDGET_MS, fuzzParams } from './budget';

const CANARY = /CANARYWORD|CANARYTITLE|canarytexkey|ENVCANARY/;

interface Tally {
  tried: number;
  refused: number;
  worstMs: number;
  worstRssMb: number;
}

describe('fuzz: files a draft or an agent names stay within the workspace', function () {
  this.timeout(FUZZ_BUDGET_MS * 3 + 240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-fuzz-confine-'));
  const ws = join(root, 'ws');
  const elsewhere = join(root, 'elsewhere');
  let engine: WorkspaceEngine;
  /** What the engine warned of (files not read, and why): checked for canaries too. */
  const warnings: string[] = [];
  /** Names a draft in ws/drafts/ may give, relative to its folder or absolute. */
  let names: string[];

  before(async () => {
    mkdirSync(join(ws, 'drafts', 'chapters'), { recursive: true });
    mkdirSync(elsewhere);
    cpSync(resolve('examples/library'), join(ws, 'library'), { recursive: true });
    writeFileSync(join(elsewhere, 'canary.bib'), '@book{canarykey,\n  title = {CANARYTITLE},\n  year = {2001}\n}\n');
    writeFileSync(join(elsewhere, 'canary.tex'), "``CANARYWORD'' \\cite[p.~1]{canarytexkey}\n\\input{canary}\n");
    execFileSync('mkfifo', [join(elsewhere, 'pipe')]);
    writeFileSync(join(ws, 'drafts', 'refs.bib'), '@book{insidekey,\n  title = {Inside},\n  year = {2002}\n}\n');
    writeFileSync(join(ws, 'drafts', 'chapters', 'one.tex'), 'A chapter \\cite[p.~214]{whitfield2019grain} and \\input{two}.\n');
    writeFileSync(join(ws, 'drafts', 'chapters', 'two.tex'), 'Two \\cite{insidekey}.\n');
    symlinkSync(join(elsewhere, 'canary.bib'), join(ws, 'drafts', 'leak.bib'));
    symlinkSync(join(elsewhere, 'canary.tex'), join(ws, 'drafts', 'leak.tex'));
    symlinkSync(elsewhere, join(ws, 'drafts', 'out'));
    symlinkSync('/dev/zero', join(ws, 'drafts', 'zero.bib'));
    symlinkSync(join(elsewhere, 'pipe'), join(ws, 'drafts', 'outpipe.tex'));
    symlinkSync(join(ws, 'drafts', 'loop-b.tex'), join(ws, 'drafts', 'loop-a.tex'));
    symlinkSync(join(ws, 'drafts', 'loop-a.tex'), join(ws, 'drafts', 'loop-b.tex'));
    execFileSync('mkfifo', [join(ws, 'drafts', 'pipe.bib')]);
    execFileSync('mkfifo', [join(ws, 'drafts', 'pipe.tex')]);
    execFileSync('mkfifo', [join(ws, 'drafts', 'pipe.md')]);
    // A process's environment is outside any workspace: a canary in ours must not come back.
    process.env.SS_FUZZ_CANARY = 'ENVCANARY';
    names = [
      'refs.bib',
      './refs.bib',
      'chapters/../refs.bib',
      'chapters/one',
      'chapters/one.tex',
      'chapters/two',
      '../drafts/refs.bib',
      '../../elsewhere/canary.bib',
      '../../elsewhere/canary',
      '../../elsewhere/canary.tex',
      join(elsewhere, 'canary.bib'),
      join(elsewhere, 'canary.tex'),
      join(elsewhere, 'pipe'),
      `${elsewhere}/../elsewhere/canary.bib`,
      'leak.bib',
      'leak.tex',
      'leak',
      'out/canary.bib',
      'out/canary.tex',
      'out/canary',
      'out/pipe',
      'out/../drafts/refs.bib',
      'zero.bib',
      'outpipe.tex',
      'outpipe',
      'loop-a.tex',
      'loop-b',
      'pipe.bib',
      'pipe.tex',
      'pipe',
      'pipe.md',
      '/dev/zero',
      '/dev/urandom',
      '/dev/stdin',
      '/dev/null',
      '/proc/self/environ',
      '/proc/self/fd/0',
      '/etc/passwd',
      '/',
      '.',
      '..',
      '',
      '~/canary.bib',
      'file:///etc/passwd',
      'https://example.org/refs.bib',
      'C:\\Windows\\refs.bib',
      '..\\..\\elsewhere\\canary.bib',
      '%2e%2e/%2e%2e/elsewhere/canary.bib',
      'refs.bib\u0000.png',
      'a'.repeat(5000),
      'é'.repeat(300),
      'refs.bib ',
      ' refs.bib',
      'chapters//one.tex',
    ];
    engine = createEngine({
      workspace: ws,
      settings: { ...defaultSettings(), libraryFolders: ['library'], bibliographyFile: 'library/library.bib', ocr: 'off' },
      host: { onWarning: (w) => warnings.push(w) },
    });
    await engine.index({ jobs: 0 });
  });
  after(async () => {
    await engine?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const name = fc.oneof(
    // Drawn when the inputs are made: `names` is filled in before().
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 1_000 }).map((i) => names[i % names.length]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 12 }), fc.constantFrom('canary.bib', 'elsewhere/canary.tex', 'ws/drafts/refs.bib'))
        .map(([n, f]) => `${'../'.repeat(n)}${f}`),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  );
  const cite = fc.constantFrom('[@whitfield2019grain, p. 214]', '[@canarykey]', '[@insidekey, p. 3]', '@canarykey says', '[see @canarykey; @insidekey]');
  const texCite = fc.constantFrom('\\cite[p.~214]{whitfield2019grain}', '\\cite{canarykey}', '\\parencite{insidekey}');
  const yamlValue = fc.oneof(
    name,
    name.map((n) => JSON.stringify(n)),
    name.map((n) => `'${n.replace(/'/g, "''")}'`),
    fc.array(name, { minLength: 1, maxLength: 3 }).map((ns) => `[${ns.map((n) => JSON.stringify(n)).join(', ')}]`),
    fc.array(name, { minLength: 1, maxLength: 3 }).map((ns) => `\n${ns.map((n) => `  - ${JSON.stringify(n)}`).join('\n')}`),
  );
  const markdownDraft = fc.tuple(yamlValue, fc.array(cite, { minLength: 1, maxLength: 6 }), fc.constantFrom('---', '...')).map(([bib, cites, end]) => ({
    text: `---\ntitle: Fuzz\nbibliography: ${bib}\n${end}\n\n# Heading\n\n${cites.map((c) => `A claim ${c}.`).join('\n\n')}\n`,
    file: join(ws, 'drafts', 'draft.qmd'),
  }));
  const texCommand = fc.oneof(
    name.map((n) => `\\input{${n}}`),
    name.map((n) => `\\include{${n}}`),
    name.map((n) => `\\subfile{${n}}`),
    name.map((n) => `\\addbibresource{${n}}`),
    fc.array(name, { minLength: 1, maxLength: 3 }).map((ns) => `\\bibliography{${ns.join(',')}}`),
    texCite,
  );
  const latexDraft = fc.array(texCommand, { minLength: 1, maxLength: 8 }).map((cmds) => ({
    text: `\\documentclass{article}\n\\begin{document}\n${cmds.join('\n\n')}\n\\end{document}\n`,
    file: join(ws, 'drafts', 'main.tex'),
  }));

  function checkAnswer(text: string, what: string) {
    const hit = CANARY.exec(text);
    assert.equal(hit, null, `${what}: a canary came back: ${hit?.[0]}`);
  }

  it('drafts naming hostile files: every check ends, bounded, with nothing of the outside', async () => {
    const tally: Tally = { tried: 0, refused: 0, worstMs: 0, worstRssMb: 0 };
    await fc.assert(
      fc.asyncProperty(fc.oneof(markdownDraft, latexDraft), async ({ text, file }) => {
        const c0 = process.cpuUsage();
        const r = await engine.checkCitations(text, { draftPath: file });
        const ms = cpuMs(c0);
        tally.tried++;
        tally.worstMs = Math.max(tally.worstMs, ms);
        tally.worstRssMb = Math.max(tally.worstRssMb, process.memoryUsage().rss / 1048576);
        checkAnswer(JSON.stringify(r) + warnings.splice(0).join('\n'), text);
        for (const c of r.citations) if (c.key === 'canarykey') assert.notEqual(c.status, 'ok', `${text}: canarykey judged ok`);
        assert.ok(ms < 10_000, `${text}: ${Math.round(ms)} ms of CPU`);
        assert.ok(process.memoryUsage().rss < 1024 * 1048576, `${text}: RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB`);
      }),
      fuzzParams({ interruptAfterTimeLimit: FUZZ_BUDGET_MS / 2 }),
    );
    console.log(
      `      drafts: ${tally.tried.toLocaleString('en')} checked; worst ${Math.round(tally.worstMs)} ms of CPU, RSS at most ${Math.round(tally.worstRssMb)} MB`,
    );
    assert.ok(tally.tried > 0);
  });

  it("an agent's draft path: read only when a regular draft inside the workspace", async () => {
    const tally: Tally = { tried: 0, refused: 0, worstMs: 0, worstRssMb: 0 };
    const path = fc.oneof(
      name.map((n) => (n.startsWith('/') ? n : `drafts/${n}`)),
      name,
    );
    await fc.assert(
      fc.asyncProperty(path, async (p) => {
        tally.tried++;
        try {
          const d = await readDraft(engine, { path: p });
          checkAnswer(d.text, p);
          assert.ok(!d.path.startsWith('..'), `${p}: read ${d.path}`);
        } catch (e) {
          tally.refused++;
          checkAnswer((e as Error).message, p);
          assert.ok(!/ENOENT|EISDIR|at .*\.ts:\d+/.test((e as Error).message), `${p}: ${(e as Error).message}`);
        }
      }),
      fuzzParams({ interruptAfterTimeLimit: FUZZ_BUDGET_MS / 2 }),
    );
    console.log(`      agent paths: ${tally.tried.toLocaleString('en')} tried, ${tally.refused.toLocaleString('en')} refused with a message`);
  });
});
