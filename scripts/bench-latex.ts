/**
 * The cost of LaTeX drafts against Markdown ones of the same size (issue 35, item 5):
 * `npx tsx scripts/bench-latex.ts [--size 1000000] [--json] [--write DIR] [shape…]` (`--write`: the
 * drafts written to DIR, numbered as listed, and nothing run). Each shape is written to
 * a file and read in a process of its own (the built `dist/engine.js`, as the CLI runs it), so that
 * each row has its own peak memory: per shape and operation it prints the CPU seconds of the
 * operation alone (what a shared machine's load does not inflate), the process's peak RSS, the
 * segments or citations found, or the refusal. `segment` is `segmentDraft` (paragraphs);
 * `check` is what `check` reads before it compares anything: the draft's bibliographies and its
 * citations through `\input` (`draftBibliographies`, `draftCitationsOf`). Markdown rows of the
 * same size (examples/draft.md repeated) are the floor to read the others against.
 * Needs dist/ (npm run build).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const argv = process.argv.slice(2);
const opt = (n: string) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : undefined;
};
const SIZE = Number(opt('--size') ?? 1_000_000);
const JSON_OUT = argv.includes('--json');
const WRITE = opt('--write');
const only = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--size' && argv[i - 1] !== '--write');
const ROOT = path.resolve(__dirname, '..');
const ENGINE = path.join(ROOT, 'dist', 'engine.js');

const fill = (unit: string, size = SIZE) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
const PREAMBLE =
  '\\documentclass{report}\n\\usepackage[style=authoryear]{biblatex}\n\\addbibresource{refs.bib}\n\\title{A Thesis}\n\\begin{document}\n\\maketitle\n';
/** A document of `size` bytes: the preamble, `body` repeated, `\end{document}`. */
const doc = (body: string, size = SIZE) => PREAMBLE + fill(body, size - PREAMBLE.length - 15) + '\n\\end{document}\n';

const WORDS = 'grain licence price market harvest merchant port crown bread credit register famine ship trade city republic winter court archive ledger'.split(
  ' ',
);
/** Ordinary prose: a section every ten paragraphs, sentences with now and then `\emph`, `\autocite`, `~` and `--`. */
function prose(size: number): string {
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const out: string[] = [];
  let bytes = 0;
  for (let p = 0; bytes < size; p++) {
    if (p % 10 === 0) out.push(`\\section{Section ${p / 10 + 1}}\\label{sec:${p}}\n`);
    const sentences: string[] = [];
    for (let s = 0, n = 4 + rnd(4); s < n; s++) {
      const w = Array.from({ length: 8 + rnd(12) }, () => WORDS[rnd(WORDS.length)]);
      if (rnd(4) === 0) w[rnd(w.length)] = `\\emph{${WORDS[rnd(WORDS.length)]}}`;
      if (rnd(3) === 0) w.push(`\\autocite[p.~${1 + rnd(300)}]{key${rnd(50)}}`);
      if (rnd(5) === 0) w.splice(1, 0, `1590--${1591 + rnd(9)}`);
      sentences.push(w.join(' ').replace(/^\w/, (c) => c.toUpperCase()) + '.');
    }
    const para = sentences.join(' ').replace(/(.{70,80}?) /g, '$1\n') + '\n\n';
    out.push(para);
    bytes += para.length;
  }
  return out.join('');
}

const bodyOf = (tex: string) =>
  tex.slice(tex.indexOf('\\begin{document}') + 16, tex.lastIndexOf('\\end{document}')).replace(/\\maketitle|\\input\{[^}]*\}|\\include\{[^}]*\}/g, '');
/** A realistic thesis: examples/draft.tex and the fixtures' bodies (environments, math, floats, footnotes, csquotes), repeated. */
const THESIS_BODY =
  [readFileSync(path.join(ROOT, 'examples/draft.tex'), 'utf8'), readFileSync(path.join(ROOT, 'test/fixtures/drafts/thesis.tex'), 'utf8')]
    .map(bodyOf)
    .join('\n\n') +
  '\n\n' +
  readFileSync(path.join(ROOT, 'test/fixtures/latex-thesis/chapters/grain.tex'), 'utf8') +
  '\n\n';

/** Nesting a thesis may hold, 12 deep (lists in lists, groups in emphasis in footnotes), repeated. */
function nested(): string {
  let list = 'the innermost item';
  for (let d = 0; d < 6; d++) list = `\\begin{itemize}\n\\item level ${d} words of the item\n${list}\n\\end{itemize}`;
  let group = 'deep words';
  for (let d = 0; d < 12; d++) group = `{\\emph{${group}} level ${d}}`;
  return `Before the list, some prose.\n${list}\n\nA footnote\\footnote{With ${group} inside.} ends here.\n\n`;
}

/** `\cite{k0}\cite{k1}…` on one line, `size` bytes, every command whole. */
function citeLine(size: number): string {
  const out: string[] = [];
  let bytes = 0;
  for (let n = 0; ; n++) {
    const c = `\\cite{k${n % 100000}}`;
    if (bytes + c.length > size) break;
    out.push(c);
    bytes += c.length;
  }
  return out.join('');
}

