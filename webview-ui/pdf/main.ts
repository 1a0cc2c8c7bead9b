/**
 * PDF viewer webview, on pdf.js (pdfjs-dist 5.4).
 *
 * On `open` it fetches the PDF from its webview URI, lays out every page,
 * renders the target page and its neighbours first (others when they scroll
 * into view), scrolls to the target page and highlights the passage with the
 * text layer. Posts `loaded` (with `highlighted`) or `error`.
 *
 * Webview constraints: the CSP has no 'unsafe-eval' and scripts only by nonce,
 * so pdf.js must never fall back to its "fake worker" (a dynamic import). The
 * worker file sits beside this bundle; when its URI is cross-origin (the case
 * in VS Code) it is fetched and started from a blob: URL (`worker-src blob:`).
 */
import {
  getDocument,
  GlobalWorkerOptions,
  TextLayer,
  type PDFDocumentProxy,
  type PDFPageProxy,
  type PageViewport,
  type RenderTask,
} from 'pdfjs-dist';
import type { PdfHostMessage, PdfWebviewMessage } from '../../src/shared/protocol';
import { PDF_STRING_KEYS, translate, type PdfStringKey, type UiStrings } from '../../src/shared/strings';
import { findPassage, HIGHLIGHT_WORDS, needleOf } from './passage';

