import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  DRAFT_EXTENSIONS,
  DRAFT_KINDS,
  DRAFT_LANGUAGES,
  draftFileGlob,
  draftFormatOfFlag,
  draftFormatOfPath,
  draftKindOfPath,
  isLatexPath,
  LATEX_LANGUAGES,
} from '../../src/shared/draftLanguages';

// One list of draft kinds (shared/draftLanguages.ts) serves the CLI, the agent tools, the engine and the extension.
describe('draft kinds: one list of extensions, language ids and --format names', () => {
  it('tells a file by its extension, without case, with either separator', () => {
    assert.equal(draftFormatOfPath('/ws/chapter.md'), 'markdown');
    assert.equal(draftFormatOfPath('C:\\ws\\notes.markdown'), 'markdown');
    assert.equal(draftFormatOfPath('thesis/ch1.qmd'), 'markdown');
    assert.equal(draftFormatOfPath('analysis.Rmd'), 'markdown');
    assert.equal(draftFormatOfPath('analysis.rmd'), 'markdown');
    assert.equal(draftFormatOfPath('/ws/thesis.TEX'), 'latex');
    assert.equal(draftFormatOfPath('/ws/thesis.ltx'), 'latex');
    assert.equal(draftKindOfPath('a.qmd')?.languageId, 'quarto');
    for (const other of ['/ws/library.bib', '/ws/README', '/ws.tex/notes', 'file.pdf']) assert.equal(draftFormatOfPath(other), undefined, other);
    assert.ok(isLatexPath('a.tex') && isLatexPath('a.ltx') && !isLatexPath('a.md') && !isLatexPath('tex'));
  });

  it('--format names, and the lists derived from the one table', () => {
    assert.deepEqual(
      DRAFT_KINDS.map((k) => k.flag),
      ['md', 'qmd', 'rmd', 'tex'],
    );
    assert.equal(draftFormatOfFlag('TEX'), 'latex');
    assert.equal(draftFormatOfFlag('rmd'), 'markdown');
    assert.equal(draftFormatOfFlag('docx'), undefined);
    assert.deepEqual([...DRAFT_EXTENSIONS], ['.md', '.markdown', '.qmd', '.Rmd', '.tex', '.ltx']);
    assert.deepEqual([...DRAFT_LANGUAGES], ['markdown', 'quarto', 'rmd']);
    assert.deepEqual([...LATEX_LANGUAGES], ['latex']);
    assert.equal(draftFileGlob(), '**/*.{md,markdown,qmd,Rmd,rmd,tex,ltx}', "the extension's watch for deleted drafts");
  });

  it("package.json declares the languages VS Code lacks with the table's extensions, and activates on every draft language", () => {
    const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as {
      activationEvents: string[];
      contributes: { languages: Array<{ id: string; extensions: string[] }> };
    };
    // VS Code knows markdown and latex itself; quarto and rmd are declared by the extension.
    const builtIn = new Set(['markdown', 'latex']);
    for (const kind of DRAFT_KINDS) {
      assert.ok(pkg.activationEvents.includes(`onLanguage:${kind.languageId}`), kind.languageId);
      if (builtIn.has(kind.languageId)) continue;
      const declared = pkg.contributes.languages.find((l) => l.id === kind.languageId);
      assert.ok(declared, `${kind.languageId} is declared`);
      assert.deepEqual(
        [...new Set(declared.extensions.map((e) => e.toLowerCase()))].sort(),
        kind.extensions.map((e) => e.toLowerCase()).sort(),
        kind.languageId,
      );
    }
    assert.deepEqual(
      pkg.contributes.languages.map((l) => l.id).sort(),
      DRAFT_KINDS.filter((k) => !builtIn.has(k.languageId))
        .map((k) => k.languageId)
        .sort(),
    );
  });
});
