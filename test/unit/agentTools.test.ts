import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import {
  checkCitationsTool,
  checkInput,
  indexStatusTool,
  readDraft,
  searchTool,
  sourcesForTool,
  toolErrorText,
  ToolInputError,
  TOOL_DESCRIPTIONS,
  TOOL_LIMITS,
  TOOL_SCHEMAS,
} from '../../src/engine/agentTools';
import { createEngine, readWorkspaceSettings, type WorkspaceEngine } from '../../src/engine';
import { GRAIN_PARAGRAPH } from '../support/exampleDraft';

const rejects = (p: Promise<unknown>, re: RegExp) => assert.rejects(p, (e: unknown) => e instanceof ToolInputError && re.test(e.message));

describe('agent tools: input checks', () => {
  it('accepts what the schema allows, and refuses missing, mistyped, unknown and out-of-range arguments, saying which', () => {
    assert.deepEqual(checkInput(TOOL_SCHEMAS.search, { query: 'grain', k: 3, sourceType: 'primary', collection: 'Trade' }), {
      query: 'grain',
      k: 3,
      sourceType: 'primary',
      collection: 'Trade',
    });
    const refused = (schema: (typeof TOOL_SCHEMAS)[keyof typeof TOOL_SCHEMAS], input: unknown, re: RegExp) =>
      assert.throws(
        () => checkInput(schema, input),
        (e: unknown) => e instanceof ToolInputError && re.test(e.message),
      );
    refused(TOOL_SCHEMAS.search, {}, /"query" is required/);
    refused(TOOL_SCHEMAS.search, null, /must be an object/);
    refused(TOOL_SCHEMAS.search, ['grain'], /must be an object/);
    refused(TOOL_SCHEMAS.search, { query: 42 }, /"query" must be a string/);
    refused(TOOL_SCHEMAS.search, { query: '   ' }, /"query" must not be empty/);
    refused(TOOL_SCHEMAS.search, { query: 'x'.repeat(TOOL_LIMITS.query + 1) }, /longer than 2000/);
    refused(TOOL_SCHEMAS.search, { query: 'grain', k: 0 }, /"k" must be between 1 and 20/);
    refused(TOOL_SCHEMAS.search, { query: 'grain', k: 21 }, /"k" must be between 1 and 20/);
    refused(TOOL_SCHEMAS.search, { query: 'grain', k: 2.5 }, /"k" must be an integer/);
    refused(TOOL_SCHEMAS.search, { query: 'grain', k: '5' }, /"k" must be an integer/);
    refused(TOOL_SCHEMAS.search, { query: 'grain', sourceType: 'tertiary' }, /one of secondary, primary, both/);
    refused(TOOL_SCHEMAS.search, { query: 'grain', limit: 3 }, /unknown argument "limit"/);
    // Every problem at once, so that a model fixes its call in one go.
    refused(TOOL_SCHEMAS.search, { k: 99, extra: 1 }, /"query" is required.*"k" must be between.*unknown argument "extra"/);
    refused(TOOL_SCHEMAS.sourcesFor, { text: 'x'.repeat(TOOL_LIMITS.text + 1) }, /longer than 6000/);
    refused(TOOL_SCHEMAS.sourcesFor, { paragraph: 'grain' }, /"text" is required/);
    refused(TOOL_SCHEMAS.checkCitationsPath, {}, /"path" is required/);
    assert.deepEqual(checkInput(TOOL_SCHEMAS.checkCitationsUri, {}), {});
  });

  it("package.json's language-model tools publish the same schemas", () => {
    const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as {
      contributes: { languageModelTools: Array<{ name: string; inputSchema: unknown; modelDescription: string }> };
    };
    const byName = new Map(pkg.contributes.languageModelTools.map((t) => [t.name, t]));
    assert.deepEqual(byName.get('similarSources_search')?.inputSchema, TOOL_SCHEMAS.search);
    assert.deepEqual(byName.get('similarSources_sourcesFor')?.inputSchema, TOOL_SCHEMAS.sourcesFor);
    assert.deepEqual(byName.get('similarSources_checkCitations')?.inputSchema, TOOL_SCHEMAS.checkCitationsUri);
    assert.equal(byName.get('similarSources_search')?.modelDescription, TOOL_DESCRIPTIONS.search);
    assert.equal(byName.get('similarSources_sourcesFor')?.modelDescription, TOOL_DESCRIPTIONS.sourcesFor);
    assert.equal(byName.get('similarSources_checkCitations')?.modelDescription, TOOL_DESCRIPTIONS.checkCitations);
  });
});

