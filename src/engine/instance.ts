/**
 * One engine for one workspace, made by a host from its settings and services
 * (the pattern of VS Code's markdown language service): it owns what the CLI and
 * the extension used to wire each on its own — the embedding provider (one that
 * holds resources, a local model in its worker, is made once and kept while the
 * configuration stays), the loaded index (reused while its fingerprint stays),
 * the two-step indexing (passages and terms committed first; a neural model's
 * vectors after, in the background or waited for), the background embedding's
 * lock waits and retries (backgroundEmbedding.ts), one indexing run at a time,
 * whether the index is ready before something is scored (readiness.ts), and how
 * often progress is reported. Hosts keep only presentation: the CLI its stderr
 * lines and exit codes, the extension its notifications and status bar. The
 * citation check and agent tools use it too. Its options and reports are in
 * engineTypes.ts.
 */
import type { AnalysisResult } from '../core/analysis/analyze';
import type { AnalysisOptionsInput } from '../core/analysis/options';
import { corruptError } from '../core/index/health';
import { indexDir, type IndexCorruptError } from '../core/index/store/manifest';
import { isLatexPath, type DraftFormat } from '../shared/draftLanguages';
import type { IndexHealth, SemanticProgress } from '../shared/health';
import type { Settings } from '../shared/settings';
import { analyze, cachedAnalysis, clearAnalysisCache, type AnalysisRequest, type CachedAnalysisRequest } from './analysis';
import { BackgroundEmbedding } from './backgroundEmbedding';
import { bundleDir } from './bundle';
import { checkCitations, checkCitationsOffThread, type CitationCheckResult } from './citations';
import type { EngineOptions, EngineProgress, IndexRunOptions, IndexRunReport, IndexStatus, Readiness, ReadyOptions, VectorsReport } from './engineTypes';
import { indexLibrary, type LibraryIndexReport } from './indexLibrary';
import { draftBibliographies, resolveLibrary, type LibrarySpec } from './library';
import { createProvider, embedsInBackground, providerConfigOf, type EmbeddingProvider } from './provider';
import * as server from './libraryServer';
import { ensureReady } from './readiness';
import { closeIndex, indexCitekeys, indexCollections, isGenerationGone, openIndex, rankCitekeys, refreshHighlights, search, zoteroCitekeys } from './search';
import type { CitekeyEntry, CitekeyHit, PassageHit, SearchIndex, SearchOptions } from './search';
import { damagedFiles, indexHealth, indexState, interruptedRun, providerHealth } from './status';
import { warmUp } from './warmUp';

export function createEngine(options: EngineOptions): WorkspaceEngine {
  return new WorkspaceEngine(options);
}

export class WorkspaceEngine {
  readonly workspace: string;
  /** The folder of its index (`.similar-sources/`): the one its health and lock name. */
  readonly indexDir: string;
  /** Why the configured provider could not be used and the embedded model is (with `fallbackToEmbedded`). */
  providerWarning?: string;
  private held?: { key: string; provider: EmbeddingProvider };
  private loaded?: { key: string; index: SearchIndex };
  /** The load under way: a preload and the first analysis share it (an index held twice would take twice the memory). */
  private opening?: { key: string; index: Promise<SearchIndex> };
  /** preload's warm-up under way, and whether one has run to its end. */
  private warming?: AbortController;
  private warmed = false;
  /** Searches and analyses under way (withIndex): a warm-up never runs beside them. */
  private requests = 0;
  /**
   * The indexing run under way: the one guard of "one run at a time" (hosts ask `isIndexing` and
   * `whenIndexed`). `committed`: it is at its OCR pass, the born-digital files committed and served.
   */
  private run?: { done: Promise<IndexRunReport>; committed: boolean };
  private readonly embedding: BackgroundEmbedding;

  constructor(private readonly o: EngineOptions) {
    this.workspace = o.workspace;
    this.indexDir = indexDir(o.workspace);
    this.embedding = new BackgroundEmbedding({
      workspace: o.workspace,
      log: (line, level) => this.log(line, level),
      warn: (w) => this.warn(w),
      embedProgress: () => this.throttle('embed'),
      onEmbedding: (e) => this.o.host?.onEmbedding?.(e),
      isIndexing: () => this.isIndexing(),
    });
  }

