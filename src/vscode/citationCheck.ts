/**
 * Check Citations in the editor (issue 21): the engine's verdicts as
 * diagnostics on each citation (errors: unknown key, no such page, quotation
 * not found; warnings: wrong page, quotation not word for word; information:
 * another page matches a citation without a quotation better, a quotation too
 * long to compare whole was compared only at its ends), whose message
 * gives the source's words and page, and Quick Fixes that are one undoable
 * edit each: change the locator, replace the quotation with the source's words,
 * use the closest key. Runs on the command, and on save (`citationCheck:
 * onSave`, the default) once the library is indexed. Text from PDFs reaches
 * the Problems panel only through the engine (made visible and bounded there),
 * and a diagnostic's message is plain text.
 */
import * as vscode from 'vscode';
import type { CheckedCitation } from '../engine';
import { citationFixes, pageLocator } from '../shared/citationFixes';
import { isLatexPath } from '../shared/draftLanguages';
import { readSettings } from './config';
import { draftFormat } from './drafts';
import { loadEngine } from './engine';
import type { Services } from './services';

const SOURCE = 'Similar Sources';

export class CitationChecker implements vscode.CodeActionProvider, vscode.Disposable {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];
  private readonly collection = vscode.languages.createDiagnosticCollection('similarSources.citations');
  private readonly verdicts = new WeakMap<vscode.Diagnostic, CheckedCitation>();
  private readonly running = new Map<string, AbortController>();
  /** The files each draft's last check put diagnostics on (a LaTeX draft's `\\input` files too). */
  private readonly touched = new Map<string, vscode.Uri[]>();

  constructor(private readonly s: Pick<Services, 'library' | 'log' | 'trust'>) {}

  /**
   * Checks a draft (Markdown, Quarto, R Markdown; LaTeX with the files it `\\input`s); `explicit`:
   * the command (says why when it cannot), not a save.
   */
  async check(doc: vscode.TextDocument, explicit: boolean): Promise<number | undefined> {
    const format = draftFormat(doc);
    if (!format) return undefined;
    // The engine reads a draft as LaTeX by its file's extension: an untitled LaTeX buffer would be read as Markdown.
    if (format === 'latex' && !(doc.uri.scheme === 'file' && isLatexPath(doc.uri.fsPath))) {
      if (explicit) void vscode.window.showInformationMessage(vscode.l10n.t('Save the LaTeX draft as a .tex file to check its citations.'));
      return undefined;
    }
    if (!explicit && (!this.s.trust.trusted || readSettings(doc.uri).citationCheck !== 'onSave')) return undefined;
    const folder = this.s.library.workspaceFolder(doc.uri);
    if (!folder) return undefined;
    const key = doc.uri.toString();
    this.running.get(key)?.abort();
    const ac = new AbortController();
    this.running.set(key, ac);
    const engine = loadEngine();
    let result;
    try {
      // Matched in the engine's citation worker: typing stays responsive on a thesis of 1,000 citations.
      // A Quarto / R Markdown draft's own `bibliography:` serves when the settings name none.
      result = await this.s.library.engine(folder).checkCitations(doc.getText(), { draftPath: doc.uri.fsPath, offThread: true, signal: ac.signal });
    } catch (err) {
      if (ac.signal.aborted) return undefined;
      if (engine.errorHealth(err)) {
        // Not indexed yet: a save says nothing; the command says what to do.
        if (explicit)
          void vscode.window.showInformationMessage(
            vscode.l10n.t('Index the library first (Similar Sources: Index Library): citations are checked against its PDFs.'),
          );
        return undefined;
      }
      this.s.log.error(`checking citations failed: ${(err as Error).message}`);
      if (explicit) void vscode.window.showErrorMessage(vscode.l10n.t('Checking citations failed: {0}', (err as Error).message));
      return undefined;
    } finally {
      if (this.running.get(key) === ac) this.running.delete(key);
    }
    const diagnostics: vscode.Diagnostic[] = [];
    // A LaTeX draft's citations in the files it includes name their file (workspace-relative).
    const elsewhere = new Map<string, vscode.Diagnostic[]>();
    for (const c of result.citations) {
      if (c.status === 'ok' && !c.hint && !c.forgiven?.length) continue;
      const range = new vscode.Range(c.line - 1, Math.max(0, c.column - 1), c.line - 1, Math.max(0, c.endColumn - 1));
      // A page hint is information, never a problem: the citation is ok. So is a quotation compared only at its ends.
      const level = engine.statusSeverity(c.status);
      // An ok that forgave a viewer's copy its differences says which, as a hint (no squiggle, shown on hover).
      const severity =
        c.status === 'ok' && !c.hint
          ? vscode.DiagnosticSeverity.Hint
          : level === 'ok' || level === 'info'
            ? vscode.DiagnosticSeverity.Information
            : level === 'error'
              ? vscode.DiagnosticSeverity.Error
              : vscode.DiagnosticSeverity.Warning;
      const d = new vscode.Diagnostic(range, message(c, engine.MAX_QUOTE_WORDS), severity);
      d.source = SOURCE;
      d.code = c.status === 'ok' ? (c.hint ? 'page-hint' : 'viewer-copy') : c.status;
      this.verdicts.set(d, c);
      if (c.file) elsewhere.set(c.file, [...(elsewhere.get(c.file) ?? []), d]);
      else diagnostics.push(d);
    }
    for (const uri of this.touched.get(key) ?? []) this.collection.delete(uri);
    const uris = [...elsewhere.keys()].map((f) => vscode.Uri.joinPath(folder.uri, ...f.split('/')));
    uris.forEach((uri, i) => this.collection.set(uri, [...elsewhere.values()][i]));
    this.touched.set(key, uris);
    this.collection.set(doc.uri, diagnostics);
    const problems = [...diagnostics, ...[...elsewhere.values()].flat()].filter(
      (d) => d.severity !== vscode.DiagnosticSeverity.Information && d.severity !== vscode.DiagnosticSeverity.Hint,
    ).length;
    if (explicit) {
      const n = result.citations.length;
      void vscode.window.setStatusBarMessage(vscode.l10n.t('Citations checked: {0}, problems: {1}', n, problems), 5000);
    }
    return problems;
  }

  clear(uri: vscode.Uri): void {
    this.collection.delete(uri);
    for (const u of this.touched.get(uri.toString()) ?? []) this.collection.delete(u);
    this.touched.delete(uri.toString());
  }

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    for (const d of ctx.diagnostics) {
      const c = this.verdicts.get(d);
      if (!c) continue;
      for (const fix of quickFixes(doc, c)) {
        const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        action.edit = new vscode.WorkspaceEdit();
        action.edit.replace(doc.uri, fix.range, fix.text);
        action.diagnostics = [d];
        action.isPreferred = out.length === 0;
        out.push(action);
      }
    }
    return out;
  }

  dispose(): void {
    for (const ac of this.running.values()) ac.abort();
    this.collection.dispose();
  }
}

