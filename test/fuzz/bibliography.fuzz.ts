/**
 * Fuzzing of the bibliography readers (issue 28, item 4): Better BibTeX JSON and .bib, each
 * property-based (fast-check: arbitrary JSON in an item's fields; a generated BibTeX grammar with
 * @string, @preamble, @comment, crossref, braces, quotes, comments and Unicode) and
 * mutation-based (byte flips, truncation, splicing of a real-shaped export). Every input must:
 * not throw; keep its well-formed items when a neighbour is broken; give no message that quotes
 * a JavaScript error; take a time bounded by its size. The suite prints how many inputs each
 * part tried and its slowest one. A failure prints the input (and the seed replays it); each case
 * found is a fast regression test in test/unit/bibliographyHostile.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseBetterBibtexJson, parseBibtex, type BibEntry, type ParsedBibliography } from '../../src/core/library/bibliography';
import { JS_ERROR } from '../support/jsErrors';
import { writeLargeExport } from '../support/largeBibliography';
import { FUZZ_BUDGET_MS, fuzzParams, seededRandom } from './budget';

const BASE = '/home/historian/export';

/**
 * The CPU time an input may take: a fixed allowance plus a rate per KB. A .bib file may add
 * 256 KB of @string expansion to its size, which the parser's LaTeX grammar needs about 1.5 s for.
 */
const JSON_LIMIT_MS = (chars: number) => 1_000 + chars / 100;
const BIB_LIMIT_MS = (chars: number) => 6_000 + chars / 10;

interface Tally {
  name: string;
  tried: number;
  crashes: number;
  hangs: number;
  lost: number;
  worst: { ms: number; chars: number; input: string };
}
const tallies: Tally[] = [];
function tally(name: string): Tally {
  const t: Tally = { name, tried: 0, crashes: 0, hangs: 0, lost: 0, worst: { ms: 0, chars: 0, input: '' } };
  tallies.push(t);
  return t;
}
/** Writes a failing input where it can be read whole; answers the path. */
function keep(input: string, part: string): string {
  const file = path.join(os.tmpdir(), `fuzz-bibliography-${part.replace(/\W+/g, '-')}-${process.pid}.txt`);
  writeFileSync(file, input);
  return file;
}
const show = (s: string) => JSON.stringify(s.length > 400 ? `${s.slice(0, 400)}… (${s.length} characters)` : s);

function assertWellFormed(r: ParsedBibliography, input: string): void {
  assert.ok(Array.isArray(r.entries) && Array.isArray(r.warnings));
  for (const w of r.warnings) {
    assert.equal(typeof w, 'string');
    assert.doesNotMatch(w, JS_ERROR, `a message quotes a JavaScript error, for ${show(input)}`);
  }
  for (const e of r.entries) {
    assert.ok(typeof e.citekey === 'string' && e.citekey.length > 0);
    assert.ok(Array.isArray(e.authors) && e.authors.every((a) => typeof a === 'string'));
    assert.ok(Array.isArray(e.files) && e.files.every((f) => typeof f === 'string'));
    assert.ok(Array.isArray(e.collections) && e.collections.every((c) => typeof c === 'string'));
    assert.ok(e.title === undefined || typeof e.title === 'string');
    assert.ok(e.type === undefined || typeof e.type === 'string');
    assert.ok(e.year === undefined || Number.isInteger(e.year));
  }
  assert.equal(new Set(r.entries.map((e) => e.citekey)).size, r.entries.length, 'citation keys are unique');
}

