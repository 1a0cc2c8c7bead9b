/**
 * The documentation against the product: every setting and command is documented, every CLI
 * command has its section in docs/cli.md and every flag of the usage is named there, the settings
 * page gives each setting's true default and values, every relative link and image resolves (with
 * its #anchor, by GitHub's heading slugs), and the README stays short enough to be read first.
 * Each failure lists everything missing at once.
 *
 * Convention: a setting is written by its full id (`similarSources.libraryFolders`), a command by
 * its full id (`similarSources.findSimilarSources`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { SETTINGS, SETTINGS_SECTION, type SettingSpec } from '../../src/shared/settings';

const ROOT = resolve('.');
const README_MAX_LINES = 250;

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const settingIds: string[] = Object.keys(pkg.contributes.configuration.properties);
const commandIds: string[] = pkg.contributes.commands.map((c: { command: string }) => c.command);

function docsFiles(): string[] {
  return readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
}
/** The pages whose links are checked: the documentation, and the top-level Markdown files. */
function checkedPages(): string[] {
  const top = readdirSync('.').filter((f) => f.endsWith('.md') && statSync(f).isFile());
  return [...top, ...docsFiles()];
}
const read = (f: string) => readFileSync(f, 'utf8');

/** The text outside fenced code blocks and code spans (links there are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '').replace(/(`+)[^`\n]*?\1/g, '');
}

/** GitHub's anchor for a heading: lowercase, formatting and punctuation dropped, spaces to '-'. */
function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown file's headings make, duplicates numbered as GitHub does (-1, -2…). */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const text = read(file).replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = githubSlug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** `[text](target)` and `![alt](target)` of a page (targets with a title keep only the path). */
function linksOf(file: string): string[] {
  const out: string[] = [];
  for (const m of prose(read(file)).matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]);
  return out;
}

function documented(): string {
  return ['README.md', ...docsFiles()].map(read).join('\n');
}

/** The written id, not a longer one it begins (`localModel` is not `localModelPooling`). */
function mentions(text: string, id: string): boolean {
  return new RegExp(`${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`).test(text);
}

