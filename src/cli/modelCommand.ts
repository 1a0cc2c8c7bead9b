/**
 * `model download|status|remove [--model <repo|folder>]`: the local embedding model in the
 * CLI's cache (~/.cache/similar-sources/models, or --cache-dir), and the options that choose
 * and describe a local model for `--provider local|auto`.
 */
import {
  DEFAULT_LOCAL_MODEL,
  defaultModelCacheDir,
  downloadModel,
  localModelRuntime,
  modelStatus,
  removeModel,
  type LocalModelOverrides,
  type ProviderConfig,
} from '../engine';
import { terminalText } from '../shared/untrusted';
import { checkKnown, intOption, one, settingOption, UsageError, type ParsedArgs } from './args';
import { cancelOnInterrupt } from './interrupt';
import { err, out, outJson } from './output';

/** Options read by localConfigFrom (every command that takes --provider accepts them). */
export const LOCAL_MODEL_OPTS = ['model', 'cache-dir', 'pooling', 'query-prefix', 'passage-prefix', 'max-tokens', 'onnx-file', 'openai-url', 'openai-model'];

export const MODEL_USAGE = `  model   download|status|remove [--model <repo|folder>] [--cache-dir <dir>] [--json]
          The local embedding model (default ${DEFAULT_LOCAL_MODEL}): downloads it from the
          Hugging Face Hub (or $HF_ENDPOINT) into --cache-dir (default ~/.cache/similar-sources/models),
          resuming an interrupted download; a folder is used as it is.`;

export const LOCAL_PROVIDER_USAGE = `  --provider local: --model <repo|folder> (default ${DEFAULT_LOCAL_MODEL}), --cache-dir <dir>;
  for a model the table does not know: --pooling mean|cls, --max-tokens N, --onnx-file <path in the folder>.
  --provider auto: the local model when it is downloaded, else the embedded one.
  --provider openai: --openai-url <base up to /v1>, --openai-model <name>, API key from $OPENAI_API_KEY.
  --query-prefix <s>, --passage-prefix <s> (local, ollama, openai): text put before each query, each
  passage; default the model's documented one when its name is known (e5: "query: "/"passage: ",
  bge-en-v1.5 and mxbai-embed-large: an instruction for queries, nomic-embed-text: "search_query: "/
  "search_document: "), else none; "" = none. A new passage prefix embeds the library again.`;

function overridesFrom(args: ParsedArgs): LocalModelOverrides {
  const o: LocalModelOverrides = {};
  const pooling = settingOption(args, 'pooling', 'localModelPooling');
  if (pooling) o.pooling = pooling;
  const q = one(args, 'query-prefix');
  if (q !== undefined) o.queryPrefix = q;
  const p = one(args, 'passage-prefix');
  if (p !== undefined) o.passagePrefix = p;
  // At least a few tokens: a model's own limit is the flag left out (the setting's 0).
  if (args.options.has('max-tokens')) o.maxTokens = intOption(args, 'max-tokens', 0, 8, 8192);
  const f = one(args, 'onnx-file');
  if (f !== undefined) o.onnxFile = f;
  return o;
}

/**
 * The parts of ProviderConfig for local, auto and openai, from the command line (--query-prefix/--passage-prefix for ollama too: see main.ts).
 * A local model runs in the worker beside the engine's bundle (the engine's createProvider says where).
 */
export function localConfigFrom(args: ParsedArgs, fallbackModel?: string): Omit<ProviderConfig, 'provider'> {
  return {
    localModel: one(args, 'model') ?? fallbackModel,
    localModelOverrides: overridesFrom(args),
    modelCacheDir: one(args, 'cache-dir') ?? defaultModelCacheDir(),
    openaiBaseUrl: one(args, 'openai-url') ?? process.env.OPENAI_BASE_URL,
    openaiModel: one(args, 'openai-model') ?? fallbackModel,
    openaiApiKey: process.env.OPENAI_API_KEY,
    openaiQueryPrefix: one(args, 'query-prefix'),
    openaiPassagePrefix: one(args, 'passage-prefix'),
  };
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

export async function cmdModel(args: ParsedArgs): Promise<number> {
  checkKnown(args, ['model', 'cache-dir', 'json', 'pooling', 'query-prefix', 'passage-prefix', 'max-tokens', 'onnx-file']);
  const action = args.positionals[0];
  const model = one(args, 'model') ?? DEFAULT_LOCAL_MODEL;
  const cacheDir = one(args, 'cache-dir') ?? defaultModelCacheDir();
  const overrides = overridesFrom(args);
  const json = args.flags.has('json');
  const status = async () => {
    const st = await modelStatus(model, cacheDir, overrides);
    if (json)
      outJson(
        JSON.stringify({
          model,
          kind: st.location.kind,
          dir: st.location.dir,
          installed: st.installed,
          missing: st.missing,
          bytes: st.bytes,
          commit: st.commit ?? null,
          onnxFile: st.onnxFile,
        }),
      );
    else
      out(
        st.installed
          ? `${model}: installed in ${st.location.dir} (${mb(st.bytes)} MB${st.commit ? `, commit ${st.commit.slice(0, 12)}` : ''})`
          : `${model}: not installed (${st.location.dir} lacks ${st.missing.join(', ')})`,
      );
    return st.installed ? 0 : 1;
  };
  switch (action) {
    case 'status':
      return status();
    case 'remove': {
      const removed = await removeModel(model, cacheDir, overrides);
      out(removed ? `removed ${model} from ${cacheDir}` : `${model} was not downloaded`);
      return 0;
    }
    case 'download': {
      // The model may be meant for another machine: downloaded all the same, with a word.
      const runtime = localModelRuntime();
      if (!runtime.available) err(`note: ${runtime.message}`);
      const interrupt = cancelOnInterrupt('\ncancelling: what was fetched is kept for the next download');
      let last = 0;
      try {
        const dir = await downloadModel({
          model,
          cacheDir,
          overrides,
          signal: interrupt.signal,
          onProgress: (p) => {
            const now = Date.now();
            if (now - last < 500 && p.doneBytes < p.totalBytes) return;
            last = now;
            // Rewritten in place (\r): the file name, which the Hub gives, must not hold a control of its own.
            process.stderr.write(`\r${terminalText(p.file, 120)}: ${mb(p.doneBytes)} / ${mb(p.totalBytes)} MB   `);
          },
        });
        process.stderr.write('\n');
        if (!json) out(`downloaded ${model} into ${dir}`);
        return json ? status() : 0;
      } finally {
        interrupt.stop();
      }
    }
    default:
      throw new UsageError(`model needs download, status or remove (got ${action === undefined ? 'nothing' : `"${action}"`})`);
  }
}
