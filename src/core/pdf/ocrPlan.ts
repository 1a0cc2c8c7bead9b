/**
 * What OCR does with a file's pages (issue 22), and the texts that come of it. Pages without a
 * layer, or whose characters do not decode, are recognised. Doubtful layers (RawPdf.ocrDoubtful)
 * are recognised only when OCR of one sample page proves that page's layer wrong: then all
 * doubtful pages are, else all keep their layers. Each page so read is then judged on its own
 * reading (a file's math page can be right where its body font's map is off): OCR's text
 * replaces only a layer it proves wrong. The indexer (library/pdfSource.ts) and the citation
 * checker, which reads the OCR cache alone, apply the same rule through pagesWithOcr.
 */
import type { RawPdf } from './extract';
import { agreementWithOcr } from './textQuality';

/** Pages OCR reads before it knows more: the candidates and, where layers are in doubt, one sample. */
export function firstOcrPages(raw: RawPdf): number[] {
  return [...(raw.ocrCandidates ?? []), ...(raw.ocrSample ? [raw.ocrSample] : [])];
}

/** The page's own text layer, set aside or not. */
export function layerOf(raw: RawPdf, page: number): string {
  return raw.setAside?.[page] ?? raw.pages[page - 1] ?? '';
}

/**
 * Whether OCR's reading of a doubtful page proves its layer wrong. The burden of proof is on the
 * rule that raised the doubt: a layer the word rule found garbage (set aside) is replaced unless
 * OCR proves it right (code and tables read alike both ways); a layer the rules keep (a scan's
 * with few function words) is replaced only when OCR proves it wrong (agreementWithOcr).
 */
function layerVerdict(raw: RawPdf, page: number, text: string): { wrong: boolean; agreement: number; words: number; garbageByRule: boolean } {
  const garbageByRule = raw.setAside?.[page] !== undefined;
  const a = agreementWithOcr(layerOf(raw, page), text);
  return { wrong: a.wrong || (garbageByRule && !a.right), agreement: a.agreement, words: a.words, garbageByRule };
}

/**
 * Whether OCR of the sample proves the doubtful layers wrong (layerVerdict on the sample page),
 * and so whether the file's other doubtful pages are worth reading. Not read (no sample,
 * recognition failed): every layer stays.
 */
export function sampleVerdict(
  raw: RawPdf,
  read: (page: number) => string | undefined,
): { wrong: boolean; agreement: number; words: number; garbageByRule: boolean } {
  const page = raw.ocrSample;
  const text = page ? read(page) : undefined;
  if (!page || text === undefined) return { wrong: false, agreement: NaN, words: 0, garbageByRule: page !== undefined && raw.setAside?.[page] !== undefined };
  return layerVerdict(raw, page, text);
}

/**
 * Every page's text given what OCR read (`read`: a page's OCR text, '' when it found nothing,
 * undefined when it has not read the page): OCR's text where it read some, the page's layer
 * otherwise. Doubtful pages are read only when the sample's verdict (`wrong`, when the caller
 * has it) says so, and each keeps its own layer unless its own reading proves that layer wrong.
 * `ocr`: the pages whose text is OCR's.
 */
export function pagesWithOcr(
  raw: RawPdf,
  read: (page: number) => string | undefined,
  wrong = sampleVerdict(raw, read).wrong,
): { texts: string[]; ocr: Set<number> } {
  const texts = [...raw.pages];
  const ocr = new Set<number>();
  // OCR's text where it is taken and read something, the page's own layer otherwise.
  const use = (n: number, t: string | undefined) => {
    if (t) {
      texts[n - 1] = t;
      ocr.add(n);
    } else texts[n - 1] = layerOf(raw, n);
  };
  for (const n of raw.ocrCandidates ?? []) use(n, read(n));
  for (const n of raw.ocrDoubtful ?? []) {
    const t = wrong ? read(n) : undefined;
    use(n, t && layerVerdict(raw, n, t).wrong ? t : undefined);
  }
  return { texts, ocr };
}
