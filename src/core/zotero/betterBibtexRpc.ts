/**
 * Better BibTeX's citation keys, asked of its JSON-RPC endpoint while Zotero runs
 * (`/better-bibtex/json-rpc`, method `item.citationkey`): they fill the items whose own
 * `citationKey` field is empty. When Zotero or Better BibTeX does not answer, nothing is
 * filled and nothing is said: the next source of keys (an export, then generated keys) follows.
 */
import { ZOTERO_BASE_URL, zoteroRequest } from './http';
import type { ZoteroItem } from './model';

export interface BetterBibtexOptions {
  /** Default http://127.0.0.1:23119. */
  baseUrl?: string;
  timeoutMs?: number;
  /** Item keys per request (default 500): bounds each request and answer. */
  batchSize?: number;
  signal?: AbortSignal;
}

/**
 * Better BibTeX's key for each item key given, or undefined when Better BibTeX cannot be asked.
 * Keys are "<itemKey>" for the user's library, "<libraryID>:<itemKey>" for others (Zotero's
 * numeric libraryID, as Better BibTeX takes it).
 */
export async function betterBibtexKeys(itemKeys: string[], o: BetterBibtexOptions = {}): Promise<Map<string, string> | undefined> {
  const url = `${(o.baseUrl ?? ZOTERO_BASE_URL).replace(/\/+$/, '')}/better-bibtex/json-rpc`;
  const out = new Map<string, string>();
  const batch = o.batchSize ?? 500;
  for (let i = 0; i < itemKeys.length; i += batch) {
    const keys = itemKeys.slice(i, i + batch);
    let result: unknown;
    try {
      const res = await zoteroRequest(
        url,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'item.citationkey', params: [keys], id: i / batch + 1 }),
        },
        { timeoutMs: o.timeoutMs ?? 10_000, maxBytes: 16 * 1024 * 1024, signal: o.signal },
      );
      if (res.status !== 200) return undefined;
      const body = JSON.parse(res.body) as { result?: unknown; error?: unknown };
      if (body.error !== undefined) return undefined;
      result = body.result;
    } catch {
      if (o.signal?.aborted) throw o.signal.reason;
      return undefined;
    }
    if (!result || typeof result !== 'object') return undefined;
    for (const [k, v] of Object.entries(result as Record<string, unknown>)) {
      if (typeof v === 'string' && v.trim()) out.set(k, v.trim());
    }
  }
  return out;
}

/**
 * Fills, from Better BibTeX, the citekeys of the items without a key of Zotero's own.
 * Items of the user's library are asked by their key; items read from the database carry Zotero's
 * numeric libraryID and are asked as "<libraryID>:<key>"; group items read through the local API
 * (whose libraryID the API does not give) are left to the next source. Returns how many were filled.
 */
export async function fillBetterBibtexKeys(items: ZoteroItem[], o: BetterBibtexOptions = {}): Promise<number> {
  const wanted = new Map<string, ZoteroItem>();
  for (const item of items) {
    // Zotero's own field wins; any other key (one pinned in Extra, one from an earlier read) is
    // asked again, so a key changed in Better BibTeX is seen.
    if ((item.citekey && item.citekeyFrom === 'zotero') || item.itemType === 'attachment') continue;
    const id = rpcKey(item);
    if (id) wanted.set(id, item);
  }
  if (!wanted.size) return 0;
  const keys = await betterBibtexKeys([...wanted.keys()], o);
  if (!keys) return 0;
  let filled = 0;
  for (const [id, item] of wanted) {
    const key = keys.get(id);
    if (!key) continue;
    item.citekey = key;
    item.citekeyFrom = 'better-bibtex';
    filled++;
  }
  return filled;
}

function rpcKey(item: ZoteroItem): string | undefined {
  if (item.libraryId === 'users/0' || item.libraryId === '1') return item.key;
  if (/^\d+$/.test(item.libraryId)) return `${item.libraryId}:${item.key}`;
  return undefined;
}
