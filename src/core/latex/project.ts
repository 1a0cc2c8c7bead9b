/**
 * A LaTeX draft with the files it reads through `\input{}`, `\include{}` and
 * `\subfile{}` (issue 25), for "cited in § n" and the citation check. Names are
 * resolved as LaTeX does, against the main file's folder (`.tex` added when the
 * name has no extension); a file outside the workspace (by its name, or as a link
 * leading out of it), a FIFO or device, a file missing, and a file that includes
 * itself are not read, each with a message (issue 35: read through
 * core/util/confinedFiles). The bibliography of `\addbibresource{}` /
 * `\bibliography{}` is found here too.
 */
import * as path from 'node:path';
import { MAX_LATEX_BYTES } from './units';
import { readConfinedTextSync, statConfinedSync, type FileRefused, type FileRule } from '../util/confinedFiles';
import type { LatexPart } from '../../shared/citedIn';
import { latexIncludes, skipOpaque } from '../../shared/latexCite';

export interface LatexFile {
  /** Absolute path. */
  path: string;
  /** As the workspace names it (`chapters/intro.tex`, `/` separated); the main file's own name for it. */
  name: string;
  text: string;
}

export interface LatexProject {
  /** The main file first, then each file read, in the order LaTeX reads them (each once). */
  files: LatexFile[];
  /** The text in reading order: a file's text up to an `\input`, the file it reads, the rest (for section numbers). */
  parts: LatexPart[];
  /** Files not read, and why. */
  warnings: string[];
}

/** Deeper than this is a mistake (LaTeX itself stops at 15 open files). */
const MAX_DEPTH = 15;
const MAX_FILES = 1000;
/**
 * What a project's files may hold together: a thesis is a few MB, and checking its citations costs
 * up to ~0.6 s of CPU a MB on the worst shapes (scripts/bench-latex.ts): 16 MB keeps a check in ~10 s.
 */
const MAX_PROJECT_BYTES = 2 * MAX_LATEX_BYTES;

/**
 * Files read from disk, by real path, kept while their size and time hold: "cited in" reads the
 * project again on every edit, and a thesis's chapters seldom change meanwhile.
 */
const disk = new Map<string, { stamp: string; text: string }>();
const DISK_FILES = 200;

/** A file of the project from disk, by the workspace's rule (confined, regular, bounded). */
function readInput(file: string, rule: FileRule): string {
  const st = statConfinedSync(file, rule);
  const stamp = `${st.size}:${st.mtimeMs}:${st.ino}`;
  const known = disk.get(st.path);
  if (known?.stamp === stamp) return known.text;
  const text = readConfinedTextSync(st.path, rule).text;
  if (disk.size >= DISK_FILES) disk.delete(disk.keys().next().value!);
  disk.set(st.path, { stamp, text });
  return text;
}

/**
 * The draft `mainPath` (its text `mainText`, as the editor holds it) and every file it includes within
 * `workspace`, read from disk by confinedFiles' rule. `opened` gives a file's text from an editor's
 * unsaved buffer when it has one (the file still has to pass the rule, or be new and unsaved).
 */
