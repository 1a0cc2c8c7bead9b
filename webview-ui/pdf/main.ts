/**
 * PDF viewer webview, on pdf.js (pdfjs-dist 5.4): its entry, the thin DOM code that wires the parts.
 *
 * On `open` it fetches the PDF from its webview URI, lays out every page,
 * renders the target page and its neighbours first (others when they scroll
 * into view), scrolls to the target page and highlights the passage with the
 * text layer. Posts `loaded` (with `highlighted`) or `error`.
 *
 * The parts: viewerState.ts (the state and its transitions), layout.ts (page
 * geometry), passage.ts + highlight.ts (where the passage lies, how spans are
 * marked): pure and unit-tested; toolbar.ts (the frame), pages.ts (pages,
 * drawing, the text layer), worker.ts (pdf.js's worker under the webview's CSP).
 */
import { getDocument } from 'pdfjs-dist';
import type { PdfHostMessage, PdfWebviewMessage } from '../../src/shared/protocol';
import { el } from './dom';
import { PageList } from './pages';
import { applyStrings, buildUi, setStatus, showPage, showZoom } from './toolbar';
import { describeOpenError, highlightStatus, keyCommand, targetPage, ViewerState } from './viewerState';
import { workerStarter } from './worker';

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

const state = new ViewerState();
const ui = buildUi();
const pages = new PageList(state, ui.viewer, ui.pages, () => showPage(ui, state.toolbar()));
const startWorker = workerStarter(asset('pdf.worker.min.mjs'));

function post(message: PdfWebviewMessage): void {
  vscode.postMessage(message);
}

function showToolbar(): void {
  const view = state.toolbar();
  showPage(ui, view);
  showZoom(ui, view);
}

/** After a zoom transition: lays the pages out again when the scale changed, and shows the zoom. */
function zoomed(changed: boolean): void {
  if (changed) pages.relayout();
  showZoom(ui, state.toolbar());
}

async function fetchPdf(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  return new Uint8Array(await response.arrayBuffer());
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

async function open(message: PdfHostMessage): Promise<void> {
  const seq = state.beginOpen(message.strings);
  applyStrings(ui, (key) => state.tr(key));
  ui.name.textContent = message.name;
  ui.name.title = message.name;
  document.title = message.name;
  const target = targetPage(message.page);

  try {
    if (!pages.doc || pages.doc.url !== message.url) {
      setStatus(ui, state.tr('pdf.loading', { name: message.name }));
      ui.root.classList.add('loading');
      const old = pages.unload();
      state.unload();
      showToolbar();
      if (old) void old.pdf.destroy();
      await startWorker();
      const data = await fetchPdf(message.url);
      if (!state.isCurrent(seq)) return;
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
      if (!state.isCurrent(seq)) {
        void pdf.destroy();
        return;
      }
      const first = await pdf.getPage(Math.min(target, pdf.numPages));
      const loaded = pages.load(message.url, pdf, first);
      state.load(pdf.numPages, target);
      await pages.measure(loaded);
      if (!state.isCurrent(seq)) return;
      state.openAtWidth(pages.fitScale());
      pages.layoutAll();
      ui.root.classList.remove('loading');
    } else {
      pages.clearHighlight();
    }

    const d = pages.doc!;
    const page = Math.min(target, d.slots.length);
    state.highlight = undefined;
    pages.scrollToPage(page);
    showZoom(ui, state.toolbar());
    setStatus(ui, '');

    const found = message.highlight ? await pages.searchPages(d, page, message.highlight) : undefined;
    if (!state.isCurrent(seq)) return;
    state.highlight = found;
    if (found) {
      const slot = d.slots[found.page - 1]!;
      if (found.page !== page) pages.scrollToPage(found.page);
      // textScale is set once the text layer has its spans (the canvas is drawn before): marking a layer
      // still being built marked nothing yet said `highlighted`. Otherwise the drawing marks it (pages.ts).
      if (slot.textLayer && slot.textScale) pages.applyHighlight(slot, found);
      else await waitFor(() => found.applied || !state.isCurrent(seq) || pages.doc !== d, 10_000);
    } else {
      await waitFor(() => d.slots[page - 1]!.renderedScale > 0 || !state.isCurrent(seq) || pages.doc !== d, 10_000);
    }
    if (!state.isCurrent(seq)) return;
    if (message.highlight) {
      const status = highlightStatus(state, found, page);
      setStatus(ui, status.text, status.kind);
      window.setTimeout(() => state.isCurrent(seq) && setStatus(ui, ''), status.clearAfterMs);
    }
    post({ type: 'loaded', pages: d.slots.length, page: found?.page ?? page, highlighted: !!found?.applied });
  } catch (error) {
    if (!state.isCurrent(seq)) return;
    ui.root.classList.remove('loading');
    const text = describeOpenError(error);
    pages.unload(el('div', { class: 'pdf-error', role: 'alert', 'data-testid': 'pdf-error' }, state.tr('pdf.error', { message: text })));
    state.unload();
    setStatus(ui, '');
    post({ type: 'error', message: text });
    showToolbar();
  }
}

function bindEvents(): void {
  const goTo = (n: number) => Number.isFinite(n) && pages.scrollToPage(n);
  ui.prev.addEventListener('click', () => pages.scrollToPage(state.page - 1));
  ui.next.addEventListener('click', () => pages.scrollToPage(state.page + 1));
  ui.zoomIn.addEventListener('click', () => zoomed(state.zoomBy(1)));
  ui.zoomOut.addEventListener('click', () => zoomed(state.zoomBy(-1)));
  ui.fit.addEventListener('click', () => zoomed(state.zoomTo(pages.fitScale(), true)));
  ui.pageInput.addEventListener('change', () => goTo(Number(ui.pageInput.value)));
  ui.pageInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') goTo(Number(ui.pageInput.value));
  });

  let scrollFrame = 0;
  ui.viewer.addEventListener('scroll', () => {
    if (scrollFrame) return;
    scrollFrame = requestAnimationFrame(() => {
      scrollFrame = 0;
      pages.updateCurrentPage();
    });
  });

  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement) return;
    const command = keyCommand(e);
    if (command === 'zoomIn' || command === 'zoomOut') {
      e.preventDefault();
      zoomed(state.zoomBy(command === 'zoomIn' ? 1 : -1));
    } else if (command === 'nextPage') {
      pages.scrollToPage(state.page + 1);
    } else if (command === 'previousPage') {
      pages.scrollToPage(state.page - 1);
    }
  });

  let resizeTimer = 0;
  new ResizeObserver(() => {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(() => {
      if (pages.doc && state.fitWidth) zoomed(state.zoomTo(pages.fitScale(), true));
    }, 100);
  }).observe(ui.viewer);

  window.addEventListener('message', (event: MessageEvent<PdfHostMessage>) => {
    const message = event.data;
    if (message && message.type === 'open' && typeof message.url === 'string') void open(message);
  });
}

bindEvents();
applyStrings(ui, (key) => state.tr(key));
setStatus(ui, state.tr('pdf.waiting'));
showToolbar();
post({ type: 'ready' });
