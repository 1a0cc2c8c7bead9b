/**
 * The PDF viewer's pages (DOM and pdf.js): one slot per page laid out at the
 * current zoom, drawn lazily (the current page and its neighbours first, then
 * those that scroll into view, one at a time), with pdf.js's text layer on
 * top, where the passage is marked. The numbers come from layout.ts, the
 * choices from viewerState.ts, the passage's place from passage.ts and highlight.ts.
 */
import { TextLayer, type PDFDocumentProxy, type PDFPageProxy, type RenderTask } from 'pdfjs-dist';
import { el } from './dom';
import { itemStrings, markedSpans, pagesToSearch } from './highlight';
import { canvasSize, fitWidthScale, pageAt, pageBox, scrollTopForMark, scrollTopForPage, shareDownPage, userUnitOf } from './layout';
import { findPassage, HIGHLIGHT_WORDS, needleOf } from './passage';
import { nextToRender, type Highlight, type ViewerState } from './viewerState';

/** Up to this many pages, every page's exact size is read on opening (cheap), so that scroll positions are right. */
const MEASURED_PAGES = 400;

export interface Slot {
  num: number;
  el: HTMLDivElement;
  canvas: HTMLCanvasElement;
  textDiv: HTMLDivElement;
  /** Size at scale 1, in CSS px (points × user unit). */
  width: number;
  height: number;
  exact: boolean;
  page?: PDFPageProxy;
  renderedScale: number;
  task?: RenderTask;
  textLayer?: TextLayer;
  textScale: number;
  visible: boolean;
}

export interface Doc {
  url: string;
  pdf: PDFDocumentProxy;
  slots: Slot[];
  /** Bumped at each zoom: a drawing begun before it is dropped. */
  generation: number;
}

export class PageList {
  doc: Doc | undefined;
  private observer: IntersectionObserver | undefined;
  private pumping = false;

  constructor(
    private readonly state: ViewerState,
    private readonly viewer: HTMLElement,
    private readonly container: HTMLElement,
    /** The current page changed (the toolbar shows it). */
    private readonly onPageChange: () => void,
  ) {}

  /** Shows a new document: a slot per page, sized like `first` until each page is measured. */
  load(url: string, pdf: PDFDocumentProxy, first: PDFPageProxy): Doc {
    const vp = first.getViewport({ scale: 1 });
    const d: Doc = { url, pdf, slots: this.buildSlots(pdf.numPages, vp.width, vp.height), generation: 0 };
    d.slots[first.pageNumber - 1]!.page = first;
    this.doc = d;
    return d;
  }

  /** Reads every page's exact size (a short document only). */
  async measure(d: Doc): Promise<void> {
    if (d.pdf.numPages > MEASURED_PAGES) return;
    await Promise.all(
      d.slots.map(async (slot) => {
        const page = (slot.page ??= await d.pdf.getPage(slot.num));
        const v = page.getViewport({ scale: 1 });
        slot.width = v.width;
        slot.height = v.height;
        slot.exact = true;
      }),
    );
  }

  /** Removes the pages (showing `content` instead, if any); gives the document that was shown. */
  unload(content?: Node): Doc | undefined {
    const old = this.doc;
    this.doc = undefined;
    this.observer?.disconnect();
    this.container.replaceChildren(...(content ? [content] : []));
    return old;
  }

  /** The zoom that fits the current page into the view's width. */
  fitScale(): number {
    if (!this.doc) return 1;
    const ref = this.doc.slots[this.state.page - 1] ?? this.doc.slots[0]!;
    return fitWidthScale(this.viewer.clientWidth, ref.width);
  }

  layoutAll(): void {
    for (const s of this.doc?.slots ?? []) this.layoutSlot(s);
  }

  /** After a zoom (`state.scale` changed): lays the pages out again, keeping the same point of the current page at the top. */
  relayout(): void {
    const d = this.doc;
    if (!d) return;
    const slot = d.slots[this.state.page - 1]!;
    const share = shareDownPage(this.viewer.scrollTop, slot.el.offsetTop, slot.el.offsetHeight);
    d.generation++;
    for (const s of d.slots) {
      s.task?.cancel();
      this.layoutSlot(s);
    }
    this.viewer.scrollTop = slot.el.offsetTop + share * slot.el.offsetHeight;
    this.schedule();
  }

