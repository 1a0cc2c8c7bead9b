import assert from 'node:assert/strict';
import { checkCitationList, checkDraft, closestKeys, newCheckMemo, type CheckedCitation, type CheckSources } from '../../src/core/citecheck/check';
import { findCitations, parseLocator } from '../../src/core/citecheck/draftCitations';
import type { PageText } from '../../src/core/citecheck/match';

/** A source with printed labels: two roman pages of preface, then 212–216. */
const PAGES: PageText[] = [
  { page: 1, label: 'xi', ocr: false, text: 'Preface\n\nThis book began with a railway timetable found in a drawer of the county record office.' },
  { page: 2, label: 'xii', ocr: false, text: 'The reader will find that the argument moves slowly from the local to the national scale.' },
  {
    page: 3,
    label: '212',
    ocr: false,
    text: 'In the kingdom of Sicily no grain could leave a port without a licence issued in the name of the crown. The ﬁrst licences were sold at the harbour, and their ﬂow was watched by the viceroy. The Genoese houses specu-\nlated on permits months before the reaping.',
  },
  {
    page: 4,
    label: '213',
    ocr: false,
    text: 'Merchants paid for the right to export rather than for the wheat itself, so that the permit, not the wheat, was the scarce good of the whole trade. La societe des marchands genois tenait le marche.',
  },
  {
    page: 5,
    label: '214',
    ocr: false,
    text: 'A viceroy had to choose between a full treasury and cheap loaves in Palermo, and most of them chose the treasury when the harvest was good. In years of dearth the',
  },
  { page: 6, label: '215', ocr: false, text: 'crown closed the ports altogether and the licences already sold became worthless paper overnight.' },
];

/** A scanned page read by OCR, with the usual misreadings. */
const OCR_PAGES: PageText[] = [
  { page: 1, label: '1', ocr: false, text: 'A title page with nothing of interest on it at all.' },
  { page: 2, label: '2', ocr: true, text: 'The comrnittee resolved that relief shouId be given in return for attendance at school, and not as a rnere gift.' },
];

function sources(extraKeys: string[] = []): CheckSources {
  const byKey: Record<string, PageText[]> = { whitfield2019grain: PAGES, oakenbrook1862: OCR_PAGES };
  return {
    keys: new Set([...Object.keys(byKey), ...extraKeys]),
    pdfs: (key) => (byKey[key] ? [{ path: `/lib/${key}.pdf`, pages: async () => byKey[key] }] : []),
  };
}

async function check1(draft: string, extraKeys: string[] = []): Promise<CheckedCitation> {
  const r = await checkDraft(draft, sources(extraKeys));
  assert.equal(r.length, 1, JSON.stringify(r));
  return r[0];
}

