/**
 * Entry point for @vscode/test-electron (`extensionTestsPath` points at the bundle of this file):
 * VS Code calls `run()` inside the extension host and treats a rejected promise as a failed run.
 * The same specs run under code-server through the integration-tests helper extension.
 */
import * as vscode from 'vscode';
import { runSuite } from './runner';

export async function run(): Promise<void> {
  const results = await runSuite(vscode.version, {
    log: (line) => console.log(`[it] ${line}`),
    grep: process.env.SIMILAR_SOURCES_IT_GREP,
  });
  for (const t of results.tests) {
    const mark = t.state === 'passed' ? '✓' : t.state === 'failed' ? '✗' : '-';
    console.log(`  ${mark} ${t.fullTitle}${t.error ? `\n      ${t.error.message}` : ''}`);
  }
  console.log(`${results.passes} passed, ${results.failures} failed`);
  if (results.fatal) throw new Error(results.fatal);
  if (results.failures > 0) throw new Error(`${results.failures} integration test(s) failed`);
}
