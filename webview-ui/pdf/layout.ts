/**
 * The PDF viewer's page geometry: zoom limits and steps, the fit-width zoom,
 * page and canvas sizes, and where to scroll. Pure numbers in, numbers out
 * (the DOM code reads offsets and writes styles): tested under mocha without a DOM.
 */

export const MIN_SCALE = 0.25;
export const MAX_SCALE = 5;
/** Space between pages, and around them, in CSS px (viewer.css uses the same). */
export const PAGE_GAP = 12;
/** Largest canvas drawn (4096²): past it the device pixel ratio is lowered so memory stays bounded. */
export const MAX_CANVAS_PIXELS = 16_777_216;
/** The zoom buttons and Ctrl +/− go from one of these to the next. */
export const ZOOM_STEPS: readonly number[] = [0.25, 0.33, 0.5, 0.67, 0.75, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5];
/** Narrowest width the fit-width zoom fits a page into, however narrow the view. */
const MIN_FIT_WIDTH = 120;
/** The current page is the one under this share of the view's height from its top. */
const CURRENT_PAGE_MARK = 0.3;

export function clampScale(scale: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
}

/** The zoom that fits a page of `pageWidth` (at scale 1) into a view `viewerWidth` wide, gaps and border left out. */
export function fitWidthScale(viewerWidth: number, pageWidth: number): number {
  const available = Math.max(MIN_FIT_WIDTH, viewerWidth - 2 * PAGE_GAP - 4);
  return clampScale(available / pageWidth);
}

/** The next zoom step up (1) or down (−1) from `scale`; past the last step, the limit. */
export function zoomStep(scale: number, direction: 1 | -1): number {
  const next = direction > 0 ? ZOOM_STEPS.find((s) => s > scale + 1e-3) : [...ZOOM_STEPS].reverse().find((s) => s < scale - 1e-3);
  return next ?? (direction > 0 ? MAX_SCALE : MIN_SCALE);
}

/** A page's user unit (PDF 1.6: the size of its unit in points); 1 when absent or not positive. */
export function userUnitOf(value: unknown): number {
  const u = (value as number | undefined) ?? 1;
  return u > 0 ? u : 1;
}

export interface PageBox {
  /** Size of the page's box and canvas, in whole CSS px. */
  width: number;
  height: number;
  /** What the text layer sizes itself by (`--total-scale-factor` × unscaled page points). */
  totalScaleFactor: number;
}

/** A page's box at `scale`, from its size at scale 1 (CSS px, points × user unit). */
export function pageBox(width: number, height: number, scale: number, userUnit: number): PageBox {
  return { width: Math.floor(width * scale), height: Math.floor(height * scale), totalScaleFactor: scale * userUnit };
}

export interface CanvasSize {
  /** Device pixels per CSS px the page is drawn at (the screen's, lowered for a huge page). */
  ratio: number;
  width: number;
  height: number;
}

/** The bitmap for a viewport of `width` × `height` CSS px on a screen of `devicePixelRatio`. */
export function canvasSize(width: number, height: number, devicePixelRatio: number): CanvasSize {
  let ratio = devicePixelRatio || 1;
  if (width * height * ratio * ratio > MAX_CANVAS_PIXELS) ratio = Math.sqrt(MAX_CANVAS_PIXELS / (width * height));
  return { ratio, width: Math.max(1, Math.floor(width * ratio)), height: Math.max(1, Math.floor(height * ratio)) };
}

/**
 * The current page (1-based) of `count` pages whose tops (`topOf(i)`, 0-based, increasing)
 * are known: the last that starts above the mark, 30% down the view. Reads log₂(count) tops.
 */
export function pageAt(count: number, topOf: (index: number) => number, scrollTop: number, viewerHeight: number): number {
  const mark = scrollTop + viewerHeight * CURRENT_PAGE_MARK;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (topOf(mid) <= mark) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Where to scroll to show a page: its top just below the gap (`start`), or centred in the view. */
export function scrollTopForPage(pageTop: number, pageHeight: number, viewerHeight: number, block: 'start' | 'center'): number {
  return block === 'start' ? pageTop - PAGE_GAP / 2 : pageTop - (viewerHeight - pageHeight) / 2;
}

/** How far down its page the view's top is, as a share of the page's height (kept across a zoom). */
export function shareDownPage(scrollTop: number, pageTop: number, pageHeight: number): number {
  return (scrollTop - pageTop) / Math.max(1, pageHeight);
}

/** Where to scroll to show a passage's first mark (`markTop` below its page's top) a third down the view. */
export function scrollTopForMark(pageTop: number, markTop: number, viewerHeight: number): number {
  return pageTop + markTop - viewerHeight / 3;
}
