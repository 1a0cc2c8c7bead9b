/**
 * The citation check against quotations copied from PDF viewers (issue 38): a development set.
 *
 *   npx tsx scripts/measure-viewer-quotes.ts [--fetch] [--pdfs DIR] [--per-source N] [--seed N]
 *        [--root DIR] [--save F | --load F] [--misses N] [--json]
 *
 * A scholar copies a quotation from the viewer they read the PDF in; the product reads pages with
 * pdf.js and its own cleaning. Each quotation here is a span of a page as a viewer's text layer
 * gives it, through four extractors: poppler (`pdftotext`, Evince and Okular's engine), poppler
 * with `-layout`, MuPDF (`mutool draw -F txt`) and pdf.js's text content joined as its text layer
 * copies it (Firefox, VS Code's viewers). Spans of 8–40 words, within a page (across line ends and
 * hyphenated words) or across a page break (with what the viewer puts between: footer, page
 * number, header), pasted on one line, cited at their page(s). Beside each, what a writer does and
 * the check must flag: one word changed, one added, one removed, and words of another source.
 * Prints, per extractor and kind, how many got each status, and the misses.
 *
 * The library: Debian's documentation PDFs (English under /usr/share/doc; French and German from
 * the packages `--fetch` downloads with apt-get into .cache/viewer-quotes/: FAQ, developers'
 * reference, Debian Edu manual, eyes17, expEYES) and the example PDFs. Not the TeX manuals of the
 * held-out set. Needs dist/ (node scripts/build.mjs), poppler-utils and mupdf-tools.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { readPageTexts } from '../src/core/index/store/pageTexts';
import { tokenize, type PageText } from '../src/core/citecheck/match';
import { stopwords } from '../src/core/text/tokenize';
import { indexDir, readManifest } from '../src/core/index/store/manifest';
import { checkCitations } from '../src/engine/citations';
import { indexLibrary } from '../src/engine/indexLibrary';
import { resolveLibrary } from '../src/engine/library';

const argv = process.argv.slice(2);
const opt = (n: string) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : undefined);
const PER_SOURCE = Number(opt('--per-source') ?? 8);
const MISSES = Number(opt('--misses') ?? 6);
const ROOT = opt('--root') ? path.resolve(opt('--root')!) : undefined;
const EXTRA = opt('--pdfs') ? path.resolve(opt('--pdfs')!) : undefined;
const SAVE = opt('--save') ? path.resolve(opt('--save')!) : undefined;
const LOAD = opt('--load') ? path.resolve(opt('--load')!) : undefined;
const CACHE = path.resolve('.cache', 'viewer-quotes');
const log = (s: string) => process.stderr.write(s + '\n');

const ENGLISH = [
  '/usr/share/doc/bzip2/manual.pdf.gz',
  '/usr/share/doc/nettle-dev/nettle.pdf.gz',
  '/usr/share/doc/fontconfig/fontconfig-user.pdf.gz',
  '/usr/share/doc/libtasn1-doc/libtasn1.pdf',
  '/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf',
];
/** Debian packages with French and German manuals as PDFs (what `--fetch` downloads), and the files taken from each. */
const PACKAGES: Record<string, RegExp> = {
  'debian-faq-fr': /debian-faq\.fr\.pdf/,
  'debian-faq-de': /debian-faq\.de\.pdf/,
  'developers-reference-fr': /developers-reference\.pdf/,
  'developers-reference-de': /developers-reference\.pdf/,
  'debian-edu-doc-de': /bookworm-manual\.pdf/,
  'eyes17-manuals-fr': /eyes17\.pdf/,
  'expeyes-doc-fr': /fr-eyesj-progman\.pdf/,
};
const EXAMPLES = ['grain-trade.pdf', 'annales-longue-duree.pdf', 'hanse-kontore.pdf', 'exode-rural.pdf', 'printing-reformation.pdf'];

