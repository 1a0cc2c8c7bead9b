/**
 * The PDF viewer's state and its transitions: which `open` is current, the
 * zoom and whether it follows the view's width, the current page, the
 * passage's highlight, and what the toolbar shows for all that. Pure (the DOM
 * code holds the pdf.js document and the page elements): tested under mocha.
 */
import { PDF_STRING_KEYS, translate, type PdfStringKey, type UiStrings } from '../../src/shared/strings';
import type { PassageRanges } from './highlight';
import { clampScale, MAX_SCALE, MIN_SCALE, zoomStep } from './layout';

/** The passage found on a page, and how far showing it has gone. */
export interface Highlight {
  page: number;
  ranges: PassageRanges;
  /** Marked in the page's text layer (which exists once the page is drawn). */
  applied: boolean;
  /** Scrolled to once: later redraws (zoom) leave the scroll position alone. */
  scrolled: boolean;
}

/** What the toolbar shows. */
export interface ToolbarView {
  zoom: string;
  fitPressed: boolean;
  zoomOutDisabled: boolean;
  zoomInDisabled: boolean;
  page: string;
  pageMax: number;
  total: string;
  prevDisabled: boolean;
  nextDisabled: boolean;
  /** The page input and the fit-width button: nothing to act on without a document. */
  noDocument: boolean;
}

export class ViewerState {
  /** The UI strings of the last `open` (English until then). */
  strings: UiStrings = {};
  scale = 1;
  /** The zoom follows the view's width (on a resize too) until the user zooms. */
  fitWidth = true;
  /** 1-based; meaningful while a document is shown. */
  page = 1;
  /** Pages of the document shown; 0 while none is (not opened yet, loading, failed). */
  pageCount = 0;
  highlight: Highlight | undefined;
  private openSeq = 0;

  tr(key: PdfStringKey, vars?: Record<string, string | number>): string {
    return translate(PDF_STRING_KEYS, this.strings, key, vars);
  }

  /** An `open` message arrives: its number, which later steps compare with `isCurrent` (a newer open wins). */
  beginOpen(strings: UiStrings | undefined): number {
    this.strings = strings ?? {};
    return ++this.openSeq;
  }

  isCurrent(seq: number): boolean {
    return seq === this.openSeq;
  }

  /** No document is shown any more (another is loading, or it failed). */
  unload(): void {
    this.pageCount = 0;
    this.highlight = undefined;
  }

  /** A document of `pageCount` pages is shown, at the page asked for (its last when past it). */
  load(pageCount: number, target: number): void {
    this.pageCount = pageCount;
    this.page = Math.min(target, pageCount);
  }

  /** Each new document opens at the width of the view. */
  openAtWidth(scale: number): void {
    this.fitWidth = true;
    this.scale = scale;
  }

  /**
   * Zooms to `next` (clamped); `fit` says whether that is the fit-width zoom. True when the
   * scale changed, so that the pages must be laid out and drawn again.
   */
  zoomTo(next: number, fit = false): boolean {
    if (!this.pageCount) return false;
    next = clampScale(next);
    this.fitWidth = fit;
    if (Math.abs(next - this.scale) < 1e-4) return false;
    this.scale = next;
    return true;
  }

  /** One zoom step in (1) or out (−1). */
  zoomBy(direction: 1 | -1): boolean {
    return this.zoomTo(zoomStep(this.scale, direction));
  }

  /** Goes to page `num` (rounded, kept within the document): the page, or undefined without a document. */
  goTo(num: number): number | undefined {
    if (!this.pageCount) return undefined;
    this.page = Math.min(this.pageCount, Math.max(1, Math.round(num)));
    return this.page;
  }

  /** The view scrolled onto page `num`: true when that changes the current page. */
  scrolledTo(num: number): boolean {
    if (!this.pageCount || num === this.page) return false;
    this.page = num;
    return true;
  }

