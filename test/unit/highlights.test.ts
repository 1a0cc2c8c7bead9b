import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { indexDir } from '../../src/core/index/store/manifest';
import { updateIndex } from '../../src/core/index/write/indexer';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { Bm25Index } from '../../src/core/retrieval/bm25';
import type { FusedItem } from '../../src/core/retrieval/fusion';
import { boostHighlighted, rankPassages, type PassageCollection } from '../../src/core/retrieval/hybrid';
import { lexicalTerms } from '../../src/core/retrieval/representation';
import { foldForMatch, highlightsForIndex, matchHighlight, type MatchPassage } from '../../src/core/zotero/highlights';
import { HIGHLIGHTS_FILE, readHighlights } from '../../src/core/index/store/highlights';
import type { ZoteroAnnotation } from '../../src/core/zotero/model';
import { analyze } from '../../src/engine/analysis';
import { openIndex, search } from '../../src/engine/search';
import { PANEL_STRING_KEYS } from '../../src/shared/strings';
import { safeCard } from '../../src/shared/untrusted';
import { renderCard } from '../../webview-ui/panel/render';
import { buildPdf } from '../support/pdfWriter';

const passage = (index: number, page: number, text: string, endPage = page): MatchPassage => ({ index, page, endPage, text });

describe('Zotero highlights: matching to passages', () => {
  const shared = 'The granary ledgers record every sack of barley delivered to the abbey after the harvest of 1347.';
  const pages: MatchPassage[] = [
    passage(0, 1, `An opening paragraph about the abbey. ${shared}`),
    passage(1, 2, 'Prices rose sharply in the autumn, and the cellarer wrote to the bishop asking for coin to buy seed corn.'),
    passage(2, 3, `${shared} The same words again on the third page, where the account is repeated.`),
  ];

  it('matches on the annotation’s own page, not an equal sentence elsewhere', () => {
    const m = matchHighlight({ text: 'every sack of barley delivered to the abbey', pageIndex: 2 }, pages);
    assert.deepEqual(m, { passages: [2], where: 'page' });
    assert.deepEqual(matchHighlight({ text: 'every sack of barley delivered to the abbey', pageIndex: 0 }, pages), { passages: [0], where: 'page' });
  });

  it('marks both passages when a highlight runs from the end of one into the next', () => {
    const ps = [
      passage(0, 4, 'The council met in the chapter house and argued about the tithe until the bells rang for vespers and'),
      passage(1, 4, 'the prior closed the meeting without a vote, leaving the question of the tithe to the next council.'),
      passage(2, 4, 'Unrelated text about the orchard and its pear trees, planted by the third abbot.'),
    ];
    const m = matchHighlight(
      { text: 'argued about the tithe until the bells rang for vespers and the prior closed the meeting without a vote', pageIndex: 3 },
      ps,
    );
    assert.deepEqual(m, { passages: [0, 1], where: 'page' });
  });

  it('matches across a hyphenated line break, ligatures, spacing and case', () => {
    const ps = [passage(0, 7, 'The inter-\nnational ﬁnancial   system of the\nfourteenth century relied on bills of exchange.')];
    assert.deepEqual(matchHighlight({ text: 'International financial system of the fourteenth century', pageIndex: 6 }, ps), { passages: [0], where: 'page' });
    assert.equal(foldForMatch('inter-\nnational ﬁnancial'), foldForMatch('international financial'));
  });

  it('looks on the neighbouring pages, and gives up (undefined) when the text is nowhere near', () => {
    assert.deepEqual(matchHighlight({ text: 'asking for coin to buy seed corn', pageIndex: 2 }, pages), { passages: [1], where: 'neighbour' });
    assert.equal(matchHighlight({ text: 'asking for coin to buy seed corn', pageIndex: 9 }, pages), undefined);
    assert.equal(matchHighlight({ text: 'a sentence that no page of this document contains at all', pageIndex: 1 }, pages), undefined);
    // Without a page index, any page.
    assert.deepEqual(matchHighlight({ text: 'asking for coin to buy seed corn' }, pages), { passages: [1], where: 'anywhere' });
  });

  it('matches text that extraction wrote a little differently (a running header inside the passage)', () => {
    const ps = [passage(0, 5, 'The abbot sold the wool clip of three years in advance JOURNAL OF MONASTIC HISTORY to Florentine merchants at a fixed price.')];
    const m = matchHighlight({ text: 'The abbot sold the wool clip of three years in advance to Florentine merchants at a fixed price', pageIndex: 4 }, ps);
    assert.deepEqual(m, { passages: [0], where: 'page' });
  });
});

