/**
 * The host's services, built once at activation in dependency order and never
 * changed after: each feature receives what it uses. Views (panel, CodeLens,
 * hover, status bar) read stores and emit events; controllers (commands) drive
 * them. Neither reaches past the engine API.
 */
import type * as vscode from 'vscode';
import type { LibraryService } from './library';
import type { LocalModelCommands } from './localModel';
import type { PanelHost } from './panel';
import type { PdfViewer } from './pdfViewer';
import type { ResultStore } from './results';
import type { Trust } from './trust';

export interface Services {
  readonly extensionUri: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  readonly trust: Trust;
  readonly results: ResultStore;
  readonly library: LibraryService;
  readonly panel: PanelHost;
  readonly pdf: PdfViewer;
  readonly localModel: LocalModelCommands;
}
