import assert from 'node:assert/strict';
import type { PanelState, SegmentView } from '../../src/shared/protocol';
import type { Recommendation } from '../../src/shared/results';
import type { PanelOptions } from '../../src/shared/settings';
import { PANEL_STRING_KEYS, PDF_STRING_KEYS } from '../../src/shared/strings';
import { BANDS, describeStrength } from '../../src/shared/bands';
import { escapeHtml, strengthTitle, firstWords, markWordsHtml, renderCard, renderPanel } from '../../webview-ui/panel/render';

const HOSTILE = '<img src=x onerror=alert(1)>';

const options: PanelOptions = {
  granularity: 'paragraph',
  maxResults: 7,
  similarityThreshold: 0.42,
  sourceType: 'both',
  collectionFilter: ['Archives'],
  useReranking: 'auto',
  useContextualEmbedding: false,
};

function card(over: Partial<Recommendation> = {}): Recommendation {
  return {
    sourceId: 'src-1',
    path: '/lib/exode-rural.pdf',
    title: "L'exode rural en France",
    authors: ['Dupont, Marie', 'Martin, Paul'],
    year: 1962,
    citekey: 'dupont1962',
    sourceType: 'secondary',
    page: 12,
    pageLabel: '214',
    similarity: 0.834,
    band: 'strong',
    reranked: false,
    alreadyCited: false,
    preview: '… les paysans quittent les campagnes pour la ville, attirés par les salaires industriels …',
    highlights: ['paysans', 'campagnes'],
    citation: '[@dupont1962, p. 214]',
    passages: [],
    duplicates: [],
    ...over,
  };
}

function segment(cards: Recommendation[], over: Partial<SegmentView> = {}): SegmentView {
  return { id: 'seg-a', type: 'paragraph', title: 'The rural exodus', startLine: 12, endLine: 14, status: 'analysed', cards, ...over };
}

function results(seg: SegmentView | null, over: Partial<Extract<PanelState, { kind: 'results' }>> = {}): PanelState {
  return {
    kind: 'results',
    document: '/work/draft.md',
    documentTitle: 'Draft',
    segment: seg,
    segments: [
      { id: 'seg-a', title: 'The rural exodus', startLine: 12, endLine: 14, count: 2, status: 'analysed' },
      { id: 'seg-b', title: 'La Commune', startLine: 20, endLine: 20, count: 0, status: 'too-short' },
    ],
    fromCache: false,
    threshold: 0.42,
    ...over,
  };
}

const render = (state: PanelState, strings: Record<string, string> = {}, collections = ['Archives', 'Économie']) =>
  renderPanel(state, options, collections, strings);

/** Opening tags carrying data-testid="id". */
function tags(html: string, id: string): string[] {
  return html.match(new RegExp(`<[a-z0-9]+\\b[^>]*data-testid="${id}"[^>]*>`, 'g')) ?? [];
}

