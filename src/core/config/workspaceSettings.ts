/**
 * Reads `similarSources.*` from a workspace's .vscode/settings.json, so the CLI
 * and the extension agree on the library of a workspace (the bundled example
 * carries its own). VS Code settings files allow comments and trailing commas.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export interface WorkspaceLibrarySettings {
  libraryFolders?: string[];
  bibliographyFile?: string;
  primarySourceFolders?: string[];
  includeGlobs?: string[];
  excludeGlobs?: string[];
}

export async function readWorkspaceSettings(workspace: string): Promise<WorkspaceLibrarySettings> {
  let text: string;
  try {
    text = await fs.readFile(path.join(workspace, '.vscode', 'settings.json'), 'utf8');
  } catch {
    return {};
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(stripJsonComments(text)) as Record<string, unknown>;
  } catch {
    return {};
  }
  const list = (k: string) => (Array.isArray(json[k]) ? (json[k] as unknown[]).filter((x): x is string => typeof x === 'string') : undefined);
  const str = (k: string) => (typeof json[k] === 'string' ? (json[k] as string) : undefined);
  return {
    libraryFolders: list('similarSources.libraryFolders'),
    bibliographyFile: str('similarSources.bibliographyFile'),
    primarySourceFolders: list('similarSources.primarySourceFolders'),
    includeGlobs: list('similarSources.include'),
    excludeGlobs: list('similarSources.exclude'),
  };
}

/** Removes // and /* *\/ comments outside strings, and trailing commas. */
export function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i++;
      i++;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}
