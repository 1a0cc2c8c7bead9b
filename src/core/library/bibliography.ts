/**
 * Reads a Better BibTeX export (.bib or BBT JSON) so that library PDFs get a citation key,
 * authors, year and Zotero collections.
 *
 * Conventions:
 * - `authors` are "Last, First" (BibTeX's own "von Last, Jr, First" order when there is a
 *   suffix; "de Gaulle, Charles"); a corporate author in braces stays whole
 *   ("World Health Organization"). "and others" is dropped.
 * - `files` keeps only PDFs, relative paths resolved against the export's folder.
 * - Problems with single entries go to `warnings`; parsing never aborts on them.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BibEntry {
  citekey: string;
  title?: string;
  authors: string[];
  year?: number;
  collections: string[];
  /** Absolute (or, for another OS's absolute paths, as-given) paths of attached PDFs. */
  files: string[];
  type?: string;
}

export interface ParsedBibliography {
  entries: BibEntry[];
  warnings: string[];
}

export async function loadBibliography(file: string): Promise<ParsedBibliography> {
  const text = (await fs.readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  const baseDir = path.dirname(path.resolve(file));
  const ext = path.extname(file).toLowerCase();
  if (ext === '.json' || (ext !== '.bib' && /^\s*[[{]/.test(text))) return parseBetterBibtexJson(text, baseDir);
  return parseBibtex(text, baseDir);
}

// ---------------------------------------------------------------------------------------------
// BibTeX

/** BibTeX's predefined month macros. */
const MONTHS: Record<string, string> = {
  jan: 'January', feb: 'February', mar: 'March', apr: 'April', may: 'May', jun: 'June',
  jul: 'July', aug: 'August', sep: 'September', oct: 'October', nov: 'November', dec: 'December',
};

class BibSyntaxError extends Error {}

/** Raw entry: field values keep their LaTeX; decoding depends on the field (file paths must not be decoded). */
interface RawEntry {
  type: string;
  key: string;
  fields: Map<string, string>;
  line: number;
}

class BibScanner {
  pos = 0;
  constructor(readonly text: string) {}

  lineAt(pos: number): number {
    let n = 1;
    for (let i = 0; i < pos && i < this.text.length; i++) if (this.text.charCodeAt(i) === 10) n++;
    return n;
  }
  skipWs(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }
  peek(): string {
    return this.text[this.pos] ?? '';
  }
  expect(ch: string): void {
    this.skipWs();
    if (this.text[this.pos] !== ch) {
      throw new BibSyntaxError(`expected "${ch}" but found ${this.describeHere()} on line ${this.lineAt(this.pos)}`);
    }
    this.pos++;
  }
  describeHere(): string {
    return this.pos >= this.text.length ? 'end of file' : `"${this.text[this.pos]}"`;
  }
  /** Identifiers: field names, macro names, entry types. */
  ident(): string {
    this.skipWs();
    const m = /^[^\s"#%'(),={}@]+/.exec(this.text.slice(this.pos, this.pos + 200));
    if (!m) throw new BibSyntaxError(`expected a name but found ${this.describeHere()} on line ${this.lineAt(this.pos)}`);
    this.pos += m[0].length;
    return m[0];
  }
  /**
   * A new entry at the start of a line inside a value almost always means a brace or quote was
   * left open: stop there so only the broken entry is lost.
   */
  private entryStartsAt(i: number): boolean {
    return /^\n[ \t]*@[A-Za-z]+[ \t]*[{(]/.test(this.text.slice(i, i + 60));
  }
  /** Content of a balanced {...} group starting at pos (which must be "{"), without the outer braces. */
  braced(): string {
    const start = this.pos;
    let depth = 0;
    for (let i = this.pos; i < this.text.length; i++) {
      const c = this.text[i];
      if (c === '\n' && this.entryStartsAt(i)) break;
      if (c === '\\') {
        i++; // \{ and \} do not count
        continue;
      }
      if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        this.pos = i + 1;
        return this.text.slice(start + 1, i);
      }
    }
    throw new BibSyntaxError(`unbalanced braces starting on line ${this.lineAt(start)}`);
  }
  /** "..." value: a quote inside braces does not end it. */
  quoted(): string {
    const start = this.pos;
    let depth = 0;
    for (let i = this.pos + 1; i < this.text.length; i++) {
      const c = this.text[i];
      if (c === '\n' && this.entryStartsAt(i)) break;
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === '{') depth++;
      else if (c === '}') depth--;
      else if (c === '"' && depth === 0) {
        this.pos = i + 1;
        return this.text.slice(start + 1, i);
      }
    }
    throw new BibSyntaxError(`unterminated quoted value starting on line ${this.lineAt(start)}`);
  }
  /** value = part ("#" part)* */
  value(macros: Map<string, string>): string {
    let out = '';
    for (;;) {
      this.skipWs();
      const c = this.peek();
      if (c === '{') out += this.braced();
      else if (c === '"') out += this.quoted();
      else if (/[0-9]/.test(c)) {
        const m = /^[0-9]+/.exec(this.text.slice(this.pos, this.pos + 50))!;
        this.pos += m[0].length;
        out += m[0];
      } else {
        const name = this.ident().toLowerCase();
        const v = macros.get(name) ?? (Object.hasOwn(MONTHS, name) ? MONTHS[name] : undefined);
        if (v === undefined) throw new BibSyntaxError(`undefined macro "${name}" on line ${this.lineAt(this.pos)}`);
        out += v;
      }
      this.skipWs();
      if (this.peek() !== '#') return out;
      this.pos++;
    }
  }
}

/** Position of the next "@" that starts a line (after blanks): where to resume after a broken entry. */
function nextEntryStart(text: string, from: number): number {
  const re = /(^|\n)[ \t]*@/g;
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? m.index + m[0].length - 1 : text.length;
}

function scanBibtex(text: string): { raw: RawEntry[]; warnings: string[] } {
  const s = new BibScanner(text);
  const macros = new Map<string, string>();
  const raw: RawEntry[] = [];
  const warnings: string[] = [];

  while (s.pos < text.length) {
    const at = text.indexOf('@', s.pos);
    if (at < 0) break;
    s.pos = at + 1;
    const line = s.lineAt(at);
    let key = '';
    try {
      const type = s.ident().toLowerCase();
      s.skipWs();
      const open = s.peek();
      if (open !== '{' && open !== '(') {
        // An "@" inside free text (an e-mail in a comment) is not an entry; BibTeX ignores text between entries.
        if (!/(^|\n)[ \t]*$/.test(text.slice(Math.max(0, at - 200), at))) continue;
        throw new BibSyntaxError(`expected "{" after @${type} but found ${s.describeHere()}`);
      }
      const close = open === '{' ? '}' : ')';
      if (type === 'comment' || type === 'preamble') {
        if (open === '{') s.braced();
        else s.pos = nextEntryStart(text, s.pos);
        continue;
      }
      s.pos++;
      if (type === 'string') {
        const name = s.ident().toLowerCase();
        s.expect('=');
        macros.set(name, s.value(macros));
        s.expect(close);
        continue;
      }
      s.skipWs();
      const km = /^[^\s,{}()"=]*/.exec(text.slice(s.pos, s.pos + 500))!;
      key = km[0];
      s.pos += key.length;
      if (!key) throw new BibSyntaxError('missing citation key');
      const fields = new Map<string, string>();
      for (;;) {
        s.skipWs();
        if (s.peek() === close) {
          s.pos++;
          break;
        }
        s.expect(',');
        s.skipWs();
        if (s.peek() === close) {
          s.pos++;
          break;
        }
        const name = s.ident().toLowerCase();
        s.expect('=');
        const v = s.value(macros);
        if (!fields.has(name)) fields.set(name, v);
      }
      raw.push({ type, key, fields, line });
    } catch (err) {
      if (!(err instanceof BibSyntaxError)) throw err;
      if (!key && /^\s*$/.test(text.slice(at + 1, at + 2))) continue;
      warnings.push(`Skipped the entry ${key ? `"${key}" ` : ''}at line ${line}: ${err.message}.`);
      s.pos = nextEntryStart(text, at + 1);
    }
  }
  return { raw, warnings };
}

export function parseBibtex(text: string, baseDir: string): ParsedBibliography {
  const { raw, warnings } = scanBibtex(text.replace(/^\uFEFF/, ''));
  const entries: BibEntry[] = [];
  const seen = new Set<string>();
  for (const r of raw) {
    if (seen.has(r.key)) {
      warnings.push(`Duplicate citation key "${r.key}" at line ${r.line}: kept the first entry.`);
      continue;
    }
    seen.add(r.key);
    const f = r.fields;
    const names = f.get('author') ?? f.get('editor');
    const title = f.get('title');
    const entry: BibEntry = {
      citekey: r.key,
      title: title !== undefined ? latexToUnicode(title) || undefined : undefined,
      authors: names ? splitBibtexNames(names) : [],
      year: parseYear(f.get('year')) ?? parseYear(f.get('date')),
      collections: splitList(f.get('groups')),
      files: f.has('file') ? parseFileField(f.get('file')!, baseDir) : [],
      type: r.type,
    };
    entries.push(entry);
  }
  return { entries, warnings };
}

function splitList(v: string | undefined): string[] {
  if (!v) return [];
  return [...new Set(v.split(',').map((x) => latexToUnicode(x)).filter(Boolean))];
}

function parseYear(v: string | undefined): number | undefined {
  const m = v ? /(?:^|[^0-9])([0-9]{4})(?![0-9])/.exec(v) : null;
  return m ? Number(m[1]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// LaTeX → Unicode

/** Accent commands → combining mark (composed with NFC afterwards). */
const ACCENTS: Record<string, string> = {
  "'": '\u0301', '`': '\u0300', '^': '\u0302', '"': '\u0308', '~': '\u0303', '=': '\u0304', '.': '\u0307',
  c: '\u0327', u: '\u0306', v: '\u030C', H: '\u030B', k: '\u0328', r: '\u030A', d: '\u0323', b: '\u0331',
};

const SYMBOLS: Record<string, string> = {
  oe: 'œ', OE: 'Œ', ae: 'æ', AE: 'Æ', o: 'ø', O: 'Ø', aa: 'å', AA: 'Å', ss: 'ß', l: 'ł', L: 'Ł',
  i: 'ı', j: 'ȷ', '&': '&', '%': '%', $: '$', '#': '#', _: '_', '{': '{', '}': '}', ' ': ' ', ',': ' ',
  '-': '', '/': '', '@': '', '\\': ' ', textendash: '–', textemdash: '—', ldots: '…', dots: '…', textellipsis: '…', S: '§', P: '¶',
  guillemotleft: '«', guillemotright: '»', og: '« ', fg: ' »', textquoteleft: '‘', textquoteright: '’',
  textquotedblleft: '“', textquotedblright: '”', textasciitilde: '~', textbackslash: '\\', copyright: '©',
  LaTeX: 'LaTeX', TeX: 'TeX', textregistered: '®', textdegree: '°', euro: '€', pounds: '£',
};

/**
 * Decodes the LaTeX found in bibliographies: accents in every spelling ({\'e}, \'{e}, \'e,
 * {\c c}, \c{c}), common symbols (\oe, \ae, {\o}), dashes, ~, and drops protective braces.
 * Unknown commands with an argument keep the argument (\emph{x} → x); without one they vanish.
 */
export function latexToUnicode(input: string): string {
  let out = '';
  let i = 0;
  const s = input;
  const n = s.length;

  /** Reads the argument of an accent: a letter, a {group}, or a control word like \i. */
  const accentArg = (): string => {
    while (i < n && s[i] === ' ') i++;
    if (s[i] === '{') {
      let depth = 0;
      const start = i;
      for (; i < n; i++) {
        if (s[i] === '\\') {
          i++;
          continue;
        }
        if (s[i] === '{') depth++;
        else if (s[i] === '}' && --depth === 0) break;
      }
      const inner = s.slice(start + 1, i);
      i++;
      return latexToUnicode(inner.replace(/^\s*\\([ij])(?![A-Za-z])\s*/, '$1'));
    }
    if (s[i] === '\\') {
      const m = /^\\([A-Za-z]+)\s*/.exec(s.slice(i));
      if (m) {
        i += m[0].length;
        if (m[1] === 'i' || m[1] === 'j') return m[1]; // dotted base so NFC composes í
        return Object.hasOwn(SYMBOLS, m[1]) ? SYMBOLS[m[1]] : '';
      }
    }
    return i < n ? s[i++] : '';
  };

  while (i < n) {
    const c = s[i];
    if (c === '{' || c === '}') {
      i++;
      continue;
    }
    if (c === '~') {
      out += ' ';
      i++;
      continue;
    }
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    // Control sequence.
    const word = /^\\([A-Za-z]+)/.exec(s.slice(i, i + 40));
    const name = word ? word[1] : s[i + 1] ?? '';
    i += 1 + name.length;
    if (Object.hasOwn(ACCENTS, name)) {
      const arg = accentArg();
      out += arg ? arg[0] + ACCENTS[name] + arg.slice(1) : '';
      continue;
    }
    if (word) {
      // TeX eats the blanks after a control word.
      if (Object.hasOwn(SYMBOLS, name)) {
        const symbol = SYMBOLS[name];
        while (i < n && /\s/.test(s[i])) i++;
        out += symbol;
        continue;
      }
      // Unknown command: its {argument} (if any) is kept by the loop, braces dropped.
      continue;
    }
    out += Object.hasOwn(SYMBOLS, name) ? SYMBOLS[name] : name;
  }
  return out
    .replace(/---/g, '—')
    .replace(/--/g, '–')
    .replace(/``/g, '“')
    .replace(/''/g, '”')
    .replace(/\s+/g, ' ')
    .trim()
    .normalize('NFC');
}

// ---------------------------------------------------------------------------------------------
// Names

/** Splits s on `sep` where brace depth is 0. */
function splitTopLevel(s: string, sep: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (depth === 0) {
      sep.lastIndex = i;
      const m = sep.exec(s);
      if (m && m.index === i) {
        parts.push(s.slice(last, i));
        i += m[0].length - 1;
        last = i + 1;
      }
    }
  }
  parts.push(s.slice(last));
  return parts;
}

/** BibTeX "von" test: a token is lower case if its first letter is (a braced group counts as upper case). */
function isVonToken(tok: string): boolean {
  if (tok.startsWith('{') && !tok.startsWith('{\\')) return false;
  const first = /\p{L}/u.exec(latexToUnicode(tok));
  return !!first && first[0] === first[0].toLowerCase() && first[0] !== first[0].toUpperCase();
}

/** One BibTeX name → "Last, First" (or "Last, Jr, First"; corporate names unchanged). */
export function normalizeBibtexName(raw: string): string {
  const name = raw.trim();
  const commaParts = splitTopLevel(name, /,/y).map((p) => latexToUnicode(p));
  if (commaParts.length >= 3) return `${commaParts[0]}, ${commaParts[1]}, ${commaParts.slice(2).join(', ')}`;
  if (commaParts.length === 2) return commaParts[1] ? `${commaParts[0]}, ${commaParts[1]}` : commaParts[0];
  const tokens = splitTopLevel(name, /\s+/y).filter(Boolean);
  if (tokens.length <= 1) return latexToUnicode(name);
  // First von Last: "von" starts at the first lower-case token that is not the last token.
  let von = tokens.slice(0, -1).findIndex(isVonToken);
  if (von < 0) von = tokens.length - 1;
  const first = tokens.slice(0, von).join(' ');
  const last = tokens.slice(von).join(' ');
  return first ? `${latexToUnicode(last)}, ${latexToUnicode(first)}` : latexToUnicode(last);
}

export function splitBibtexNames(field: string): string[] {
  return splitTopLevel(field.replace(/\s+/g, ' '), /\s+and\s+/iy)
    .map((p) => p.trim())
    .filter((p) => p && p.toLowerCase() !== 'others')
    .map(normalizeBibtexName)
    .filter(Boolean);
}

// ---------------------------------------------------------------------------------------------
// File field

/** Splits on an unescaped separator, keeping the escapes for the next stage. */
function splitUnescaped(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      cur += s[i] + s[i + 1];
      i++;
    } else if (s[i] === sep) {
      parts.push(cur);
      cur = '';
    } else cur += s[i];
  }
  parts.push(cur);
  return parts;
}

/** JabRef/Zotero escapes: \: \; \\ ; any other backslash is a Windows separator and stays. */
const unescapeFilePart = (s: string) => s.replace(/\\([:;\\])/g, '$1');

/** "application/pdf", "PDF" or empty: the type slot of "description:path:type". */
const looksLikeMime = (s: string) => {
  const t = s.trim();
  return t === '' || /^pdf$/i.test(t) || (/^[\w.+-]+\/[\w.+-]+$/.test(t) && !/\.pdf$/i.test(t));
};

const isPdf = (p: string, mime?: string) => /\.pdf$/i.test(p) || /^application\/pdf$/i.test(mime ?? '');

function resolveAttachment(p: string, baseDir: string): string {
  let f = p.trim();
  if (/^file:\/\//i.test(f)) {
    try {
      f = fileURLToPath(f);
    } catch {
      /* keep as given */
    }
  }
  if (/^~[\\/]/.test(f)) f = path.join(os.homedir(), f.slice(2));
  // A Windows absolute path read on another OS (or vice versa) is kept as given.
  if (path.win32.isAbsolute(f) && /^[A-Za-z]:|^\\\\/.test(f)) return path.sep === '\\' ? path.normalize(f) : f;
  return path.isAbsolute(f) ? path.normalize(f) : path.resolve(baseDir, f);
}

/**
 * The `file` field in its usual forms: "Full Text PDF:files/12/a.pdf:application/pdf",
 * several joined by ";", Windows paths with escaped colons (C\:\\Users\\…), or a plain path.
 */
export function parseFileField(value: string, baseDir: string): string[] {
  const out: string[] = [];
  for (const item of splitUnescaped(value, ';')) {
    if (!item.trim()) continue;
    let parts = splitUnescaped(item, ':');
    // An unescaped drive letter ("C:\x") splits off a one-letter part: glue it back.
    const glued: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      if (/^[A-Za-z]$/.test(parts[i].trim()) && i + 1 < parts.length && /^[\\/]/.test(parts[i + 1])) {
        glued.push(`${parts[i].trim()}:${parts[i + 1]}`);
        i++;
      } else glued.push(parts[i]);
    }
    parts = glued.map(unescapeFilePart);
    let file: string;
    let mime: string | undefined;
    let rest = parts;
    if (parts.length >= 2 && looksLikeMime(parts[parts.length - 1])) {
      mime = parts[parts.length - 1].trim();
      rest = parts.slice(0, -1);
    }
    // "description:path"; but an absolute path with an unescaped ":" in a file name is all path.
    if (rest.length === 1 || /^[/.~]/.test(rest[0])) file = rest.join(':');
    else file = rest.slice(1).join(':');
    if (file.trim() && isPdf(file.trim(), mime)) out.push(resolveAttachment(file, baseDir));
  }
  return [...new Set(out)];
}

// ---------------------------------------------------------------------------------------------
// Better BibTeX JSON

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

/** Zotero titles may carry its rich-text markup (<i>, <sup>, <span class="nocase">). */
function stripRichText(t: string): string {
  return t.replace(/<\/?(?:i|b|sup|sub|sc|span)(?:\s[^>]*)?>/gi, '').replace(/\s+/g, ' ').trim();
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
  return index.get(full) ?? tailKeys(file).map((k) => index.get(k)).find(Boolean);
}
