/**
 * Quotations copied from PDF viewers (issue 38): what poppler (Evince, Okular), MuPDF and pdf.js
 * (Firefox, VS Code) put in a copy that the product's reading of the page lacks, or the reverse,
 * is forgiven and named; what a writer changes is still flagged. The pages are Debian's manuals as
 * the product reads them (nettle, bzip2, the Debian Edu manual and the developers' reference in
 * German, expEYES in French: free documentation), or rebuilt where a kind needs a TeX manual's
 * glyphs (logos, small capitals, cmsy brackets).
 */
import assert from 'node:assert/strict';
import { checkDraft, type CheckedCitation, type CheckSources } from '../../src/core/citecheck/check';
import type { PageText } from '../../src/core/citecheck/match';
import { cleanPages } from '../../src/core/pdf/cleanPages';

const page = (n: number, text: string, furniture?: string, label = String(n)): PageText => ({
  page: n,
  label,
  ocr: false,
  text,
  ...(furniture ? { furniture } : {}),
});

/** nettle's manual, pages 46–47 (printed 41–42): the running head "Chapter 7: Reference N" left out of each page's text. */
const NETTLE: PageText[] = [
  page(
    45,
    'The last three arguments define the source and destination area for the operation. CFB8 mode encrypts one octet at a time, and is kept for the protocols that need it.',
    'Chapter 7: Reference 40',
  ),
  page(
    46,
    'A simpler way to invoke cfb_decrypt. The first argument is a pointer to a context struct as defined by CFB_CTX. The last three arguments define the source and destination area for the operation.',
    'Chapter 7: Reference 41',
  ),
  page(
    47,
    '7.3.4 XEX-based tweaked-codebook mode with ciphertext stealing\n\nXEX-based tweaked-codebook mode with ciphertext stealing (XTS) is a block mode like (CBC) but tweaked to be able to encrypt partial blocks.',
    'Chapter 7: Reference 42',
  ),
];

/** The bzip2 manual, pages 22–23: "18" and "Programming with libbzip2" are the footer and the next page's head. */
const BZIP2: PageText[] = [
  page(22, 'The structure is shown below. Precise details are given on a per-function basis below.', '18', '18'),
  page(
    23,
    'bzCompressInit prepares for compression. The bz_stream structure holds all data pertaining to the compression activity.',
    'Programming with libbzip2\n19',
    '19',
  ),
];

/** The Debian Edu manual in German (page 73 of 98), its footer first as MuPDF reads it. */
const EDU: PageText[] = [
  page(72, 'Die Nutzung von Backports ist einfach und wird im Folgenden beschrieben.', 'Handbuch für Debian Edu / Skolelinux 12 Bookworm 72 / 98'),
  page(
    73,
    'Bemerkung: ldapvi verwendet den durch die Umgebungsvariable EDITOR als Standard gesetzten Editor. Wer einen anderen Editor will, setzt die Variable vor dem Aufruf.',
    'Handbuch für Debian Edu / Skolelinux 12 Bookworm 73 / 98',
  ),
];

/** The developers' reference in German: the footer "5.8. Fehlerbehandlung 41" stays in the text, the header does not. */
const DEVREF: PageText[] = [
  page(44, 'Sie sollten erklären: Wie wurde das Problem gelöst? 5.8. Fehlerbehandlung 41', 'Debian Developer’s Reference, Release 12.18'),
  page(45, 'Diese Informationen ermöglichen es Anwendern, die Bedrohung für ihre Systeme einzuschätzen.', 'Debian Developer’s Reference, Release 12.18'),
];

/** A TeX manual's page as pdf.js reads it (rebuilt): the logo dropped, a small-capital word's initial lost, cmsy brackets as h…i and braces as f…g. */
const TEX: PageText[] = [
  page(
    12,
    'Ce paquet complète les excellents tkz-* de Alain Matthes. HIS IS A TEST of small capitals. The argument hlemmai names the entry, and fkeyg names its key. La valeur peut ˆetre l´eg`erement différente.',
  ),
  page(
    13,
    'The LATEX kernel reads the file again at the end of the run. Unter bestimmten Umständen würden sie sich hier befinden. Danach folgt der Rest. Die Pakete liegen im Archiv bereit.3 Sie werden täglich gespiegelt.',
  ),
];

/** The expEYES manual in French, a word hyphenated across lines; fontconfig's manual, a word cut at a line start. */
const EXPEYES: PageText[] = [
  page(
    9,
    'Il faut une bobine de 3000 tours et un condensateur de 0,1 μF. La tension aux bornes du condensateur est mesurée par A1. The numeric representation of UNIX timestamp is preferred over the modification timestamps.',
  ),
];

