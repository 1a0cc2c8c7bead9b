/**
 * Workspace trust, checked in one place: in Restricted Mode the extension
 * reads no PDF, writes no index and contacts no server; a command says why
 * (a warning, and the panel's untrusted state) instead of running.
 */
import * as vscode from 'vscode';

export class Trust implements vscode.Disposable {
  private readonly refused = new vscode.EventEmitter<string>();
  /** Fires with the message when something was refused (the panel shows it). */
  readonly onDidRefuse = this.refused.event;

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  readonly message = (): string =>
    vscode.l10n.t(
      'Similar Sources is disabled in Restricted Mode: it reads and indexes the PDFs named by this workspace and may contact the Ollama server its settings name. Trust the workspace to use it.',
    );

  /** True when trusted; otherwise tells the user why nothing happens. */
  check(): boolean {
    if (this.trusted) return true;
    const message = this.message();
    this.refused.fire(message);
    void vscode.window.showWarningMessage(message);
    return false;
  }

  /** A command handler that runs only in a trusted workspace (undefined otherwise). */
  guard<A extends unknown[], R>(fn: (...a: A) => R | Promise<R>): (...a: A) => Promise<R | undefined> {
    return async (...a: A) => (this.check() ? fn(...a) : undefined);
  }

  dispose(): void {
    this.refused.dispose();
  }
}
