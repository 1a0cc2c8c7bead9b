/**
 * A Quarto draft (examples/draft.qmd: draft.md with an R chunk, a callout, cross-references and a
 * shortcode) gets what a Markdown draft gets (issue 25): its language id is `quarto` without the
 * Quarto extension, Find Similar Sources analyses it, CodeLenses stand above its prose and none
 * above its chunk, Insert citation writes a Pandoc citation snippet, `[@` completes citekeys and
 * `[@fig-` (a cross-reference) does not. Runs after extension.spec.ts (files run in name order),
 * whose first analysis indexed the library.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import {
  FEEDING_PARAGRAPH,
  bibliographyKeys,
  citekeyCompletions,
  findLine,
  findSimilarSourcesOn,
  hoverInsertLinks,
  insertCitationAt,
  openExampleDraft,
  productLenses,
  undoOnceTo,
} from './helpers';

const ANALYSIS_MS = 8 * 60_000;
const openQuarto = () => openExampleDraft('draft.qmd');

describe('A Quarto draft (draft.qmd)', function () {
  this.timeout(120_000);
  let analysed = 0;

  it('opens as the quarto language and Find Similar Sources analyses it', async function () {
    this.timeout(ANALYSIS_MS + 10_000);
    const editor = await openQuarto();
    assert.equal(editor.document.languageId, 'quarto');
    analysed = await findSimilarSourcesOn('draft.qmd', ANALYSIS_MS);
  });

  it('shows CodeLenses above its prose, none above the R chunk, and the Feeding paragraph names Whitfield', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openQuarto();
    const lenses = await productLenses(editor.document);
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
    const links = await hoverInsertLinks(editor, line);
    // Inside the paragraph's existing citation: the new one joins it.
    const { removed, inserted, offset, before } = await insertCitationAt(editor, editor.document.lineAt(line).range.end, links[0]);
    assert.equal(removed, '', 'only an insertion');
    const m = /\[@([^\s,;\]]+), pp?\. ([^\]]+)\]/.exec(inserted);
    assert.ok(m, `a Pandoc citation with a page locator: "${inserted}"`);
    assert.ok(bibliographyKeys().includes(m[1]), `${m[1]} is in library.bib`);
    assert.equal(editor.document.positionAt(offset).line, line, 'inserted in the paragraph');
    assert.equal(editor.document.getText(editor.selection), m[2], 'the page locator is selected (a tab stop)');
    await undoOnceTo(editor, before);
  });

  it('completes citekeys after [@ (ranked for the paragraph), and not after a cross-reference [@fig-', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openQuarto();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const before = editor.document.getText();
    const typed = 'What the Sicilian crown sold was the export permit, and Genoese houses speculated on grain permits [@';
    const crossRef = 'The prices are in [@fig-';
    await editor.edit((b) => b.insert(new vscode.Position(line + 1, 0), `\n${typed}\n\n${crossRef}\n`));
    const labels = (at: vscode.Position, trigger?: string) => citekeyCompletions(editor.document, at, trigger);
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