  /** The passage is still to be marked on page `num` (drawn just now). */
  awaitsHighlight(num: number): boolean {
    return !!this.highlight && this.highlight.page === num && !this.highlight.applied;
  }

  /** `h` was marked (`marked`: at least one span): true the first time, when the view should scroll to it. */
  highlightApplied(h: Highlight, marked: boolean): boolean {
    h.applied = true;
    if (!marked || h.scrolled) return false;
    h.scrolled = true;
    return true;
  }

  toolbar(): ToolbarView {
    const n = this.pageCount;
    return {
      zoom: n ? `${Math.round(this.scale * 100)}%` : '',
      fitPressed: this.fitWidth,
      zoomOutDisabled: !n || this.scale <= MIN_SCALE + 1e-6,
      zoomInDisabled: !n || this.scale >= MAX_SCALE - 1e-6,
      page: n ? String(this.page) : '',
      pageMax: Math.max(1, n),
      total: n ? this.tr('pdf.of', { total: n }) : '',
      prevDisabled: !n || this.page <= 1,
      nextDisabled: !n || this.page >= n,
      noDocument: !n,
    };
  }
}

/** The page an `open` message asks for: a whole number from 1, else 1. */
export function targetPage(page: unknown): number {
  return Math.max(1, Math.round(Number(page) || 1));
}

/** What a page needs to know for `nextToRender`. */
export interface RenderablePage {
  num: number;
  /** In or near the view (an IntersectionObserver says). */
  visible: boolean;
  /** The scale it was last drawn at; 0 when never. */
  renderedScale: number;
}

/**
 * The page to draw next: of those in view or next to the current page and not drawn at the
 * current scale, the nearest to the current page (the earlier of two as near). Undefined: all done.
 */
export function nextToRender<P extends RenderablePage>(pages: readonly P[], current: number, scale: number): P | undefined {
  let best: P | undefined;
  for (const p of pages) {
    if (!(p.visible || Math.abs(p.num - current) <= 1) || p.renderedScale === scale) continue;
    if (!best || Math.abs(p.num - current) < Math.abs(best.num - current)) best = p;
  }
  return best;
}

/** What the status line says once a passage was looked for. */
export interface HighlightStatus {
  text: string;
  kind: 'ok' | 'info';
  /** It goes away after this long (a miss stays longer: it is worth reading). */
  clearAfterMs: number;
}

/** The status after looking for the passage: where it was marked, or that it was not found on `page`. */
export function highlightStatus(state: ViewerState, found: Highlight | undefined, page: number): HighlightStatus {
  return found?.applied
    ? { text: state.tr('pdf.highlighted', { page: found.page }), kind: 'ok', clearAfterMs: 4000 }
    : { text: state.tr('pdf.notFound', { page }), kind: 'info', clearAfterMs: 8000 };
}

/** An error of opening a PDF, in words for the user. */
export function describeOpenError(error: unknown): string {
  const e = error as { name?: string; message?: string } | undefined;
  if (e?.name === 'PasswordException') return 'the PDF is password-protected';
  if (e?.name === 'InvalidPDFException') return e.message || 'invalid or corrupted PDF';
  return (e && e.message) || String(error);
}

/** What a key pressed outside the page input does. */
export type KeyCommand = 'zoomIn' | 'zoomOut' | 'nextPage' | 'previousPage';

/** Ctrl/Cmd + and − zoom; n or j goes to the next page, p or k to the previous one (without modifiers). */
export function keyCommand(e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }): KeyCommand | undefined {
  const mod = e.ctrlKey || e.metaKey;
  if (mod && (e.key === '=' || e.key === '+')) return 'zoomIn';
  if (mod && e.key === '-') return 'zoomOut';
  if (mod || e.altKey) return undefined;
  if (e.key === 'n' || e.key === 'j') return 'nextPage';
  if (e.key === 'p' || e.key === 'k') return 'previousPage';
  return undefined;
}