interface VsCodeApi {
  postMessage(message: PdfWebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();

/** Folder of this bundle: the worker, cmaps and standard fonts lie beside it. */
const scriptSrc = (document.currentScript as HTMLScriptElement | null)?.src || document.baseURI;
const assetBase = new URL('.', scriptSrc);
const asset = (path: string) => new URL(path, assetBase).href;

const MIN_SCALE = 0.25;
const MAX_SCALE = 5;
const PAGE_GAP = 12;
const MAX_CANVAS_PIXELS = 16_777_216;

let strings: UiStrings = {};

function tr(key: PdfStringKey, vars?: Record<string, string | number>): string {
  return translate(PDF_STRING_KEYS, strings, key, vars);
}

function post(message: PdfWebviewMessage): void {
  vscode.postMessage(message);
}

// ---------------------------------------------------------------------------
// Worker

let workerReady: Promise<void> | undefined;

function setUpWorker(): Promise<void> {
  workerReady ??= (async () => {
    const url = asset('pdf.worker.min.mjs');
    GlobalWorkerOptions.workerSrc = url;
    let sameOrigin = false;
    try {
      sameOrigin = new URL(url).origin === location.origin && location.origin !== 'null';
    } catch {
      sameOrigin = false;
    }
    if (sameOrigin) return; // pdf.js starts it from workerSrc itself.
    try {
      // Chromium refuses cross-origin worker scripts synchronously.
      GlobalWorkerOptions.workerPort = new Worker(url, { type: 'module' });
      return;
    } catch {
      /* cross-origin: go through a blob: URL */
    }
    const response = await fetch(url);
    if (!response.ok) throw new Error(`pdf.js worker: HTTP ${response.status}`);
    const code = await response.text();
    const blobUrl = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
    GlobalWorkerOptions.workerPort = new Worker(blobUrl, { type: 'module' });
  })();
  return workerReady;
}

// ---------------------------------------------------------------------------
// DOM

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

const ui = (() => {
  const root = document.getElementById('root') ?? document.body.appendChild(el('div', { id: 'root' }));
  root.classList.add('pdf-root');
  const toolbar = el('div', { class: 'pdf-toolbar', role: 'toolbar', 'data-testid': 'pdf-toolbar' });
  const prev = el('button', { type: 'button', class: 'tb-btn', 'data-testid': 'pdf-prev' });
  const next = el('button', { type: 'button', class: 'tb-btn', 'data-testid': 'pdf-next' });
  prev.append(el('span', { 'aria-hidden': 'true', class: 'chevron chevron-up' }));
  next.append(el('span', { 'aria-hidden': 'true', class: 'chevron chevron-down' }));
  const pageLabel = el('label', { for: 'pdf-page-input', class: 'visually-hidden' });
  const pageInput = el('input', { id: 'pdf-page-input', type: 'number', min: '1', value: '1', class: 'page-input', 'data-testid': 'pdf-page-input', inputmode: 'numeric' });
  const total = el('span', { class: 'page-total', 'data-testid': 'pdf-page-total' });
  const sep1 = el('span', { class: 'tb-sep', 'aria-hidden': 'true' });
  const zoomOut = el('button', { type: 'button', class: 'tb-btn', 'data-testid': 'pdf-zoom-out' }, '\u2212');
  const zoomValue = el('span', { class: 'zoom-value', 'data-testid': 'pdf-zoom', 'aria-live': 'off' });
  const zoomIn = el('button', { type: 'button', class: 'tb-btn', 'data-testid': 'pdf-zoom-in' }, '+');
  const fit = el('button', { type: 'button', class: 'tb-btn tb-text', 'data-testid': 'pdf-fit-width', 'aria-pressed': 'true' });
  const name = el('span', { class: 'doc-name', 'data-testid': 'pdf-name' });
  toolbar.append(prev, next, pageLabel, pageInput, total, sep1, zoomOut, zoomValue, zoomIn, fit, name);
  const status = el('div', { class: 'pdf-status', role: 'status', 'aria-live': 'polite', 'data-testid': 'pdf-status' });
  const viewer = el('div', { class: 'pdf-viewer', tabindex: '0', 'data-testid': 'pdf-viewer' });
  const pages = el('div', { class: 'pdf-pages' });
  viewer.append(pages);
  root.replaceChildren(toolbar, status, viewer);
  return { root, toolbar, prev, next, pageLabel, pageInput, total, zoomOut, zoomValue, zoomIn, fit, name, status, viewer, pages };
})();

function applyStrings(): void {
  ui.toolbar.setAttribute('aria-label', tr('pdf.toolbar'));
  for (const [button, key] of [
    [ui.prev, 'pdf.previous'],
    [ui.next, 'pdf.next'],
    [ui.zoomIn, 'pdf.zoomIn'],
    [ui.zoomOut, 'pdf.zoomOut'],
  ] as const) {
    button.setAttribute('aria-label', tr(key));
    button.title = tr(key);
  }
  ui.fit.textContent = tr('pdf.fitWidth');
  ui.fit.title = tr('pdf.fitWidth');
  ui.pageLabel.textContent = tr('pdf.page');
  ui.zoomValue.title = tr('pdf.zoom');
}

function setStatus(text: string, kind: 'info' | 'error' | 'ok' = 'info'): void {
  ui.status.textContent = text;
  ui.status.dataset.kind = kind;
  ui.status.hidden = text === '';
}

// ---------------------------------------------------------------------------
// Document state

interface Slot {
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
  rendering?: Promise<void>;
  task?: RenderTask;
  textLayer?: TextLayer;
  textScale: number;
  visible: boolean;
}

interface Highlight {
  page: number;
  /** Item index → [start, end) code-unit offsets in that item's string. */
  ranges: Map<number, [number, number]>;
  applied: boolean;
  scrolled: boolean;
}

interface Doc {
  url: string;
  pdf: PDFDocumentProxy;
  slots: Slot[];
  generation: number;
}

let doc: Doc | undefined;
let openSeq = 0;
let scale = 1;
let fitWidth = true;
let currentPage = 1;
let highlight: Highlight | undefined;
let observer: IntersectionObserver | undefined;

function layoutSlot(slot: Slot): void {
  const w = Math.floor(slot.width * scale);
  const h = Math.floor(slot.height * scale);
  slot.el.style.width = `${w}px`;
  slot.el.style.height = `${h}px`;
  // The text layer sizes itself as var(--total-scale-factor) × unscaled page points.
  slot.el.style.setProperty('--total-scale-factor', String(scale * userUnitOf(slot)));
  slot.el.style.setProperty('--scale-factor', String(scale));
  slot.canvas.style.width = `${w}px`;
  slot.canvas.style.height = `${h}px`;
}

function userUnitOf(slot: Slot): number {
  const u = (slot.page?.userUnit as number | undefined) ?? 1;
  return u > 0 ? u : 1;
}

function fitScale(): number {
  if (!doc) return 1;
  const ref = doc.slots[currentPage - 1] ?? doc.slots[0]!;
  const available = Math.max(120, ui.viewer.clientWidth - 2 * PAGE_GAP - 4);
  return clampScale(available / ref.width);
}

function clampScale(s: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));
}

