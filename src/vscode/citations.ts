/**
 * Insert or copy a citation of a recommended source, in the configured format,
 * with the page locator of the chosen passage ("pp. 214–216" when it runs over
 * pages). Inserting is a snippet, one undoable edit, whose page is a tab stop:
 * at the cursor when it is inside the segment, else at the end of the segment
 * (before its final full stop); next to an existing Pandoc citation it joins
 * it (`[@a, p. 3; @b, p. 214]`).
 */
import * as vscode from 'vscode';
import { citationSnippet, formatPassageCitation, mergeInsertion, type CitableSource, type PassagePages } from '../shared/citation';
import { checkCitationArgs } from '../shared/messages';
import { readSettings } from './config';
import type { Services } from './services';
import type { TrackedSegment } from './results';

export interface CitationArgs {
  uri?: string;
  segmentId: string;
  sourceId: string;
  page?: number;
}

interface Resolved {
  uri: vscode.Uri;
  segment: TrackedSegment;
  source: CitableSource;
  at: PassagePages;
  template: string;
  text: string;
}

/**
 * The citation the arguments name: only a card of a document that has our
 * results (arguments are checked; a command link elsewhere cannot make us
 * write into another document).
 */
function resolve(ctx: Pick<Services, 'results' | 'log'>, raw: unknown): Resolved | undefined {
  const checked = checkCitationArgs(raw);
  if (!checked.ok) {
    ctx.log.warn(`refused a citation request: ${checked.reason}`);
    return undefined;
  }
  const args: CitationArgs = checked.value;
  const uri = args.uri ? vscode.Uri.parse(args.uri) : vscode.window.activeTextEditor?.document.uri;
  if (!uri) return undefined;
  const segment = ctx.results.segment(uri, args.segmentId);
  const card = segment?.cards.find((c) => c.sourceId === args.sourceId);
  if (!segment || !card) {
    void vscode.window.showWarningMessage(vscode.l10n.t('This recommendation is no longer available; run Find Similar Sources again.'));
    return undefined;
  }
  const passage = card.passages.find((p) => p.page === args.page) ?? card.passages[0];
  const at: PassagePages = passage
    ? { page: passage.page, pageLabel: passage.pageLabel ?? undefined, endPage: passage.endPage }
    : { page: card.page, pageLabel: card.pageLabel ?? undefined, endPage: card.endPage };
  const source: CitableSource = { citekey: card.citekey ?? undefined, title: card.title, authors: card.authors, year: card.year ?? undefined, path: card.path };
  const template = readSettings(uri).citationTemplate;
  return { uri, segment, source, at, template, text: formatPassageCitation(source, at, template) };
}

/** Where a citation goes, and the snippet to put there: joined to an adjacent citation, or its own. */
export function placeCitation(doc: vscode.TextDocument, cursor: vscode.Position, segment: { start: number; end: number }, snippet: string): { at: vscode.Position; snippet: string; merged: boolean } {
  let at: vscode.Position;
  let own = snippet;
  if (cursor.line >= segment.start && cursor.line <= segment.end && !(cursor.line === 0 && cursor.character === 0 && segment.start > 0)) {
    at = cursor;
    const before = doc.getText(new vscode.Range(at.with({ character: Math.max(0, at.character - 1) }), at));
    if (before && !/\s/.test(before)) own = ' ' + own;
  } else {
    const last = doc.lineAt(Math.min(segment.end, doc.lineCount - 1));
    const trimmed = last.text.replace(/\s+$/, '');
    // "…the end." → "…the end [@key, p. 3]." — Pandoc style puts the citation before the stop.
    const stop = /[.!?…]$/.test(trimmed) ? 1 : 0;
    at = new vscode.Position(last.lineNumber, trimmed.length - stop);
    own = ' ' + own;
  }
  const merge = mergeInsertion(doc.lineAt(at.line).text, at.character, snippet);
  if (merge) return { at: new vscode.Position(at.line, merge.at), snippet: merge.text, merged: true };
  return { at, snippet: own, merged: false };
}

export async function insertCitation(ctx: Pick<Services, 'results' | 'log'>, args: unknown): Promise<boolean> {
  const r = resolve(ctx, args);
  if (!r) return false;
  const doc = await vscode.workspace.openTextDocument(r.uri);
  const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === r.uri.toString());
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One, preserveFocus: false });
  const place = placeCitation(doc, editor.selection.active, r.segment, citationSnippet(r.source, r.at, r.template));
  // One snippet is one undo stop; its page locator is the first tab stop (placeholder selected).
  const ok = await editor.insertSnippet(new vscode.SnippetString(place.snippet), place.at, { undoStopBefore: true, undoStopAfter: true });
  if (ok) ctx.log.info(`${place.merged ? 'merged' : 'inserted'} ${r.text} at ${r.uri.fsPath}:${place.at.line + 1}`);
  // The "cited" marks follow the text (ResultStore.markCitations on the edit).
  return ok;
}

export async function copyCitation(ctx: Pick<Services, 'results' | 'log'>, args: unknown): Promise<string | undefined> {
  const r = resolve(ctx, args);
  if (!r) return undefined;
  await vscode.env.clipboard.writeText(r.text);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}', r.text), 3000);
  return r.text;
}
