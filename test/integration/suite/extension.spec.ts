/**
 * API-level integration tests: run inside a real VS Code extension host (code-server through
 * test/integration/runCodeServer.mjs, or desktop VS Code through @vscode/test-electron), against
 * a copy of examples/ opened as the workspace folder, with `similarSources.autoIndex` on so the
 * first analysis indexes the library without asking.
 *
 * The tests run in order and share the state of the first analysis.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promises as fs, watch } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  FEEDING_PARAGRAPH,
  PRODUCT_ID,
  SAMPLE_PDF,
  allTabs,
  bibliographyKeys,
  bibliographyTitles,
  commandLinkArgs,
  draftUri,
  findLine,
  fold,
  hoverText,
  openDraftEditor,
  productLogFile,
  waitFor,
  withTimeout,
  workspaceRoot,
} from './helpers';

interface AnalysisResult {
  segments: number;
  analysed: number;
  fromCache: boolean;
}

const CONTRACT_COMMANDS = [
  'similarSources.findSimilarSources',
  'similarSources.indexLibrary',
  'similarSources.rebuildIndex',
  'similarSources.clearCache',
  'similarSources.showIndexStatus',
  'similarSources.insertCitation',
  'similarSources.openPdf',
  'similarSources.showPanel',
  'similarSources.downloadLocalModel',
  'similarSources.downloadLocalReranker',
  'similarSources.setOpenAiApiKey',
];

/** First analysis: indexing the example library included. */
const FIRST_ANALYSIS_MS = 8 * 60_000;
const ANALYSIS_MS = 4 * 60_000;

function assertAnalysisResult(value: unknown, what: string): AnalysisResult {
  assert.ok(value && typeof value === 'object', `${what} should resolve to { segments, analysed, fromCache }, got ${JSON.stringify(value)}`);
  const r = value as Record<string, unknown>;
  assert.equal(typeof r.segments, 'number', `${what}: segments should be a number in ${JSON.stringify(value)}`);
  assert.equal(typeof r.analysed, 'number', `${what}: analysed should be a number in ${JSON.stringify(value)}`);
  assert.equal(typeof r.fromCache, 'boolean', `${what}: fromCache should be a boolean in ${JSON.stringify(value)}`);
  return r as unknown as AnalysisResult;
}

async function analyzeDraft(ms: number): Promise<AnalysisResult> {
  await openDraftEditor();
  const value = await withTimeout(vscode.commands.executeCommand('similarSources.findSimilarSources'), ms, 'similarSources.findSimilarSources');
  return assertAnalysisResult(value, 'similarSources.findSimilarSources');
}

async function ourLenses(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 1000)) ?? [];
  return lenses.filter((l) => {
    const title = l.command?.title ?? '';
    return title.includes('$(book)') || (l.command?.command ?? '').startsWith('similarSources.') || /source/i.test(title);
  });
}

/** The product's services (its activate() returns them), to read the results the views show. */
interface ProductCard {
  sourceId: string;
  title: string;
  reranked?: boolean;
  citekey: string | null;
  /** The PDF as the index names it (a library server's: its publisher's path). */
  path: string;
  page: number;
  citedIn?: string[];
}
interface ProductSegment {
  id: string;
  title: string;
  start: number;
  end: number;
  status: string;
  cards: ProductCard[];
}
interface ProductHealth {
  state: string;
  passages?: number;
  semantic?: { model: string; embedded: number; total: number };
  embedding?: string;
  embeddingError?: string;
}
function productLibrary(): { health: ProductHealth; onDidChangeHealth: vscode.Event<ProductHealth>; isEmbedding(): boolean } {
  return (productServices() as unknown as { library: ReturnType<typeof productLibrary> }).library;
}

function productServices(): {
  results: { get(uri: vscode.Uri): { segments: ProductSegment[] } | undefined; segmentAt(uri: vscode.Uri, line: number): ProductSegment | undefined };
} {
  const ext = vscode.extensions.getExtension(PRODUCT_ID);
  assert.ok(ext?.isActive && ext.exports?.services, 'the product is active and exports its services');
  return ext.exports.services;
}

async function hoverAt(editor: vscode.TextEditor, line: number): Promise<string> {
  const pos = new vscode.Position(line, 20);
  return waitFor(
    async () => {
      const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, pos)) ?? [];
      const text = hoverText(hovers);
      return text.includes('similarSources.') ? text : undefined;
    },
    20_000,
    'a Similar Sources hover inside the "Feeding cities from the sea" paragraph',
    500,
  );
}

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `cli index` on the workspace and stops it (SIGSTOP) the moment its writer lock appears:
 * a slow indexer, frozen while it holds the lock, for as long as the test wants. The index is
 * first made to look like an earlier release's (other lexical terms), so that the CLI works under
 * the lock for a while (~50 ms) rather than a few ms; a try where it was done before the stop
 * landed is tried again.
 */
