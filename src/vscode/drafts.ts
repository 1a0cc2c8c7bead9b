/**
 * Which open documents are drafts, and in which format (shared/draftLanguages.ts),
 * for the commands and providers, and the `similarSources.draftLanguages`
 * context key that the menus' `when` clauses read. Providers registered through
 * `registerForDrafts` follow the setting: registered again when it changes.
 */
import * as vscode from 'vscode';
import { allDraftLanguageIds, draftFormatOf, type DraftFormat } from '../shared/draftLanguages';
import { draftCitationTemplate } from '../shared/latexStyle';
import type { Settings } from '../shared/settings';
import { readSettings } from './config';

/** Every draft language id: Markdown's (with the user's extra ones), then LaTeX's. */
export function draftLanguages(): string[] {
  return allDraftLanguageIds(readSettings().draftLanguages);
}

/** The document's draft format; undefined when it is no draft. */
export function draftFormat(document: vscode.TextDocument): DraftFormat | undefined {
  return draftFormatOf(document.languageId, readSettings().draftLanguages);
}

export function isDraft(document: vscode.TextDocument): boolean {
  return draftFormat(document) !== undefined;
}

/**
 * The citation template of the document's cards and insertions: the
 * `citationTemplate` setting's for Markdown; for LaTeX the project's style
 * (the preamble's, or `latexCitationStyle`).
 */
export function draftTemplate(document: vscode.TextDocument, settings: Pick<Settings, 'citationTemplate' | 'latexCitationStyle'>): string {
  const format = draftFormat(document) ?? 'markdown';
  return draftCitationTemplate(format, settings, format === 'latex' ? document.getText() : '');
}

/** Saved and untitled documents of every draft language. */
export function draftSelector(): vscode.DocumentFilter[] {
  return draftLanguages().flatMap((language) => [
    { language, scheme: 'file' },
    { language, scheme: 'untitled' },
  ]);
}

/** Registers `register(selector)`'s providers now and again whenever the draft languages change. */
export function registerForDrafts(register: (selector: vscode.DocumentFilter[]) => vscode.Disposable[]): vscode.Disposable {
  let current = vscode.Disposable.from(...register(draftSelector()));
  let ids = draftLanguages().join();
  const setContext = () => void vscode.commands.executeCommand('setContext', 'similarSources.draftLanguages', draftLanguages());
  setContext();
  const watch = vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration('similarSources.draftLanguages') || draftLanguages().join() === ids) return;
    ids = draftLanguages().join();
    current.dispose();
    current = vscode.Disposable.from(...register(draftSelector()));
    setContext();
  });
  return { dispose: () => (watch.dispose(), current.dispose()) };
}
