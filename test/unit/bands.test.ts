import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { agreeingWithOrder, analyzeDocument } from '../../src/core/analysis/analyze';
import { preview, wordsToHighlight } from '../../src/core/analysis/preview';
import {
  BAND_DESCRIPTIONS,
  BANDS,
  BANDS_BY_MODEL,
  bandOf,
  bandsFor,
  describeStrength,
  formatPercent,
  formatStrength,
  lensSummary,
} from '../../src/shared/bands';
import { isCommonTerm } from '../../src/core/analysis/commonWords';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex } from '../../src/core/index/write/indexer';
import { LibraryIndex } from '../../src/core/index/search/libraryIndex';
import { libraryInputs } from '../../src/core/library/pdfSource';
import { queryTerms } from '../../src/core/retrieval/representation';
import { Bm25Index } from '../../src/core/retrieval/bm25';
import { tokenize } from '../../src/core/text/tokenize';

describe('strength bands', () => {
  it('cuts the similarity into strong / related / weak at the fitted cut-offs', () => {
    assert.ok(BANDS.related > 0 && BANDS.related < BANDS.strong && BANDS.strong < 1);
    assert.equal(bandOf(1), 'strong');
    assert.equal(bandOf(BANDS.strong), 'strong');
    assert.equal(bandOf(BANDS.strong - 0.001), 'related');
    assert.equal(bandOf(BANDS.related), 'related');
    assert.equal(bandOf(BANDS.related - 0.001), 'weak');
    assert.equal(bandOf(0), 'weak');
    for (const b of ['strong', 'related', 'weak'] as const) assert.match(BAND_DESCRIPTIONS[b], new RegExp(`^${b}: `, 'i'));
    assert.match(describeStrength(0.634), /^Strong \(63%\): /);
    assert.match(describeStrength(0.05), /^Weak \(5%\): .*rarely/);
  });

  it("picks the cut-offs of the active model by its id, folder or provider key, and today's otherwise", () => {
    assert.equal(bandsFor(undefined), BANDS);
    assert.equal(bandsFor('embedded-hashgram-v2'), BANDS);
    assert.equal(bandsFor('local-some_unknown-model'), BANDS);
    for (const [name, cuts] of Object.entries(BANDS_BY_MODEL)) {
      assert.ok(cuts.related > 0 && cuts.related < cuts.strong && cuts.strong < 1, name);
      assert.equal(bandsFor(`Xenova/${name}`), cuts);
      assert.equal(bandsFor(`local-xenova_${name}`), cuts);
      assert.equal(bandsFor(`/home/me/models/Xenova/${name}/`), cuts);
    }
    assert.equal(bandsFor('Xenova/all-MiniLM-L6-v2'), BANDS_BY_MODEL['all-minilm-l6-v2'], 'case does not matter');
    assert.equal(bandsFor('Xenova/multilingual-e5-small'), BANDS_BY_MODEL['multilingual-e5-small'], "its own row, not e5-small-v2's");
    assert.equal(bandsFor('Xenova/multilingual-e5-base'), BANDS, 'a name that only shares a suffix with none');
    const cuts = { strong: 0.6, related: 0.3 };
    assert.equal(bandOf(0.5, cuts), 'related');
    assert.equal(bandOf(0.5), 'strong');
    // A card's own band (its model's cut-offs) decides the lens, not today's cut-offs.
    const s = lensSummary([{ similarity: 0.5, band: 'related' as const }], 'related');
    assert.equal(s.kind === 'signal' && s.band, 'related');
  });

  it('formats a strength in one place: the number after the band word, in English and in French', () => {
    assert.equal(formatStrength(BAND_DESCRIPTIONS.strong, 0.634), `Strong (63%): ${BAND_DESCRIPTIONS.strong.slice('Strong: '.length)}`);
    assert.equal(describeStrength(0.634, 'related'), formatStrength(BAND_DESCRIPTIONS.related, 0.634), "the card's band, not today's cut-off");
    // The French bundle's own translations (what vscode.l10n.t and the panel's strings give): the space before the colon stays.
    const fr: Record<string, string> = JSON.parse(readFileSync(resolve(__dirname, '../../l10n/bundle.l10n.fr.json'), 'utf8'));
    assert.equal(formatStrength(fr[BAND_DESCRIPTIONS.strong]!, 0.634), `Forte (63%) : ${fr[BAND_DESCRIPTIONS.strong]!.slice('Forte : '.length)}`);
    assert.match(formatStrength(fr[BAND_DESCRIPTIONS.weak]!, 0.05), /^Faible \(5%\) : partage quelques mots avec le paragraphe ; /);
    // Whichever space the translation uses before its colon (no-break, narrow no-break) is kept, once.
    assert.equal(formatStrength('Forte\u00a0: à citer.', 0.5), 'Forte (50%)\u00a0: à citer.');
    assert.equal(formatStrength('Forte\u202f: à citer.', 0.5), 'Forte (50%)\u202f: à citer.');
    assert.equal(formatStrength('Stark: zitieren.', 0.5), 'Stark (50%): zitieren.');
    // A translation without a colon gets the number at its end.
    assert.equal(formatStrength('Fort', 0.5), 'Fort (50%)');
  });

  it('writes a similarity as a whole percent, clamped to 0–100', () => {
    assert.equal(formatPercent(0.634), '63%');
    assert.equal(formatPercent(0.995), '100%');
    assert.equal(formatPercent(1.7), '100%');
    assert.equal(formatPercent(-0.2), '0%');
    assert.equal(formatPercent(Number.NaN), '0%');
  });

  it('after a reordering, makes the similarity non-increasing along the order, moving it as little as it can', () => {
    const recs = [0.2, 0.8, 0.5, 0.6, 0.1].map((similarity) => ({ similarity, band: bandOf(similarity) }));
    const out = agreeingWithOrder(recs);
    // 0.2 < 0.8 pool to 0.5; 0.5 < 0.6 pool to 0.55, above 0.5, so all four pool to their mean.
    assert.deepEqual(
      out.map((r) => r.similarity),
      [0.525, 0.525, 0.525, 0.525, 0.1],
    );
    assert.deepEqual(
      out.map((r) => r.band),
      out.map((r) => bandOf(r.similarity)),
    );
    const sorted = [0.9, 0.4, 0.4, 0.1].map((similarity) => ({ similarity, band: bandOf(similarity) }));
    assert.deepEqual(agreeingWithOrder(sorted), sorted, 'an agreeing order is left alone');
  });
});