let seed = Number(opt('--seed') ?? 38);
function rnd(): number {
  // mulberry32: the same set on every run.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

const GERMAN_STOP = new Set(
  'der die das und ist nicht ein eine einen zu den von mit sich auf für im dem des als auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie einem über so zum war haben nur oder aber vor zur bis mehr durch man können wenn'.split(
    ' ',
  ),
);
const FUNCTION_WORDS = new Set([...stopwords('en'), ...stopwords('fr'), ...GERMAN_STOP]);

/** Downloads the French and German manuals' packages and takes their PDFs out (apt-get download, dpkg-deb -x). */
async function fetchPdfs(): Promise<void> {
  const debs = path.join(CACHE, 'debs');
  await fs.mkdir(debs, { recursive: true });
  execFileSync('apt-get', ['download', ...Object.keys(PACKAGES)], { cwd: debs, stdio: 'inherit' });
  for (const [pkg, want] of Object.entries(PACKAGES)) {
    const deb = (await fs.readdir(debs)).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
    if (!deb) throw new Error(`apt-get download gave no ${pkg}`);
    const into = path.join(CACHE, 'x', pkg);
    await fs.mkdir(into, { recursive: true });
    execFileSync('dpkg-deb', ['-x', path.join(debs, deb), into]);
    const files = execFileSync('find', [into, '-name', '*.pdf*']).toString().trim().split('\n');
    const file = files.find((f) => want.test(f));
    if (!file) throw new Error(`${pkg} holds no PDF like ${want}`);
    const bytes = await fs.readFile(file);
    await fs.writeFile(path.join(CACHE, `${pkg}.pdf`), file.endsWith('.gz') ? gunzipSync(bytes) : bytes);
  }
}

type Extractor = 'poppler' | 'poppler-layout' | 'mupdf' | 'pdfjs';
const EXTRACTORS: Extractor[] = ['poppler', 'poppler-layout', 'mupdf', 'pdfjs'];

/** Each page's text as the extractor gives a viewer's copy of it. */
async function extract(file: string, how: Extractor): Promise<string[]> {
  if (how === 'poppler' || how === 'poppler-layout')
    return execFileSync('pdftotext', [...(how === 'poppler-layout' ? ['-layout'] : []), '-enc', 'UTF-8', file, '-'], { maxBuffer: 1 << 28 })
      .toString()
      .split('\f');
  if (how === 'mupdf') {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ss-mutool-'));
    try {
      execFileSync('mutool', ['draw', '-q', '-F', 'txt', '-o', path.join(dir, 'p%d.txt'), file], { stdio: 'ignore' });
      const n = (await fs.readdir(dir)).length;
      return Promise.all(Array.from({ length: n }, (_, i) => fs.readFile(path.join(dir, `p${i + 1}.txt`), 'utf8')));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(await fs.readFile(file)), verbosity: 0 }).promise;
  const out: string[] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const content = await (await doc.getPage(p)).getTextContent();
    // The text layer's copy: each item's string, a line break where the item ends a line.
    out.push(content.items.map((it) => ('str' in it ? it.str + (it.hasEOL ? '\n' : '') : '')).join(''));
  }
  await doc.destroy();
  return out;
}

/** Whitespace-separated words with their offsets. */
function wordsOf(text: string): Array<{ w: string; a: number; b: number }> {
  return [...text.matchAll(/\S+/g)].map((m) => ({ w: m[0], a: m.index!, b: m.index! + m[0].length }));
}