describe('citation check: finding citations and quotations', () => {
  it('reads locators: p., pp. with en dash, no comma, bare numbers, roman labels, abbreviated ranges, other locators', () => {
    assert.deepEqual(parseLocator(', p. 12'), { text: 'p. 12', from: '12', to: '12' });
    assert.deepEqual(parseLocator(', pp. 12–14'), { text: 'pp. 12–14', from: '12', to: '14' });
    assert.deepEqual(parseLocator(' p. 12'), { text: 'p. 12', from: '12', to: '12' });
    assert.deepEqual(parseLocator(', 3'), { text: '3', from: '3', to: '3' });
    assert.deepEqual(parseLocator(', p. xii'), { text: 'p. xii', from: 'xii', to: 'xii' });
    assert.deepEqual(parseLocator(', pp. 212-14'), { text: 'pp. 212-14', from: '212', to: '214' });
    assert.deepEqual(parseLocator(', chap. 3'), { text: 'chap. 3' });
    assert.deepEqual(parseLocator(', p. T-1'), { text: 'p. T-1', from: 'T-1', to: 'T-1' });
    assert.deepEqual(parseLocator(', pp. S3–S5'), { text: 'pp. S3–S5', from: 'S3', to: 'S5' });
    assert.equal(parseLocator(''), null);
  });

  it('finds every form of citation with its line, column and locator', () => {
    const draft = [
      '---',
      'title: "Not @cited"',
      '---',
      'One [@a]. Two [@b, p. 12]. Three [@c, pp. 12–14]. Four [@d p. 12].',
      'Five [see @e, p. 12; @f, 3]. Six @g [p. 12]. Seven.^[See @h, p. xii.] Mail me@example.org.',
      '```',
      '[@code, p. 1]',
      '```',
      'A [link](http://x.org/@nope) and `[@inline]`.',
    ].join('\n');
    const c = findCitations(draft);
    assert.deepEqual(
      c.map((x) => [x.key, x.line, x.column, x.locator?.text ?? null]),
      [
        ['a', 4, 6, null],
        ['b', 4, 16, 'p. 12'],
        ['c', 4, 35, 'pp. 12–14'],
        ['d', 4, 57, 'p. 12'],
        ['e', 5, 11, 'p. 12'],
        ['f', 5, 22, '3'],
        ['g', 5, 34, 'p. 12'],
        ['h', 5, 58, 'p. xii'],
      ],
    );
  });

  it('takes the quotation before the citation in the same sentence, in every kind of quotation mark', () => {
    const draft = [
      'He wrote “the permit, not the wheat” [@a, p. 3]. Then "straight quotes are here" [@b].',
      'Le texte dit « les blés du roi » [@c]. Und „das ist gut so“ [@d]. And ‘single quoted words’ [@e].',
      '“A quotation in one sentence.” Another sentence cites [@f].',
      'It is “too short” [@g]. Note “a quote before the note”.^[@h, p. 2.]',
    ].join('\n');
    const q = Object.fromEntries(findCitations(draft).map((x) => [x.key, x.quote]));
    assert.deepEqual(q, {
      a: 'the permit, not the wheat',
      b: 'straight quotes are here',
      c: 'les blés du roi',
      d: 'das ist gut so',
      e: 'single quoted words',
      f: null,
      g: null,
      h: 'a quote before the note',
    });
  });

  it('finds citations in headings and list items, suppressed authors, quotations over two lines, several quotations for one citation', () => {
    const draft = [
      '## Heading cites [@h1, p. 3]',
      '',
      '- a list item “with a quoted phrase here” [@li, p. 4]',
      '- second item [-@sup, 5]',
      '',
      'Two quotes “first quoted bit here” and “second quoted bit there” [@two, p. 9].',
      '',
      'She wrote: “a long quote that spans',
      'two lines of the draft” [@span, p. 10].',
      '',
      'Label [@roman, pp. xii–xiv] and [@sect, § 4] and [@nn, p. 12 n. 3].',
    ].join('\n');
    assert.deepEqual(
      findCitations(draft).map((c) => [c.key, c.line, c.locator?.text ?? null, c.locator?.from ?? null, c.quote]),
      [
        ['h1', 1, 'p. 3', '3', null],
        ['li', 3, 'p. 4', '4', 'with a quoted phrase here'],
        ['sup', 4, '5', '5', null],
        ['two', 6, 'p. 9', '9', 'first quoted bit here … second quoted bit there'],
        ['span', 9, 'p. 10', '10', 'a long quote that spans\ntwo lines of the draft'],
        ['roman', 11, 'pp. xii–xiv', 'xii', null],
        ['sect', 11, '§ 4', null, null],
        ['nn', 11, 'p. 12', '12', null],
      ],
    );
  });

  it('stays linear on hostile drafts: one paragraph of 20,000 citations, deep brackets, a 1 MB line', () => {
    const t = Date.now();
    assert.equal(findCitations(Array.from({ length: 20000 }, (_, i) => `“quoted words number ${i}” [@k${i}, p. ${i}]`).join(' ')).length, 20000);
    assert.equal(findCitations('['.repeat(50000) + '@deep' + ']'.repeat(50000)).length, 1);
    assert.equal(findCitations('“' + 'word '.repeat(200000) + '” @x ' + '@y, '.repeat(20000)).length, 20001);
    assert.ok(Date.now() - t < 5000, `${Date.now() - t} ms`);
  });

  it('takes the quotation after an in-text @key in its sentence, with its page in brackets or parentheses', () => {
    const draft = [
      '@dubreuil2019 [p. 12] writes that “the permit was the scarce good”.',
      'As @whit argues, “the crown closed the ports” (p. 215). And @later says so, without quoting.',
      'In @solo’s view the matter is closed. “A quotation of its own sentence here” [@other, p. 3].',
      '@first writes “first quoted words here” and @second adds “second quoted words there”.',
      '@near writes “quoted words claimed by the next” [@claims, p. 4].',
      '@far [p. 2] wrote this. Then “a quote in another sentence” follows.',
    ].join('\n');
    assert.deepEqual(
      findCitations(draft).map((c) => [c.key, c.locator?.text ?? null, c.quote]),
      [
        ['dubreuil2019', 'p. 12', 'the permit was the scarce good'],
        ['whit', 'p. 215', 'the crown closed the ports'],
        ['later', null, null],
        ['solo', null, null],
        ['other', 'p. 3', 'A quotation of its own sentence here'],
        ['first', null, 'first quoted words here'],
        ['second', null, 'second quoted words there'],
        ['near', null, null],
        ['claims', 'p. 4', 'quoted words claimed by the next'],
        ['far', 'p. 2', null],
      ],
    );
    const c = findCitations('As @whit argues, “the crown closed\nthe ports” (p. 215).')[0];
    assert.deepEqual(c.quoteRange, { line: 1, column: 19, endLine: 2, endColumn: 10 });
  });

  it('judges a quotation after an in-text citation: ok on its page, wrong-page elsewhere', async () => {
    const ok = await check1('As @whitfield2019grain argues, “the licences already sold became worthless paper overnight” (p. 215).');
    assert.equal(ok.status, 'ok');
    const wrong = await check1('@whitfield2019grain [p. 212] writes that “the licences already sold became worthless paper overnight”.');
    assert.deepEqual([wrong.status, wrong.foundPage, wrong.locator], ['wrong-page', '215', 'p. 212']);
    const differs = await check1('@whitfield2019grain [p. 215] writes that “the licences already sold became worthless money overnight”.');
    assert.equal(differs.status, 'quote-differs');
  });

  it('takes a block quote whose last line carries the citation', () => {
    const draft = ['Before.', '', '> In the kingdom of Sicily no grain could', '> leave a port without a licence.', '> [@a, p. 212]', '', 'After [@b].'].join(
      '\n',
    );
    const c = findCitations(draft);
    assert.equal(c[0].quote, 'In the kingdom of Sicily no grain could\nleave a port without a licence.');
    assert.equal(c[0].blockQuote, true);
    assert.deepEqual(c[0].quoteRange, { line: 3, column: 3, endLine: 4, endColumn: 34 });
    assert.equal(c[1].quote, null);
  });
});

