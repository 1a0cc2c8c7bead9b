import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * The Marketplace / Open VSX face of package.json, and the VS Code it claims to run on: the oldest
 * VS Code it accepts (engines.vscode) is the one the integration suite runs (code-server 4.X.Y
 * bundles VS Code 1.X.Y), and the API types it compiles against are no newer (vsce refuses
 * @types/vscode above engines.vscode; a newer one would let an API the oldest VS Code lacks
 * type-check).
 */
const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = (v: string) => v.split('.').map(Number);
const minOf = (range: string) => {
  const m = /^[\^~]?(\d+\.\d+\.\d+)$/.exec(range);
  assert.ok(m, `a plain minimum version: ${range}`);
  return m[1];
};

describe('extension manifest: VS Code version, Marketplace fields, changelog', () => {
  it('engines.vscode accepts the VS Code that the integration suite runs, and no older one', () => {
    const setup = readFileSync(join(root, 'scripts/vscode/setup-code-server.mjs'), 'utf8');
    const cs = /export const CODE_SERVER_VERSION = '(\d+)\.(\d+)\.(\d+)'/.exec(setup);
    assert.ok(cs, 'setup-code-server.mjs names its code-server version');
    assert.equal(cs[1], '4', 'code-server 4.X.Y is VS Code 1.X.Y; another major needs another mapping');
    assert.equal(minOf(manifest.engines.vscode), `1.${cs[2]}.0`);
    assert.match(manifest.engines.vscode, /^\^/, 'and every later VS Code');
    const electron = readFileSync(join(root, 'test/integration/runElectron.mjs'), 'utf8');
    assert.match(electron, new RegExp(`'1\\.${cs[2]}\\.\\d+'`), 'the Electron runner defaults to the same VS Code');
  });

  it('@types/vscode, declared and installed, is not newer than engines.vscode', () => {
    const [eMaj, eMin] = version(minOf(manifest.engines.vscode));
    const declared = manifest.devDependencies['@types/vscode'];
    assert.match(declared, /^\d+\.\d+\.\d+$/, 'pinned: a caret range would let npm install a newer API');
    const installed = createRequire(join(root, 'package.json'))('@types/vscode/package.json').version;
    for (const v of [declared, installed]) {
      const [maj, min] = version(v);
      assert.ok(maj < eMaj || (maj === eMaj && min <= eMin), `@types/vscode ${v} is newer than engines.vscode ${manifest.engines.vscode}`);
    }
    assert.equal(manifest.enabledApiProposals, undefined, 'no proposed API: it exists in no released VS Code');
  });

  it('the Marketplace fields are honest and well-formed', () => {
    const allowed = [
      'Programming Languages',
      'Snippets',
      'Linters',
      'Themes',
      'Debuggers',
      'Formatters',
      'Keymaps',
      'SCM Providers',
      'Other',
      'Extension Packs',
      'Language Packs',
      'Data Science',
      'Machine Learning',
      'Visualization',
      'Notebooks',
      'Education',
      'Testing',
    ];
    assert.ok(manifest.categories.length > 0);
    for (const c of manifest.categories) assert.ok(allowed.includes(c), `category ${c} is not one VS Code lists`);
    assert.ok(manifest.keywords.length > 0 && manifest.keywords.length <= 30);
    assert.match(manifest.galleryBanner.color, /^#[0-9A-Fa-f]{6}$/);
    assert.ok(['dark', 'light'].includes(manifest.galleryBanner.theme));
    // No public repository exists: no placeholder URL stands in for one (vsce runs with --allow-missing-repository).
    for (const k of ['repository', 'bugs', 'homepage']) assert.equal(manifest[k], undefined, `${k}: only with a real URL`);
    assert.match(manifest.scripts.package, /package-vsix\.mjs/);
  });

  it('the icon is a 128×128 PNG (read from its IHDR chunk)', () => {
    const png = readFileSync(join(root, manifest.icon));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
    assert.equal(png.toString('latin1', 12, 16), 'IHDR');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  });

  it("CHANGELOG.md follows Keep a Changelog, opens with package.json's version and ships in the VSIX", () => {
    const log = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
    assert.match(log, /^# Changelog\n/);
    assert.match(log, /keepachangelog\.com/);
    const versions = [...log.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}|Unreleased))?$/gm)];
    assert.ok(versions.length > 0, 'version headings: ## [x.y.z] - YYYY-MM-DD or - Unreleased');
    assert.equal(versions[0][1], manifest.version);
    const types = [...log.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    for (const t of types) assert.ok(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'].includes(t), `change type ${t}`);
    assert.match(readFileSync(join(root, '.vscodeignore'), 'utf8'), /^!CHANGELOG\.md$/m);
  });
});