describe('Zotero highlights: the sidecar beside the index, the hits and the cards', function () {
  this.timeout(120_000);
  let root: string;
  let pdf: string;
  const provider = new EmbeddedProvider();
  const p1 =
    'Monastic granaries stored barley and oats through the winter. The cellarer kept tallies of each delivery and recorded the tithes owed by every village of the manor.';
  const p2 =
    'Bills of exchange let Italian merchants move money between Bruges and Florence without carrying coin. The exchange rate hid the interest that canon law forbade.';
  const p3 = 'Pilgrim badges were cast in lead and tin and sold at the shrine gates. Archaeologists find them in river mud along the Thames.';
  const annotations: ZoteroAnnotation[] = [
    {
      key: 'H1',
      attachmentKey: 'ATT1',
      type: 'highlight',
      text: 'Bills of exchange let Italian merchants move money between Bruges and Florence',
      pageLabel: '12',
      pageIndex: 1,
      color: '#2ea8e5',
      comment: 'usury <b>dodge</b>',
    },
    { key: 'H2', attachmentKey: 'ATT1', type: 'underline', text: 'a sentence the PDF does not hold anywhere at all', pageIndex: 0 },
    { key: 'H3', attachmentKey: 'GONE', type: 'highlight', text: 'text of a PDF that was never indexed', pageIndex: 0 },
    { key: 'N1', attachmentKey: 'ATT1', type: 'note', comment: 'a sticky note, no text' },
  ];

  before(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'ss-highlights-'));
    const lib = join(root, 'library');
    await fs.mkdir(lib, { recursive: true });
    pdf = join(lib, 'medieval-economy.pdf');
    await fs.writeFile(
      pdf,
      buildPdf({
        info: { Title: 'The Medieval Economy' },
        pages: [
          { heading: 'Granaries', paragraphs: [p1] },
          { heading: 'Money', paragraphs: [p2] },
          { heading: 'Pilgrims', paragraphs: [p3] },
        ],
        pageLabels: [{ startPage: 0, style: 'D', start: 11 }],
      }),
    );
    const { inputs } = await libraryInputs({ folders: [lib], baseDir: root });
    await updateIndex(inputs, { workspace: root, provider });
  });
  after(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('writes the matches beside the index, counting what it dropped, and the index reads them back', async () => {
    const report = await highlightsForIndex(root, annotations, new Map([['ATT1', pdf]]));
    assert.deepEqual(
      { highlights: report.highlights, matched: report.matched, dropped: report.dropped, notIndexed: report.notIndexed, passages: report.passages },
      { highlights: 3, matched: 1, dropped: 1, notIndexed: 1, passages: 1 },
    );
    assert.equal(report.file, join(indexDir(root), HIGHLIGHTS_FILE));
    const read = await readHighlights(indexDir(root));
    assert.equal(read.problem, undefined);
    const [only] = [...read.byHash.values()];
    assert.deepEqual([...only.values()], [{ page: '12', text: annotations[0].text, comment: 'usury <b>dodge</b>', color: '#2ea8e5' }]);

    const index = await LibraryIndex.open(root, provider);
    assert.equal(index.highlightedPassages, 1);
    const [hit] = await index.search('Italian merchants bills of exchange Florence', { k: 1 });
    assert.equal(hit.page, 2);
    assert.deepEqual(hit.highlight, { page: '12', text: annotations[0].text, comment: 'usury <b>dodge</b>', color: '#2ea8e5' });
    const [plain] = await index.search('pilgrim badges lead tin shrine', { k: 1 });
    assert.equal(plain.highlight, undefined);
  });

  it('reads a damaged sidecar as no highlight, says so, and the next call rebuilds it', async () => {
    await highlightsForIndex(root, annotations, { ATT1: pdf });
    await fs.writeFile(join(indexDir(root), HIGHLIGHTS_FILE), '{"format":1,"sources":{"abc":[');
    const damaged = await readHighlights(indexDir(root));
    assert.equal(damaged.byHash.size, 0);
    assert.match(damaged.problem ?? '', /not valid JSON/);
    const index = await LibraryIndex.open(root, provider);
    assert.equal(index.highlightedPassages, 0);
    assert.match(index.highlightsProblem ?? '', /damaged/);

    const report = await highlightsForIndex(root, annotations, { ATT1: pdf });
    assert.equal(report.matched, 1);
    await index.reloadHighlights();
    assert.equal(index.highlightedPassages, 1);
    assert.equal(index.highlightsProblem, undefined);
  });

  it('changes the index fingerprint (the analysis cache key) when the marks change, not when they are written again alike', async () => {
    await highlightsForIndex(root, annotations, { ATT1: pdf });
    const index = await LibraryIndex.open(root, provider);
    const marked = index.fingerprint;
    assert.notEqual(marked, index.manifest.fingerprint);
    await highlightsForIndex(root, annotations, { ATT1: pdf });
    await index.refreshHighlights();
    assert.equal(index.fingerprint, marked);
    assert.equal(await index.refreshHighlights(), false, 'an unchanged file is not read again');

    const more: ZoteroAnnotation = {
      key: 'H4',
      attachmentKey: 'ATT1',
      type: 'highlight',
      text: 'Pilgrim badges were cast in lead and tin',
      pageIndex: 2,
      pageLabel: '13',
    };
    await highlightsForIndex(root, [...annotations, more], { ATT1: pdf });
    assert.equal(await index.refreshHighlights(), true);
    assert.equal(index.highlightedPassages, 2);
    assert.notEqual(index.fingerprint, marked);

    await highlightsForIndex(root, [], {});
    await index.refreshHighlights();
    assert.equal(index.highlightedPassages, 0);
    assert.equal(index.fingerprint, index.manifest.fingerprint);
  });

  it('puts the highlight on the analysis card and the search hit (null where there is none), shown safely in the panel', async () => {
    await highlightsForIndex(root, annotations, { ATT1: pdf });
    const handle = await openIndex(root, provider);
    const hits = await search(handle, 'Italian merchants bills of exchange between Bruges and Florence', { k: 3 });
    assert.equal(hits[0].highlight?.page, '12');
    assert.ok(
      hits.some((h) => h.highlight === null),
      'a passage without a highlight says null',
    );

    const draft =
      '# Money\n\nItalian merchants used bills of exchange to move money between Bruges and Florence without carrying coin, and the exchange rate hid the interest.\n';
    const r = await analyze(
      draft,
      { useReranking: false, maxResults: 3, similarityThreshold: 0 },
      { index: handle, workspace: root, documentPath: join(root, 'draft.md'), cache: false },
    );
    const seg = r.segments.find((s) => s.text.startsWith('Italian'))!;
    const card = seg.recommendations[0];
    assert.equal(card.page, 2);
    assert.deepEqual(card.highlight, { page: '12', text: annotations[0].text, comment: 'usury <b>dodge</b>', color: '#2ea8e5' });

    const html = renderCard(safeCard(card), 0, seg.id, { ...PANEL_STRING_KEYS });
    assert.match(html, /data-testid="card-highlight"/);
    assert.match(html, /you highlighted this, p\. 12/);
    assert.match(html, /usury &lt;b&gt;dodge&lt;\/b&gt;/);
    assert.match(html, /highlight-blue/);
    assert.doesNotMatch(html, /<b>dodge/);
  });

  it('keeps only a hex colour and bounds the text on a card', () => {
    const card = safeCard({
      title: 't',
      authors: [],
      pageLabel: null,
      preview: '',
      highlights: [],
      duplicates: [],
      citekey: null,
      passages: [],
      highlight: { page: '3\u202e', text: 'x'.repeat(5000), comment: '  ', color: 'red;background:url(x)' },
    });
    assert.deepEqual(Object.keys(card.highlight!).sort(), ['page', 'text']);
    assert.equal(card.highlight!.page, '3');
    assert.ok(card.highlight!.text.length <= 1200);
  });
});

