/**
 * Whether this build can run a local model here: ONNX Runtime's native binding for this platform
 * lies beside the bundled worker (dist/onnxruntime/<platform>/<arch>/, put there by
 * scripts/build.mjs for the VSIX's target). A VSIX built for another platform, the universal one
 * or one for a platform onnxruntime-node has no runtime for (Intel macOS, Alpine) has none: the
 * local model is then unavailable and says so, and everything else works.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const RUNTIME_BINDING = 'onnxruntime_binding.node';

let label: string | undefined;

/** This machine as VS Code's targets name it: "darwin-x64", "linux-arm64", "alpine-x64" (a musl Linux). */
export function platformLabel(): string {
  // Node's report says which C library it runs on (a few ms, once).
  if (label) return label;
  const header = process.platform === 'linux' ? (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header : undefined;
  const os = header && !header.glibcVersionRuntime ? 'alpine' : process.platform;
  label = `${os}-${process.arch}`;
  return label;
}

/** Where the bundled worker (in `workerDir`) loads ONNX Runtime's binding from on this machine. */
export function runtimeBindingPath(workerDir: string): string {
  return join(workerDir, 'onnxruntime', process.platform, process.arch, RUNTIME_BINDING);
}

export interface LocalRuntime {
  /** The binding for this platform is there (whether it loads is known once the worker tries). */
  available: boolean;
  platform: string;
  /** When not available: what the user is told. */
  message?: string;
}

/** Whether the worker bundle in `workerDir` has ONNX Runtime for this machine. */
export function localRuntime(workerDir: string): LocalRuntime {
  const platform = platformLabel();
  if (existsSync(runtimeBindingPath(workerDir))) return { available: true, platform };
  return { available: false, platform, message: noRuntimeMessage(platform) };
}

export function noRuntimeMessage(platform = platformLabel()): string {
  return (
    `This build of Similar Sources has no ONNX Runtime for ${platform}: the local model is unavailable here. ` +
    'The embedded model, Ollama and OpenAI-compatible servers work on every platform; for the local model, install the Similar Sources build for your platform where there is one.'
  );
}

/** The binding is there but the system could not load it (another C library, a missing system DLL…). */
export function runtimeLoadMessage(detail: string, platform = platformLabel()): string {
  return `ONNX Runtime could not be loaded on ${platform} (${detail}): the local model is unavailable here. The embedded model, Ollama and OpenAI-compatible servers work on every platform.`;
}