/** Text content of the first element with data-testid="id" (markup stripped, entities kept). */
function text(html: string, id: string): string {
  const m = new RegExp(`<([a-z0-9]+)\\b[^>]*data-testid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  assert.ok(m, `no element ${id}`);
  return m[2]!.replace(/<[^>]+>/g, '').trim();
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m?.[1];
}

/** No tag other than the ones we generate: the hostile markup never appears as a tag. */
function assertInert(html: string): void {
  assert.ok(!/<img\b/i.test(html), 'an <img> tag leaked');
  assert.ok(!/<script\b/i.test(html), 'a <script> tag leaked');
  for (const tag of html.match(/<[a-z][^>]*>/gi) ?? []) {
    const bare = tag.replace(/="[^"]*"/g, '=""');
    assert.ok(!/\son\w+=/i.test(bare), `an inline event handler leaked: ${tag}`);
    assert.ok(!/\sstyle=/i.test(bare), `inline styles are blocked by the CSP: ${tag}`);
    assert.equal((tag.match(/"/g) ?? []).length % 2, 0, `an attribute value broke out: ${tag}`);
  }
}

describe('panel render: escaping and highlighting', () => {
  it('escapes every HTML-significant character', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&\`</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;');
    assert.equal(escapeHtml(null), '');
  });

  it('keeps hostile PDF text inert in every field', () => {
    const evil = card({
      sourceId: `"><script>alert(1)</script>`,
      path: `/lib/${HOSTILE}.pdf`,
      title: HOSTILE,
      authors: [HOSTILE],
      citekey: HOSTILE,
      pageLabel: HOSTILE,
      preview: `${HOSTILE} paysans`,
      highlights: ['<script>', 'paysans', 'onerror'],
      passages: [{ page: 3, pageLabel: HOSTILE, heading: HOSTILE, similarity: 0.5, preview: HOSTILE }],
      duplicates: [HOSTILE],
      doi: HOSTILE,
      tags: [HOSTILE, 'history'],
    });
    const state = results(segment([evil], { title: HOSTILE, id: `x" onclick="alert(1)` }), {
      notice: HOSTILE,
      rerankNote: HOSTILE,
      documentTitle: HOSTILE,
      segments: [{ id: `"><b>`, title: HOSTILE, startLine: 1, endLine: 2, count: 1, status: 'analysed' }],
    });
    const html = render(state, {}, [HOSTILE]);
    assertInert(html);
    assert.match(text(html, 'card-title'), /&lt;img src=x onerror=alert\(1\)&gt;/);
    // Zotero's DOI and tags, shown as written (doi:…, #tag) and inert.
    assert.match(text(html, 'card-doi'), /^doi:&lt;img src=x onerror=alert\(1\)&gt;$/);
    assert.match(html, /<span class="card-tag">#history<\/span>/);
    assert.match(html, /&lt;img src=x <mark>onerror<\/mark>=alert\(1\)&gt; <mark>paysans<\/mark>/);
    assert.equal(markWordsHtml(HOSTILE, [HOSTILE]), '&lt;<mark>img src</mark>=<mark>x onerror</mark>=<mark>alert</mark>(<mark>1</mark>)&gt;');
    const open = tags(html, 'open-pdf')[0]!;
    assert.equal(attr(open, 'data-path'), '/lib/&lt;img src=x onerror=alert(1)&gt;.pdf');
    // Lists of all segments too.
    assertInert(render(results(null, state.kind === 'results' ? { segments: state.segments } : {}), {}, [HOSTILE]));
    // Every non-results state escapes its message.
    for (const kind of ['no-library', 'untrusted', 'not-indexed', 'index-error', 'no-document'] as const) {
      assertInert(render({ kind, message: HOSTILE }));
    }
    assertInert(render({ kind: 'indexing', message: HOSTILE, done: 1, total: 2 }, { 'progress.indexing': HOSTILE }));
  });

  it('marks whole words, case- and accent-insensitively, after escaping', () => {
    assert.equal(markWordsHtml('Paysans et paysannes', ['paysans']), '<mark>Paysans</mark> et paysannes');
    assert.equal(markWordsHtml('La Société & l’État', ['societe', 'ETAT']), 'La <mark>Société</mark> &amp; l’<mark>État</mark>');
    assert.equal(markWordsHtml('grain trade grain', ['grain', 'trade']), '<mark>grain trade grain</mark>');
    assert.equal(markWordsHtml('a &amp; b', ['amp']), 'a &amp;<mark>amp</mark>; b');
    assert.equal(markWordsHtml('<b>bold</b>', ['b']), '&lt;<mark>b</mark>&gt;bold&lt;/<mark>b</mark>&gt;');
    assert.equal(markWordsHtml('nothing here', []), 'nothing here');
  });

  it('takes the first words of a preview for the PDF highlight', () => {
    assert.equal(firstWords('… one two   three four …', 3), 'one two three');
    assert.equal(firstWords('', 12), '');
  });
});

