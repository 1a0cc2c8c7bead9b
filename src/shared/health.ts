/**
 * The index's health: one model, made by the engine (from the manifest, the lock
 * and the configured model), carried by errors, and translated once for each
 * view (status bar, panel, notifications, the CLI's status line).
 */
export type IndexHealth =
  /** Never indexed (`server`: `dir` names a lab's library server where nothing is published). */
  | { state: 'missing'; dir: string; server?: true }
  /** Built by another version of Similar Sources: the next indexing run brings it up to date. */
  | { state: 'outdated'; dir: string; detail: string }
  /** Holds no complete set of vectors for the configured model (another model, or an interrupted run). */
  | { state: 'incomplete'; dir: string; detail: string; model: string }
  /** Unreadable (damaged manifest or shard): rebuilt by the next indexing run. */
  | { state: 'corrupt'; dir: string; detail: string }
  /**
   * The lab's library server (`dir` names it) cannot be reached: down, offline, refused. Analyses
   * cached on this machine from its last generation read are still shown; with `copy`, this
   * machine's copy of that generation is searched meanwhile (the server may have a newer one).
   */
  | { state: 'unreachable'; dir: string; detail: string; server: true; copy?: { generation: number; publishedAt: string } }
  /** Being indexed: by this process (with its progress) or by another that holds the writer lock. */
  | { state: 'indexing'; dir: string; holder?: string; done?: number; total?: number }
  | {
      state: 'ready';
      dir: string;
      sources: number;
      passages: number;
      model: string;
      skipped: number;
      /**
       * Present while the configured model's vectors are being computed in the background
       * (a local model, a server): the index serves already, passages without a vector
       * are matched by their words only.
       */
      semantic?: SemanticProgress;
      /**
       * Present while scanned pages wait for OCR (a run recognising them now, or one that stopped
       * before): their files are searchable by their text layers, if any, meanwhile.
       */
      ocr?: OcrProgress;
    };

/** How much of the library a background-embedded model covers: `embedded` of `total` passages. */
export interface SemanticProgress {
  model: string;
  embedded: number;
  total: number;
}

/** Pages still to recognise by OCR, in how many files. */
export interface OcrProgress {
  pending: number;
  files: number;
  /** While a run is at it: pages read so far of the run's total ("OCR: 12 of 340 pages"). */
  done?: number;
  total?: number;
}

/** "OCR: 328 pages in 5 files still to recognise" */
export function describeOcr(p: OcrProgress): string {
  return `OCR: ${p.pending} page${p.pending === 1 ? '' : 's'} in ${p.files} file${p.files === 1 ? '' : 's'} still to recognise (their text layers are searchable meanwhile; "index" goes on with them)`;
}

/** Whole percent, never 100 before the last passage (a 99.7% index is not complete). */
export function semanticPercent(p: SemanticProgress): number {
  if (p.total <= 0 || p.embedded >= p.total) return 100;
  return Math.min(99, Math.floor((p.embedded / p.total) * 100));
}

/** Whether an indexing run can make the index serve an analysis (every state but ready and indexing). */
export function needsIndexing(h: IndexHealth): boolean {
  return h.state === 'missing' || h.state === 'outdated' || h.state === 'incomplete' || h.state === 'corrupt';
}

/** One plain English line (CLI, logs): "ready: 12 sources, 95 passages, model embedded-hashgram-v2". */
export function describeHealth(h: IndexHealth): string {
  switch (h.state) {
    case 'missing':
      return h.server ? `missing: nothing is published on ${h.dir}` : `missing: not indexed yet (${h.dir})`;
    case 'outdated':
      return `outdated: the index in ${h.dir} was ${h.detail}; the next indexing run brings it up to date`;
    case 'incomplete':
      return `incomplete: ${h.detail}`;
    case 'corrupt':
      return `corrupt: ${h.detail}`;
    case 'unreachable':
      return h.copy
        ? `unreachable: ${h.detail}; searching this machine's copy of generation ${h.copy.generation} (published ${publishedOn(h.copy.publishedAt)}), which may not be the newest`
        : `unreachable: ${h.detail}; the editor still shows the analyses cached on this machine`;
    case 'indexing':
      return `indexing: the library is being indexed${h.holder ? ` (${h.holder})` : ''}`;
    case 'ready':
      return (
        `ready: ${h.sources} sources, ${h.passages} passages, model ${h.model}${h.skipped ? `, ${h.skipped} file${h.skipped > 1 ? 's' : ''} skipped` : ''}` +
        (h.ocr ? `; ${describeOcr(h.ocr)}` : '') +
        (h.semantic
          ? `; semantic index ${semanticPercent(h.semantic)}% (${h.semantic.embedded} of ${h.semantic.total} passages embedded by ${h.semantic.model}; the others are matched by their words)`
          : '')
      );
  }
}

/** A publication's time as messages give it (a library server's generation): its date and minute, UTC. */
export function publishedOn(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}
