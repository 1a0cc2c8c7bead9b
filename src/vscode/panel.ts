/**
 * The Similar Sources panel: a webview beside the editor that renders one
 * PanelState (webview-ui/panel). The host owns the state; the webview sends
 * typed requests back, which become our commands. Strict CSP with a nonce;
 * resources only from dist/webview. The panel comes back after a reload through
 * a serializer, and asks (onDidRequestRestore) for its document's results.
 */
import * as vscode from 'vscode';
import type { HostMessage, PanelState, WebviewMessage } from '../shared/protocol';
import { checkWebviewMessage } from '../shared/messages';
import { PANEL_STRING_KEYS, PDF_STRING_KEYS } from '../shared/strings';
import { readSettings, writeOption } from './config';
import type { LibraryService } from './library';
import { toSegmentView, type ResultStore } from './results';
import type { Trust } from './trust';
import { localised, webviewHtml } from './webviewHtml';

export interface PanelDeps {
  extensionUri: vscode.Uri;
  /** Per-workspace memory (the panel's document across reloads). */
  memento: vscode.Memento;
  log: vscode.LogOutputChannel;
  results: ResultStore;
  library: LibraryService;
  trust: Trust;
}

export const PANEL_VIEW_TYPE = 'similarSources.panel';
const MEMENTO_DOCUMENT = 'panel.document';
const MEMENTO_SEGMENT = 'panel.segment';

