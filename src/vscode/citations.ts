/**
 * Insert or copy a citation of a recommended source, in the configured format,
 * with the page locator of the chosen passage ("pp. 214–216" when it runs over
 * pages). Inserting is a snippet, one undoable edit, whose page is a tab stop:
 * at the cursor when it is inside the segment, else at the end of the segment
 * (before its final full stop); next to an existing Pandoc citation it joins
 * it (`[@a, p. 3; @b, p. 214]`). A LaTeX draft gets its project's command
 * (shared/latexStyle.ts), joined to an adjacent one as latexCite.ts merges
 * (`\autocite{a}` → `\autocites{a}[214]{b}`; `\cite{a,b}` without locators).
 */
import * as vscode from 'vscode';
import { citationSnippet, formatPassageCitation, mergeInsertion, pageRangeLocator, type CitableSource, type PassagePages } from '../shared/citation';
import { adjacentLatexCite, type LatexCiteStyle } from '../shared/latexCite';
import { formatLatexCitation, mergeLatexCitation } from '../shared/latexCiteFormat';
import { isLatexTemplate, LATEX_CITATION_TEMPLATES, latexCitationStyle } from '../shared/latexStyle';
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
  /** A LaTeX draft's citation in its project's style (a source with a citekey, no LaTeX template of the user's). */
  latex?: { style: LatexCiteStyle; key: string; page: string };
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
  const settings = readSettings(uri);
  if (ctx.results.get(uri)?.format === 'latex') {
    const draft = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())?.getText() ?? '';
    const template = draftTemplate(settings, draft);
    if (source.citekey && !isLatexTemplate(settings.citationTemplate)) {
      const latex = {
        style: latexCitationStyle(settings.latexCitationStyle, draft),
        key: source.citekey,
        page: pageRangeLocator(at.page, at.pageLabel, at.endPage).locator,
      };
      return { uri, segment, source, at, template, latex, text: formatLatexCitation(latex.style, latex.key, latex.page, { snippet: false }) };
    }
    return { uri, segment, source, at, template, text: formatPassageCitation(source, at, template) };
  }
  return { uri, segment, source, at, template: settings.citationTemplate, text: formatPassageCitation(source, at, settings.citationTemplate) };
}

/** A LaTeX draft's template when the style does not write its citation (no citekey: a `\\href` to the PDF; the user's own LaTeX template). */
function draftTemplate(settings: { citationTemplate: string; latexCitationStyle: string }, draft: string): string {
  return isLatexTemplate(settings.citationTemplate)
    ? settings.citationTemplate
    : LATEX_CITATION_TEMPLATES[latexCitationStyle(settings.latexCitationStyle, draft)];
}

/** Where a new citation goes: the cursor when it is inside the segment, else the end of the segment (before its final stop); `space`: it needs one before it. */
function citationPosition(doc: vscode.TextDocument, cursor: vscode.Position, segment: { start: number; end: number }): { at: vscode.Position; space: boolean } {
  if (cursor.line >= segment.start && cursor.line <= segment.end && !(cursor.line === 0 && cursor.character === 0 && segment.start > 0)) {
    const before = doc.getText(new vscode.Range(cursor.with({ character: Math.max(0, cursor.character - 1) }), cursor));
    return { at: cursor, space: !!before && !/\s/.test(before) };
  }
  const last = doc.lineAt(Math.min(segment.end, doc.lineCount - 1));
  const trimmed = last.text.replace(/\s+$/, '');
  // "…the end." → "…the end [@key, p. 3]." — Pandoc style puts the citation before the stop (LaTeX's \autocite too).
  const stop = /[.!?…]$/.test(trimmed) ? 1 : 0;
  return { at: new vscode.Position(last.lineNumber, trimmed.length - stop), space: true };
}

/** Where a citation goes, and the snippet to put there: joined to an adjacent citation, or its own. */
export function placeCitation(
  doc: vscode.TextDocument,
  cursor: vscode.Position,
  segment: { start: number; end: number },
  snippet: string,
): { at: vscode.Position; snippet: string; merged: boolean } {
  const { at, space } = citationPosition(doc, cursor, segment);
  const own = space ? ' ' + snippet : snippet;
  const merge = mergeInsertion(doc.lineAt(at.line).text, at.character, snippet);
  if (merge) return { at: new vscode.Position(at.line, merge.at), snippet: merge.text, merged: true };
  return { at, snippet: own, merged: false };
}

/**
 * Where a LaTeX citation goes, and its snippet: replacing the cite command the
 * position is in or next to (merged into it), or its own command there.
 */
export function placeLatexCitation(
  doc: vscode.TextDocument,
  cursor: vscode.Position,
  segment: { start: number; end: number },
  latex: { style: LatexCiteStyle; key: string; page: string },
): { at: vscode.Range; snippet: string; merged: boolean } {
  const { at, space } = citationPosition(doc, cursor, segment);
  const text = doc.getText();
  const adjacent = adjacentLatexCite(text, doc.offsetAt(at));
  const merged = adjacent && mergeLatexCitation(text.slice(adjacent.start, adjacent.end), latex.key, latex.page, latex.style);
  if (adjacent && merged)
    return { at: new vscode.Range(doc.positionAt(adjacent.start), doc.positionAt(adjacent.end)), snippet: merged.text + '$0', merged: true };
  const own = formatLatexCitation(latex.style, latex.key, latex.page) + '$0';
  return { at: new vscode.Range(at, at), snippet: space ? ' ' + own : own, merged: false };
}

export async function insertCitation(ctx: Pick<Services, 'results' | 'log'>, args: unknown): Promise<boolean> {
  const r = resolve(ctx, args);
  if (!r) return false;
  const doc = await vscode.workspace.openTextDocument(r.uri);
  const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === r.uri.toString());
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One, preserveFocus: false });
  const place = r.latex
    ? placeLatexCitation(doc, editor.selection.active, r.segment, r.latex)
    : placeCitation(doc, editor.selection.active, r.segment, citationSnippet(r.source, r.at, r.template));
  // One snippet is one undo stop; its page locator is the first tab stop (placeholder selected).
  const ok = await editor.insertSnippet(new vscode.SnippetString(place.snippet), place.at, { undoStopBefore: true, undoStopAfter: true });
  const line = place.at instanceof vscode.Range ? place.at.start.line : place.at.line;
  if (ok) ctx.log.info(`${place.merged ? 'merged' : 'inserted'} ${r.text} at ${r.uri.fsPath}:${line + 1}`);
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