describe('panel render: states', () => {
  const cases: Array<[PanelState, string | null]> = [
    [{ kind: 'no-library', message: 'Set a library folder' }, 'configureLibrary'],
    [{ kind: 'untrusted', message: 'Untrusted' }, null],
    [{ kind: 'not-indexed', message: 'Not indexed' }, 'index'],
    [{ kind: 'indexing', message: 'Indexing', done: 3, total: 10 }, null],
    [{ kind: 'analyzing', message: 'Analysing', current: 2, total: 5 }, null],
    [{ kind: 'index-error', message: 'Broken index' }, 'rebuild'],
    [{ kind: 'no-document', message: 'Open a draft' }, null],
    [results(segment([card()])), null],
  ];
  for (const [state, command] of cases) {
    it(`renders a distinct container for ${state.kind}`, () => {
      const html = render(state);
      const containers = tags(html, `state-${state.kind}`);
      assert.equal(containers.length, 1);
      assert.equal(attr(containers[0]!, 'aria-live'), 'polite');
      for (const [other] of cases) {
        if (other.kind !== state.kind) assert.equal(tags(html, `state-${other.kind}`).length, 0);
      }
      if ('message' in state) assert.match(html, new RegExp(`>${state.message}<`));
      if (command) {
        const button = tags(html, `run-${command}`)[0];
        assert.ok(button, `no ${command} button`);
        assert.match(button, /^<button type="button"/);
        assert.equal(attr(button, 'data-action'), 'run');
        assert.equal(attr(button, 'data-command'), command);
      }
    });
  }

  it('shows Find Similar Sources only where it can run, disabled while busy', () => {
    assert.doesNotMatch(tags(render(results(null)), 'find')[0]!, /disabled/);
    assert.doesNotMatch(tags(render({ kind: 'no-document', message: 'x' }), 'find')[0]!, /disabled/);
    assert.match(tags(render({ kind: 'indexing', message: 'x', done: 0, total: 0 }), 'find')[0]!, /disabled/);
    for (const kind of ['no-library', 'untrusted', 'not-indexed', 'index-error'] as const) {
      assert.equal(tags(render({ kind, message: 'x' }), 'find').length, 0, kind);
    }
  });

  it('offers rebuild and show log on an index error', () => {
    const html = render({ kind: 'index-error', message: 'x' });
    assert.equal(tags(html, 'run-rebuild').length, 1);
    assert.equal(attr(tags(html, 'run-showLog')[0]!, 'data-command'), 'showLog');
  });

  it('shows progress as i of n', () => {
    let html = render({ kind: 'indexing', message: 'Indexing', done: 3, total: 10 });
    assert.equal(text(html, 'progress-text'), '3 of 10 PDFs');
    assert.equal(attr(tags(html, 'progress')[0]!, 'value'), '3');
    assert.equal(attr(tags(html, 'progress')[0]!, 'max'), '10');
    html = render({ kind: 'analyzing', message: 'Analysing', current: 2, total: 5 }, { 'progress.analyzing': '{current} sur {total} segments' });
    assert.equal(text(html, 'progress-text'), '2 sur 5 segments');
    assert.match(tags(html, 'find')[0]!, /disabled/);
  });

  it('says no source is above the threshold rather than nothing found', () => {
    const html = render(results(segment([]), { threshold: 0.55 }));
    assert.equal(tags(html, 'card').length, 0);
    assert.match(text(html, 'no-results'), /No source above the threshold \(55%\)/);
    assert.doesNotMatch(html, /nothing found/i);
  });

  it('shows the reranking hint quietly in the options, not as a banner', () => {
    const hint = 'LLM reranking needs an LLM (Ollama)';
    const html = render(results(segment([card()]), { rerankHint: hint }));
    assert.equal(text(html, 'rerank-hint'), `Not used now: ${hint}.`);
    assert.equal(tags(html, 'rerank-note').length, 0);
    assert.doesNotMatch(html, /banner[^"]*"[^>]*>[^<]*reranking/i);
    const optionsAt = html.indexOf('data-testid="options"');
    assert.ok(optionsAt >= 0 && html.indexOf('data-testid="rerank-hint"') > optionsAt, 'inside the options');
    assert.equal(tags(render(results(segment([card()]))), 'rerank-hint').length, 0);
    // Only 'auto' is quiet about it; 'off' asked for nothing, and 'on' gets its note as a banner.
    for (const mode of ['on', 'off'] as const) {
      assert.equal(
        tags(renderPanel(results(segment([card()]), { rerankHint: hint }), { ...options, useReranking: mode }, [], {}), 'rerank-hint').length,
        0,
        mode,
      );
    }
  });

  it('shows notice and rerank banners', () => {
    const html = render(
      results(segment([card()]), { notice: 'Ollama unreachable: using the embedded model', rerankNote: 'Reranking skipped', fromCache: true }),
    );
    assert.equal(text(html, 'notice'), 'Ollama unreachable: using the embedded model');
    assert.equal(text(html, 'rerank-note'), 'Reranking skipped');
    assert.equal(tags(html, 'from-cache').length, 1);
  });

  it('lists every segment when none is selected', () => {
    const html = render(results(null));
    const items = tags(html, 'segment-item');
    assert.equal(items.length, 2);
    assert.equal(attr(items[0]!, 'data-action'), 'select-segment');
    assert.equal(attr(items[1]!, 'data-segment-id'), 'seg-b');
    assert.match(html, /Lines 12–14/);
    assert.match(html, /Line 20/);
  });

  it('heads a segment with its title, its lines, a selector and a reveal button', () => {
    const html = render(results(segment([card()])));
    assert.equal(text(html, 'segment-title'), 'The rural exodus');
    assert.equal(text(html, 'segment-lines'), 'Lines 12–14');
    assert.equal(attr(tags(html, 'reveal-segment')[0]!, 'data-segment-id'), 'seg-a');
    const select = tags(html, 'segment-select')[0]!;
    assert.equal(attr(select, 'data-action'), 'select-segment');
    assert.match(html, /<option value="seg-a" selected>/);
    assert.match(html, /<option value="">All segments<\/option>/);
  });

  it('tells when a segment is too short or outdated', () => {
    assert.equal(tags(render(results(segment([], { status: 'too-short' }))), 'segment-too-short').length, 1);
    assert.equal(tags(render(results(segment([card()], { status: 'outdated' }))), 'segment-outdated').length, 1);
  });
});

describe('panel render: cards', () => {
  it('shows title, authors, year, similarity, printed page and highlighted preview', () => {
    const html = render(results(segment([card()])));
    const article = tags(html, 'card')[0]!;
    assert.match(article, /^<article /);
    const titleId = attr(article, 'aria-labelledby')!;
    assert.equal(attr(tags(html, 'card-title')[0]!, 'id'), titleId);
    assert.equal(text(html, 'card-title'), 'L&#39;exode rural en France');
    assert.equal(text(html, 'card-similarity'), '83%');
    assert.equal(text(html, 'card-page'), 'p. 214');
    assert.match(html, /Dupont, Marie, Martin, Paul/);
    assert.match(html, />1962</);
    assert.match(html, /les <mark>paysans<\/mark> quittent les <mark>campagnes<\/mark>/);
  });

  it('says the band in words, with the number and what it estimates on hover', () => {
    for (const [similarity, band] of [
      [BANDS.strong + 0.01, 'strong'],
      [BANDS.related, 'related'],
      [BANDS.related - 0.01, 'weak'],
    ] as const) {
      const html = render(results(segment([card({ similarity, band })])));
      assert.equal(text(html, 'card-band'), band);
      assert.match(tags(html, 'card-band')[0]!, new RegExp(`band-${band}`));
      const score = /<div class="card-score" title="([^"]*)"/.exec(html)![1];
      assert.equal(score, escapeHtml(describeStrength(similarity)));
    }
    assert.equal(strengthTitle({}, 0.63), describeStrength(0.63));
  });

  it('localises the band and its description', () => {
    const html = render(results(segment([card({ similarity: 0.9 })])), {
      'band.strong': 'forte',
      'band.strong.description': 'Forte : très probablement à citer.',
    });
    assert.equal(text(html, 'card-band'), 'forte');
    assert.match(html, /title="Forte \(90%\) : très probablement à citer\."/);
  });

  it('marks a source cited elsewhere in the draft with the sections', () => {
    let html = render(results(segment([card()])));
    assert.equal(tags(html, 'badge-cited-in').length, 0);
    html = render(results(segment([card({ citedIn: ['§ 2', '', '§ 3.1'] })])));
    assert.equal(text(html, 'badge-cited-in'), 'cited in § 2, the opening, § 3.1');
    assert.match(tags(html, 'badge-cited-in')[0]!, /title="This draft cites this source elsewhere: § 2, the opening, § 3.1"/);
    html = render(results(segment([card({ citedIn: [HOSTILE] })])));
    assert.doesNotMatch(html, /<img/);
  });

  it('falls back to the PDF page number when there is no printed label', () => {
    const html = render(results(segment([card({ pageLabel: null, page: 7 })])));
    assert.equal(text(html, 'card-page'), 'p. 7');
  });

  it('shows badges only when true', () => {
    let html = render(results(segment([card()])));
    assert.equal(tags(html, 'badge-reranked').length, 0);
    assert.equal(tags(html, 'badge-cited').length, 0);
    assert.equal(tags(html, 'badge-primary').length, 0);
    html = render(results(segment([card({ reranked: true, alreadyCited: true, sourceType: 'primary' })])));
    assert.equal(tags(html, 'badge-reranked').length, 1);
    assert.equal(tags(html, 'badge-cited').length, 1);
    assert.equal(tags(html, 'badge-primary').length, 1);
  });

  it('has the three buttons with the data the host needs', () => {
    const html = render(results(segment([card(), card({ sourceId: 'src-2', page: 3, pageLabel: null })])));
    assert.equal(tags(html, 'card').length, 2);
    const open = tags(html, 'open-pdf');
    const insert = tags(html, 'insert-citation');
    const copy = tags(html, 'copy-citation');
    assert.equal(open.length, 2);
    assert.equal(insert.length, 2);
    assert.equal(copy.length, 2);
    for (const b of [...open, ...insert, ...copy]) assert.match(b, /^<button type="button"/);
    assert.equal(attr(open[0]!, 'data-action'), 'open-pdf');
    assert.equal(attr(open[0]!, 'data-path'), '/lib/exode-rural.pdf');
    assert.equal(attr(open[0]!, 'data-page'), '12');
    assert.equal(attr(open[0]!, 'data-highlight'), 'les paysans quittent les campagnes pour la ville, attirés par les salaires');
    assert.equal(attr(insert[1]!, 'data-action'), 'insert-citation');
    assert.equal(attr(insert[1]!, 'data-segment-id'), 'seg-a');
    assert.equal(attr(insert[1]!, 'data-source-id'), 'src-2');
    assert.equal(attr(insert[1]!, 'data-page'), '3');
    assert.equal(attr(copy[0]!, 'data-action'), 'copy-citation');
    assert.equal(attr(copy[0]!, 'data-source-id'), 'src-1');
    assert.match(html, />Open PDF</);
    assert.match(html, />Insert citation</);
    assert.match(html, />Copy citation</);
  });

  it('shows up to two further passages in a collapsible list', () => {
    const passages = [1, 2, 3].map((i) => ({
      page: 20 + i,
      pageLabel: i === 1 ? 'xii' : null,
      heading: `Chapter ${i}`,
      similarity: 0.5,
      preview: `Passage ${i} about paysans`,
    }));
    const html = render(results(segment([card({ passages })])));
    assert.equal(tags(html, 'passage').length, 2);
    assert.match(html, /<details class="more"[^>]*><summary>2 more passages<\/summary>/);
    const pages = html.match(/data-testid="passage-page">([^<]*)</g)!;
    assert.deepEqual(
      pages.map((p) => p.replace(/.*>/, '').replace('<', '')),
      ['p. xii', 'p. 22'],
    );
    const opens = tags(html, 'open-passage');
    assert.equal(attr(opens[0]!, 'data-page'), '21');
    assert.equal(attr(opens[0]!, 'data-highlight'), 'Passage 1 about paysans');
  });
});

