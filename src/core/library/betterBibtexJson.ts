/**
 * Better BibTeX JSON export ({ items, collections }) and CSL-JSON arrays: the JSON side of the
 * bibliography. Read item by item (`jsonScan.ts`): a damaged item costs that item, not the file,
 * and nesting is bounded before anything is parsed. Nothing of the JSON's shape is trusted: each
 * field the product reads is checked by type; a field of the wrong type is left out of its item
 * (the item is kept), and an item without a usable citation key is skipped, each with a warning
 * that names the item and the field.
 */
import { isPdf, resolveAttachment } from './attachmentPaths';
import { parseYear, stripRichText, type BibEntry, type ParsedBibliography } from './bibEntry';
import { faultAt, Lines, MAX_JSON_DEPTH, parseChecked, readList, scanValue, skipWhitespace, type ListElement } from './jsonScan';

/** Warnings kept, at most (as for .bib files). */
const MAX_WARNINGS = 1000;
/** Field problems named in one item's warning before "and N more". */
const MAX_PROBLEMS_NAMED = 3;
/** Collections in one path, at most: a chain of nested collections longer than this is cut. */
const MAX_COLLECTION_DEPTH = 32;
/** Characters of an untrusted key or title quoted in a warning. */
const MAX_QUOTED = 80;

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
/** An own field: a key such as "constructor" or "__proto__" never reaches the prototype. */
const own = (o: JsonObject, k: string): Json => (Object.hasOwn(o, k) ? o[k] : undefined);
const quote = (s: string) => JSON.stringify(s.length > MAX_QUOTED ? `${s.slice(0, MAX_QUOTED)}…` : s);

/** What a value is, in words, for a warning. */
function kind(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string':
      return 'text';
    case 'number':
      return 'a number';
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return 'an object';
  }
}

/** Collects what was wrong with one item's fields. */
class Problems {
  readonly list: string[] = [];
  add(path: string, v: Json, wanted: string): void {
    this.list.push(`${path} is ${kind(v)}, not ${wanted}`);
  }
  /** Text, or undefined when absent or null; another type is a problem. */
  text(o: JsonObject, field: string, path = field): string | undefined {
    const v = own(o, field);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    this.add(path, v, 'text');
    return undefined;
  }
  /** A list, or [] when absent or null; another type is a problem. */
  array(o: JsonObject, field: string, path = field): Json[] {
    const v = own(o, field);
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    this.add(path, v, 'a list');
    return [];
  }
  describe(): string {
    const named = this.list.slice(0, MAX_PROBLEMS_NAMED).join('; ');
    const more = this.list.length > MAX_PROBLEMS_NAMED ? ` and ${this.list.length - MAX_PROBLEMS_NAMED} more` : '';
    return named + more;
  }
}

interface Creator {
  firstName?: string;
  lastName?: string;
  name?: string;
  creatorType?: string;
}

function creatorName(c: Creator): string {
  if (c.name?.trim()) return c.name.trim();
  const last = (c.lastName ?? '').trim();
  const first = (c.firstName ?? '').trim();
  return last && first ? `${last}, ${first}` : last || first;
}

function readCreators(item: JsonObject, p: Problems): string[] {
  const creators: Creator[] = [];
  p.array(item, 'creators').forEach((c, i) => {
    if (!isObject(c)) return p.add(`creators[${i}]`, c, 'a creator');
    creators.push({
      name: p.text(c, 'name', `creators[${i}].name`),
      firstName: p.text(c, 'firstName', `creators[${i}].firstName`),
      lastName: p.text(c, 'lastName', `creators[${i}].lastName`),
      creatorType: p.text(c, 'creatorType', `creators[${i}].creatorType`),
    });
  });
  const of = (t: string) => creators.filter((c) => c.creatorType === t);
  const chosen = of('author').length ? of('author') : of('editor').length ? of('editor') : creators.filter((c) => !c.creatorType);
  return chosen.map(creatorName).filter(Boolean);
}

interface Collection {
  name?: string;
  parent?: string;
  items: string[];
  children: string[];
}

