import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PANEL_STRING_KEYS, PDF_STRING_KEYS } from '../../src/shared/strings';

const fr: Record<string, string> = JSON.parse(readFileSync('l10n/bundle.l10n.fr.json', 'utf8'));

/** The literal first arguments of vscode.l10n.t(...) in a host source file. */
function l10nLiterals(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  // Files that alias it (`const t = vscode.l10n.t`) call it as t(...) too.
  const call = /const t = vscode\.l10n\.t\b/.test(src) ? /(?:l10n\.t|(?<![\w.])t)\(\s*'((?:[^'\\]|\\.)*)'/g : /l10n\.t\(\s*'((?:[^'\\]|\\.)*)'/g;
  return [...src.matchAll(call)].map((m) => m[1].replace(/\\'/g, "'"));
}

describe('localisation: the French bundle', () => {
  it('translates every string the host passes to vscode.l10n.t', () => {
    const files = readdirSync('src/vscode')
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join('src/vscode', f))
      .concat('src/extension.ts');
    const missing = files.flatMap((f) =>
      l10nLiterals(f)
        .filter((s) => !(s in fr))
        .map((s) => `${f}: ${s}`),
    );
    assert.deepEqual(missing, []);
  });
  it('translates every webview string, band descriptions included', () => {
    const missing = [...Object.values(PANEL_STRING_KEYS), ...Object.values(PDF_STRING_KEYS)].filter((s) => !(s in fr));
    assert.deepEqual(missing, []);
  });
  it('keeps the placeholders of each translation', () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const wrong = Object.entries(fr).filter(([en, t]) => names(en).join() !== names(t).join());
    assert.deepEqual(wrong, []);
  });
});
