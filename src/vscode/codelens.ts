/**
 * A CodeLens above each analysed segment: "3 sources · Braudel 1949, p. 312 · 82%",
 * "no source above 40%", or "outdated: run again". Clicking opens the panel on it.
 */
import * as vscode from 'vscode';
import { shortAuthors } from '../shared/citation';
import { lineText } from '../shared/untrusted';
import { readSettings } from './config';
import type { ResultStore } from './results';

export class SourcesCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly results: ResultStore) {
    this.subscriptions = [
      this.emitter,
      results.onDidChange(() => this.emitter.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('similarSources.codeLens')) this.emitter.fire();
      }),
    ];
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!readSettings(document.uri).codeLens) return [];
    const doc = this.results.get(document.uri);
    if (!doc) return [];
    const lenses: vscode.CodeLens[] = [];
    for (const s of doc.segments) {
      if (s.status === 'too-short' || s.start >= document.lineCount) continue;
      const range = new vscode.Range(s.start, 0, s.start, 0);
      lenses.push(new vscode.CodeLens(range, { title: lensTitle(s, doc.threshold), tooltip: vscode.l10n.t('Show the sources of this passage'), command: 'similarSources.showSegment', arguments: [{ uri: doc.uri, segmentId: s.id }] }));
    }
    return lenses;
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}

export function lensTitle(s: { status: string; cards: Array<{ authors: string[]; title: string; year: number | null; page: number; pageLabel: string | null; similarity: number }> }, threshold: number): string {
  if (s.status === 'outdated') return `$(history) ${vscode.l10n.t('Outdated: run Find Similar Sources again')}`;
  if (s.cards.length === 0) return `$(circle-slash) ${vscode.l10n.t('No source above {0}%', Math.round(threshold * 100))}`;
  const top = s.cards[0];
  // Untrusted text, bounded: a lens stays one short line whatever the PDF's metadata holds.
  const author = lineText(shortAuthors(top.authors) || top.title.split(/\s+/).slice(0, 4).join(' '), 40);
  const who = [author, top.year].filter(Boolean).join(' ');
  const count = s.cards.length === 1 ? vscode.l10n.t('1 source') : vscode.l10n.t('{0} sources', s.cards.length);
  return `$(book) ${count} · ${who}, p. ${lineText(top.pageLabel ?? String(top.page), 12)} · ${Math.round(top.similarity * 100)}%`;
}