describe('citation check: rules', () => {
  it('ok: the quotation is on the cited page word for word', async () => {
    const r = await check1('As she says, “no grain could leave a port without a licence” [@whitfield2019grain, p. 212].');
    assert.equal(r.status, 'ok');
    assert.equal(r.foundPage, '212');
    assert.equal(r.sourceText, 'no grain could leave a port without a licence');
    assert.equal(r.path, '/lib/whitfield2019grain.pdf');
  });

  it('ok: a citation without a quotation when key and page exist, with roman labels too', async () => {
    assert.equal((await check1('See [@whitfield2019grain, p. 214].')).status, 'ok');
    assert.equal((await check1('See [@whitfield2019grain, p. xii].')).status, 'ok');
    assert.equal((await check1('See [@whitfield2019grain].')).status, 'ok');
  });

  it('unknown-key, with the closest keys suggested', async () => {
    const r = await check1('See [@whitfeld2019grain, p. 212].');
    assert.equal(r.status, 'unknown-key');
    assert.deepEqual(r.suggestions, ['whitfield2019grain']);
    assert.deepEqual(closestKeys('smith', ['smyth', 'smith2', 'jones']), ['smith2', 'smyth']);
  });

  it('a key the bibliography has but no PDF: ok, with a note, never quote-not-found', async () => {
    const r = await check1('“Words nobody can check here” [@nopdf2020, p. 3].', ['nopdf2020']);
    assert.equal(r.status, 'ok');
    assert.match(r.note ?? '', /no PDF/);
  });

  it('no-such-page: past the end, or a label the source does not print', async () => {
    const r = await check1('See [@whitfield2019grain, p. 999].');
    assert.equal(r.status, 'no-such-page');
    assert.match(r.note ?? '', /xi–215/);
    assert.equal((await check1('See [@whitfield2019grain, p. xx].')).status, 'no-such-page');
    assert.equal((await check1('See [@whitfield2019grain, pp. 214–230].')).status, 'no-such-page');
  });

  it('wrong-page: found elsewhere, with the printed label', async () => {
    const r = await check1('“the permit, not the wheat, was the scarce good” [@whitfield2019grain, p. 212].');
    assert.equal(r.status, 'wrong-page');
    assert.equal(r.foundPage, '213');
  });

  it('a quotation spread over two pages is found on pp. a–b, and is ok when cited so', async () => {
    const q = '“In years of dearth the crown closed the ports altogether”';
    const wrong = await check1(`${q} [@whitfield2019grain, p. 212].`);
    assert.equal(wrong.status, 'wrong-page');
    assert.equal(wrong.foundPage, '214–215');
    assert.equal((await check1(`${q} [@whitfield2019grain, pp. 214–15].`)).status, 'ok');
    assert.equal((await check1(`${q} [@whitfield2019grain, p. 214].`)).status, 'ok');
  });

  it('quote-differs: a changed word, an added word, a dropped word; with the source words and the spans', async () => {
    const changed = await check1('“no grain could leave a harbour without a licence” [@whitfield2019grain, p. 212].');
    assert.equal(changed.status, 'quote-differs');
    assert.equal(changed.sourceText, 'no grain could leave a port without a licence');
    assert.deepEqual(changed.differences, [{ quote: 'harbour', source: 'port' }]);
    const added = await check1('“no grain could ever leave a port without a licence” [@whitfield2019grain, p. 212].');
    assert.equal(added.status, 'quote-differs');
    assert.deepEqual(added.differences, [{ quote: 'ever', source: '' }]);
    const dropped = await check1('“no grain could leave a port without licence” [@whitfield2019grain, p. 212].');
    assert.equal(dropped.status, 'quote-differs');
    assert.deepEqual(dropped.differences, [{ quote: '', source: 'a' }]);
  });

  it('a quotation of over 400 words is compared too (in pieces: citationCheckHonest.test.ts), never ok unread', async () => {
    const r = await check1(`“${'grain '.repeat(500)}” [@whitfield2019grain, p. 212].`);
    assert.equal(r.status, 'quote-not-found');
  });

  it('quote-not-found: words the source never wrote', async () => {
    const r = await check1('“the bishops of Lyon kept their silver in the cathedral vaults” [@whitfield2019grain, p. 212].');
    assert.equal(r.status, 'quote-not-found');
    assert.equal(r.foundPage, null);
  });

  it('a re-check after an edit judges only the citations the edit changed (the memo), at their new places', async () => {
    let loads = 0;
    const counting: CheckSources = {
      keys: sources().keys,
      pdfs: (key) =>
        sources()
          .pdfs(key)
          .map((f) => ({ ...f, pages: () => (loads++, f.pages()) })),
    };
    const memo = newCheckMemo();
    const draft = '“no grain could leave a port without a licence” [@whitfield2019grain, p. 212].\n\n“a changed one” [@oakenbrook1862, p. 2].';
    const first = await checkCitationList(findCitations(draft), counting, { memo });
    assert.equal(loads, 2);
    const edited = 'A new first line.\n\n' + draft.replace('a changed one', 'relief should be given in return');
    const again = await checkCitationList(findCitations(edited), counting, { memo });
    assert.equal(loads, 2, 'no source loaded again');
    assert.equal(again[0].status, first[0].status);
    assert.equal(again[0].line, 3);
    assert.equal(first[1].status, 'quote-not-found');
    assert.equal(again[1].status, 'ok');
  });

  it('a citation without a quotation: a page hint when another page matches its sentence far better, never a problem', async () => {
    const hinted = await check1('Most viceroys chose a full treasury over cheap loaves in Palermo when the harvest was good [@whitfield2019grain, p. 212].');
    assert.equal(hinted.status, 'ok');
    assert.equal(hinted.hint?.page, '214');
    assert.ok(hinted.hint.ratio === null || hinted.hint.ratio >= 2.5, String(hinted.hint.ratio));
    assert.match(hinted.hint.excerpt, /treasury/);
    // Cited at its page, or a sentence too vague to tell: no hint.
    assert.equal(
      (await check1('Most viceroys chose a full treasury over cheap loaves in Palermo when the harvest was good [@whitfield2019grain, p. 214].')).hint,
      null,
    );
    assert.equal((await check1('The book is long [@whitfield2019grain, p. 212].')).hint, null);
    // In a footnote after the sentence, and as an in-text citation: the sentence is the one cited.
    assert.equal(
      (await check1('Most viceroys chose a full treasury over cheap loaves in Palermo when the harvest was good.^[See @whitfield2019grain, p. 212.]')).hint
        ?.page,
      '214',
    );
    assert.equal((await check1('For @whitfield2019grain [p. 213], most viceroys chose a full treasury over cheap loaves in Palermo.')).hint?.page, '214');
    // A citation with a quotation is judged by it, not hinted.
    assert.equal((await check1('Viceroys chose “a full treasury and cheap loaves in Palermo” [@whitfield2019grain, p. 214].')).hint, null);
  });

  it('the citing sentence of a citation without a quotation, citations left out', () => {
    const c = findCitations('First one. The permit was the scarce good [@a, p. 3]. Next [@b, 4]. No page [@d].\n\nEnd of it.^[See @c, p. 2.] More.');
    assert.deepEqual(
      c.map((x) => [x.key, x.context]),
      [
        ['a', 'The permit was the scarce good'],
        ['b', 'Next'],
        ['d', undefined],
        ['c', 'End of it.'],
      ],
    );
  });

  it('several citations: each judged, in draft order', async () => {
    const r = await checkDraft('A [@whitfield2019grain, p. 212] and [@nobody] and [see @whitfield2019grain, p. 999; @oakenbrook1862, 2].', sources());
    assert.deepEqual(
      r.map((x) => x.status),
      ['ok', 'unknown-key', 'no-such-page', 'ok'],
    );
  });
});

