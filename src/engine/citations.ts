/**
 * Checking a draft's citations against the library (issue 21): keys, pages and
 * quotations. The sources' page texts come from the page-text store the indexer
 * writes; a source indexed before it existed is read again (in the PDF workers
 * when the bundle has them) and its pages stored for next time. OCR'd pages are
 * taken from the OCR cache, never recognised again here.
 */
import { promises as fs } from 'node:fs';
import { checkCitationList, newCheckMemo, statusSeverity, type CheckedCitation, type CheckMemo, type CheckSources } from '../core/citecheck/check';
import { findCitations, type DraftCitation } from '../core/citecheck/draftCitations';
import { findLatexCitations } from '../core/latex/citations';
import { readLatexProject } from '../core/latex/project';
import type { PageText } from '../core/citecheck/match';
import { readPageTexts, writePageTexts } from '../core/index/store/pageTexts';
import { notReadyError, indexHealth } from '../core/index/health';
import { indexDir, readManifest, type SourceRecord } from '../core/index/store/manifest';
import { serverRefused, type LibraryServer } from '../core/index/server/connection';
import { currentGeneration, generationHealth, keptPerGeneration, serverPageTexts } from '../core/index/server/read';
import { latestCopy } from '../core/index/server/memberCopy';
import { errorCode } from '../shared/errors';
import { publishedOn } from '../shared/health';
import { loadBibliography } from '../core/library/bibliography';
import { readZoteroEntries } from '../core/zotero/entriesFile';
import { OcrCache } from '../core/ocr/ocrCache';
import { cleanPages } from '../core/pdf/cleanPages';
import { extractPdf, type RawPdf } from '../core/pdf/extract';
import { firstOcrPages, pagesWithOcr } from '../core/pdf/ocrPlan';
import { PdfExtractPool } from '../core/pdf/extractPool';
import { sha256 } from '../core/util/hash';
import { readConfined } from '../core/util/confinedFiles';
import { bounded, visibleText } from '../shared/untrusted';
import { CitationThread } from './citationThread';

export type { CheckedCitation, CitationStatus } from '../core/citecheck/check';
export type { Difference } from '../core/citecheck/match';
export type { PageHint } from '../core/citecheck/pageHint';
export { MAX_QUOTE_WORDS, statusSeverity } from '../core/citecheck/check';
export { findCitations, type DraftCitation, type Locator } from '../core/citecheck/draftCitations';

export interface CheckCitationsOptions {
  /** The workspace whose index (`.similar-sources/`) holds the library. */
  workspace: string;
  /** The Better BibTeX export (or a LaTeX draft's `.bib` files): its keys are known even without a PDF. */
  bibliography?: string | string[];
  /**
   * The draft named `bibliography` (front matter, `\addbibresource`), not the user's settings: the
   * files must lie inside `workspace` (issue 35); one elsewhere is refused with a warning.
   */
  bibliographyFromDraft?: boolean;
  /** How the draft is written (default Markdown: Pandoc citations). */
  format?: 'markdown' | 'latex';
  /** The draft's file: a LaTeX draft's `\input`/`\include` files are read from its folder (within `workspace`). */
  draftPath?: string;
  /** Where the PDF worker lies (the bundle's folder); without it, PDFs are read in this thread. */
  workerDir?: string;
  /** OCR languages of the cache to read scanned pages from (default eng+fra). */
  ocrLanguages?: string;
  /** A lab's library server: the sources and their page texts are its current generation's (issue 37). */
  server?: LibraryServer;
  signal?: AbortSignal;
  onWarning?: (w: string) => void;
}

export interface CitationCheckResult {
  citations: CheckedCitation[];
  /** How many are errors and warnings (statusSeverity). */
  errors: number;
  warnings: number;
  /** Quotations too long to compare whole whose compared ends match (`quote-partly-checked`): neither errors nor warnings, but not `ok`. */
  partlyChecked: number;
  /** Sources whose page texts were missing (an index built by an older version) and were read again from the PDF. */
  reread: number;
  ms: number;
}

/**
 * Every citation of the draft, judged. The index must exist (`index-not-ready`
 * otherwise); a key that only the bibliography has is `ok` with a note.
 */
