/**
 * The one HTML shell of our webviews: a strict CSP (no remote content, scripts
 * only by nonce), the bundle's stylesheet and script from dist/webview, and
 * nothing else. Each webview adds only what it needs beyond that (the PDF view:
 * blob workers and data/blob images for pdf.js).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export interface ShellOptions {
  /** Bundle names under dist/webview: `<name>.js` and `<name>.css`. */
  bundle: string;
  title: string;
  /** Extra CSP sources by directive, e.g. `{ 'worker-src': ['blob:'] }`. */
  extraCsp?: Record<string, string[]>;
  /** `role` of the root element. */
  role?: string;
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, o: ShellOptions): string {
  const nonce = randomBytes(16).toString('base64');
  const base = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  const css = webview.asWebviewUri(vscode.Uri.joinPath(base, `${o.bundle}.css`));
  const js = webview.asWebviewUri(vscode.Uri.joinPath(base, `${o.bundle}.js`));
  const csp: Record<string, string[]> = {
    'default-src': ["'none'"],
    'img-src': [webview.cspSource, 'data:'],
    'style-src': [webview.cspSource, `'nonce-${nonce}'`],
    'script-src': [`'nonce-${nonce}'`],
    'font-src': [webview.cspSource],
  };
  for (const [directive, sources] of Object.entries(o.extraCsp ?? {})) csp[directive] = [...(csp[directive] ?? []), ...sources];
  const policy = Object.entries(csp)
    .map(([d, s]) => `${d} ${s.join(' ')}`)
    .join('; ');
  return `<!DOCTYPE html>
<html lang="${vscode.env.language.startsWith('fr') ? 'fr' : 'en'}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}" nonce="${nonce}">
<title>${o.title}</title>
</head>
<body>
<div id="root"${o.role ? ` role="${o.role}"` : ''}></div>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
}

/** A webview's strings (shared/strings.ts), each localised by vscode.l10n. */
export function localised(tables: Array<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const table of tables) for (const [key, english] of Object.entries(table)) out[key] = vscode.l10n.t(english);
  return out;
}
