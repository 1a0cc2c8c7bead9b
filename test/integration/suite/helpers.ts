/** Small helpers shared by the integration specs and the helper extension. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export const PRODUCT_ID = 'similar-sources.similar-sources';
export const DRAFT = 'draft.md';
/** Start of the "Feeding cities from the sea" paragraph of examples/draft.md (expected source: grain-trade.pdf). */
export const FEEDING_PARAGRAPH = 'Consider first the great Mediterranean cities';
export const SAMPLE_PDF = 'library/grain-trade.pdf';

/**
 * The product's log file (its "Similar Sources" output channel), when the runner's helper extension
 * told where this window's extension host logs lie (code-server runs); undefined otherwise.
 */
export let productLogFile: string | undefined;
export function setExtensionLogDir(helperLogDir: string): void {
  // Each extension logs in <window logs>/exthost/<extension id>/: the product's folder is beside the helper's.
  productLogFile = path.join(path.dirname(helperLogDir), PRODUCT_ID, 'Similar Sources.log');
}

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open (the runner opens a copy of examples/)');
  return folder.uri.fsPath;
}

export function draftUri(): vscode.Uri {
  return vscode.Uri.file(path.join(workspaceRoot(), DRAFT));
}

export function findLine(doc: vscode.TextDocument, startsWith: string): number {
  for (let i = 0; i < doc.lineCount; i++) {
    if (doc.lineAt(i).text.startsWith(startsWith)) return i;
  }
  throw new Error(`no line of ${path.basename(doc.uri.fsPath)} starts with "${startsWith}"`);
}

export function withTimeout<T>(work: Thenable<T> | Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
    Promise.resolve(work).then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/** Polls `probe` until it returns a truthy value or `ms` passes. */
export async function waitFor<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms: number, what: string, everyMs = 250): Promise<T> {
  const deadline = Date.now() + ms;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
  throw new Error(`timed out after ${Math.round(ms / 1000)} s waiting for ${what}${why}`);
}

export async function openDraftEditor(): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(draftUri());
  return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
}

/**
 * Text of everything a hover provider returned, as the reader sees it: numeric
 * character references (how untrusted text is written, shared/untrusted.ts) decoded.
 */
export function hoverText(hovers: vscode.Hover[]): string {
  const parts: string[] = [];
  for (const h of hovers) {
    for (const c of h.contents) {
      if (typeof c === 'string') parts.push(c);
      else if (c instanceof vscode.MarkdownString) parts.push(c.value);
      else if (c && typeof (c as { value?: unknown }).value === 'string') parts.push((c as { value: string }).value);
    }
  }
  return parts.join('\n').replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)));
}

/** The decoded arguments of every `command:<id>?<json>` link in a Markdown text, in order. */
export function commandLinkArgs(markdown: string, id: string): unknown[][] {
  const out: unknown[][] = [];
  const re = new RegExp(`command:${id.replace(/\./g, '\\.')}(?:\\?([^)\\s"']*))?`, 'g');
  for (const m of markdown.matchAll(re)) {
    if (!m[1]) {
      out.push([]);
      continue;
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(decodeURIComponent(m[1]));
    } catch {
      continue;
    }
    // VS Code spreads a JSON array into the command's arguments; any other value is the one argument.
    out.push(Array.isArray(decoded) ? decoded : [decoded]);
  }
  return out;
}

/** Titles of library/library.bib with braces and LaTeX accents removed, lower-cased, accents folded. */
export function bibliographyTitles(): string[] {
  const bib = fs.readFileSync(path.join(workspaceRoot(), 'library', 'library.bib'), 'utf8');
  const titles: string[] = [];
  for (const m of bib.matchAll(/^\s*(?:short)?title\s*=\s*\{(.*)\},?\s*$/gm)) {
    titles.push(fold(m[1].replace(/\\[`'^"~=.]\{?([a-zA-Z])\}?/g, '$1').replace(/[{}]/g, '').replace(/--/g, '-').replace(/~/g, ' ')));
  }
  return titles;
}

export function fold(s: string): string {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Citation keys of library/library.bib. */
export function bibliographyKeys(): string[] {
  const bib = fs.readFileSync(path.join(workspaceRoot(), 'library', 'library.bib'), 'utf8');
  return [...bib.matchAll(/^@\w+\{([^,\s]+),/gm)].map((m) => m[1]);
}

/** Every tab of every editor group. */
export function allTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs);
}
