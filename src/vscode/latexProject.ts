/**
 * A LaTeX draft as "cited in § n" reads it: the open file with the files it reads through
 * `\input`/`\include`/`\subfile` (within its workspace folder), each from its open editor when
 * there is one (unsaved text included), else from disk by the engine's confined rule (which
 * keeps what it read while the file's size and time hold).
 */
import * as vscode from 'vscode';
import type { LatexPart } from '../shared/citedIn';
import { loadEngine } from './engine';

const INCLUDES = /\\(?:input|include|subfile)\s*\{/;

export function latexProjectParts(uri: string, text: string): string | LatexPart[] {
  if (!INCLUDES.test(text)) return text;
  const doc = vscode.Uri.parse(uri);
  const folder = doc.scheme === 'file' ? vscode.workspace.getWorkspaceFolder(doc) : undefined;
  if (!folder) return text;
  const open = new Map(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => [d.uri.fsPath, d]));
  return loadEngine().readLatexProject(doc.fsPath, text, folder.uri.fsPath, (file) => open.get(file)?.getText()).parts;
}
