/**
 * The citation checker measured on a development set (issue 21):
 *
 *   npx tsx scripts/measure-citation-check.ts [--per-source N] [--json]
 *
 * The library: the example library's PDFs, Debian's documentation PDFs found under
 * /usr/share/doc (bzip2, nettle, fontconfig, libtasn1, shared-mime-info, zlib's crc-doc:
 * real typeset English, with ligatures, hyphenation and running headers), and scanned
 * copies of two example PDFs (pdftoppm, image-only pages: read by OCR). It is indexed
 * through the product's path (dist/ workers, OCR, the page-text store), then a draft is
 * generated from the pages' own text: quotations of 6–18 words cited at their page
 * (`ok`), at another page (`wrong-page` with the right foundPage), with one word changed
 * (flagged), words of another source (`quote-not-found`), unknown keys, pages past the
 * end. Quotations of the scanned copies are taken from the original PDF's text, as a
 * reader of the paper copy would type them. Prints, per kind, how many were judged
 * right, and the time of the check against a baseline measured in the same run (reading
 * every source's page texts).
 * Needs dist/ (node scripts/build.mjs) for the extraction workers; poppler-utils for the scans.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { EmbeddedProvider } from '../src/core/embedding/embeddedProvider';
import { readPageTexts } from '../src/core/index/store/pageTexts';
import { SourceText, tokenize, type PageText } from '../src/core/citecheck/match';
import { pageScores } from '../src/core/citecheck/pageHint';
import { findCitations } from '../src/core/citecheck/draftCitations';
import { detectLanguage, stopwords, words } from '../src/core/text/tokenize';
import { indexDir, readManifest } from '../src/core/index/store/manifest';
import { checkCitations } from '../src/engine/citations';
import { indexLibrary } from '../src/engine/indexLibrary';
import { resolveLibrary } from '../src/engine/library';
import { buildPdf, type PdfPage } from '../test/support/pdfWriter';
import { scannedPage } from '../test/support/scannedPdf';

const argv = process.argv.slice(2);
const PER_SOURCE = Number(argv[argv.indexOf('--per-source') + 1] || 0) || 12;
const JSON_OUT = argv.includes('--json');
// --root DIR: index there and keep it (a second run reuses the index: no OCR again).
const ROOT = argv.includes('--root') ? path.resolve(argv[argv.indexOf('--root') + 1]) : undefined;
// --pdfs DIR: more PDFs for the library (every *.pdf of DIR), e.g. French ones; figures are also given per language.
const EXTRA = argv.includes('--pdfs') ? path.resolve(argv[argv.indexOf('--pdfs') + 1]) : undefined;
// --features FILE: the page hint's scores of each citation without a quotation, one JSON line each (to choose its thresholds).
const FEATURES = argv.includes('--features') ? path.resolve(argv[argv.indexOf('--features') + 1]) : undefined;
// --save FILE / --load FILE: keep the generated draft, judge a kept one (a before/after comparison on the same citations).
const SAVE = argv.includes('--save') ? path.resolve(argv[argv.indexOf('--save') + 1]) : undefined;
const LOAD = argv.includes('--load') ? path.resolve(argv[argv.indexOf('--load') + 1]) : undefined;
// --misses N: how many misses per kind to print (4 by default).
const MISSES = argv.includes('--misses') ? Number(argv[argv.indexOf('--misses') + 1]) : 4;
const log = (s: string) => process.stderr.write(s + '\n');

const DEBIAN = [
  '/usr/share/doc/bzip2/manual.pdf.gz',
  '/usr/share/doc/nettle-dev/nettle.pdf.gz',
  '/usr/share/doc/fontconfig/fontconfig-user.pdf.gz',
  '/usr/share/doc/libtasn1-doc/libtasn1.pdf',
  '/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf',
  '/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz',
];
const EXAMPLES = [
  'grain-trade.pdf',
  'hanse-kontore.pdf',
  'annales-longue-duree.pdf',
  'exode-rural.pdf',
  'railway-time.pdf',
  'printing-reformation.pdf',
  'zheng-he-voyages.pdf',
  'maximum-1793.pdf',
  'commune-paris-1871.pdf',
  'little-ice-age.pdf',
];
const SCANNED = ['grain-trade.pdf', 'exode-rural.pdf'];

// mulberry32: the same development set on every run (--seed N: another draw of it).
let seed = argv.includes('--seed') ? Number(argv[argv.indexOf('--seed') + 1]) : 21;
function rnd(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
const FUNCTION_WORDS = new Set([...stopwords('en'), ...stopwords('fr')]);

type Kind =
  | 'pdftotext-page-break'
  | 'no-quote-right'
  | 'no-quote-wrong'
  | 'correct'
  | 'correct-retyped'
  | 'correct-pdftotext'
  | 'pdftotext-nonprose'
  | 'wrong-page'
  | 'changed-word'
  | 'invented'
  | 'unknown-key'
  | 'past-the-end'
  | 'ocr-correct'
  | 'ocr-changed-word';
interface Case {
  kind: Kind;
  key: string;
  /** The page the quotation is on (its label), for wrong pages. */
  truePage?: string;
  /** For the page hint's rows: the source's file and the cited page's index. */
  file?: string;
  cited?: number;
}