  settings(): Settings {
    return typeof this.o.settings === 'function' ? this.o.settings() : this.o.settings;
  }

  /** Where the library is, from the settings (resolveLibrary: the CLI and the extension index the same files). */
  library(): LibrarySpec {
    return resolveLibrary(this.workspace, this.settings());
  }

  /** The embedding provider the configuration names (checked up front: a server down is reported here, or replaced). */
  async provider(): Promise<EmbeddingProvider> {
    if (this.o.provider && 'embed' in this.o.provider) return this.o.provider;
    const config = this.o.provider ?? providerConfigOf(this.settings(), (await this.o.host?.providerContext?.()) ?? {});
    const key = JSON.stringify(config);
    if (this.held?.key === key) {
      this.providerWarning = undefined;
      return this.held.provider;
    }
    const { provider, warning } = await createProvider(config, { fallbackToEmbedded: this.o.fallbackToEmbedded, onWarning: (w) => this.warn(w) });
    this.providerWarning = warning;
    // Another model now: the background embedding of the previous one stops.
    if (this.embedding.key !== undefined && this.embedding.key !== provider.key) void this.stopEmbedding();
    if (this.o.keepProviders !== 'holding-resources' || typeof (provider as { close?: unknown }).close === 'function') this.hold({ key, provider });
    return provider;
  }

  private hold(next: { key: string; provider: EmbeddingProvider } | undefined): void {
    const old = this.held?.provider as { close?(): Promise<void> } | undefined;
    // The background embedding of the model being replaced stops first (what it did is committed).
    if (old) void this.stopEmbedding();
    this.held = next;
    old?.close?.().catch((e: Error) => this.log(`closing the previous embedding model: ${e.message}`, 'warn'));
  }

  /** The index's health: for `provider` (one that embeds in the background serves before its vectors are complete), or whether it is readable at all. */
  async health(provider?: Pick<EmbeddingProvider, 'id' | 'key'>): Promise<IndexHealth> {
    const at = await this.libraryServer();
    if (at) return (await server.serverState(at, provider ?? (await this.provider()), this.workspace)).health;
    return provider ? providerHealth(this.workspace, provider) : indexHealth(this.workspace);
  }

  /** The lab's library server the settings name: the library is then read from it, never indexed here. */
  server(): server.LibraryServer | undefined {
    return server.serverOf(this.settings());
  }

  /** That server with the password the host keeps for it (its secret storage), to connect with. */
  async libraryServer(): Promise<server.LibraryServer | undefined> {
    const at = this.server();
    const password = at && (await this.o.host?.serverPassword?.());
    return at && password ? { ...at, password } : at;
  }

  /** Publishes this workspace's index to the server the settings name, as its next generation (libraryServer.ts). */
  publish(opts: server.PublishRequest): Promise<server.PublishReport> {
    return server.publishWorkspace(this, opts);
  }

  /** What the index is, from its manifest and lock: its health (for `provider`, or whether it is readable), damaged files, a run that ended without finishing. */
  async status(provider?: Pick<EmbeddingProvider, 'id' | 'key'>): Promise<IndexStatus> {
    const [health, damaged, interrupted] = await Promise.all([this.health(provider), damagedFiles(this.workspace), interruptedRun(this.workspace)]);
    return { health, damaged, ...(interrupted ? { interrupted } : {}) };
  }

  /** The passages still without the provider's vector, when its index is ready and some lack one. */
  async missingVectors(provider: EmbeddingProvider): Promise<SemanticProgress | undefined> {
    if (!embedsInBackground(provider)) return undefined;
    const h = await providerHealth(this.workspace, provider);
    return h.state === 'ready' ? h.semantic : undefined;
  }

  /** Whether an indexing run is under way (its OCR pass included). */
  isIndexing(): boolean {
    return !!this.run;
  }

  /**
   * The indexing run under way until its library is committed (an analysis waits for it); undefined
   * at its OCR pass, when the born-digital files are committed and served already.
   */
  whenIndexed(): Promise<IndexRunReport> | undefined {
    return this.run && !this.run.committed ? this.run.done : undefined;
  }

