/**
 * Browser entry of the Similar Sources panel webview.
 *
 * Posts `ready`, renders every `state` message into `#root` with the pure
 * renderer, keeps focus, open `<details>` and scroll position across
 * re-renders, and turns clicks and control changes into `WebviewMessage`s
 * through event delegation (the CSP forbids inline handlers).
 */
import type { HostMessage, PanelState, WebviewMessage } from '../../src/shared/protocol';
import type { PanelOptions } from '../../src/shared/settings';
import { formatPercent } from '../../src/shared/bands';
import { renderPanel, t } from './render';

interface VsCodeApi<S> {
  postMessage(message: WebviewMessage): void;
  getState(): S | undefined;
  setState(state: S): void;
}
declare function acquireVsCodeApi<S = unknown>(): VsCodeApi<S>;

type StateMessage = Extract<HostMessage, { type: 'state' }>;

interface SavedState {
  /** The segment shown last; restored after the webview is reloaded. */
  selectedSegmentId: string | null;
  /** Ids of the `<details>` elements left open (options, more passages). */
  openDetails: string[];
  /** The last state message, drawn at once while the host answers `ready`. */
  last?: StateMessage;
}

const vscode = acquireVsCodeApi<SavedState>();
const saved: SavedState = { selectedSegmentId: null, openDetails: [], ...(vscode.getState() ?? {}) };

let current: StateMessage | undefined;
let restorePending = saved.selectedSegmentId !== null;
let pendingFocusSegment: { id: string; takeFocus: boolean } | null = null;

function root(): HTMLElement {
  let el = document.getElementById('root');
  if (!el) {
    el = document.createElement('div');
    el.id = 'root';
    document.body.appendChild(el);
  }
  return el;
}

/** A persistent live region: `#root` is replaced on each render, so announcements go here. */
function announcer(): HTMLElement {
  let el = document.getElementById('announcer');
  if (!el) {
    el = document.createElement('div');
    el.id = 'announcer';
    el.className = 'visually-hidden';
    el.setAttribute('aria-live', 'polite');
    el.setAttribute('role', 'status');
    document.body.appendChild(el);
  }
  return el;
}

function post(message: WebviewMessage): void {
  vscode.postMessage(message);
}

function persist(): void {
  vscode.setState(saved);
}

function summary(state: PanelState, strings: Record<string, string>): string {
  switch (state.kind) {
    case 'indexing':
      return `${state.message} ${t(strings, 'progress.indexing', { done: state.done, total: state.total })}`;
    case 'analyzing':
      return `${state.message} ${t(strings, 'progress.analyzing', { current: state.current, total: state.total })}`;
    case 'results': {
      if (!state.segment) return t(strings, 'results.segments');
      const n = state.segment.cards.length;
      return n === 0
        ? t(strings, 'results.noneAboveThreshold', { threshold: formatPercent(state.threshold) })
        : n === 1
          ? t(strings, 'results.sourceCountOne')
          : t(strings, 'results.sourceCount', { count: n });
    }
    default:
      return state.message;
  }
}

/** Draws a state message, keeping focus, open details and scroll position when the view is the same. */
function render(message: StateMessage): void {
  const previous = current;
  current = message;
  const el = root();
  const scroller = document.scrollingElement ?? document.documentElement;
  const active = document.activeElement as HTMLElement | null;
  const focusKey = active && el.contains(active) ? (active.dataset.focusKey ?? active.id) : undefined;
  const selection =
    active instanceof HTMLInputElement && (active.type === 'number' || active.type === 'text')
      ? { start: active.selectionStart, end: active.selectionEnd }
      : null;
  const openNow = Array.from(el.querySelectorAll<HTMLDetailsElement>('details[id]'))
    .filter((d) => d.open)
    .map((d) => d.id);
  if (el.childElementCount > 0) saved.openDetails = openNow;

  const prevView = viewKey(previous?.state);
  const nextView = viewKey(message.state);
  const scrollTop = scroller.scrollTop;

  el.innerHTML = renderPanel(message.state, message.options, message.collections, message.strings);

  for (const id of saved.openDetails) {
    const d = document.getElementById(id);
    if (d instanceof HTMLDetailsElement) d.open = true;
  }
  if (prevView === nextView) scroller.scrollTop = scrollTop;
  else scroller.scrollTop = 0;

  if (focusKey) {
    const target =
      Array.from(el.querySelectorAll<HTMLElement>('[data-focus-key]')).find((n) => n.dataset.focusKey === focusKey) ??
      (document.getElementById(focusKey) as HTMLElement | null);
    if (target && !(target as HTMLButtonElement).disabled) {
      target.focus({ preventScroll: true });
      if (selection && target instanceof HTMLInputElement) {
        try {
          target.setSelectionRange(selection.start, selection.end);
        } catch {
          /* number inputs do not support selection ranges */
        }
      }
    }
  }

  const text = summary(message.state, message.strings ?? {});
  const live = announcer();
  if (live.textContent !== text) live.textContent = text;

  saved.selectedSegmentId = message.state.kind === 'results' ? (message.state.segment?.id ?? null) : saved.selectedSegmentId;
  saved.last = message;
  persist();

  if (pendingFocusSegment) {
    const { id, takeFocus } = pendingFocusSegment;
    if (showSegment(id, false, takeFocus)) pendingFocusSegment = null;
  }
}