function showZoom(): void {
  ui.zoomValue.textContent = doc ? `${Math.round(scale * 100)}%` : '';
  ui.fit.setAttribute('aria-pressed', String(fitWidth));
  ui.zoomOut.disabled = !doc || scale <= MIN_SCALE + 1e-6;
  ui.zoomIn.disabled = !doc || scale >= MAX_SCALE - 1e-6;
}

function showPage(): void {
  const n = doc?.slots.length ?? 0;
  if (document.activeElement !== ui.pageInput) ui.pageInput.value = doc ? String(currentPage) : '';
  ui.pageInput.max = String(Math.max(1, n));
  ui.total.textContent = n ? tr('pdf.of', { total: n }) : '';
  ui.prev.disabled = !doc || currentPage <= 1;
  ui.next.disabled = !doc || currentPage >= n;
  ui.pageInput.disabled = !doc;
  ui.fit.disabled = !doc;
}

/** Changes the zoom and keeps the same point of the current page at the top. */
function setScale(next: number, keepFit = false): void {
  if (!doc) return;
  next = clampScale(next);
  fitWidth = keepFit;
  if (Math.abs(next - scale) < 1e-4) {
    showZoom();
    return;
  }
  const slot = doc.slots[currentPage - 1]!;
  const offsetInPage = (ui.viewer.scrollTop - slot.el.offsetTop) / Math.max(1, slot.el.offsetHeight);
  scale = next;
  doc.generation++;
  for (const s of doc.slots) {
    s.task?.cancel();
    layoutSlot(s);
  }
  ui.viewer.scrollTop = slot.el.offsetTop + offsetInPage * slot.el.offsetHeight;
  showZoom();
  schedule();
}

function scrollToPage(num: number, block: 'start' | 'center' = 'start'): void {
  if (!doc) return;
  const n = Math.min(doc.slots.length, Math.max(1, Math.round(num)));
  const slot = doc.slots[n - 1]!;
  currentPage = n;
  ui.viewer.scrollTop = block === 'start' ? slot.el.offsetTop - PAGE_GAP / 2 : slot.el.offsetTop - (ui.viewer.clientHeight - slot.el.offsetHeight) / 2;
  showPage();
  schedule();
}

function updateCurrentPage(): void {
  if (!doc) return;
  const mark = ui.viewer.scrollTop + ui.viewer.clientHeight * 0.3;
  let lo = 0;
  let hi = doc.slots.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (doc.slots[mid]!.el.offsetTop <= mark) lo = mid;
    else hi = mid - 1;
  }
  if (currentPage !== lo + 1) {
    currentPage = lo + 1;
    showPage();
  }
}

// ---------------------------------------------------------------------------
// Rendering

let pumping = false;

/** Renders what needs it, nearest to the current page first, one page at a time. */
function schedule(): void {
  if (pumping) return;
  pumping = true;
  queueMicrotask(pump);
}

async function pump(): Promise<void> {
  try {
    for (;;) {
      const d = doc;
      if (!d) return;
      const stale = d.slots.filter((s) => (s.visible || Math.abs(s.num - currentPage) <= 1) && s.renderedScale !== scale);
      if (stale.length === 0) return;
      stale.sort((a, b) => Math.abs(a.num - currentPage) - Math.abs(b.num - currentPage));
      await renderSlot(d, stale[0]!);
    }
  } finally {
    pumping = false;
  }
}