export async function checkCitations(draft: string, opts: CheckCitationsOptions): Promise<CitationCheckResult> {
  const started = Date.now();
  const dir = indexDir(opts.workspace);
  const { server } = opts;
  const published = server ? await publishedSources(server, opts) : undefined;
  const manifest = published ?? (await readManifest(dir).catch(() => undefined));
  // The server out of reach: its page texts come from this machine's copy of a generation.
  const copy = published?.copy;
  if (!manifest) throw notReadyError(await indexHealth(opts.workspace));
  const byKey = new Map<string, SourceRecord[]>();
  for (const s of Object.values(manifest.sources)) {
    if (!s.citekey) continue;
    const list = byKey.get(s.citekey) ?? [];
    list.push(s);
    byKey.set(s.citekey, list);
  }
  const keys = new Set(byKey.keys());
  const bibliographies = opts.bibliography === undefined ? [] : typeof opts.bibliography === 'string' ? [opts.bibliography] : opts.bibliography;
  for (const file of bibliographies) {
    try {
      const bib = await loadBibliography(file, { cacheDir: dir, draftWorkspace: opts.bibliographyFromDraft ? opts.workspace : undefined });
      for (const e of bib.entries) keys.add(e.citekey);
    } catch (err) {
      opts.onWarning?.(`cannot read the bibliography: ${(err as Error).message}; only the library's keys are known`);
    }
  }
  // Zotero's items, those without a PDF included, as of the last indexing run.
  const zotero = await readZoteroEntries(dir);
  for (const e of zotero?.entries ?? []) keys.add(e.citekey);
  // The last check's sources and verdicts, kept while the index and the bibliography are the same:
  // an editor re-checking after an edit judges only the citations the edit changed.
  const bibStamp =
    (
      await Promise.all(
        bibliographies.map((f) =>
          fs.stat(f).then(
            (st) => `${st.size}:${st.mtimeMs}`,
            () => 'none',
          ),
        ),
      )
    ).join('\u0001') || 'none';
  const memoId = `${dir}\u0000${manifest.fingerprint}\u0000${manifest.updatedAt}\u0000${bibliographies.join('\u0001')}\u0000${bibStamp}\u0000${zotero?.stamp ?? ''}`;
  if (lastMemo?.id !== memoId) lastMemo = { id: memoId, memo: newCheckMemo() };
  const memo = lastMemo.memo;
  let pool: PdfExtractPool | undefined;
  let reread = 0;
  const readAgain = async (s: SourceRecord): Promise<PageText[] | undefined> => {
    try {
      // A source the index names (a library PDF, a Zotero attachment): a regular file, bounded.
      const { bytes } = await readConfined(s.path, { kind: 'pdf', signal: opts.signal });
      const hash = sha256(bytes);
      pool ??= PdfExtractPool.beside(opts.workerDir, 1);
      const raw: RawPdf = pool ? await pool.extract(bytes) : await extractPdf(bytes);
      // What the index made of the pages: OCR's text where its cache has it, by the index's rules.
      const cache = firstOcrPages(raw).length ? await OcrCache.open(dir, hash, languagesOf(opts.ocrLanguages)) : undefined;
      const { texts, ocr } = pagesWithOcr(raw, (n) => cache?.get(n)?.text);
      const pages = cleanPages(texts, raw.pageLabels);
      await writePageTexts(dir, hash, pages, ocr).catch(() => undefined);
      reread++;
      return await readPageTexts(dir, hash);
    } catch (err) {
      opts.onWarning?.(`${s.path}: cannot read its pages to check citations (${(err as Error).message})`);
      return undefined;
    }
  };
  const sources: CheckSources = {
    keys,
    pdfs: (key) =>
      (byKey.get(key) ?? []).map((s) => ({
        path: s.path,
        pages: async () =>
          server
            ? copy
              ? await copiedPages(copy, s, opts)
              : await publishedPages(server, s, opts)
            : ((await readPageTexts(dir, s.contentHash)) ?? (await readAgain(s))),
      })),
  };
  try {
    // Untrusted text (the PDF's words, the draft's) made visible and bounded once, here (SECURITY.md).
    const shown = (t: string) => bounded(visibleText(t), 4000);
    const citations = (await checkCitationList(draftCitationsOf(draft, opts), sources, { signal: opts.signal, memo })).map((c) => ({
      ...c,
      key: shown(c.key),
      quote: c.quote === null ? null : shown(c.quote),
      sourceText: c.sourceText === null ? null : shown(c.sourceText),
      differences: c.differences.map((d) => ({ quote: shown(d.quote), source: shown(d.source) })),
      hint: c.hint && { ...c.hint, excerpt: shown(c.hint.excerpt) },
    }));
    const errors = citations.filter((c) => statusSeverity(c.status) === 'error').length;
    const warnings = citations.filter((c) => statusSeverity(c.status) === 'warning').length;
    const partlyChecked = citations.filter((c) => c.status === 'quote-partly-checked').length;
    return { citations, errors, warnings, partlyChecked, reread, ms: Date.now() - started };
  } catch (err) {
    // A failed check may leave half-loaded sources: the next one starts afresh. A cancelled one
    // stopped between citations (each source loaded whole): what it judged serves the next save.
    if (!opts.signal?.aborted) lastMemo = undefined;
    throw err;
  } finally {
    await pool?.close();
    if (memo.verdicts.size > 20000) memo.verdicts.clear();
  }
}

