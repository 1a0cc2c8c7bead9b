/**
 * Opens a PDF inside VS Code at a page, with the passage highlighted: a webview
 * running pdf.js (webview-ui/pdf). Falls back to the system viewer only when
 * the webview reports that it cannot show the file.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PdfHostMessage, PdfWebviewMessage } from '../shared/protocol';
import { checkOpenPdfArgs, checkPdfWebviewMessage } from '../shared/messages';
import { PDF_STRING_KEYS } from '../shared/strings';
import { insideAny } from './paths';
import { localised, webviewHtml } from './webviewHtml';

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

  constructor(
    private readonly ctx: {
      extensionUri: vscode.Uri;
      log: vscode.LogOutputChannel;
      /** The folders whose PDFs may be opened: the library's and the workspace's. */
      allowedRoots(): string[];
      /**
       * Where this machine has the PDF a card names: a library server's paths are its publisher's,
       * and the engine finds a member's copy (`copy`: found in the library's places) or says why not.
       */
      locate(file: string): Promise<{ path: string; copy?: boolean } | { problem: string }>;
    },
  ) {}

  /** Opens a PDF of the library or the workspace at a page; anything else is refused and logged. */
  async open(args: unknown): Promise<void> {
    const checked = checkOpenPdfArgs(args);
    if (!checked.ok) {
      this.ctx.log.warn(`refused to open a PDF: ${checked.reason}`);
      return;
    }
    const here = await this.ctx.locate(checked.value.path);
    if ('problem' in here) {
      void vscode.window.showWarningMessage(here.problem);
      return;
    }
    const a = { ...checked.value, path: here.path };
    if (here.copy) this.ctx.log.info(`opening this machine's copy ${here.path} of the library server's ${checked.value.path}`);
    const file = vscode.Uri.file(a.path);
    try {
      await vscode.workspace.fs.stat(file);
    } catch {
      void vscode.window.showErrorMessage(vscode.l10n.t('The PDF {0} is no longer there.', a.path));
      return;
    }
    // A copy the engine found lies in the library's places by construction (Zotero storage included).
    if (!here.copy && !(await insideAny(a.path, this.ctx.allowedRoots()))) {
      this.ctx.log.warn(`refused to open ${a.path}: it is neither in the library nor in the workspace`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Similar Sources opens only PDFs of the library or the workspace.'));
      return;
    }
    await this.show(a);
  }

  private async show(args: OpenPdfArgs): Promise<void> {
    const roots = [vscode.Uri.joinPath(this.ctx.extensionUri, 'dist', 'webview'), vscode.Uri.file(path.dirname(args.path))];
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        PDF_VIEW_TYPE,
        path.basename(args.path),
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: roots },
      );
      this.ready = false;
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.ready = false;
      });
      this.panel.webview.onDidReceiveMessage((m: unknown) => {
        const checked = checkPdfWebviewMessage(m);
        if (checked.ok) this.onMessage(checked.value);
        else this.ctx.log.warn(`refused a message from the PDF view: ${checked.reason}`);
      });
      this.panel.webview.html = webviewHtml(this.panel.webview, this.ctx.extensionUri, {
        bundle: 'pdfViewer',
        title: 'PDF',
        // pdf.js: its worker from a blob, page images and fonts as blob/data URLs, inline styles on the text layer.
        extraCsp: {
          'img-src': ['blob:'],
          'style-src': ["'unsafe-inline'"],
          'font-src': ['data:'],
          'worker-src': ['blob:', this.panel.webview.cspSource],
          'connect-src': [this.panel.webview.cspSource],
        },
      });
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
    const msg: PdfHostMessage = {
      type: 'open',
      url: this.panel.webview.asWebviewUri(vscode.Uri.file(a.path)).toString(),
      name: path.basename(a.path),
      page: a.page,
      highlight: a.highlight ?? '',
      strings: localised([PDF_STRING_KEYS]),
    };
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

  dispose(): void {
    this.panel?.dispose();
    this.emitter.dispose();
  }
}
