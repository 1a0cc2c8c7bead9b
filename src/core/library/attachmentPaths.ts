/**
 * Attachment paths of a bibliography entry: the BibTeX `file` field (Zotero/JabRef syntax) and
 * Better BibTeX JSON attachment paths, resolved to absolute paths. These are strings only:
 * nothing here reads or stats a file, so a path outside the library (`../../`, `/etc`, `~`) is
 * only ever compared against the PDFs found inside the library folders.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

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

export const isPdf = (p: string, mime?: string) => /\.pdf$/i.test(p) || /^application\/pdf$/i.test(mime ?? '');

export function resolveAttachment(p: string, baseDir: string): string {
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