export class PanelHost implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private ready = false;
  private state: PanelState = { kind: 'no-document', message: '' };
  /** The document and segment the panel shows. */
  private documentUri?: string;
  private segmentId: string | null = null;
  /** Whether the segment shown takes the keyboard (the user asked for it in the panel). */
  private takeFocus = false;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly restoreEmitter = new vscode.EventEmitter<vscode.Uri>();
  /** After a reload, the panel's document needs its results (from the analysis cache). */
  readonly onDidRequestRestore = this.restoreEmitter.event;
  private readonly flash = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'),
    isWholeLine: true,
  });

  constructor(private readonly ctx: PanelDeps) {
    this.state = { kind: 'no-document', message: vscode.l10n.t('Run “Find Similar Sources” on a Markdown document.') };
    this.disposables.push(
      this.restoreEmitter,
      this.flash,
      vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => {
          this.documentUri = ctx.memento.get<string>(MEMENTO_DOCUMENT);
          this.segmentId = ctx.memento.get<string>(MEMENTO_SEGMENT) ?? null;
          this.attach(panel);
          this.refresh();
          if (this.documentUri && !ctx.results.get(this.documentUri) && ctx.trust.trusted) this.restoreEmitter.fire(vscode.Uri.parse(this.documentUri));
        },
      }),
      ctx.trust.onDidRefuse((message) => this.showUntrusted(message)),
      ctx.results.onDidChange((uri) => {
        if (uri === this.documentUri) this.refresh();
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => this.followCursor(e.textEditor)),
      ctx.library.onDidChangeHealth((h) => {
        // Indexing progress shows in the panel unless it is showing results.
        if (!this.panel || this.state.kind === 'results') return;
        if (h.state === 'indexing') this.showState({ kind: 'indexing', message: vscode.l10n.t('Indexing PDFs'), done: h.done ?? 0, total: h.total ?? 0 });
        else if (this.state.kind === 'indexing' && h.state === 'ready')
          this.showState({ kind: 'no-document', message: vscode.l10n.t('Run “Find Similar Sources” on a Markdown document.') });
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('similarSources')) this.post();
      }),
    );
  }

  get visible(): boolean {
    return !!this.panel?.visible;
  }

  /** Opens (or reveals) the panel beside the editor without taking focus. */
  show(): void {
    if (this.panel) {
      if (!this.panel.visible) this.panel.reveal(vscode.ViewColumn.Beside, true);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPE,
      vscode.l10n.t('Similar Sources'),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      this.options(),
    );
    this.attach(panel);
  }

  showState(state: PanelState): void {
    this.state = state;
    this.show();
    this.post();
  }

  showUntrusted(message: string): void {
    this.showState({ kind: 'untrusted', message });
  }

  /**
   * Shows the results of a document, on the segment at `line` when there is one. `takeFocus`: the
   * user asked for that segment here (the keyboard moves to it); after an analysis it stays in the editor.
   */
  showDocument(uri: vscode.Uri, line?: number, segmentId?: string, takeFocus = false): void {
    this.documentUri = uri.toString();
    this.segmentId = segmentId ?? (line !== undefined ? (this.ctx.results.segmentAt(uri, line)?.id ?? null) : null);
    this.takeFocus = takeFocus;
    this.show();
    this.refresh();
    this.focusSegment();
  }

  private focusSegment(): void {
    if (this.segmentId)
      void this.panel?.webview.postMessage({ type: 'focusSegment', segmentId: this.segmentId, takeFocus: this.takeFocus } satisfies HostMessage);
    // Delivered once the webview is ready: a later reload of it does not take the keyboard again.
    if (this.ready) this.takeFocus = false;
  }

  /** Rebuilds the state from the stored results. */
  refresh(): void {
    void this.ctx.memento.update(MEMENTO_DOCUMENT, this.documentUri);
    void this.ctx.memento.update(MEMENTO_SEGMENT, this.segmentId ?? undefined);
    const doc = this.documentUri ? this.ctx.results.get(this.documentUri) : undefined;
    if (doc) {
      const seg = this.segmentId ? doc.segments.find((s) => s.id === this.segmentId) : undefined;
      this.state = {
        kind: 'results',
        document: vscode.Uri.parse(doc.uri).path.split('/').pop() ?? doc.uri,
        documentTitle: doc.documentTitle,
        segment: seg ? toSegmentView(seg) : null,
        segments: doc.segments
          .filter((s) => s.status !== 'too-short')
          .map((s) => ({ id: s.id, title: s.title, startLine: s.start + 1, endLine: s.end + 1, count: s.cards.length, status: s.status })),
        fromCache: doc.fromCache,
        threshold: doc.threshold,
        notice: doc.notice,
        rerankNote: doc.rerankNote,
        rerankHint: doc.rerankHint,
        semanticNote: doc.semanticNote,
      };
    } else if (this.state.kind === 'analyzing' || this.state.kind === 'results') {
      this.state = { kind: 'no-document', message: vscode.l10n.t('Run “Find Similar Sources” on a Markdown document.') };
    }
    this.post();
  }

  private followCursor(editor: vscode.TextEditor): void {
    if (!this.panel || editor.document.uri.toString() !== this.documentUri) return;
    const seg = this.ctx.results.segmentAt(editor.document.uri, editor.selection.active.line);
    if (seg && seg.id !== this.segmentId) {
      this.segmentId = seg.id;
      this.refresh();
    }
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      retainContextWhenHidden: true,
      // The panel loads its bundle and stylesheet, nothing else.
      localResourceRoots: [vscode.Uri.joinPath(this.ctx.extensionUri, 'dist', 'webview')],
    };
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.ready = false;
    panel.webview.options = this.options();
    panel.iconPath = vscode.Uri.joinPath(this.ctx.extensionUri, 'media', 'icon.svg');
    panel.webview.html = webviewHtml(panel.webview, this.ctx.extensionUri, { bundle: 'panel', title: 'Similar Sources', role: 'main' });
    panel.onDidDispose(
      () => {
        this.panel = undefined;
        this.ready = false;
      },
      null,
      this.disposables,
    );
    panel.webview.onDidReceiveMessage(
      (m: unknown) => {
        const checked = checkWebviewMessage(m);
        if (checked.ok) void this.onMessage(checked.value);
        else this.ctx.log.warn(`refused a message from the panel: ${checked.reason}`);
      },
      null,
      this.disposables,
    );
  }

  private post(): void {
    if (!this.panel || !this.ready) return;
    const s = readSettings(this.documentUri ? vscode.Uri.parse(this.documentUri) : undefined, this.ctx.log);
    const { granularity, maxResults, similarityThreshold, sourceType, collectionFilter, useReranking, useContextualEmbedding } = s;
    const options = { granularity, maxResults, similarityThreshold, sourceType, collectionFilter, useReranking, useContextualEmbedding };
    const msg: HostMessage = {
      type: 'state',
      state: this.state,
      options,
      collections: this.ctx.library.collections(),
      strings: localised([PANEL_STRING_KEYS, PDF_STRING_KEYS]),
    };
    void this.panel.webview.postMessage(msg);
  }

  private async onMessage(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.post();
        this.focusSegment();
        return;
      case 'openPdf':
        await vscode.commands.executeCommand('similarSources.openPdf', { path: m.path, page: m.page, highlight: m.highlight });
        return;
      case 'insertCitation':
      case 'copyCitation':
        await vscode.commands.executeCommand(m.type === 'insertCitation' ? 'similarSources.insertCitation' : 'similarSources.copyCitation', {
          uri: this.documentUri,
          segmentId: m.segmentId,
          sourceId: m.sourceId,
          page: m.page,
        });
        return;
      case 'revealSegment':
        await this.revealSegment(m.segmentId);
        return;
      case 'selectSegment':
        this.segmentId = m.segmentId;
        this.refresh();
        if (m.segmentId) await this.revealSegment(m.segmentId, true);
        return;
      case 'setOption':
        await writeOption(m.option, m.value);
        return;
      case 'run': {
        const command = {
          analyze: 'similarSources.findSimilarSources',
          index: 'similarSources.indexLibrary',
          rebuild: 'similarSources.rebuildIndex',
          configureLibrary: 'workbench.action.openSettings',
          showLog: 'similarSources.showLog',
        }[m.command];
        await vscode.commands.executeCommand(command, ...(m.command === 'configureLibrary' ? ['similarSources.libraryFolders'] : []));
        return;
      }
    }
  }

  /** Shows the segment in its editor, selected, so the eye finds it. */
  private async revealSegment(segmentId: string, preserveFocus = false): Promise<void> {
    if (!this.documentUri) return;
    const seg = this.ctx.results.segment(this.documentUri, segmentId);
    if (!seg) return;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(this.documentUri));
    const column = vscode.window.visibleTextEditors.find((e) => e.document === doc)?.viewColumn ?? vscode.ViewColumn.One;
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: column, preserveFocus });
    const range = new vscode.Range(seg.start, 0, seg.end, doc.lineAt(Math.min(seg.end, doc.lineCount - 1)).text.length);
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    editor.setDecorations(this.flash, [range]);
    setTimeout(() => editor.setDecorations(this.flash, []), 1500);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