describe('citation check: what is not an error', () => {
  const ok = async (draft: string) => {
    const r = await check1(draft);
    assert.equal(r.status, 'ok', JSON.stringify(r));
    return r;
  };
  it('case, and accents the PDF dropped', async () => {
    await ok('“NO GRAIN could leave a port” [@whitfield2019grain, p. 212].');
    await ok('« La société des marchands génois tenait le marché » [@whitfield2019grain, p. 213].');
  });
  it('whitespace and line breaks in the draft', async () => {
    await ok('“no grain could\nleave   a port without\na licence” [@whitfield2019grain, p. 212].');
  });
  it('hyphenation at a line end in the PDF, and ligatures', async () => {
    await ok('“The Genoese houses speculated on permits” [@whitfield2019grain, p. 212].');
    await ok('“The first licences were sold at the harbour, and their flow was watched” [@whitfield2019grain, p. 212].');
  });
  it('what another PDF reader leaves inside words: soft hyphens, zero-width characters, spacing accents, letter-spaced words', async () => {
    await ok('“The Genoese houses specu\u00ADlated on per\u200Bmits” [@whitfield2019grain, p. 212].');
    await ok('« La soci´et´e des marchands g´enois tenait le march´e » [@whitfield2019grain, p. 213].');
    await ok('“no grain could l e a v e a port without a licence” [@whitfield2019grain, p. 212].');
    // Still strict: a changed word among them, or letters that spell another word.
    assert.equal((await check1('“The Genoese houses specu\u00ADlated on wheat months before” [@whitfield2019grain, p. 212].')).status, 'quote-differs');
    assert.equal((await check1('“no grain could s t a y a port without a licence” [@whitfield2019grain, p. 212].')).status, 'quote-differs');
  });
  it("a quotation copied across a page break with the page's running footer and the next one's header", async () => {
    await ok('“In years of dearth the 214 The Grain Trade crown closed the ports altogether” [@whitfield2019grain, pp. 214–215].');
    await ok('“In years of dearth the The Grain Trade 215 crown closed the ports altogether” [@whitfield2019grain, p. 214].');
    // Words added there without the page's number, or elsewhere, are still the writer's.
    assert.equal((await check1('“In years of dearth the king crown closed the ports altogether” [@whitfield2019grain, pp. 214–215].')).status, 'quote-differs');
    assert.equal((await check1('“In years of dearth the 1648 crown closed the ports altogether” [@whitfield2019grain, pp. 214–215].')).status, 'quote-differs');
    assert.equal((await check1('“In years of 214 dearth the crown closed the ports altogether” [@whitfield2019grain, pp. 214–215].')).status, 'quote-differs');
    // A table of numbers holding a page's number is not a header between two pieces of the source.
    assert.equal((await check1('“the 1.18 1.18 GCC 1.65 214 1.17 1.26 crown” [@whitfield2019grain, pp. 214–215].')).status, 'quote-not-found');
  });
  it('curly vs straight quotes and apostrophes, « » spacing', async () => {
    await ok('"the permit, not the wheat, was the scarce good" [@whitfield2019grain, p. 213].');
    await ok('«La societe des marchands» [@whitfield2019grain, p. 213].');
  });
  it('elisions […], ... and … inside the quotation: the pieces in order, close together', async () => {
    await ok('“In the kingdom of Sicily […] without a licence issued in the name of the crown” [@whitfield2019grain, p. 212].');
    await ok('“In the kingdom of Sicily ... without a licence” [@whitfield2019grain, p. 212].');
    await ok('“In the kingdom of Sicily … the ﬁrst licences were sold” [@whitfield2019grain, p. 212].');
    // Pieces out of order are not the source's words.
    const r = await check1('“the first licences were sold at the harbour […] In the kingdom of Sicily no grain” [@whitfield2019grain, p. 212].');
    assert.notEqual(r.status, 'ok');
  });
  it('[sic] and bracketed insertions', async () => {
    await ok('“the permit, not the wheat [sic], was the scarce good” [@whitfield2019grain, p. 213].');
    await ok('“[M]erchants paid for the right to export” [@whitfield2019grain, p. 213].');
    await ok('“[Sicilian] merchants paid for the right to export” [@whitfield2019grain, p. 213].');
    await ok('“Merchants paid for the right to export [grain] rather than for the wheat itself” [@whitfield2019grain, p. 213].');
  });
  it('OCR text: misread letters are tolerated, and the result says so; a changed word is still flagged', async () => {
    const r = await check1('“The committee resolved that relief should be given in return for attendance at school” [@oakenbrook1862, p. 2].');
    assert.equal(r.status, 'ok');
    assert.equal(r.ocr, true);
    assert.match(r.note ?? '', /OCR/);
    const changed = await check1('“The committee resolved that bread should be given in return for attendance at school” [@oakenbrook1862, p. 2].');
    assert.equal(changed.status, 'quote-differs');
  });
});

