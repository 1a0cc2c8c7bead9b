/**
 * The chain of ways to read Zotero: each reader is tried in the order given (the local API,
 * then the database copy), the first that answers is used, and what the others said is kept
 * — the "how to enable the local API" hint once, not on every read. Then the citekeys still
 * empty are filled: Better BibTeX while Zotero runs, then the caller's step (an export, then
 * generated keys).
 */
import { fillBetterBibtexKeys, type BetterBibtexOptions } from './betterBibtexRpc';
import { ZoteroUnavailable, type ZoteroReader, type ZoteroSnapshot } from './model';

export interface ReadZoteroOptions {
  signal?: AbortSignal;
  /** The last snapshot read: a reader of the same kind reads only what changed since. */
  previous?: ZoteroSnapshot;
  /** Better BibTeX's JSON-RPC (default: on, at Zotero's address); false: not asked. */
  betterBibtex?: BetterBibtexOptions | false;
  /** Fills the citekeys still empty after Better BibTeX (the export, then generated keys). */
  fillCitekeys?: (snapshot: ZoteroSnapshot) => void | Promise<void>;
  /**
   * Hints already shown, kept by the host across reads: a hint in it is not returned again,
   * so the user is told once how to enable the local API, not on every re-read.
   */
  shownHints?: Set<string>;
}

export interface ZoteroRead {
  snapshot: ZoteroSnapshot;
  /** The reader that answered. */
  via: ZoteroReader['name'];
  /** "Read Zotero through its local API (3 libraries, 1200 items)." */
  message: string;
  /** The readers tried first and why they could not be used. */
  skipped: { reader: ZoteroReader['name']; reason: string }[];
  /** What the user can do for a better path (not yet in shownHints); show it once. */
  hints: string[];
}

export async function readZotero(readers: ZoteroReader[], opts: ReadZoteroOptions = {}): Promise<ZoteroRead> {
  const skipped: ZoteroRead['skipped'] = [];
  const hints: string[] = [];
  const noteHint = (h: string | undefined) => {
    if (!h || hints.includes(h) || opts.shownHints?.has(h)) return;
    hints.push(h);
    opts.shownHints?.add(h);
  };
  for (const reader of readers) {
    let snapshot: ZoteroSnapshot;
    try {
      const previous = opts.previous?.via === reader.name ? opts.previous : undefined;
      snapshot = await reader.read({ signal: opts.signal, previous });
    } catch (err) {
      if (!(err instanceof ZoteroUnavailable) || opts.signal?.aborted) throw err;
      skipped.push({ reader: reader.name, reason: err.message });
      noteHint(err.hint);
      continue;
    }
    if (opts.betterBibtex !== false) await fillBetterBibtexKeys(snapshot.items, { ...(opts.betterBibtex || {}), signal: opts.signal });
    await opts.fillCitekeys?.(snapshot);
    const items = snapshot.items.length;
    const path = reader.name === 'local-api' ? 'its local API' : `a copy of its database${snapshot.dataDir ? ` (${snapshot.dataDir})` : ''}`;
    const libs = snapshot.libraries.length;
    return {
      snapshot,
      via: reader.name,
      message: `Read Zotero through ${path}: ${items} item${items === 1 ? '' : 's'} in ${libs} librar${libs === 1 ? 'y' : 'ies'}.`,
      skipped,
      hints,
    };
  }
  const why = skipped.map((s) => `${s.reader}: ${s.reason}`).join(' ');
  throw new ZoteroUnavailable(`Zotero could not be read. ${why || 'No way to read it was given.'}`, hints.join(' ') || undefined);
}