describe('Zotero highlights: the boost is bounded', () => {
  it('a highlighted passage passes only those scored below (1 + boost) times its own; unretrieved ones never move', () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 200; trial++) {
      const n = 2 + Math.floor(rand() * 30);
      const items: FusedItem[] = Array.from({ length: n }, (_, id) => ({ id, score: rand() < 0.1 ? 0 : rand(), ranks: [] }));
      const before = new Map(items.map((f) => [f.id, f.score]));
      const highlighted = new Uint8Array(n).map(() => (rand() < 0.4 ? 1 : 0));
      const boost = [0.05, 0.1, 0.3][trial % 3];
      const after = boostHighlighted(
        { highlighted },
        items.map((f) => ({ ...f })).sort((a, b) => b.score - a.score || a.id - b.id),
        boost,
      );
      const pos = new Map(after.map((f, i) => [f.id, i]));
      for (const a of items) {
        for (const b of items) {
          // b was ahead of a by more than the boost can make up: it stays ahead.
          if (before.get(b.id)! > (1 + boost) * before.get(a.id)!) assert.ok(pos.get(b.id)! < pos.get(a.id)!, `trial ${trial}: ${a.id} passed ${b.id}`);
        }
        if (before.get(a.id) === 0) assert.equal(after.find((f) => f.id === a.id)!.score, 0);
      }
    }
  });

  it('with the product’s fusion, a highlighted passage that does not match the paragraph never outranks one that does', async () => {
    const texts = [
      'Barley harvests failed across the county in the wet summer of 1315.',
      'The great famine followed the failed barley harvests of 1315 and 1316.',
      'Cathedral glass was coloured with metal oxides in the workshops of Chartres.',
      'Organ pipes of tin and lead were tuned by the cathedral organist.',
      'Shipwrights in Venice built galleys in the Arsenal.',
    ];
    const provider = new EmbeddedProvider();
    const vectors = await provider.embed(texts, { kind: 'passage' });
    const dim = vectors[0].length;
    const lexical = new Bm25Index();
    texts.forEach((t, row) => lexical.add(row, lexicalTerms({ sourceTitle: '', text: t })));
    const flat = new Float32Array(texts.length * dim);
    vectors.forEach((v, i) => flat.set(v, i * dim));
    // Every passage that shares no word with the query is highlighted.
    const c: PassageCollection = {
      lexical,
      vectors: flat,
      dim,
      count: texts.length,
      sourceOfRow: Int32Array.from(texts.map((_, i) => i)),
      highlighted: Uint8Array.from([0, 0, 1, 1, 1]),
    };
    const q = 'failed barley harvests and famine';
    const [qv] = await provider.embed([q], { kind: 'query' });
    for (const boost of [0, 0.1, 0.3]) {
      const ranked = rankPassages(c, { text: q, vector: qv }, { k: 5, params: { highlightBoost: boost } }).map((r) => r.row);
      assert.deepEqual(ranked.slice(0, 2).sort(), [0, 1], `boost ${boost}: ${ranked}`);
    }
  });
});
