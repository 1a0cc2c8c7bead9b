/**
 * A LaTeX draft (examples/draft.tex: draft.md's text with a biblatex preamble, a verbatim block,
 * a figure and a footnote) gets what a Markdown draft gets (issue 25): VS Code's own `latex`
 * language id, Find Similar Sources analysing it with the LaTeX parser, CodeLenses above its
 * prose and none on its verbatim block or float, Insert citation writing biblatex's
 * `\autocite[p.~…]{key}` as a snippet (page selected) and merging into the adjacent
 * `\autocite` as `\autocites`, and citekey completion inside `\autocite{` and after a comma of
 * a key list, not in a comment, and Check Citations reading LaTeX (a mistyped key, a quotation at the
 * wrong page, Quick Fixes written in LaTeX). Runs after extension.spec.ts (files run in name order), whose
 * first analysis indexed the library; alone (`--grep LaTeX`) it indexes first (autoIndex).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
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
  withTimeout,
  workspaceRoot,
} from './helpers';

const ANALYSIS_MS = 8 * 60_000;
const EXISTING = '\\autocite[p.~214]{whitfield2019grain}';
const openLatex = () => openExampleDraft('draft.tex');

describe('A LaTeX draft (draft.tex)', function () {
  this.timeout(120_000);
  let analysed = 0;

  it('opens as the latex language and Find Similar Sources analyses it', async function () {
    this.timeout(ANALYSIS_MS + 10_000);
    const editor = await openLatex();
    assert.equal(editor.document.languageId, 'latex');
    analysed = await findSimilarSourcesOn('draft.tex', ANALYSIS_MS);
  });

  it('shows CodeLenses above its prose, none on the preamble or the verbatim block, one at most on the figure (its caption), and the Feeding paragraph names Whitfield', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openLatex();
    const doc = editor.document;
    const lenses = await productLenses(doc);
    assert.equal(lenses.length, analysed, `one lens per analysed segment: ${lenses.map((l) => l.command?.title).join('\n')}`);
    const lines = doc.getText().split(/\r?\n/);
    const body = lines.findIndex((l) => l.startsWith('\\begin{document}'));
    const inside = (begin: string, end: string) => {
      const a = lines.findIndex((l) => l.startsWith(begin));
      let b = a;
      while (!lines[b].startsWith(end)) b++;
      return (line: number) => line >= a && line <= b;
    };
    const inVerbatim = inside('\\begin{verbatim}', '\\end{verbatim}');
    const inFigure = inside('\\begin{figure}', '\\end{figure}');
    for (const l of lenses) {
      const line = l.range.start.line;
      assert.ok(line > body, `a lens on the preamble, line ${line + 1}`);
      assert.ok(!inVerbatim(line), `a lens on the verbatim block, line ${line + 1}`);
    }
    // The figure's \caption is a paragraph of its own (the segment spans its float): one lens at most there.
    assert.ok(lenses.filter((l) => inFigure(l.range.start.line)).length <= 1, 'one lens at most on the figure (its caption)');
    const feeding = findLine(doc, FEEDING_PARAGRAPH);
    const lens = lenses.find((l) => l.range.start.line === feeding);
    assert.match(lens?.command?.title ?? '', /^\$\(book\) \d+ (strong|related) · Whitfield 2019, p\. \S+$/);
  });

  it('inserts a biblatex \\autocite snippet (page selected) at the end of the paragraph, in one undoable edit', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openLatex();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const links = await hoverInsertLinks(editor, line);
    // The cursor outside the paragraph: the citation goes at its end, before the full stop.
    const { removed, inserted, offset, before } = await insertCitationAt(editor, new vscode.Position(0, 0), links[0]);
    assert.equal(removed, '', 'only an insertion');
    const m = /^ \\autocite\[pp?\.~([^\]]+)\]\{([^}]+)\}$/.exec(inserted);
    assert.ok(m, `a biblatex citation with a page: "${inserted}"`);
    assert.ok(bibliographyKeys().includes(m[2]), `${m[2]} is in library.bib`);
    const at = editor.document.positionAt(offset);
    assert.equal(at.line, line, 'in the paragraph');
    assert.equal(editor.document.lineAt(line).text.slice(at.character + inserted.length), '.', 'before its final full stop');
    assert.equal(editor.document.getText(editor.selection), m[1], 'the page is selected (a tab stop)');
    await undoOnceTo(editor, before);
  });

  it('merges into the adjacent \\autocite: \\autocites with each key its page', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openLatex();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const links = await hoverInsertLinks(editor, line);
    const col = editor.document.lineAt(line).text.indexOf(EXISTING) + EXISTING.length;
    const { removed, inserted, before } = await insertCitationAt(editor, new vscode.Position(line, col), links[1] ?? links[0]);
    const merged = removed + inserted;
    assert.ok(merged.length > 0 && before.includes(EXISTING));
    const after = editor.document.lineAt(line).text;
    const m = /\\autocites\[p\.~214\]\{whitfield2019grain\}\[pp?\.~([^\]]+)\]\{([^}]+)\}/.exec(after);
    assert.ok(m, `merged into \\autocites: ${after.slice(col - EXISTING.length - 10, col + 60)}`);
    assert.ok(bibliographyKeys().includes(m[2]), `${m[2]} is in library.bib`);
    const count = (t: string) => t.split(EXISTING).length - 1;
    assert.equal(count(after), count(before.split(/\r?\n/)[line]) - 1, 'the \\autocite became \\autocites');
    assert.equal(editor.document.getText(editor.selection), m[1], 'the page is selected (a tab stop)');
    await undoOnceTo(editor, before);
  });

  it('completes citekeys inside \\autocite{ (ranked for the paragraph) and after a comma, not in a comment', async () => {
    assert.ok(analysed, 'needs the analysis');
    const editor = await openLatex();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const before = editor.document.getText();
    const typed = 'What the Sicilian crown sold was the export permit, and Genoese houses speculated on grain permits \\autocite[p.~3]{';
    const second = 'Compare the permits \\parencite{whitfield2019grain, ';
    const comment = '% to cite later: \\cite{';
    await editor.edit((b) => b.insert(new vscode.Position(line + 1, 0), `\n${typed}\n\n${second}\n\n${comment}\n`));
    const labels = (at: vscode.Position, trigger?: string) => citekeyCompletions(editor.document, at, trigger);
    try {
      const keys = await labels(new vscode.Position(line + 2, typed.length), '{');
      assert.equal(keys[0], 'whitfield2019grain', `ranked for the paragraph: ${keys.join(', ')}`);
      for (const key of bibliographyKeys()) assert.ok(keys.includes(key), `${key} offered`);
      const afterComma = await labels(new vscode.Position(line + 4, second.length), ',');
      assert.ok(afterComma.length >= bibliographyKeys().length - 1, `keys after the comma: ${afterComma.join(', ')}`);
      assert.ok(!afterComma.includes('whitfield2019grain'), 'a key the command lists is not offered again');
      assert.deepEqual(await labels(new vscode.Position(line + 6, comment.length), '{'), [], 'no citekey in a comment');
    } finally {
      await editor.edit((b) => b.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), before));
      await editor.document.save();
    }
  });

  it('Check Citations reads a LaTeX draft: a mistyped key and a quotation at the wrong page, with LaTeX Quick Fixes', async () => {
    const file = vscode.Uri.file(path.join(workspaceRoot(), 'citations-to-check.tex'));
    const text = [
      '\\documentclass{article}',
      '\\usepackage{csquotes}',
      '\\usepackage{biblatex}',
      '\\addbibresource{library/library.bib}',
      '\\begin{document}',
      'The system \\enquote{came close to breaking in the last decade of the sixteenth century} \\autocite[p.~214]{whitfield2019grain}.',
      '',
      'See also \\autocite[p.~214]{whitfeld2019grain}.',
      '\\end{document}',
      '',
    ].join('\n');
    await vscode.workspace.fs.writeFile(file, Buffer.from(text, 'utf8'));
    try {
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      assert.equal(doc.languageId, 'latex');
      const problems = await withTimeout(
        Promise.resolve(vscode.commands.executeCommand<number | undefined>('similarSources.checkCitations')),
        60_000,
        'Check Citations on a .tex draft',
      );
      const ours = vscode.languages.getDiagnostics(file).filter((d) => d.source === 'Similar Sources');
      assert.ok(problems !== undefined && problems >= 2, `problems: ${problems}; ${ours.map((d) => `${d.code}: ${d.message}`).join(' | ')}`);
      const unknown = ours.find((d) => d.code === 'unknown-key');
      assert.ok(unknown, `an unknown-key diagnostic: ${ours.map((d) => d.code).join(', ')}`);
      assert.equal(doc.getText(unknown.range), 'whitfeld2019grain', 'the diagnostic covers the key');
      const wrong = ours.find((d) => d.code === 'wrong-page');
      assert.ok(wrong, `a wrong-page diagnostic: ${ours.map((d) => `${d.code}: ${d.message}`).join(' | ')}`);
      const fixes = async (d: vscode.Diagnostic) =>
        (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', file, d.range, vscode.CodeActionKind.QuickFix.value)) ??
        [];
      const keyFixes = await fixes(unknown);
      const useKey = keyFixes.find((a) => /Use @whitfield2019grain/.test(a.title));
      assert.ok(useKey?.edit, `a Quick Fix using the closest key: ${JSON.stringify(keyFixes.map((a) => a.title))}`);
      await vscode.workspace.applyEdit(useKey.edit);
      assert.match(doc.lineAt(7).text, /^See also \\autocite\[p\.~214\]\{whitfield2019grain\}\.$/);
      const pageFixes = await fixes(wrong);
      const page = pageFixes.find((a) => /locator/i.test(a.title));
      assert.ok(page?.edit, `a Quick Fix changing the locator: ${JSON.stringify(pageFixes.map((a) => a.title))}`);
      await vscode.workspace.applyEdit(page.edit);
      assert.match(doc.lineAt(5).text, /\\autocite\[pp?\.~\d+(--\d+)?\]\{whitfield2019grain\}\.$/, 'the post-note written in LaTeX');
      assert.doesNotMatch(doc.lineAt(5).text, /\[p\.~214\]/);
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await vscode.workspace.fs.delete(file);
    }
  });

  it('a thesis’s main file brings its \\input chapter: Find Similar Sources on main.tex puts the chapter’s CodeLenses in the chapter', async function () {
    this.timeout(ANALYSIS_MS + 30_000);
    const dir = vscode.Uri.file(path.join(workspaceRoot(), 'thesis-it'));
    const main = vscode.Uri.joinPath(dir, 'main.tex');
    const chapter = vscode.Uri.joinPath(dir, 'chapters', 'grain.tex');
    const enc = (t: string) => new TextEncoder().encode(t);
    await vscode.workspace.fs.writeFile(main, enc('\\documentclass{book}\n\\begin{document}\n\\chapter{Grain}\n\\input{chapters/grain}\n\\end{document}\n'));
    await vscode.workspace.fs.writeFile(
      chapter,
      enc(
        'In the kingdom of Sicily no grain could leave a port without a licence bought from the crown, and the Genoese houses speculated on those licences months before the harvest.\n\nThe Hanseatic Kontore were small merchant republics planted on foreign soil, governed by their own statutes.\n',
      ),
    );
    try {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(main), { viewColumn: vscode.ViewColumn.One, preview: false });
      const result = (await withTimeout(
        vscode.commands.executeCommand('similarSources.findSimilarSources'),
        ANALYSIS_MS,
        'Find Similar Sources on main.tex',
      )) as { segments: number; analysed: number } | undefined;
      assert.equal(result?.analysed, 2, `the chapter's two paragraphs analysed from main.tex: ${JSON.stringify(result)}`);
      const doc = await vscode.workspace.openTextDocument(chapter);
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      const lenses = await productLenses(doc);
      assert.deepEqual(
        lenses.map((l) => l.range.start.line),
        [0, 2],
        `one lens per paragraph of the chapter: ${lenses.map((l) => l.command?.title).join(' | ')}`,
      );
      assert.ok(
        lenses.some((l) => /Whitfield/.test(l.command?.title ?? '')),
        `the Sicilian paragraph names Whitfield: ${lenses.map((l) => l.command?.title).join(' | ')}`,
      );
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(dir, { recursive: true });
    }
  });
});
