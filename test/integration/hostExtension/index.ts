/**
 * The integration-tests helper extension (test only, never shipped).
 *
 * Loaded by code-server next to the real Similar Sources extension (test/integration/runCodeServer.mjs).
 * On activation, when SIMILAR_SOURCES_IT_RESULTS is set and the results file does not exist yet, it
 * runs the API-level suite (test/integration/suite/*.spec.ts) inside this real extension host and
 * writes the results as JSON. It also registers a few commands that the browser checks invoke
 * through the command palette; each writes `<SIMILAR_SOURCES_IT_CONTROL>/<command>.json` with its
 * outcome so the runner can report the product's error text instead of a bare timeout.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runSuite } from '../suite/runner';
import { tcpRelay, type TcpRelay } from '../../support/tcpRelay';
import {
  DRAFT,
  FEEDING_PARAGRAPH,
  PRODUCT_ID,
  SAMPLE_PDF,
  commandLinkArgs,
  findLine,
  hoverText,
  setExtensionLogDir,
  waitFor,
  withTimeout,
  workspaceRoot,
} from '../suite/helpers';

function appendLog(line: string): void {
  const file = process.env.SIMILAR_SOURCES_IT_LOG;
  const stamped = `${new Date().toISOString()} ${line}\n`;
  if (file) {
    try {
      fs.appendFileSync(file, stamped);
    } catch {
      /* best effort */
    }
  }
  console.log(`[similar-sources-it] ${line}`);
}

function writeJsonAtomic(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2));
  fs.renameSync(tmp, file);
}

function controlCommand(id: string, body: () => Promise<unknown>): vscode.Disposable {
  return vscode.commands.registerCommand(id, async () => {
    const controlDir = process.env.SIMILAR_SOURCES_IT_CONTROL;
    const started = Date.now();
    appendLog(`ui command ${id}: start`);
    try {
      const value = await body();
      appendLog(`ui command ${id}: ok in ${Date.now() - started} ms`);
      if (controlDir) writeJsonAtomic(path.join(controlDir, `${id}.json`), { ok: true, value: value ?? null, ms: Date.now() - started });
    } catch (err) {
      const message = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err);
      appendLog(`ui command ${id}: FAILED ${message}`);
      if (controlDir) writeJsonAtomic(path.join(controlDir, `${id}.json`), { ok: false, error: message, ms: Date.now() - started });
    }
  });
}

async function openDraft(): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), DRAFT)));
  return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
}

/**
 * The draft analysed from its Feeding paragraph, the panel shown beside it and the keyboard given
 * back to the draft, its CodeLenses on screen: the layout the screenshots take.
 */
async function analyseWithPanel(editor: vscode.TextEditor): Promise<unknown> {
  const line = findLine(editor.document, FEEDING_PARAGRAPH);
  editor.selection = new vscode.Selection(line, 0, line, 0);
  editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
  const result = await withTimeout(vscode.commands.executeCommand('similarSources.findSimilarSources'), 280_000, 'similarSources.findSimilarSources');
  await vscode.commands.executeCommand('similarSources.showPanel');
  await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
  editor.revealRange(new vscode.Range(Math.max(0, line - 3), 0, line, 0), vscode.TextEditorRevealType.AtTop);
  return result;
}

/** The draft's text before similarSourcesIt.typeCitekey typed into it. */
/** A new paragraph under the Feeding one, about its subject, with "[@" just typed, and the suggestions asked for. */
async function typeCitekeyUnderFeeding(editor: vscode.TextEditor): Promise<{ line: number }> {
  const line = findLine(editor.document, FEEDING_PARAGRAPH);
  const typed = 'What the Sicilian crown sold was the export permit, and Genoese houses speculated on grain permits [@';
  await editor.edit((b) => b.insert(new vscode.Position(line + 1, 0), `\n${typed}\n`));
  const at = new vscode.Position(line + 2, typed.length);
  editor.selection = new vscode.Selection(at, at);
  editor.revealRange(new vscode.Range(Math.max(0, line - 2), 0, line + 2, 0), vscode.TextEditorRevealType.AtTop);
  await vscode.commands.executeCommand('editor.action.triggerSuggest');
  return { line: line + 2 };
}

