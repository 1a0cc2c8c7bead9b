/** A status bar item with the index's health; clicking shows the index status. */
import * as vscode from 'vscode';
import { statusBarText, type HostHealth } from './healthText';
import type { LibraryService } from './library';

export class IndexStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('similarSources.index', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(library: LibraryService) {
    this.item.name = 'Similar Sources';
    this.item.command = 'similarSources.showIndexStatus';
    this.subscription = library.onDidChangeHealth((h) => this.render(h));
    this.render(library.health);
  }

  private render(h: HostHealth): void {
    const shown = statusBarText(h);
    if (!shown) {
      this.item.hide();
      return;
    }
    this.item.text = shown.text;
    this.item.tooltip = shown.tooltip;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
