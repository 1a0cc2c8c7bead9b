/**
 * Runs the API-level integration suite (test/integration/suite/*.spec.ts) with mocha inside a
 * VS Code extension host. Used by two entry points:
 *   - the integration-tests helper extension (code-server run, results written as JSON);
 *   - `run()` in ./index.ts, the entry @vscode/test-electron expects.
 * The spec files are bundled in by esbuild through the virtual module `it-specs`
 * (see scripts/vscode/build-it.mjs), so this works without a file system glob at run time.
 */
import Mocha from 'mocha';
// eslint-disable-next-line import/no-unresolved
import { loadSpecs, specFiles } from 'it-specs';

export interface TestResult {
  title: string;
  fullTitle: string;
  file?: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number;
  error?: { message: string; stack?: string };
}

export interface SuiteResults {
  startedAt: string;
  finishedAt: string;
  vscodeVersion: string;
  specFiles: string[];
  passes: number;
  failures: number;
  pending: number;
  tests: TestResult[];
  /** Set when the suite itself could not run (load error, crash). */
  fatal?: string;
}

export interface RunOptions {
  /** Called with one human-readable line per event (progress log). */
  log?: (line: string) => void;
  /** grep pattern for test titles (SIMILAR_SOURCES_IT_GREP). */
  grep?: string;
  timeoutMs?: number;
}

function errorOf(err: unknown): { message: string; stack?: string } {
  if (err instanceof Error) return { message: err.message, stack: err.stack };
  return { message: String(err) };
}

export async function runSuite(vscodeVersion: string, options: RunOptions = {}): Promise<SuiteResults> {
  const log = options.log ?? (() => undefined);
  const startedAt = new Date().toISOString();
  const tests: TestResult[] = [];
  const mocha = new Mocha({ ui: 'bdd', timeout: options.timeoutMs ?? 120_000, color: false, reporter: class {} as never });
  if (options.grep) mocha.grep(options.grep);
  try {
    // Install describe/it/before… as globals, then evaluate the bundled spec modules.
    mocha.suite.emit('pre-require', globalThis, 'bundled-specs', mocha);
    loadSpecs();
  } catch (err) {
    const e = errorOf(err);
    return {
      startedAt,
      finishedAt: new Date().toISOString(),
      vscodeVersion,
      specFiles,
      passes: 0,
      failures: 1,
      pending: 0,
      tests,
      fatal: `could not load the specs: ${e.stack ?? e.message}`,
    };
  }

  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('suite', (suite: Mocha.Suite) => {
      if (suite.title) log(`suite: ${suite.fullTitle()}`);
    });
    runner.on('test', (test: Mocha.Test) => log(`start: ${test.fullTitle()}`));
    runner.on('pass', (test: Mocha.Test) => {
      tests.push({ title: test.title, fullTitle: test.fullTitle(), file: test.file, state: 'passed', durationMs: test.duration ?? 0 });
      log(`pass:  ${test.fullTitle()} (${test.duration ?? 0} ms)`);
    });
    runner.on('fail', (test: Mocha.Test | Mocha.Hook, err: unknown) => {
      const e = errorOf(err);
      tests.push({ title: test.title, fullTitle: test.fullTitle(), file: test.file, state: 'failed', durationMs: test.duration ?? 0, error: e });
      log(`FAIL:  ${test.fullTitle()}: ${e.message}`);
    });
    runner.on('pending', (test: Mocha.Test) => {
      tests.push({ title: test.title, fullTitle: test.fullTitle(), file: test.file, state: 'pending', durationMs: 0 });
      log(`skip:  ${test.fullTitle()}`);
    });
  });

  return {
    startedAt,
    finishedAt: new Date().toISOString(),
    vscodeVersion,
    specFiles,
    passes: tests.filter((t) => t.state === 'passed').length,
    failures: tests.filter((t) => t.state === 'failed').length,
    pending: tests.filter((t) => t.state === 'pending').length,
    tests,
  };
}