/** Runs one input through a reader: checks it, counts it, keeps the slowest. */
async function attempt(
  t: Tally,
  input: string,
  read: (s: string) => ParsedBibliography | Promise<ParsedBibliography>,
  limit: (chars: number) => number,
): Promise<ParsedBibliography> {
  t.tried++;
  // CPU time: the readers run on this thread, and the machine may be shared (wall time there
  // ran to 4 times the CPU time).
  const c0 = process.cpuUsage();
  let r: ParsedBibliography;
  try {
    r = await read(input);
  } catch (err) {
    t.crashes++;
    throw new Error(`threw ${(err as Error)?.message} for ${show(input)}`);
  }
  const used = process.cpuUsage(c0);
  const ms = (used.user + used.system) / 1000;
  if (ms > t.worst.ms) t.worst = { ms, chars: input.length, input };
  if (ms > limit(input.length)) {
    t.hangs++;
    assert.fail(`took ${Math.round(ms)} ms of CPU for ${input.length} characters (limit ${Math.round(limit(input.length))} ms): ${show(input)}`);
  }
  assertWellFormed(r, input);
  return r;
}

const readJson = (s: string) => parseBetterBibtexJson(s, BASE);
const readBib = (s: string) => parseBibtex(s, BASE);
const comparable = (e: BibEntry) => ({ citekey: e.citekey, title: e.title, authors: e.authors, year: e.year, files: e.files, type: e.type });

// ---------------------------------------------------------------------------------------------
// Better BibTeX JSON

function goodItem(i: number): Record<string, unknown> {
  return {
    itemID: i,
    itemKey: `K${i}`,
    itemType: i % 3 ? 'journalArticle' : 'book',
    citationKey: `good${i}`,
    title: `La société <i>féodale</i> ${i}`,
    creators: [
      { creatorType: 'author', firstName: 'Marc', lastName: `Bloch${i}` },
      { creatorType: 'author', name: 'Archives nationales' },
      { creatorType: 'editor', firstName: 'Lucien', lastName: 'Febvre' },
    ],
    date: `${1900 + i}-05-01`,
    collections: ['AAAA1111'],
    attachments: [
      { itemType: 'attachment', title: 'Full Text PDF', path: `/Users/marie/Zotero/storage/ZX${i}/Bloch - ${i}.pdf`, contentType: 'application/pdf' },
      { itemType: 'attachment', title: 'Snapshot', path: `/Users/marie/Zotero/storage/ZX${i}/page.html`, contentType: 'text/html' },
    ],
    tags: [{ tag: 'histoire' }],
    relations: { 'dc:relation': [`http://zotero.org/users/1/items/K${i + 1}`] },
  };
}

/** A Better BibTeX export as BBT writes it (two-space indent), with each item's span. */
function bbtExport(items: unknown[]): { text: string; spans: Array<{ start: number; end: number }> } {
  const head = `{\n  "config": {\n    "id": "36a3b0b5-bad0-4a04-b79b-441c7cef77db",\n    "label": "BetterBibTeX JSON"\n  },\n  "collections": ${JSON.stringify(
    {
      AAAA1111: { key: 'AAAA1111', parent: false, name: 'Thesis', items: [1, 2, 3], collections: ['BBBB2222'] },
      BBBB2222: { key: 'BBBB2222', parent: 'AAAA1111', name: 'Chapter 2', items: [2], collections: [] },
    },
    null,
    2,
  ).replace(/\n/g, '\n  ')},\n  "items": [\n    `;
  let text = head;
  const spans: Array<{ start: number; end: number }> = [];
  items.forEach((item, i) => {
    if (i) text += ',\n    ';
    const start = text.length;
    text += JSON.stringify(item, null, 2).replace(/\n/g, '\n    ');
    spans.push({ start, end: text.length });
  });
  return { text: `${text}\n  ]\n}\n`, spans };
}

