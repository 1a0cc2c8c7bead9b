/**
 * Citekey completion in Markdown: typing `[@` (or `@` inside a citation's
 * brackets), and in LaTeX inside a cite command's key list (`\cite{`,
 * `\autocite[12]{a,`, `\cites{a}{`: latexCite.ts), offers the library's citekeys, those most relevant to the
 * paragraph being written first (the engine's search on it), each with its
 * author, year, title, best page and best passage; then the other keys of the
 * index and of the Better BibTeX export, alphabetical. Before the library is
 * indexed, the export's keys alone, alphabetical.
 */
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { shortAuthors } from '../shared/citation';
import { citekeyAt, latexParagraphAround, paragraphAround } from '../shared/citekeyCompletion';
import { citeAtOffset } from '../shared/latexCite';
import { readSettings } from './config';
import { draftFormat } from './drafts';
import type { CitekeyEntry, CitekeyHit, EmbeddingProvider } from '../engine';
import { loadEngine } from './engine';
import { markdownText } from '../shared/untrusted';
import type { Services } from './services';

/** Keys ranked by relevance; the rest follow alphabetically. */
const RANKED = 20;

export class CitekeyCompletionProvider implements vscode.CompletionItemProvider, vscode.Disposable {
  private readonly providers = new Map<string, Promise<EmbeddingProvider>>();
  private bibliography?: { file: string; mtimeMs: number; entries: CitekeyEntry[] };
  private readonly subscription: vscode.Disposable;

  constructor(private readonly s: Pick<Services, 'library' | 'trust' | 'log'>) {
    // A changed provider or model setting means another embedding provider.
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('similarSources')) this.providers.clear();
    });
  }

  async provideCompletionItems(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.CompletionList | undefined> {
    const latex = draftFormat(document) === 'latex';
    const at = latex ? latexKeyAt(document, position) : citekeyAt(document.lineAt(position.line).text, position.character);
    if (!at || !this.s.trust.trusted) return undefined;
    const folder = this.s.library.workspaceFolder(document.uri);
    if (!folder) return undefined;
    const ac = new AbortController();
    const cancel = token.onCancellationRequested(() => ac.abort());
    try {
      const lines = Array.from({ length: document.lineCount }, (_, i) => document.lineAt(i).text);
      const paragraph = (latex ? latexParagraphAround : paragraphAround)(lines, position.line);
      const [ranked, indexed] = await this.fromIndex(folder, paragraph, ac.signal);
      const listed = await this.fromBibliography(folder, document);
      // Zotero's items without a PDF too (as of the last indexing run).
      const zotero = await this.s.library
        .engine(folder)
        .zoteroCitekeys()
        .catch(() => []);
      if (token.isCancellationRequested) return undefined;
      const range = new vscode.Range(position.line, at.start, position.line, at.end);
      const items: vscode.CompletionItem[] = [];
      // A key the command already lists is not offered again.
      const seen = new Set<string>('others' in at ? at.others : []);
      const add = (e: CitekeyEntry | CitekeyHit) => {
        if (seen.has(e.citekey)) return;
        seen.add(e.citekey);
        items.push(completionItem(e, items.length, range));
      };
      ranked.forEach(add);
      indexed.forEach(add);
      listed.forEach(add);
      zotero.forEach(add);
      if (items[0] && ranked.length) items[0].preselect = true;
      return new vscode.CompletionList(items, false);
    } finally {
      cancel.dispose();
    }
  }

  /** Keys ranked for the paragraph, and every key of the index; empty when there is no usable index. */
  private async fromIndex(folder: vscode.WorkspaceFolder, paragraph: string, signal: AbortSignal): Promise<[CitekeyHit[], CitekeyEntry[]]> {
    try {
      const key = folder.uri.toString();
      let provider = this.providers.get(key);
      if (!provider) {
        provider = this.s.library.provider(folder);
        this.providers.set(key, provider);
      }
      const { ranked, indexed } = await this.s.library.engine(folder).citekeys(paragraph, { k: RANKED, signal, provider: await provider });
      return [ranked, indexed];
    } catch (err) {
      // Not indexed yet (or not for this model): the bibliography's keys, alphabetical.
      this.s.log.debug(`citekey completion without the index: ${(err as Error).message}`);
      return [[], []];
    }
  }

  /** The Better BibTeX export's keys (else the draft's front-matter `bibliography:`), alphabetical, read again when the file changes. */
  private async fromBibliography(folder: vscode.WorkspaceFolder, document: vscode.TextDocument): Promise<CitekeyEntry[]> {
    const library = this.s.library.engine(folder).library();
    const file = loadEngine().draftBibliographies(library, document.getText(), document.uri.fsPath)[0];
    if (!file) return [];
    try {
      const { mtimeMs } = await fs.stat(file);
      if (this.bibliography?.file !== file || this.bibliography.mtimeMs !== mtimeMs) {
        // One the draft names (the settings naming none) is read only inside the workspace.
        const { entries, warnings } = await loadEngine().readBibliography(file, { draftWorkspace: library.bibliography ? undefined : library.workspace });
        for (const w of warnings.slice(0, 5)) this.s.log.warn(`bibliography: ${w}`);
        this.bibliography = { file, mtimeMs, entries };
      }
      return this.bibliography.entries;
    } catch (err) {
      this.s.log.warn(`citekey completion: ${(err as Error).message}`);
      return [];
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

/** The key being typed in a LaTeX cite command's key list at `position` (on its line), with the command's other keys. */
function latexKeyAt(document: vscode.TextDocument, position: vscode.Position): { start: number; end: number; others: string[] } | undefined {
  const hit = citeAtOffset(document.getText(), document.offsetAt(position));
  if (!hit) return undefined;
  const start = document.positionAt(hit.partial.start);
  const end = document.positionAt(hit.partial.end);
  if (start.line !== position.line || end.line !== position.line) return undefined;
  const partial = hit.partial.text;
  return { start: start.character, end: end.character, others: hit.keys.filter((k) => k !== partial && k !== document.getText(new vscode.Range(start, end))) };
}

function completionItem(e: CitekeyEntry | CitekeyHit, rank: number, range: vscode.Range): vscode.CompletionItem {
  const who = [shortAuthors(e.authors), e.year].filter(Boolean).join(' ');
  const hit = 'passage' in e ? e : undefined;
  const page = hit ? `p. ${hit.pageLabel ?? hit.page}` : '';
  const item = new vscode.CompletionItem({ label: e.citekey, description: [who, page].filter(Boolean).join(', ') }, vscode.CompletionItemKind.Reference);
  item.detail = e.title || undefined;
  item.insertText = e.citekey;
  item.range = range;
  // Relevance order: VS Code sorts by sortText until the user types a prefix to match.
  item.sortText = String(rank).padStart(5, '0');
  item.filterText = e.citekey;
  const md = new vscode.MarkdownString();
  // The title is the item's detail, shown above this.
  const meta = [e.authors.join('; '), e.year ? String(e.year) : '', page].filter(Boolean).join(' · ');
  if (meta) md.appendMarkdown(`${markdownText(meta, 400)}\n\n`);
  if (hit?.passage)
    md.appendMarkdown(
      `> ${markdownText(hit.passage, 600)}\n\n_${markdownText(vscode.l10n.t('The best passage of this source for the paragraph being written.'), 200)}_`,
    );
  item.documentation = md;
  return item;
}