/** A reference to an item or a collection (an itemID, an itemKey): text or a number. */
function ref(v: Json): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
}

function readCollections(value: Json, warnings: string[]): Map<string, Collection> {
  const cols = new Map<string, Collection>();
  if (value === undefined || value === null) return cols;
  if (!isObject(value)) {
    warnings.push(`"collections" is ${kind(value)}, not a table of collections: the items were read without their collections.`);
    return cols;
  }
  for (const [key, c] of Object.entries(value)) {
    if (!isObject(c)) {
      warnings.push(`Collection ${quote(key)} is ${kind(c)}, not a collection: left out.`);
      continue;
    }
    const p = new Problems();
    const parent = own(c, 'parent');
    if (parent !== undefined && parent !== null && parent !== false && typeof parent !== 'string') p.add('parent', parent, 'a collection key');
    const items: string[] = [];
    p.array(c, 'items').forEach((v, i) => {
      const r = ref(v);
      if (r === undefined) p.add(`items[${i}]`, v, 'an item reference');
      else items.push(r);
    });
    const children: string[] = [];
    p.array(c, 'collections').forEach((v, i) => {
      if (typeof v === 'string') children.push(v);
      else p.add(`collections[${i}]`, v, 'a collection key');
    });
    cols.set(key, { name: p.text(c, 'name'), parent: typeof parent === 'string' && parent ? parent : undefined, items, children });
    if (p.list.length) warnings.push(`Collection ${quote(key)}: ${p.describe()}: left out, the rest of the collection was kept.`);
  }
  return cols;
}

/** Full collection paths ("Thesis / Chapter 2") by collection key, guarding against parent cycles and endless chains. */
function collectionPaths(cols: Map<string, Collection>, warnings: string[]): Map<string, string> {
  const parentOf = new Map<string, string>();
  for (const [k, c] of cols) if (c.parent) parentOf.set(k, c.parent);
  // Older exports only list children; infer the parent from them.
  for (const [k, c] of cols) for (const child of c.children) if (!parentOf.has(child)) parentOf.set(child, k);
  const paths = new Map<string, string>();
  let cut = false;
  for (const k of cols.keys()) {
    const names: string[] = [];
    const seen = new Set<string>();
    for (let cur: string | undefined = k; cur !== undefined && cols.has(cur) && !seen.has(cur); cur = parentOf.get(cur)) {
      if (names.length >= MAX_COLLECTION_DEPTH) {
        cut = true;
        names.unshift('…');
        break;
      }
      seen.add(cur);
      names.unshift(cols.get(cur)!.name ?? cur);
    }
    paths.set(k, names.join(' / '));
  }
  if (cut) warnings.push(`Collections nested more than ${MAX_COLLECTION_DEPTH} deep: their paths were cut to the last ${MAX_COLLECTION_DEPTH} levels.`);
  return paths;
}

