/**
 * A card's strength in the user's language: the band word and the number with
 * what it estimates (shared/bands.ts's BAND_DESCRIPTIONS, translated through
 * the l10n bundle), for the CodeLens tooltip and the hover.
 */
import * as vscode from 'vscode';
import { BAND_DESCRIPTIONS, bandOf, formatStrength, type Band } from '../shared/bands';

export function bandWord(band: Band): string {
  switch (band) {
    case 'strong':
      return vscode.l10n.t('strong');
    case 'related':
      return vscode.l10n.t('related');
    case 'weak':
      return vscode.l10n.t('weak');
  }
}

/** "2 strong", "1 related": the lens's count (its own string per band and number, for languages that agree them). */
export function bandCount(band: Band, n: number): string {
  switch (band) {
    case 'strong':
      return n === 1 ? vscode.l10n.t('1 strong') : vscode.l10n.t('{0} strong', n);
    case 'related':
      return n === 1 ? vscode.l10n.t('1 related') : vscode.l10n.t('{0} related', n);
    case 'weak':
      return n === 1 ? vscode.l10n.t('1 weak') : vscode.l10n.t('{0} weak', n);
  }
}

/** "Strong (63%): very likely a source to cite here (…)" in the user's language; the card's band (its model's cut-offs) when given. */
export function strengthText(similarity: number, band: Band = bandOf(similarity)): string {
  return formatStrength(vscode.l10n.t(BAND_DESCRIPTIONS[band]), similarity);
}