describe('highlights: the terms that carried the match', () => {
  // "grain" is in every passage of this library, "tratta" in one: both match the query.
  const passages = [
    'Grain licences called tratta were sold by the viceroy of Sicily.',
    'Grain prices rose in Genoa when the harvest failed.',
    'The grain trade of the Baltic supplied Amsterdam.',
    'Grain and bread riots in Paris during the Revolution.',
  ];
  const index = new Bm25Index();
  passages.forEach((p, i) => index.add(i, tokenize(p)));
  const idf = (t: string) => index.idf(t);

  it('keeps the rare matched word and drops the one found in every passage', () => {
    const query = new Set(queryTerms('Each tratta allowed a merchant to export grain.'));
    assert.ok(idf('grain') < idf('tratta'));
    assert.deepEqual(wordsToHighlight(passages[0], query, idf), ['tratta']);
    // Without a rarer match, the common library word is what carried it, and is shown.
    assert.deepEqual(wordsToHighlight(passages[1], query, idf), ['Grain']);
  });

  it('never highlights stop words or everyday words, however rare they are in the library', () => {
    const text = 'In the first month of work on the history of the tratta, the viceroy kept every licence.';
    const query = new Set(queryTerms('The first month of work on this history of the tratta and the viceroy.'));
    const words = wordsToHighlight(text, query, () => 3); // all equally rare in this library
    assert.deepEqual(words.sort(), ['tratta', 'viceroy']);
    for (const w of ['first', 'month', 'work', 'history']) assert.ok(isCommonTerm(tokenize(w, 'en')[0]), w);
    for (const w of ['histoire', 'premier', 'travail', 'années']) assert.ok(isCommonTerm(tokenize(w, 'fr')[0]), w);
    assert.ok(!isCommonTerm(tokenize('viceroy', 'en')[0]));
    assert.deepEqual(
      wordsToHighlight('The first work of every month.', query, () => 3),
      [],
      'only everyday words matched: nothing to highlight',
    );
  });

  it('gives every form of a kept term and at most eight terms, rarest first', () => {
    const query = new Set(queryTerms('harvest viceroy'));
    assert.deepEqual(
      wordsToHighlight('One harvest, then two harvests; the viceroy waited.', query, (t) => (t === 'viceroi' ? 4 : 3)),
      ['viceroy', 'harvest', 'harvests'],
    );
    const many = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet';
    assert.equal(wordsToHighlight(many, new Set(queryTerms(many)), () => 2).length, 8);
  });

  it('centres the preview on the sentence with the rarest matches', () => {
    const long = `${'The grain was weighed and the grain was sold. '.repeat(6)}Only one tratta survives in the archive of Palermo. ${'Grain again. '.repeat(10)}`;
    const query = new Set(queryTerms('grain tratta'));
    assert.match(preview(long, query, idf), /^…Only one tratta survives/);
  });
});

