/** A status bar item with the index state; clicking shows the index status. */
import * as vscode from 'vscode';
import type { IndexState, LibraryService } from './library';

export class IndexStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('similarSources.index', vscode.StatusBarAlignment.Left, 50);

  constructor(library: LibraryService) {
    this.item.name = 'Similar Sources';
    this.item.command = 'similarSources.showIndexStatus';
    library.onDidChangeState((s) => this.render(s));
    this.render(library.state);
  }

  private render(s: IndexState): void {
    const t = vscode.l10n.t;
    switch (s.kind) {
      case 'no-workspace':
      case 'unknown':
        this.item.hide();
        return;
      case 'missing':
        this.item.text = `$(library) ${t('Library not indexed')}`;
        this.item.tooltip = t('Similar Sources: the PDF library has not been indexed. Click for details.');
        break;
      case 'outdated':
        this.item.text = `$(library) ${t('Library index outdated')}`;
        this.item.tooltip = t('Similar Sources: the index was built by another version; indexing the library rebuilds it. Click for details.');
        break;
      case 'indexing':
        this.item.text = `$(sync~spin) ${t('Indexing {0}/{1}', Math.min(s.done + 1, s.total), s.total)}`;
        this.item.tooltip = t('Similar Sources is indexing the PDF library.');
        break;
      case 'ready':
        this.item.text = `$(library) ${t('{0} sources', s.sources)}`;
        this.item.tooltip = t('Similar Sources: {0} sources, {1} passages ({2}).', s.sources, s.passages, s.model);
        break;
      case 'error':
        this.item.text = `$(warning) ${t('Index damaged')}`;
        this.item.tooltip = s.message;
        break;
    }
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
