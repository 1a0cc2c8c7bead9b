/**
 * Where tesseract.js finds its worker script, its WebAssembly core and the
 * trained data, offline. From the esbuild bundle they sit in dist/ocr/ (copied
 * by scripts/build.mjs); from sources, in node_modules. Nothing is downloaded:
 * a language whose .traineddata is not found is a clear error.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sha256 } from '../util/hash';
import { readConfinedSync, statConfinedSync } from '../util/confinedFiles';

export const OCR_DIST_DIR = 'ocr';
export const OCR_WORKER_FILE = 'tesseract-worker.js';
/** The trained data shipped with the product (npm packages @tesseract.js-data/eng and /fra). */
export const BUNDLED_LANGUAGES = ['eng', 'fra'];

export class OcrSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OcrSetupError';
  }
}

/** dist/ocr when running from the bundle, else undefined. */
export function bundledOcrDir(): string | undefined {
  const here = typeof __dirname === 'string' ? __dirname : '';
  const dir = here && join(here, OCR_DIST_DIR);
  return dir && existsSync(join(dir, OCR_WORKER_FILE)) ? dir : undefined;
}

/** The tesseract.js worker script (tesseractWorker.cjs): bundled in dist/ocr/, or the source file. */
export function ocrWorkerPath(): string {
  const dir = bundledOcrDir();
  if (dir) return join(dir, OCR_WORKER_FILE);
  const here = typeof __dirname === 'string' ? __dirname : '';
  const source = join(here, 'tesseractWorker.cjs');
  if (!here || !existsSync(source)) throw new OcrSetupError('the OCR worker script is missing (dist/ocr/tesseract-worker.js); rebuild with npm run build');
  return source;
}

/** "eng+fra" / ["eng", "fra"] → ["eng", "fra"], checked: tesseract codes are letters, digits and underscores. */
export function parseLanguages(spec: string | string[] | undefined): string[] {
  const list = (Array.isArray(spec) ? spec : (spec ?? 'eng+fra').split(/[+,\s]+/)).map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) throw new OcrSetupError('no OCR language given (e.g. eng+fra)');
  for (const l of list) if (!/^[A-Za-z0-9_]+$/.test(l)) throw new OcrSetupError(`"${l}" is not a Tesseract language code (e.g. eng, fra, deu, lat)`);
  return [...new Set(list)];
}

function candidates(lang: string, extraDir: string | undefined): string[] {
  const out: string[] = [];
  if (extraDir) out.push(join(extraDir, `${lang}.traineddata`), join(extraDir, `${lang}.traineddata.gz`));
  const bundled = bundledOcrDir();
  if (bundled) out.push(join(bundled, 'tessdata', `${lang}.traineddata.gz`));
  try {
    // LSTM-only "best_int" models: what tesseract.js itself uses for OEM LSTM_ONLY (small and fast).
    const pkg = dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
    out.push(join(pkg, '4.0.0_best_int', `${lang}.traineddata.gz`));
  } catch {
    // not installed: only the bundle or the extra folder can provide it
  }
  return out;
}

/**
 * A folder holding `<lang>.traineddata.gz` for every language (tesseract.js reads
 * all languages from one folder, and checks the gzip magic itself, so an
 * uncompressed file under that name loads too). When the files live in several
 * places, links to them are gathered in a folder under the system's temp dir.
 */
export function languageFolder(langs: string[], extraDir?: string): string {
  const found = langs.map((lang) => {
    // A regular file: a FIFO or a device under a language's name would hold tesseract's worker.
    const file = candidates(lang, extraDir).find((f) => {
      try {
        return statConfinedSync(f, { kind: 'ocr-language' }).size >= 0;
      } catch {
        return false;
      }
    });
    if (!file) {
      throw new OcrSetupError(
        `no trained data for OCR language "${lang}"` +
          (extraDir
            ? ` (looked in ${extraDir} and the bundled languages ${BUNDLED_LANGUAGES.join(', ')})`
            : ` (bundled: ${BUNDLED_LANGUAGES.join(', ')}; put ${lang}.traineddata in the OCR languages folder)`),
      );
    }
    return { lang, file };
  });
  const dirs = new Set(found.map((f) => dirname(f.file)));
  if (dirs.size === 1 && found.every((f) => f.file.endsWith(`${f.lang}.traineddata.gz`))) return [...dirs][0];
  const key = sha256(found.map((f) => `${f.lang}=${f.file}`).join('\n')).slice(0, 16);
  const dir = join(tmpdir(), `similar-sources-tessdata-${key}`);
  mkdirSync(dir, { recursive: true });
  const present = new Set(readdirSync(dir));
  for (const { lang, file } of found) {
    const name = `${lang}.traineddata.gz`;
    if (present.has(name)) continue;
    try {
      symlinkSync(file, join(dir, name));
    } catch (err) {
      // Another process made it first: it names the same file (the folder is keyed by the paths).
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      // No symlinks here: a copy, under a temporary name then renamed, so nothing half-written is read.
      const tmp = join(dir, `${name}.${process.pid}.tmp`);
      writeFileSync(tmp, readConfinedSync(file, { kind: 'ocr-language' }).bytes);
      renameSync(tmp, join(dir, name));
    }
  }
  return dir;
}
