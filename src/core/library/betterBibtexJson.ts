/**
 * Better BibTeX JSON export ({ items, collections }) and CSL-JSON arrays: the JSON side of the
 * bibliography. JSON.parse does the parsing; what is left is mapping Zotero's item shape.
 */
import { isPdf, resolveAttachment } from './attachmentPaths';
import { parseYear, stripRichText, type BibEntry, type ParsedBibliography } from './bibEntry';

interface BbtCreator {
  firstName?: string;
  lastName?: string;
  name?: string;
  creatorType?: string;
}
interface BbtAttachment {
  path?: string;
  localPath?: string;
  contentType?: string;
  mimeType?: string;
}
interface BbtCollection {
  key?: string;
  name?: string;
  parent?: string | false | null;
  items?: Array<number | string>;
  collections?: string[];
}

function creatorName(c: BbtCreator): string {
  if (c.name) return c.name.trim();
  const last = (c.lastName ?? '').trim();
  const first = (c.firstName ?? '').trim();
  return last && first ? `${last}, ${first}` : last || first;
}

function pickCreators(creators: BbtCreator[] | undefined): string[] {
  if (!Array.isArray(creators)) return [];
  const of = (t: string) => creators.filter((c) => c && c.creatorType === t);
  const chosen = of('author').length ? of('author') : of('editor').length ? of('editor') : creators.filter((c) => c && !c.creatorType);
  return chosen.map(creatorName).filter(Boolean);
}

/** Full collection paths ("Thesis / Chapter 2") by collection key, guarding against parent cycles. */
function collectionPaths(cols: Record<string, BbtCollection>): Map<string, string> {
  const parentOf = new Map<string, string>();
  for (const [k, c] of Object.entries(cols)) {
    if (typeof c?.parent === 'string' && c.parent) parentOf.set(k, c.parent);
  }
  // Older exports only list children; infer the parent from them.
  for (const [k, c] of Object.entries(cols)) {
    for (const child of c?.collections ?? []) if (!parentOf.has(child)) parentOf.set(child, k);
  }
  const paths = new Map<string, string>();
  for (const k of Object.keys(cols)) {
    const names: string[] = [];
    const seen = new Set<string>();
    for (let cur: string | undefined = k; cur && cols[cur] && !seen.has(cur); cur = parentOf.get(cur)) {
      seen.add(cur);
      names.unshift(cols[cur].name ?? cur);
    }
    paths.set(k, names.join(' / '));
  }
  return paths;
}

/**
 * Better BibTeX JSON ({ items, collections }); a CSL-JSON array is also read (no files there).
 * Each entry gets, for every collection it is in, the full path and the leaf name.
 */
export function parseBetterBibtexJson(text: string, baseDir: string): ParsedBibliography {
  const warnings: string[] = [];
  let data: any;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { entries: [], warnings: [`Not valid JSON: ${(err as Error).message}.`] };
  }
  if (Array.isArray(data)) return parseCslJson(data, warnings);
  if (!data || !Array.isArray(data.items)) {
    return { entries: [], warnings: ['Not a Better BibTeX JSON export: no "items" list.'] };
  }

  const cols: Record<string, BbtCollection> = data.collections && typeof data.collections === 'object' ? data.collections : {};
  const paths = collectionPaths(cols);
  const colsOfItem = new Map<string, Set<string>>();
  const addCol = (itemRef: unknown, colKey: string) => {
    const ref = String(itemRef);
    if (!colsOfItem.has(ref)) colsOfItem.set(ref, new Set());
    colsOfItem.get(ref)!.add(colKey);
  };
  for (const [k, c] of Object.entries(cols)) for (const id of c?.items ?? []) addCol(id, k);

  const entries: BibEntry[] = [];
  const seen = new Set<string>();
  data.items.forEach((item: any, idx: number) => {
    if (!item || typeof item !== 'object') {
      warnings.push(`Skipped item ${idx + 1}: not an object.`);
      return;
    }
    const type: string | undefined = item.itemType;
    if (type === 'note' || type === 'attachment' || type === 'annotation') return; // not citable
    const citekey: unknown = item.citationKey ?? item.citekey ?? item.citationkey;
    if (typeof citekey !== 'string' || !citekey) {
      warnings.push(`Skipped item ${idx + 1}${item.title ? ` ("${item.title}")` : ''}: no citation key.`);
      return;
    }
    if (seen.has(citekey)) {
      warnings.push(`Duplicate citation key "${citekey}": kept the first item.`);
      return;
    }
    seen.add(citekey);

    const colKeys = new Set<string>([
      ...(colsOfItem.get(String(item.itemID)) ?? []),
      ...(colsOfItem.get(String(item.itemKey)) ?? []),
      ...(Array.isArray(item.collections) ? item.collections.map(String) : []),
    ]);
    const collections = new Set<string>();
    for (const k of colKeys) {
      const full = paths.get(k);
      if (!full) continue; // a key of a collection not in the export
      collections.add(full);
      collections.add(cols[k].name ?? k);
    }

    const files: string[] = [];
    for (const a of Array.isArray(item.attachments) ? (item.attachments as BbtAttachment[]) : []) {
      const p = a?.path ?? a?.localPath;
      if (typeof p === 'string' && p && isPdf(p, a.contentType ?? a.mimeType)) files.push(resolveAttachment(p, baseDir));
    }

    entries.push({
      citekey,
      title: typeof item.title === 'string' ? stripRichText(item.title) || undefined : undefined,
      authors: pickCreators(item.creators),
      year: parseYear(typeof item.date === 'string' ? item.date : item.year != null ? String(item.year) : undefined),
      collections: [...collections],
      files: [...new Set(files)],
      type,
    });
  });
  return { entries, warnings };
}

function parseCslJson(items: any[], warnings: string[]): ParsedBibliography {
  const entries: BibEntry[] = [];
  items.forEach((it, idx) => {
    if (!it || typeof it.id !== 'string') {
      warnings.push(`Skipped CSL item ${idx + 1}: no id.`);
      return;
    }
    const names = (Array.isArray(it.author) ? it.author : Array.isArray(it.editor) ? it.editor : []) as any[];
    const year = it.issued?.['date-parts']?.[0]?.[0];
    entries.push({
      citekey: it.id,
      title: typeof it.title === 'string' ? it.title : undefined,
      authors: names
        .map((a) => (a.literal ? a.literal : [a.family, a.given].filter(Boolean).join(', ')))
        .filter(Boolean),
      year: Number.isFinite(Number(year)) ? Number(year) : parseYear(it.issued?.raw),
      collections: [],
      files: [],
      type: it.type,
    });
  });
  return { entries, warnings };
}
