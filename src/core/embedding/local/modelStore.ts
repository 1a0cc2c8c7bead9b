/**
 * Where local models live. The `localModel` setting is a Hugging Face repository id
 * ("Xenova/gte-small") or a folder. A repository is downloaded into a cache folder the caller
 * gives (extension: its global storage; CLI: ~/.cache/similar-sources/models), never into the
 * workspace; a folder is used as it is.
 */
import { existsSync, promises as fs, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { writeFileAtomic } from '../../util/atomicWrite';
import { readConfinedText } from '../../util/confinedFiles';
import { FP32_ONNX, type LocalModelOverrides, type LocalModelSpec, QUANTIZED_ONNX, resolveModelSpec } from './models';

/** Written last by a download: a folder without it is incomplete. */
export const COMPLETE_MARKER = '.similar-sources-complete.json';

export function defaultModelCacheDir(): string {
  return join(homedir(), '.cache', 'similar-sources', 'models');
}

const REPO_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

export type ModelLocation = { kind: 'folder'; dir: string; label: string } | { kind: 'repo'; repo: string; revision: string; dir: string; label: string };

/**
 * A folder when the value is a path that exists (or looks like one: absolute, ./, ~/), else a
 * repository id. `org/name` that also exists as a relative folder is taken as the folder.
 */
export function locateModel(model: string, cacheDir: string, spec: Pick<LocalModelSpec, 'revision'>, cwd = process.cwd()): ModelLocation {
  const value = model.trim();
  if (!value) throw new Error('no local model given: set a Hugging Face repository id (e.g. Xenova/multilingual-e5-small) or a folder');
  const expanded = value.startsWith('~/') ? join(homedir(), value.slice(2)) : value;
  const asPath = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
  const looksLikePath = isAbsolute(expanded) || /^\.{1,2}[\\/]/.test(value) || value.startsWith('~/') || !REPO_ID.test(value);
  if (looksLikePath || (existsSync(asPath) && statSync(asPath).isDirectory())) {
    return { kind: 'folder', dir: asPath, label: basename(asPath) };
  }
  return { kind: 'repo', repo: value, revision: spec.revision, dir: repoDir(cacheDir, value, spec.revision), label: value };
}

/** `<cache>/<org>/<name>/<revision>`; revision sanitised (a branch name may hold "/"). */
export function repoDir(cacheDir: string, repo: string, revision: string): string {
  const [org, name] = repo.split('/');
  return join(cacheDir, org, name, revision.replace(/[^\w.-]+/g, '_'));
}

/** Files a model needs, for the spec's weights file; optional ones may be missing on the Hub. */
export function modelFiles(spec: Pick<LocalModelSpec, 'onnxFile'>): { required: string[]; optional: string[] } {
  return { required: ['config.json', 'tokenizer.json', 'tokenizer_config.json', spec.onnxFile], optional: ['special_tokens_map.json'] };
}

/**
 * The weights file to load: the spec's, or, for a folder that only holds the other export
 * (fp32 `onnx/model.onnx` without the int8 one, or the reverse), that one, unless the user chose.
 */
export function pickOnnxFile(dir: string, spec: Pick<LocalModelSpec, 'onnxFile'>, explicit?: string): string {
  if (explicit || existsSync(join(dir, spec.onnxFile))) return explicit ?? spec.onnxFile;
  const other = spec.onnxFile === QUANTIZED_ONNX ? FP32_ONNX : spec.onnxFile === FP32_ONNX ? QUANTIZED_ONNX : undefined;
  return other && existsSync(join(dir, other)) ? other : spec.onnxFile;
}

export interface ModelStatus {
  location: ModelLocation;
  /** Every required file present (and, for a download, finished). */
  installed: boolean;
  missing: string[];
  bytes: number;
  /** The commit the Hub served, when downloaded. */
  commit?: string;
  /** The weights file that would be loaded. */
  onnxFile: string;
}

export async function modelStatus(model: string, cacheDir: string, overrides: LocalModelOverrides = {}): Promise<ModelStatus> {
  const spec = resolveModelSpec(model, overrides);
  const location = locateModel(model, cacheDir, spec);
  if (location.kind === 'folder') spec.onnxFile = pickOnnxFile(location.dir, spec, overrides.onnxFile);
  const { required } = modelFiles(spec);
  const missing: string[] = [];
  let bytes = 0;
  for (const f of required) {
    try {
      bytes += (await fs.stat(join(location.dir, f))).size;
    } catch {
      missing.push(f);
    }
  }
  let commit: string | undefined;
  if (location.kind === 'repo') {
    try {
      const marker = JSON.parse((await readConfinedText(join(location.dir, COMPLETE_MARKER), { kind: 'model', maxBytes: 1 << 20 })).text) as {
        commit?: string;
      };
      commit = marker.commit;
    } catch {
      if (!missing.length) missing.push(COMPLETE_MARKER);
    }
  }
  return { location, installed: missing.length === 0, missing, bytes, commit, onnxFile: spec.onnxFile };
}

export async function writeCompleteMarker(
  dir: string,
  info: { repo: string; revision: string; commit?: string; files: Record<string, { size: number; sha256?: string }> },
): Promise<void> {
  await writeFileAtomic(join(dir, COMPLETE_MARKER), JSON.stringify({ ...info, downloadedAt: new Date().toISOString() }, null, 2) + '\n');
}

/** Removes a downloaded model (never a user's folder). Returns whether anything was removed. */
export async function removeModel(model: string, cacheDir: string, overrides: LocalModelOverrides = {}): Promise<boolean> {
  const location = locateModel(model, cacheDir, resolveModelSpec(model, overrides));
  if (location.kind === 'folder') throw new Error(`${location.dir} is your own folder, not a downloaded model: delete it yourself if you mean to`);
  if (!existsSync(location.dir)) return false;
  await fs.rm(location.dir, { recursive: true, force: true });
  return true;
}
