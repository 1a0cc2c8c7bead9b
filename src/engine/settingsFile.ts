/**
 * A workspace's `.vscode/settings.json`, read with VS Code's own JSONC parser
 * (comments and trailing commas allowed), into the same typed settings the
 * extension gets from VS Code: the CLI uses it so both resolve a workspace's
 * library alike.
 */
import * as path from 'node:path';
import { readConfinedText } from '../core/util/confinedFiles';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { defaultSettings, settingsFromJson, type Settings } from '../shared/settings';

export async function readWorkspaceSettings(workspace: string): Promise<{ settings: Settings; problems: string[] }> {
  const file = path.join(workspace, '.vscode', 'settings.json');
  let text: string;
  try {
    // The workspace's own file: one that is a link out of it, a FIFO or a device is not read.
    text = (await readConfinedText(file, { kind: 'settings', within: [workspace], rootName: 'the workspace' })).text;
  } catch (e) {
    if ((e as { code?: string }).code === 'missing') return { settings: defaultSettings(), problems: [] };
    return { settings: defaultSettings(), problems: [`${(e as Error).message}; using the default settings`] };
  }
  const errors: ParseError[] = [];
  const json: unknown = parse(text, errors, { allowTrailingComma: true });
  if (errors.length) {
    const e = errors[0];
    return {
      settings: defaultSettings(),
      problems: [`${file} is not valid JSON (${printParseErrorCode(e.error)} at offset ${e.offset}); using the default settings`],
    };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    return { settings: defaultSettings(), problems: [`${file} does not hold an object; using the default settings`] };
  return settingsFromJson(json as Record<string, unknown>);
}
