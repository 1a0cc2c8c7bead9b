/**
 * The development analog of the held-out "300-paragraph draft over a PDF library, MRR@5"
 * (issue 27), built reproducibly from SciFact train and scored through the product's own
 * `analyze` (dist/cli.js, as a user runs it):
 *  - the library: SciFact abstracts as text-layer PDFs (title as heading and /Info Title, the
 *    abstract wrapped over as many A4 pages as it needs; the tests' PDF writer), the abstracts the
 *    draft cites and distractors up to `--pdfs`, chosen by a fixed hash order;
 *  - the draft: `--paragraphs` paragraphs, each the train claims citing one abstract, joined;
 *  - MRR@5: per paragraph, 1 / rank of the cited abstract's PDF among the first 5 cards (0 when
 *    absent), averaged; also how often it is first.
 *
 *   npm run build && npx tsx scripts/measure-draft-mrr.ts [--scifact DIR] [--root .tmp/draft-mrr]
 *     [--pdfs 1000] [--paragraphs 300] [--runs embedded,local=<model folder>,…] [--json]
 *
 * Each run (`embedded`, or `local=<folder>` for `--provider local --model <folder>`) indexes the
 * library into its own workspace under --root (kept: a second run embeds nothing), then runs
 * `analyze --no-rerank --no-cache --max-results 5 --json` on the draft.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadBeir } from '../src/core/eval/beir';
import { buildPdf } from '../test/support/pdfWriter';

const argv = process.argv.slice(2);
const opt = (n: string, d: string) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const SCIFACT = path.resolve(opt('scifact', path.join(__dirname, '../../shared/data/scifact')));
const ROOT = path.resolve(opt('root', '.tmp/draft-mrr'));
const PDFS = Number(opt('pdfs', '1000'));
const PARAGRAPHS = Number(opt('paragraphs', '300'));
const RUNS = opt('runs', 'embedded').split(',').filter(Boolean);
const CLI = path.resolve(__dirname, '../dist/cli.js');
const log = (s: string) => process.stderr.write(s + '\n');
/** A fixed order that does not depend on the corpus file's order. */
const order = (id: string) => createHash('sha256').update(`draft-mrr:${id}`).digest('hex');
/** Characters per page: the writer refuses a page whose text does not fit on A4. */
const PAGE_CHARS = 2400;

/** The abstract's sentences grouped into pages of at most PAGE_CHARS characters. */
function pagesOf(text: string): string[] {
  const sentences = text.match(/[^.!?]+(?:[.!?]+|$)/g) ?? [text];
  const pages: string[] = [];
  let cur = '';
  for (const s of sentences.map((x) => x.trim()).filter(Boolean)) {
    if (cur && cur.length + s.length + 1 > PAGE_CHARS) {
      pages.push(cur);
      cur = '';
    }
    cur = cur ? `${cur} ${s}` : s;
  }
  if (cur) pages.push(cur);
  return pages.length ? pages : [''];
}

async function build(): Promise<{ draft: string; library: string; expected: string[] }> {
  const { corpus, queries, qrels } = await loadBeir(SCIFACT, 'train');
  const claimsOf = new Map<string, string[]>();
  for (const [qid, judged] of qrels) {
    const text = queries.get(qid);
    if (!text) continue;
    for (const [doc, rel] of judged) if (rel > 0) claimsOf.set(doc, [...(claimsOf.get(doc) ?? []), text.trim()]);
  }
  const byId = new Map(corpus.map((d) => [d.id, d]));
  const cited = [...claimsOf.keys()]
    .filter((d) => byId.has(d))
    .sort((a, b) => order(a).localeCompare(order(b)))
    .slice(0, PARAGRAPHS);
  const citedSet = new Set(cited);
  const distractors = corpus
    .map((d) => d.id)
    .filter((d) => !citedSet.has(d))
    .sort((a, b) => order(a).localeCompare(order(b)));
  const libraryIds = [...cited, ...distractors.slice(0, Math.max(0, PDFS - cited.length))];
  const library = path.join(ROOT, 'library');
  mkdirSync(library, { recursive: true });
  for (const id of libraryIds) {
    const file = path.join(library, `${id}.pdf`);
    if (existsSync(file)) continue;
    const d = byId.get(id)!;
    const pages = pagesOf(d.text).map((p, i) => ({ heading: i === 0 ? d.title : undefined, paragraphs: [p], footer: String(i + 1) }));
    writeFileSync(file, buildPdf({ info: { Title: d.title.slice(0, 200) }, pages }));
  }
  // One paragraph per cited abstract: its claims, each closed by a full stop.
  const paragraphs = cited.map((id) =>
    claimsOf
      .get(id)!
      .map((c) => (/[.!?]$/.test(c) ? c : `${c}.`))
      .join(' '),
  );
  const draft = path.join(ROOT, 'draft.md');
  writeFileSync(draft, `# A draft over SciFact\n\n${paragraphs.join('\n\n')}\n`);
  return { draft, library, expected: cited.map((id) => `${id}.pdf`) };
}

interface Segment {
  text: string;
  recommendations: Array<{ path: string }>;
}

function measure(run: string, draft: string, library: string, expected: string[]) {
  const [kind, model] = run.split('=');
  const label = kind === 'local' ? `local ${path.basename(model)}` : kind;
  const workspace = path.join(ROOT, `ws-${label.replace(/[^\w.-]+/g, '_')}`);
  mkdirSync(workspace, { recursive: true });
  const provider = kind === 'local' ? ['--provider', 'local', '--model', path.resolve(model)] : ['--provider', kind];
  const t0 = Date.now();
  const out = execFileSync(
    process.execPath,
    [CLI, 'analyze', draft, '--library', library, '--workspace', workspace, '--no-rerank', '--no-cache', '--max-results', '5', '--json', ...provider],
    {
      maxBuffer: 1 << 30,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  ).toString();
  const seconds = (Date.now() - t0) / 1000;
  const segments = (JSON.parse(out) as { segments: Segment[] }).segments.filter((s) => !s.text.startsWith('A draft over'));
  if (segments.length !== expected.length) throw new Error(`${label}: ${segments.length} segments for ${expected.length} paragraphs`);
  let rr = 0;
  let first = 0;
  segments.forEach((s, i) => {
    const rank = s.recommendations.slice(0, 5).findIndex((r) => path.basename(r.path) === expected[i]);
    if (rank >= 0) rr += 1 / (rank + 1);
    if (rank === 0) first++;
  });
  return { run: label, paragraphs: segments.length, 'mrr@5': Math.round((rr / segments.length) * 10000) / 10000, first, seconds: Math.round(seconds) };
}

async function main() {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
  const { draft, library, expected } = await build();
  log(`draft: ${expected.length} paragraphs; library: ${PDFS} PDFs in ${library}`);
  const results = [];
  for (const run of RUNS) {
    const r = measure(run, draft, library, expected);
    log(`${r.run}: MRR@5 ${r['mrr@5']}, first ${r.first} of ${r.paragraphs} (${r.seconds} s)`);
    results.push(r);
  }
  if (argv.includes('--json')) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  else for (const r of results) process.stdout.write(`${r.run}\tMRR@5 ${r['mrr@5']}\tfirst ${r.first}/${r.paragraphs}\t${r.seconds} s\n`);
  const saved = path.join(ROOT, 'results.json');
  const before = existsSync(saved) ? (JSON.parse(readFileSync(saved, 'utf8')) as unknown[]) : [];
  writeFileSync(saved, JSON.stringify([...before, ...results.map((r) => ({ ...r, pdfs: PDFS, at: new Date().toISOString() }))], null, 1));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
