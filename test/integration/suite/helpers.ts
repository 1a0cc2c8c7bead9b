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
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms: number,
  what: string,
  everyMs = 250,
): Promise<T> {
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
    titles.push(
      fold(
        m[1]
          .replace(/\\[`'^"~=.]\{?([a-zA-Z])\}?/g, '$1')
          .replace(/[{}]/g, '')
          .replace(/--/g, '-')
          .replace(/~/g, ' '),
      ),
    );
  }
  return titles;
}

export function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
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

// ------------------------------------------------ other draft formats (latex.spec.ts, quarto.spec.ts)

/** Opens a draft of the example workspace (`draft.tex`, `draft.qmd`) in the first column. */
export async function openExampleDraft(name: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), name)));
  return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
}

/** Find Similar Sources on the active editor: how many segments it analysed (asserted > 0). */
export async function findSimilarSourcesOn(name: string, ms: number): Promise<number> {
  const result = (await withTimeout(vscode.commands.executeCommand('similarSources.findSimilarSources'), ms, `Find Similar Sources on ${name}`)) as
    { segments: number; analysed: number } | undefined;
  if (!result || !(result.analysed > 0)) throw new Error(`${name} analysed: ${JSON.stringify(result)}`);
  return result.analysed;
}

/** The extension's CodeLenses on a document (titles that start with an icon), once there are some. */
export function productLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
  return waitFor(
    async () => {
      const all = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 1000)) ?? [];
      const ours = all.filter((l) => (l.command?.title ?? '').startsWith('$('));
      return ours.length ? ours : undefined;
    },
    20_000,
    `CodeLenses on ${path.basename(doc.uri.fsPath)}`,
  );
}

/** The Insert citation links of the hover on `line`, one per card. */
export async function hoverInsertLinks(editor: vscode.TextEditor, line: number): Promise<unknown[][]> {
  const pos = new vscode.Position(line, 20);
  const hover = await waitFor(
    async () => {
      const text = hoverText((await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, pos)) ?? []);
      return text.includes('similarSources.insertCitation') ? text : undefined;
    },
    20_000,
    `a hover with Insert citation on line ${line + 1} of ${path.basename(editor.document.uri.fsPath)}`,
    500,
  );
  return commandLinkArgs(hover, 'similarSources.insertCitation');
}

/** Runs Insert citation with the cursor at `at`; what it changed: the replaced text and what replaced it, and where. */
export async function insertCitationAt(
  editor: vscode.TextEditor,
  at: vscode.Position,
  link: unknown[],
): Promise<{ removed: string; inserted: string; offset: number; before: string }> {
  const before = editor.document.getText();
  editor.selection = new vscode.Selection(at, at);
  await withTimeout(vscode.commands.executeCommand('similarSources.insertCitation', ...link), 20_000, 'similarSources.insertCitation');
  const after = editor.document.getText();
  let p = 0;
  while (p < before.length && before[p] === after[p]) p++;
  let q = 0;
  while (q < before.length - p && q < after.length - p && before[before.length - 1 - q] === after[after.length - 1 - q]) q++;
  return { removed: before.slice(p, before.length - q), inserted: after.slice(p, after.length - q), offset: p, before };
}

/** Leaves the citation's snippet and undoes once: the draft must be `before` again (one undoable edit). */
export async function undoOnceTo(editor: vscode.TextEditor, before: string): Promise<void> {
  await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
  await vscode.commands.executeCommand('leaveSnippet');
  await vscode.commands.executeCommand('undo');
  await waitFor(() => editor.document.getText() === before, 5_000, `one undo to restore ${path.basename(editor.document.uri.fsPath)}`);
}

/** The citekeys citation completion offers at `at`, best first. */
export async function citekeyCompletions(doc: vscode.TextDocument, at: vscode.Position, trigger?: string): Promise<string[]> {
  const list = await withTimeout(
    Promise.resolve(vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, at, trigger)),
    30_000,
    'completion',
  );
  return list.items
    .filter((i) => i.kind === vscode.CompletionItemKind.Reference)
    .sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''))
    .map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
}
