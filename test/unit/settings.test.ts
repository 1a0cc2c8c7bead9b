import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveLibrary } from '../../src/engine/library';
import { readWorkspaceSettings } from '../../src/engine/settingsFile';
import { defaultSettings, resolveSettings, SETTINGS, SETTINGS_SECTION, type SettingSpec } from '../../src/shared/settings';
import { writeFixtureLibrary } from '../support/pdfCorpus';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const contributed: Record<string, Record<string, unknown>> = pkg.contributes.configuration.properties;

describe('settings: one schema (shared/settings.ts)', () => {
  it("package.json's contributes.configuration declares exactly the schema's keys, types, defaults, ranges and choices", () => {
    const keys = Object.keys(SETTINGS).map((k) => `${SETTINGS_SECTION}.${k}`);
    assert.deepEqual(Object.keys(contributed).sort(), keys.sort());
    for (const [key, spec] of Object.entries(SETTINGS) as Array<[string, SettingSpec]>) {
      const c = contributed[`${SETTINGS_SECTION}.${key}`];
      assert.equal(c.type, spec.type, key);
      assert.deepEqual(c.default, spec.default, key);
      assert.equal(c.markdownDescription, `%cfg.${key}%`, key);
      assert.equal(c.scope, spec.scope, key);
      if (spec.type === 'integer' || spec.type === 'number') assert.deepEqual([c.minimum, c.maximum], [spec.minimum, spec.maximum], key);
      else assert.deepEqual([c.minimum, c.maximum], [undefined, undefined], key);
      if (spec.type === 'string') {
        assert.deepEqual(c.enum, spec.enum, key);
        assert.equal(Array.isArray(c.enumDescriptions), !!spec.enumDescriptions, key);
        if (spec.enum && spec.enumDescriptions) assert.equal((c.enumDescriptions as string[]).length, spec.enum.length, key);
      }
      if (spec.type === 'array') assert.deepEqual(c.items, { type: 'string' }, key);
    }
  });

  it('Restricted Mode withholds exactly the settings the schema marks restricted', () => {
    const restricted = Object.entries(SETTINGS as Record<string, SettingSpec>)
      .filter(([, s]) => s.restricted)
      .map(([k]) => `${SETTINGS_SECTION}.${k}`);
    assert.deepEqual([...pkg.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(), restricted.sort());
  });

  it('every setting has an English and a French description', () => {
    for (const file of ['package.nls.json', 'package.nls.fr.json']) {
      const nls = JSON.parse(readFileSync(file, 'utf8'));
      for (const key of Object.keys(SETTINGS)) assert.ok(nls[`cfg.${key}`], `${file}: cfg.${key}`);
    }
  });

  it('replaces a value of the wrong type or out of range by its default, and says so', () => {
    const raw: Record<string, unknown> = {
      maxResults: 50,
      granularity: 'chapter',
      libraryFolders: 'lib',
      useReranking: 'yes',
      similarityThreshold: 0.4,
      minWords: 2.5,
    };
    const { settings, problems } = resolveSettings((k) => raw[k]);
    assert.equal(settings.maxResults, 5);
    assert.equal(settings.granularity, 'paragraph');
    assert.deepEqual(settings.libraryFolders, []);
    assert.equal(settings.useReranking, 'auto');
    assert.equal(settings.similarityThreshold, 0.4, 'a valid value is kept');
    assert.equal(settings.minWords, 4);
    assert.equal(problems.length, 5);
    assert.ok(
      problems.some((p) => /similarSources\.maxResults must be from 1 to 20 \(got 50\); using 5/.test(p)),
      problems.join('\n'),
    );
    assert.ok(problems.some((p) => /granularity must be one of section, paragraph, sentence/.test(p)));
  });

  it('reads the reranking setting of earlier versions (true/false) as auto/off, without a problem', () => {
    for (const [raw, mode] of [
      [true, 'auto'],
      [false, 'off'],
      ['on', 'on'],
      ['off', 'off'],
    ] as const) {
      const { settings, problems } = resolveSettings((k) => (k === 'useReranking' ? raw : undefined));
      assert.equal(settings.useReranking, mode, String(raw));
      assert.deepEqual(problems, []);
    }
    const { settings, problems } = resolveSettings((k) => (k === 'useReranking' ? 1 : undefined));
    assert.equal(settings.useReranking, 'auto');
    assert.match(problems[0], /useReranking must be a string/);
  });

  it('gives fresh defaults: changing one result leaves the next alone', () => {
    const a = defaultSettings();
    a.libraryFolders.push('x');
    assert.deepEqual(defaultSettings().libraryFolders, []);
  });
});

describe("a workspace's library, resolved once for the CLI and the extension", () => {
  it('resolves folders against the workspace, expands ~, and falls back to the workspace itself', () => {
    const ws = resolve('/tmp/ws');
    const s = {
      ...defaultSettings(),
      libraryFolders: ['sources', '~/Zotero/storage', '/abs/lib'],
      bibliographyFile: '~/lib.bib',
      primarySourceFolders: ['~/archives', 'sources/primary'],
      exclude: ['drafts/**'],
    };
    const lib = resolveLibrary(ws, s, '/home/u');
    assert.deepEqual(lib.folders, [join(ws, 'sources'), '/home/u/Zotero/storage', '/abs/lib']);
    assert.equal(lib.fromSettings, true);
    assert.equal(lib.bibliography, '/home/u/lib.bib');
    assert.deepEqual(lib.primary, ['/home/u/archives', 'sources/primary']);
    assert.deepEqual(lib.exclude, ['drafts/**']);
    const none = resolveLibrary(ws, defaultSettings(), '/home/u');
    assert.deepEqual([none.folders, none.fromSettings, none.bibliography], [[ws], false, undefined]);
  });

  it('reads .vscode/settings.json with comments and trailing commas, and reports a broken one', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'ss-set-'));
    mkdirSync(join(ws, '.vscode'));
    writeFileSync(
      join(ws, '.vscode', 'settings.json'),
      '{\n // the library\n "similarSources.libraryFolders": ["lib"], /* and */ "similarSources.maxResults": 99,\n}',
    );
    const r = await readWorkspaceSettings(ws);
    assert.deepEqual(r.settings.libraryFolders, ['lib']);
    assert.equal(r.settings.maxResults, 5);
    assert.equal(r.problems.length, 1);
    writeFileSync(join(ws, '.vscode', 'settings.json'), '{ "similarSources.libraryFolders": [');
    const broken = await readWorkspaceSettings(ws);
    assert.deepEqual(broken.settings, defaultSettings());
    assert.match(broken.problems[0], /is not valid JSON/);
  });

  it("the CLI indexes what the workspace's settings name: folders, ~, include and exclude (the extension resolves them through the same function)", async function () {
    this.timeout(60_000);
    const ws = mkdtempSync(join(tmpdir(), 'ss-set-ws-'));
    const { files } = await writeFixtureLibrary(join(ws, 'library'));
    mkdirSync(join(ws, 'library', 'drafts'));
    const names = Object.keys(files);
    copyFileSync(files[names[0]], join(ws, 'library', 'drafts', 'draft-copy.pdf'));
    // A folder named with ~ (under the home folder, as a Zotero storage would be): the CLI runs
    // with a home folder of the test's own, so nothing is written to the real one.
    const fakeHome = mkdtempSync(join(tmpdir(), 'ss-set-home-'));
    const home = join(fakeHome, 'Zotero');
    mkdirSync(home);
    copyFileSync(files[names[1]], join(home, 'from-home.pdf'));
    mkdirSync(join(ws, '.vscode'));
    writeFileSync(
      join(ws, '.vscode', 'settings.json'),
      JSON.stringify({ 'similarSources.libraryFolders': ['library', '~/Zotero'], 'similarSources.exclude': ['drafts/**', '**/encrypted.pdf'] }),
    );
    const r = spawnSync(process.execPath, [resolve('dist/cli.js'), 'index', '--workspace', ws, '--json'], {
      encoding: 'utf8',
      env: { ...process.env, HOME: fakeHome },
    });
    rmSync(fakeHome, { recursive: true, force: true });
    assert.equal(r.status, 0, r.stderr);
    const indexed: string[] = JSON.parse(r.stdout).files;
    assert.ok(indexed.includes(join(home, 'from-home.pdf')), 'the ~ folder is indexed');
    assert.ok(!indexed.some((f) => f.includes('drafts')), 'exclude applies');
    assert.ok(!indexed.some((f) => f.endsWith('encrypted.pdf')), 'exclude applies');
    assert.equal(indexed.length, names.filter((n) => !n.endsWith('encrypted.pdf')).length + 1);
  });
});
