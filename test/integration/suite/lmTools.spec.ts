/**
 * The library as language-model tools, called as a chat participant or Copilot's agent mode calls
 * them (`vscode.lm.invokeTool`), in a real extension host on a copy of examples/.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FEEDING_PARAGRAPH, PRODUCT_ID, draftUri, withTimeout, workspaceRoot } from './helpers';

const INDEX_MS = 8 * 60_000;

/** The text parts of a tool's result, as a model reads them. */
function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

const dataOf = (text: string) => JSON.parse(text.slice(text.indexOf('\n') + 1)) as Record<string, unknown>;

describe('Similar Sources as language-model tools (vscode.lm)', function () {
  this.timeout(INDEX_MS + 60_000);

  before(async () => {
    await vscode.extensions.getExtension(PRODUCT_ID)!.activate();
    // The tools never index: the library is indexed first, as a user would (incremental when it is already).
    await withTimeout(vscode.commands.executeCommand('similarSources.indexLibrary'), INDEX_MS, 'similarSources.indexLibrary');
  });

  it('declares the three tools (vscode.lm.tools lists none in code-server without a chat model, so the manifest is read)', () => {
    const tools = (
      vscode.extensions.getExtension(PRODUCT_ID)!.packageJSON as {
        contributes: { languageModelTools: Array<{ name: string; inputSchema: { required: string[] } }> };
      }
    ).contributes.languageModelTools;
    assert.deepEqual(tools.map((t) => t.name).sort(), ['similarSources_checkCitations', 'similarSources_search', 'similarSources_sourcesFor']);
    assert.deepEqual(tools.find((t) => t.name === 'similarSources_search')!.inputSchema.required, ['query']);
  });

  it('similarSources_search: a paragraph of the draft finds whitfield2019grain with its page, as a LanguageModelTextPart', async () => {
    const draft = fs
      .readFileSync(draftUri().fsPath, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(FEEDING_PARAGRAPH))!;
    const result = await vscode.lm.invokeTool('similarSources_search', {
      input: { query: draft.replace(/\s*\[@[^\]]*\]/g, ''), k: 3 },
      toolInvocationToken: undefined,
    });
    assert.ok(result.content.length >= 1 && result.content.every((p) => p instanceof vscode.LanguageModelTextPart));
    const text = textOf(result);
    const passages = dataOf(text).passages as Array<{ citekey: string; pageLabel: string; citation: string }>;
    assert.equal(passages[0].citekey, 'whitfield2019grain', text);
    assert.match(passages[0].pageLabel, /^21\d$/);
    assert.equal(passages[0].citation, `[@whitfield2019grain, p. ${passages[0].pageLabel}]`);
    // Kept in the checkout's test-results/ (beside the screenshots): what a model reads.
    const cli = process.env.SIMILAR_SOURCES_IT_CLI;
    if (cli) {
      const dir = path.join(path.dirname(path.dirname(cli)), 'test-results');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'lm-tool-search.txt'), text + '\n');
    }
  });

  it('similarSources_sourcesFor gives the cards with their band; checkCitations checks a draft; a bad call fails with a message a model can act on', async () => {
    const sources = await vscode.lm.invokeTool('similarSources_sourcesFor', {
      input: { text: 'The Sicilian crown sold export permits for grain, and Genoese houses speculated on them before the reaping.' },
      toolInvocationToken: undefined,
    });
    const cards = (dataOf(textOf(sources)).segments as Array<{ sources: Array<{ citekey: string; band: string }> }>)[0].sources;
    assert.equal(cards[0].citekey, 'whitfield2019grain');
    assert.ok(['strong', 'related', 'weak'].includes(cards[0].band));
    const chapter = path.join(workspaceRoot(), 'lm-tools-chapter.md');
    fs.writeFileSync(chapter, 'See [@whitfeld2019grain, p. 3].\n');
    try {
      const check = await vscode.lm.invokeTool('similarSources_checkCitations', {
        input: { uri: vscode.Uri.file(chapter).toString() },
        toolInvocationToken: undefined,
      });
      assert.deepEqual(
        (dataOf(textOf(check)).citations as Array<{ status: string }>).map((c) => c.status),
        ['unknown-key'],
      );
    } finally {
      fs.rmSync(chapter, { force: true });
    }
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool('similarSources_search', { input: { query: 'grain', k: 500 }, toolInvocationToken: undefined })),
      /"k" must be between 1 and 20|must be <= 20/i,
    );
  });
});
