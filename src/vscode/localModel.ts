/**
 * The local model, from the editor: downloaded once, after the user agrees,
 * into the extension's global storage (progress in MB, Cancel; an interrupted
 * download resumes), offered once on a first analysis when `provider` is `auto` (never by a
 * build without ONNX Runtime for this platform),
 * and the OpenAI-compatible server's key kept in the secret storage.
 */
import * as vscode from 'vscode';
import { errorCode } from '../shared/errors';
import { readSettings } from './config';
import { loadEngine } from './engine';
import { OPENAI_KEY_SECRET, SERVER_PASSWORD_SECRET, type LibraryService } from './library';

const OFFERED = 'localModel.offered';
/** Published download sizes of the known models (int8), for the consent question. */
const SIZES_MB: Record<string, number> = {
  'xenova/multilingual-e5-small': 135,
  'xenova/bge-small-en-v1.5': 34,
  'xenova/gte-small': 34,
  'xenova/all-minilm-l6-v2': 23,
};

export class LocalModelCommands {
  constructor(
    private readonly library: LibraryService,
    private readonly log: vscode.LogOutputChannel,
    /** Global memory: a declined offer is not repeated (the command offers it again). */
    private readonly memento: vscode.Memento,
    private readonly secrets: vscode.SecretStorage,
  ) {}

  /** Whether the configured local model is on this machine. */
  async installed(folder: vscode.WorkspaceFolder): Promise<boolean> {
    const engine = loadEngine();
    const s = readSettings(folder.uri, this.log);
    const status = await engine
      .modelStatus(s.localModel || engine.DEFAULT_LOCAL_MODEL, this.library.modelCacheDir, engine.localOverridesOf(s))
      .catch(() => undefined);
    return !!status?.installed;
  }

