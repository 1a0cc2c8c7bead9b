/**
 * A LaTeX draft as "cited in § n" reads it: the open file with the files it reads through
 * `\input`/`\include`/`\subfile` (within its workspace folder), each from its open editor when
 * there is one (unsaved text included), else from disk, kept while its size and time hold —
 * "cited in" is marked again on every edit, and a thesis's chapters seldom change meanwhile.
 */
import { readFileSync, statSync } from 'node:fs';
import * as vscode from 'vscode';
import type { LatexPart } from '../shared/citedIn';
import { loadEngine } from './engine';

const INCLUDES = /\\(?:input|include|subfile)\s*\{/;
const disk = new Map<string, { stamp: string; text: string }>();

export function latexProjectParts(uri: string, text: string): string | LatexPart[] {
  if (!INCLUDES.test(text)) return text;
  const doc = vscode.Uri.parse(uri);
  const folder = doc.scheme === 'file' ? vscode.workspace.getWorkspaceFolder(doc) : undefined;
  if (!folder) return text;
  const open = new Map(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => [d.uri.fsPath, d]));
  const read = (file: string): string => {
    const editor = open.get(file);
    if (editor) return editor.getText();
    const st = statSync(file);
    const stamp = `${st.size}:${st.mtimeMs}`;
    const known = disk.get(file);
    if (known?.stamp === stamp) return known.text;
    const read = readFileSync(file, 'utf8');
    disk.set(file, { stamp, text: read });
    return read;
  };
  return loadEngine().readLatexProject(doc.fsPath, text, folder.uri.fsPath, read).parts;
}