describe('bands on the bundled example', function () {
  this.timeout(120_000);
  let ws: string;
  before(async () => {
    ws = await fs.mkdtemp(join(tmpdir(), 'ss-bands-example-'));
    const lib = resolve('examples/library');
    const { inputs } = await libraryInputs({ folders: [lib], baseDir: ws, bibliography: join(lib, 'library.bib'), primary: [join(lib, 'archives')] });
    await updateIndex(inputs, { workspace: ws, provider: new EmbeddedProvider() });
  });
  after(() => fs.rm(ws, { recursive: true, force: true }));

  it('gives every card a band that agrees with its similarity, and no card before a stronger one', async () => {
    const draft = readFileSync('examples/draft.md', 'utf8');
    const expected = JSON.parse(readFileSync('examples/expected.json', 'utf8')).paragraphs as Array<{ startsWith: string; sources: string[] }>;
    const index = await LibraryIndex.open(ws, new EmbeddedProvider());
    const r = await analyzeDocument(draft, { sourceType: 'both', maxResults: 10 }, { index, workspace: ws, cache: false });
    let cards = 0;
    for (const s of r.segments) {
      for (const [i, rec] of s.recommendations.entries()) {
        cards++;
        assert.equal(rec.band, bandOf(rec.similarity));
        if (i > 0) assert.ok(s.recommendations[i - 1].similarity >= rec.similarity, `segment ${s.id}: card ${i} is above a weaker one`);
      }
    }
    assert.ok(cards > 50);
    // The bands carry signal: most paragraphs' right source is at least "related", few wrong cards are "strong".
    let rightRelated = 0;
    let strongWrong = 0;
    let strong = 0;
    for (const e of expected) {
      const s = r.segments.find((x) => x.text.startsWith(e.startsWith))!;
      const right = s.recommendations.filter((x) => e.sources.includes(basename(x.path)));
      if (right.some((x) => x.band !== 'weak')) rightRelated++;
      for (const x of s.recommendations.filter((x) => x.band === 'strong')) {
        strong++;
        if (!e.sources.includes(basename(x.path))) strongWrong++;
      }
    }
    assert.ok(rightRelated >= 12, `${rightRelated} of ${expected.length} paragraphs have their right source at least "related"`);
    assert.ok(strong >= 8 && strongWrong <= 2, `${strongWrong} of ${strong} strong cards are not a right source`);
  });
});