async function renderSlot(d: Doc, slot: Slot): Promise<void> {
  const generation = d.generation;
  const wanted = scale;
  try {
    const page = (slot.page ??= await d.pdf.getPage(slot.num));
    if (!slot.exact) {
      const vp = page.getViewport({ scale: 1 });
      slot.width = vp.width;
      slot.height = vp.height;
      slot.exact = true;
    }
    if (slot.el.style.getPropertyValue('--total-scale-factor') !== String(wanted * userUnitOf(slot))) {
      layoutSlot(slot);
    }
    if (doc !== d || d.generation !== generation) return;
    const viewport = page.getViewport({ scale: wanted });
    let ratio = window.devicePixelRatio || 1;
    const area = viewport.width * viewport.height * ratio * ratio;
    if (area > MAX_CANVAS_PIXELS) ratio = Math.sqrt(MAX_CANVAS_PIXELS / (viewport.width * viewport.height));
    // Draw into a fresh canvas and swap it in, so the old bitmap stays visible meanwhile.
    const canvas = el('canvas', { 'aria-hidden': 'true' });
    canvas.width = Math.max(1, Math.floor(viewport.width * ratio));
    canvas.height = Math.max(1, Math.floor(viewport.height * ratio));
    const context = canvas.getContext('2d', { alpha: false });
    if (!context) throw new Error('canvas 2d context unavailable');
    const task = page.render({
      canvas,
      canvasContext: context,
      viewport,
      transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : undefined,
    });
    slot.task = task;
    await task.promise;
    slot.task = undefined;
    if (doc !== d || d.generation !== generation) return;
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
    if (highlight && highlight.page === slot.num && !highlight.applied) applyHighlight(slot, highlight);
  } catch (error) {
    slot.task = undefined;
    if ((error as Error)?.name === 'RenderingCancelledException') return;
    if (doc === d) {
      // Leave the page blank rather than failing the document.
      slot.renderedScale = wanted;
      console.warn(`page ${slot.num}:`, error);
    }
  }
}

// ---------------------------------------------------------------------------
// Passage search and highlight

async function searchPages(d: Doc, target: number, text: string): Promise<Highlight | undefined> {
  if (!needleOf(text, HIGHLIGHT_WORDS)) return undefined;
  const candidates = [target, target + 1, target - 1].filter((n) => n >= 1 && n <= d.slots.length);
  for (const num of candidates) {
    const slot = d.slots[num - 1]!;
    const page = (slot.page ??= await d.pdf.getPage(num));
    const content = await page.getTextContent();
    // Same items, same order as the text layer's spans (marked-content items have no `str`).
    const items = content.items.filter((it): it is typeof it & { str: string } => typeof (it as { str?: unknown }).str === 'string').map((it) => it.str);
    const ranges = findPassage(items, text);
    if (ranges && ranges.size) return { page: num, ranges, applied: false, scrolled: false };
  }
  return undefined;
}