const anyJson = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  fc.constantFrom(null, 5, -1.5e308, true, '', ' ', 'x'.repeat(3000), [], {}, [null], [{ name: 5 }], { length: 1e9 }, '__proto__', 'constructor'),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const FIELDS = [
  'citationKey',
  'citekey',
  'itemType',
  'title',
  'creators',
  'date',
  'year',
  'collections',
  'attachments',
  'itemID',
  'itemKey',
  '__proto__',
  'constructor',
  'toString',
];
/** An item with arbitrary JSON in some of its fields (or anything at all in its place). */
const brokenItem = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), anyJson, { maxKeys: 6 }).map((o) => ({ citationKey: 'broken', ...o })),
  fc
    .record({
      creators: fc.array(fc.oneof(anyJson, fc.dictionary(fc.constantFrom('name', 'firstName', 'lastName', 'creatorType'), anyJson)), { maxLength: 4 }),
    })
    .map((o) => ({ citationKey: 'broken2', ...o })),
  fc
    .record({
      attachments: fc.array(fc.oneof(anyJson, fc.dictionary(fc.constantFrom('path', 'localPath', 'contentType', 'mimeType'), anyJson)), { maxLength: 3 }),
    })
    .map((o) => ({ citationKey: 'broken3', ...o })),
  anyJson,
);
const brokenCollections = fc.oneof(
  anyJson,
  fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(anyJson, fc.dictionary(fc.constantFrom('name', 'parent', 'items', 'collections', 'key'), anyJson))),
);

/** A byte flip, a truncation, a splice, a deletion or a doubling at a random place. */
function mutate(text: string, rnd: () => number): { text: string; touched: Array<[number, number]> } {
  const at = () => Math.floor(rnd() * (text.length + 1));
  const pick = (s: string) => s[Math.floor(rnd() * s.length)];
  const touched: Array<[number, number]> = [];
  const rounds = 1 + Math.floor(rnd() * 3);
  for (let r = 0; r < rounds; r++) {
    const p = at();
    const kind = Math.floor(rnd() * 6);
    if (kind === 0) {
      const c = rnd() < 0.6 ? pick('{}[]",:\\@#%=\n \u0000\u202e\ud800é') : String.fromCharCode(Math.floor(rnd() * 0x3000));
      text = text.slice(0, p) + c + text.slice(p + 1);
      touched.push([p, p + 1]);
    } else if (kind === 1) {
      text = text.slice(0, p);
      touched.push([p, Infinity]);
    } else if (kind === 2) {
      const from = at();
      const len = Math.floor(rnd() * 400);
      const piece = text.slice(from, from + len);
      text = text.slice(0, p) + piece + text.slice(p);
      touched.push([p, p + 1]);
      // What lies after p moved: its spans are shifted by the caller's check (touched from p on).
      touched.push([p, Infinity]);
    } else if (kind === 3) {
      const len = Math.floor(rnd() * 200);
      text = text.slice(0, p) + text.slice(p + len);
      touched.push([p, Infinity]);
    } else if (kind === 4) {
      const c = pick('{}[]"\\');
      text = text.slice(0, p) + c.repeat(1 + Math.floor(rnd() * 2000)) + text.slice(p);
      touched.push([p, Infinity]);
    } else {
      const len = 1 + Math.floor(rnd() * 8);
      text = text.slice(0, p) + Array.from({ length: len }, () => pick('{}[]",:\\ \n')).join('') + text.slice(p + len);
      touched.push([p, p + len]);
    }
  }
  return { text, touched };
}

