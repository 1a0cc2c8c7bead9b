/**
 * Where Zotero keeps its data (zotero.sqlite and storage/): the `similarSources.zoteroDataDir`
 * setting when given, else the `extensions.zotero.dataDir` of the Zotero profile's prefs.js
 * (the profile named Default in profiles.ini, else the first), else ~/Zotero, Zotero's own
 * default on every platform. The prefs also give the linked-attachment base directory
 * (`extensions.zotero.baseAttachmentPath`) that `attachments:` paths are relative to.
 *
 * profiles.ini and prefs.js are read through confinedFiles (kind 'zotero-profile'): a FIFO or a
 * device in their place is refused at once, said in `warnings`, and Zotero's default is used.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileRefused, readConfinedText, statConfined, type FileRule } from '../util/confinedFiles';

export interface ZoteroLocation {
  dataDir: string;
  /** How it was found: the setting, the profile's prefs.js, or Zotero's default. */
  from: 'setting' | 'prefs' | 'default';
  /** The prefs.js read, when one was found. */
  prefsFile?: string;
  /** Base folder of linked files stored as `attachments:<relative path>`. */
  baseAttachmentPath?: string;
  /** True when dataDir holds a zotero.sqlite (or something in its place, which the reader then names). */
  exists: boolean;
  /** A profile file that is there but could not be read (a FIFO, too large), said once per lookup. */
  warnings?: string[];
}

export interface LocateOptions {
  /** The `similarSources.zoteroDataDir` setting (or the CLI's --zotero <dir>); empty: not set. */
  setting?: string;
  home?: string;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
}

/** The folder holding Zotero's profiles.ini on each platform. */
export function profilesRoot(home: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string {
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Zotero');
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'Zotero', 'Zotero');
  return path.join(home, '.zotero', 'zotero');
}

export async function locateZotero(opts: LocateOptions = {}): Promise<ZoteroLocation> {
  const home = opts.home ?? os.homedir();
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const warnings: string[] = [];
  const found = await findPrefsFile(profilesRoot(home, platform, env), warnings);
  const prefsFile = found?.file;
  const prefs = found ? await readPrefs(found, warnings) : new Map<string, unknown>();
  const base = prefs.get('extensions.zotero.baseAttachmentPath');
  const baseAttachmentPath = typeof base === 'string' && base ? base : undefined;
  const setting = opts.setting?.trim();
  let dataDir: string;
  let from: ZoteroLocation['from'];
  const pref = prefs.get('extensions.zotero.dataDir');
  // Zotero uses the pref only with useDataDir on (a custom folder); an older prefs.js may lack useDataDir.
  if (setting) {
    dataDir = path.resolve(setting === '~' ? home : /^~[\\/]/.test(setting) ? path.join(home, setting.slice(2)) : setting);
    from = 'setting';
  } else if (typeof pref === 'string' && pref && prefs.get('extensions.zotero.useDataDir') !== false) {
    dataDir = pref;
    from = 'prefs';
  } else {
    dataDir = path.join(home, 'Zotero');
    from = 'default';
  }
  // A stat, never an open: something other than a file there (a FIFO) is the reader's to refuse, by name.
  const exists = await fs.stat(path.join(dataDir, 'zotero.sqlite')).then(
    (s) => !s.isDirectory(),
    () => false,
  );
  return { dataDir, from, prefsFile, baseAttachmentPath, exists, ...(warnings.length ? { warnings } : {}) };
}

const PROFILE_RULE: FileRule = { kind: 'zotero-profile' };

/** A profile file's text; undefined when it is not there, or (said in `warnings`) cannot be read. */
async function readProfileFile(file: string, warnings: string[]): Promise<string | undefined> {
  try {
    return (await readConfinedText(file, PROFILE_RULE)).text;
  } catch (e) {
    if (!(e instanceof FileRefused)) throw e;
    if (e.code !== 'missing') warnings.push(`${e.message}; Zotero's profile was not read from it`);
    return undefined;
  }
}

/**
 * A prefs.js parsed, the last one kept with its size and modification time: the VS Code watch
 * looks Zotero up every 2 s, and a profile's prefs.js (hundreds of lines) rarely changes.
 */
let lastPrefs: { file: string; stamp: string; prefs: Map<string, unknown> } | undefined;

async function readPrefs({ file, stamp }: PrefsFile, warnings: string[]): Promise<Map<string, unknown>> {
  if (lastPrefs?.file === file && lastPrefs.stamp === stamp) return lastPrefs.prefs;
  const prefs = parsePrefs((await readProfileFile(file, warnings)) ?? '');
  lastPrefs = { file, stamp, prefs };
  return prefs;
}

/** A prefs.js found, with what tells its versions apart (size, modification time, inode). */
interface PrefsFile {
  file: string;
  stamp: string;
}

/** The default profile's prefs.js under `root` (profiles.ini's Default=1, else its first profile), if any. */
async function findPrefsFile(root: string, warnings: string[]): Promise<PrefsFile | undefined> {
  const ini = await readProfileFile(path.join(root, 'profiles.ini'), warnings);
  if (ini === undefined) return undefined;
  const profiles = parseProfilesIni(ini);
  const chosen = profiles.find((p) => p.isDefault) ?? profiles[0];
  if (!chosen) return undefined;
  const dir = chosen.isRelative ? path.join(root, ...chosen.path.split(/[\\/]/)) : chosen.path;
  const file = path.join(dir, 'prefs.js');
  try {
    const st = await statConfined(file, PROFILE_RULE);
    return { file, stamp: `${st.size}:${st.mtimeMs}:${st.ino}` };
  } catch (e) {
    if (!(e instanceof FileRefused)) throw e;
    if (e.code !== 'missing') warnings.push(`${e.message}; Zotero's profile was not read from it`);
    return undefined;
  }
}

export function parseProfilesIni(text: string): { path: string; isRelative: boolean; isDefault: boolean }[] {
  const out: { path: string; isRelative: boolean; isDefault: boolean }[] = [];
  let cur: Record<string, string> | undefined;
  const flush = () => {
    if (cur?.Path) out.push({ path: cur.Path, isRelative: cur.IsRelative !== '0', isDefault: cur.Default === '1' });
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      flush();
      cur = /^Profile\d+$/i.test(section[1]) ? {} : undefined;
    } else if (cur) {
      const eq = line.indexOf('=');
      if (eq > 0) cur[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
    }
  }
  flush();
  return out;
}

/** `user_pref("name", value);` lines of a prefs.js: strings (JavaScript-escaped), numbers, booleans. */
export function parsePrefs(text: string): Map<string, unknown> {
  const prefs = new Map<string, unknown>();
  const re = /^\s*user_pref\(\s*("(?:[^"\\]|\\.)*")\s*,\s*("(?:[^"\\]|\\.)*"|true|false|-?\d+(?:\.\d+)?)\s*\)\s*;/gm;
  for (const m of text.matchAll(re)) {
    try {
      prefs.set(JSON.parse(m[1]) as string, JSON.parse(m[2]));
    } catch {
      // A value JSON cannot read (a JavaScript-only escape such as \x41) is left out, not guessed.
    }
  }
  return prefs;
}
