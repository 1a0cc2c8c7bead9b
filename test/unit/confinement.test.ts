/**
 * Issue 35, rows 1, 2, 3, 5 and 11: files a draft, a setting or an agent names are read only
 * within their roots, only when they are regular files, and never hang or swell a process.
 * Each case runs the bundled CLI (or its MCP server) as a user or an agent would.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const CLI = resolve('dist/cli.js');
/** Runs the CLI in a process that says its peak resident memory (KB) on stderr as it exits. */
const WRAP = `process.on('exit', () => process.stderr.write('\\nmaxrss ' + process.resourceUsage().maxRSS + '\\n')); require(${JSON.stringify(CLI)});`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident memory, MB. */
  rssMb: number;
  timedOut: boolean;
}

function run(args: string[], cwd: string): Run {
  const r = spawnSync(process.execPath, ['-e', WRAP, 'cli', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  const m = /maxrss (\d+)/.exec(r.stderr ?? '');
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, rssMb: m ? Number(m[1]) / 1024 : NaN, timedOut: r.signal === 'SIGTERM' };
}

/** The run ended by itself, quickly, in bounded memory. */
function bounded(r: Run, what: string): void {
  assert.equal(r.timedOut, false, `${what}: hung (killed after 60 s)`);
  assert.ok(r.rssMb < 400, `${what}: peak RSS ${r.rssMb.toFixed(0)} MB`);
}

describe('confinement: what a draft, a setting or an agent names (issue 35)', function () {
  this.timeout(240_000);
  const root = mkdtempSync(join(tmpdir(), 'ss-confine-'));
  const ws = join(root, 'examples');
  const elsewhere = join(root, 'elsewhere');

  before(() => {
    if (!existsSync(CLI)) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    // No settings: the library is indexed from flags, and a draft's own bibliography then serves.
    cpSync(resolve('examples'), ws, { recursive: true, filter: (src) => !src.includes('.similar-sources') && !src.includes('.vscode') });
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'secret.tex'), "Outside: ``SECRETWORD never leaves'' \\cite[p.~1]{secretkey2024}.\n");
    writeFileSync(join(elsewhere, 'refs.bib'), '@book{outsidekey2020,\n  title = {A Book Kept Elsewhere},\n  author = {Elsewhere, Ann},\n  year = {2020}\n}\n');
    symlinkSync(join(elsewhere, 'secret.tex'), join(ws, 'leak.tex'));
    symlinkSync('/dev/zero', join(ws, 'zero.tex'));
    execFileSync('mkfifo', [join(ws, 'pipe.bib')]);
    execFileSync('mkfifo', [join(ws, 'pipe.tex')]);
    execFileSync('mkfifo', [join(ws, 'fifo.md')]);
    const fine = "Fine: ``no grain could leave a port without a tratta'' \\cite[p.~214]{whitfield2019grain}.";
    writeFileSync(join(ws, 'leak-main.tex'), `\\documentclass{article}\n\\begin{document}\n${fine}\n\\input{leak}\n\\end{document}\n`);
    writeFileSync(
      join(ws, 'zero-main.tex'),
      `\\documentclass{article}\n\\addbibresource{/dev/zero}\n\\begin{document}\n${fine}\n\\input{zero}\n\\input{pipe}\n\\end{document}\n`,
    );
    writeFileSync(join(ws, 'fifo-bib.tex'), `\\documentclass{article}\n\\addbibresource{pipe.bib}\n\\begin{document}\n${fine}\n\\end{document}\n`);
    const md = (bib: string) => `---\ntitle: Draft\nbibliography: ${bib}\n---\n\nA claim [@outsidekey2020] and one [@whitfield2019grain, p. 214].\n`;
    writeFileSync(join(ws, 'dev-zero.md'), md('/dev/zero'));
    writeFileSync(join(ws, 'fifo-bib.md'), md('pipe.bib'));
    writeFileSync(join(ws, 'outside-bib.md'), md('../elsewhere/refs.bib'));
    writeFileSync(join(ws, 'absolute-bib.md'), md(join(elsewhere, 'refs.bib')));
    const r = spawnSync(
      process.execPath,
      [CLI, 'index', '--workspace', '.', '--library', 'library', '--bib', 'library/library.bib', '--provider', 'embedded', '--ocr', 'off'],
      {
        cwd: ws,
        encoding: 'utf8',
        timeout: 180_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('row 1: an \\input that is a link to a file outside the workspace is not read; nothing of it comes back', () => {
    const r = run(['check', 'leak-main.tex', '--workspace', '.', '--json'], ws);
    bounded(r, 'check');
    const { citations } = JSON.parse(r.stdout) as { citations: Array<{ key: string; status: string }> };
    assert.deepEqual(
      citations.map((c) => [c.key, c.status]),
      [['whitfield2019grain', 'ok']],
    );
    assert.doesNotMatch(r.stdout + r.stderr, /SECRETWORD|secretkey2024/);
    assert.match(r.stderr, /\\input\{leak\} in leak-main\.tex: leak\.tex is a link to a file outside the workspace, not read/);
  });

  it('row 2 and 11: a bibliography or \\input naming a device or a FIFO is refused at once, in bounded memory', () => {
    const devZero = run(['check', 'dev-zero.md', '--workspace', '.', '--json'], ws);
    bounded(devZero, 'front matter /dev/zero');
    assert.match(
      devZero.stderr,
      /\/dev\/zero is outside the workspace, not read; a draft may not name a file elsewhere \(name it in the setting similarSources\.bibliographyFile to use it\)/,
    );

    const tex = run(['check', 'zero-main.tex', '--workspace', '.', '--json'], ws);
    bounded(tex, '\\addbibresource{/dev/zero}, \\input of a link to /dev/zero and of a FIFO');
    assert.match(tex.stderr, /\/dev\/zero is outside the workspace/);
    assert.match(tex.stderr, /\\input\{zero\} in zero-main\.tex: zero\.tex is a link to a file outside the workspace/);
    assert.match(tex.stderr, /\\input\{pipe\} in zero-main\.tex: pipe\.tex is a FIFO \(named pipe\), not a regular file/);

    for (const draft of ['fifo-bib.md', 'fifo-bib.tex']) {
      const fifo = run(['check', draft, '--workspace', '.', '--json'], ws);
      bounded(fifo, `${draft}: a FIFO as the bibliography`);
      assert.match(fifo.stderr, /pipe\.bib is a FIFO \(named pipe\), not a regular file/, draft);
    }

    // Named by the user (a flag, as the setting): anywhere, but still a regular file.
    const flag = run(['check', 'dev-zero.md', '--workspace', '.', '--bib', '/dev/zero', '--json'], ws);
    bounded(flag, '--bib /dev/zero');
    assert.match(flag.stderr, /\/dev\/zero is a device, not a regular file/);

    // The draft itself.
    const draft = run(['check', 'fifo.md', '--workspace', '.'], ws);
    bounded(draft, 'a FIFO as the draft');
    assert.equal(draft.code, 2);
    assert.match(draft.stderr, /fifo\.md is a FIFO \(named pipe\), not a regular file/);
    const dev = run(['segment', '/dev/zero'], ws);
    bounded(dev, 'segment /dev/zero');
    assert.notEqual(dev.code, 0);
    assert.match(dev.stderr, /is a device, not a regular file/);
  });

  it('row 3: a bibliography the draft names outside the workspace is neither read nor cached; the user may name it', () => {
    for (const draft of ['outside-bib.md', 'absolute-bib.md']) {
      const r = run(['check', draft, '--workspace', '.', '--json'], ws);
      bounded(r, draft);
      const { citations } = JSON.parse(r.stdout) as { citations: Array<{ key: string; status: string }> };
      assert.deepEqual(
        citations.map((c) => [c.key, c.status]),
        [
          ['outsidekey2020', 'unknown-key'],
          ['whitfield2019grain', 'ok'],
        ],
        draft,
      );
      assert.match(r.stderr, /refs\.bib is outside the workspace, not read; a draft may not name a file elsewhere/, draft);
    }
    const kept = readdirSync(join(ws, '.similar-sources')).filter((f) => f.startsWith('bibliography-'));
    const files = kept.map((f) => (JSON.parse(readFileSync(join(ws, '.similar-sources', f), 'utf8')) as { file: string }).file);
    assert.deepEqual(files, [join(ws, 'library', 'library.bib')], 'no parse of the outside file is kept, only the library export indexed');
    // The user names it (the --bib flag sets similarSources.bibliographyFile): it is read.
    const named = run(['check', 'outside-bib.md', '--workspace', '.', '--bib', join(elsewhere, 'refs.bib'), '--json'], ws);
    const { citations } = JSON.parse(named.stdout) as { citations: Array<{ key: string; status: string }> };
    assert.deepEqual(
      citations.map((c) => [c.key, c.status]),
      [
        ['outsidekey2020', 'ok'],
        ['whitfield2019grain', 'ok'],
      ],
    );
  });

  describe('through the MCP server (rows 1, 3 and 5)', () => {
    let client: Client;
    let transport: StdioClientTransport;
    const stderr: string[] = [];
    before(async () => {
      transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', ws], cwd: root, stderr: 'pipe' });
      transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
      client = new Client({ name: 'confinement-test', version: '1.0.0' });
      await client.connect(transport);
    });
    after(async () => {
      await client?.close();
    });
    const text = (r: object) => ((r as { content?: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');

    it('check_citations on a LaTeX draft with a symlinked \\input returns nothing of the outside file', async () => {
      const r = await client.callTool({ name: 'check_citations', arguments: { path: 'leak-main.tex' } });
      assert.doesNotMatch(text(r), /SECRETWORD|secretkey2024/);
      assert.match(text(r), /whitfield2019grain/);
    });

    it('check_citations cannot tell whether a key exists in a bibliography outside the workspace', async () => {
      const r = await client.callTool({ name: 'check_citations', arguments: { path: 'outside-bib.md' } });
      assert.match(text(r), /outsidekey2020/);
      assert.doesNotMatch(text(r), /"status":\s*"ok"[^}]*outsidekey2020|outsidekey2020[^}]*"status":\s*"ok"/);
    });

    it('row 5: check_citations on a FIFO draft, many at once, is refused and leaves the server answering', async () => {
      const calls = await Promise.all(Array.from({ length: 8 }, () => client.callTool({ name: 'check_citations', arguments: { path: 'fifo.md' } })));
      for (const c of calls) {
        assert.equal(c.isError, true);
        assert.match(text(c), /FIFO \(named pipe\), not a regular file/);
      }
      const status = await client.readResource({ uri: 'similar-sources://index/status' });
      assert.match(String((status.contents[0] as { text: string }).text), /"state"/);
      const search = await client.callTool({ name: 'search', arguments: { query: 'grain licences' } });
      assert.notEqual(search.isError, true, text(search));
    });
  });
});