  /**
   * Indexes the library (incrementally), one run at a time: a second call gets the run under way.
   * The passages and their terms are committed first; a neural model's vectors come after (`vectors`).
   */
  index(opts: IndexRunOptions = {}): Promise<IndexRunReport> {
    if (this.run) return this.run.done;
    let then: (() => void) | undefined;
    const run = { committed: false } as { done: Promise<IndexRunReport>; committed: boolean };
    run.done = this.runIndex(opts, run, (next) => (then = next)).finally(() => {
      if (this.run === run) this.run = undefined;
      then?.();
    });
    this.run = run;
    return run.done;
  }

  /**
   * Makes the index able to serve a provider before something is scored on it: waits for this
   * engine's run under way, indexes when asked or needed, computes or starts the missing vectors
   * of a neural model, or says why it cannot (readiness.ts).
   */
  ready(opts: ReadyOptions = {}): Promise<Readiness> {
    return this.server() ? server.serverReadiness(this, opts.provider) : ensureReady(this, opts);
  }

  private async runIndex(opts: IndexRunOptions, run: { committed: boolean }, afterRun: (then: () => void) => void): Promise<IndexRunReport> {
    let report: LibraryIndexReport;
    let provider: EmbeddingProvider;
    try {
      provider = await this.provider();
      // One writer at a time: the background embedding yields (it resumes after the run).
      await this.stopEmbedding();
      const library = this.library();
      this.log(`indexing ${library.folders.join(', ')} with ${provider.id} ${provider.model}`, 'info');
      const progress = this.throttle('index');
      report = await indexLibrary({
        library,
        provider,
        // A neural model's vectors come after: a cancel (or a server gone) keeps a searchable index.
        deferEmbedding: embedsInBackground(provider),
        rebuild: opts.rebuild,
        jobs: opts.jobs,
        workerDir: bundleDir,
        signal: opts.signal,
        onWarning: (w) => this.warn(w),
        onProgress: (p) => {
          // Files read and pages recognised come often: those are throttled, the first file and the last page always told.
          if (p.phase === 'read') progress({ kind: 'index', ...p }, p.done === 0);
          else if (p.phase === 'ocr') {
            // Scanned pages come after the other files, which are committed: an analysis need not wait.
            run.committed = true;
            progress({ kind: 'index', ...p }, p.done >= p.total);
          } else this.o.host?.onProgress?.({ kind: 'index', ...p });
        },
      });
    } catch (err) {
      // A failed run commits nothing: the health is read again from the index.
      this.log(`indexing failed: ${(err as Error).message}`, 'error');
      throw err;
    }
    for (const sk of report.skipped) this.log(`skipped ${sk.path}: ${sk.reason}`, 'warn');
    this.log(
      `index: ${report.files.length} PDFs, ${report.sources} sources, ${report.passages} passages, ${report.added} added, ${report.updated} updated, ${report.removed} removed, ${report.skipped.length} skipped, ${report.ms} ms`,
      'info',
    );
    this.loaded = undefined;
    if (!embedsInBackground(provider) || report.cancelled) return report;
    switch (opts.vectors ?? 'later') {
      case 'background':
        afterRun(() => this.embedInBackground(provider));
        return report;
      case 'wait': {
        const v = await this.completeVectors(provider, opts.signal);
        return {
          ...report,
          embedded: report.embedded + v.embedded,
          ms: report.ms + v.ms,
          cancelled: v.cancelled,
          semantic: { embedded: v.covered, total: v.total },
        };
      }
      case 'later': {
        const h = await providerHealth(this.workspace, provider);
        return h.state === 'ready' && h.semantic ? { ...report, semantic: { embedded: h.semantic.embedded, total: h.semantic.total } } : report;
      }
    }
  }

  /**
   * Computes every vector the index lacks for `provider` now (a command that scores with the
   * model's figures); a cancel keeps what was committed. A failure says that the lexical index stands.
   */
  completeVectors(provider: EmbeddingProvider, signal?: AbortSignal): Promise<VectorsReport> {
    return this.embedding.complete(provider, signal);
  }

  /**
   * Computes, in the background, the vectors the model lacks (after indexing, or an index left
   * partial by a reload): the index serves lexical results meanwhile. A no-op for the embedded
   * model, while indexing, or when it runs already for this model (backgroundEmbedding.ts).
   */
  embedInBackground(provider: EmbeddingProvider): void {
    this.embedding.start(provider);
  }

