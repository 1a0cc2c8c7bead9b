/**
 * Where a workspace's library is, from its settings: the one function both the
 * CLI and the extension resolve it through (folders, `~`, include/exclude,
 * primary sources, bibliography), so both index the same files.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { latexBibliographies } from '../core/latex/project';
import { draftFrontMatter } from '../core/markdown/pandoc';
import { isLatexPath } from '../shared/draftLanguages';
import type { Settings } from '../shared/settings';

export interface LibrarySpec {
  /** The workspace folder: the index lives in its `.similar-sources/`. */
  workspace: string;
  /** Absolute folders searched (recursively) for PDFs. */
  folders: string[];
  /** False when no folder is configured and the workspace itself is searched. */
  fromSettings: boolean;
  /** Globs relative to each library folder. */
  include: string[];
  exclude: string[];
  /** Folders (absolute, or relative to the workspace) or globs of primary sources. */
  primary: string[];
  /** Absolute path of the Better BibTeX export, if any. */
  bibliography?: string;
  /**
   * Zotero's library, which joins the folders (its PDF attachments are indexed with its metadata);
   * undefined when `similarSources.zotero` is off. `dataDir`: the folder set (else found from
   * Zotero's profile, else ~/Zotero); `home`: where the profile is looked for.
   */
  zotero?: { dataDir?: string; home: string };
  /** OCR of pages without a usable text layer: mode, Tesseract languages ("eng+fra"), a folder of extra .traineddata. */
  ocr: { mode: 'auto' | 'off'; languages: string; languageDir?: string };
}

export type LibrarySettings = Pick<
  Settings,
  'libraryFolders' | 'primarySourceFolders' | 'bibliographyFile' | 'include' | 'exclude' | 'ocr' | 'ocrLanguages' | 'ocrLanguageFolder'
> &
  Partial<Pick<Settings, 'zotero' | 'zoteroDataDir'>>;

export function resolveLibrary(workspace: string, s: LibrarySettings, home = os.homedir()): LibrarySpec {
  const root = path.resolve(workspace);
  const abs = (p: string) => path.resolve(root, expandHome(p, home));
  const folders = s.libraryFolders.filter((f) => f.trim()).map(abs);
  return {
    workspace: root,
    folders: folders.length ? folders : [root],
    fromSettings: folders.length > 0,
    include: [...s.include],
    exclude: [...s.exclude],
    primary: s.primarySourceFolders.filter((f) => f.trim()).map((p) => expandHome(p, home)),
    bibliography: s.bibliographyFile.trim() ? abs(s.bibliographyFile.trim()) : undefined,
    zotero: (s.zotero ?? 'auto') === 'off' ? undefined : { dataDir: s.zoteroDataDir?.trim() ? abs(s.zoteroDataDir.trim()) : undefined, home },
    ocr: { mode: s.ocr, languages: s.ocrLanguages.trim() || 'eng+fra', languageDir: s.ocrLanguageFolder.trim() ? abs(s.ocrLanguageFolder.trim()) : undefined },
  };
}

/** `~` and `~/x` (or `~\x`) name the user's home folder, as in a shell. */
export function expandHome(p: string, home = os.homedir()): string {
  if (p === '~') return home;
  return /^~[\\/]/.test(p) ? path.join(home, p.slice(2)) : p;
}

/**
 * The bibliography a draft uses: the settings' (`bibliographyFile`) when they name one, else the
 * first file the draft names, resolved against its folder: a Quarto or R Markdown draft's front
 * matter `bibliography:` (as Quarto and Pandoc do), a LaTeX draft's (`.tex`) `\addbibresource{}` or
 * `\bibliography{}`; undefined when none is named. draftBibliographies gives all of a LaTeX draft's.
 * A file the draft names (when the settings name none) is read only inside the workspace
 * (`loadBibliography`'s `draftWorkspace`): a draft may not reach outside it (issue 35).
 */
export function draftBibliography(library: Pick<LibrarySpec, 'bibliography'>, draft: string, draftPath: string): string | undefined {
  return draftBibliographies(library, draft, draftPath)[0];
}

/** Every bibliography file of the draft, by draftBibliography's rules (a LaTeX draft may name several). */
export function draftBibliographies(library: Pick<LibrarySpec, 'bibliography'>, draft: string, draftPath: string): string[] {
  if (library.bibliography) return [library.bibliography];
  if (isLatexPath(draftPath)) return latexBibliographies(draft, draftPath);
  const named = draftFrontMatter(draft).bibliography[0];
  return named ? [path.resolve(path.dirname(path.resolve(draftPath)), named)] : [];
}