  scrollToPage(num: number, block: 'start' | 'center' = 'start'): void {
    const d = this.doc;
    if (!d) return;
    const n = this.state.goTo(num);
    if (n === undefined) return;
    const slot = d.slots[n - 1]!;
    this.viewer.scrollTop = scrollTopForPage(slot.el.offsetTop, slot.el.offsetHeight, this.viewer.clientHeight, block);
    this.onPageChange();
    this.schedule();
  }

  /** The view scrolled: the current page is the one 30% down the view. */
  updateCurrentPage(): void {
    const d = this.doc;
    if (!d) return;
    const n = pageAt(d.slots.length, (i) => d.slots[i]!.el.offsetTop, this.viewer.scrollTop, this.viewer.clientHeight);
    if (this.state.scrolledTo(n)) this.onPageChange();
  }

  /** Renders what needs it, nearest to the current page first, one page at a time. */
  schedule(): void {
    if (this.pumping) return;
    this.pumping = true;
    queueMicrotask(() => void this.pump());
  }

  /** The passage on the page asked for, or the next, or the previous; undefined when on none. */
  async searchPages(d: Doc, target: number, text: string): Promise<Highlight | undefined> {
    if (!needleOf(text, HIGHLIGHT_WORDS)) return undefined;
    for (const num of pagesToSearch(target, d.slots.length)) {
      const slot = d.slots[num - 1]!;
      const page = (slot.page ??= await d.pdf.getPage(num));
      const content = await page.getTextContent();
      const ranges = findPassage(itemStrings(content.items), text);
      if (ranges && ranges.size) return { page: num, ranges, applied: false, scrolled: false };
    }
    return undefined;
  }

  /** Puts back the text of every span an earlier passage marked. */
  clearHighlight(): void {
    for (const slot of this.doc?.slots ?? []) {
      const layer = slot.textLayer;
      if (!layer) continue;
      const divs = layer.textDivs;
      const strs = layer.textContentItemsStr;
      for (const div of Array.from(slot.textDiv.querySelectorAll('.highlight'))) {
        const span = div.parentElement;
        if (!span) continue;
        const i = divs.indexOf(span);
        span.textContent = i >= 0 ? strs[i]! : span.textContent;
      }
    }
  }

  /** Marks the passage in the page's text layer; the first time, scrolls it a third down the view. */
  applyHighlight(slot: Slot, h: Highlight): void {
    const layer = slot.textLayer;
    if (!layer) return;
    let first: HTMLElement | undefined;
    for (const piece of markedSpans(layer.textContentItemsStr, h.ranges)) {
      const div = layer.textDivs[piece.index];
      if (!div) continue;
      const mark = el('span', { class: 'highlight' }, piece.marked);
      if (piece.position) mark.classList.add(piece.position);
      div.replaceChildren(piece.before, mark, piece.after);
      first ??= mark;
    }
    if (this.state.highlightApplied(h, !!first) && first) {
      const markTop = first.getBoundingClientRect().top - slot.el.getBoundingClientRect().top;
      this.viewer.scrollTop = scrollTopForMark(slot.el.offsetTop, markTop, this.viewer.clientHeight);
      this.updateCurrentPage();
      this.schedule();
    }
  }

