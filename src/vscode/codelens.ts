/**
 * A CodeLens above each analysed segment that carries signal: "2 strong ·
 * Whitfield 2019, p. 214" (the cards of the best band, the top one's source),
 * or, dimmer, "no strong source" when nothing reaches the band the
 * `codeLensMinBand` setting asks for; "outdated: run again". The tooltip says
 * what the band estimates. Clicking opens the panel on the segment.
 */
import * as vscode from 'vscode';
import { lensSummary, type Band } from '../shared/bands';
import { shortAuthors } from '../shared/citation';
import { lineText } from '../shared/untrusted';
import { readSettings } from './config';
import type { ResultStore } from './results';
import { bandCount, strengthText } from './strength';

export class SourcesCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly results: ResultStore) {
    this.subscriptions = [
      this.emitter,
      results.onDidChange(() => this.changed()),
      // The panel opening beside the draft takes the focus, then gives it back: under load the editor
      // can lay its lenses out during that and draw none; asking again as the focus moves costs little.
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (!e || this.results.get(e.document.uri)) this.changed();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('similarSources.codeLens') || e.affectsConfiguration('similarSources.codeLensMinBand')) this.emitter.fire();
      }),
    ];
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const settings = readSettings(document.uri);
    if (!settings.codeLens) return [];
    const doc = this.results.get(document.uri);
    if (!doc) return [];
    const lenses: vscode.CodeLens[] = [];
    for (const s of doc.segments) {
      if (s.status === 'too-short' || s.start >= document.lineCount) continue;
      const range = new vscode.Range(s.start, 0, s.start, 0);
      const { title, tooltip } = lensText(s, doc.threshold, settings.codeLensMinBand);
      lenses.push(new vscode.CodeLens(range, { title, tooltip, command: 'similarSources.showSegment', arguments: [{ uri: doc.uri, segmentId: s.id }] }));
    }
    return lenses;
  }

  /**
   * Asks the editor for the lenses now, and once more a second later: under load the
   * editor can miss the first refresh while it is laying out a new panel beside it, and
   * would then show no lens until the next edit.
   */
  private changed(): void {
    this.emitter.fire();
    clearTimeout(this.again);
    this.again = setTimeout(() => this.emitter.fire(), 1000);
  }

  private again?: NodeJS.Timeout;

  dispose(): void {
    clearTimeout(this.again);
    for (const d of this.subscriptions) d.dispose();
  }
}

type LensCard = { authors: string[]; title: string; year: number | null; page: number; pageLabel: string | null; similarity: number; band?: Band };

/** The "no strong source" wording for the band the setting asks for. */
function noneText(minBand: Band, threshold: number, hasCards: boolean): string {
  if (!hasCards && threshold > 0) return vscode.l10n.t('no source above {0}%', Math.round(threshold * 100));
  switch (minBand) {
    case 'strong':
      return vscode.l10n.t('no strong source');
    case 'related':
      return vscode.l10n.t('no strong or related source');
    case 'weak':
      return vscode.l10n.t('no source');
  }
}

export function lensText(s: { status: string; cards: LensCard[] }, threshold: number, minBand: Band): { title: string; tooltip: string } {
  const open = vscode.l10n.t('Show the sources of this passage');
  if (s.status === 'outdated') return { title: `$(history) ${vscode.l10n.t('Outdated: run Find Similar Sources again')}`, tooltip: open };
  const summary = lensSummary(s.cards, minBand);
  if (summary.kind === 'below') {
    // Dimmer: a hollow glyph and lower case, so a segment with something to read stands out.
    const best = s.cards[0];
    const tooltip = best ? `${vscode.l10n.t('Best source here:')} ${strengthText(best.similarity, best.band)}\n\n${open}` : open;
    return { title: `$(circle-outline) ${noneText(minBand, threshold, s.cards.length > 0)}`, tooltip };
  }
  const top = summary.top;
  // Untrusted text, bounded: a lens stays one short line whatever the PDF's metadata holds.
  const author = lineText(shortAuthors(top.authors) || top.title.split(/\s+/).slice(0, 4).join(' '), 40);
  const who = [author, top.year].filter(Boolean).join(' ');
  return {
    title: `$(book) ${bandCount(summary.band, summary.count)} · ${who}, p. ${lineText(top.pageLabel ?? String(top.page), 12)}`,
    tooltip: `${strengthText(top.similarity, top.band)}\n\n${open}`,
  };
}