function clearHighlight(d: Doc | undefined): void {
  if (!d) return;
  for (const slot of d.slots) {
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

function applyHighlight(slot: Slot, h: Highlight): void {
  const layer = slot.textLayer;
  if (!layer) return;
  const divs = layer.textDivs;
  const strs = layer.textContentItemsStr;
  let first: HTMLElement | undefined;
  const indices = [...h.ranges.keys()].sort((a, b) => a - b);
  indices.forEach((i, n) => {
    const div = divs[i];
    const str = strs[i];
    const range = h.ranges.get(i);
    if (!div || str === undefined || !range) return;
    const [start, end] = range;
    const mark = el('span', { class: 'highlight' }, str.slice(start, end));
    if (indices.length > 1) mark.classList.add(n === 0 ? 'begin' : n === indices.length - 1 ? 'end' : 'middle');
    div.replaceChildren(str.slice(0, start), mark, str.slice(end));
    first ??= mark;
  });
  h.applied = true;
  if (first && !h.scrolled) {
    h.scrolled = true;
    const target = first;
    const slotTop = slot.el.offsetTop;
    const markTop = target.getBoundingClientRect().top - slot.el.getBoundingClientRect().top;
    ui.viewer.scrollTop = slotTop + markTop - ui.viewer.clientHeight / 3;
    updateCurrentPage();
    schedule();
  }
}

// ---------------------------------------------------------------------------
// Opening

function buildSlots(count: number, width: number, height: number): Slot[] {
  observer?.disconnect();
  observer = new IntersectionObserver(
    (entries) => {
      if (!doc) return;
      for (const entry of entries) {
        const num = Number((entry.target as HTMLElement).dataset.pageNumber);
        const slot = doc.slots[num - 1];
        if (slot) slot.visible = entry.isIntersecting;
      }
      schedule();
    },
    { root: ui.viewer, rootMargin: '50% 0px' },
  );
  const slots: Slot[] = [];
  const frag = document.createDocumentFragment();
  for (let num = 1; num <= count; num++) {
    const pageEl = el('div', { class: 'page', 'data-page-number': String(num), role: 'region', 'aria-label': tr('pdf.pageLabel', { page: num }), 'data-testid': 'pdf-page' });
    const canvas = el('canvas', { 'aria-hidden': 'true' });
    const textDiv = el('div', { class: 'textLayer' });
    pageEl.append(canvas, textDiv);
    frag.append(pageEl);
    const slot: Slot = { num, el: pageEl, canvas, textDiv, width, height, exact: false, renderedScale: 0, textScale: 0, visible: false };
    slots.push(slot);
  }
  ui.pages.replaceChildren(frag);
  for (const s of slots) observer.observe(s.el);
  return slots;
}

async function fetchPdf(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  return new Uint8Array(await response.arrayBuffer());
}

function describe(error: unknown): string {
  const e = error as { name?: string; message?: string } | undefined;
  if (e?.name === 'PasswordException') return 'the PDF is password-protected';
  if (e?.name === 'InvalidPDFException') return e.message || 'invalid or corrupted PDF';
  return (e && e.message) || String(error);
}

async function open(message: PdfHostMessage): Promise<void> {
  const seq = ++openSeq;
  strings = message.strings ?? {};
  applyStrings();
  ui.name.textContent = message.name;
  ui.name.title = message.name;
  document.title = message.name;
  const target = Math.max(1, Math.round(Number(message.page) || 1));

  try {
    if (!doc || doc.url !== message.url) {
      setStatus(tr('pdf.loading', { name: message.name }));
      ui.root.classList.add('loading');
      const old = doc;
      doc = undefined;
      highlight = undefined;
      observer?.disconnect();
      ui.pages.replaceChildren();
      showPage();
      showZoom();
      if (old) void old.pdf.destroy();
      await setUpWorker();
      const data = await fetchPdf(message.url);
      if (seq !== openSeq) return;
      const pdf = await getDocument({
        data,
        cMapUrl: asset('cmaps/'),
        cMapPacked: true,
        standardFontDataUrl: asset('standard_fonts/'),
        wasmUrl: asset('wasm/'),
        iccUrl: asset('iccs/'),
        // Fetch those from the page, whose requests the webview resource loader serves.
        useWorkerFetch: false,
        isEvalSupported: false,
        enableXfa: false,
      }).promise;
      if (seq !== openSeq) {
        void pdf.destroy();
        return;
      }
      const first = await pdf.getPage(Math.min(target, pdf.numPages));
      const vp = first.getViewport({ scale: 1 });
      const d: Doc = { url: message.url, pdf, slots: [], generation: 0 };
      d.slots = buildSlots(pdf.numPages, vp.width, vp.height);
      d.slots[first.pageNumber - 1]!.page = first;
      doc = d;
      currentPage = Math.min(target, pdf.numPages);
      // Exact sizes for every page (cheap) so that scroll positions are right.
      if (pdf.numPages <= 400) {
        await Promise.all(
          d.slots.map(async (slot) => {
            const page = (slot.page ??= await pdf.getPage(slot.num));
            const v = page.getViewport({ scale: 1 });
            slot.width = v.width;
            slot.height = v.height;
            slot.exact = true;
          }),
        );
        if (seq !== openSeq) return;
      }
      // Each new document opens at the width of the view.
      fitWidth = true;
      scale = fitScale();
      for (const s of d.slots) layoutSlot(s);
      ui.root.classList.remove('loading');
    } else {
      clearHighlight(doc);
    }

    const d = doc!;
    const page = Math.min(target, d.slots.length);
    highlight = undefined;
    scrollToPage(page);
    showZoom();
    setStatus('');

    const found = message.highlight ? await searchPages(d, page, message.highlight) : undefined;
    if (seq !== openSeq) return;
    highlight = found;
    if (found) {
      const slot = d.slots[found.page - 1]!;
      if (found.page !== page) scrollToPage(found.page);
      if (slot.textLayer && slot.renderedScale) applyHighlight(slot, found);
      else await waitFor(() => found.applied || seq !== openSeq || doc !== d, 10_000);
    } else {
      await waitFor(() => d.slots[page - 1]!.renderedScale > 0 || seq !== openSeq || doc !== d, 10_000);
    }
    if (seq !== openSeq) return;
    const highlighted = !!found?.applied;
    if (message.highlight) {
      setStatus(highlighted ? tr('pdf.highlighted', { page: found!.page }) : tr('pdf.notFound', { page }), highlighted ? 'ok' : 'info');
      window.setTimeout(() => seq === openSeq && setStatus(''), highlighted ? 4000 : 8000);
    }
    post({ type: 'loaded', pages: d.slots.length, page: found?.page ?? page, highlighted });
  } catch (error) {
    if (seq !== openSeq) return;
    ui.root.classList.remove('loading');
    const text = describe(error);
    doc = undefined;
    observer?.disconnect();
    ui.pages.replaceChildren(el('div', { class: 'pdf-error', role: 'alert', 'data-testid': 'pdf-error' }, tr('pdf.error', { message: text })));
    setStatus('');
    post({ type: 'error', message: text });
    showPage();
    showZoom();
  }
}

function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const started = performance.now();
    const tick = () => {
      if (done() || performance.now() - started > timeoutMs) resolve();
      else window.setTimeout(tick, 30);
    };
    tick();
  });
}