  private buildSlots(count: number, width: number, height: number): Slot[] {
    this.observer?.disconnect();
    const observer = new IntersectionObserver(
      (entries) => {
        if (!this.doc) return;
        for (const entry of entries) {
          const num = Number((entry.target as HTMLElement).dataset.pageNumber);
          const slot = this.doc.slots[num - 1];
          if (slot) slot.visible = entry.isIntersecting;
        }
        this.schedule();
      },
      { root: this.viewer, rootMargin: '50% 0px' },
    );
    this.observer = observer;
    const slots: Slot[] = [];
    const frag = document.createDocumentFragment();
    for (let num = 1; num <= count; num++) {
      const pageEl = el('div', {
        class: 'page',
        'data-page-number': String(num),
        role: 'region',
        'aria-label': this.state.tr('pdf.pageLabel', { page: num }),
        'data-testid': 'pdf-page',
      });
      const canvas = el('canvas', { 'aria-hidden': 'true' });
      const textDiv = el('div', { class: 'textLayer' });
      pageEl.append(canvas, textDiv);
      frag.append(pageEl);
      slots.push({ num, el: pageEl, canvas, textDiv, width, height, exact: false, renderedScale: 0, textScale: 0, visible: false });
    }
    this.container.replaceChildren(frag);
    for (const s of slots) observer.observe(s.el);
    return slots;
  }

  private layoutSlot(slot: Slot): void {
    const scale = this.state.scale;
    const box = pageBox(slot.width, slot.height, scale, userUnitOf(slot.page?.userUnit));
    slot.el.style.width = `${box.width}px`;
    slot.el.style.height = `${box.height}px`;
    // The text layer sizes itself as var(--total-scale-factor) × unscaled page points.
    slot.el.style.setProperty('--total-scale-factor', String(box.totalScaleFactor));
    slot.el.style.setProperty('--scale-factor', String(scale));
    slot.canvas.style.width = `${box.width}px`;
    slot.canvas.style.height = `${box.height}px`;
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const d = this.doc;
        if (!d) return;
        const next = nextToRender(d.slots, this.state.page, this.state.scale);
        if (!next) return;
        await this.renderSlot(d, next);
      }
    } finally {
      this.pumping = false;
    }
  }

  private async renderSlot(d: Doc, slot: Slot): Promise<void> {
    const generation = d.generation;
    const wanted = this.state.scale;
    try {
      const page = (slot.page ??= await d.pdf.getPage(slot.num));
      if (!slot.exact) {
        const vp = page.getViewport({ scale: 1 });
        slot.width = vp.width;
        slot.height = vp.height;
        slot.exact = true;
      }
      if (slot.el.style.getPropertyValue('--total-scale-factor') !== String(wanted * userUnitOf(slot.page?.userUnit))) {
        this.layoutSlot(slot);
      }
      if (this.doc !== d || d.generation !== generation) return;
      const viewport = page.getViewport({ scale: wanted });
      const size = canvasSize(viewport.width, viewport.height, window.devicePixelRatio);
      // Draw into a fresh canvas and swap it in, so the old bitmap stays visible meanwhile.
      const canvas = el('canvas', { 'aria-hidden': 'true' });
      canvas.width = size.width;
      canvas.height = size.height;
      const context = canvas.getContext('2d', { alpha: false });
      if (!context) throw new Error('canvas 2d context unavailable');
      const task = page.render({
        canvas,
        canvasContext: context,
        viewport,
        transform: size.ratio !== 1 ? [size.ratio, 0, 0, size.ratio, 0, 0] : undefined,
      });
      slot.task = task;
      await task.promise;
      slot.task = undefined;
      if (this.doc !== d || d.generation !== generation) return;
      canvas.style.width = slot.canvas.style.width;
      canvas.style.height = slot.canvas.style.height;
      slot.canvas.replaceWith(canvas);
      slot.canvas = canvas;
      slot.renderedScale = wanted;
      slot.el.classList.add('rendered');

      if (!slot.textLayer) {
        const layer = new TextLayer({ textContentSource: page.streamTextContent(), container: slot.textDiv, viewport });
        slot.textLayer = layer;
        await layer.render();
        slot.textScale = wanted;
      } else if (slot.textScale !== wanted) {
        slot.textLayer.update({ viewport });
        slot.textScale = wanted;
      }
      const h = this.state.highlight;
      if (h && this.state.awaitsHighlight(slot.num)) this.applyHighlight(slot, h);
    } catch (error) {
      slot.task = undefined;
      if ((error as Error)?.name === 'RenderingCancelledException') return;
      if (this.doc === d) {
        // Leave the page blank rather than failing the document.
        slot.renderedScale = wanted;
        console.warn(`page ${slot.num}:`, error);
      }
    }
  }
}