/** A PDF whose cover pages are labelled 1 and 2 before the preface (i, ii) and the body (1, 2…). */
const COVER: PageText[] = [
  page(1, 'Jeunes Ingénieurs et Scientifiques', undefined, '1'),
  page(2, 'Ce manuel utilisateur décrit les expériences que l’on peut faire avec le boîtier.', undefined, '2'),
  page(3, 'Préface. Le projet est né en 2010.', undefined, 'i'),
  page(4, 'Le développement de matériel de laboratoire à bas coût.', undefined, 'ii'),
  page(5, 'Chapitre 1. Introduction au boîtier et à ses bornes.', undefined, '1'),
  page(6, 'Chapitre 1, suite: les bornes de sortie et leurs tensions.', undefined, '2'),
];

function sources(): CheckSources {
  const byKey: Record<string, PageText[]> = { nettle: NETTLE, bzip2: BZIP2, edu: EDU, devref: DEVREF, tex: TEX, expeyes: EXPEYES, cover: COVER };
  return { keys: new Set(Object.keys(byKey)), pdfs: (key) => (byKey[key] ? [{ path: `/lib/${key}.pdf`, pages: async () => byKey[key] }] : []) };
}

async function check(quote: string, key: string, locator: string): Promise<CheckedCitation> {
  const r = await checkDraft(`As the manual says, “${quote}” [@${key}, ${locator}].`, sources());
  assert.equal(r.length, 1);
  return r[0];
}

const kinds = (c: CheckedCitation) => (c.forgiven ?? []).map((f) => f.kind);