/**
 * The server's current generation as the check reads a manifest: its sources, and what names it
 * (`index-not-ready` when none). Out of reach, this machine's newest copy of a generation (`copy`:
 * its folder, which holds the page texts), said through onWarning; without one, `server-unreachable`.
 */
async function publishedSources(
  server: LibraryServer,
  opts: Pick<CheckCitationsOptions, 'workspace' | 'onWarning'>,
): Promise<{ sources: Record<string, SourceRecord>; fingerprint: string; updatedAt: string; copy?: string }> {
  let published;
  try {
    published = await keptSources(server);
  } catch (err) {
    if (errorCode(err) !== 'server-unreachable' || serverRefused(err)) throw err;
    const latest = await latestCopy(opts.workspace, server);
    const m = latest && (await readManifest(latest.dir).catch(() => undefined));
    if (!latest || !m) throw err;
    const { generation, publishedAt } = latest.record;
    opts.onWarning?.(
      `${(err as Error).message}: checked against this machine's copy of generation ${generation} (published ${publishedOn(publishedAt)}), which may not be the newest`,
    );
    return { sources: m.sources, fingerprint: m.fingerprint, updatedAt: `generation ${generation} (copy)`, copy: latest.dir };
  }
  if (!published) throw notReadyError(generationHealth(server, undefined, ''));
  return published;
}

/** The current generation's sources as the check reads them, fetched once per generation (27 MB at 67,000 PDFs); each check asks for the id. */
const keptSources = keptPerGeneration(async (server) => {
  const g = await currentGeneration(server);
  return (
    g && { id: g.id, sources: Object.fromEntries(g.library.sources.map((r) => [r.id, r])), fingerprint: g.library.fingerprint, updatedAt: `generation ${g.id}` }
  );
});

/** A published source's page texts from this machine's copy of the generation (the server out of reach). */
async function copiedPages(copy: string, s: SourceRecord, opts: Pick<CheckCitationsOptions, 'onWarning'>): Promise<PageText[] | undefined> {
  const pages = await readPageTexts(copy, s.contentHash);
  if (!pages) opts.onWarning?.(`${s.path}: this machine's copy of the library has no page texts for it; check again when the library server can be reached`);
  return pages;
}

/** A published source's page texts, from the server (its PDF is the publisher's: never read here). */
async function publishedPages(server: LibraryServer, s: SourceRecord, opts: Pick<CheckCitationsOptions, 'onWarning'>): Promise<PageText[] | undefined> {
  const pages = await serverPageTexts(server, s.contentHash);
  if (!pages) opts.onWarning?.(`${s.path}: the library server has no page texts for it; publish the library again to check citations of it`);
  return pages;
}

/**
 * The citations to check: a Markdown draft's, or a LaTeX draft's with those of the files it reads
 * through `\input`/`\include` (each named by its `file`), files not read said through onWarning.
 */
export function draftCitationsOf(draft: string, opts: Pick<CheckCitationsOptions, 'format' | 'draftPath' | 'workspace' | 'onWarning'>): DraftCitation[] {
  if (opts.format !== 'latex') return findCitations(draft);
  if (opts.draftPath === undefined) return findLatexCitations(draft);
  const project = readLatexProject(opts.draftPath, draft, opts.workspace);
  for (const w of project.warnings) opts.onWarning?.(w);
  return project.files.flatMap((f, i) => findLatexCitations(f.text, i === 0 ? {} : { file: f.name }));
}

let thread: { dir: string; thread: CitationThread } | undefined;

/**
 * checkCitations in the citation-check worker beside the bundle (`workerDir`), where the
 * editor runs it: its thread only posts the draft. Where there is no worker (running from
 * sources), in this thread.
 */
export function checkCitationsOffThread(draft: string, opts: CheckCitationsOptions): Promise<CitationCheckResult> {
  if (opts.workerDir && thread?.dir !== opts.workerDir) {
    const t = CitationThread.beside(opts.workerDir);
    void thread?.thread.close();
    thread = t && { dir: opts.workerDir, thread: t };
  }
  return thread && opts.workerDir ? thread.thread.check(draft, opts) : checkCitations(draft, opts);
}

/** One workspace's last check (the editor checks one workspace at a time). */
let lastMemo: { id: string; memo: CheckMemo } | undefined;

function languagesOf(spec: string | undefined): string[] {
  return (spec?.trim() || 'eng+fra').split(/[+,\s]+/).filter(Boolean);
}