const pages = pageLocator;

/** A diagnostic's message: the verdict, then the source's words and page (plain text); `ends`: the words compared at each end of a long quotation. */
function message(c: CheckedCitation, ends: number): string {
  const t = vscode.l10n.t;
  switch (c.status) {
    case 'unknown-key':
      return c.suggestions.length
        ? t('Unknown citation key @{0}: in neither the library nor the bibliography. Did you mean {1}?', c.key, c.suggestions.map((k) => `@${k}`).join(', '))
        : t('Unknown citation key @{0}: in neither the library nor the bibliography.', c.key);
    case 'no-such-page':
      return t('@{0} has no page {1} ({2}).', c.key, c.locator ?? '', c.note ?? '');
    case 'quote-not-found':
      return t('This quotation is not in @{0}.', c.key);
    case 'wrong-page':
      return t('The quotation is on {0} of @{1}, not {2}: “{3}”', pages(c.foundPage ?? '?'), c.key, c.locator ?? '', c.sourceText ?? '');
    case 'quote-differs':
      return t(
        'The quotation is not word for word. @{0}, {1}, says: “{2}” ({3})',
        c.key,
        pages(c.foundPage ?? '?'),
        c.sourceText ?? '',
        c.differences.map((x) => `“${x.quote}” → “${x.source}”`).join('; '),
      );
    case 'quote-partly-checked':
      return t(
        'This quotation is too long to compare whole: its first and last {0} words are on {1} of @{2} word for word; the words between them were not checked.',
        ends,
        pages(c.foundPage ?? '?'),
        c.key,
      );
    default:
      return c.hint
        ? t('Another page of @{0} matches this sentence better: {1} (“{2}”).', c.key, pages(c.hint.page), c.hint.excerpt)
        : t('Quotation ok — {0}.', (c.forgiven ?? []).map(forgivenWords).join('; '));
  }
}

/** One difference a viewer's copy made, accepted, in the user's language. */
function forgivenWords(f: NonNullable<CheckedCitation['forgiven']>[number]): string {
  const t = vscode.l10n.t;
  const why: Record<typeof f.kind, string> = {
    'page-furniture': t('the copy holds a running head, footer or page number of the PDF’s page break'),
    logo: t('the PDF’s text layer spells a logo out in letters'),
    'small-caps': t('the PDF sets a word in small capitals, whose first letter viewers read apart'),
    glyph: t('the PDF’s symbol font decodes a glyph through another encoding'),
    'footnote-mark': t('the copy holds a footnote number glued to a word'),
    'cut-word': t('the copy starts or ends inside a hyphenated word'),
  };
  const words = [f.quote && `“${f.quote}”`, f.source && t('the PDF: “{0}”', f.source)].filter(Boolean).join(', ');
  return words ? `${why[f.kind]} (${words})` : why[f.kind];
}

/** The Quick Fixes of a verdict: each one replacement in the document. */
export function quickFixes(doc: vscode.TextDocument, c: CheckedCitation): Array<{ title: string; range: vscode.Range; text: string }> {
  if (c.line - 1 >= doc.lineCount) return [];
  return citationFixes(c, doc.lineAt(c.line - 1).text, draftFormat(doc) ?? 'markdown').map((f) => ({
    title:
      f.kind === 'locator'
        ? vscode.l10n.t('Change locator to {0}', f.label)
        : f.kind === 'quotation'
          ? vscode.l10n.t("Replace the quotation with the source's words")
          : vscode.l10n.t('Use @{0}', f.label),
    range: new vscode.Range(f.start.line, f.start.character, f.end.line, f.end.character),
    text: f.text,
  }));
}
