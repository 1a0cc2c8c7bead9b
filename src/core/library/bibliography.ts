/**
 * Reads a Better BibTeX export (.bib or BBT JSON) so that library PDFs get a citation key,
 * authors, year and Zotero collections, and finds the entry of a PDF.
 *
 * Conventions:
 * - `authors` are "Last, First" (BibTeX's own "von Last, Jr, First" order when there is a
 *   suffix; "de Gaulle, Charles"); a corporate author in braces stays whole
 *   ("World Health Organization"). "and others" is dropped.
 * - `files` keeps only PDFs, relative paths resolved against the export's folder. They are
 *   compared with the PDFs found in the library, never opened: a `file` field pointing
 *   elsewhere can match a library PDF by its folder and name, but nothing outside is read.
 * - Problems with single entries go to `warnings`; parsing never aborts on them.
 */
import * as path from 'node:path';
import type { BibEntry, ParsedBibliography } from './bibEntry';
import { parseBetterBibtexJson } from './betterBibtexJson';
import { parseBibtex } from './bibtexFile';
import { makeDir, writeFileAtomic } from '../util/atomicWrite';
import { FILE_KINDS, readConfined, readConfinedText, statConfined, type FileRule } from '../util/confinedFiles';
import { sha256 } from '../util/hash';

export type { BibEntry, ParsedBibliography } from './bibEntry';
export { parseFileField } from './attachmentPaths';
export { parseBetterBibtexJson } from './betterBibtexJson';
export { parseBibtex } from './bibtexFile';

/** Entries named in the invalid UTF-8 warning before "and N more". */
const MAX_KEYS_NAMED = 10;
/**
 * An export larger than this is not read (confinedFiles' cap for a bibliography): its text would
 * pass what a JavaScript string may hold (a 20 MB export is a very large library), and the error
 * would say only "Invalid string length".
 */
const MAX_EXPORT_BYTES = FILE_KINDS.bibliography.maxBytes;

/**
 * The last export read, by path and stat: the extension indexes many times per session, and a
 * large export costs the parser seconds (README, "Bibliography"), so an unchanged file is not
 * parsed again.
 */
let lastRead: { file: string; stamp: string; parsed: ParsedBibliography } | undefined;

/**
 * Bumped whenever parsing changes what an entry holds: a parse cached on disk by another
 * version is not used.
 */
export const BIBLIOGRAPHY_PARSE_VERSION = 2;

export interface LoadBibliographyOptions {
  /**
   * A folder where the parse is kept between processes (the index folder), keyed by the
   * export's path and checked against its content hash: the CLI, a new process on every run,
   * parses an unchanged export once. Without one, only this process remembers the last parse.
   */
  cacheDir?: string;
  /**
   * The workspace, when the draft named the file (front matter `bibliography:`, `\addbibresource`)
   * rather than the user's settings: it must then lie inside (issue 35), links followed.
   */
  draftWorkspace?: string;
}

/** How a bibliography is read: anywhere when the user's settings name it; inside the workspace when a draft does. */
function bibliographyRule(draftWorkspace: string | undefined): FileRule {
  return draftWorkspace === undefined
    ? { kind: 'bibliography' }
    : { kind: 'bibliography', within: [draftWorkspace], rootName: 'the workspace', namedBy: 'a draft', widenedBy: 'similarSources.bibliographyFile' };
}

export async function loadBibliography(file: string, opts: LoadBibliographyOptions = {}): Promise<ParsedBibliography> {
  const rule = bibliographyRule(opts.draftWorkspace);
  const st = await statConfined(file, rule);
  if (st.size > MAX_EXPORT_BYTES) {
    throw new Error(`it is ${Math.round(st.size / 1048576)} MB, more than a bibliography export may be (${MAX_EXPORT_BYTES / 1048576} MB)`);
  }
  const abs = path.resolve(file);
  const stamp = `${st.path}:${st.size}:${st.mtimeMs}:${st.ino}`;
  if (lastRead?.file !== abs || lastRead.stamp !== stamp) {
    lastRead = { file: abs, stamp, parsed: await readBibliography(abs, opts.cacheDir, rule) };
  }
  const { entries, warnings } = lastRead.parsed;
  return { entries: [...entries], warnings: [...warnings] };
}