const MD_DRAFT = readFileSync(path.join(ROOT, 'examples/draft.md'), 'utf8');

interface Shape {
  name: string;
  format: 'latex' | 'markdown';
  make: () => string;
}

const SHAPES: Shape[] = [
  { name: 'markdown: examples/draft.md repeated', format: 'markdown', make: () => fill(MD_DRAFT + '\n\n') },
  { name: 'markdown: one line of citations', format: 'markdown', make: () => fill('[@a; @b, p. 3] ') },
  { name: 'flat prose (sections, paragraphs)', format: 'latex', make: () => doc(prose(SIZE)) },
  { name: 'realistic thesis (envs, math, floats, notes)', format: 'latex', make: () => doc(THESIS_BODY) },
  { name: 'one line of \\cite{…}', format: 'latex', make: () => doc(citeLine(SIZE - 40) + '\n') },
  { name: 'unterminated \\verb|, then prose', format: 'latex', make: () => doc('\\verb|' + prose(SIZE)) },
  { name: 'comment lines (% …)', format: 'latex', make: () => doc(fill('% a comment line with some words in it, \\cite{x} and {braces\n')) },
  { name: 'deep but legal nesting (lists, groups)', format: 'latex', make: () => doc(nested()) },
  { name: 'no blank line (one paragraph)', format: 'latex', make: () => doc(prose(SIZE).replace(/\n\n/g, '\n')) },
  { name: 'unclosed groups, stray ends, one paragraph', format: 'latex', make: () => doc(fill('\\label{x y \\end{itemize} \\cite{a} z \\href{u ')) },
  { name: 'math left open (\\[, $$, \\( …)', format: 'latex', make: () => doc(fill('words \\[ x \\cite{a} $$ y \\( z\n')) },
];

const CHILD = `
const [engine, file, format, op, draftPath, workspace] = process.argv.slice(1);
const e = require(engine);
const text = require('fs').readFileSync(file, 'utf8');
const rss0 = process.memoryUsage().rss;
const c0 = process.cpuUsage();
(async () => {
  let found;
  try {
    if (op === 'segment') found = (await e.segmentDraft(text, format, 'paragraph')).segments.length + ' segments';
    else {
      e.draftBibliographies({}, text, draftPath);
      found = e.draftCitationsOf(text, { format, draftPath, workspace }).length + ' citations';
    }
  } catch (err) {
    found = 'refused (' + e.errorCode(err) + '): ' + String(err.message).slice(0, 90);
  }
  const c = process.cpuUsage(c0);
  console.log(JSON.stringify({ cpuS: (c.user + c.system) / 1e6, rssMB: process.resourceUsage().maxRSS / 1024, startMB: rss0 / 1048576, found }));
})();
`;

interface Row {
  shape: string;
  op: string;
  bytes: number;
  cpuS: number;
  rssMB: number;
  startMB: number;
  found: string;
}

function main() {
  if (WRITE) {
    SHAPES.forEach(
      (s, i) =>
        (!only.length || only.some((o) => s.name.includes(o))) && writeFileSync(path.join(WRITE, `${i}.${s.format === 'latex' ? 'tex' : 'md'}`), s.make()),
    );
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-latex-'));
  const rows: Row[] = [];
  try {
    for (const shape of SHAPES) {
      if (only.length && !only.some((o) => shape.name.includes(o))) continue;
      const text = shape.make();
      const file = path.join(dir, shape.format === 'latex' ? 'draft.tex' : 'draft.md');
      writeFileSync(file, text);
      for (const op of ['segment', 'check']) {
        const r = spawnSync(process.execPath, ['-e', CHILD, ENGINE, file, shape.format, op, file, dir], { encoding: 'utf8', maxBuffer: 1 << 24 });
        const last = r.stdout.trim().split('\n').pop() ?? '';
        const res =
          r.status === 0 && last.startsWith('{')
            ? (JSON.parse(last) as Omit<Row, 'shape' | 'op' | 'bytes'>)
            : { cpuS: NaN, rssMB: NaN, startMB: NaN, found: `failed (${r.status ?? r.signal}): ${r.stderr.trim().split('\n').pop()?.slice(0, 90)}` };
        const row = { shape: shape.name, op, bytes: Buffer.byteLength(text), ...res };
        rows.push(row);
        if (!JSON_OUT)
          console.log(
            `${shape.name.padEnd(46)} ${op.padEnd(8)} ${(row.bytes / 1e6).toFixed(2)} MB ${row.cpuS.toFixed(2).padStart(7)} s CPU ${row.rssMB.toFixed(0).padStart(6)} MB peak RSS (${row.startMB.toFixed(0)} MB loaded)  ${row.found}`,
          );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (JSON_OUT) console.log(JSON.stringify(rows, null, 2));
}

main();
