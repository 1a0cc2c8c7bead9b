/**
 * The one context object handed to every feature: services, stores, views.
 */
import * as vscode from 'vscode';
import type { LibraryService } from './library';
import type { PanelHost } from './panel';
import type { PdfViewer } from './pdfViewer';
import type { ResultStore } from './results';

export interface Ctx {
  extensionUri: vscode.Uri;
  /** Per-workspace memory (the panel's document across reloads). */
  memento: vscode.Memento;
  log: vscode.LogOutputChannel;
  results: ResultStore;
  library: LibraryService;
  panel: PanelHost;
  pdf: PdfViewer;
  untrustedMessage(): string;
  highlightSegment(editor: vscode.TextEditor, range: vscode.Range): void;
}