async function readBibliography(file: string, cacheDir: string | undefined, rule: FileRule): Promise<ParsedBibliography> {
  const { bytes } = await readConfined(file, rule);
  const cache = cacheDir && { file: path.join(cacheDir, `bibliography-${sha256(file).slice(0, 16)}.json`), hash: sha256(bytes) };
  const cached = cache && (await readParseCache(cache.file, cache.hash));
  if (cached) return cached;
  const { text, valid } = decodeUtf8(bytes);
  const baseDir = path.dirname(file);
  const ext = path.extname(file).toLowerCase();
  let parsed: ParsedBibliography;
  try {
    parsed = ext === '.json' || (ext !== '.bib' && /^\s*[[{]/.test(text)) ? parseBetterBibtexJson(text, baseDir) : await parseBibtex(text, baseDir);
  } catch {
    // The readers answer every input with entries and warnings (the fuzz suite tries them); a
    // defect of theirs is still said in words, never as JavaScript's message.
    return { entries: [], warnings: ['The bibliography could not be read: the reader failed on it (a defect of Similar Sources; please report it).'] };
  }
  if (!valid) parsed.warnings.unshift(invalidUtf8Warning(parsed.entries));
  if (cache) {
    // Only a cache: a workspace that cannot be written (read-only, full) parses again next time.
    await makeDir(cacheDir)
      .then(() => writeFileAtomic(cache.file, JSON.stringify({ version: BIBLIOGRAPHY_PARSE_VERSION, file, hash: cache.hash, parsed })))
      .catch(() => undefined);
  }
  return parsed;
}

/** The cached parse when it is this version's and of these bytes; undefined otherwise (missing, stale, damaged). */
async function readParseCache(file: string, hash: string): Promise<ParsedBibliography | undefined> {
  try {
    const c = JSON.parse((await readConfinedText(file, { kind: 'index', within: [path.dirname(file)] })).text) as {
      version?: unknown;
      hash?: unknown;
      parsed?: ParsedBibliography;
    };
    if (c.version !== BIBLIOGRAPHY_PARSE_VERSION || c.hash !== hash || !Array.isArray(c.parsed?.entries) || !Array.isArray(c.parsed?.warnings))
      return undefined;
    return c.parsed;
  } catch {
    return undefined;
  }
}

/** UTF-8 (exports are); bytes that are not become U+FFFD rather than failing the whole file. */
function decodeUtf8(bytes: Uint8Array): { text: string; valid: boolean } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes), valid: true };
  } catch {
    return { text: new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes), valid: false };
  }
}

function invalidUtf8Warning(entries: BibEntry[]): string {
  const hit = entries.filter((e) => [e.title ?? '', ...e.authors, ...e.files].some((s) => s.includes('\uFFFD'))).map((e) => e.citekey);
  const named = hit
    .slice(0, MAX_KEYS_NAMED)
    .map((k) => `"${k}"`)
    .join(', ');
  const more = hit.length > MAX_KEYS_NAMED ? ` and ${hit.length - MAX_KEYS_NAMED} more` : '';
  return `The file is not valid UTF-8: the bytes that are not were replaced by \uFFFD${named ? ` (in ${named}${more})` : ''}.`;
}

// ---------------------------------------------------------------------------------------------
// Matching PDFs to entries

/**
 * The form under which paths are compared: NFC (macOS stores names decomposed, exports usually
 * do not), forward slashes, lower-case drive letter.
 */
export function normalizePathKey(p: string): string {
  return p
    .normalize('NFC')
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .replace(/^([A-Za-z]):/, (_, d: string) => `${d.toLowerCase()}:`);
}

function tailKeys(p: string): string[] {
  const segs = normalizePathKey(p).split('/').filter(Boolean);
  const keys: string[] = [];
  // "ABCD1234/file.pdf": Zotero storage folders make this unique even when file names repeat.
  if (segs.length >= 2) keys.push(segs.slice(-2).join('/').toLowerCase());
  if (segs.length >= 1) keys.push(segs[segs.length - 1].toLowerCase());
  return keys;
}

/**
 * Index of PDF path → entry. Keys:
 * 1. the normalised absolute path (starts with "/" or "x:/");
 * 2. fallbacks for libraries moved or synced from another machine: "folder/file.pdf" and
 *    "file.pdf", lower-cased (never start with "/", so they cannot clash with 1).
 * Collisions: on a full path the first entry wins (the same PDF attached twice). A fallback key
 * shared by different entries is ambiguous ("Full Text.pdf") and is left out, so a PDF is never
 * attributed to the wrong source; use `findEntryForFile` to look up in that order.
 */
export function matchFile(entries: BibEntry[]): Map<string, BibEntry> {
  const map = new Map<string, BibEntry>();
  const ambiguous = new Set<string>();
  const fallback = new Map<string, BibEntry>();
  for (const e of entries) {
    for (const f of e.files) {
      const full = normalizePathKey(f);
      if (!map.has(full)) map.set(full, e);
      for (const k of tailKeys(f)) {
        const prev = fallback.get(k);
        if (prev && prev !== e) ambiguous.add(k);
        else fallback.set(k, e);
      }
    }
  }
  for (const [k, e] of fallback) if (!ambiguous.has(k) && !map.has(k)) map.set(k, e);
  return map;
}

/** Looks a PDF up by full path, then "folder/file.pdf", then file name. */
export function findEntryForFile(index: Map<string, BibEntry>, file: string): BibEntry | undefined {
  const full = normalizePathKey(path.resolve(file));
  return (
    index.get(full) ??
    tailKeys(file)
      .map((k) => index.get(k))
      .find(Boolean)
  );
}