/** One item of the export as an entry, or why it was skipped; field problems go to `p`. */
function readItem(
  item: JsonObject,
  p: Problems,
  cols: Map<string, Collection>,
  paths: Map<string, string>,
  colsOfItem: Map<string, Set<string>>,
  baseDir: string,
): BibEntry | { skip: string } | 'not citable' {
  const typeValue = own(item, 'itemType');
  const type = p.text(item, 'itemType');
  if (typeValue === 'note' || typeValue === 'attachment' || typeValue === 'annotation') return 'not citable';
  const keyField = ['citationKey', 'citekey', 'citationkey'].find((f) => own(item, f) !== undefined && own(item, f) !== null);
  const citekey = keyField ? own(item, keyField) : undefined;
  if (typeof citekey !== 'string' || !citekey.trim()) {
    return { skip: keyField && typeof citekey !== 'string' ? `${keyField} is ${kind(citekey)}, not text` : 'no citation key' };
  }
  const title = p.text(item, 'title');

  const colKeys = new Set<string>();
  for (const idField of ['itemID', 'itemKey']) {
    const v = own(item, idField);
    if (v === undefined || v === null) continue;
    const r = ref(v);
    if (r === undefined) p.add(idField, v, 'a number or text');
    else for (const k of colsOfItem.get(r) ?? []) colKeys.add(k);
  }
  p.array(item, 'collections').forEach((v, i) => {
    const r = ref(v);
    if (r === undefined) p.add(`collections[${i}]`, v, 'a collection key');
    else colKeys.add(r);
  });
  const collections = new Set<string>();
  for (const k of colKeys) {
    const full = paths.get(k);
    if (!full) continue; // a key of a collection not in the export
    collections.add(full);
    collections.add(cols.get(k)!.name ?? k);
  }

  const files: string[] = [];
  p.array(item, 'attachments').forEach((a, i) => {
    if (!isObject(a)) return p.add(`attachments[${i}]`, a, 'an attachment');
    const at = `attachments[${i}]`;
    const file = p.text(a, 'path', `${at}.path`) ?? p.text(a, 'localPath', `${at}.localPath`);
    const mime = p.text(a, 'contentType', `${at}.contentType`) ?? p.text(a, 'mimeType', `${at}.mimeType`);
    if (file && isPdf(file, mime)) files.push(resolveAttachment(file, baseDir));
  });

  const date = own(item, 'date');
  const year = own(item, 'year');
  const when = (v: Json, field: string): string | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    p.add(field, v, 'a date');
    return undefined;
  };
  const dateText = when(date, 'date');
  const yearText = when(year, 'year');

  return {
    citekey,
    title: title !== undefined ? stripRichText(title) || undefined : undefined,
    authors: readCreators(item, p),
    year: parseYear(dateText ?? yearText),
    collections: [...collections],
    files: [...new Set(files)],
    type,
  };
}

/** The top level of a Better BibTeX export: its "items" list and "collections", read member by member. */
interface TopLevel {
  items?: { elements: ListElement[]; lostFrom?: number };
  collections?: Json;
  /** The export is not an object with an "items" list (an array is read as CSL-JSON). */
  csl?: { elements: ListElement[]; lostFrom?: number };
  fault?: { at: number; reason: string; where: string };
  /** What "items" is when it is not a list. */
  itemsNotList?: string;
}