describe('citation check: speed', () => {
  it('checks 1,000 citations of a 300-page source in well under 2 s', async () => {
    // mulberry32: a generator without the short cycles of a small LCG (a periodic text repeats its quotations).
    let seed = 7;
    const rnd = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    // A Zipf-like vocabulary of 3,000 words: frequent words repeat, as in prose.
    const vocab = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`);
    const word = () => vocab[Math.floor(vocab.length * rnd() ** 3)];
    const pages: PageText[] = Array.from({ length: 300 }, (_, i) => ({
      page: i + 1,
      label: String(i + 1),
      ocr: false,
      text: Array.from({ length: 400 }, word).join(' '),
    }));
    const draft: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const p = pages[Math.floor(rnd() * pages.length)];
      const w = p.text.split(' ');
      const at = Math.floor(rnd() * (w.length - 20));
      draft.push(`Text “${w.slice(at, at + 12).join(' ')}” [@big, p. ${p.label}].`);
      draft.push('');
    }
    const src: CheckSources = { keys: new Set(['big']), pdfs: () => [{ path: '/big.pdf', pages: async () => pages }] };
    // The first run pays for the JIT and the source's index; the second is what a re-check costs (both must fit).
    let t = Date.now();
    await checkCitationList(findCitations(draft.join('\n')), src);
    const cold = Date.now() - t;
    t = Date.now();
    const r = await checkCitationList(findCitations(draft.join('\n')), src);
    const ms = Date.now() - t;
    assert.ok(cold < 4000, `first run ${cold} ms`);
    assert.equal(r.length, 1000);
    assert.ok(r.filter((x) => x.status === 'ok').length >= 990, `${r.filter((x) => x.status !== 'ok').length} not ok`);
    assert.ok(ms < 2000, `${ms} ms`);
  });
});