// ---------------------------------------------------------------------------
// Events

const ZOOM_STEPS = [0.25, 0.33, 0.5, 0.67, 0.75, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5];

function zoomBy(direction: 1 | -1): void {
  const next = direction > 0 ? ZOOM_STEPS.find((s) => s > scale + 1e-3) : [...ZOOM_STEPS].reverse().find((s) => s < scale - 1e-3);
  setScale(next ?? (direction > 0 ? MAX_SCALE : MIN_SCALE));
}

ui.prev.addEventListener('click', () => scrollToPage(currentPage - 1));
ui.next.addEventListener('click', () => scrollToPage(currentPage + 1));
ui.zoomIn.addEventListener('click', () => zoomBy(1));
ui.zoomOut.addEventListener('click', () => zoomBy(-1));
ui.fit.addEventListener('click', () => {
  fitWidth = true;
  setScale(fitScale(), true);
});
ui.pageInput.addEventListener('change', () => {
  const n = Number(ui.pageInput.value);
  if (Number.isFinite(n)) scrollToPage(n);
});
ui.pageInput.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    const n = Number(ui.pageInput.value);
    if (Number.isFinite(n)) scrollToPage(n);
  }
});

let scrollFrame = 0;
ui.viewer.addEventListener('scroll', () => {
  if (scrollFrame) return;
  scrollFrame = requestAnimationFrame(() => {
    scrollFrame = 0;
    updateCurrentPage();
  });
});

document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement) return;
  if ((e.ctrlKey || e.metaKey) && (e.key === '=' || e.key === '+')) {
    e.preventDefault();
    zoomBy(1);
  } else if ((e.ctrlKey || e.metaKey) && e.key === '-') {
    e.preventDefault();
    zoomBy(-1);
  } else if (!e.ctrlKey && !e.metaKey && !e.altKey && (e.key === 'n' || e.key === 'j')) {
    scrollToPage(currentPage + 1);
  } else if (!e.ctrlKey && !e.metaKey && !e.altKey && (e.key === 'p' || e.key === 'k')) {
    scrollToPage(currentPage - 1);
  }
});

let resizeTimer = 0;
new ResizeObserver(() => {
  window.clearTimeout(resizeTimer);
  resizeTimer = window.setTimeout(() => {
    if (doc && fitWidth) setScale(fitScale(), true);
  }, 100);
}).observe(ui.viewer);

window.addEventListener('message', (event: MessageEvent<PdfHostMessage>) => {
  const message = event.data;
  if (message && message.type === 'open' && typeof message.url === 'string') void open(message);
});

applyStrings();
setStatus(tr('pdf.waiting'));
showPage();
showZoom();
post({ type: 'ready' });