let draftBefore: string | undefined;
/** draft.qmd's text before similarSourcesIt.prepareQuarto typed into it. */
let quartoBefore: string | undefined;
/** draft.tex's text before the LaTeX controls wrote into it. */
let latexBefore: string | undefined;

async function openLatex(): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), 'draft.tex')));
  return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
}

function labConfig(): vscode.WorkspaceConfiguration {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder');
  return vscode.workspace.getConfiguration('similarSources', folder.uri);
}

/** The relay the lab's server is read through while its check runs. */
let relay: TcpRelay | undefined;

export function activate(context: vscode.ExtensionContext): void {
  setExtensionLogDir(context.logUri.fsPath);
  context.subscriptions.push(
    controlCommand('similarSourcesIt.openDraft', async () => {
      await openDraft();
      return {
        product: vscode.extensions.getExtension(PRODUCT_ID)?.isActive ?? null,
        pid: process.pid,
        // What the runner logs: which editor the workbench holds active after the draft was shown.
        activeEditor: vscode.window.activeTextEditor ? path.basename(vscode.window.activeTextEditor.document.uri.fsPath) : null,
        groups: vscode.window.tabGroups.all.map((g) => ({ column: g.viewColumn, active: g.isActive, tab: g.activeTab?.label ?? null })),
      };
    }),
    controlCommand('similarSourcesIt.prepareDraft', async () => {
      // A clean layout for the screenshot: the draft on the left, the panel beside it.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      return analyseWithPanel(await openDraft());
    }),
    controlCommand('similarSourcesIt.codeLensState', async () => {
      // Diagnostics for the UI check: what the providers give versus what the editor shows.
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath.endsWith(DRAFT));
      const lenses = doc ? await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100) : [];
      return {
        editorCodeLens: vscode.workspace.getConfiguration('editor', { languageId: 'markdown' }).get('codeLens'),
        productCodeLens: vscode.workspace.getConfiguration('similarSources', doc?.uri).get('codeLens'),
        lenses: (lenses ?? []).length,
        resolvedTitles: (lenses ?? []).slice(0, 3).map((l) => l.command?.title ?? null),
        visibleEditors: vscode.window.visibleTextEditors.map((e) => `${e.document.uri.toString()} col ${e.viewColumn}`),
      };
    }),
    controlCommand('similarSourcesIt.showHover', async () => {
      const editor = await openDraft();
      const line = findLine(editor.document, FEEDING_PARAGRAPH);
      const pos = new vscode.Position(line, 20);
      editor.selection = new vscode.Selection(pos, pos);
      editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenter);
      await vscode.commands.executeCommand('editor.action.showHover');
      return { line };
    }),
    controlCommand('similarSourcesIt.analyzeHostile', async () => {
      // hostile.md finds library/hostile/hostile.pdf (test/support/hostileLibrary.ts): hostile metadata and text.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), 'hostile.md')));
      const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      await withTimeout(vscode.commands.executeCommand('similarSources.findSimilarSources'), 280_000, 'similarSources.findSimilarSources');
      await vscode.commands.executeCommand('similarSources.showPanel');
      await vscode.window.showTextDocument(doc, { viewColumn: editor.viewColumn, preserveFocus: false });
      const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100)) ?? [];
      const line = findLine(doc, 'The quillwort');
      const pos = new vscode.Position(line, 10);
      editor.selection = new vscode.Selection(pos, pos);
      editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenter);
      await vscode.commands.executeCommand('editor.action.showHover');
      return { lensTitles: lenses.map((l) => l.command?.title ?? '') };
    }),
    controlCommand('similarSourcesIt.typeCitekey', async () => {
      // A new paragraph under the Feeding one, about its subject, with "[@" just typed: the suggestions open.
      const editor = await openDraft();
      draftBefore = editor.document.getText();
      return typeCitekeyUnderFeeding(editor);
    }),
    controlCommand('similarSourcesIt.prepareQuarto', async () => {
      // draft.qmd analysed, its Feeding paragraph on screen with the lenses above it (no panel: the later checks expect draft.md's).
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), 'draft.qmd')));
      const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      const result = await withTimeout(vscode.commands.executeCommand('similarSources.findSimilarSources'), 280_000, 'similarSources.findSimilarSources');
      const line = findLine(doc, FEEDING_PARAGRAPH);
      editor.selection = new vscode.Selection(line, 0, line, 0);
      editor.revealRange(new vscode.Range(Math.max(0, line - 12), 0, line, 0), vscode.TextEditorRevealType.AtTop);
      return { languageId: doc.languageId, result };
    }),
    controlCommand('similarSourcesIt.typeQuartoCitekey', async () => {
      // "[@" typed in a new paragraph under the Feeding one: the suggestions open.
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), 'draft.qmd')));
      const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      quartoBefore = doc.getText();
      return typeCitekeyUnderFeeding(editor);
    }),
    controlCommand('similarSourcesIt.revertQuarto', async () => {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), 'draft.qmd')));
      const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      if (quartoBefore !== undefined && doc.getText() !== quartoBefore)
        await editor.edit((b) => b.replace(new vscode.Range(0, 0, doc.lineCount, 0), quartoBefore!));
      await doc.save();
      return { restored: doc.getText() === quartoBefore };
    }),
    controlCommand('similarSourcesIt.prepareLatex', async () => {
      // draft.tex analysed, its Feeding paragraph on screen with the lenses above it.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const editor = await openLatex();
      const result = await withTimeout(vscode.commands.executeCommand('similarSources.findSimilarSources'), 280_000, 'similarSources.findSimilarSources');
      // The panel took the focus: give it back to the draft so its CodeLenses are on screen beside the panel.
      const shown = await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
      const line = findLine(shown.document, FEEDING_PARAGRAPH);
      shown.selection = new vscode.Selection(line, 0, line, 0);
      shown.revealRange(new vscode.Range(Math.max(0, line - 12), 0, line, 0), vscode.TextEditorRevealType.AtTop);
      const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', shown.document.uri, 100)) ?? [];
      return { languageId: shown.document.languageId, result, lenses: lenses.length };
    }),
    controlCommand('similarSourcesIt.insertLatexCitation', async () => {
      // The hover's Insert citation with the cursor right after the paragraph's \autocite: merged into it, page selected.
      const editor = await openLatex();
      latexBefore ??= editor.document.getText();
      const line = findLine(editor.document, FEEDING_PARAGRAPH);
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(line, 20));
      const links = commandLinkArgs(hoverText(hovers ?? []), 'similarSources.insertCitation');
      if (!links.length) throw new Error('no Insert citation link in the hover of the Feeding paragraph');
      const existing = '\\autocite[p.~214]{whitfield2019grain}';
      const col = editor.document.lineAt(line).text.indexOf(existing) + existing.length;
      editor.selection = new vscode.Selection(line, col, line, col);
      // The second card when there is one: a source other than the one the paragraph cites already.
      await vscode.commands.executeCommand('similarSources.insertCitation', ...(links[1] ?? links[0]));
      const text = editor.document.lineAt(line).text;
      const at = text.indexOf('\\autocites');
      editor.revealRange(new vscode.Range(line, Math.max(0, at), line, Math.max(0, at)), vscode.TextEditorRevealType.InCenter);
      return {
        citation: at >= 0 ? /^\\autocites(?:\[[^\]]*\]\{[^}]*\})+/.exec(text.slice(at))?.[0] : undefined,
        selected: editor.document.getText(editor.selection),
      };
    }),
    controlCommand('similarSourcesIt.typeLatexCitekey', async () => {
      // "\autocite{" typed in a new paragraph under the Feeding one: the suggestions open.
      const editor = await openLatex();
      await vscode.commands.executeCommand('leaveSnippet');
      latexBefore ??= editor.document.getText();
      const line = findLine(editor.document, FEEDING_PARAGRAPH);
      const typed = 'What the Sicilian crown sold was the export permit, and Genoese houses speculated on grain permits \\autocite{';
      await editor.edit((b) => b.insert(new vscode.Position(line + 1, 0), `\n${typed}\n`));
      const at = new vscode.Position(line + 2, typed.length);
      editor.selection = new vscode.Selection(at, at);
      editor.revealRange(new vscode.Range(Math.max(0, line - 2), 0, line + 2, 0), vscode.TextEditorRevealType.AtTop);
      await vscode.commands.executeCommand('editor.action.triggerSuggest');
      return { line: line + 2 };
    }),
    controlCommand('similarSourcesIt.revertLatex', async () => {
      const editor = await openLatex();
      const doc = editor.document;
      if (latexBefore !== undefined && doc.getText() !== latexBefore)
        await editor.edit((b) => b.replace(new vscode.Range(0, 0, doc.lineCount, 0), latexBefore!));
      await doc.save();
      const restored = doc.getText() === latexBefore;
      latexBefore = undefined;
      return { restored };
    }),
    controlCommand('similarSourcesIt.revertDraft', async () => {
      // The draft as it was before typeCitekey, saved (auto-save may have written the typing to disk).
      const editor = await openDraft();
      if (draftBefore !== undefined && editor.document.getText() !== draftBefore) {
        const all = new vscode.Range(0, 0, editor.document.lineCount, 0);
        await editor.edit((b) => b.replace(all, draftBefore!));
      }
      await editor.document.save();
      return { restored: editor.document.getText() === draftBefore, dirty: editor.document.isDirty };
    }),
    controlCommand('similarSourcesIt.indexWithLocalModel', async () => {
      // The generated local model (the runner writes it): indexing commits the passages and
      // returns; the vectors follow in the background.
      const model = process.env.SIMILAR_SOURCES_IT_MODEL;
      if (!model) throw new Error('SIMILAR_SOURCES_IT_MODEL is not set');
      const config = vscode.workspace.getConfiguration('similarSources', vscode.Uri.file(workspaceRoot()));
      await config.update('localModel', model, vscode.ConfigurationTarget.Workspace);
      await config.update('provider', 'local', vscode.ConfigurationTarget.Workspace);
      // Rebuilt: the API suite left this model's vectors complete, and they are all to compute again.
      const report = (await withTimeout(vscode.commands.executeCommand('similarSources.rebuildIndex'), 280_000, 'similarSources.rebuildIndex')) as
        { passages?: number } | undefined;
      return { passages: report?.passages ?? null };
    }),
    controlCommand('similarSourcesIt.useDefaultProvider', async () => {
      const config = vscode.workspace.getConfiguration('similarSources', vscode.Uri.file(workspaceRoot()));
      await config.update('provider', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('localModel', undefined, vscode.ConfigurationTarget.Workspace);
      return { provider: vscode.workspace.getConfiguration('similarSources').get('provider') };
    }),
    controlCommand('similarSourcesIt.indexLibrary', async () => {
      // Index Library as a user runs it, while another window may hold the index (the two-window check).
      const r = (await withTimeout(vscode.commands.executeCommand('similarSources.indexLibrary'), 120_000, 'similarSources.indexLibrary')) as
        { files: string[]; sources: number; added: number; updated: number; removed: number; cancelled?: boolean } | undefined;
      return (
        r && {
          pid: process.pid,
          files: r.files.length,
          sources: r.sources,
          added: r.added,
          updated: r.updated,
          removed: r.removed,
          cancelled: r.cancelled ?? false,
        }
      );
    }),
    controlCommand('similarSourcesIt.labServerOutOfReach', async () => {
      // The draft read from the lab's server through a relay (its copy kept on this machine), then the relay cut: a laptop leaving the lab's network.
      const url = process.env.SIMILAR_SOURCES_IT_SERVER;
      const schema = process.env.SIMILAR_SOURCES_IT_SERVER_SCHEMA;
      if (!url || !schema) throw new Error('the runner publishes the library to the dev server (SIMILAR_SOURCES_IT_SERVER)');
      const config = labConfig();
      relay = await tcpRelay(new URL(url));
      await config.update('libraryServerSchema', schema, vscode.ConfigurationTarget.Workspace);
      await config.update('libraryServer', relay.url, vscode.ConfigurationTarget.Workspace);
      const copies = path.join(workspaceRoot(), '.similar-sources', 'server-copy');
      const before = new Set(fs.existsSync(copies) ? fs.readdirSync(copies) : []);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('similarSources.clearCache');
      const editor = await openDraft();
      const online = await withTimeout(vscode.commands.executeCommand('similarSources.findSimilarSources'), 280_000, 'similarSources.findSimilarSources');
      // The copy is written in the background after the read from the server.
      const copy = await waitFor(
        () => (fs.existsSync(copies) ? fs.readdirSync(copies).find((n) => /-g\d+$/.test(n) && !before.has(n)) : undefined),
        120_000,
        "this machine's copy of the generation",
        500,
      );
      relay.cut();
      await vscode.commands.executeCommand('similarSources.clearCache');
      const offline = await analyseWithPanel(editor);
      return { copy, online, offline };
    }),
    controlCommand('similarSourcesIt.labServerBack', async () => {
      const config = labConfig();
      await config.update('libraryServer', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('libraryServerSchema', undefined, vscode.ConfigurationTarget.Workspace);
      await relay?.close();
      relay = undefined;
      await vscode.commands.executeCommand('similarSources.clearCache');
      return {};
    }),
    controlCommand('similarSourcesIt.openPdf', async () => {
      const pdf = path.join(workspaceRoot(), SAMPLE_PDF);
      // The first words of page 2, as a card's preview gives them: the viewer marks them on its text layer.
      const highlight = 'In the kingdom of Sicily, no grain could leave a port without a tratta';
      await withTimeout(vscode.commands.executeCommand('similarSources.openPdf', { path: pdf, page: 2, highlight }), 60_000, 'similarSources.openPdf');
      return { pdf, page: 2, highlight };
    }),
  );

  const resultsFile = process.env.SIMILAR_SOURCES_IT_RESULTS;
  if (!resultsFile) return;
  if (fs.existsSync(resultsFile) || fs.existsSync(`${resultsFile}.running`)) {
    appendLog('suite already ran in this profile (window reloaded?): not running it again');
    return;
  }
  fs.writeFileSync(`${resultsFile}.running`, String(process.pid));
  appendLog(`running the integration suite in VS Code ${vscode.version}`);
  // Not awaited: activation must finish so the workbench (and the product) carry on normally.
  void (async () => {
    let results;
    try {
      results = await runSuite(vscode.version, { log: appendLog, grep: process.env.SIMILAR_SOURCES_IT_GREP });
    } catch (err) {
      const now = new Date().toISOString();
      results = {
        startedAt: now,
        finishedAt: now,
        vscodeVersion: vscode.version,
        specFiles: [],
        passes: 0,
        failures: 1,
        pending: 0,
        tests: [],
        fatal: err instanceof Error ? (err.stack ?? err.message) : String(err),
      };
    }
    writeJsonAtomic(resultsFile, results);
    appendLog(`suite finished: ${results.passes} passed, ${results.failures} failed`);
  })();
}

export function deactivate(): void {
  /* nothing to release */
}