function cliUsage(): string {
  const cli = resolve('dist/cli.js');
  if (!existsSync(cli)) {
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
  }
  // `help` exits 0; `--help` alone prints the same usage with exit code 1 (no command given).
  const r = spawnSync(process.execPath, [cli, 'help'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** The commands of the usage's "Commands:" list: its lines that begin with two spaces and a name. */
function cliCommands(usage: string): string[] {
  const from = usage.indexOf('\nCommands:\n');
  assert.ok(from >= 0, 'the usage has no "Commands:" list');
  const list = usage.slice(from + '\nCommands:\n'.length).split('\n\n')[0];
  return [...list.matchAll(/^ {2}([a-z][a-z-]*)(?= )/gm)].map((m) => m[1]);
}

describe('docs: the documentation against the product', () => {
  it(`README.md is at most ${README_MAX_LINES} lines`, () => {
    const lines = read('README.md').split('\n').length - (read('README.md').endsWith('\n') ? 1 : 0);
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move detail into docs/ (at most ${README_MAX_LINES})`);
  });

  it('every setting of package.json is documented by its full id (similarSources.x)', () => {
    const text = documented();
    const missing = settingIds.filter((id) => !mentions(text, id));
    assert.deepEqual(missing, [], `settings documented nowhere in README.md or docs/: ${missing.join(', ')}`);
  });

  it('every command of package.json is documented by its full id', () => {
    const text = documented();
    const missing = commandIds.filter((id) => !mentions(text, id));
    assert.deepEqual(missing, [], `commands documented nowhere in README.md or docs/: ${missing.join(', ')}`);
  });

  it("docs/settings.md gives every setting's default, its choices or range, and whether Restricted Mode withholds it", () => {
    const page = read('docs/settings.md');
    const rows = new Map<string, string[]>();
    for (const m of page.matchAll(/^\| `([^`]+)` \|(.*)\|\s*$/gm))
      rows.set(
        m[1],
        m[2].split(' | ').map((c) => c.trim()),
      );
    const problems: string[] = [];
    for (const [key, spec] of Object.entries(SETTINGS) as Array<[string, SettingSpec]>) {
      const id = `${SETTINGS_SECTION}.${key}`;
      const row = rows.get(id);
      if (!row) {
        problems.push(`${id}: no row in the settings tables`);
        continue;
      }
      const [def, values, what] = row;
      const expected = Array.isArray(spec.default) ? '`[]`' : spec.default === '' ? '(empty)' : `\`${String(spec.default)}\``;
      if (def !== expected) problems.push(`${id}: default written ${def}, is ${expected}`);
      if (spec.type === 'string' && spec.enum) {
        for (const choice of spec.enum) {
          const written = choice === '' ? '(empty)' : `\`${choice}\``;
          if (!values.includes(written)) problems.push(`${id}: the choice ${written} is not in its values (${values})`);
        }
      }
      if (spec.type === 'integer' || spec.type === 'number') {
        if (values !== `${spec.minimum}–${spec.maximum}`) problems.push(`${id}: range written ${values}, is ${spec.minimum}–${spec.maximum}`);
      }
      if (!!spec.restricted !== /\*Restricted\.\*/.test(what ?? ''))
        problems.push(`${id}: ${spec.restricted ? 'withheld in Restricted Mode, not said so' : 'said restricted, is not'}`);
    }
    for (const id of rows.keys()) if (!settingIds.includes(id)) problems.push(`${id}: documented, but no such setting`);
    assert.deepEqual(problems, [], `docs/settings.md disagrees with src/shared/settings.ts:\n  ${problems.join('\n  ')}`);
  });

  it('every command of the CLI has its section in docs/cli.md, and every flag of its usage is named there', function () {
    this.timeout(120_000);
    const usage = cliUsage();
    const page = read('docs/cli.md');
    const commands = cliCommands(usage);
    assert.ok(commands.length >= 5, `read only ${commands.length} commands from the usage: ${commands.join(', ')}`);
    const headings = [...page.matchAll(/^#{2,4} .*`([a-z][a-z-]*)`/gm)].map((m) => m[1]);
    const problems = commands.filter((c) => !headings.includes(c)).map((c) => `command ${c}: no heading (### \`${c}\`)`);
    const flags = [...new Set([...usage.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]))];
    problems.push(...flags.filter((f) => !mentions(page, f)).map((f) => `flag ${f}: not named`));
    assert.deepEqual(problems, [], `docs/cli.md lacks what \`node dist/cli.js help\` lists:\n  ${problems.join('\n  ')}`);
  });

  it('every relative link and image of README.md, SECURITY.md, ARCHITECTURE.md, the other top-level pages and docs/ resolves, anchors included', () => {
    const broken: string[] = [];
    const anchorCache = new Map<string, Set<string>>();
    const anchors = (f: string) => anchorCache.get(f) ?? anchorCache.set(f, anchorsOf(f)).get(f)!;
    for (const page of checkedPages()) {
      for (const target of linksOf(page)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, vscode:…
        const [pathPart, anchor] = target.split('#', 2);
        const file = pathPart ? resolve(dirname(page), decodeURIComponent(pathPart)) : resolve(page);
        const shown = `${page}: (${target})`;
        if (!file.startsWith(ROOT)) {
          broken.push(`${shown} leaves the repository`);
          continue;
        }
        if (!existsSync(file)) {
          broken.push(`${shown}: no file ${relative(ROOT, file)}`);
          continue;
        }
        if (anchor !== undefined && anchor !== '') {
          if (!file.endsWith('.md')) continue;
          if (!anchors(file).has(anchor))
            broken.push(`${shown}: no heading of ${relative(ROOT, file)} makes #${anchor} (it has: ${[...anchors(file)].join(', ')})`);
        }
      }
    }
    assert.deepEqual(broken, [], `broken relative links:\n  ${broken.join('\n  ')}`);
  });

  it('the link checker reads links as GitHub does (slugs, code left out)', () => {
    assert.equal(
      githubSlug("Agent tools (language-model tools in VS Code, the CLI's MCP server)"),
      'agent-tools-language-model-tools-in-vs-code-the-clis-mcp-server',
    );
    assert.equal(githubSlug('`index`'), 'index');
    assert.equal(
      githubSlug('Drafts with a real model: the example and a 300-paragraph PDF draft (issue 27)'),
      'drafts-with-a-real-model-the-example-and-a-300-paragraph-pdf-draft-issue-27',
    );
    assert.equal(githubSlug('What changed for speed (before → after, same machine)'), 'what-changed-for-speed-before--after-same-machine');
    assert.equal(prose('a `[x](nowhere.md)` b\n```\n[y](nowhere.md)\n```\n[z](here.md)').includes('nowhere'), false);
  });
});