async function main() {
  const root = ROOT ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'ss-citecheck-')));
  const lib = path.join(root, 'library');
  await fs.mkdir(lib, { recursive: true });
  const bib: string[] = [];
  const keyOf = new Map<string, string>();
  const addBib = (file: string, key: string, title: string) => {
    keyOf.set(file, key);
    bib.push(`@book{${key},\n  title = {${title}},\n  author = {Doe, Jane},\n  year = {2020},\n  file = {Full Text:${file}:application/pdf}\n}\n`);
  };
  for (const f of EXAMPLES) {
    await fs.copyFile(path.resolve('examples/library', f), path.join(lib, f));
    addBib(f, f.replace(/\.pdf$/, '').replace(/[^a-z0-9]/gi, ''), f);
  }
  for (const f of DEBIAN) {
    if (!existsSync(f)) continue;
    const name = path.basename(f).replace(/\.gz$/, '');
    const bytes = await fs.readFile(f);
    await fs.writeFile(path.join(lib, `deb-${name}`), f.endsWith('.gz') ? gunzipSync(bytes) : bytes);
    addBib(`deb-${name}`, `deb${name.replace(/\.pdf$/, '').replace(/[^a-z0-9]/gi, '')}`, name);
  }
  if (EXTRA) {
    for (const name of (await fs.readdir(EXTRA)).filter((n) => /\.pdf$/i.test(n)).sort()) {
      await fs.copyFile(path.join(EXTRA, name), path.join(lib, `x-${name}`));
      addBib(`x-${name}`, `x${name.replace(/\.pdf$/i, '').replace(/[^a-z0-9]/gi, '')}`, name);
    }
  }
  // Scanned copies (no text layer), with the original's printed labels.
  const originals = new Map<string, string>();
  for (const f of SCANNED) {
    const src = await fs.readFile(path.resolve('examples/library', f));
    const pageCount = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', ['-'], { input: src }).toString())?.[1] ?? 0);
    const pages: PdfPage[] = [];
    for (let p = 1; p <= pageCount; p++) pages.push(scannedPage(src, p, 200));
    const labels = /PageLabels/.test(src.toString('latin1'));
    const first = labels
      ? Number(
          execFileSync('pdfinfo', ['-f', '1', '-l', '1', '-'], { input: src })
            .toString()
            .match(/Page\s+1\s+label:\s+(\d+)/)?.[1] ?? 1,
        )
      : 1;
    const name = `scan-${f}`;
    await fs.writeFile(path.join(lib, name), buildPdf({ pages, ...(labels ? { pageLabels: [{ startPage: 0, style: 'D' as const, start: first }] } : {}) }));
    addBib(name, `scan${f.replace(/\.pdf$/, '').replace(/[^a-z0-9]/gi, '')}`, `Scan of ${f}`);
    originals.set(name, f);
  }
  await fs.writeFile(path.join(lib, 'library.bib'), bib.join('\n'));

  const library = resolveLibrary(root, {
    libraryFolders: ['library'],
    primarySourceFolders: [],
    bibliographyFile: 'library/library.bib',
    include: [],
    exclude: [],
    ocr: 'auto',
    ocrLanguages: 'eng+fra',
    ocrLanguageFolder: '',
  });
  log(`indexing ${keyOf.size} PDFs (OCR of the scanned copies takes a few minutes)…`);
  const t0 = Date.now();
  const report = await indexLibrary({ library, provider: new EmbeddedProvider(), workerDir: path.resolve('dist'), onWarning: (w) => log(`  warning: ${w}`) });
  log(`indexed ${report.sources} sources in ${((Date.now() - t0) / 1000).toFixed(1)} s (OCR: ${report.ocr.pages} pages)`);

  // Each source's pages, as the checker sees them (the store), keyed by file name.
  const dir = indexDir(root);
  const m = (await readManifest(dir))!;
  const pagesOf = new Map<string, PageText[]>();
  for (const s of Object.values(m.sources)) {
    const pages = await readPageTexts(dir, s.contentHash);
    if (pages) pagesOf.set(path.basename(s.path), pages);
  }

  // Windows of a page's own text (6–18 words), copied with its punctuation, free of markup.
  const windowOf = (p: PageText): string | undefined => {
    const t = tokenize(p.text);
    if (t.tokens.length < 30) return undefined;
    for (let tries = 0; tries < 20; tries++) {
      const len = 6 + Math.floor(rnd() * 13);
      const a = Math.floor(rnd() * (t.tokens.length - len));
      const s = p.text.slice(t.starts[a], t.ends[a + len - 1]).replace(/\s+/g, ' ');
      if (/[“”"«»„‘’\[\]@`*_<>#|\\$^{}~]/.test(s) || /\.\.\.|…/.test(s) || s.length < 25) continue;
      if (/[.!?]\s/.test(s)) continue; // one sentence
      return s;
    }
    return undefined;
  };
  const FRAMES = ['It has been argued that', 'The author notes that', 'As the source explains,', 'We read that', 'In this view,'];
  const paraphraseOf = (p: PageText): string | undefined => {
    const ws = p.text.split(/\s+/).filter((w) => /^\p{L}[\p{L}'’-]*[,;:.]?$/u.test(w));
    if (ws.length < 40) return undefined;
    const len = 14 + Math.floor(rnd() * 11);
    const a = Math.floor(rnd() * (ws.length - len));
    // From close (a third left out) to loose (two thirds left out).
    const drop = 0.3 + 0.4 * rnd();
    const kept = ws
      .slice(a, a + len)
      .filter(() => rnd() >= drop)
      .map((w) => w.replace(/[.:;]$/, ''));
    return kept.length >= 6 ? `${pick(FRAMES)} ${kept.join(' ')}` : undefined;
  };
  const joined = new Map<PageText[], string[]>();
  const occurrences = (pages: PageText[], quote: string): string[] => {
    const q = tokenize(quote).tokens.join(' ');
    const out: string[] = [];
    // Across page ends too: the joined stream.
    let all = joined.get(pages);
    if (!all) joined.set(pages, (all = pages.map((p) => tokenize(p.text).tokens.join(' '))));
    all.forEach((p, i) => {
      if (` ${p} `.includes(` ${q} `)) out.push(pages[i].label);
      else if (i + 1 < all.length && ` ${p} ${all[i + 1]} `.includes(` ${q} `)) out.push(`${pages[i].label}–${pages[i + 1].label}`);
    });
    return out;
  };
  const vocabulary = [...new Set([...pagesOf.values()].flatMap((ps) => ps.flatMap((p) => p.text.split(/\s+/).filter((w) => /^[a-z]{4,10}$/.test(w)))))];

  const cases: Case[] = [];
  const paras: string[] = [];
  const cite = (c: Case, text: string) => {
    cases.push(c);
    paras.push(text);
  };
  // --load FILE: the draft of an earlier run (--save FILE), so that two versions of the checker judge the same citations.
  const saved = LOAD ? (JSON.parse(await fs.readFile(LOAD, 'utf8')) as { cases: Case[]; paras: string[] }) : undefined;
  if (saved) {
    cases.push(...saved.cases);
    paras.push(...saved.paras);
  }
  for (const [file, key] of saved ? [] : keyOf) {
    const scanned = originals.get(file);
    const pages = pagesOf.get(file);
    if (!pages) {
      log(`  ${file}: no page texts (skipped by the indexer?)`);
      continue;
    }
    // Quotations come from the original's text (for a scan: the born-digital file's).
    const textPages = scanned ? pagesOf.get(scanned)! : pages;
    const usable = textPages.map((p, i) => ({ p, i })).filter(({ p }) => tokenize(p.text).tokens.length >= 30);
    if (!usable.length) continue;
    const n = scanned ? Math.ceil(PER_SOURCE / 2) : PER_SOURCE;
    for (let k = 0, tries = 0; k < n && tries < 20 * n; tries++) {
      const { p, i } = pick(usable);
      const q = windowOf(p);
      if (!q) continue;
      const label = pages[i].label;
      const where = occurrences(pages, q);
      if (scanned) {
        k++;
        cite({ kind: 'ocr-correct', key }, `It says “${q}” [@${key}, p. ${label}].`);
        const w = q.split(' ');
        const at = 1 + Math.floor(rnd() * (w.length - 2));
        const alt = pick(vocabulary.filter((v) => v !== w[at].toLowerCase()));
        cite({ kind: 'ocr-changed-word', key }, `It says “${[...w.slice(0, at), alt, ...w.slice(at + 1)].join(' ')}” [@${key}, p. ${label}].`);
        continue;
      }
      // A quotation the source repeats elsewhere cannot test a page: another one is taken.
      if (where.length !== 1) continue;
      k++;
      cite({ kind: 'correct', key }, `As written, “${q}” [@${key}, p. ${label}].`);
      // The same words as a writer types them: ligatures spelt out, curly apostrophes, a first capital
      // lowered, line breaks, and an elision in the middle of a long one.
      let typed = q.normalize('NFKC').replace(/'/g, '’');
      typed = typed[0].toLowerCase() + typed.slice(1);
      const tw = typed.split(' ');
      if (tw.length >= 12) typed = [...tw.slice(0, 4), '[…]', ...tw.slice(7)].join(' ');
      typed = typed.replace(/ /, '\n');
      cite({ kind: 'correct-retyped', key }, `As written, “${typed}” [@${key}, p. ${label}].`);
      const others = pages.filter((o) => o.label !== label && !where.includes(o.label));
      if (others.length) cite({ kind: 'wrong-page', key, truePage: label }, `As written, “${q}” [@${key}, p. ${pick(others).label}].`);
      const w = q.split(' ');
      const at = 1 + Math.floor(rnd() * (w.length - 2));
      const alt = pick(vocabulary.filter((v) => v !== w[at].toLowerCase().replace(/[^a-z]/g, '')));
      cite({ kind: 'changed-word', key }, `As written, “${[...w.slice(0, at), alt, ...w.slice(at + 1)].join(' ')}” [@${key}, p. ${label}].`);
      // Words of another source, cited here.
      const otherFile = pick([...pagesOf.keys()].filter((f) => f !== file && !originals.has(f) && originals.get(file) !== f));
      const op = pick(
        pagesOf
          .get(otherFile)!
          .filter((x) => tokenize(x.text).tokens.length >= 30)
          .concat(),
      );
      const inv = op && windowOf(op);
      if (inv && tokenize(inv).tokens.length >= 8 && occurrences(pages, inv).length === 0)
        cite({ kind: 'invented', key }, `As written, “${inv}” [@${key}, p. ${label}].`);
      // A sentence that cites the page without quoting it: some of the page's words in their order
      // (a third to two thirds left out), in the writer's frame; cited at the page, and at another page.
      const para = paraphraseOf(p);
      if (para) {
        cite({ kind: 'no-quote-right', key, file, cited: i }, `${para} [@${key}, p. ${label}].`);
        const o = Math.floor(rnd() * pages.length);
        if (o !== i) cite({ kind: 'no-quote-wrong', key, truePage: label, file, cited: o }, `${para} [@${key}, p. ${pages[o].label}].`);
      }
    }
    // Quotations copied from another reader's text (poppler's pdftotext, as a viewer's copy gives
    // it: its own ligatures, hyphens and spacing), de-hyphenated at line ends as a writer would.
    if (!scanned) {
      const pdf = path.join(lib, file);
      for (let k = 0, tries = 0; k < Math.ceil(PER_SOURCE / 2) && tries < 10 * PER_SOURCE; tries++) {
        const i = Math.floor(rnd() * pages.length);
        let raw: string;
        try {
          raw = execFileSync('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), pdf, '-']).toString();
        } catch {
          break;
        }
        // Paragraphs of running prose only (headers, footers and code are short lines; a table's
        // column, which pdftotext reads down where we read across, ends without a full stop).
        const paragraphs = raw
          .split(/\n\s*\n/)
          .map((x) =>
            x
              .replace(/(\p{L})-\n(\p{Ll})/gu, '$1$2')
              .replace(/\s+/g, ' ')
              .trim(),
          )
          .filter((x) => x.split(' ').length >= 20 && /[.!?:»”)]$/u.test(x));
        if (!paragraphs.length) continue;
        const para = pick(paragraphs);
        const q = windowOf({ page: i + 1, label: '', ocr: false, text: para });
        if (!q) continue;
        // Prose, as a scholar quotes it: mostly lower-case words (not a table's cells or code, whose
        // reading order differs between PDF readers; counted apart as 'pdftotext-any').
        // Prose has function words, and no letters standing alone (a list of property names, code
        // in tracked type, formulas).
        const ws = q.split(' ');
        const prose =
          ws.filter((w) => /^\p{Ll}[\p{Ll}’',;:.]+$|^[aà]$/u.test(w)).length >= 0.8 * ws.length &&
          ws.some((w) =>
            FUNCTION_WORDS.has(
              w
                .toLowerCase()
                .normalize('NFD')
                .replace(/[^a-z]/g, ''),
            ),
          );
        if (!prose) {
          if (occurrences(pages, q).length <= 1) cite({ kind: 'pdftotext-nonprose', key }, `Copied: “${q}” [@${key}, p. ${pages[i].label}].`);
          continue;
        }
        const where = occurrences(pages, q);
        // Found once by our own reading (elsewhere, a quote the source repeats; nowhere: a reading difference, counted below).
        if (where.length > 1) continue;
        k++;
        cite({ kind: 'correct-pdftotext', key }, `Copied: “${q}” [@${key}, p. ${pages[i].label}].`);
      }
    }
    // Copied through pdftotext across a page break, as a viewer's selection gives it: the end of one
    // page's prose, its running footer, the next page's header, the start of its prose; cited pp. a–b.
    if (!scanned) {
      const pdf = path.join(lib, file);
      const prose = (l: string) => l.trim().split(/\s+/).length >= 6 && /^[\p{L},;:'’\s-]+$/u.test(l.trim());
      for (let k = 0, tries = 0; k < Math.ceil(PER_SOURCE / 4) && tries < 5 * PER_SOURCE && pages.length > 1; tries++) {
        const i = Math.floor(rnd() * (pages.length - 1));
        let raw: string;
        try {
          raw = execFileSync('pdftotext', ['-f', String(i + 1), '-l', String(i + 2), pdf, '-']).toString();
        } catch {
          break;
        }
        const [a, b] = raw.split('\f');
        if (!a || !b) continue;
        const la = a.split('\n');
        const lb = b.split('\n');
        let ea = la.length - 1;
        while (ea >= 0 && !prose(la[ea])) ea--;
        let sb = 0;
        while (sb < lb.length && !prose(lb[sb])) sb++;
        if (ea < 0 || sb >= lb.length) continue;
        const between = [...la.slice(ea + 1), ...lb.slice(0, sb)].join(' ').replace(/\s+/g, ' ').trim();
        const nums = new Set(tokenize(between).tokens);
        if (!between || between.split(' ').length > 20 || !(nums.has(pages[i].label.toLowerCase()) || nums.has(pages[i + 1].label.toLowerCase()))) continue;
        const head = la[ea].trim().split(/\s+/).slice(-6).join(' ');
        const tail = lb[sb].trim().split(/\s+/).slice(0, 6).join(' ');
        // Our own reading has the two pieces joined over the break (otherwise a reading difference, not this test).
        if (!occurrences(pages, `${head} ${tail}`).includes(`${pages[i].label}–${pages[i + 1].label}`)) continue;
        k++;
        cite({ kind: 'pdftotext-page-break', key }, `Copied: “${head} ${between} ${tail}” [@${key}, pp. ${pages[i].label}–${pages[i + 1].label}].`);
      }
    }
    cite({ kind: 'unknown-key', key }, `See [@${key.slice(0, -1)}x, p. ${pages[0].label}].`);
    // Past the last page, whether the locator is read as a printed label or a page number.
    const beyond = Math.max(pages.length, ...pages.map((p) => (/^\d+$/.test(p.label) ? Number(p.label) : 0))) + 40;
    cite({ kind: 'past-the-end', key }, `See [@${key}, p. ${beyond}].`);
    const firstLabel = /^[0-9ivxlcdm]+$/.test(pages[0].label) ? pages[0].label : '1';
    cite({ kind: 'past-the-end', key }, `See [@${key}, pp. ${firstLabel}–${beyond + 500}].`);
  }
  if (SAVE) await fs.writeFile(SAVE, JSON.stringify({ cases, paras }));
  const draft = paras.join('\n\n') + '\n';
  await fs.writeFile(path.join(root, 'draft.md'), draft);

  // Baseline: reading every source's page texts (what any check must do), in this run.
  const b0 = process.hrtime.bigint();
  for (const s of Object.values(m.sources)) await readPageTexts(dir, s.contentHash);
  const baselineMs = Number(process.hrtime.bigint() - b0) / 1e6;
  // 1,000 citations, in a fresh process's first check (cold), as a CI run makes it.
  const first1000 = paras.slice(0, 1000).join('\n\n') + '\n';
  const k0 = process.hrtime.bigint();
  const r1000 = await checkCitations(first1000, { workspace: root, bibliography: library.bibliography, workerDir: path.resolve('dist') });
  const ms1000 = Number(process.hrtime.bigint() - k0) / 1e6;
  const c0 = process.hrtime.bigint();
  const result = await checkCitations(draft, { workspace: root, bibliography: library.bibliography, workerDir: path.resolve('dist') });
  const checkMs = Number(process.hrtime.bigint() - c0) / 1e6;
  // The same draft checked again in this process (an editor re-checking): warm.
  const w0 = process.hrtime.bigint();
  await checkCitations(draft, { workspace: root, bibliography: library.bibliography, workerDir: path.resolve('dist') });
  const warmMs = Number(process.hrtime.bigint() - w0) / 1e6;
  if (result.citations.length !== cases.length) throw new Error(`the draft has ${cases.length} citations, the checker found ${result.citations.length}`);

  const rows = new Map<Kind, { n: number; right: number; hints: number; statuses: Record<string, number>; misses: string[] }>();
  // Each source's language (its words tell), for the figures per language.
  const langOf = new Map<string, string>();
  for (const [file, key] of keyOf) {
    const pages = pagesOf.get(originals.get(file) ?? file);
    if (pages)
      langOf.set(
        key,
        detectLanguage(
          words(
            pages
              .map((p) => p.text)
              .join(' ')
              .slice(0, 200000),
          ),
        ),
      );
  }
  const byLang = new Map<string, Map<Kind, { n: number; right: number }>>();
  result.citations.forEach((c, i) => {
    const k = cases[i];
    const row = rows.get(k.kind) ?? { n: 0, right: 0, hints: 0, statuses: {}, misses: [] };
    rows.set(k.kind, row);
    row.n++;
    row.statuses[c.status] = (row.statuses[c.status] ?? 0) + 1;
    const right =
      k.kind === 'correct' ||
      k.kind === 'correct-retyped' ||
      k.kind === 'correct-pdftotext' ||
      k.kind === 'pdftotext-page-break' ||
      k.kind === 'pdftotext-nonprose' ||
      k.kind === 'ocr-correct'
        ? c.status === 'ok'
        : k.kind === 'no-quote-right'
          ? c.status === 'ok' && !c.hint
          : k.kind === 'no-quote-wrong'
            ? c.status === 'ok' && c.hint?.page === k.truePage
            : k.kind === 'wrong-page'
              ? c.status === 'wrong-page' && c.foundPage === k.truePage
              : k.kind === 'changed-word' || k.kind === 'ocr-changed-word'
                ? c.status !== 'ok'
                : k.kind === 'invented'
                  ? c.status === 'quote-not-found'
                  : k.kind === 'unknown-key'
                    ? c.status === 'unknown-key'
                    : c.status === 'no-such-page';
    if (c.hint) row.hints++;
    if (right) row.right++;
    const lang = langOf.get(k.key) ?? '?';
    const perLang = byLang.get(lang) ?? new Map<Kind, { n: number; right: number }>();
    byLang.set(lang, perLang);
    const lr = perLang.get(k.kind) ?? { n: 0, right: 0 };
    perLang.set(k.kind, lr);
    lr.n++;
    if (right) lr.right++;
    else if (row.misses.length < MISSES)
      row.misses.push(
        `${c.key} ${c.locator}: ${c.status} ${c.foundPage ?? ''} “${(c.quote ?? '').slice(0, 70)}” ${JSON.stringify(c.differences).slice(0, 120)}`,
      );
  });
  const goal: Record<Kind, string> = {
    'no-quote-right': 'no page hint (rarely one)',
    'pdftotext-page-break': 'ok (footer and header inside)',
    'no-quote-wrong': 'a page hint naming the right page',
    correct: '≥ 97% ok',
    'correct-retyped': '≥ 97% ok',
    'correct-pdftotext': '≥ 97% ok',
    'pdftotext-nonprose': 'ok (tables, code: not a goal)',
    'wrong-page': '≥ 90% wrong-page, right foundPage',
    'changed-word': '≥ 90% flagged',
    invented: '≥ 95% quote-not-found',
    'unknown-key': 'all unknown-key',
    'past-the-end': 'all no-such-page',
    'ocr-correct': 'ok (OCR, loosely)',
    'ocr-changed-word': 'flagged',
  };
  const out = {
    sources: keyOf.size,
    citations: cases.length,
    kinds: Object.fromEntries(
      [...rows].map(([k, r]) => [k, { n: r.n, right: r.right, share: r.right / r.n, statuses: r.statuses, hints: r.hints, goal: goal[k] }]),
    ),
    languages: Object.fromEntries([...byLang].map(([l, m]) => [l, Object.fromEntries([...m].map(([k, r]) => [k, { n: r.n, right: r.right }]))])),
    timing: {
      citations1000: r1000.citations.length,
      check1000Ms: Math.round(ms1000),
      checkMs: Math.round(checkMs),
      warmMs: Math.round(warmMs),
      baselineReadPagesMs: Math.round(baselineMs),
      reread: result.reread,
    },
  };
  if (JSON_OUT) process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  else {
    console.log(`${out.citations} citations of ${out.sources} sources`);
    console.log('kind              judged right     statuses                                   goal');
    for (const [k, r] of rows)
      console.log(
        `${k.padEnd(17)} ${`${r.right}/${r.n}`.padStart(7)} ${((100 * r.right) / r.n).toFixed(1).padStart(6)}%  ${JSON.stringify(r.statuses).padEnd(42)} ${goal[k]}${r.hints ? ` (page hints: ${r.hints})` : ''}`,
      );
    if (byLang.size > 1)
      for (const [l, m] of byLang) console.log(`${l}: ${[...m].map(([k, r]) => `${k} ${r.right}/${r.n} (${((100 * r.right) / r.n).toFixed(1)}%)`).join(', ')}`);
    console.log(`check of the first ${out.timing.citations1000} citations (cold): ${out.timing.check1000Ms} ms`);
    console.log(
      `check of all ${out.citations}: ${out.timing.checkMs} ms (again, warm: ${out.timing.warmMs} ms); baseline, reading the page texts: ${out.timing.baselineReadPagesMs} ms`,
    );
  }
  for (const [k, r] of rows) for (const miss of r.misses) log(`  miss ${k}: ${miss}`);
  if (FEATURES) {
    // The hint's scores, whatever its thresholds: to choose them.
    const lines: string[] = [];
    const srcOf = new Map<PageText[], SourceText>();
    result.citations.forEach((c, i) => {
      const k = cases[i];
      const context = findCitations(paras[i])[0]?.context;
      const pages = k.file ? pagesOf.get(k.file) : undefined;
      if (!pages || k.cited === undefined || !context) return;
      let src = srcOf.get(pages);
      if (!src) srcOf.set(pages, (src = new SourceText(pages)));
      const s = pageScores(src, { from: k.cited, to: k.cited }, context);
      lines.push(
        JSON.stringify({ kind: k.kind, truePage: k.truePage ?? null, bestPage: s ? src.pages[s.best].label : null, hint: c.hint?.page ?? null, ...s }),
      );
    });
    await fs.writeFile(FEATURES, lines.join('\n') + '\n');
  }
  if (!ROOT) await fs.rm(root, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
