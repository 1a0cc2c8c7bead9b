/**
 * UI strings handed to the webviews: the English defaults declared by the
 * webview code, each localised by vscode.l10n (l10n/bundle.l10n.*.json).
 * Named placeholders ({page}, {count}) are filled in by the webview.
 */
import * as vscode from 'vscode';
import { PANEL_STRING_KEYS, PDF_STRING_KEYS } from '../../webview-ui/panel/render';

export function panelStrings(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, english] of Object.entries({ ...PANEL_STRING_KEYS, ...PDF_STRING_KEYS })) out[key] = vscode.l10n.t(english);
  return out;
}
