/**
 * A Quarto draft (examples/draft.qmd: draft.md with an R chunk, a callout, cross-references and a
 * shortcode) gets what a Markdown draft gets (issue 25): its language id is `quarto` without the
 * Quarto extension, Find Similar Sources analyses it, CodeLenses stand above its prose and none
 * above its chunk, Insert citation writes a Pandoc citation snippet, `[@` completes citekeys and
 * `[@fig-` (a cross-reference) does not. Runs after extension.spec.ts (files run in name order),
 * whose first analysis indexed the library.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FEEDING_PARAGRAPH, bibliographyKeys, commandLinkArgs, findLine, hoverText, waitFor, withTimeout, workspaceRoot } from './helpers';

const ANALYSIS_MS = 8 * 60_000;

async function openQuarto(): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), 'draft.qmd')));
  return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
}

describe('A Quarto draft (draft.qmd)', function () {
  this.timeout(120_000);
  let analysed = 0;

  it('opens as the quarto language and Find Similar Sources analyses it', async function () {
    this.timeout(ANALYSIS_MS + 10_000);
    const editor = await openQuarto();
    assert.equal(editor.document.languageId, 'quarto');
    const result = (await withTimeout(vscode.commands.executeCommand('similarSources.findSimilarSources'), ANALYSIS_MS, 'Find Similar Sources on draft.qmd')) as { segments: number; analysed: number } | undefined;
    assert.ok(result && result.analysed > 0, `draft.qmd analysed: ${JSON.stringify(result)}`);
    analysed = result.analysed;
  });

  it('shows CodeLenses above its prose, none above the R chunk, and the Feeding paragraph names Whitfield', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openQuarto();
    const lenses = await waitFor(
      async () => {
        const all = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri, 1000)) ?? [];
        const ours = all.filter((l) => (l.command?.title ?? '').startsWith('$('));
        return ours.length ? ours : undefined;
      },
      20_000,
      'CodeLenses on draft.qmd',
    );
    assert.equal(lenses.length, analysed, `one lens per analysed segment: ${lenses.map((l) => l.command?.title).join('\n')}`);
    const chunkStart = findLine(editor.document, '```{r}');
    let chunkEnd = chunkStart + 1;
    while (editor.document.lineAt(chunkEnd).text !== '```') chunkEnd++;
    for (const l of lenses) assert.ok(l.range.start.line < chunkStart || l.range.start.line > chunkEnd, `a lens on the chunk, line ${l.range.start.line + 1}`);
    const feeding = findLine(editor.document, FEEDING_PARAGRAPH);
    const lens = lenses.find((l) => l.range.start.line === feeding);
    assert.match(lens?.command?.title ?? '', /^\$\(book\) \d+ (strong|related) · Whitfield 2019, p\. \S+$/);
  });

  it('inserts a Pandoc citation snippet (page selected) from the hover, in one undoable edit', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openQuarto();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const pos = new vscode.Position(line, 20);
    const hover = await waitFor(
      async () => {
        const text = hoverText((await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, pos)) ?? []);
        return text.includes('similarSources.insertCitation') ? text : undefined;
      },
      20_000,
      'a hover with Insert citation on the Feeding paragraph of draft.qmd',
      500,
    );
    const links = commandLinkArgs(hover, 'similarSources.insertCitation');
    // Inside the paragraph's existing citation: the new one joins it.
    const end = editor.document.lineAt(line).range.end;
    const before = editor.document.getText();
    editor.selection = new vscode.Selection(end, end);
    await withTimeout(vscode.commands.executeCommand('similarSources.insertCitation', ...links[0]), 20_000, 'similarSources.insertCitation');
    const after = editor.document.getText();
    let p = 0;
    while (p < before.length && before[p] === after[p]) p++;
    const inserted = after.slice(p, p + after.length - before.length);
    assert.equal(after.slice(p + inserted.length), before.slice(p), 'only an insertion');
    const m = /\[@([^\s,;\]]+), pp?\. ([^\]]+)\]/.exec(inserted);
    assert.ok(m, `a Pandoc citation with a page locator: "${inserted}"`);
    assert.ok(bibliographyKeys().includes(m[1]), `${m[1]} is in library.bib`);
    assert.equal(editor.document.positionAt(p).line, line, 'inserted in the paragraph');
    assert.equal(editor.document.getText(editor.selection), m[2], 'the page locator is selected (a tab stop)');
    await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
    await vscode.commands.executeCommand('leaveSnippet');
    await vscode.commands.executeCommand('undo');
    await waitFor(() => editor.document.getText() === before, 5_000, 'one undo to restore draft.qmd');
  });

  it('completes citekeys after [@ (ranked for the paragraph), and not after a cross-reference [@fig-', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openQuarto();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const before = editor.document.getText();
    const typed = 'What the Sicilian crown sold was the export permit, and Genoese houses speculated on grain permits [@';
    const crossRef = 'The prices are in [@fig-';
    await editor.edit((b) => b.insert(new vscode.Position(line + 1, 0), `\n${typed}\n\n${crossRef}\n`));
    const labels = async (at: vscode.Position, trigger?: string) => {
      const list = await withTimeout(Promise.resolve(vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', editor.document.uri, at, trigger)), 30_000, 'completion');
      return list.items
        .filter((i) => i.kind === vscode.CompletionItemKind.Reference)
        .sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''))
        .map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    };
    try {
      const keys = await labels(new vscode.Position(line + 2, typed.length), '@');
      assert.equal(keys[0], 'whitfield2019grain', `ranked for the paragraph: ${keys.join(', ')}`);
      for (const key of bibliographyKeys()) assert.ok(keys.includes(key), `${key} offered`);
      assert.deepEqual(await labels(new vscode.Position(line + 4, crossRef.length)), [], 'no citekey for a cross-reference');
    } finally {
      await editor.edit((b) => b.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), before));
      await editor.document.save();
    }
  });
});