  /** An index left partial (the window was closed while embedding) goes on embedding for the configured model, loaded only when the manifest says so. */
  async resumeEmbedding(): Promise<void> {
    if (this.run || this.embedding.key !== undefined) return;
    const h = await indexHealth(this.workspace);
    if (h.state !== 'ready' || !h.semantic) return;
    const provider = await this.provider();
    if (provider.key === h.semantic.model) this.embedInBackground(provider);
  }

  /** The background embedding: under way, and why the last one stopped. */
  embeddingState(): { running: boolean; error?: string } {
    return this.embedding.state();
  }

  /** Stops the background embedding (what it did is committed); resolves when it has stopped. */
  stopEmbedding(): Promise<void> {
    return this.embedding.stop();
  }

  /** The index loaded for searching (for `provider`, default the configured one), reused while the index and provider stay the same. */
  async open(provider?: EmbeddingProvider): Promise<SearchIndex> {
    // Whoever asks for the index goes first: a preload's warm-up would only share the thread with it.
    this.warming?.abort();
    const p = provider ?? (await this.provider());
    const at = await this.libraryServer();
    // A server's library is the same while its generation is.
    const state = at ? await server.serverStamp(at) : await indexState(this.workspace);
    const key = `${p.key}:${state?.fingerprint ?? 'none'}:${state?.updatedAt ?? ''}`;
    if (this.loaded?.key === key) {
      // New Zotero highlights need no reload of the passages.
      await refreshHighlights(this.loaded.index);
      return this.loaded.index;
    }
    if (this.opening?.key !== key) this.opening = { key, index: this.load(key, p, at) };
    return this.opening.index;
  }

  private async load(key: string, p: EmbeddingProvider, at: server.LibraryServer | undefined): Promise<SearchIndex> {
    try {
      let index: SearchIndex;
      if (at) {
        const read = await server.openServerIndex(this.workspace, at, p);
        index = read.index;
        this.log(`library server: ${server.whereRead(read)}`, read.offline ? 'warn' : 'info');
        if (read.keepCopy) this.keepCopy(read.keepCopy);
      } else index = await openIndex(this.workspace, p);
      // The index it replaces keeps no shard file open (a removed generation's disk space is freed).
      if (this.loaded) closeIndex(this.loaded.index);
      this.loaded = { key, index };
      return index;
    } finally {
      if (this.opening?.key === key) this.opening = undefined;
    }
  }

  /** This machine's copy of the server's generation, being written (dispose waits for it). */
  private copying?: Promise<void>;

  /** Writes the copy of a generation just read from the server, after the one being written; a failure costs the next start a read from the server. */
  private keepCopy(write: () => Promise<string>): void {
    const before = this.copying ?? Promise.resolve();
    this.copying = before.then(write).then(
      (dir) => this.log(`library server: generation copied to ${dir} for the next start`, 'info'),
      (err: Error) => this.log(`library server: no copy of the generation kept on this machine (${err.message})`, 'warn'),
    );
  }

  /**
   * Loads the index for the configured model before anything asks for it (a window that has
   * settled), so the first analysis does not wait for the load (seconds at a million passages).
   * Then, once per engine, warms its search code (warmUp.ts) so that analysis runs at the speed
   * of later ones: only with a model that runs on this machine (a server's is not sent the
   * library's text unasked), never beside a search or analysis, which stops one under way; a
   * warm-up that fails costs nothing but itself. Nothing when there is no index ready for that
   * model, or while the library is being indexed or its vectors computed. What it took (ms; no
   * `warmMs` when it did not warm), undefined when it loaded nothing.
   */
  async preload(opts: { segmentInWorker?: boolean } = {}): Promise<{ loadMs: number; warmMs?: number } | undefined> {
    // Indexing, or computing vectors in the background, makes a new index at each commit: loaded when asked.
    const busy = () => !!this.run || this.embedding.key !== undefined;
    // A library server's health is its current generation's (this.health).
    if (busy() || (this.server() ? false : (await indexHealth(this.workspace)).state !== 'ready')) return undefined;
    const p = await this.provider();
    if (busy() || (await this.health(p)).state !== 'ready') return undefined;
    const t = performance.now();
    const index = await this.open(p);
    const loadMs = Math.round(performance.now() - t);
    // Once: V8 keeps the optimised code for the indexes loaded after.
    if (this.warmed || this.requests > 0 || (p.id !== 'embedded' && p.id !== 'local')) return { loadMs };
    const ac = new AbortController();
    this.warming = ac;
    const w = performance.now();
    try {
      await warmUp(index, this.workspace, { segmentInWorker: opts.segmentInWorker, signal: ac.signal });
    } catch (err) {
      // An optimisation only (e.g. another process re-indexed meanwhile): tried again at the next preload.
      if (!ac.signal.aborted) this.log(`warming the search code stopped: ${(err as Error).message}`, 'info');
      return { loadMs };
    } finally {
      if (this.warming === ac) this.warming = undefined;
    }
    this.warmed = true;
    return { loadMs, warmMs: Math.round(performance.now() - w) };
  }

