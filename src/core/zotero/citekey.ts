/**
 * Citation keys of Zotero items, in this order: Zotero's own `citationKey` field (Zotero 8+);
 * else a key given from outside (Better BibTeX's JSON-RPC, src/core/zotero/betterBibtexRpc.ts);
 * else the configured Better BibTeX export's key for the item (matched by attachment path, then
 * by title and year); else one made like Better BibTeX's default formula,
 * `auth.lower + year + shorttitle`, with a, b, … appended where two items would share it.
 * Generated keys are not pinned: they change when the metadata they are made of does.
 */
import type { BibEntry } from '../library/bibEntry';
import { findEntryForFile, matchFile } from '../library/bibliography';
import type { ZoteroItem } from './model';

export interface CitekeySources {
  /** Keys from Better BibTeX (JSON-RPC), by item key or "<libraryId>:<item key>". */
  betterBibtex?: Map<string, string>;
  /** The entries of the configured .bib/.json export. */
  exportEntries?: BibEntry[];
}

/** Words Better BibTeX's shorttitle skips (the common English function words). */
const SKIP = new Set(
  'a about above across after against along among an and around as at before behind below beneath beside between beyond but by despite down during except for from in inside into like near nor of off on onto or out outside over past since so than the through throughout till to toward towards under underneath until up upon via with within without yet'.split(
    ' ',
  ),
);

/** Sets `citekey` and `citekeyFrom` of every item that has no Zotero key, pinned keys first so generated ones never take theirs. */
export function assignCitekeys(items: ZoteroItem[], sources: CitekeySources = {}): void {
  const taken = new Set<string>();
  const exportIndex = sources.exportEntries?.length ? matchFile(sources.exportEntries) : undefined;
  const byTitleYear = new Map<string, BibEntry | null>();
  for (const e of sources.exportEntries ?? []) {
    const k = titleYearKey(e.title, e.year);
    if (k) byTitleYear.set(k, byTitleYear.has(k) ? null : e);
  }
  const todo: ZoteroItem[] = [];
  for (const item of items) {
    // Keys the item already carries (Zotero's field, Better BibTeX's "Citation Key:" in Extra) stay.
    if (item.citekey && item.citekeyFrom !== 'generated') {
      taken.add(item.citekey);
      continue;
    }
    const bbt = sources.betterBibtex?.get(`${item.libraryId}:${item.key}`) ?? sources.betterBibtex?.get(item.key);
    if (bbt) {
      item.citekey = bbt;
      item.citekeyFrom = 'better-bibtex';
      taken.add(bbt);
      continue;
    }
    const fromExport = exportEntry(item, exportIndex, byTitleYear);
    // An export entry matched by two items (same title and year) names the first only.
    if (fromExport && !taken.has(fromExport.citekey)) {
      item.citekey = fromExport.citekey;
      item.citekeyFrom = 'export';
      taken.add(fromExport.citekey);
      continue;
    }
    todo.push(item);
  }
  for (const item of todo) {
    const base = generatedKeyBase(item);
    let key = base;
    for (let n = 0; taken.has(key); n++) key = base + suffix(n);
    taken.add(key);
    item.citekey = key;
    item.citekeyFrom = 'generated';
  }
}

function exportEntry(item: ZoteroItem, index: Map<string, BibEntry> | undefined, byTitleYear: Map<string, BibEntry | null>): BibEntry | undefined {
  if (index) {
    for (const a of item.attachments) {
      const e = a.path ? findEntryForFile(index, a.path) : undefined;
      if (e) return e;
    }
  }
  const k = titleYearKey(item.title, item.year);
  return (k && byTitleYear.get(k)) || undefined;
}

function titleYearKey(title: string | undefined, year: number | undefined): string | undefined {
  const t =
    title &&
    fold(title)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  return t ? `${t}|${year ?? ''}` : undefined;
}

/** `auth.lower + year + shorttitle`: "smith2020DeepLearningMachine"; the item key when there is nothing to make one of. */
export function generatedKeyBase(item: Pick<ZoteroItem, 'creators' | 'year' | 'title' | 'key'>): string {
  const first = item.creators.find((c) => c.creatorType === 'author') ?? item.creators[0];
  const auth = fold(first?.lastName ?? first?.name?.split(/\s+/)[0] ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  const words = fold(item.title ?? '')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w && !SKIP.has(w.toLowerCase()))
    .slice(0, 3)
    .map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase());
  const key = `${auth}${item.year ?? ''}${words.join('')}`;
  return key || `zotero${item.key}`;
}

/** a … z, then aa, ab, …: Better BibTeX's disambiguation. */
function suffix(n: number): string {
  let s = '';
  for (let i = n; i >= 0; i = Math.floor(i / 26) - 1) s = String.fromCharCode(97 + (i % 26)) + s;
  return s;
}

/** Latin letters without their accents (é → e, ß → ss, ø → o), as keys are ASCII. */
function fold(s: string): string {
  return s
    .replace(/ß/g, 'ss')
    .replace(/[øØ]/g, (c) => (c === 'ø' ? 'o' : 'O'))
    .replace(/[æÆ]/g, (c) => (c === 'æ' ? 'ae' : 'AE'))
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');
}