/** A span a scholar would quote: prose (words, function words), nothing the draft's Markdown would read as markup or a quotation's end. */
function quotable(s: string): boolean {
  if (/[“”"«»„\[\]@`*_<>#|\\$^{}~]/.test(s)) return false;
  const ws = s.split(' ');
  const wordy = ws.filter((w) => /^[\p{L}][\p{L}\p{M}’'.,;:!?()-]*$/u.test(w)).length;
  const fn = ws.filter((w) => FUNCTION_WORDS.has(w.toLowerCase().replace(/[^\p{L}]/gu, ''))).length;
  return wordy >= 0.75 * ws.length && fn >= 2;
}

type Kind = 'viewer-copy' | 'viewer-page-break' | 'changed-word' | 'added-word' | 'removed-word' | 'invented';
interface Case {
  kind: Kind;
  extractor: Extractor;
  key: string;
  file: string;
  quote: string;
}
const RIGHT_OK = new Set<Kind>(['viewer-copy', 'viewer-page-break']);

async function main() {
  if (argv.includes('--fetch')) await fetchPdfs();
  const root = ROOT ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'ss-viewer-quotes-')));
  const lib = path.join(root, 'library');
  await fs.mkdir(lib, { recursive: true });
  const files: Array<{ src: string; name: string }> = [];
  for (const f of ENGLISH) if (existsSync(f)) files.push({ src: f, name: `deb-${path.basename(f).replace(/\.gz$/, '')}` });
  if (existsSync(CACHE)) for (const f of (await fs.readdir(CACHE)).filter((n) => n.endsWith('.pdf')).sort()) files.push({ src: path.join(CACHE, f), name: f });
  else log(`no French or German manuals in ${CACHE}: run with --fetch once (apt-get download)`);
  if (EXTRA) for (const f of (await fs.readdir(EXTRA)).filter((n) => /\.pdf$/i.test(n)).sort()) files.push({ src: path.join(EXTRA, f), name: `x-${f}` });
  for (const f of EXAMPLES) files.push({ src: path.resolve('examples/library', f), name: f });
  const bib: string[] = [];
  const keyOf = new Map<string, string>();
  for (const { src, name } of files) {
    const bytes = await fs.readFile(src);
    await fs.writeFile(path.join(lib, name), src.endsWith('.gz') ? gunzipSync(bytes) : bytes);
    const key = name.replace(/\.pdf$/, '').replace(/[^a-z0-9]/gi, '');
    keyOf.set(name, key);
    bib.push(`@book{${key},\n  title = {${name}},\n  author = {Doe, Jane},\n  year = {2020},\n  file = {Full Text:${name}:application/pdf}\n}\n`);
  }
  await fs.writeFile(path.join(lib, 'library.bib'), bib.join('\n'));
  const library = resolveLibrary(root, {
    libraryFolders: ['library'],
    primarySourceFolders: [],
    bibliographyFile: 'library/library.bib',
    include: [],
    exclude: [],
    ocr: 'off',
    ocrLanguages: 'eng+fra',
    ocrLanguageFolder: '',
  });
  log(`indexing ${files.length} PDFs…`);
  const report = await indexLibrary({ library, provider: new EmbeddedProvider(), workerDir: path.resolve('dist'), onWarning: (w) => log(`  warning: ${w}`) });
  log(`indexed ${report.sources} sources`);
  const dir = indexDir(root);
  const m = (await readManifest(dir))!;
  const pagesOf = new Map<string, PageText[]>();
  for (const s of Object.values(m.sources)) {
    const pages = await readPageTexts(dir, s.contentHash);
    if (pages) pagesOf.set(path.basename(s.path), pages);
  }

  const cases: Case[] = [];
  const paras: string[] = [];
  const saved = LOAD ? (JSON.parse(await fs.readFile(LOAD, 'utf8')) as { cases: Case[]; paras: string[] }) : undefined;
  if (saved) {
    cases.push(...saved.cases);
    paras.push(...saved.paras);
  }
  const vocabulary = [...new Set([...pagesOf.values()].flatMap((ps) => ps.flatMap((p) => p.text.split(/\s+/).filter((w) => /^[a-z]{5,10}$/.test(w)))))];
  const cite = (c: Case, locator: string) => {
    cases.push(c);
    paras.push(`As the source puts it, “${c.quote}” [@${c.key}, ${locator}].`);
  };
  for (const [file, key] of saved ? [] : keyOf) {
    const pages = pagesOf.get(file);
    if (!pages) {
      log(`  ${file}: no page texts`);
      continue;
    }
    for (const how of EXTRACTORS) {
      let texts: string[];
      try {
        texts = await extract(path.join(lib, file), how);
      } catch (err) {
        log(`  ${file}: ${how} failed (${(err as Error).message.split('\n')[0]})`);
        continue;
      }
      // Each page's words, and the whole document's folded tokens (a span found twice is not a test of its page).
      const whole = ` ${texts.map((t) => tokenize(t).tokens.join(' ')).join(' ')} `;
      const once = (q: string) => {
        const t = ` ${tokenize(q).tokens.join(' ')} `;
        const at = whole.indexOf(t);
        return at >= 0 && whole.indexOf(t, at + 1) < 0;
      };
      // The product's page of each extractor's page, by number (a page without text may be missing from the store).
      const byNumber = new Map(pages.map((p) => [p.page, p]));
      const labelOf = (i: number) => byNumber.get(i + 1)?.label;
      const usable = texts.map((t, i) => ({ i, ws: wordsOf(t) })).filter((x) => x.ws.length >= 60 && labelOf(x.i) !== undefined);
      if (!usable.length) continue;
      for (let k = 0, tries = 0; k < PER_SOURCE && tries < 40 * PER_SOURCE; tries++) {
        const { i, ws } = pick(usable);
        const crossing = k % 4 === 3 && i + 1 < texts.length && labelOf(i + 1) !== undefined;
        const len = 8 + Math.floor(rnd() * 33);
        let quote: string;
        let locator: string;
        if (crossing) {
          // The end of page i, what the viewer gives between, the start of page i+1.
          const next = wordsOf(texts[i + 1]);
          const tail = 4 + Math.floor(rnd() * 10);
          const head = 4 + Math.floor(rnd() * 10);
          if (next.length < head || ws.length < tail) continue;
          quote = `${texts[i].slice(ws[ws.length - tail].a)} ${texts[i + 1].slice(0, next[head - 1].b)}`.replace(/\s+/g, ' ').trim();
          if (quote.split(' ').length > 70) continue;
          locator = `pp. ${labelOf(i)}–${labelOf(i + 1)}`;
        } else {
          const a = Math.floor(rnd() * (ws.length - len));
          quote = texts[i]
            .slice(ws[a].a, ws[a + len - 1].b)
            .replace(/\s+/g, ' ')
            .trim();
          locator = `p. ${labelOf(i)}`;
        }
        if (!quotable(quote) || !once(quote)) continue;
        k++;
        const c = { extractor: how, key, file };
        cite({ ...c, kind: crossing ? 'viewer-page-break' : 'viewer-copy', quote }, locator);
        if (crossing) continue;
        // What a writer does to it: one word changed, added, removed (inside, a word of five letters or more).
        const w = quote.split(' ');
        // Between two words of the quotation (a dash or a number before the first word is no word: removing that word leaves a quotation still verbatim).
        const wordy = w.map((x, j) => (/\p{L}/u.test(x) ? j : -1)).filter((j) => j >= 0);
        const inner = w.map((x, j) => ({ x, j })).filter(({ x, j }) => j > wordy[0] && j < wordy[wordy.length - 1] && /^\p{L}{5,}$/u.test(x));
        if (inner.length) {
          const { j } = pick(inner);
          const alt = pick(vocabulary.filter((v) => v !== w[j].toLowerCase()));
          const variant = (kind: Kind, words: string[]) => cite({ ...c, kind, quote: words.join(' ') }, locator);
          const r = rnd();
          if (r < 0.34) variant('changed-word', [...w.slice(0, j), alt, ...w.slice(j + 1)]);
          else if (r < 0.67) variant('added-word', [...w.slice(0, j), alt, ...w.slice(j)]);
          else variant('removed-word', [...w.slice(0, j), ...w.slice(j + 1)]);
        }
      }
    }
    // Words of another source, cited here (one per source and extractor's worth).
    const others = cases.filter((x) => x.kind === 'viewer-copy' && x.file !== file);
    for (let n = 0; n < Math.min(4, others.length); n++) {
      const o = pick(others);
      cite({ kind: 'invented', extractor: o.extractor, key, file, quote: o.quote }, `p. ${pages[Math.floor(rnd() * pages.length)].label}`);
    }
  }
  if (SAVE) await fs.writeFile(SAVE, JSON.stringify({ cases, paras }));
  const draft = paras.join('\n\n') + '\n';
  // The first check (page texts read from disk) and the median of three more (an editor checking again).
  const timedCheck = async () => {
    const t0 = process.hrtime.bigint();
    const r = await checkCitations(draft, { workspace: root, bibliography: library.bibliography, workerDir: path.resolve('dist') });
    return { r, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
  };
  const { r: result, ms: checkMs } = await timedCheck();
  const again = [(await timedCheck()).ms, (await timedCheck()).ms, (await timedCheck()).ms].sort((a, b) => a - b)[1];
  if (result.citations.length !== cases.length) throw new Error(`the draft has ${cases.length} citations, the checker found ${result.citations.length}`);

  type Row = { n: number; right: number; statuses: Record<string, number>; misses: string[] };
  const rows = new Map<string, Row>();
  const row = (k: string) => rows.get(k) ?? (rows.set(k, { n: 0, right: 0, statuses: {}, misses: [] }), rows.get(k)!);
  result.citations.forEach((c, i) => {
    const k = cases[i];
    const right = RIGHT_OK.has(k.kind) ? c.status === 'ok' : c.status !== 'ok' && c.status !== 'quote-partly-checked';
    for (const r of [row(`${k.extractor}\t${k.kind}`), row(`all\t${k.kind}`)]) {
      r.n++;
      r.statuses[c.status] = (r.statuses[c.status] ?? 0) + 1;
      if (right) r.right++;
      else if (r.misses.length < MISSES && !rows.get(`all\t${k.kind}`)!.misses.includes(k.quote))
        r.misses.push(`[${k.file}] ${c.status}: “${k.quote}”${c.sourceText ? `\n        source: ${c.sourceText}` : ''}`);
    }
  });
  const order = [...EXTRACTORS, 'all'];
  const kinds: Kind[] = ['viewer-copy', 'viewer-page-break', 'changed-word', 'added-word', 'removed-word', 'invented'];
  const pct = (r: Row) => `${((100 * r.right) / Math.max(1, r.n)).toFixed(1)} %`;
  if (argv.includes('--json')) {
    process.stdout.write(JSON.stringify(Object.fromEntries([...rows].map(([k, r]) => [k, { n: r.n, right: r.right, statuses: r.statuses }])), null, 1) + '\n');
  }
  console.log(`\n### Viewer copies: ${cases.length} citations of ${keyOf.size} PDFs, checked in ${checkMs.toFixed(0)} ms (again: ${again.toFixed(0)} ms)\n`);
  console.log('| extractor | kind | n | judged right | statuses |');
  console.log('|---|---|---|---|---|');
  for (const e of order)
    for (const k of kinds) {
      const r = rows.get(`${e}\t${k}`);
      if (!r) continue;
      const st = Object.entries(r.statuses)
        .sort((a, b) => b[1] - a[1])
        .map(([s, n]) => `${s} ${n}`)
        .join(', ');
      console.log(`| ${e} | ${k} | ${r.n} | ${r.right} (${pct(r)}) | ${st} |`);
    }
  for (const e of EXTRACTORS)
    for (const k of kinds) {
      const r = rows.get(`${e}\t${k}`);
      if (r?.misses.length) console.log(`\nmisses, ${e} ${k}:\n${r.misses.map((x) => `  - ${x}`).join('\n')}`);
    }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