/** Identifies what is on screen: same key → keep the scroll position. */
function viewKey(state: PanelState | undefined): string {
  if (!state) return '';
  if (state.kind !== 'results') return state.kind;
  return `results:${state.document}:${state.segment?.id ?? '*'}`;
}

function flash(el: HTMLElement): void {
  el.classList.remove('flash');
  // Restart the animation.
  void el.offsetWidth;
  el.classList.add('flash');
  el.addEventListener('animationend', () => el.classList.remove('flash'), { once: true });
}

/**
 * Scrolls to and highlights a segment if it is on screen; true when done. The keyboard moves to it
 * only when the user asked for it here (`takeFocus`): a panel that took it after each analysis
 * would take the editor's keystrokes.
 */
function showSegment(segmentId: string, mayAsk: boolean, takeFocus: boolean): boolean {
  const el = root();
  const item = Array.from(el.querySelectorAll<HTMLElement>('.segment-item')).find((n) => n.dataset.segmentId === segmentId);
  if (item) {
    item.scrollIntoView({ block: 'center', behavior: 'smooth' });
    if (takeFocus) item.focus({ preventScroll: true });
    flash(item);
    return true;
  }
  const section = el.querySelector<HTMLElement>('section.segment');
  if (section && section.dataset.segmentId === segmentId) {
    const head = el.querySelector<HTMLElement>('#segment-head') ?? section;
    head.scrollIntoView({ block: 'start', behavior: 'smooth' });
    if (takeFocus) el.querySelector<HTMLElement>('#segment-title')?.focus({ preventScroll: true });
    flash(head);
    return true;
  }
  const state = current?.state;
  if (mayAsk && state?.kind === 'results' && state.segments.some((s) => s.id === segmentId)) {
    pendingFocusSegment = { id: segmentId, takeFocus };
    post({ type: 'selectSegment', segmentId });
    return false;
  }
  return false;
}

function onMessage(event: MessageEvent<HostMessage>): void {
  const message = event.data;
  if (!message || typeof message !== 'object') return;
  if (message.type === 'state') {
    if (restorePending) {
      restorePending = false;
      const wanted = saved.selectedSegmentId;
      const state = message.state;
      if (wanted && state.kind === 'results' && state.segment?.id !== wanted && state.segments.some((s) => s.id === wanted)) {
        render(message);
        saved.selectedSegmentId = wanted;
        persist();
        post({ type: 'selectSegment', segmentId: wanted });
        return;
      }
    }
    render(message);
  } else if (message.type === 'focusSegment') {
    if (!showSegment(message.segmentId, true, message.takeFocus) && !pendingFocusSegment)
      pendingFocusSegment = { id: message.segmentId, takeFocus: message.takeFocus };
  }
}

// ---------------------------------------------------------------------------
// Events (delegated)

function onClick(event: MouseEvent): void {
  const target = (event.target as HTMLElement | null)?.closest<HTMLElement>('button[data-action]');
  if (!target || (target as HTMLButtonElement).disabled) return;
  const d = target.dataset;
  switch (d.action) {
    case 'run':
      if (d.command === 'analyze' || d.command === 'index' || d.command === 'rebuild' || d.command === 'configureLibrary' || d.command === 'showLog') {
        post({ type: 'run', command: d.command });
      }
      break;
    case 'open-pdf':
      post({ type: 'openPdf', path: d.path ?? '', page: Number(d.page) || 1, highlight: d.highlight ?? '' });
      break;
    case 'insert-citation':
    case 'copy-citation':
      post({
        type: d.action === 'insert-citation' ? 'insertCitation' : 'copyCitation',
        segmentId: d.segmentId ?? '',
        sourceId: d.sourceId ?? '',
        page: Number(d.page) || 1,
      });
      break;
    case 'reveal-segment':
      if (d.segmentId) post({ type: 'revealSegment', segmentId: d.segmentId });
      break;
    case 'select-segment':
      selectSegment(d.segmentId ?? null);
      break;
  }
}

