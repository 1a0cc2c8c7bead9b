/**
 * Pure rendering of the Similar Sources panel: state in, HTML string out.
 *
 * No DOM globals are touched here, so the module runs under mocha in Node. Every string that comes from a PDF
 * or the workspace is untrusted: it is escaped before it reaches the markup,
 * and nothing is ever put into an inline `style` attribute or event handler
 * (the webview CSP allows neither).
 */
import type { PanelState, SegmentView } from '../../src/shared/protocol';
import type { PassageResult, Recommendation } from '../../src/shared/results';
import type { Granularity, PanelOptions, SourceTypeFilter } from '../../src/shared/settings';
import type { UiStrings } from '../../src/shared/strings';
import { bandOf, formatPercent, formatStrength, type Band } from '../../src/shared/bands';
import { foldAccents } from '../../src/shared/fold';
import { PANEL_STRING_KEYS, translate, type PanelStringKey } from '../../src/shared/strings';

/** Looks a panel string up in the host's strings (English by default) and fills `{placeholders}`. */
export function t(strings: UiStrings, key: PanelStringKey, vars?: Record<string, string | number>): string {
  return translate(PANEL_STRING_KEYS, strings, key, vars);
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for use in element content and in quoted attribute values. */
export function escapeHtml(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return text.replace(/[&<>"'`]/g, (c) => HTML_ESCAPES[c]!);
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * Escapes `text` and wraps each whole word that matches one of `words` in
 * `<mark>`. Matching is case-insensitive and accent-insensitive ("societe"
 * marks "Société"). The text is split into words and separators first and
 * every piece is escaped on its own, so no markup from the text can survive
 * and entity names (`&amp;`) can never be matched.
 */
export function markWordsHtml(text: string, words: readonly string[]): string {
  const source = text ?? '';
  const wanted = new Set<string>();
  for (const w of words ?? []) {
    for (const m of String(w).matchAll(WORD)) {
      const folded = foldAccents(m[0]);
      if (folded) wanted.add(folded);
    }
  }
  if (wanted.size === 0) return escapeHtml(source);
  let out = '';
  let last = 0;
  for (const m of source.matchAll(WORD)) {
    const start = m.index ?? 0;
    out += escapeHtml(source.slice(last, start));
    const word = m[0];
    out += wanted.has(foldAccents(word)) ? `<mark>${escapeHtml(word)}</mark>` : escapeHtml(word);
    last = start + word.length;
  }
  out += escapeHtml(source.slice(last));
  // Adjacent marks separated only by spaces read better as one.
  return out.replace(/<\/mark>(\s+)<mark>/g, '$1');
}

/** Up to `count` words from the start of a preview, without leading/trailing ellipses. */
export function firstWords(text: string, count = 12): string {
  const cleaned = (text ?? '').replace(/^[\s.…]+/, '').replace(/[\s.…]+$/, '');
  return cleaned.split(/\s+/).filter(Boolean).slice(0, count).join(' ');
}

/** A card's strength for its hover, in the panel's language: "Strong (63%): very likely a source to cite here (…)". */
export function strengthTitle(strings: UiStrings, similarity: number, band?: Band): string {
  const v = Number.isFinite(similarity) ? Math.min(1, Math.max(0, similarity)) : 0;
  return formatStrength(t(strings, `band.${band ?? bandOf(v)}.description`), v);
}

function pageText(strings: UiStrings, page: number, pageLabel: string | null): string {
  const label = pageLabel && pageLabel.trim() ? pageLabel.trim() : String(page);
  return t(strings, 'card.page', { page: label });
}

function linesText(strings: UiStrings, start: number, end: number): string {
  return start === end || end < start ? t(strings, 'segment.line', { line: start }) : t(strings, 'segment.lines', { start, end });
}

function segmentTitle(strings: UiStrings, title: string): string {
  return title && title.trim() ? title : t(strings, 'segment.untitled');
}

/** A `data-*` attribute with an escaped value. */
function data(name: string, value: unknown): string {
  return ` data-${name}="${escapeHtml(value)}"`;
}

function button(label: string, attrs: string, kind: 'primary' | 'secondary' | 'link' = 'secondary', extra = ''): string {
  return `<button type="button" class="btn btn-${kind}"${attrs}${extra}>${escapeHtml(label)}</button>`;
}

function runButton(strings: UiStrings, command: string, key: PanelStringKey, kind: 'primary' | 'secondary' = 'primary'): string {
  return button(
    t(strings, key),
    `${data('action', 'run')}${data('command', command)}${data('focus-key', `run:${command}`)}`,
    kind,
    ` data-testid="run-${escapeHtml(command)}"`,
  );
}

// ---------------------------------------------------------------------------
// Options

function renderOptions(options: PanelOptions, collections: string[], strings: UiStrings, find: 'enabled' | 'disabled' | 'hidden', rerankHint?: string): string {
  const opt = (value: string, label: string, selected: boolean) =>
    `<option value="${escapeHtml(value)}"${selected ? ' selected' : ''}>${escapeHtml(label)}</option>`;
  const granularities: Granularity[] = ['section', 'paragraph', 'sentence'];
  const sourceTypes: SourceTypeFilter[] = ['secondary', 'primary', 'both'];
  const rerankModes = ['auto', 'on', 'off'] as const;
  // A boolean from an earlier version of the setting: true was 'auto', false 'off'.
  const rerank = typeof options.useReranking === 'boolean' ? (options.useReranking ? 'auto' : 'off') : options.useReranking;
  const threshold = Number.isFinite(options.similarityThreshold) ? Math.min(1, Math.max(0, options.similarityThreshold)) : 0;
  const maxResults = Number.isFinite(options.maxResults) ? Math.min(20, Math.max(1, Math.round(options.maxResults))) : 5;
  const checked = new Set(options.collectionFilter ?? []);
  // Collections filtered on but no longer in the library stay visible so they can be unchecked.
  const allCollections = [...new Set([...(collections ?? []), ...checked])];

  const collectionsHtml =
    allCollections.length === 0
      ? `<p class="hint">${escapeHtml(t(strings, 'options.noCollections'))}</p>`
      : `<ul class="checklist">${allCollections
          .map((name, i) => {
            const id = `opt-collection-${i}`;
            return `<li><input type="checkbox" id="${id}" class="checkbox"${data('option', 'collectionFilter')}${data('collection', name)}${data('focus-key', `collection:${name}`)}${checked.has(name) ? ' checked' : ''}><label for="${id}">${escapeHtml(name)}</label></li>`;
          })
          .join('')}</ul><p class="hint">${escapeHtml(t(strings, 'options.collectionsHint'))}</p>`;

  const findButton =
    find === 'hidden'
      ? ''
      : `<div class="toolbar">${button(
          t(strings, 'action.find'),
          `${data('action', 'run')}${data('command', 'analyze')}${data('focus-key', 'run:analyze-main')}`,
          'primary',
          ` data-testid="find"${find === 'disabled' ? ' disabled' : ''}`,
        )}</div>`;
  return `${findButton}
<details class="options" id="options" data-testid="options"${data('focus-key', 'options')}>
<summary>${escapeHtml(t(strings, 'options.title'))}</summary>
<div class="options-grid">
  <div class="field">
    <label for="opt-granularity">${escapeHtml(t(strings, 'options.granularity'))}</label>
    <select id="opt-granularity" data-testid="opt-granularity"${data('option', 'granularity')}${data('focus-key', 'opt:granularity')}>${granularities
      .map((g) => opt(g, t(strings, `options.granularity.${g}` as PanelStringKey), options.granularity === g))
      .join('')}</select>
  </div>
  <div class="field">
    <label for="opt-max-results">${escapeHtml(t(strings, 'options.maxResults'))}</label>
    <input type="number" id="opt-max-results" data-testid="opt-max-results" min="1" max="20" step="1" value="${maxResults}"${data('option', 'maxResults')}${data('focus-key', 'opt:maxResults')}>
  </div>
  <div class="field field-wide">
    <label for="opt-threshold">${escapeHtml(t(strings, 'options.threshold'))}</label>
    <div class="range-row">
      <input type="range" id="opt-threshold" data-testid="opt-threshold" min="0" max="1" step="0.01" value="${threshold}"${data('option', 'similarityThreshold')}${data('focus-key', 'opt:threshold')} aria-valuetext="${escapeHtml(formatPercent(threshold))}">
      <output for="opt-threshold" id="opt-threshold-value" data-testid="opt-threshold-value">${escapeHtml(formatPercent(threshold))}</output>
    </div>
  </div>
  <div class="field">
    <label for="opt-source-type">${escapeHtml(t(strings, 'options.sourceType'))}</label>
    <select id="opt-source-type" data-testid="opt-source-type"${data('option', 'sourceType')}${data('focus-key', 'opt:sourceType')}>${sourceTypes
      .map((s) => opt(s, t(strings, `options.sourceType.${s}` as PanelStringKey), options.sourceType === s))
      .join('')}</select>
  </div>
  <fieldset class="field field-wide collections" data-testid="opt-collections">
    <legend>${escapeHtml(t(strings, 'options.collections'))}</legend>
    ${collectionsHtml}
  </fieldset>
  <div class="field field-wide checks">
    <div class="check"><input type="checkbox" id="opt-contextual" class="checkbox" data-testid="opt-contextual"${data('option', 'useContextualEmbedding')}${data('focus-key', 'opt:useContextualEmbedding')}${options.useContextualEmbedding ? ' checked' : ''}><label for="opt-contextual">${escapeHtml(t(strings, 'options.contextual'))}</label></div>
  </div>
  <div class="field field-wide">
    <label for="opt-reranking">${escapeHtml(t(strings, 'options.reranking'))}</label>
    <select id="opt-reranking" data-testid="opt-reranking"${data('option', 'useReranking')}${data('focus-key', 'opt:useReranking')}${rerankHint ? ' aria-describedby="opt-reranking-hint"' : ''}>${rerankModes
      .map((m) => opt(m, t(strings, `options.reranking.${m}` as PanelStringKey), rerank === m))
      .join('')}</select>
    ${rerankHint ? `<p class="hint" id="opt-reranking-hint" data-testid="rerank-hint">${escapeHtml(t(strings, 'options.rerankHint', { hint: rerankHint }))}</p>` : ''}
  </div>
</div>
</details>`;
}

// ---------------------------------------------------------------------------
// Cards

function renderBadges(card: Recommendation, strings: UiStrings): string {
  const badges: string[] = [];
  if (card.reranked)
    badges.push(
      `<span class="badge badge-reranked" data-testid="badge-reranked" title="${escapeHtml(t(strings, 'card.rerankedTitle'))}">${escapeHtml(t(strings, 'card.reranked'))}</span>`,
    );
  if (card.alreadyCited)
    badges.push(
      `<span class="badge badge-cited" data-testid="badge-cited" title="${escapeHtml(t(strings, 'card.citedTitle'))}">${escapeHtml(t(strings, 'card.cited'))}</span>`,
    );
  if (card.citedIn && card.citedIn.length) {
    const sections = card.citedIn.map((s) => s || t(strings, 'card.citedInOpening')).join(', ');
    badges.push(
      `<span class="badge badge-cited" data-testid="badge-cited-in" title="${escapeHtml(t(strings, 'card.citedInTitle', { sections }))}">${escapeHtml(t(strings, 'card.citedIn', { sections }))}</span>`,
    );
  }
  if (card.language) {
    const key = card.language === 'fr' ? 'card.languageFr' : 'card.languageEn';
    badges.push(
      `<span class="badge badge-language" data-testid="badge-language" lang="${card.language}" title="${escapeHtml(t(strings, `${key}Title` as PanelStringKey))}">${escapeHtml(t(strings, key))}</span>`,
    );
  }
  if (card.ocr)
    badges.push(
      `<span class="badge badge-ocr" data-testid="badge-ocr" title="${escapeHtml(t(strings, 'card.ocrTitle'))}">${escapeHtml(t(strings, 'card.ocr'))}</span>`,
    );
  if (card.sourceType === 'primary')
    badges.push(
      `<span class="badge badge-primary" data-testid="badge-primary" title="${escapeHtml(t(strings, 'card.primaryTitle'))}">${escapeHtml(t(strings, 'card.primary'))}</span>`,
    );
  return badges.length ? `<div class="badges">${badges.join('')}</div>` : '';
}

/** Zotero's highlight colours (the annotation palette), by class: the panel's policy allows no inline style. */
const HIGHLIGHT_COLORS: Record<string, string> = {
  '#ffd400': 'yellow',
  '#ff6666': 'red',
  '#5fb236': 'green',
  '#2ea8e5': 'blue',
  '#a28ae5': 'purple',
  '#e56eee': 'magenta',
  '#f19837': 'orange',
  '#aaaaaa': 'gray',
};

/** The Zotero item's DOI (written doi:…, as scholars cite it) and tags (#tag), when it has them. */
function renderZotero(card: Recommendation): string {
  const parts = [
    ...(card.doi ? [`<span class="card-doi" data-testid="card-doi">doi:${escapeHtml(card.doi)}</span>`] : []),
    ...(card.tags ?? []).map((tag) => `<span class="card-tag">#${escapeHtml(tag)}</span>`),
  ];
  return parts.length ? `<p class="card-zotero">${parts.join(' ')}</p>\n` : '';
}

/** "you highlighted this, p. 12" and the user's comment, when the best passage is highlighted in Zotero. */
function renderHighlight(card: Recommendation, strings: UiStrings): string {
  const h = card.highlight;
  if (!h || typeof h.page !== 'string' || typeof h.text !== 'string') return '';
  const color = HIGHLIGHT_COLORS[String(h.color ?? '').toLowerCase()] ?? 'default';
  const excerpt = h.text.length > 300 ? `${h.text.slice(0, 299)}…` : h.text;
  const comment = h.comment
    ? `<span class="sep" aria-hidden="true"> — </span><q class="highlight-comment" data-testid="highlight-comment">${escapeHtml(h.comment)}</q>`
    : '';
  return `<p class="card-highlight" data-testid="card-highlight" title="${escapeHtml(t(strings, 'card.highlightedTitle', { text: excerpt }))}"><span class="highlight-swatch highlight-${color}" aria-hidden="true"></span>${escapeHtml(t(strings, 'card.highlighted', { page: h.page }))}${comment}</p>
`;
}

function renderPassages(card: Recommendation, index: number, strings: UiStrings): string {
  const passages: PassageResult[] = (card.passages ?? []).slice(0, 2);
  if (passages.length === 0) return '';
  const summary = passages.length === 1 ? t(strings, 'card.morePassagesOne') : t(strings, 'card.morePassages', { count: passages.length });
  const title = card.title || card.path;
  const items = passages
    .map((p, j) => {
      const page = pageText(strings, p.page, p.pageLabel);
      const heading = p.heading ? `<span class="passage-heading">${escapeHtml(p.heading)}</span>` : '';
      return `<li class="passage" data-testid="passage">
  <div class="passage-head"><span class="passage-page" data-testid="passage-page">${escapeHtml(page)}</span>${heading}<span class="passage-sim">${escapeHtml(formatPercent(p.similarity))}</span>${button(
    t(strings, 'action.openPassage'),
    `${data('action', 'open-pdf')}${data('path', card.path)}${data('page', p.page)}${data('highlight', firstWords(p.preview))}${data('focus-key', `passage:${card.sourceId}:${j}`)}`,
    'link',
    ` data-testid="open-passage" aria-label="${escapeHtml(t(strings, 'action.openPassageLabel', { title, page }))}"`,
  )}</div>
  <p class="passage-preview">${markWordsHtml(p.preview, card.highlights ?? [])}</p>
</li>`;
    })
    .join('');
  return `<details class="more" id="more-${index}"${data('focus-key', `more:${card.sourceId}`)}><summary>${escapeHtml(summary)}</summary><ul class="passages">${items}</ul></details>`;
}

export function renderCard(card: Recommendation, index: number, segmentId: string, strings: UiStrings): string {
  const titleId = `card-${index}-title`;
  const title = card.title && card.title.trim() ? card.title : card.path;
  const authors = card.authors && card.authors.length ? card.authors.join(', ') : t(strings, 'card.noAuthor');
  const year = card.year === null || card.year === undefined ? t(strings, 'card.noYear') : String(card.year);
  const page = pageText(strings, card.page, card.pageLabel);
  const pageTitle =
    card.pageLabel && card.pageLabel.trim() && card.pageLabel.trim() !== String(card.page)
      ? ` title="${escapeHtml(t(strings, 'card.pdfPage', { page: card.page }))}"`
      : '';
  const percent = formatPercent(card.similarity);
  const sim = Number.isFinite(card.similarity) ? Math.min(1, Math.max(0, card.similarity)) : 0;
  // The card's band (its model's cut-offs), else today's.
  const band = card.band ?? bandOf(sim);
  const common = `${data('segment-id', segmentId)}${data('source-id', card.sourceId)}${data('page', card.page)}`;
  const duplicates =
    card.duplicates && card.duplicates.length
      ? `<p class="duplicates">${escapeHtml(t(strings, 'card.duplicates', { files: card.duplicates.join(', ') }))}</p>`
      : '';
  const citekey = card.citekey ? `<span class="citekey">@${escapeHtml(card.citekey)}</span>` : '';
  return `<article class="card${card.alreadyCited ? ' is-cited' : ''}" data-testid="card" aria-labelledby="${titleId}"${data('source-id', card.sourceId)}>
<header class="card-head">
  <h3 class="card-title" id="${titleId}" data-testid="card-title">${escapeHtml(title)}</h3>
  <div class="card-score" title="${escapeHtml(strengthTitle(strings, card.similarity, card.band))}">
    <span class="card-band band-${band}" data-testid="card-band">${escapeHtml(t(strings, `band.${band}`))}</span>
    <span class="card-similarity" data-testid="card-similarity" aria-label="${escapeHtml(t(strings, 'card.similarityValue', { percent }))}">${escapeHtml(percent)}</span>
    <meter class="sim-meter" min="0" max="1" value="${sim}" aria-hidden="true"></meter>
  </div>
</header>
<p class="card-meta"><span class="card-authors">${escapeHtml(authors)}</span><span class="sep" aria-hidden="true"> · </span><span class="card-year">${escapeHtml(year)}</span><span class="sep" aria-hidden="true"> · </span><span class="card-page" data-testid="card-page"${pageTitle}>${escapeHtml(page)}</span>${citekey ? `<span class="sep" aria-hidden="true"> · </span>${citekey}` : ''}</p>
${renderZotero(card)}${renderBadges(card, strings)}
<blockquote class="card-preview" data-testid="card-preview">${markWordsHtml(card.preview, card.highlights ?? [])}</blockquote>
${renderHighlight(card, strings)}${renderPassages(card, index, strings)}${duplicates}
<div class="card-actions">
  ${button(t(strings, 'action.openPdf'), `${data('action', 'open-pdf')}${data('path', card.path)}${data('page', card.page)}${data('highlight', firstWords(card.preview))}${data('focus-key', `open:${card.sourceId}`)}`, 'primary', ` data-testid="open-pdf" aria-label="${escapeHtml(t(strings, 'action.openPdfLabel', { title, page }))}"`)}
  ${button(t(strings, 'action.insertCitation'), `${data('action', 'insert-citation')}${common}${data('focus-key', `insert:${card.sourceId}`)}`, 'secondary', ` data-testid="insert-citation" aria-label="${escapeHtml(t(strings, 'action.insertCitationLabel', { title }))}"`)}
  ${button(t(strings, 'action.copyCitation'), `${data('action', 'copy-citation')}${common}${data('focus-key', `copy:${card.sourceId}`)}`, 'secondary', ` data-testid="copy-citation" aria-label="${escapeHtml(t(strings, 'action.copyCitationLabel', { title }))}"`)}
</div>
</article>`;
}

// ---------------------------------------------------------------------------
// States

type ResultsState = Extract<PanelState, { kind: 'results' }>;

function renderSegmentList(state: ResultsState, strings: UiStrings): string {
  if (state.segments.length === 0) {
    return `<p class="empty" data-testid="no-segments">${escapeHtml(t(strings, 'results.noSegments'))}</p>`;
  }
  const items = state.segments
    .map((s) => {
      const status =
        s.status !== 'analysed'
          ? `<span class="seg-status seg-status-${escapeHtml(s.status)}">${escapeHtml(t(strings, `segment.status.${s.status}` as PanelStringKey))}</span>`
          : '';
      return `<li><button type="button" class="segment-item"${data('action', 'select-segment')}${data('segment-id', s.id)}${data('focus-key', `seg:${s.id}`)} data-testid="segment-item">
  <span class="seg-title">${escapeHtml(segmentTitle(strings, s.title))}</span>
  <span class="seg-lines">${escapeHtml(linesText(strings, s.startLine, s.endLine))}</span>${status}
  <span class="count-badge" aria-label="${escapeHtml(s.count === 1 ? t(strings, 'results.sourceCountOne') : t(strings, 'results.sourceCount', { count: s.count }))}">${escapeHtml(t(strings, 'segment.count', { count: s.count }))}</span>
</button></li>`;
    })
    .join('');
  return `<section class="segments" aria-labelledby="segments-heading">
<h2 id="segments-heading" class="section-heading">${escapeHtml(t(strings, 'results.segments'))}</h2>
<ul class="segment-list" data-testid="segment-list">${items}</ul>
</section>`;
}

function renderSegmentSelector(state: ResultsState, segment: SegmentView, strings: UiStrings): string {
  const index = state.segments.findIndex((s) => s.id === segment.id);
  const prev = index > 0 ? state.segments[index - 1] : undefined;
  const next = index >= 0 && index < state.segments.length - 1 ? state.segments[index + 1] : undefined;
  const options = [`<option value="">${escapeHtml(t(strings, 'action.allSegments'))}</option>`]
    .concat(
      state.segments.map((s) => {
        const label = `${segmentTitle(strings, s.title)} (${linesText(strings, s.startLine, s.endLine)}) · ${s.count}`;
        return `<option value="${escapeHtml(s.id)}"${s.id === segment.id ? ' selected' : ''}>${escapeHtml(label)}</option>`;
      }),
    )
    .join('');
  const nav = (target: { id: string } | undefined, key: PanelStringKey, glyph: string, fk: string) =>
    `<button type="button" class="btn btn-icon"${target ? data('action', 'select-segment') + data('segment-id', target.id) : ' disabled'}${data('focus-key', fk)} aria-label="${escapeHtml(t(strings, key))}" title="${escapeHtml(t(strings, key))}"><span aria-hidden="true">${glyph}</span></button>`;
  return `<div class="segment-nav">
  ${nav(prev, 'action.previousSegment', '&#8249;', 'nav:prev')}
  <label for="segment-select" class="visually-hidden">${escapeHtml(t(strings, 'results.segmentSelector'))}</label>
  <select id="segment-select" class="segment-select" data-testid="segment-select"${data('action', 'select-segment')}${data('focus-key', 'segment-select')}>${options}</select>
  ${nav(next, 'action.nextSegment', '&#8250;', 'nav:next')}
</div>`;
}

function renderSegment(state: ResultsState, segment: SegmentView, strings: UiStrings): string {
  let status = '';
  if (segment.status === 'too-short')
    status = `<p class="banner banner-info" data-testid="segment-too-short">${escapeHtml(t(strings, 'results.tooShort'))}</p>`;
  else if (segment.status === 'outdated')
    status = `<p class="banner banner-warning" data-testid="segment-outdated">${escapeHtml(t(strings, 'results.outdated'))}</p>`;

  const cards = segment.cards ?? [];
  let body: string;
  if (cards.length > 0) {
    body = `<h3 class="visually-hidden">${escapeHtml(t(strings, 'results.sources'))}</h3><div class="cards" data-testid="cards">${cards.map((c, i) => renderCard(c, i, segment.id, strings)).join('')}</div>`;
  } else if (segment.status === 'too-short') {
    body = '';
  } else {
    body = `<div class="empty" data-testid="no-results"><p>${escapeHtml(t(strings, 'results.noneAboveThreshold', { threshold: formatPercent(state.threshold) }))}</p><p class="hint">${escapeHtml(t(strings, 'results.lowerThreshold'))}</p></div>`;
  }

  return `<section class="segment" aria-labelledby="segment-title" data-testid="segment"${data('segment-id', segment.id)}>
${renderSegmentSelector(state, segment, strings)}
<header class="segment-head" id="segment-head">
  <h2 class="segment-title" id="segment-title" data-testid="segment-title" tabindex="-1">${escapeHtml(segmentTitle(strings, segment.title))}</h2>
  <div class="segment-sub"><span class="segment-lines" data-testid="segment-lines">${escapeHtml(linesText(strings, segment.startLine, segment.endLine))}</span>
  ${button(t(strings, 'action.reveal'), `${data('action', 'reveal-segment')}${data('segment-id', segment.id)}${data('focus-key', 'reveal')}`, 'link', ' data-testid="reveal-segment"')}</div>
</header>
${status}
${body}
</section>`;
}

function progress(value: number, total: number, label: string, strings: UiStrings): string {
  const safeTotal = Number.isFinite(total) && total > 0 ? total : 0;
  const safeValue = Number.isFinite(value) ? Math.max(0, Math.min(value, safeTotal || value)) : 0;
  const bar =
    safeTotal > 0
      ? `<progress class="progress" data-testid="progress" max="${safeTotal}" value="${safeValue}" aria-label="${escapeHtml(t(strings, 'progress.label'))}" aria-valuetext="${escapeHtml(label)}"></progress>`
      : `<progress class="progress" data-testid="progress" aria-label="${escapeHtml(t(strings, 'progress.label'))}"></progress>`;
  return `${bar}<p class="progress-text" data-testid="progress-text">${escapeHtml(label)}</p>`;
}

function renderStateBody(state: PanelState, strings: UiStrings): string {
  const message = (fallback: PanelStringKey) => {
    const text = 'message' in state && state.message ? state.message : t(strings, fallback);
    return `<p class="state-message">${escapeHtml(text)}</p>`;
  };
  switch (state.kind) {
    case 'no-library':
      return `${message('state.no-library')}<div class="actions">${runButton(strings, 'configureLibrary', 'action.configureLibrary')}</div>`;
    case 'untrusted':
      return message('state.untrusted');
    case 'not-indexed':
      return `${message('state.not-indexed')}<div class="actions">${runButton(strings, 'index', 'action.index')}</div>`;
    case 'indexing':
      return `${message('state.indexing')}${progress(state.done, state.total, t(strings, 'progress.indexing', { done: state.done, total: state.total }), strings)}`;
    case 'analyzing':
      return `${message('state.analyzing')}${progress(state.current, state.total, t(strings, 'progress.analyzing', { current: state.current, total: state.total }), strings)}`;
    case 'index-error':
      return `${message('state.index-error')}<div class="actions">${runButton(strings, 'rebuild', 'action.rebuild')}${runButton(strings, 'showLog', 'action.showLog', 'secondary')}</div>`;
    case 'no-document':
      return message('state.no-document');
    default:
      return '';
  }
}

function documentName(state: ResultsState): string {
  if (state.documentTitle && state.documentTitle.trim()) return state.documentTitle;
  const parts = (state.document ?? '').split(/[\\/]/);
  return parts[parts.length - 1] || state.document || '';
}

function renderResults(state: ResultsState, strings: UiStrings): string {
  const banners: string[] = [];
  if (state.notice) banners.push(`<p class="banner banner-warning" role="status" data-testid="notice">${escapeHtml(state.notice)}</p>`);
  if (state.rerankNote) banners.push(`<p class="banner banner-info" role="status" data-testid="rerank-note">${escapeHtml(state.rerankNote)}</p>`);
  if (state.semanticNote) banners.push(`<p class="banner banner-info" role="status" data-testid="semantic-note">${escapeHtml(state.semanticNote)}</p>`);
  const doc = `<p class="document" data-testid="document"><span class="document-label">${escapeHtml(t(strings, 'results.document'))}</span> <span class="document-name" title="${escapeHtml(state.document)}">${escapeHtml(documentName(state))}</span>${state.fromCache ? ` <span class="cache-tag" data-testid="from-cache">${escapeHtml(t(strings, 'results.fromCache'))}</span>` : ''}</p>`;
  const main = state.segment ? renderSegment(state, state.segment, strings) : renderSegmentList(state, strings);
  return `${doc}${banners.join('')}${main}`;
}

/** The whole panel as an HTML string, rendered from the state alone. */
export function renderPanel(state: PanelState, options: PanelOptions, collections: string[], strings: UiStrings): string {
  const s = strings ?? {};
  const kind = state.kind;
  const busy = kind === 'indexing' || kind === 'analyzing';
  // The state's own action (configure, index, rebuild) is the primary button where analysis cannot run.
  const find = kind === 'results' || kind === 'no-document' ? 'enabled' : busy ? 'disabled' : 'hidden';
  const body = kind === 'results' ? renderResults(state, s) : renderStateBody(state, s);
  const controls = `<section class="controls" aria-label="${escapeHtml(t(s, 'options.title'))}">
${renderOptions(options, collections, s, find, kind === 'results' && options.useReranking === 'auto' ? state.rerankHint : undefined)}
</section>`;
  const stateRegion = `<div class="state state-${escapeHtml(kind)}" data-testid="state-${escapeHtml(kind)}" aria-live="polite"${busy ? ' aria-busy="true"' : ''}>
${body}
</div>`;
  // Where analysis cannot run yet, the state and its action come before the options.
  const controlsFirst = find !== 'hidden';
  return `<main class="panel" data-kind="${escapeHtml(kind)}">
<h1 class="visually-hidden">${escapeHtml(t(s, 'panel.title'))}</h1>
${controlsFirst ? controls + stateRegion : stateRegion + controls}
</main>`;
}
