/**
 * Which pages of a folder of PDFs the extraction sends to OCR (issue 22), without running OCR:
 *
 *   npx tsx scripts/ocr-decisions.ts <folder> [--list] [--json]
 *
 * Prints files, pages, pages sent to OCR and in how many files, pages in doubt (OCR of a sample
 * page decides on them: one page per such file is read) and the time extraction took, and with
 * --list each such page with the rule's figures (letters, word share, word-run share, bad
 * characters, function-word share) and its first words. The "OCR decisions" table of BENCHMARKS.md
 * was made with it on Debian's TeX manuals (texlive-humanities-doc etc.: `apt-get download`,
 * `dpkg -x` outside the repository).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { extractPdf } from '../src/core/pdf/extract';
import { layerOf } from '../src/core/pdf/ocrPlan';
import { functionWordShare, pageTextQuality } from '../src/core/pdf/textQuality';

const argv = process.argv.slice(2);
const folder = argv.find((a) => !a.startsWith('--'));
if (!folder) {
  process.stderr.write('usage: npx tsx scripts/ocr-decisions.ts <folder of PDFs> [--list] [--json]\n');
  process.exit(2);
}

async function pdfsUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await pdfsUnder(p)));
    else if (e.name.toLowerCase().endsWith('.pdf')) out.push(p);
  }
  return out.sort();
}

async function main(): Promise<void> {
  const files = await pdfsUnder(folder!);
  let pages = 0;
  let sent = 0;
  let unreadable = 0;
  const filesSent: string[] = [];
  let doubtful = 0;
  let filesInDoubt = 0;
  let extractMs = 0;
  const list: string[] = [];
  for (const f of files) {
    let raw;
    try {
      const bytes = await fs.readFile(f);
      const t0 = performance.now();
      raw = await extractPdf(bytes);
      extractMs += performance.now() - t0;
    } catch (err) {
      unreadable++;
      list.push(`${path.relative(folder!, f)}: not read (${(err as Error).message})`);
      continue;
    }
    pages += raw.pageCount;
    if (raw.ocrDoubtful) {
      doubtful += raw.ocrDoubtful.length;
      filesInDoubt++;
      for (const n of raw.ocrDoubtful) {
        const text = layerOf(raw, n);
        const q = pageTextQuality(text);
        list.push(
          `${path.relative(folder!, f)} p${n}: in doubt${n === raw.ocrSample ? ' (the sample)' : ''}, ${q.verdict}, ${q.letters} letters, words ${q.wordShare.toFixed(2)}, runs ${q.runShare.toFixed(2)}, function words ${functionWordShare(text).toFixed(2)} | ${text.replace(/\s+/g, ' ').slice(0, 80)}`,
        );
      }
    }
    const candidates = raw.ocrCandidates ?? [];
    if (!candidates.length) continue;
    sent += candidates.length;
    filesSent.push(f);
    for (const n of candidates) {
      const text = layerOf(raw, n);
      const q = pageTextQuality(text);
      list.push(
        `${path.relative(folder!, f)} p${n}: ${q.verdict}, ${q.letters} letters, words ${q.wordShare.toFixed(2)}, runs ${q.runShare.toFixed(2)}, bad ${q.badCharShare.toFixed(3)} | ${text.replace(/\s+/g, ' ').slice(0, 80)}`,
      );
    }
  }
  const summary = {
    files: files.length,
    unreadable,
    pages,
    pagesToOcr: sent,
    filesWithOcr: filesSent.length,
    pagesInDoubt: doubtful,
    filesInDoubt,
    extractSeconds: Math.round(extractMs) / 1000,
  };
  if (argv.includes('--json')) process.stdout.write(JSON.stringify({ ...summary, ...(argv.includes('--list') ? { list } : {}) }, null, 2) + '\n');
  else {
    if (argv.includes('--list')) for (const l of list) process.stdout.write(l + '\n');
    process.stdout.write(
      `${summary.files} files (${unreadable} not read), ${pages} pages: ${sent} pages in ${filesSent.length} files go to OCR; ` +
        `${doubtful} pages in ${filesInDoubt} files in doubt (a sample page of each file read by OCR decides); extraction ${summary.extractSeconds} s\n`,
    );
  }
}

void main();
