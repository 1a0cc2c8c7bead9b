/**
 * Recognised text cached by the PDF's content hash (and the OCR languages),
 * under <index>/ocr/: re-indexing, moving or renaming the file, or rebuilding
 * the index never recognises a page twice. Written after every page
 * (atomically), so a cancelled or crashed run resumes with the pages it had.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../util/atomicWrite';
import { readConfinedText } from '../util/confinedFiles';

export interface CachedPage {
  /** Recognised text ('' when the page had no image to recognise). */
  text: string;
  confidence?: number;
  how?: 'embedded' | 'rendered';
  note?: string;
}

interface CacheFile {
  format: 1;
  languages: string;
  pages: Record<string, CachedPage>;
}

export class OcrCache {
  private pages: Record<string, CachedPage> = {};
  private readonly file: string;

  private constructor(
    dir: string,
    hash: string,
    private readonly languages: string,
  ) {
    this.file = path.join(dir, 'ocr', `${hash.slice(0, 32)}.${languages.replace(/[^A-Za-z0-9_+]/g, '_')}.json`);
  }

  static async open(indexDir: string, hash: string, languages: string[]): Promise<OcrCache> {
    const c = new OcrCache(indexDir, hash, languages.join('+'));
    try {
      const data = JSON.parse((await readConfinedText(c.file, { kind: 'index' })).text) as CacheFile;
      if (data.format === 1 && data.languages === c.languages && data.pages && typeof data.pages === 'object') c.pages = data.pages;
    } catch {
      // none yet, or unreadable: recognised again (and rewritten)
    }
    return c;
  }

  get(page: number): CachedPage | undefined {
    return this.pages[String(page)];
  }

  /** Records a page and saves the file; saves are serialised so a later one never loses an earlier page. */
  put(page: number, value: CachedPage): Promise<void> {
    this.pages[String(page)] = value;
    this.saving = this.saving
      .catch(() => undefined)
      .then(async () => {
        await fs.mkdir(path.dirname(this.file), { recursive: true });
        const data: CacheFile = { format: 1, languages: this.languages, pages: this.pages };
        await writeFileAtomic(this.file, JSON.stringify(data));
      });
    return this.saving;
  }

  private saving: Promise<void> = Promise.resolve();
}
