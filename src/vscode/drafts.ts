/**
 * Which open documents are drafts (shared/draftLanguages.ts), for the
 * commands and providers, and the `similarSources.draftLanguages` context key
 * that the menus' `when` clauses read. Providers registered through
 * `registerForDrafts` follow the setting: registered again when it changes.
 */
import * as vscode from 'vscode';
import { draftLanguageIds } from '../shared/draftLanguages';
import { readSettings } from './config';

export function draftLanguages(): string[] {
  return draftLanguageIds(readSettings().draftLanguages);
}

export function isDraft(document: vscode.TextDocument): boolean {
  return draftLanguages().includes(document.languageId);
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
