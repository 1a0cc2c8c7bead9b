/**
 * A source's bibliographic metadata: the Better BibTeX entry when one matches the
 * PDF, else the PDF Info dictionary, else the first page, else the file name.
 * The title is never blank.
 */
import * as path from 'node:path';
import type { CleanPage } from '../pdf/cleanPages';
import { pdfDateYear, type RawPdf } from '../pdf/extract';
import type { SourceMetadata } from '../index/source';
import { zoteroMeta } from '../../shared/results';

export interface BibMatch {
  citekey: string;
  title?: string;
  authors: string[];
  year?: number;
  collections: string[];
  /** From Zotero (core/zotero/library.ts); a Better BibTeX export gives none. */
  doi?: string;
  itemType?: string;
  tags?: string[];
}

/** Producer junk that PDF writers put in the Title field. */
const JUNK_TITLE = /^(untitled|document\d*|microsoft word\b.*|.*\.(docx?|pdf|tex|dvi|indd|qxd)|title|no title|sans titre|\d+)$/i;

export function resolveMetadata(file: string, raw: RawPdf | undefined, pages: CleanPage[] | undefined, bib?: BibMatch): SourceMetadata {
  const infoTitle = cleanTitle(raw?.info.title);
  const usableInfoTitle = infoTitle && !JUNK_TITLE.test(infoTitle) ? infoTitle : undefined;
  const infoAuthors = splitAuthors(raw?.info.author);
  const infoYear = pdfDateYear(raw?.info.creationDate);

  if (bib) {
    return {
      title: cleanTitle(bib.title) || usableInfoTitle || firstPageTitle(pages) || fileTitle(file),
      authors: bib.authors.length ? bib.authors : infoAuthors,
      year: bib.year ?? infoYear,
      citekey: bib.citekey,
      collections: bib.collections,
      ...zoteroMeta(bib),
      titleFrom: bib.title ? 'bibliography' : usableInfoTitle ? 'pdf-info' : 'first-page',
    };
  }
  const fromPage = usableInfoTitle ? undefined : firstPageTitle(pages);
  return {
    title: usableInfoTitle || fromPage || fileTitle(file),
    authors: infoAuthors,
    year: infoYear,
    collections: [],
    titleFrom: usableInfoTitle ? 'pdf-info' : fromPage ? 'first-page' : 'file-name',
  };
}

function cleanTitle(t: string | undefined): string | undefined {
  const s = t?.replace(/\s+/g, ' ').trim();
  return s ? s : undefined;
}

function splitAuthors(a: string | undefined): string[] {
  if (!a) return [];
  return a
    .split(/\s*(?:;|\band\b|\bet\b|&)\s*/)
    .map((s) => s.trim())
    .filter((s) => s.length > 1);
}

/** The first heading of page 1, else its first short line of text. */
function firstPageTitle(pages: CleanPage[] | undefined): string | undefined {
  const first = pages?.find((p) => p.blocks.length > 0);
  if (!first) return undefined;
  const heading = first.blocks.find((b) => b.kind === 'heading');
  if (heading && heading.text.length >= 4) return heading.text;
  const text = first.blocks[0].text;
  const sentence = text.split(/(?<=[.!?])\s/)[0];
  const words = sentence.split(/\s+/).slice(0, 14).join(' ');
  return words.length >= 4 ? words.replace(/[.:;,]$/, '') + (sentence.split(/\s+/).length > 14 ? '…' : '') : undefined;
}

export function fileTitle(file: string): string {
  const base = path.basename(file).replace(/\.pdf$/i, '');
  const t = base.replace(/[_]+/g, ' ').replace(/\s+/g, ' ').trim();
  return t || path.basename(file) || 'Untitled PDF';
}