async function cliHoldingTheLock(cli: string, workspace: string): Promise<{ child: ChildProcess; done: Promise<CliRun> }> {
  const dir = path.join(workspace, '.similar-sources');
  const manifest = path.join(dir, 'manifest.json');
  for (let attempt = 1; attempt <= 5; attempt++) {
    const m = JSON.parse(await fs.readFile(manifest, 'utf8'));
    await fs.writeFile(manifest, JSON.stringify({ ...m, lexical: 'lex-0' }));
    const child = spawn(process.execPath, [cli, 'index', '--workspace', workspace, '--json'], {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const done = new Promise<CliRun>((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
    const stopped = await new Promise<boolean>((resolve) => {
      const watcher = watch(dir, (_event, name) => {
        if (name !== 'index.lock') return;
        try {
          process.kill(child.pid!, 'SIGSTOP');
        } catch {
          /* exited already */
        }
        watcher.close();
        resolve(true);
      });
      void done.then(() => {
        watcher.close();
        resolve(false);
      });
    });
    if (stopped) {
      const holder = await fs.readFile(path.join(dir, 'index.lock'), 'utf8').then(
        (t) => (JSON.parse(t) as { pid: number }).pid,
        () => undefined,
      );
      if (holder === child.pid) return { child, done };
      process.kill(child.pid!, 'SIGCONT');
    }
    const run = await done;
    assert.equal(run.code, 0, `the CLI failed: ${run.stderr}`);
  }
  throw new Error('the CLI was never stopped while it held the lock (5 tries)');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Similar Sources in a real VS Code extension host', function () {
  this.timeout(120_000);
  let analysis: AnalysisResult | undefined;

  before(async () => {
    // The code-server runner sets this in the user settings already; make the suite self-sufficient
    // under @vscode/test-electron too. (Fails harmlessly if the setting is not contributed yet.)
    const config = vscode.workspace.getConfiguration('similarSources');
    if (config.inspect('autoIndex')?.globalValue !== true) {
      try {
        await config.update('autoIndex', true, vscode.ConfigurationTarget.Global);
      } catch {
        /* asserted through the behaviour of the first analysis */
      }
    }
  });

  it('is installed and activates', async () => {
    const ext = vscode.extensions.getExtension(PRODUCT_ID);
    assert.ok(ext, `${PRODUCT_ID} is not installed in this extension host`);
    await withTimeout(ext.activate(), 60_000, `activation of ${PRODUCT_ID}`);
    assert.equal(ext.isActive, true);
  });

  it('registers every command of the contract', async () => {
    const commands = new Set(await vscode.commands.getCommands(true));
    const missing = CONTRACT_COMMANDS.filter((c) => !commands.has(c));
    assert.deepEqual(missing, [], `commands not registered: ${missing.join(', ')}`);
  });

  it('Find Similar Sources analyses draft.md, indexing the never-indexed library first', async function () {
    this.timeout(FIRST_ANALYSIS_MS + 10_000);
    analysis = await analyzeDraft(FIRST_ANALYSIS_MS);
    assert.ok(analysis.segments > 0, `no segments found in draft.md: ${JSON.stringify(analysis)}`);
    assert.ok(analysis.analysed > 0, `no segment analysed: ${JSON.stringify(analysis)}`);
    assert.ok(analysis.analysed <= analysis.segments, `more segments analysed than found: ${JSON.stringify(analysis)}`);
    assert.equal(analysis.fromCache, false, 'the first analysis of a fresh workspace cannot come from the cache');
  });

  it('serves a second analysis of the unchanged draft from the cache', async function () {
    this.timeout(ANALYSIS_MS + 10_000);
    assert.ok(analysis, 'needs the first analysis');
    const again = await analyzeDraft(ANALYSIS_MS);
    assert.equal(again.fromCache, true, `second analysis: ${JSON.stringify(again)}`);
    assert.equal(again.segments, analysis.segments, `segments differ from the first analysis ${JSON.stringify(analysis)}: ${JSON.stringify(again)}`);
    assert.equal(again.analysed, analysis.analysed, `analysed differs from the first analysis ${JSON.stringify(analysis)}: ${JSON.stringify(again)}`);
  });

  it('shows one CodeLens per analysed segment, summarising its sources', async () => {
    assert.ok(analysis, 'needs the first analysis');
    const editor = await openDraftEditor();
    const lenses = await waitFor(
      async () => {
        const l = await ourLenses(editor.document.uri);
        return l.length > 0 ? l : undefined;
      },
      20_000,
      'Similar Sources CodeLenses on draft.md',
    );
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.equal(
      lenses.length,
      analysis.analysed,
      `expected one lens per analysed segment (${analysis.analysed}), got ${lenses.length}:\n${titles.join('\n')}`,
    );
    // Signal, not a count of cards: "$(book) 2 strong · Whitfield 2019, p. 214", or, dimmer, "no strong or related source".
    const SIGNAL = /^\$\(book\) \d+ (strong|related) · .+, p\. \S+$/;
    const NONE = /^\$\(circle-outline\) no (strong or related )?source/;
    for (const t of titles)
      assert.ok(
        SIGNAL.test(t) || NONE.test(t),
        `lens title should read "$(book) 2 strong · Whitfield 2019, p. 214" or "$(circle-outline) no strong or related source": "${t}"`,
      );
    const signals = lenses.filter((l) => SIGNAL.test(l.command?.title ?? ''));
    assert.ok(signals.length >= 2, `at least two paragraphs of the example have a strong or related source:\n${titles.join('\n')}`);
    assert.ok(
      titles.some((t) => NONE.test(t)),
      `the note on method draws on no source, and its lens should say so:\n${titles.join('\n')}`,
    );
    for (const l of signals) {
      const band = /\d+ (strong|related)/.exec(l.command!.title)![1];
      assert.match(
        l.command?.tooltip ?? '',
        new RegExp(`^${band === 'strong' ? 'Strong' : 'Related'} \\(\\d+%\\): .*held-out paragraphs`),
        `the tooltip says the band, the number and what it estimates: ${l.command?.tooltip}`,
      );
    }
    assert.ok(
      titles.every((t) => !/[\u{1F300}-\u{1FAFF}]/u.test(t)),
      'lens titles should use codicons, not emoji',
    );

    const feedingLine = findLine(editor.document, FEEDING_PARAGRAPH);
    const feeding =
      lenses.find((l) => l.range.start.line <= feedingLine && l.range.end.line >= feedingLine) ?? lenses.find((l) => l.range.start.line === feedingLine);
    assert.ok(
      feeding,
      `no lens on the "Feeding cities from the sea" paragraph (line ${feedingLine + 1}); lenses on lines ${lenses.map((l) => l.range.start.line + 1).join(', ')}`,
    );
    assert.match(
      feeding.command?.title ?? '',
      /^\$\(book\) \d+ (strong|related) · Whitfield 2019, p\. \S+$/,
      `the Feeding-cities lens should name its expected source (Whitfield, grain-trade.pdf): "${feeding.command?.title}"`,
    );
  });

  it('lets the codeLensMinBand setting choose the weakest band that counts', async () => {
    const editor = await openDraftEditor();
    const config = vscode.workspace.getConfiguration('similarSources');
    try {
      await config.update('codeLensMinBand', 'weak', vscode.ConfigurationTarget.Workspace);
      const weak = await waitFor(
        async () => {
          const t = (await ourLenses(editor.document.uri)).map((l) => l.command?.title ?? '');
          return t.length && t.every((x) => !/no strong or related source/.test(x)) ? t : undefined;
        },
        10_000,
        'lenses that count weak sources too',
      );
      assert.ok(
        weak.some((t) => /^\$\(book\) \d+ weak · /.test(t) || /^\$\(circle-outline\) no source/.test(t)),
        `with "weak", a paragraph without a strong or related source counts its weak ones:\n${weak.join('\n')}`,
      );
    } finally {
      await config.update('codeLensMinBand', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('hovers an analysed paragraph with a source title, a page and command links', async () => {
    assert.ok(analysis, 'needs the first analysis');
    const editor = await openDraftEditor();
    const text = await hoverAt(editor, findLine(editor.document, FEEDING_PARAGRAPH));
    const plain = fold(text.replace(/\\/g, ''));
    const titles = bibliographyTitles();
    const matched = titles.filter((t) => plain.includes(t.split(' ').slice(0, 3).join(' ')));
    assert.ok(matched.length > 0, `hover names no source title of library.bib:\n${text}`);
    assert.match(text, /p\. ?\S/, `hover shows no page ("p. "):\n${text}`);
    assert.ok(text.includes('command:similarSources.openPdf'), `hover has no command:similarSources.openPdf link:\n${text}`);
    assert.ok(text.includes('command:similarSources.insertCitation'), `hover has no command:similarSources.insertCitation link:\n${text}`);
    assert.match(text, /\*\*(strong|related|weak)\*\* \d+%/, `hover says each card's band and number:\n${text}`);
    assert.match(text.replace(/\\/g, ''), /(Strong|Related|Weak) \(\d+%\): .*held-out paragraphs/, `hover says what the band estimates:\n${text}`);
  });

  it('inserts a Pandoc citation with a page locator in one undoable edit', async () => {
    assert.ok(analysis, 'needs the first analysis');
    const editor = await openDraftEditor();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const hover = await hoverAt(editor, line);
    const links = commandLinkArgs(hover, 'similarSources.insertCitation');
    assert.ok(links.length > 0 && links[0].length > 0, `no insertCitation arguments in the hover links:\n${hover}`);
    const args = links[0][0] as { uri?: string; segmentId?: string; sourceId?: string; page?: number };
    assert.equal(typeof args.segmentId, 'string', `insertCitation args: ${JSON.stringify(args)}`);
    assert.equal(typeof args.sourceId, 'string', `insertCitation args: ${JSON.stringify(args)}`);
    assert.equal(typeof args.page, 'number', `insertCitation args: ${JSON.stringify(args)}`);

    const end = editor.document.lineAt(line).range.end;
    editor.selection = new vscode.Selection(end, end);
    const before = editor.document.getText();
    await withTimeout(vscode.commands.executeCommand('similarSources.insertCitation', ...links[0]), 20_000, 'similarSources.insertCitation');
    const after = editor.document.getText();
    assert.notEqual(after, before, 'insertCitation changed nothing');

    let p = 0;
    while (p < before.length && before[p] === after[p]) p++;
    let s = 0;
    while (s < before.length - p && before[before.length - 1 - s] === after[after.length - 1 - s]) s++;
    const inserted = after.slice(p, after.length - s);
    assert.equal(before.length - p - s, 0, `insertCitation should only insert, it replaced "${before.slice(p, before.length - s)}"`);
    const m = /\[@([^\s,;\]]+), pp?\. [^\]]+\]/.exec(inserted);
    assert.ok(m, `inserted text is not a Pandoc citation with a page locator like [@whitfield2019grain, p. 214]: "${inserted}"`);
    assert.ok(bibliographyKeys().includes(m[1]), `cited key ${m[1]} is not in library.bib`);
    const insertedAt = editor.document.positionAt(p);
    assert.equal(insertedAt.line, line, `citation inserted on line ${insertedAt.line + 1}, not in the paragraph (line ${line + 1})`);

    // A snippet: the page locator is the first tab stop, selected, ready to adjust.
    const locator = /, pp?\. ([^\]]+)\]/.exec(inserted)![1];
    assert.equal(
      editor.document.getText(editor.selection),
      locator,
      `the page locator "${locator}" should be selected after insertion (a tab stop), selection: "${editor.document.getText(editor.selection)}"`,
    );
    assert.equal(editor.document.offsetAt(editor.selection.start), p + inserted.indexOf(locator), 'the selection is the locator of the inserted citation');

    await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
    await vscode.commands.executeCommand('leaveSnippet');
    await vscode.commands.executeCommand('undo');
    await waitFor(() => editor.document.getText() === before, 5_000, 'one undo to restore the draft');
  });

  it('merges a citation inserted next to an existing one into it, in one undoable edit', async () => {
    assert.ok(analysis, 'needs the first analysis');
    const editor = await openDraftEditor();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const text = editor.document.lineAt(line).text;
    const existing = '[@whitfield2019grain, p. 214]';
    const at = text.indexOf(existing);
    assert.ok(at >= 0, `the Feeding paragraph cites ${existing}`);
    const store = productServices().results;
    const segment = store.segmentAt(editor.document.uri, line);
    const other = segment?.cards.find((c) => c.citekey && c.citekey !== 'whitfield2019grain');
    assert.ok(segment && other, `the Feeding paragraph needs a card with another citekey: ${JSON.stringify(segment?.cards.map((c) => c.citekey))}`);
    const cursor = new vscode.Position(line, at + existing.length);
    editor.selection = new vscode.Selection(cursor, cursor);
    const before = editor.document.getText();
    assert.notEqual(
      store.segmentAt(editor.document.uri, line)?.status,
      'outdated',
      'a citation inserted and undone (the test before) leaves the results current',
    );
    await withTimeout(
      vscode.commands.executeCommand('similarSources.insertCitation', {
        uri: editor.document.uri.toString(),
        segmentId: segment.id,
        sourceId: other.sourceId,
        page: other.page,
      }),
      20_000,
      'similarSources.insertCitation',
    );
    try {
      const merged = editor.document.lineAt(line).text;
      const m = new RegExp(`\\[@whitfield2019grain, p\\. 214; @${other.citekey}, pp?\\. ([^\\]]+)\\]`).exec(merged);
      assert.ok(m, `expected [@whitfield2019grain, p. 214; @${other.citekey}, p. N] in: ${merged}`);
      assert.equal(editor.document.getText(editor.selection), m[1], 'the merged page locator is the tab stop');
      assert.notEqual(store.segmentAt(editor.document.uri, line)?.status, 'outdated', 'adding a citation does not make the results outdated');
    } finally {
      await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
      await vscode.commands.executeCommand('leaveSnippet');
      await vscode.commands.executeCommand('undo');
    }
    await waitFor(() => editor.document.getText() === before, 5_000, 'one undo to remove the merged citation');
    assert.notEqual(store.segmentAt(editor.document.uri, line)?.status, 'outdated', 'undoing a citation leaves the results current');
  });

  it('Check Citations: diagnostics on a wrong page and an unknown key, a page hint, and a Quick Fix applied in one undoable edit', async function () {
    this.timeout(3 * 60_000);
    assert.ok(analysis, 'needs the first analysis (the library indexed)');
    // A second draft in the workspace: a quotation cited at the wrong page, and a mistyped key.
    const file = path.join(workspaceRoot(), 'check-citations.md');
    await fs.writeFile(
      file,
      '# Checked\n\nThe system “came close to breaking in the last decade of the sixteenth century” [@whitfield2019grain, p. 214].\n\nSee also [@whitfeld2019grain, p. 214].\n\n' +
        // No quotation, cited at a page that says something else: a page hint (information), not a problem.
        'Genoese merchant houses bought the licences months before the harvest and resold them when prices rose [@whitfield2019grain, p. 216].\n',
    );
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
    const problems = await withTimeout(
      vscode.commands.executeCommand<number | undefined>('similarSources.checkCitations'),
      2 * 60_000,
      'similarSources.checkCitations',
    );
    assert.equal(problems, 2, `Check Citations found ${problems} problem(s)`);
    const diags = vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source !== undefined && /Similar Sources/i.test(d.source));
    const byCode = new Map(diags.map((d) => [String(d.code), d]));
    const wrong = byCode.get('wrong-page');
    const unknown = byCode.get('unknown-key');
    assert.ok(wrong && unknown, `diagnostics: ${JSON.stringify(diags.map((d) => [d.code, d.message]))}`);
    assert.equal(wrong.severity, vscode.DiagnosticSeverity.Warning);
    assert.equal(unknown.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(wrong.range.start.line, 2);
    assert.match(wrong.message, /p\. 216/);
    assert.match(unknown.message, /@whitfield2019grain/);
    const hint = byCode.get('page-hint');
    assert.ok(hint, `no page hint: ${JSON.stringify(diags.map((d) => [d.code, d.message]))}`);
    assert.equal(hint.severity, vscode.DiagnosticSeverity.Information);
    assert.equal(hint.range.start.line, 6);
    assert.match(hint.message, /p\. 214/);
    const hintFixes = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      hint.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    assert.ok(
      hintFixes.some((a) => /p\. 214/.test(a.title)),
      `Quick Fixes for the hint: ${JSON.stringify(hintFixes.map((a) => a.title))}`,
    );

    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      wrong.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const fix = actions.find((a) => /216/.test(a.title));
    assert.ok(fix?.edit, `Quick Fixes offered: ${JSON.stringify(actions.map((a) => a.title))}`);
    const before = doc.getText();
    assert.ok(await vscode.workspace.applyEdit(fix.edit), 'the Quick Fix applied');
    assert.match(doc.lineAt(2).text, /\[@whitfield2019grain, p\. 216\]\.$/, `after the fix: ${doc.lineAt(2).text}`);
    const keyFix = (
      await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        doc.uri,
        unknown.range,
        vscode.CodeActionKind.QuickFix.value,
      )
    ).find((a) => /Use @whitfield2019grain/.test(a.title));
    assert.ok(keyFix, 'a Quick Fix proposes the closest key');
    await vscode.window.showTextDocument(doc, { viewColumn: editor.viewColumn, preserveFocus: false });
    await vscode.commands.executeCommand('undo');
    await waitFor(() => doc.getText() === before, 5_000, 'one undo to restore the locator');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await fs.rm(file, { force: true });
  });

  it('Check Citations: a quotation copied from a PDF viewer across a page break is ok, and a hint says what was accepted', async function () {
    this.timeout(3 * 60_000);
    assert.ok(analysis, 'needs the first analysis (the library indexed)');
    // As MuPDF and pdf.js copy it from printing-reformation.pdf: the page's end, its number and the next page's running head.
    const file = path.join(workspaceRoot(), 'viewer-copy.md');
    await fs.writeFile(
      file,
      '# Copied\n\nEllery concludes that “Its very lack of coordination made it remarkably hard to stop. 302 Reformation Studies Quarterly 14 (2010) 2. Reading aloud” [@ellery2010pamphlets, pp. 302–303].\n',
    );
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
    const problems = await withTimeout(
      vscode.commands.executeCommand<number | undefined>('similarSources.checkCitations'),
      2 * 60_000,
      'similarSources.checkCitations',
    );
    assert.equal(problems, 0, 'a viewer’s copy is no problem');
    const diags = vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source !== undefined && /Similar Sources/i.test(d.source));
    assert.deepEqual(
      diags.map((d) => [d.code, d.severity]),
      [['viewer-copy', vscode.DiagnosticSeverity.Hint]],
    );
    assert.match(
      diags[0].message,
      /^Quotation ok — the copy holds a running head, footer or page number of the PDF’s page break \(“[^”]*reformation studies quarterly/,
    );
    assert.equal(diags[0].range.start.line, 2);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await fs.rm(file, { force: true });
  });

  it('marks a source cited elsewhere in the draft with the section that cites it', async () => {
    assert.ok(analysis, 'needs the first analysis');
    const editor = await openDraftEditor();
    const doc = productServices().results.get(editor.document.uri);
    assert.ok(doc, 'no results for draft.md');
    // Where the draft cites each key (its "## " sections are § 1, § 2, …: the "# " title is not numbered).
    const lines = editor.document.getText().split('\n');
    const sectionOf = (line: number) => {
      let n = 0;
      for (let i = 0, fence = false; i <= line; i++) {
        if (/^```/.test(lines[i])) fence = !fence;
        if (!fence && /^## /.test(lines[i])) n++;
      }
      return `§ ${n}`;
    };
    const marked = doc.segments.flatMap((s) => s.cards.filter((c) => c.citedIn?.length).map((c) => ({ s, c })));
    assert.ok(marked.length > 0, 'some card of the example names a source its draft cites in another section');
    for (const { s, c } of marked) {
      const citing = lines.map((l, i) => (l.includes(`@${c.citekey}`) && (i < s.start || i > s.end) ? sectionOf(i) : '')).filter(Boolean);
      assert.deepEqual(c.citedIn, [...new Set(citing)], `card ${c.citekey} in segment "${s.title}" (lines ${s.start + 1}–${s.end + 1})`);
    }
    const { s } = marked[0];
    const hover = await hoverAt(editor, s.start);
    if (s.cards.slice(0, 3).some((c) => c.citedIn?.length)) assert.match(hover, /Cited in § \d/, `the hover says where else the source is cited:\n${hover}`);
  });

  it('completes citekeys after [@, ranked by relevance to the paragraph being written', async () => {
    assert.ok(analysis, 'needs the first analysis');
    const editor = await openDraftEditor();
    const line = findLine(editor.document, FEEDING_PARAGRAPH);
    const before = editor.document.getText();
    // A new paragraph under the Feeding one, about its subject, with a citation being typed.
    const typed = 'What the Sicilian crown sold was the export permit, and Genoese houses speculated on grain permits [@';
    await editor.edit((b) => b.insert(new vscode.Position(line + 1, 0), `\n${typed}\n`));
    try {
      const at = new vscode.Position(line + 2, typed.length);
      const list = await withTimeout(
        Promise.resolve(vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', editor.document.uri, at, '@')),
        30_000,
        'completion',
      );
      const ours = list.items.filter((i) => i.kind === vscode.CompletionItemKind.Reference);
      const labels = ours.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
      const sorted = [...ours]
        .sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''))
        .map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
      assert.equal(sorted[0], 'whitfield2019grain', `the paragraph is about Whitfield's grain permits: ${sorted.join(', ')}`);
      for (const key of bibliographyKeys()) assert.ok(labels.includes(key), `every key of library.bib is offered: ${key} missing from ${labels.join(', ')}`);
      const top = ours.find((i) => (typeof i.label === 'string' ? i.label : i.label.label) === 'whitfield2019grain')!;
      const description = typeof top.label === 'string' ? '' : (top.label.description ?? '');
      assert.match(description, /^Whitfield 2019, p\. \S+$/, `author, year and best page beside the key: "${description}"`);
      assert.ok(top.detail && /grain|bread|ship/i.test(top.detail), `the title in the detail: ${top.detail}`);
      const docs = top.documentation instanceof vscode.MarkdownString ? top.documentation.value : String(top.documentation ?? '');
      assert.match(docs, /> .{40,}/, `the best passage in the documentation:\n${docs}`);
      assert.equal(
        top.range && 'start' in top.range ? top.range.start.character : (top.range as { inserting: vscode.Range } | undefined)?.inserting.start.character,
        typed.length,
        'the key replaces what follows the @',
      );
    } finally {
      await editor.edit((b) => b.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), before));
      await editor.document.save();
    }
  });

  it('opens the "Similar Sources" panel beside the editor', async () => {
    assert.ok(analysis, 'needs the first analysis');
    const editor = await openDraftEditor();
    await withTimeout(vscode.commands.executeCommand('similarSources.showPanel'), 30_000, 'similarSources.showPanel');
    const tab = await waitFor(
      () => allTabs().find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('similarSources.panel')),
      20_000,
      'a webview tab of viewType similarSources.panel',
    );
    assert.equal(tab.label, 'Similar Sources');
    assert.notEqual(tab.group.viewColumn, editor.viewColumn, 'the panel should open beside the draft, not over it');
  });

  it('opens a library PDF at a page in the custom PDF view', async () => {
    const pdf = path.join(workspaceRoot(), SAMPLE_PDF);
    const isPdfView = (t: vscode.Tab) =>
      (t.input instanceof vscode.TabInputCustom && t.input.uri.fsPath === pdf) ||
      (t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('similarSources.pdf') && t.label.includes(path.basename(pdf)));
    await withTimeout(vscode.commands.executeCommand('similarSources.openPdf', { path: pdf, page: 2 }), 60_000, 'similarSources.openPdf');
    const tab = await waitFor(() => allTabs().find(isPdfView), 20_000, `a PDF view tab (custom editor or webview similarSources.pdf) for ${SAMPLE_PDF}`);
    assert.ok(tab.isActive, `the PDF view "${tab.label}" should be the active tab of its group`);
  });

  it('shows the index status without failing', async () => {
    // The command may show a message and wait for the user: only a rejection within 5 s fails.
    const outcome = await Promise.race([
      Promise.resolve(vscode.commands.executeCommand('similarSources.showIndexStatus')).then(() => 'done'),
      new Promise<string>((r) => setTimeout(() => r('still showing'), 5_000)),
    ]);
    assert.ok(outcome === 'done' || outcome === 'still showing');
  });

  it('indexes the library again incrementally without failing', async function () {
    this.timeout(ANALYSIS_MS + 10_000);
    await withTimeout(vscode.commands.executeCommand('similarSources.indexLibrary'), ANALYSIS_MS, 'similarSources.indexLibrary');
  });

  it('clears the cache, so the next analysis is computed again', async function () {
    this.timeout(ANALYSIS_MS + 70_000);
    assert.ok(analysis, 'needs the first analysis');
    await withTimeout(vscode.commands.executeCommand('similarSources.clearCache'), 60_000, 'similarSources.clearCache');
    const again = await analyzeDraft(ANALYSIS_MS);
    assert.equal(again.fromCache, false, `after clearCache: ${JSON.stringify(again)}`);
    assert.equal(again.analysed, analysis.analysed, `after clearCache, first analysis ${JSON.stringify(analysis)}: ${JSON.stringify(again)}`);
  });

  it('rebuilds the index and still finds sources', async function () {
    this.timeout(FIRST_ANALYSIS_MS + ANALYSIS_MS + 10_000);
    assert.ok(analysis, 'needs the first analysis');
    await withTimeout(vscode.commands.executeCommand('similarSources.rebuildIndex'), FIRST_ANALYSIS_MS, 'similarSources.rebuildIndex');
    const again = await analyzeDraft(ANALYSIS_MS);
    assert.equal(again.fromCache, false, `an analysis after a rebuilt index must not reuse the old cache: ${JSON.stringify(again)}`);
    assert.equal(again.analysed, analysis.analysed, `after rebuildIndex, first analysis ${JSON.stringify(analysis)}: ${JSON.stringify(again)}`);
    const lenses = await ourLenses(draftUri());
    assert.ok(lenses.length > 0, 'no CodeLens after the rebuild');
  });

  it('indexes again, before analysing, an index that another version of Similar Sources built', async function () {
    this.timeout(FIRST_ANALYSIS_MS + ANALYSIS_MS + 10_000);
    assert.ok(analysis, 'needs the first analysis');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder');
    // What an index from an earlier release looks like: other lexical terms.
    const file = path.join(folder.uri.fsPath, '.similar-sources', 'manifest.json');
    const m = JSON.parse(await fs.readFile(file, 'utf8'));
    await fs.writeFile(file, JSON.stringify({ ...m, lexical: 'lex-0' }));
    const again = await analyzeDraft(FIRST_ANALYSIS_MS);
    assert.equal(again.analysed, analysis.analysed, `after an outdated index, first analysis ${JSON.stringify(analysis)}: ${JSON.stringify(again)}`);
    const rebuilt = JSON.parse(await fs.readFile(file, 'utf8'));
    assert.notEqual(rebuilt.lexical, 'lex-0', 'the index was not rebuilt');
  });

  it('the CLI and the extension index the same files for the same workspace (folders, include and exclude from its settings)', async function () {
    this.timeout(FIRST_ANALYSIS_MS + 10_000);
    const cli = process.env.SIMILAR_SOURCES_IT_CLI;
    assert.ok(cli, 'the runner names the CLI of this checkout (SIMILAR_SOURCES_IT_CLI)');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder');
    const config = vscode.workspace.getConfiguration('similarSources', folder.uri);
    // Settings the CLI used to ignore: an exclude glob and an include glob, written to the workspace's settings.json.
    await config.update('exclude', ['broken/**'], vscode.ConfigurationTarget.Workspace);
    await config.update('include', ['**/*.pdf', '**/*.PDF'], vscode.ConfigurationTarget.Workspace);
    try {
      const report = (await withTimeout(vscode.commands.executeCommand('similarSources.indexLibrary'), FIRST_ANALYSIS_MS, 'similarSources.indexLibrary')) as
        { files?: string[] } | undefined;
      assert.ok(report?.files, `indexLibrary reports the files it indexed: ${JSON.stringify(report)?.slice(0, 200)}`);
      const run = spawnSync(process.execPath, [cli, 'index', '--workspace', folder.uri.fsPath, '--json', '--jobs', '0'], {
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      });
      assert.equal(run.status, 0, run.stderr);
      const byCli: string[] = JSON.parse(run.stdout).files;
      assert.ok(!report.files.some((f) => f.includes(`${path.sep}broken${path.sep}`)), 'the extension applies the exclude glob');
      assert.deepEqual([...byCli].sort(), [...report.files].sort(), 'the CLI indexes exactly the files the extension indexes');
    } finally {
      await config.update('exclude', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('include', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('with a local model, indexing serves lexical results at once and the vectors follow in the background ("Semantic index N%")', async function () {
    this.timeout(FIRST_ANALYSIS_MS + ANALYSIS_MS + 10_000);
    const model = process.env.SIMILAR_SOURCES_IT_MODEL;
    assert.ok(model, 'the runner generates a local model (SIMILAR_SOURCES_IT_MODEL)');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder');
    const config = vscode.workspace.getConfiguration('similarSources', folder.uri);
    const library = productLibrary();
    const seen: ProductHealth[] = [];
    const sub = library.onDidChangeHealth((h) => seen.push(h));
    await config.update('localModel', model, vscode.ConfigurationTarget.Workspace);
    await config.update('provider', 'local', vscode.ConfigurationTarget.Workspace);
    try {
      // The index holds no vector of this model: it is indexed (passages kept) and answers at once.
      await withTimeout(vscode.commands.executeCommand('similarSources.indexLibrary'), FIRST_ANALYSIS_MS, 'similarSources.indexLibrary');
      const done = await waitFor(
        async () => (library.health.state === 'ready' && !library.health.semantic && !library.isEmbedding() ? library.health : undefined),
        ANALYSIS_MS,
        'the semantic index to complete',
        200,
      );
      const running = seen.filter((h) => h.state === 'ready' && h.embedding === 'running' && h.semantic);
      assert.ok(
        running.length > 0,
        `the status bar was told "Semantic index N%" while embedding: ${JSON.stringify(seen.map((h) => [h.state, h.embedding, h.semantic?.embedded]))}`,
      );
      assert.ok(
        running.some((h) => h.semantic!.embedded < h.semantic!.total),
        'with a partial count',
      );
      assert.equal(done.embeddingError, undefined);
      const m = JSON.parse(await fs.readFile(path.join(folder.uri.fsPath, '.similar-sources', 'manifest.json'), 'utf8'));
      const key = Object.keys(m.vectors).find((k) => k.startsWith('local-'));
      assert.ok(key, `vectors of the local model are stored: ${Object.keys(m.vectors).join(', ')}`);
      for (const [shard, rec] of Object.entries(m.shards) as Array<[string, { gen: number }]>)
        assert.equal(m.vectors[key].shards[shard]?.passagesGen, rec.gen, `shard ${shard} complete for ${key}`);
      const result = await analyzeDraft(ANALYSIS_MS);
      assert.ok(result.analysed > 0, `the local model's index serves an analysis: ${JSON.stringify(result)}`);
    } finally {
      sub.dispose();
      await config.update('provider', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('localModel', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('with a local reranker, the cards come first and are reordered in the background, each then marked reranked', async function () {
    this.timeout(FIRST_ANALYSIS_MS + ANALYSIS_MS);
    const reranker = process.env.SIMILAR_SOURCES_IT_RERANKER;
    assert.ok(reranker, 'the runner generates a reranker (SIMILAR_SOURCES_IT_RERANKER)');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder');
    const config = vscode.workspace.getConfiguration('similarSources', folder.uri);
    await config.update('localReranker', reranker, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('similarSources.clearCache');
      const first = await analyzeDraft(FIRST_ANALYSIS_MS);
      assert.ok(first.analysed > 0, JSON.stringify(first));
      const uri = vscode.window.activeTextEditor!.document.uri;
      const cards = () =>
        productServices()
          .results.get(uri)
          ?.segments.flatMap((g) => (g.cards.length > 1 ? g.cards : [])) ?? [];
      // Then, in the background, every multi-card paragraph gets the reranker's order.
      const reranked = await waitFor(
        async () => {
          const all = cards();
          return all.length && all.every((c) => c.reranked) ? all : undefined;
        },
        ANALYSIS_MS,
        'the cards reranked in the background',
        200,
      );
      assert.ok(reranked.length > 1);
    } finally {
      await config.update('localReranker', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it("with a lab's library server (similarSources.libraryServer), the draft gets the same cards from the server as from the local index", async function () {
    this.timeout(FIRST_ANALYSIS_MS + 2 * ANALYSIS_MS);
    const url = process.env.SIMILAR_SOURCES_IT_SERVER;
    const schema = process.env.SIMILAR_SOURCES_IT_SERVER_SCHEMA;
    assert.ok(url && schema, 'the runner publishes the library to the dev server (SIMILAR_SOURCES_IT_SERVER)');
    assert.ok(!new URL(url).password, 'the setting names no password: PGPASSWORD gives it');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder');
    const config = vscode.workspace.getConfiguration('similarSources', folder.uri);
    const shown = (uri: vscode.Uri) =>
      productServices()
        .results.get(uri)
        ?.segments.map((g) => g.cards.map((c) => `${c.citekey ?? c.title}|${c.page}`).join(' ')) ?? [];
    await vscode.commands.executeCommand('similarSources.clearCache');
    await analyzeDraft(ANALYSIS_MS);
    const uri = vscode.window.activeTextEditor!.document.uri;
    const local = shown(uri);
    assert.ok(
      local.some((x) => x.length),
      'the local index gives cards',
    );
    await config.update('libraryServerSchema', schema, vscode.ConfigurationTarget.Workspace);
    await config.update('libraryServer', url, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('similarSources.clearCache');
      const r = await analyzeDraft(FIRST_ANALYSIS_MS);
      assert.ok(r.analysed > 0, `the server's library serves the analysis: ${JSON.stringify(r)}`);
      assert.deepEqual(shown(uri), local, 'the same cards (citekey and page) from the server');
      // Open PDF on a card from the server: the card names the publisher's file (outside this
      // workspace), and the PDF view shows this machine's copy in the library folder (same name, same size).
      const card = productServices()
        .results.get(uri)!
        .segments.flatMap((g) => g.cards)[0];
      assert.ok(!card.path.startsWith(folder.uri.fsPath), `a card from the server names the publisher's path: ${card.path}`);
      const name = path.basename(card.path);
      await withTimeout(vscode.commands.executeCommand('similarSources.openPdf', { path: card.path, page: card.page }), 60_000, 'similarSources.openPdf');
      await waitFor(
        () => allTabs().find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('similarSources.pdf') && t.label.includes(name)),
        20_000,
        `a PDF view of ${name}`,
      );
      if (productLogFile) {
        const log = productLogFile;
        await waitFor(
          async () => {
            const text = await fs.readFile(log, 'utf8').catch(() => '');
            return text.includes(`opening this machine's copy ${folder.uri.fsPath}${path.sep}`) && text.includes(`of the library server's ${card.path}`);
          },
          10_000,
          `the product's log (${log}) to say it opened this machine's copy`,
        );
      }
    } finally {
      // The PDF view took the keyboard when it opened: closed, and the draft given it back, for the tests after.
      const views = allTabs().filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('similarSources.pdf'));
      if (views.length) await vscode.window.tabGroups.close(views);
      await vscode.window.showTextDocument(uri, { preserveFocus: false });
      await config.update('libraryServer', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('libraryServerSchema', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('Index Library waits while a CLI indexer holds the writer lock, says who holds it, then indexes; the index is consistent', async function () {
    this.timeout(120_000);
    const cli = process.env.SIMILAR_SOURCES_IT_CLI;
    assert.ok(cli, 'the runner names the CLI of this checkout (SIMILAR_SOURCES_IT_CLI)');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder');
    const ws = folder.uri.fsPath;
    const lockFile = path.join(ws, '.similar-sources', 'index.lock');
    const { child, done } = await cliHoldingTheLock(cli, ws);
    try {
      // What the extension says of the index meanwhile: being indexed, by the CLI's process.
      const during = (await vscode.commands.executeCommand('similarSources.showIndexStatus')) as { state: string; holder?: string };
      assert.equal(during.state, 'indexing', `while the CLI holds the lock: ${JSON.stringify(during)}`);
      assert.match(during.holder ?? '', new RegExp(`^pid ${child.pid} on `), `the status names the CLI's process: ${JSON.stringify(during)}`);

      let settled: string | undefined;
      const extensionRun = Promise.resolve(vscode.commands.executeCommand('similarSources.indexLibrary')).then(
        (r) => {
          settled = 'finished';
          return r;
        },
        (e: Error) => {
          settled = `failed: ${e.message}`;
          throw e;
        },
      );
      await sleep(3_000);
      assert.equal(settled, undefined, 'Index Library must wait while the CLI holds the lock');
      assert.equal(JSON.parse(await fs.readFile(lockFile, 'utf8')).pid, child.pid, 'the CLI still holds the lock: the extension did not take it');
      if (productLogFile) {
        const log = productLogFile;
        await waitFor(
          async () =>
            (await fs.readFile(log, 'utf8').catch(() => '')).includes(`waiting for another process to finish updating the index (pid ${child.pid} on `),
          10_000,
          `the product's log (${log}) to say which process it waits for`,
        );
      }

      process.kill(child.pid!, 'SIGCONT');
      const byCli = await withTimeout(done, 60_000, 'the CLI to finish once resumed');
      assert.equal(byCli.code, 0, byCli.stderr);
      const cliReport = JSON.parse(byCli.stdout) as { files: string[]; sources: number };
      type Report = { files: string[]; sources: number; added: number; updated: number; removed: number; cancelled?: boolean };
      const report = (await withTimeout(extensionRun, 60_000, 'Index Library once the CLI has finished')) as Report;
      assert.ok(report && !report.cancelled, `Index Library: ${JSON.stringify(report)?.slice(0, 300)}`);
      assert.deepEqual([...report.files].sort(), [...cliReport.files].sort(), 'the extension indexes the files the CLI indexed');
      // The CLI's commit was complete: the extension found nothing to redo, and the index is whole.
      assert.deepEqual({ added: report.added, updated: report.updated, removed: report.removed }, { added: 0, updated: 0, removed: 0 });
      assert.equal(report.sources, cliReport.sources);
      await assert.rejects(fs.stat(lockFile), 'no lock is left behind');
      const after = (await vscode.commands.executeCommand('similarSources.showIndexStatus')) as { state: string; sources?: number };
      assert.deepEqual({ state: after.state, sources: after.sources }, { state: 'ready', sources: cliReport.sources });
      const status = spawnSync(process.execPath, [cli, 'status', '--workspace', ws, '--json'], {
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      });
      assert.equal(JSON.parse(status.stdout).state, 'ready', status.stdout + status.stderr);
      const search = spawnSync(process.execPath, [cli, 'search', 'grain trade licences', '--workspace', ws, '--json'], {
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      });
      assert.equal(search.status, 0, search.stderr);
      assert.ok(JSON.parse(search.stdout).results.length > 0, 'the index the two wrote answers a search');
    } finally {
      // Never leave a stopped CLI holding the lock behind a failed check.
      try {
        process.kill(child.pid!, 'SIGCONT');
      } catch {
        /* exited */
      }
      await withTimeout(done, 60_000, 'the CLI to exit').catch(() => child.kill('SIGKILL'));
    }
  });
});