  /** Runs `f` on the loaded index (onIndex) as a request: a preload's warm-up stops, and starts none meanwhile. */
  private async withIndex<T>(provider: EmbeddingProvider | undefined, f: (index: () => Promise<SearchIndex>) => Promise<T>): Promise<T> {
    this.requests++;
    this.warming?.abort();
    try {
      return await this.onIndex(provider, f);
    } finally {
      this.requests--;
    }
  }

  /**
   * Runs `f` on the loaded index, and once more on the index opened again when a commit removed
   * the generation it was reading passages from (another process indexing meanwhile): passage
   * text is read on demand, so a loaded index may outlive its files.
   */
  private async onIndex<T>(provider: EmbeddingProvider | undefined, f: (index: () => Promise<SearchIndex>) => Promise<T>): Promise<T> {
    try {
      return await f(() => this.open(provider));
    } catch (err) {
      if (!isGenerationGone(err)) throw err;
      if (this.loaded) closeIndex(this.loaded.index);
      this.loaded = undefined;
      try {
        return await f(() => this.open(provider));
      } catch (again) {
        if (isGenerationGone(again)) throw corruptError(indexDir(this.workspace), again as IndexCorruptError);
        throw again;
      }
    }
  }

  /** Collections named in the loaded index (for a filter's choices); none before one is loaded. */
  collections(): string[] {
    return this.loaded ? indexCollections(this.loaded.index) : [];
  }

  /**
   * Citekey completion's keys from the index: the `k` most relevant to the paragraph being
   * written (none for an empty one), and every key of the index, alphabetical.
   */
  citekeys(
    paragraph: string,
    opts: { k: number; signal?: AbortSignal; provider?: EmbeddingProvider },
  ): Promise<{ ranked: CitekeyHit[]; indexed: CitekeyEntry[] }> {
    return this.withIndex(opts.provider, async (open) => {
      const index = await open();
      const ranked = paragraph ? await rankCitekeys(index, paragraph, opts.k, { signal: opts.signal }) : [];
      return { ranked, indexed: indexCitekeys(index) };
    });
  }

  /** Zotero's entries as of the last indexing run (items without a PDF too), alphabetical; none without Zotero. */
  zoteroCitekeys(): Promise<CitekeyEntry[]> {
    return zoteroCitekeys(this.workspace);
  }

  /** The top passages for a text, best first, and how many passages had their vector (`semantic`). */
  async search(text: string, opts: SearchOptions & { provider?: EmbeddingProvider }): Promise<{ hits: PassageHit[]; semantic?: SemanticProgress }> {
    return this.withIndex(opts.provider, async (open) => {
      const index = await open();
      return { hits: await search(index, text, opts), semantic: index.semantic };
    });
  }

  /** For each segment of a draft, the sources worth citing there (the index loaded when something must be searched). */
  analyze(
    document: string,
    options: AnalysisOptionsInput,
    r: Omit<AnalysisRequest, 'workspace' | 'index'> & { provider?: EmbeddingProvider },
  ): Promise<AnalysisResult> {
    const { provider, ...request } = r;
    return this.withIndex(provider, async (index) =>
      analyze(document, options, { ...request, reranker: await this.rerankerOf(request.reranker), workspace: this.workspace, index }),
    );
  }

