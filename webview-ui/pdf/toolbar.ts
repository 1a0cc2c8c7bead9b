/**
 * The PDF viewer's frame (DOM): the toolbar (previous/next page, page number,
 * zoom, fit width, the document's name), the status line and the scrolling
 * view that holds the pages. It shows what ViewerState says; the events are
 * bound in main.ts.
 */
import type { PdfStringKey } from '../../src/shared/strings';
import { el } from './dom';
import type { ToolbarView } from './viewerState';

export type ViewerUi = ReturnType<typeof buildUi>;

/** Builds the frame into `#root` (created if the shell has none). */
export function buildUi() {
  const root = document.getElementById('root') ?? document.body.appendChild(el('div', { id: 'root' }));
  root.classList.add('pdf-root');
  const toolbar = el('div', { class: 'pdf-toolbar', role: 'toolbar', 'data-testid': 'pdf-toolbar' });
  const prev = el('button', { type: 'button', class: 'tb-btn', 'data-testid': 'pdf-prev' });
  const next = el('button', { type: 'button', class: 'tb-btn', 'data-testid': 'pdf-next' });
  prev.append(el('span', { 'aria-hidden': 'true', class: 'chevron chevron-up' }));
  next.append(el('span', { 'aria-hidden': 'true', class: 'chevron chevron-down' }));
  const pageLabel = el('label', { for: 'pdf-page-input', class: 'visually-hidden' });
  const pageInput = el('input', {
    id: 'pdf-page-input',
    type: 'number',
    min: '1',
    value: '1',
    class: 'page-input',
    'data-testid': 'pdf-page-input',
    inputmode: 'numeric',
  });
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
}

/** Labels and tooltips in the UI's language. */
export function applyStrings(ui: ViewerUi, tr: (key: PdfStringKey) => string): void {
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

/** The zoom half of the toolbar. */
export function showZoom(ui: ViewerUi, view: ToolbarView): void {
  ui.zoomValue.textContent = view.zoom;
  ui.fit.setAttribute('aria-pressed', String(view.fitPressed));
  ui.zoomOut.disabled = view.zoomOutDisabled;
  ui.zoomIn.disabled = view.zoomInDisabled;
}

/** The page half of the toolbar; the page number is left alone while the user types one. */
export function showPage(ui: ViewerUi, view: ToolbarView): void {
  if (document.activeElement !== ui.pageInput) ui.pageInput.value = view.page;
  ui.pageInput.max = String(view.pageMax);
  ui.total.textContent = view.total;
  ui.prev.disabled = view.prevDisabled;
  ui.next.disabled = view.nextDisabled;
  ui.pageInput.disabled = view.noDocument;
  ui.fit.disabled = view.noDocument;
}

export function setStatus(ui: ViewerUi, text: string, kind: 'info' | 'error' | 'ok' = 'info'): void {
  ui.status.textContent = text;
  ui.status.dataset.kind = kind;
  ui.status.hidden = text === '';
}
