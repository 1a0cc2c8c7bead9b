/**
 * The `similarSources.*` settings as VS Code holds them, read through the one
 * schema (shared/settings.ts): wrong types and out-of-range values fall back to
 * their defaults, and the problem is logged once.
 */
import * as vscode from 'vscode';
import { resolveSettings, SETTINGS_SECTION, type PanelOptions, type Settings } from '../shared/settings';

export { SETTINGS_SECTION };

const told = new Set<string>();

export function readSettings(scope?: vscode.ConfigurationScope, log?: vscode.LogOutputChannel): Settings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION, scope);
  const { settings, problems } = resolveSettings((key) => c.get(key));
  for (const p of problems) {
    if (told.has(p)) continue;
    told.add(p);
    log?.warn(p);
  }
  return settings;
}

/** Panel controls write the settings (workspace when a folder is open), so both stay in step. */
export async function writeOption<K extends keyof PanelOptions>(option: K, value: PanelOptions[K]): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration(SETTINGS_SECTION).update(option, value, target);
}
