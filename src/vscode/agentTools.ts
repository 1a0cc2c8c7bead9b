/**
 * The library as language-model tools (`vscode.lm.registerTool`), for Copilot's agent mode or any
 * chat participant: similarSources_search, similarSources_sourcesFor, similarSources_checkCitations
 * (package.json declares them, with the schemas of engine/agentTools.ts). A thin adapter: it finds
 * the workspace folder's engine, says what it is doing (`prepareInvocation`), and hands the engine's
 * text back as a LanguageModelTextPart. Read-only, so no confirmation is asked (README).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolAnswer, WorkspaceEngine } from '../engine';
import { draftFormat } from './drafts';
import { loadEngine } from './engine';
import type { Services } from './services';

type Input = Record<string, unknown>;

/** A quoted, one-line, short form of what the model asked (for the progress message). */
function short(value: unknown, max = 60): string {
  const s = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

class LibraryTool implements vscode.LanguageModelTool<Input> {
  constructor(
    private readonly s: Services,
    private readonly message: (input: Input) => string,
    private readonly answer: (engine: WorkspaceEngine, input: Input, signal: AbortSignal) => Promise<ToolAnswer>,
    /** The folder whose library answers: by default the active editor's (or the first). */
    private readonly folderOf: (input: Input) => Promise<vscode.WorkspaceFolder | undefined> = async () =>
      s.library.workspaceFolder(vscode.window.activeTextEditor?.document.uri),
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Input>): vscode.PreparedToolInvocation {
    return { invocationMessage: this.message(options.input ?? {}) };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Input>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const engineApi = loadEngine();
    // The `when` clause hides the tools in Restricted Mode; a call that comes anyway is refused the same way.
    if (!this.s.trust.trusted) throw new Error(this.s.trust.message());
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort());
    try {
      const folder = await this.folderOf(options.input ?? {});
      if (!folder) throw new engineApi.ToolInputError('no workspace folder is open: the library belongs to a workspace');
      const engine = this.s.library.engine(folder);
      // The folder's indexing run under way commits its library first (as an analysis waits for it).
      await engine.whenIndexed();
      const a = await this.answer(engine, options.input ?? {}, ac.signal);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(a.text)]);
    } catch (e) {
      // The model reads the message: a wrong argument, an index to build first, what failed.
      this.s.log.warn(`language-model tool: ${(e as Error).message}`);
      throw new Error(engineApi.toolErrorText(e));
    } finally {
      sub.dispose();
    }
  }
}

/** The draft to check: `uri` (a Markdown file of a workspace folder), or the active editor's. */
async function draftOf(input: Input): Promise<vscode.TextDocument> {
  const { ToolInputError, checkInput, TOOL_SCHEMAS } = loadEngine();
  const { uri } = checkInput<{ uri?: string }>(TOOL_SCHEMAS.checkCitationsUri, input);
  let target: vscode.Uri | undefined;
  if (uri) {
    try {
      target = /^[a-z][\w+.-]*:/i.test(uri) && !/^[a-z]:[\\/]/i.test(uri) ? vscode.Uri.parse(uri, true) : vscode.Uri.file(uri);
    } catch {
      throw new ToolInputError(`not a URI: ${short(uri, 200)}`);
    }
  } else target = vscode.window.activeTextEditor?.document.uri;
  if (!target) throw new ToolInputError('no draft: pass "uri", or open the Markdown draft in the editor');
  if (target.scheme !== 'file' || !vscode.workspace.getWorkspaceFolder(target))
    throw new ToolInputError(`the draft must be a file inside the workspace: ${short(target.toString(), 200)}`);
  const doc = await vscode.workspace.openTextDocument(target);
  // The check reads Pandoc citations: a LaTeX draft is never given to it as Markdown.
  if (draftFormat(doc) !== 'markdown') throw new ToolInputError(`not a Markdown draft (Markdown, Quarto or R Markdown): ${path.basename(target.fsPath)}`);
  return doc;
}

/** Registers the three tools; they load the engine only when called. */
export function registerAgentTools(s: Services): vscode.Disposable {
  const t = vscode.l10n.t;
  return vscode.Disposable.from(
    vscode.lm.registerTool(
      'similarSources_search',
      new LibraryTool(
        s,
        (i) => t('Searching your library for "{0}"', short(i.query)),
        (engine, input, signal) => loadEngine().searchTool(engine, input, { signal }),
      ),
    ),
    vscode.lm.registerTool(
      'similarSources_sourcesFor',
      new LibraryTool(
        s,
        (i) => t('Finding sources to cite for "{0}"', short(i.text)),
        (engine, input, signal) => loadEngine().sourcesForTool(engine, input, { signal }),
      ),
    ),
    vscode.lm.registerTool(
      'similarSources_checkCitations',
      new LibraryTool(
        s,
        (i) => (typeof i.uri === 'string' ? t('Checking the citations of {0}', path.basename(i.uri)) : t("Checking the active draft's citations")),
        async (engine, input, signal) => {
          const doc = await draftOf(input);
          // The editor's text, saved or not: what the writer sees is what is checked.
          // With the file's path, a LaTeX draft is read as LaTeX (its \input files too) and its own bibliography serves.
          const draftPath = doc.uri.scheme === 'file' ? doc.uri.fsPath : undefined;
          return loadEngine().checkCitationsTool(engine, doc.getText(), {
            name: vscode.workspace.asRelativePath(doc.uri),
            signal,
            ...(draftPath ? { draftPath } : {}),
          });
        },
        async (input) => s.library.workspaceFolder((await draftOf(input)).uri),
      ),
    ),
  );
}
