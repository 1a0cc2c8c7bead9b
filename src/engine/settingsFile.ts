/**
 * A workspace's `.vscode/settings.json`, read the way VS Code reads it (comments
 * and trailing commas allowed), into the same typed settings the extension gets
 * from VS Code: the CLI uses it so both resolve a workspace's library alike.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { defaultSettings, settingsFromJson, type Settings } from '../shared/settings';

export async function readWorkspaceSettings(workspace: string): Promise<{ settings: Settings; problems: string[] }> {
  const file = path.join(workspace, '.vscode', 'settings.json');
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return { settings: defaultSettings(), problems: [] };
  }
  let json: unknown;
  try {
    json = JSON.parse(stripJsonComments(text));
  } catch (err) {
    return { settings: defaultSettings(), problems: [`${file} is not valid JSON (${(err as Error).message}); using the default settings`] };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { settings: defaultSettings(), problems: [`${file} does not hold an object; using the default settings`] };
  return settingsFromJson(json as Record<string, unknown>);
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