  /**
   * On an analysis with `provider: auto` and no local model: offer the download, once.
   * Not awaited by the analysis, which goes on with the embedded model.
   */
  async offerOnce(folder: vscode.WorkspaceFolder): Promise<void> {
    if (
      this.memento.get<boolean>(OFFERED) ||
      readSettings(folder.uri).provider !== 'auto' ||
      !loadEngine().localModelRuntime().available ||
      (await this.installed(folder))
    )
      return;
    await this.memento.update(OFFERED, true);
    const download = vscode.l10n.t('Download');
    const answer = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Similar Sources can match ideas, not only words, and across French and English, with a local model (downloaded once, about {0} MB; it runs on this machine). Download it now?',
        this.sizeOf(folder),
      ),
      download,
      vscode.l10n.t('Not now'),
    );
    if (answer === download) await this.download(folder, true);
  }

  /** Downloads the configured model (asks first unless `agreed`); true when it is ready. */
  async download(folder: vscode.WorkspaceFolder, agreed = false): Promise<boolean> {
    const engine = loadEngine();
    const s = readSettings(folder.uri, this.log);
    const model = s.localModel || engine.DEFAULT_LOCAL_MODEL;
    // A build without ONNX Runtime for this platform could not run what it downloads.
    const runtime = engine.localModelRuntime();
    if (!runtime.available) {
      this.log.warn(runtime.message!);
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'This build of Similar Sources has no ONNX Runtime for {0}: the local model cannot run here, so it is not downloaded. The embedded model is used; Ollama and OpenAI-compatible servers work too.',
          runtime.platform,
        ),
      );
      return false;
    }
    if (await this.installed(folder)) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The local model {0} is ready.', model));
      return true;
    }
    if (!agreed) {
      const download = vscode.l10n.t('Download');
      const answer = await vscode.window.showInformationMessage(
        vscode.l10n.t(
          "Download the local model {0} (about {1} MB) from the Hugging Face Hub into VS Code's storage? It is downloaded once and runs on this machine.",
          model,
          this.sizeOf(folder),
        ),
        { modal: true },
        download,
      );
      if (answer !== download) return false;
    }
    try {
      await this.fetch(model, engine.localOverridesOf(s));
    } catch (err) {
      if (errorCode(err) === 'cancelled') {
        this.log.info(`download of ${model} cancelled; what arrived is kept and the next download resumes`);
        return false;
      }
      this.log.error(`download of ${model} failed: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(
        vscode.l10n.t('The local model could not be downloaded: {0} Similar Sources goes on with the embedded model.', (err as Error).message),
      );
      return false;
    }
    this.log.info(`local model ${model} downloaded into ${this.library.modelCacheDir}`);
    const index = vscode.l10n.t('Index Library');
    void vscode.window
      .showInformationMessage(vscode.l10n.t('The local model {0} is ready. Index the library with it (its passages are embedded once)?', model), index)
      .then((a) => {
        if (a === index) void vscode.commands.executeCommand('similarSources.indexLibrary');
      });
    return true;
  }

  /**
   * Downloads the local reranker the settings name (similarSources.localReranker, a repository
   * id), after the user agrees, as the local model is; a folder needs nothing. True when it is ready.
   */
  async downloadReranker(folder: vscode.WorkspaceFolder): Promise<boolean> {
    const engine = loadEngine();
    const model = readSettings(folder.uri, this.log).localReranker.trim();
    if (!model) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'No local reranker is set: set similarSources.localReranker to a reranker on the Hugging Face Hub (e.g. Xenova/mmarco-mMiniLMv2-L12-H384-v1) or to a folder, then run this command again.',
        ),
      );
      return false;
    }
    const status = await engine.modelStatus(model, this.library.modelCacheDir).catch(() => undefined);
    if (status?.installed || status?.location.kind === 'folder') {
      void vscode.window.showInformationMessage(vscode.l10n.t('The local reranker {0} is ready.', model));
      return !!status.installed;
    }
    const runtime = engine.localModelRuntime();
    if (!runtime.available) {
      void vscode.window.showWarningMessage(runtime.message!);
      return false;
    }
    const download = vscode.l10n.t('Download');
    const answer = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        "Download the local reranker {0} from the Hugging Face Hub into VS Code's storage? It is downloaded once, runs on this machine, and reorders each paragraph's top cards.",
        model,
      ),
      { modal: true },
      download,
    );
    if (answer !== download) return false;
    try {
      await this.fetch(model);
    } catch (err) {
      if (errorCode(err) !== 'cancelled') {
        this.log.error(`download of the reranker ${model} failed: ${(err as Error).message}`);
        void vscode.window.showErrorMessage(vscode.l10n.t('The local reranker could not be downloaded: {0}', (err as Error).message));
      }
      return false;
    }
    this.log.info(`local reranker ${model} downloaded into ${this.library.modelCacheDir}`);
    void vscode.window.showInformationMessage(vscode.l10n.t('The local reranker {0} is ready: Find Similar Sources reorders the top cards with it.', model));
    return true;
  }

  /** Downloads a model (the encoder or the reranker) into the extension's storage, in a cancellable notification giving the MB so far. */
  private fetch(model: string, overrides?: ReturnType<ReturnType<typeof loadEngine>['localOverridesOf']>): Thenable<void> {
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Downloading {0}', model), cancellable: true },
      async (progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        let shown = 0;
        await loadEngine().downloadModel({
          model,
          cacheDir: this.library.modelCacheDir,
          ...(overrides ? { overrides } : {}),
          signal: ac.signal,
          onProgress: (p) => {
            const mb = p.doneBytes / 1e6;
            const total = p.totalBytes / 1e6;
            progress.report({
              message: total ? vscode.l10n.t('{0} of {1} MB', mb.toFixed(1), total.toFixed(1)) : vscode.l10n.t('{0} MB', mb.toFixed(1)),
              increment: total ? ((mb - shown) / total) * 100 : undefined,
            });
            shown = mb;
          },
        });
      },
    );
  }

  /** Asks for the OpenAI-compatible server's key and keeps it in the secret storage (empty: forget it). */
  setApiKey(): Promise<boolean> {
    return this.askSecret(
      OPENAI_KEY_SECRET,
      vscode.l10n.t("API key of the OpenAI-compatible embedding server (kept in VS Code's secret storage; empty to remove it)"),
      [vscode.l10n.t('API key saved'), vscode.l10n.t('API key removed')],
    );
  }

  /** Asks for the library server's password and keeps it in the secret storage (empty: forget it). */
  setServerPassword(): Promise<boolean> {
    return this.askSecret(
      SERVER_PASSWORD_SECRET,
      vscode.l10n.t("Password of the library server (similarSources.libraryServer), kept in VS Code's secret storage; empty to remove it"),
      [vscode.l10n.t('Password saved'), vscode.l10n.t('Password removed')],
    );
  }

  /** A secret typed in a password box, stored (or, left empty, removed); false when the box was dismissed. */
  private async askSecret(key: string, prompt: string, [saved, removed]: [string, string]): Promise<boolean> {
    const value = await vscode.window.showInputBox({ prompt, password: true, ignoreFocusOut: true });
    if (value === undefined) return false;
    if (value) await this.secrets.store(key, value);
    else await this.secrets.delete(key);
    void vscode.window.setStatusBarMessage(value ? saved : removed, 3000);
    return true;
  }

  private sizeOf(folder: vscode.WorkspaceFolder): string {
    const model = (readSettings(folder.uri).localModel || 'Xenova/multilingual-e5-small').toLowerCase();
    return String(SIZES_MB[model] ?? '?');
  }
}
