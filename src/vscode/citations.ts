/**
 * Insert or copy a citation of a recommended source, in the configured format,
 * with the page locator of the chosen passage. Inserting is one undoable edit,
 * at the cursor when it is inside the segment, else at the end of the segment
 * (before its final full stop).
 */
import * as vscode from 'vscode';
import { formatCitation } from '../shared/citation';
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

/**
 * The citation the arguments name: only a card of a document that has our
 * results (arguments are checked; a command link elsewhere cannot make us
 * write into another document).
 */
function resolve(ctx: Pick<Services, 'results' | 'log'>, raw: unknown): { uri: vscode.Uri; segment: TrackedSegment; text: string; args: CitationArgs } | undefined {
  const checked = checkCitationArgs(raw);
  if (!checked.ok) {
    ctx.log.warn(`refused a citation request: ${checked.reason}`);
    return undefined;
  }
  const args = checked.value;
  const uri = args.uri ? vscode.Uri.parse(args.uri) : vscode.window.activeTextEditor?.document.uri;
  if (!uri) return undefined;
  const segment = ctx.results.segment(uri, args.segmentId);
  const card = segment?.cards.find((c) => c.sourceId === args.sourceId);
  if (!segment || !card) {
    void vscode.window.showWarningMessage(vscode.l10n.t('This recommendation is no longer available; run Find Similar Sources again.'));
    return undefined;
  }
  const passage = card.passages.find((p) => p.page === args.page) ?? card.passages[0];
  const page = passage?.page ?? card.page;
  const label = passage?.pageLabel ?? card.pageLabel;
  const text = formatCitation({ citekey: card.citekey ?? undefined, title: card.title, authors: card.authors, year: card.year ?? undefined, path: card.path }, page, label ?? undefined, readSettings(uri).citationTemplate);
  return { uri, segment, text, args };
}

export async function insertCitation(ctx: Pick<Services, 'results' | 'log'>, raw: unknown): Promise<boolean> {
  const r = resolve(ctx, raw);
  if (!r) return false;
  const doc = await vscode.workspace.openTextDocument(r.uri);
  const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === r.uri.toString());
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One, preserveFocus: false });
  const cursor = editor.selection.active;
  let at: vscode.Position;
  let insert = r.text;
  if (cursor.line >= r.segment.start && cursor.line <= r.segment.end && !(cursor.line === 0 && cursor.character === 0 && r.segment.start > 0)) {
    at = cursor;
    const before = doc.getText(new vscode.Range(at.with({ character: Math.max(0, at.character - 1) }), at));
    if (before && !/\s/.test(before)) insert = ' ' + insert;
  } else {
    const last = doc.lineAt(Math.min(r.segment.end, doc.lineCount - 1));
    const trimmed = last.text.replace(/\s+$/, '');
    // "…the end." → "…the end [@key, p. 3]." — Pandoc style puts the citation before the stop.
    const stop = /[.!?…]$/.test(trimmed) && !/\]\.?$/.test(trimmed) ? 1 : 0;
    at = new vscode.Position(last.lineNumber, trimmed.length - stop);
    insert = ' ' + insert;
  }
  const ok = await editor.edit((b) => b.insert(at, insert));
  if (ok) {
    const end = at.translate(0, insert.length);
    editor.selection = new vscode.Selection(end, end);
    ctx.log.info(`inserted ${r.text} at ${r.uri.fsPath}:${at.line + 1}`);
    const card = r.segment.cards.find((c) => c.sourceId === r.args.sourceId);
    if (card?.citekey) {
      card.alreadyCited = true;
      ctx.results.touch(r.uri.toString());
    }
  }
  return ok;
}

export async function copyCitation(ctx: Pick<Services, 'results' | 'log'>, raw: unknown): Promise<string | undefined> {
  const r = resolve(ctx, raw);
  if (!r) return undefined;
  await vscode.env.clipboard.writeText(r.text);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}', r.text), 3000);
  return r.text;
}