describe('citation check: quotations copied from a PDF viewer (issue 38)', () => {
  it('cleanPages keeps the running heads and page numbers it takes off each page, as its furniture', () => {
    const body = [
      'Grain left the port in spring.',
      'The licences were sold at the harbour.',
      'Merchants paid for the permit.',
      'The viceroy chose the treasury.',
    ];
    const raw = body.map(
      (line, n) => `Chapter 7: Reference ${n + 21}\n${line}\nA second line of the page ${['one', 'two', 'three', 'four'][n]}.\n${line}\n${n + 21}`,
    );
    const pages = cleanPages(raw);
    assert.deepEqual(pages[1].furniture, ['Chapter 7: Reference 22', '22']);
    assert.ok(!pages[1].blocks.some((b) => /Reference/.test(b.text)));
  });

  it('forgives a running head and page number caught across a page break, anywhere in the quotation, and says so', async () => {
    const c = await check(
      'source and desti- nation area for the operation. Chapter 7: Reference 42 7.3.4 XEX-based tweaked-codebook mode',
      'nettle',
      'pp. 46–47',
    );
    assert.equal(c.status, 'ok', JSON.stringify(c));
    assert.deepEqual(c.forgiven, [{ kind: 'page-furniture', quote: 'chapter 7 reference 42', source: '' }]);
    // The phrase ends three places of the source; the one at the end of the cited page is found.
    assert.equal(c.foundPage, '46–47');
  });

  it('forgives a header with no page number (the developers’ reference), the footer the product kept being matched as text', async () => {
    const c = await check(
      'Wie wurde das Problem gelöst? 5.8. Fehlerbehandlung 41 Debian Developer’s Reference, Release 12.18 Diese Informationen ermöglichen es Anwendern',
      'devref',
      'pp. 44–45',
    );
    assert.equal(c.status, 'ok', JSON.stringify(c));
    assert.deepEqual(kinds(c), ['page-furniture']);
  });

  it('forgives a footer or head caught after the quotation’s last word or before its first', async () => {
    const after = await check('Precise details are given on a per-function basis below. 18 Programming with libbzip2 •', 'bzip2', 'p. 18');
    assert.equal(after.status, 'ok', JSON.stringify(after));
    assert.deepEqual(kinds(after), ['page-furniture']);
    const before = await check(
      'Skolelinux 12 Bookworm 73 / 98 Bemerkung: ldapvi verwendet den durch die Umgebungsvariable EDITOR als Standard',
      'edu',
      'p. 73',
    );
    assert.equal(before.status, 'ok', JSON.stringify(before));
    assert.deepEqual(kinds(before), ['page-furniture']);
  });

  it('still flags a word a writer put at a page break, and a quotation of the running head itself', async () => {
    const added = await check('the source and destination area for the operation. Indeed 7.3.4 XEX-based tweaked-codebook mode', 'nettle', 'pp. 46–47');
    assert.equal(added.status, 'quote-differs');
    assert.deepEqual(added.differences, [{ quote: 'indeed', source: '' }]);
    // The running head alone is no text of the page.
    assert.equal((await check('Chapter 7: Reference 42 XEX-based', 'nettle', 'p. 47')).status, 'quote-not-found');
  });

  it('forgives a logo one reader spells out in capitals and another drops, on either side; a writer’s “LaTeX” is flagged', async () => {
    const extra = await check('Ce paquet complète les excellents LATEX tkz-* de Alain Matthes', 'tex', 'p. 12');
    assert.equal(extra.status, 'ok', JSON.stringify(extra));
    assert.deepEqual(extra.forgiven, [{ kind: 'logo', quote: 'latex', source: '' }]);
    const missing = await check('The kernel reads the file again at the end of the run', 'tex', 'p. 13');
    assert.equal(missing.status, 'ok', JSON.stringify(missing));
    assert.deepEqual(kinds(missing), ['logo']);
    const writer = await check('Ce paquet complète les excellents LaTeX tkz-* de Alain Matthes', 'tex', 'p. 12');
    assert.equal(writer.status, 'quote-differs');
  });

  it('forgives a small-capital word’s first letter read apart or lost', async () => {
    const split = await check('T HIS IS A TEST of small capitals', 'tex', 'p. 12');
    assert.equal(split.status, 'ok', JSON.stringify(split));
    assert.deepEqual(kinds(split), ['small-caps']);
    const joined = await check('THIS IS A TEST of small capitals', 'tex', 'p. 12');
    assert.equal(joined.status, 'ok', JSON.stringify(joined));
    assert.deepEqual(kinds(joined), ['small-caps']);
    // A lower-case word with a letter more is the writer's.
    assert.equal((await check('The argument lemmas names the entry', 'tex', 'p. 12')).status, 'quote-differs');
  });

  it('forgives a symbol font’s brackets and braces decoded as the letters of their slots (〈lemma〉 / hlemmai, {key} / fkeyg)', async () => {
    const c = await check('The argument 〈lemma〉 names the entry, and {key} names its key', 'tex', 'p. 12');
    assert.equal(c.status, 'ok', JSON.stringify(c));
    assert.deepEqual(c.forgiven, [
      { kind: 'glyph', quote: 'lemma', source: 'hlemmai' },
      { kind: 'glyph', quote: 'key', source: 'fkeyg' },
    ]);
  });

  it('reads accents a TeX font sets apart (ˆetre, l´eg`erement) as the letters they sit on', async () => {
    const c = await check('La valeur peut être légèrement différente', 'tex', 'p. 12');
    assert.equal(c.status, 'ok', JSON.stringify(c));
    assert.equal(c.forgiven, undefined);
  });

  it('forgives a footnote number glued to a word, in the copy or in the source; a number the writer set apart is flagged', async () => {
    const inCopy = await check('Unter bestimmten Umständen würden sie sich hier befinden.2 Danach folgt der Rest', 'tex', 'p. 13');
    assert.equal(inCopy.status, 'ok', JSON.stringify(inCopy));
    assert.deepEqual(kinds(inCopy), ['footnote-mark']);
    const glued = await check('Unter bestimmten Umständen würden sie sich hier befinden2 Danach folgt der Rest', 'tex', 'p. 13');
    assert.equal(glued.status, 'ok', JSON.stringify(glued));
    const dropped = await check('Die Pakete liegen im Archiv bereit. Sie werden täglich gespiegelt', 'tex', 'p. 13');
    assert.equal(dropped.status, 'ok', JSON.stringify(dropped));
    assert.deepEqual(kinds(dropped), ['footnote-mark']);
    assert.equal((await check('Unter bestimmten Umständen würden sie sich hier 2 befinden. Danach folgt der Rest', 'tex', 'p. 13')).status, 'quote-differs');
  });

  it('forgives a copy that starts or ends inside a hyphenated word, not a real word put for another', async () => {
    const end = await check('tours et un condensateur de 0,1 µF. La tension aux bornes du condensa-', 'expeyes', 'p. 9');
    assert.equal(end.status, 'ok', JSON.stringify(end));
    assert.deepEqual(kinds(end), ['cut-word']);
    const start = await check('meric representation of UNIX timestamp is preferred', 'expeyes', 'p. 9');
    assert.equal(start.status, 'ok', JSON.stringify(start));
    assert.deepEqual(kinds(start), ['cut-word']);
    // "presentation" is a word: put for "representation", it is the writer's.
    const word = await check('The numeric presentation of UNIX timestamp is preferred', 'expeyes', 'p. 9');
    assert.equal(word.status, 'quote-differs');
  });

  it('takes a page label the PDF gives twice (a cover’s “2” and the body’s) as either page', async () => {
    const c = await check('Ce manuel utilisateur décrit les expériences que l’on peut faire', 'cover', 'p. 2');
    assert.equal(c.status, 'ok', JSON.stringify(c));
    const wrong = await check('Ce manuel utilisateur décrit les expériences que l’on peut faire', 'cover', 'p. i');
    assert.equal(wrong.status, 'wrong-page');
    assert.equal(wrong.foundPage, '2');
  });
});
