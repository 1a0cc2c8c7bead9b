/**
 * Finds the PDFs of the library: recursive walk of each library folder,
 * include/exclude globs (relative to that folder), and the primary/secondary
 * source type from configured folders or globs.
 * Links: a link to a file is followed when the file lies inside a library
 * folder; links to folders, and links leading outside the library folders,
 * are not followed (no loops, nothing read from elsewhere), each with a warning.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import type { SourceType } from '../index/source';

export interface LibraryConfig {
  folders: string[];
  include?: string[];
  exclude?: string[];
  /** Folders (absolute, or relative to `baseDir`) or globs whose PDFs are primary sources. */
  primary?: string[];
  /** Resolves relative folders; the workspace folder. */
  baseDir?: string;
}

export interface DiscoveredFile {
  path: string;
  root: string;
  rel: string;
  size: number;
  mtimeMs: number;
  sourceType: SourceType;
}

const DEFAULT_INCLUDE = ['**/*.pdf'];
const ALWAYS_EXCLUDE = ['**/.similar-sources/**', '**/node_modules/**', '**/.git/**', '**/.Trash*/**'];
const GLOB_CHARS = /[*?[\]{}!]/;

export async function discoverPdfs(cfg: LibraryConfig): Promise<{ files: DiscoveredFile[]; warnings: string[] }> {
  const baseDir = cfg.baseDir ?? process.cwd();
  const include = picomatch(cfg.include?.length ? cfg.include : DEFAULT_INCLUDE, { nocase: true, dot: false });
  const exclude = picomatch([...ALWAYS_EXCLUDE, ...(cfg.exclude ?? [])], { nocase: true, dot: true });
  const isPrimary = primaryMatcher(cfg.primary ?? [], baseDir);
  const warnings: string[] = [];
  const files = new Map<string, DiscoveredFile>();

  const realRoots: string[] = [];
  for (const folder of cfg.folders) {
    const real = await fs.realpath(path.resolve(baseDir, folder)).catch(() => undefined);
    if (real) realRoots.push(real);
  }
  for (const folder of cfg.folders) {
    const root = path.resolve(baseDir, folder);
    const stat = await fs.stat(root).catch(() => undefined);
    if (!stat?.isDirectory()) {
      warnings.push(`library folder not found: ${root}`);
      continue;
    }
    const stack = [root];
    while (stack.length) {
      const dir = stack.pop()!;
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (err) {
        warnings.push(`cannot read folder ${dir}: ${(err as Error).message}`);
        continue;
      }
      for (const e of entries) {
        const abs = path.join(dir, e.name);
        const rel = path.relative(root, abs).split(path.sep).join('/');
        if (e.isDirectory()) {
          if (!exclude(rel + '/x') && !e.name.startsWith('.')) stack.push(abs);
          continue;
        }
        if (e.isSymbolicLink() && !include(rel)) {
          // Links to folders are never followed (no loops, no leaving the library); say so when one is skipped.
          const st = await fs.stat(abs).catch(() => undefined);
          if (st?.isDirectory() && !exclude(rel + '/x') && !e.name.startsWith('.')) warnings.push(`link not followed: ${abs} is a link to a folder`);
          continue;
        }
        if (!e.isFile() && !e.isSymbolicLink()) continue;
        if (!include(rel) || exclude(rel)) continue;
        let st;
        try {
          st = await fs.stat(abs);
        } catch (err) {
          // Node decodes a name that is not UTF-8 with U+FFFD, a name no file has.
          if (e.name.includes('\uFFFD')) warnings.push(`cannot read ${abs}: its file name is not valid UTF-8; rename the file`);
          else if (e.isSymbolicLink()) warnings.push(`link not followed: ${abs} points to nothing (${(err as NodeJS.ErrnoException).code})`);
          else warnings.push(`cannot read ${abs}: ${(err as Error).message}`);
          continue;
        }
        if (!st.isFile()) {
          if (e.isSymbolicLink() && st.isDirectory()) warnings.push(`link not followed: ${abs} is a link to a folder`);
          continue;
        }
        if (e.isSymbolicLink()) {
          // The library is what lies under its folders: a link to a file elsewhere is not read.
          const real = await fs.realpath(abs).catch(() => undefined);
          if (!real || !(await insideAny(real, realRoots))) {
            warnings.push(`link not followed: ${abs} points outside the library folders (${real ?? 'unresolvable'})`);
            continue;
          }
        }
        if (files.has(abs)) continue; // overlapping library folders
        files.set(abs, {
          path: abs,
          root,
          rel,
          size: st.size,
          mtimeMs: Math.floor(st.mtimeMs),
          sourceType: isPrimary(abs, rel) ? 'primary' : 'secondary',
        });
      }
    }
  }
  const sorted = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: sorted, warnings };
}

async function insideAny(real: string, roots: string[]): Promise<boolean> {
  return roots.some((r) => real === r || real.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
}

function primaryMatcher(entries: string[], baseDir: string): (abs: string, rel: string) => boolean {
  const globs = entries.filter((e) => GLOB_CHARS.test(e));
  const folders = entries.filter((e) => !GLOB_CHARS.test(e)).map((f) => path.resolve(baseDir, f) + path.sep);
  const glob = globs.length ? picomatch(globs, { nocase: true, dot: true }) : () => false;
  return (abs, rel) => folders.some((f) => abs.startsWith(f)) || glob(rel) || glob(abs.split(path.sep).join('/'));
}
