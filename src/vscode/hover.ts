/**
 * Hover over an analysed segment: its top passages (source, page, excerpt)
 * with links to open the PDF at the page or insert the citation. Untrusted text
 * is written so that nothing in it is markup or a link (shared/untrusted.ts);
 * only our own two commands are trusted.
 */
import * as vscode from 'vscode';
import { shortAuthors } from '../shared/citation';
import type { HighlightMark } from '../shared/results';
import { markdownText } from '../shared/untrusted';
import type { ResultStore } from './results';
import { bandWord, strengthText } from './strength';

const TRUSTED = ['similarSources.openPdf', 'similarSources.insertCitation'];

export class SourcesHoverProvider implements vscode.HoverProvider {
  constructor(private readonly results: ResultStore) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const seg = this.results.segmentAt(document.uri, position.line);
    if (!seg || seg.status === 'too-short' || seg.cards.length === 0) return undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: TRUSTED };
    md.supportHtml = false;
    md.appendMarkdown(`**${markdownText(vscode.l10n.t('Similar sources'), 80)}**`);
    if (seg.status === 'outdated') md.appendMarkdown(` — _${markdownText(vscode.l10n.t('outdated: the text changed since the analysis'), 120)}_`);
    md.appendMarkdown('\n\n');
    for (const c of seg.cards.slice(0, 3)) {
      const page = c.pageLabel ?? String(c.page);
      const who = [shortAuthors(c.authors), c.year].filter(Boolean).join(' ');
      md.appendMarkdown(
        `$(book) **${markdownText(c.title, 160)}**${who ? ` — ${markdownText(who, 80)}` : ''}, p. ${markdownText(page, 20)} · **${markdownText(bandWord(c.band), 40)}** ${Math.round(c.similarity * 100)}%\n\n`,
      );
      const marks = [strengthText(c.similarity, c.band)];
      if (c.alreadyCited) marks.push(vscode.l10n.t('Already cited in this passage.'));
      if (c.citedIn?.length) marks.push(citedInText(c.citedIn));
      md.appendMarkdown(`_${markdownText(marks.join(' '), 400)}_\n\n`);
      md.appendMarkdown(`> ${markdownText(excerpt(c.preview, 240), 260)}\n\n`);
      if (c.highlight) md.appendMarkdown(`${highlightText(c.highlight)}\n\n`);
      const open = commandLink('similarSources.openPdf', {
        path: c.path,
        page: c.page,
        highlight: c.preview.replace(/^…/, '').split(/\s+/).slice(0, 12).join(' '),
      });
      const insert = commandLink('similarSources.insertCitation', { uri: document.uri.toString(), segmentId: seg.id, sourceId: c.sourceId, page: c.page });
      md.appendMarkdown(
        `[$(file-pdf) ${markdownText(vscode.l10n.t('Open PDF at p. {0}', page), 60)}](${open}) · [$(quote) ${markdownText(vscode.l10n.t('Insert citation'), 60)}](${insert})\n\n`,
      );
    }
    return new vscode.Hover(md, new vscode.Range(seg.start, 0, seg.end, Number.MAX_SAFE_INTEGER));
  }
}

/** "$(edit) _You highlighted this, p. 12._ Your comment: …" (Zotero's text: written as plain text). */
export function highlightText(h: HighlightMark): string {
  const said = `$(edit) _${markdownText(vscode.l10n.t('You highlighted this, p. {0}.', h.page), 80)}_`;
  return h.comment ? `${said} ${markdownText(vscode.l10n.t('Your comment: {0}', h.comment), 300)}` : said;
}

/** "Cited in § 2 and § 3." ("" names the text before the first heading). */
export function citedInText(where: string[]): string {
  const names = where.map((w) => w || vscode.l10n.t('the opening'));
  return vscode.l10n.t('Cited in {0}.', names.join(', '));
}

function commandLink(command: string, args: unknown): string {
  return `command:${command}?${encodeURIComponent(JSON.stringify([args]))}`;
}

function excerpt(t: string, n: number): string {
  return t.length <= n ? t : t.slice(0, n).replace(/\s+\S*$/, '') + '…';
}