function readTopLevel(s: string): TopLevel {
  let i = skipWhitespace(s, 0);
  // Where the items are looked for after a fault: a list of objects (a collection's "items"
  // holds item IDs).
  const itemsKey = /"items"\s*:\s*\[(?=\s*[{\]])/g;
  if (s.charCodeAt(i) === 91) {
    const csl = readList(s, i, 1);
    // No CSL item in it and an items list further on: an export whose opening "{" was hit.
    itemsKey.lastIndex = i;
    if (csl.elements.some((e) => isObject(e.value) && typeof own(e.value, 'id') === 'string') || !itemsKey.test(s)) return { csl };
    itemsKey.lastIndex = 0;
    return afterFault(s, {}, faultAt(s, i), 'the file', itemsKey);
  }
  if (s.charCodeAt(i) !== 123) {
    const r = scanValue(s, i);
    itemsKey.lastIndex = 0;
    if (!r.ok) return afterFault(s, {}, r, 'the file', itemsKey);
    // A value with more text after it is no JSON file: an export whose opening "{" was lost
    // starts with a valid string ("config"); its items are looked for as after any fault.
    const rest = skipWhitespace(s, r.end);
    return rest < s.length ? afterFault(s, {}, faultAt(s, rest), 'the file', itemsKey) : {};
  }
  const top: TopLevel = {};
  const first = skipWhitespace(s, i + 1);
  i = first;
  // The object's end: only whitespace may follow it (a damaged export can close early).
  const close = (at: number): TopLevel => {
    const rest = skipWhitespace(s, at + 1);
    return rest < s.length ? afterFault(s, top, faultAt(s, rest), 'the file', itemsKey) : top;
  };
  itemsKey.lastIndex = i;
  if (s.charCodeAt(i) === 125) return close(i);
  for (;;) {
    // "key": value; after a fault, the items are looked for from this member on.
    itemsKey.lastIndex = i;
    const k = scanValue(s, i, 0);
    if (!k.ok || s.charCodeAt(i) !== 34) return afterFault(s, top, k.ok ? faultAt(s, i) : k, 'the file', itemsKey);
    const name = parseChecked(s, i, k.end) as string;
    i = skipWhitespace(s, k.end);
    if (s.charCodeAt(i) !== 58) return afterFault(s, top, faultAt(s, i), 'the file', itemsKey);
    i = skipWhitespace(s, i + 1);
    if (name === 'items' && s.charCodeAt(i) === 91 && !top.items) {
      const list = readList(s, i, 1);
      top.items = list;
      if (list.end === undefined) return top;
      i = list.end;
    } else {
      const v = scanValue(s, i, MAX_JSON_DEPTH - 1);
      if (!v.ok) return afterFault(s, top, v, quote(name), itemsKey);
      if (name === 'collections') top.collections = parseChecked(s, i, v.end);
      else if (name === 'items' && !top.items) top.itemsNotList = kind(parseChecked(s, i, v.end));
      i = v.end;
    }
    i = skipWhitespace(s, i);
    const c = s.charCodeAt(i);
    if (c === 125) return close(i);
    if (c !== 44) return afterFault(s, top, faultAt(s, i), 'the file', itemsKey);
    i = skipWhitespace(s, i + 1);
  }
}

/** A fault outside the items list: the items are looked for from the member where it is (an export lists them last); `m.lastIndex` is that member's start. */
function afterFault(s: string, top: TopLevel, fault: { at: number; reason: string }, where: string, m: RegExp): TopLevel {
  top.fault = { at: fault.at, reason: fault.reason, where };
  if (!top.items) {
    // A collection's empty "items": [] may come first: a list that holds an object is preferred.
    const first = m.exec(s);
    let hit = first;
    while (hit && s.charCodeAt(skipWhitespace(s, hit.index + hit[0].length)) !== 123) hit = m.exec(s);
    hit ??= first;
    if (hit) top.items = readList(s, hit.index + hit[0].length - 1, 1);
  }
  return top;
}

/**
 * Better BibTeX JSON ({ items, collections }); a CSL-JSON array is also read (no files there).
 * Each entry gets, for every collection it is in, the full path and the leaf name.
 */
export function parseBetterBibtexJson(text: string, baseDir: string): ParsedBibliography {
  const s = text.replace(/^\uFEFF/, '');
  const lines = new Lines(s);
  const warnings: string[] = [];
  const where = (at: number) => {
    const { line, column } = lines.at(at);
    return `line ${line}, column ${column}`;
  };
  const top = readTopLevel(s);
  if (top.fault) {
    const then = top.items ? `: the rest of ${top.fault.where} was left out, the items were read` : ': nothing could be read';
    warnings.push(`Not valid JSON at ${where(top.fault.at)} (${top.fault.reason}), in ${top.fault.where}${then}.`);
  }
  if (top.csl) return finish(parseCslJson(top.csl, warnings, where), warnings);
  if (!top.items) {
    if (!top.fault)
      warnings.push(
        top.itemsNotList ? `Not a Better BibTeX JSON export: "items" is ${top.itemsNotList}, not a list.` : 'Not a Better BibTeX JSON export: no "items" list.',
      );
    return finish({ entries: [], warnings }, warnings);
  }

  const cols = readCollections(top.collections, warnings);
  const paths = collectionPaths(cols, warnings);
  const colsOfItem = new Map<string, Set<string>>();
  for (const [k, c] of cols) {
    for (const r of c.items) {
      if (!colsOfItem.has(r)) colsOfItem.set(r, new Set());
      colsOfItem.get(r)!.add(k);
    }
  }

  const entries: BibEntry[] = [];
  const seen = new Set<string>();
  for (const el of top.items.elements) {
    const label = `item ${el.index} (line ${lines.at(el.at).line})`;
    if (el.problem) {
      const rest = el.at === top.items.lostFrom ? ' and the items after it (no next item found)' : '';
      warnings.push(`Not valid JSON at ${where(el.problem.at)} (${el.problem.reason}): skipped ${label}${rest}.`);
      continue;
    }
    const item = el.value;
    if (!isObject(item)) {
      warnings.push(`Skipped ${label}: ${kind(item)}, not an item.`);
      continue;
    }
    const p = new Problems();
    const r = readItem(item, p, cols, paths, colsOfItem, baseDir);
    if (r === 'not citable') continue;
    if ('skip' in r) {
      const title = own(item, 'title');
      const named = typeof title === 'string' && title ? `Skipped item ${el.index} (${quote(title)}, line ${lines.at(el.at).line})` : `Skipped ${label}`;
      warnings.push(`${named}: ${r.skip}.`);
      continue;
    }
    const named = `Item ${el.index} (citation key ${quote(r.citekey)}, line ${lines.at(el.at).line})`;
    if (seen.has(r.citekey)) {
      warnings.push(`Duplicate citation key ${quote(r.citekey)} (item ${el.index}, line ${lines.at(el.at).line}): kept the first item.`);
      continue;
    }
    seen.add(r.citekey);
    entries.push(r);
    if (p.list.length) warnings.push(`${named}: ${p.describe()}: left out, the rest of the item was kept.`);
  }
  return finish({ entries, warnings }, warnings);
}

function finish(r: ParsedBibliography, warnings: string[]): ParsedBibliography {
  if (warnings.length > MAX_WARNINGS) {
    const left = warnings.length - MAX_WARNINGS;
    warnings.splice(MAX_WARNINGS, left, `… and ${left} more warnings.`);
  }
  return { entries: r.entries, warnings };
}

function parseCslJson(list: { elements: ListElement[]; lostFrom?: number }, warnings: string[], where: (at: number) => string): ParsedBibliography {
  const entries: BibEntry[] = [];
  const seen = new Set<string>();
  for (const el of list.elements) {
    if (el.problem) {
      const rest = el.at === list.lostFrom ? ' and the items after it (no next item found)' : '';
      warnings.push(`Not valid JSON at ${where(el.problem.at)} (${el.problem.reason}): skipped CSL item ${el.index}${rest}.`);
      continue;
    }
    const it = el.value;
    const id = isObject(it) ? own(it, 'id') : undefined;
    if (!isObject(it) || typeof id !== 'string' || !id) {
      warnings.push(`Skipped CSL item ${el.index}: no id.`);
      continue;
    }
    if (seen.has(id)) {
      warnings.push(`Duplicate CSL id ${quote(id)} (item ${el.index}): kept the first item.`);
      continue;
    }
    seen.add(id);
    const p = new Problems();
    const nameField = Array.isArray(own(it, 'author')) || !Array.isArray(own(it, 'editor')) ? 'author' : 'editor';
    const authors: string[] = [];
    p.array(it, nameField).forEach((a, i) => {
      const at = `${nameField}[${i}]`;
      if (!isObject(a)) return p.add(at, a, 'a name');
      const literal = p.text(a, 'literal', `${at}.literal`);
      const family = p.text(a, 'family', `${at}.family`);
      const given = p.text(a, 'given', `${at}.given`);
      const name = literal || [family, given].filter(Boolean).join(', ');
      if (name) authors.push(name);
    });
    let year: number | undefined;
    const issued = own(it, 'issued');
    if (isObject(issued)) {
      const parts = own(issued, 'date-parts');
      const first = Array.isArray(parts) && Array.isArray(parts[0]) ? parts[0][0] : undefined;
      const y = typeof first === 'number' || typeof first === 'string' ? Number(first) : NaN;
      year = Number.isInteger(y) ? y : parseYear(p.text(issued, 'raw', 'issued.raw'));
    } else if (issued !== undefined && issued !== null) p.add('issued', issued, 'a date');
    const title = p.text(it, 'title');
    entries.push({ citekey: id, title, authors, year, collections: [], files: [], type: p.text(it, 'type') });
    if (p.list.length) warnings.push(`CSL item ${el.index} (id ${quote(id)}): ${p.describe()}: left out, the rest of the item was kept.`);
  }
  return { entries, warnings };
}
