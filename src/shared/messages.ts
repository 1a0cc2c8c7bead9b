/**
 * The host trusts nothing a webview sends, nor any command argument (a
 * `command:` link elsewhere can call our commands): each is checked here —
 * type, fields, sizes, choices — before anything acts on it. A check gives the
 * typed value, or the reason it was refused (the host logs it and does nothing).
 */
import type { PdfWebviewMessage, WebviewMessage } from './protocol';
import { OPTION_KEYS, resolveSettings, type PanelOptions } from './settings';

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Limits on what a message may carry. */
const MAX = { id: 200, path: 4096, text: 2000, page: 1_000_000 } as const;
const RUN_COMMANDS = ['analyze', 'index', 'rebuild', 'configureLibrary', 'showLog'] as const;

class Refused extends Error {}

function record(m: unknown): Record<string, unknown> {
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Refused('not an object');
  return m as Record<string, unknown>;
}

function str(o: Record<string, unknown>, key: string, max: number): string {
  const v = o[key];
  if (typeof v !== 'string') throw new Refused(`${key} is not a string`);
  if (v.length > max) throw new Refused(`${key} is longer than ${max} characters`);
  return v;
}

function page(o: Record<string, unknown>, key = 'page'): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX.page) throw new Refused(`${key} is not a page number`);
  return v;
}

function choice<T extends string>(o: Record<string, unknown>, key: string, choices: readonly T[]): T {
  const v = o[key];
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v)) throw new Refused(`${key} is not one of ${choices.join(', ')}`);
  return v as T;
}

function checked<T>(f: () => T): Checked<T> {
  try {
    return { ok: true, value: f() };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: err.message };
    throw err;
  }
}

/** A message from the panel. */
export function checkWebviewMessage(m: unknown): Checked<WebviewMessage> {
  return checked((): WebviewMessage => {
    const o = record(m);
    const type = choice(o, 'type', ['ready', 'openPdf', 'insertCitation', 'copyCitation', 'revealSegment', 'selectSegment', 'setOption', 'run'] as const);
    switch (type) {
      case 'ready':
        return { type };
      case 'openPdf':
        return { type, ...openPdfFields(o) };
      case 'insertCitation':
      case 'copyCitation':
        return { type, segmentId: str(o, 'segmentId', MAX.id), sourceId: str(o, 'sourceId', MAX.id), page: page(o) };
      case 'revealSegment':
        return { type, segmentId: str(o, 'segmentId', MAX.id) };
      case 'selectSegment':
        return { type, segmentId: o.segmentId === null ? null : str(o, 'segmentId', MAX.id) };
      case 'setOption': {
        const option = choice(o, 'option', OPTION_KEYS);
        return { type, option, value: optionValue(option, o.value) };
      }
      case 'run':
        return { type, command: choice(o, 'command', RUN_COMMANDS) };
    }
  });
}

/** An option's new value: valid for its setting (type, range, choices), as the settings schema says. */
function optionValue<K extends keyof PanelOptions>(option: K, value: unknown): PanelOptions[K] {
  const { settings, problems } = resolveSettings((key) => (key === option ? value : undefined));
  if (problems.length || value === undefined) throw new Refused(`value for ${option}: ${problems[0] ?? 'missing'}`);
  if (Array.isArray(value) && (value.length > 200 || value.some((x) => String(x).length > MAX.id))) throw new Refused(`value for ${option} is too long`);
  return settings[option] as PanelOptions[K];
}

function openPdfFields(o: Record<string, unknown>): { path: string; page: number; highlight: string } {
  const path = str(o, 'path', MAX.path);
  if (!/\.pdf$/i.test(path)) throw new Refused('path is not a PDF');
  return { path, page: page(o), highlight: o.highlight === undefined ? '' : str(o, 'highlight', MAX.text) };
}

/** A message from the PDF viewer. */
export function checkPdfWebviewMessage(m: unknown): Checked<PdfWebviewMessage> {
  return checked((): PdfWebviewMessage => {
    const o = record(m);
    const type = choice(o, 'type', ['ready', 'loaded', 'error'] as const);
    switch (type) {
      case 'ready':
        return { type };
      case 'loaded': {
        if (typeof o.highlighted !== 'boolean') throw new Refused('highlighted is not a boolean');
        return { type, pages: page(o, 'pages'), page: page(o), highlighted: o.highlighted };
      }
      case 'error':
        return { type, message: str(o, 'message', MAX.text) };
    }
  });
}

/** The arguments of `similarSources.openPdf` (from the panel, a hover link, or anyone). */
export function checkOpenPdfArgs(a: unknown): Checked<{ path: string; page: number; highlight: string }> {
  return checked(() => openPdfFields(record(a)));
}

/** The arguments of `similarSources.insertCitation` / `copyCitation`. */
export function checkCitationArgs(a: unknown): Checked<{ uri?: string; segmentId: string; sourceId: string; page?: number }> {
  return checked(() => {
    const o = record(a);
    return {
      uri: o.uri === undefined ? undefined : str(o, 'uri', MAX.path),
      segmentId: str(o, 'segmentId', MAX.id),
      sourceId: str(o, 'sourceId', MAX.id),
      page: o.page === undefined ? undefined : page(o),
    };
  });
}

/** The arguments of `similarSources.showSegment`. */
export function checkSegmentArgs(a: unknown): Checked<{ uri: string; segmentId: string }> {
  return checked(() => {
    const o = record(a);
    return { uri: str(o, 'uri', MAX.path), segmentId: str(o, 'segmentId', MAX.id) };
  });
}
