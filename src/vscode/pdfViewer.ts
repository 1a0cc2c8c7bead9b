/**
 * Opens a PDF inside VS Code at a page, with the passage highlighted: a webview
 * running pdf.js (webview-ui/pdf). Falls back to the system viewer only when
 * the webview reports that it cannot show the file.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PdfHostMessage, PdfWebviewMessage } from '../shared/protocol';
import type { Ctx } from './ctx';
import { panelStrings } from './strings';

export const PDF_VIEW_TYPE = 'similarSources.pdf';

export interface OpenPdfArgs {
  path: string;
  page: number;
  highlight?: string;
}

export class PdfViewer implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private ready = false;
  private pending?: OpenPdfArgs;
  private current?: OpenPdfArgs;
  private readonly emitter = new vscode.EventEmitter<{ page: number; pages: number; highlighted: boolean }>();
  /** Fires when the viewer has rendered the requested page (tests wait on it). */
  readonly onDidLoad = this.emitter.event;

  constructor(private readonly ctx: Ctx) {}

  async open(args: OpenPdfArgs): Promise<void> {
    if (!args?.path) return;
    const file = vscode.Uri.file(args.path);
    try {
      await vscode.workspace.fs.stat(file);
    } catch {
      void vscode.window.showErrorMessage(vscode.l10n.t('The PDF {0} is no longer there.', args.path));
      return;
    }
    const roots = [vscode.Uri.joinPath(this.ctx.extensionUri, 'dist', 'webview'), vscode.Uri.file(path.dirname(args.path))];
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(PDF_VIEW_TYPE, path.basename(args.path), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: roots });
      this.ready = false;
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.ready = false;
      });
      this.panel.webview.onDidReceiveMessage((m: PdfWebviewMessage) => this.onMessage(m));
      this.panel.webview.html = this.html(this.panel.webview);
    } else {
      this.panel.webview.options = { enableScripts: true, localResourceRoots: roots };
      this.panel.title = path.basename(args.path);
      this.panel.reveal(undefined, false);
    }
    this.pending = args;
    this.flush();
  }

  private flush(): void {
    if (!this.panel || !this.ready || !this.pending) return;
    const a = this.pending;
    this.pending = undefined;
    this.current = a;
    const msg: PdfHostMessage = { type: 'open', url: this.panel.webview.asWebviewUri(vscode.Uri.file(a.path)).toString(), name: path.basename(a.path), page: a.page, highlight: a.highlight ?? '', strings: panelStrings() };
    void this.panel.webview.postMessage(msg);
  }

  private onMessage(m: PdfWebviewMessage): void {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.flush();
        return;
      case 'loaded':
        this.ctx.log.info(`PDF shown at page ${m.page}/${m.pages}${m.highlighted ? ', passage highlighted' : ', passage not found on the page'}`);
        this.emitter.fire({ page: m.page, pages: m.pages, highlighted: m.highlighted });
        return;
      case 'error': {
        const a = this.current;
        this.ctx.log.warn(`PDF viewer failed (${m.message}); opening the system viewer`);
        if (a) void vscode.env.openExternal(vscode.Uri.file(a.path).with({ fragment: `page=${a.page}` }));
        return;
      }
    }
  }

  private html(webview: vscode.Webview): string {
    const nonce = randomBytes(16).toString('base64');
    const base = vscode.Uri.joinPath(this.ctx.extensionUri, 'dist', 'webview');
    const css = webview.asWebviewUri(vscode.Uri.joinPath(base, 'pdfViewer.css'));
    const js = webview.asWebviewUri(vscode.Uri.joinPath(base, 'pdfViewer.js'));
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data: blob:`,
      `style-src ${webview.cspSource} 'nonce-${nonce}' 'unsafe-inline'`,
      `script-src 'nonce-${nonce}'`,
      `font-src ${webview.cspSource} data:`,
      `worker-src blob: ${webview.cspSource}`,
      `connect-src ${webview.cspSource}`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}" nonce="${nonce}">
<title>PDF</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
  }

  dispose(): void {
    this.panel?.dispose();
    this.emitter.dispose();
  }
}