describe('fuzz: bibliography readers', function () {
  after(() => {
    console.log('\n      part                         inputs  crashes  hangs  lost  slowest (CPU)');
    for (const t of tallies) {
      console.log(
        `      ${t.name.padEnd(28)} ${String(t.tried).padStart(6)}  ${String(t.crashes).padStart(7)}  ${String(t.hangs).padStart(5)}  ${String(t.lost).padStart(4)}  ${Math.round(t.worst.ms)} ms for ${t.worst.chars} characters`,
      );
    }
    const worst = tallies.reduce((a, b) => (b.worst.ms > a.worst.ms ? b : a), tallies[0]);
    if (worst) console.log(`      slowest input (${worst.name}): ${show(worst.worst.input)}`);
  });

  it('BBT JSON: arbitrary JSON in an item, its neighbours kept', async () => {
    const t = tally('BBT JSON, generated');
    const alone = readJson(bbtExport([goodItem(1), goodItem(2), goodItem(3)]).text).entries.map(comparable);
    await fc.assert(
      fc.asyncProperty(fc.array(brokenItem, { minLength: 1, maxLength: 3 }), fc.option(brokenCollections), async (broken, cols) => {
        const { text } = bbtExport([goodItem(1), ...broken.slice(0, 1), goodItem(2), ...broken.slice(1), goodItem(3)]);
        const input =
          cols === null ? text : text.replace(/"collections": \{[\s\S]*?\n {2}\},\n {2}"items"/, () => `"collections": ${JSON.stringify(cols)},\n  "items"`);
        const r = await attempt(t, input, readJson, JSON_LIMIT_MS);
        const kept = r.entries.filter((e) => e.citekey.startsWith('good')).map(comparable);
        if (kept.length !== 3) t.lost++;
        assert.deepEqual(kept, alone, `well-formed items lost next to ${show(JSON.stringify(broken))}`);
      }),
      fuzzParams({ interruptAfterTimeLimit: FUZZ_BUDGET_MS / 9 }),
    );
  });

  it('CSL-JSON: arbitrary JSON in an item, its neighbours kept', async () => {
    const t = tally('CSL-JSON, generated');
    const csl = (i: number) => ({
      id: `good${i}`,
      type: 'book',
      title: `Title ${i}`,
      author: [{ family: 'Bloch', given: 'Marc' }, { literal: 'Archives nationales' }],
      issued: { 'date-parts': [[1900 + i, 5]] },
    });
    const alone = readJson(JSON.stringify([csl(1), csl(2)], null, 2)).entries.map(comparable);
    const brokenCsl = fc.oneof(
      fc
        .dictionary(fc.constantFrom('id', 'type', 'title', 'author', 'editor', 'issued', '__proto__'), anyJson, { maxKeys: 5 })
        .map((o) => ({ id: 'broken', ...o })),
      fc
        .record({
          author: fc.array(fc.oneof(anyJson, fc.dictionary(fc.constantFrom('family', 'given', 'literal'), anyJson)), { maxLength: 3 }),
          issued: fc.oneof(anyJson, fc.record({ 'date-parts': anyJson, raw: anyJson })),
        })
        .map((o) => ({ id: 'broken2', ...o })),
      anyJson,
    );
    await fc.assert(
      fc.asyncProperty(brokenCsl, fc.boolean(), async (broken, indent) => {
        const r = await attempt(t, JSON.stringify([csl(1), broken, csl(2)], null, indent ? 2 : undefined), readJson, JSON_LIMIT_MS);
        const kept = r.entries.filter((e) => e.citekey.startsWith('good')).map(comparable);
        if (kept.length !== 2) t.lost++;
        assert.deepEqual(kept, alone, `well-formed CSL items lost next to ${show(JSON.stringify(broken))}`);
      }),
      fuzzParams({ interruptAfterTimeLimit: FUZZ_BUDGET_MS / 18 }),
    );
  });

  it('BBT JSON: byte flips, truncation, splicing of a real-shaped export', async () => {
    const t = tally('BBT JSON, mutated');
    const items = Array.from({ length: 40 }, (_, i) => goodItem(i + 1));
    const { text, spans } = bbtExport(items);
    const whole = new Map(readJson(text).entries.map((e) => [e.citekey, comparable(e)]));
    const rnd = seededRandom(0x6a73);
    const header = text.indexOf('"items"');
    const stop = performance.now() + FUZZ_BUDGET_MS / 6;
    while (performance.now() < stop) {
      const m = mutate(text, rnd);
      try {
        await checkJsonMutation(m);
      } catch (err) {
        console.log(`      failing input written to ${keep(m.text, t.name)}`);
        throw err;
      }
    }
    async function checkJsonMutation(m: { text: string; touched: Array<[number, number]> }) {
      const r = await attempt(t, m.text, readJson, JSON_LIMIT_MS);
      // An item whose text, and the separators on either side, were not touched must come
      // through unchanged, unless the damage is in the "items" key itself (or before a shift).
      if (m.touched.some(([a]) => a >= header - 10 && a <= spans[0].start)) return;
      const got = new Map(r.entries.map((e) => [e.citekey, comparable(e)]));
      spans.forEach((s, i) => {
        const prevEnd = i ? spans[i - 1].end : s.start - 8;
        const nextStart = i + 1 < spans.length ? spans[i + 1].start : s.end + 8;
        if (m.touched.some(([a, b]) => a < nextStart && b > prevEnd)) return;
        const key = `good${i + 1}`;
        if (!got.get(key)) t.lost++;
        assert.deepEqual(
          got.get(key),
          whole.get(key),
          `item ${key} lost though untouched, for ${show(m.text.slice(Math.max(0, m.touched[0][0] - 200), m.touched[0][0] + 200))}`,
        );
      });
    }
  });

  // -------------------------------------------------------------------------------------------
  // .bib

  const name = fc.constantFrom('a', 'b', 'jan', 'ann', 'x1', 'A', 'é', 'long');
  const piece = fc.oneof(
    fc.string({ maxLength: 12 }).map((s) => `{${s.replace(/[{}\\]/g, '')}}`),
    fc.string({ maxLength: 12 }).map((s) => `"${s.replace(/["{}\\]/g, '')}"`),
    name,
    fc.integer({ min: 0, max: 3000 }).map(String),
    fc.constantFrom("{\\'e}", '{\\"{o}}', '{{nested {braces}}}', '{$x^2$}', '{\\emph{it}}', '{\\url{http://x}}', '{ünïcødé ✓ 日本}', '{\\undefinedcommand{x}}'),
  );
  const value = fc.array(piece, { minLength: 1, maxLength: 4 }).map((ps) => ps.join(' # '));
  const directive = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(name, value).map(([n, v]) => `@string{${n} = ${v}}`) },
    fc.tuple(name, fc.integer({ min: 1, max: 45 })).map(([n, k]) =>
      // A chain of doublings, the case fuzzing found first (28 s at 20, a RangeError at 40).
      [
        `@string{${n}0 = "xy"}`,
        ...Array.from({ length: k }, (_, i) => `@string{${n}${i + 1} = ${n}${i} # ${n}${i}}`),
        `@misc{chain${k}, title = ${n}${k}}`,
      ].join('\n'),
    ),
    { weight: 2, arbitrary: value.map((v) => `@preamble{${v}}`) },
    { weight: 2, arbitrary: value.map((v) => `@preamble ${v}`) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map((s) => `@comment{${s.replace(/[{}]/g, '')}}`) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map((s) => `% ${s.replace(/\n/g, ' ')}`) },
    {
      weight: 6,
      arbitrary: fc
        .record({
          type: fc.constantFrom('article', 'book', 'inbook', 'incollection', 'mvbook', 'misc', 'x'),
          key: fc.oneof(fc.stringMatching(/^[A-Za-z][A-Za-z0-9:_-]{0,10}$/), fc.constant('')),
          fields: fc.array(
            fc.tuple(fc.constantFrom('title', 'author', 'editor', 'year', 'date', 'crossref', 'file', 'groups', 'month', 'keywords', 'abstract'), value),
            { maxLength: 6 },
          ),
          paren: fc.boolean(),
        })
        .map(
          ({ type, key, fields, paren }) => `@${type}${paren ? '(' : '{'}${key},\n${fields.map(([f, v]) => `  ${f} = ${v}`).join(',\n')}\n${paren ? ')' : '}'}`,
        ),
    },
    // Raw pieces of BibTeX syntax, so that the parser's error paths run.
    {
      weight: 4,
      arbitrary: fc
        .array(
          fc.oneof(
            fc.constantFrom('@', '@book{', '@string{', '{', '}', '"', ',', '=', '#', '\\', '$', '%', '\n', ' and ', '\\def\\y{\\y}'),
            fc.string({ maxLength: 6 }),
          ),
          { maxLength: 20 },
        )
        .map((p) => p.join('')),
    },
  );
  const good = (i: number) => `@article{good${i},\n  title = {Good title ${i}},\n  author = {Bloch, Marc and Febvre, Lucien},\n  year = {19${10 + i}}\n}`;

  it('.bib: a generated grammar with @string, @preamble, crossref, comments; its well-formed neighbours kept', async () => {
    const t = tally('.bib, generated');
    await fc.assert(
      fc.asyncProperty(fc.array(directive, { minLength: 1, maxLength: 5 }), async (ds) => {
        // Broken text goes between whole lines: a well-formed entry starts on a line of its own.
        const input = [good(1), ...ds, good(2), good(3)].join('\n\n');
        const r = await attempt(t, input, readBib, BIB_LIMIT_MS);
        const kept = r.entries.filter((e) => /^good\d$/.test(e.citekey));
        if (kept.length !== 3) t.lost++;
        assert.deepEqual(
          kept.map((e) => [e.citekey, e.title, e.authors, e.year]),
          [1, 2, 3].map((i) => [`good${i}`, `Good title ${i}`, ['Bloch, Marc', 'Febvre, Lucien'], 1910 + i]),
          `well-formed entries lost next to ${show(ds.join('\n\n'))}`,
        );
      }),
      fuzzParams({ interruptAfterTimeLimit: FUZZ_BUDGET_MS / 3 }),
    );
  });

  it('.bib: byte flips, truncation, splicing of a real-shaped export', async () => {
    const t = tally('.bib, mutated');
    // Two real-shaped exports: the hand-written Zotero one (with a @string), and 30 KB of the
    // generated one the stress suite reads (accents, four authors, abstracts, file fields).
    const large = path.join(os.tmpdir(), `fuzz-bibliography-large-${process.pid}.bib`);
    await writeLargeExport(large, 0.03);
    const bases = await Promise.all(
      [path.join(__dirname, '..', 'fixtures', 'bib', 'zotero-export.bib'), large].map(async (file) => {
        const text = readFileSync(file, 'utf8');
        const whole = await readBib(text);
        // Each entry's span: from its "@" to the next entry's.
        const starts = [...text.matchAll(/^@\w+\{([^,\s]+),/gm)].map((m) => ({ key: m[1], start: m.index! }));
        return { text, titles: new Map(whole.entries.map((e) => [e.citekey, e.title])), starts };
      }),
    );
    rmSync(large, { force: true });
    const rnd = seededRandom(0x626962);
    const stop = performance.now() + FUZZ_BUDGET_MS / 3;
    let n = 0;
    while (performance.now() < stop) {
      const { text: fixture, titles, starts } = bases[n++ % bases.length];
      const m = mutate(fixture, rnd);
      try {
        await checkBibMutation(m);
      } catch (err) {
        console.log(`      failing input written to ${keep(m.text, t.name)}`);
        throw err;
      }
    }
    async function checkBibMutation(m: { text: string; touched: Array<[number, number]> }, { text: fixture, titles, starts } = bases[(n - 1) % bases.length]) {
      const r = await attempt(t, m.text, readBib, BIB_LIMIT_MS);
      // An entry none of whose text was touched (nor the line before it) keeps its title; @string
      // definitions were touched if anything before them was, so entries are compared by title only.
      const got = new Map(r.entries.map((e) => [e.citekey, e.title]));
      starts.forEach((s, i) => {
        if (!titles.has(s.key)) return;
        const end = i + 1 < starts.length ? starts[i + 1].start : fixture.length;
        if (m.touched.some(([a, b]) => a < end && b > s.start - 2)) return;
        if (fixture.includes('@string') && m.touched.some(([a]) => a < fixture.indexOf('\n', fixture.indexOf('@string')) + 1)) return;
        if (!got.has(s.key)) t.lost++;
        assert.equal(got.get(s.key), titles.get(s.key), `entry ${s.key} lost though untouched, for ${show(m.text)}`);
      });
    }
  });
});