describe('agent tools: answers on the example library', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-tools-'));
  const ws = join(root, 'examples');
  let engine: WorkspaceEngine;

  before(async () => {
    cpSync(resolve('examples'), ws, { recursive: true, filter: (src) => !src.includes('.similar-sources') });
    const { settings } = await readWorkspaceSettings(ws);
    engine = createEngine({ workspace: ws, settings: { ...settings, ocr: 'off', useReranking: 'off' }, provider: new EmbeddedProvider() });
    await engine.index({ jobs: 0 });
  });
  after(async () => {
    await engine?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  /** The JSON after the answer's first line. */
  const dataOf = (text: string) => JSON.parse(text.slice(text.indexOf('\n') + 1)) as Record<string, unknown>;

  it('search: a paragraph of the draft finds whitfield2019grain with its printed page and a ready citation', async () => {
    const a = await searchTool(engine, { query: GRAIN_PARAGRAPH, k: 3 });
    const { passages } = dataOf(a.text) as { passages: Array<Record<string, unknown>> };
    assert.deepEqual(a.data, dataOf(a.text));
    assert.ok(passages.length >= 1 && passages.length <= 3);
    const top = passages[0];
    assert.equal(top.citekey, 'whitfield2019grain');
    assert.match(String(top.pageLabel), /^21\d$/);
    assert.equal(top.citation, `[@whitfield2019grain, p. ${top.pageLabel}]`);
    assert.ok(typeof top.title === 'string' && (top.authors as string[]).length && top.year);
    assert.ok(String(top.text).length > 50 && String(top.text).length <= TOOL_LIMITS.passage);
    assert.match(a.text.split('\n')[0], /3 passages|\d passages? of the user's library/);
    // Filters: no primary source is about the grain trade's permits in this library's archives folder.
    const primary = await searchTool(engine, { query: GRAIN_PARAGRAPH, sourceType: 'primary' });
    assert.ok((dataOf(primary.text).passages as Array<{ citekey: string | null }>).every((p) => p.citekey !== 'whitfield2019grain'));
  });

  it('sourcesFor: the cards the panel shows for the paragraph, band included', async () => {
    const a = await sourcesForTool(engine, { text: GRAIN_PARAGRAPH });
    const { segments } = dataOf(a.text) as { segments: Array<{ sources: Array<Record<string, unknown>> }> };
    assert.equal(segments.length, 1);
    const top = segments[0].sources[0];
    assert.equal(top.citekey, 'whitfield2019grain');
    assert.ok(['strong', 'related', 'weak'].includes(String(top.band)));
    assert.equal(top.band, 'strong');
    assert.match(String(top.citation), /^\[@whitfield2019grain, pp?\. 21\d/);
    assert.ok(segments[0].sources.length <= 5);
    const short = await sourcesForTool(engine, { text: 'Grain.' });
    assert.match(short.text, /too short/);
  });

  it('checkCitations: each citation of a draft with its status, problems first; a draft outside the workspace is refused', async () => {
    writeFileSync(
      join(ws, 'chapter.md'),
      'Fine: “no grain could leave a port without a tratta” [@whitfield2019grain, p. 214].\nAnd [@whitfeld2019grain, p. 3].\n',
    );
    const draft = await readDraft(engine, { path: 'chapter.md' });
    assert.equal(draft.path, 'chapter.md');
    const a = await checkCitationsTool(engine, draft.text, { name: draft.path });
    const { citations, errors } = dataOf(a.text) as { citations: Array<{ key: string; status: string; line: number }>; errors: number };
    assert.deepEqual(
      citations.map((c) => [c.line, c.key, c.status]),
      [
        [2, 'whitfeld2019grain', 'unknown-key'],
        [1, 'whitfield2019grain', 'ok'],
      ],
    );
    assert.equal(errors, 1);
    // A LaTeX draft, with the chapter it \input s.
    writeFileSync(join(ws, 'thesis.tex'), "``no grain could leave a port without a tratta'' \\autocite[p.~214]{whitfield2019grain}.\n\\input{ch2}\n");
    writeFileSync(join(ws, 'ch2.tex'), 'And \\cite[p.~3]{whitfeld2019grain}.\n');
    const tex = await readDraft(engine, { path: 'thesis.tex' });
    const t = dataOf((await checkCitationsTool(engine, tex.text, { name: tex.path, draftPath: tex.file })).text) as {
      citations: Array<{ file?: string; key: string; status: string; line: number }>;
    };
    assert.deepEqual(
      t.citations.map((c) => [c.file ?? '', c.line, c.key, c.status]),
      [
        ['ch2.tex', 1, 'whitfeld2019grain', 'unknown-key'],
        ['', 1, 'whitfield2019grain', 'ok'],
      ],
    );
    // Refused alike whether the file exists or not: no answer tells what lies outside.
    await rejects(readDraft(engine, { path: '../outside.md' }), /inside the workspace/);
    await rejects(readDraft(engine, { path: 'missing.md' }), /no such file in the workspace: missing\.md/);
    writeFileSync(join(root, 'outside.md'), 'secret');
    await rejects(readDraft(engine, { path: '../outside.md' }), /inside the workspace/);
    await rejects(readDraft(engine, { path: join(root, 'outside.md') }), /inside the workspace/);
    symlinkSync(join(root, 'outside.md'), join(ws, 'link.md'));
    await rejects(readDraft(engine, { path: 'link.md' }), /inside the workspace/);
    await rejects(readDraft(engine, { path: 'library/library.bib' }), /not a Markdown or LaTeX draft/);
  });

  it('the index status, and errors a model can act on: an index to build, a wrong call', async () => {
    const status = await indexStatusTool(engine);
    assert.equal((status.data as { health: { state: string } }).health.state, 'ready');
    const empty = createEngine({ workspace: mkdtempSync(join(root, 'empty-')), settings: engine.settings(), provider: new EmbeddedProvider() });
    const e = await searchTool(empty, { query: 'grain' }).catch((x: unknown) => x);
    assert.match(toolErrorText(e), /cannot answer yet \(missing\).*Index the library first/);
    const wrong = await searchTool(engine, { query: 7 }).catch((x: unknown) => x);
    assert.equal(toolErrorText(wrong), 'invalid arguments: "query" must be a string');
  });
});
