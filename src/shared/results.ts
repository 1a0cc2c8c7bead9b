/**
 * What an analysis gives for each segment: one card per source. The engine
 * produces these, the cache stores them, the CLI prints them and the webview
 * protocol carries them as they are (no field-by-field copies).
 */
import type { Band } from './bands';

/** A passage the user highlighted in Zotero: a card says "you highlighted this, p. 12". Untrusted text (Zotero's). */
export interface HighlightMark {
  /** The page as Zotero shows it (page label, else PDF page number). */
  page: string;
  /** The highlighted text. */
  text: string;
  /** The user's comment on the highlight. */
  comment?: string;
  /** Zotero's colour, a hex colour ("#ffd400"). */
  color?: string;
}

export interface PassageResult {
  page: number;
  pageLabel: string | null;
  /** The passage's last PDF page, when it runs over several (absent or equal to `page`: one page). */
  endPage?: number;
  heading: string | null;
  similarity: number;
  /** An excerpt around the matched words (the whole passage is in the index). Untrusted text. */
  preview: string;
  /** The passage's text comes from OCR (check the quotation against the page). */
  ocr?: true;
}

export interface Recommendation {
  sourceId: string;
  path: string;
  title: string;
  authors: string[];
  year: number | null;
  citekey: string | null;
  sourceType: 'primary' | 'secondary';
  page: number;
  pageLabel: string | null;
  /** The best passage's last PDF page, when it runs over several (citations say "pp. 214–216"). */
  endPage?: number;
  /** Calibrated 0–1 (core/analysis/similarity.ts); no card of a segment comes before one with a higher similarity. */
  similarity: number;
  /** The similarity in words (shared/bands.ts). */
  band: Band;
  reranked: boolean;
  alreadyCited: boolean;
  /**
   * Sections of the draft that cite this source outside the segment ("§ 2"),
   * set by the editor from the current text (the engine leaves it out).
   */
  citedIn?: string[];
  preview: string;
  /**
   * Words of the preview that carried the match, rarest in the library first:
   * the query's terms found there, without everyday words, nor words much
   * commoner in the library than the rarest match. Untrusted text.
   */
  highlights: string[];
  citation: string;
  passages: PassageResult[];
  /** Other sources whose near-identical passage was folded into this card. */
  duplicates: string[];
  /** The best passage's text comes from OCR of a scanned page (a card says "text from OCR"). */
  ocr?: true;
  /** The best passage's language, when it differs from the segment's (a French source for an English paragraph). */
  language?: 'en' | 'fr';
  /** The user highlighted the best passage in Zotero (absent when not). */
  highlight?: HighlightMark;
  /** From Zotero, each only when the item has it: its DOI, item type ("journalArticle") and tags. */
  doi?: string;
  itemType?: string;
  tags?: string[];
}

/** A source's Zotero fields, each only when it has one (a card or hit of a Better BibTeX library has none). */
export function zoteroMeta(r: { doi?: string; itemType?: string; tags?: string[] }): Pick<Recommendation, 'doi' | 'itemType' | 'tags'> {
  return { ...(r.doi ? { doi: r.doi } : {}), ...(r.itemType ? { itemType: r.itemType } : {}), ...(r.tags?.length ? { tags: [...r.tags] } : {}) };
}

export type SegmentStatus = 'analysed' | 'too-short';