function selectSegment(segmentId: string | null): void {
  const id = segmentId ? segmentId : null;
  saved.selectedSegmentId = id;
  persist();
  post({ type: 'selectSegment', segmentId: id });
}

function setOption<K extends keyof PanelOptions>(option: K, value: PanelOptions[K]): void {
  post({ type: 'setOption', option, value });
}

function onChange(event: Event): void {
  const el = event.target as HTMLElement | null;
  if (!el) return;
  if (el instanceof HTMLSelectElement && el.dataset.action === 'select-segment') {
    selectSegment(el.value || null);
    return;
  }
  const option = el.dataset.option as keyof PanelOptions | undefined;
  if (!option) return;
  switch (option) {
    case 'granularity':
      if (el instanceof HTMLSelectElement && ['section', 'paragraph', 'sentence'].includes(el.value)) {
        setOption('granularity', el.value as PanelOptions['granularity']);
      }
      break;
    case 'sourceType':
      if (el instanceof HTMLSelectElement && ['secondary', 'primary', 'both'].includes(el.value)) {
        setOption('sourceType', el.value as PanelOptions['sourceType']);
      }
      break;
    case 'maxResults': {
      const input = el as HTMLInputElement;
      const n = Math.round(Number(input.value));
      if (!Number.isFinite(n) || input.value.trim() === '') return;
      const clamped = Math.min(20, Math.max(1, n));
      if (String(clamped) !== input.value) input.value = String(clamped);
      setOption('maxResults', clamped);
      break;
    }
    case 'similarityThreshold': {
      const n = Number((el as HTMLInputElement).value);
      if (!Number.isFinite(n)) return;
      setOption('similarityThreshold', Math.min(1, Math.max(0, n)));
      break;
    }
    case 'useReranking':
      if (el instanceof HTMLSelectElement && ['auto', 'on', 'off'].includes(el.value)) {
        setOption('useReranking', el.value as PanelOptions['useReranking']);
      }
      break;
    case 'useContextualEmbedding':
      setOption(option, (el as HTMLInputElement).checked);
      break;
    case 'collectionFilter': {
      const boxes = Array.from(root().querySelectorAll<HTMLInputElement>('input[data-option="collectionFilter"]'));
      setOption(
        'collectionFilter',
        boxes.filter((b) => b.checked).map((b) => b.dataset.collection ?? ''),
      );
      break;
    }
  }
}

/** Live feedback while the threshold slider moves; the value is posted on `change`. */
function onInput(event: Event): void {
  const el = event.target as HTMLElement | null;
  if (el instanceof HTMLInputElement && el.dataset.option === 'similarityThreshold') {
    const text = formatPercent(Number(el.value));
    const out = document.getElementById('opt-threshold-value');
    if (out) out.textContent = text;
    el.setAttribute('aria-valuetext', text);
  }
}

function onToggle(event: Event): void {
  const d = event.target;
  if (!(d instanceof HTMLDetailsElement) || !d.id) return;
  const set = new Set(saved.openDetails);
  if (d.open) set.add(d.id);
  else set.delete(d.id);
  saved.openDetails = [...set];
  persist();
}

function onKeyDown(event: KeyboardEvent): void {
  // Enter in the number field commits it at once (the `change` event then fires).
  if (event.key === 'Enter' && event.target instanceof HTMLInputElement && event.target.type === 'number') {
    event.target.blur();
    event.target.focus();
  }
}

window.addEventListener('message', onMessage);
document.addEventListener('click', onClick);
document.addEventListener('change', onChange);
document.addEventListener('input', onInput);
document.addEventListener('toggle', onToggle, true);
document.addEventListener('keydown', onKeyDown);

announcer();
if (saved.last) {
  // Show what was there before the reload while the host prepares a fresh state.
  try {
    render(saved.last);
  } catch {
    saved.last = undefined;
  }
}
post({ type: 'ready' });