describe('panel render: controls', () => {
  it('reflect the options', () => {
    const html = render(results(segment([card()])));
    assert.match(html, /<option value="paragraph" selected>Paragraph<\/option>/);
    assert.match(html, /<option value="both" selected>Both<\/option>/);
    assert.equal(attr(tags(html, 'opt-max-results')[0]!, 'value'), '7');
    assert.equal(attr(tags(html, 'opt-max-results')[0]!, 'min'), '1');
    assert.equal(attr(tags(html, 'opt-max-results')[0]!, 'max'), '20');
    assert.equal(attr(tags(html, 'opt-threshold')[0]!, 'value'), '0.42');
    assert.equal(text(html, 'opt-threshold-value'), '42%');
    assert.match(tags(html, 'opt-reranking')[0]!, /^<select /);
    assert.match(html, /<option value="auto" selected>When available<\/option><option value="on">On<\/option><option value="off">Off<\/option>/);
    assert.doesNotMatch(tags(html, 'opt-contextual')[0]!, / checked/);
    assert.match(html, /data-collection="Archives"[^>]* checked/);
    assert.match(html, /data-collection="Économie"(?![^>]* checked)[^>]*>/);
    assert.equal(attr(tags(html, 'find')[0]!, 'data-command'), 'analyze');
    assert.doesNotMatch(tags(html, 'find')[0]!, /disabled/);
  });

  it('labels every control', () => {
    const html = render(results(segment([card()])));
    const ids = [...html.matchAll(/<(?:input|select)\b[^>]*\sid="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(ids.length >= 8);
    for (const id of ids) assert.match(html, new RegExp(`<label for="${id}"`), `no label for ${id}`);
  });

  it('says when the library has no collections', () => {
    const html = renderPanel(results(null), { ...options, collectionFilter: [] }, [], {});
    assert.match(html, /No collections in the library\./);
  });
});

describe('panel render: strings', () => {
  it('uses the host strings and falls back to English', () => {
    const html = render(results(segment([card({ alreadyCited: true })])), {
      'action.openPdf': 'Ouvrir le PDF',
      'card.cited': 'déjà cité',
      'segment.lines': 'Lignes {start} à {end}',
    });
    assert.match(html, />Ouvrir le PDF</);
    assert.match(html, />déjà cité</);
    assert.equal(text(html, 'segment-lines'), 'Lignes 12 à 14');
    assert.match(html, />Insert citation</);
  });

  it('lists every key it uses with an English default', () => {
    for (const table of [PANEL_STRING_KEYS, PDF_STRING_KEYS]) {
      for (const [key, value] of Object.entries(table)) {
        assert.ok(typeof value === 'string' && value.length > 0, key);
      }
    }
    const source = renderPanel.toString();
    assert.ok(source.length > 0);
    // Every key can be overridden: render with all keys replaced by a marker and find no English default left for the key 'action.find'.
    const marked = Object.fromEntries(Object.keys(PANEL_STRING_KEYS).map((k) => [k, `#${k}#`]));
    const html = render(results(segment([card({ reranked: true, alreadyCited: true, sourceType: 'primary' })])), marked);
    assert.match(html, /#action\.find#/);
    assert.match(html, /#card\.reranked#/);
    assert.doesNotMatch(html, /Find Similar Sources/);
  });
});

describe('panel: text from OCR', () => {
  it('marks a card whose passage was read by OCR, and no other', () => {
    const ocr = renderCard(card({ ocr: true }), 0, 'seg-a', {});
    assert.match(ocr, /data-testid="badge-ocr"[^>]*>text from OCR</);
    assert.doesNotMatch(renderCard(card(), 0, 'seg-a', {}), /badge-ocr/);
  });
});

describe('panel: a passage in the other language', () => {
  it('says a French passage found for an English paragraph is in French, and nothing otherwise', () => {
    const fr = renderCard(card({ language: 'fr' }), 0, 'seg-a', {});
    assert.match(fr, /data-testid="badge-language" lang="fr"[^>]*>in French</);
    assert.doesNotMatch(renderCard(card(), 0, 'seg-a', {}), /badge-language/);
  });
});