export function readLatexProject(mainPath: string, mainText: string, workspace: string, opened?: (file: string) => string | undefined): LatexProject {
  const root = path.resolve(workspace);
  // Each input as large as a LaTeX file may be (units.ts), not the kind's general cap.
  const rule: FileRule = { kind: 'latex-input', within: [root], rootName: 'the workspace', namedBy: 'a LaTeX draft', maxBytes: MAX_LATEX_BYTES };
  let bytes = mainText.length;
  const read = (file: string): string => {
    // An editor's buffer is taken as it is (its file still passes the rule); else the file on disk.
    const buffer = opened?.(file);
    let text: string;
    try {
      text = buffer === undefined ? readInput(file, rule) : (statConfinedSync(file, rule), buffer);
    } catch (e) {
      // A new file, open but never saved, is not on disk yet.
      if ((e as FileRefused).code !== 'missing' || buffer === undefined) throw e;
      text = buffer;
    }
    bytes += text.length;
    if (bytes > MAX_PROJECT_BYTES) throw new Error(`the project's files hold more than ${MAX_PROJECT_BYTES / 1048576} MB of text together`);
    return text;
  };
  const main = path.resolve(mainPath);
  const base = path.dirname(main);
  const nameOf = (abs: string) => {
    const rel = path.relative(root, abs);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : abs;
  };
  const files: LatexFile[] = [];
  const parts: LatexPart[] = [];
  const warnings: string[] = [];
  const done = new Set<string>();
  const visit = (abs: string, text: string, stack: string[]) => {
    const name = nameOf(abs);
    done.add(abs);
    files.push({ path: abs, name, text });
    let from = 0;
    for (const inc of latexIncludes(text)) {
      const shown = `\\${inc.command}{${inc.name}} in ${name}`;
      const target = path.resolve(base, path.extname(inc.name) ? inc.name : `${inc.name}.tex`);
      const rel = path.relative(root, target);
      if (rel.startsWith('..') || path.isAbsolute(rel)) {
        warnings.push(`${shown}: ${target} is outside the workspace, not read`);
        continue;
      }
      if (stack.includes(target) || target === abs) {
        warnings.push(`${shown}: ${nameOf(target)} includes itself (${[...stack, abs].map(nameOf).join(' → ')} → ${nameOf(target)}), not read again`);
        continue;
      }
      if (done.has(target)) continue;
      if (stack.length + 1 >= MAX_DEPTH || files.length >= MAX_FILES) {
        warnings.push(`${shown}: files nested more than ${MAX_DEPTH} deep or more than ${MAX_FILES} files, not read`);
        continue;
      }
      let child: string;
      try {
        child = read(target);
      } catch (e) {
        warnings.push(`${shown}: ${nameOf(target)} ${(e as FileRefused).reason ?? `cannot be read (${(e as Error).message})`}`);
        continue;
      }
      parts.push({ file: name, text, from, to: inc.start });
      visit(target, child, [...stack, abs]);
      from = inc.end;
    }
    parts.push({ file: name, text, from, to: text.length });
  };
  visit(main, mainText, []);
  // The main file is the draft itself: its citations carry no file name.
  for (const p of parts) if (p.file === files[0].name) delete p.file;
  return { files, parts, warnings };
}

/**
 * The `.bib` files a LaTeX draft names, in order: biblatex's `\addbibresource{refs.bib}` (the name as
 * written) and BibTeX's `\bibliography{a,b}` (`.bib` added), resolved against the draft's folder.
 */
export function latexBibliographies(draft: string, draftPath: string): string[] {
  const dir = path.dirname(path.resolve(draftPath));
  const out: string[] = [];
  // Matched where the command is (sticky), not on a copy of what follows each backslash.
  const re = /\\(addbibresource|addglobalbib|bibliography)\s*(?:\[[^\]]{0,200}\])?\s*\{([^{}]{1,300})\}/y;
  for (let i = 0; i < draft.length; i++) {
    const c = draft[i];
    if (c !== '\\' && c !== '%') continue;
    const skip = skipOpaque(draft, i);
    if (skip >= 0) {
      i = skip - 1;
      continue;
    }
    if (c !== '\\') continue;
    re.lastIndex = i;
    const m = re.exec(draft);
    if (!m) {
      i++;
      continue;
    }
    const names =
      m[1] === 'bibliography'
        ? m[2]
            .split(',')
            .map((n) => n.trim())
            .filter(Boolean)
            .map((n) => (/\.bib$/i.test(n) ? n : `${n}.bib`))
        : [m[2].trim()];
    for (const n of names) {
      // biblatex's remote resources (`\addbibresource[location=remote]{http://…}`) are not files.
      if (/^[a-z]+:\/\//i.test(n)) continue;
      const abs = path.resolve(dir, n);
      if (!out.includes(abs)) out.push(abs);
    }
    i += m[0].length - 1;
  }
  return out;
}