  /** A local reranker named by repository is looked for where the host keeps downloaded models (the extension's storage). */
  private async rerankerOf(config: AnalysisRequest['reranker']): Promise<AnalysisRequest['reranker']> {
    if (!config?.local || config.cacheDir) return config;
    const cacheDir = (await this.o.host?.providerContext?.())?.modelCacheDir;
    return cacheDir ? { ...config, cacheDir } : config;
  }

  /** The draft's results when the cache holds all of them for the index and `provider`, without loading the index. */
  async cachedAnalysis(
    document: string,
    options: AnalysisOptionsInput,
    r: Omit<CachedAnalysisRequest, 'workspace' | 'server'>,
    provider: EmbeddingProvider,
  ): Promise<AnalysisResult | undefined> {
    return cachedAnalysis(document, options, { ...r, workspace: this.workspace, server: await this.libraryServer() }, provider);
  }

  /**
   * The draft's citations against the library (keys, pages, quotations). With `draftPath`, a
   * Quarto / R Markdown draft's own `bibliography:` serves when the settings name none, and a
   * LaTeX draft is read as LaTeX, with its `\input` files and `\addbibresource` `.bib` files: by
   * its extension (shared/draftLanguages.ts), or as `format` says (the CLI's `--format`);
   * `offThread`: matched in the citation-check worker beside the bundle (an editor's thread stays free).
   */
  async checkCitations(
    draft: string,
    opts: { signal?: AbortSignal; draftPath?: string; format?: DraftFormat; offThread?: boolean } = {},
  ): Promise<CitationCheckResult> {
    const library = this.library();
    const file = opts.draftPath;
    const latex = file !== undefined && (opts.format ?? (isLatexPath(file) ? 'latex' : 'markdown')) === 'latex';
    // A file read as LaTeX against its extension names its bibliographies as a .tex file would.
    const named = file === undefined ? undefined : latex && !isLatexPath(file) ? `${file}.tex` : file;
    return (opts.offThread ? checkCitationsOffThread : checkCitations)(draft, {
      workspace: this.workspace,
      bibliography: named === undefined ? library.bibliography : draftBibliographies(library, draft, named),
      // What a draft names (not the settings) must lie in the workspace.
      bibliographyFromDraft: file !== undefined && !library.bibliography,
      // A LaTeX draft is read as LaTeX, with the files it `\input`s.
      ...(latex ? { format: 'latex' as const, draftPath: file } : {}),
      ocrLanguages: library.ocr.languages,
      // A PDF whose page texts are missing is read again in the PDF workers, never on the calling thread.
      workerDir: bundleDir,
      server: await this.libraryServer(),
      signal: opts.signal,
      onWarning: (w) => this.warn(w),
    });
  }

  /**
   * Where this machine has a source's PDF, for "Open PDF" (`file`: the path a card gives). The
   * workspace index's paths are this machine's; a library server's are its publisher's, and a copy
   * is looked for here (libraryServer.ts pdfOnMemberMachine), with `problem` saying what to do when
   * there is none. A file that is no source of the library is given back as asked.
   */
  async pdfOnThisMachine(file: string): Promise<server.PdfHere> {
    const at = await this.libraryServer();
    if (!at) return { path: file };
    // Not the library loaded for a click: the loaded one, else the sources the server lists.
    return (await server.pdfOnMemberMachine(this.loaded?.index, at, file, this.library())) ?? { path: file };
  }

  /** Removes the workspace's cached analyses; says how many documents had one. */
  clearAnalysisCache(): Promise<number> {
    return clearAnalysisCache(this.workspace);
  }

  /** Stops the background embedding and closes the provider held. */
  async dispose(): Promise<void> {
    this.warming?.abort();
    await this.stopEmbedding();
    await this.copying;
    this.hold(undefined);
  }

  private warn(w: string): void {
    this.o.host?.onWarning?.(w);
  }

  private log(line: string, level: 'info' | 'warn' | 'error'): void {
    this.o.host?.log?.(line, level);
  }

  /** Reports progress no more often than the host asks; `always`: the first or last of a phase. */
  private throttle(kind: 'index' | 'embed'): (p: EngineProgress, always: boolean) => void {
    const every = this.o.progressEveryMs?.[kind] ?? 0;
    let last = 0;
    return (p, always) => {
      const now = Date.now();
      if (!always && now - last < every) return;
      last = now;
      this.o.host?.onProgress?.(p);
    };
  }
}
