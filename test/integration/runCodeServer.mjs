#!/usr/bin/env node
// Integration tests inside a real VS Code extension host, offline: code-server 4.100.3
// (= VS Code 1.100.3) driven by Debian's Chromium through playwright-core. See README.md here.
//
//   node scripts/vscode/build-it.mjs && node test/integration/runCodeServer.mjs [--keep] [--grep TEXT] [--no-ui] [--ui-grep TEXT]
//
// --grep filters the in-host suite's tests by title; --ui-grep runs only the browser checks whose name holds TEXT.
//
// Needs `npm run build` first (dist/extension.js, dist/webview/*). Screenshots go to
// test-results/screenshots/. Exit code 0 only when every check passed.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, createWriteStream, watch } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCodeServer } from '../../scripts/vscode/setup-code-server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const screenshotsDir = join(root, 'test-results', 'screenshots');
const args = process.argv.slice(2);
const KEEP = args.includes('--keep') || process.env.SIMILAR_SOURCES_IT_KEEP === '1';
const NO_UI = args.includes('--no-ui');
// Diagnosis aid: copy all of dist/ even where .vscodeignore leaves files out (is it packaging or code?).
const WHOLE_DIST = args.includes('--whole-dist');
const grepIdx = args.indexOf('--grep');
const GREP = grepIdx >= 0 ? args[grepIdx + 1] : process.env.SIMILAR_SOURCES_IT_GREP;
const uiGrepIdx = args.indexOf('--ui-grep');
const UI_GREP = uiGrepIdx >= 0 ? args[uiGrepIdx + 1] : process.env.SIMILAR_SOURCES_IT_UI_GREP;

// Time limits (ms).
const T = {
  total: Number(process.env.SIMILAR_SOURCES_IT_TIMEOUT_MIN || 40) * 60_000,
  serverReady: 90_000,
  workbench: 120_000,
  suite: Number(process.env.SIMILAR_SOURCES_IT_SUITE_TIMEOUT_MIN || 30) * 60_000,
  control: 60_000,
  analysis: 5 * 60_000,
  element: 30_000,
};

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const log = (m) => console.log(`[it ${elapsed()}] ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** @type {{name: string, state: 'passed'|'failed'|'pending', ms: number, error?: string, source: 'host'|'ui'}[]} */
const results = [];
let codeServer;
let browser;
let page;
const browserLog = [];
let tmp;
let serverLog = '';
let cleaningUp = false;

async function waitUntil(probe, ms, what, every = 250) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (codeServer && codeServer.exitCode !== null) throw new Error(`code-server exited (code ${codeServer.exitCode}) while waiting for ${what}`);
    await sleep(every);
  }
  throw new Error(`timed out after ${Math.round(ms / 1000)} s waiting for ${what}${last ? ` (last error: ${last.message ?? last})` : ''}`);
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

// ---------------------------------------------------------------- profile
/**
 * Copies what `vsce package` would put in the VSIX: every file of the repository that
 * .vscodeignore does not exclude (last matching pattern wins, `!` re-includes). node_modules is
 * left out, as the project's .vscodeignore excludes it: the bundles must be self-sufficient.
 * Without a .vscodeignore, falls back to the manifest's usual files.
 */
function copyAsVsix(productDir) {
  mkdirSync(productDir, { recursive: true });
  const ignoreFile = join(root, '.vscodeignore');
  const skipDirs = new Set(['.git', 'node_modules', 'out', 'test-results', '.similar-sources', '.tmp']);
  let include;
  if (existsSync(ignoreFile)) {
    const picomatch = createRequire(join(root, 'package.json'))('picomatch');
    const rules = readFileSync(ignoreFile, 'utf8')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => {
        const negate = l.startsWith('!');
        const pattern = (negate ? l.slice(1) : l).replace(/^\//, '');
        const m = picomatch(pattern, { dot: true });
        const mDir = picomatch(`${pattern.replace(/\/$/, '')}/**`, { dot: true });
        return { negate, test: (f) => m(f) || mDir(f) };
      });
    include = (rel) => {
      let ignored = false;
      for (const r of rules) if (r.test(rel)) ignored = !r.negate;
      return !ignored;
    };
  } else {
    const always = ['package.json', 'dist/', 'media/', 'l10n/', 'README.md', 'CHANGELOG.md', 'LICENSE'];
    include = (rel) => always.some((a) => rel === a || (a.endsWith('/') && rel.startsWith(a))) || /^package\.nls(\.[\w-]+)?\.json$/.test(rel);
  }
  const copied = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, e.name);
      const rel = relative(root, abs).split('\\').join('/');
      if (e.isDirectory()) {
        if (!skipDirs.has(e.name)) walk(abs);
      } else if (e.isFile() && (include(rel) || (WHOLE_DIST && rel.startsWith('dist/')))) {
        mkdirSync(dirname(join(productDir, rel)), { recursive: true });
        cpSync(abs, join(productDir, rel));
        copied.push(rel);
      }
    }
  };
  walk(root);
  if (!copied.includes('package.json')) throw new Error('.vscodeignore excludes package.json');
  return copied;
}

function summarise(files) {
  const groups = new Map();
  for (const f of files) {
    const top = f.includes('/') ? `${f.split('/')[0]}/` : f;
    groups.set(top, (groups.get(top) ?? 0) + 1);
  }
  return [...groups].map(([k, n]) => (k.endsWith('/') ? `${k}*${n}` : k)).join(', ');
}

function prepareProfile() {
  const distExt = join(root, 'dist', 'extension.js');
  if (!existsSync(distExt)) throw new Error(`${relative(root, distExt)} is missing: run \`npm run build\` first`);
  const hostBuild = join(root, 'out', 'integration', 'integration-tests');
  if (!existsSync(join(hostBuild, 'index.js'))) throw new Error('out/integration/integration-tests is missing: run `node scripts/vscode/build-it.mjs` first');

  tmp = mkdtempSync(join(tmpdir(), 'similar-sources-it-'));
  const extensionsDir = join(tmp, 'extensions');
  const userDataDir = join(tmp, 'user-data');
  const workspace = join(tmp, 'workspace');
  const manifest = readJson(join(root, 'package.json'));

  // The product, unpacked as it would be installed from its VSIX.
  const productDir = join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  const copied = copyAsVsix(productDir);
  log(`product extension ${basename(productDir)}: ${copied.length} files (${summarise(copied)})`);

  const hostDir = join(extensionsDir, 'similar-sources.integration-tests-0.0.1');
  cpSync(hostBuild, hostDir, { recursive: true });

  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': false,
        'workbench.startupEditor': 'none',
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'extensions.ignoreRecommendations': true,
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'update.mode': 'none',
        'chat.commandCenter.enabled': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'git.enabled': false,
        'editor.hover.delay': 300,
        // draft.tex's paragraphs are single long lines: without wrapping, a screenshot after the cursor
        // moved to a paragraph's end shows the editor scrolled right, its text out of sight.
        '[latex]': { 'editor.wordWrap': 'on' },
        'similarSources.autoIndex': true,
        // The default 'auto' offers the local model's download once (a toast the UI checks need not meet).
        'similarSources.provider': 'embedded',
      },
      null,
      2,
    ),
  );

  // A copy of the bundled example workspace, without any index a previous demo left in it.
  cpSync(join(root, 'examples'), workspace, {
    recursive: true,
    filter: (src) => !src.split(/[\\/]/).includes('.similar-sources'),
  });
  // A hostile source and the draft that finds it (HTML, links, bidi overrides, a 5,000-character word).
  const hostile = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'support', 'hostileLibrary.ts'), workspace], {
    cwd: root,
    encoding: 'utf8',
  });
  if (hostile.status !== 0) throw new Error(`could not write the hostile fixtures: ${hostile.stderr}`);
  // A generated local embedding model (random weights, the real vocabulary): the suite switches to it
  // to watch the background embedding (no model can be downloaded here).
  // Of the real shape (12 × 384, int8): embedding the example takes seconds, long enough to watch.
  const model = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'scripts', 'make-test-model.ts'), join(tmp, 'local-model'), '--layers', '12', '--hidden', '384', '--quantized'],
    { cwd: root, encoding: 'utf8' },
  );
  if (model.status !== 0) throw new Error(`could not generate the test model: ${model.stderr}`);
  // A generated reranker (a cross-encoder's head, random weights): the suite watches the cards reordered in the background.
  const reranker = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'scripts', 'make-test-model.ts'), join(tmp, 'local-reranker'), '--layers', '2', '--hidden', '64', '--classifier'],
    { cwd: root, encoding: 'utf8' },
  );
  if (reranker.status !== 0) throw new Error(`could not generate the test reranker: ${reranker.stderr}`);
  labServer = publishToLabServer(workspace);
  mkdirSync(join(tmp, 'control'), { recursive: true });
  mkdirSync(join(tmp, 'xdg-config'), { recursive: true });
  mkdirSync(join(tmp, 'xdg-data'), { recursive: true });
  return { extensionsDir, userDataDir, workspace, manifest };
}

/** The lab's library server the suite reads from (issue 37): its URL without the password, the schema, the password. */
let labServer;

/**
 * Starts the PostgreSQL + pgvector dev server (scripts/server/dev-server.mjs; idempotent: the server
 * suite has usually started it) and publishes a copy of the test workspace to it, as a lab's member
 * would find it: the suite then reads the library from the server and compares the cards. The copy
 * is indexed, not the workspace, whose first indexing the suite watches.
 */
function publishToLabServer(workspace) {
  const dev = spawnSync(process.execPath, [join(root, 'scripts', 'server', 'dev-server.mjs'), '--json'], { cwd: root, encoding: 'utf8', timeout: 15 * 60_000 });
  if (dev.status !== 0) throw new Error(`could not start the PostgreSQL dev server (npm run server:dev): ${dev.stderr.slice(-2000)}`);
  const url = new URL(JSON.parse(dev.stdout.trim().split('\n').pop()).url);
  const password = decodeURIComponent(url.password);
  url.password = '';
  const publisher = join(tmp, 'publisher');
  cpSync(workspace, publisher, { recursive: true });
  const schema = 'it_vscode';
  const pub = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'index', '--workspace', publisher, '--server', url.toString(), '--schema', schema], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PGPASSWORD: password },
    timeout: 10 * 60_000,
  });
  if (pub.status !== 0) throw new Error(`could not publish the test library to the dev server: ${pub.stderr.slice(-2000)}`);
  log(`lab server: the workspace's library published to ${url.host}, schema ${schema}`);
  return { url: url.toString(), schema, password };
}

// ---------------------------------------------------------------- code-server
async function startCodeServer(entry, profile) {
  const port = await freePort();
  const resultsFile = join(tmp, 'results.json');
  const itLog = join(tmp, 'it.log');
  const env = {
    ...process.env,
    SIMILAR_SOURCES_IT_RESULTS: resultsFile,
    SIMILAR_SOURCES_IT_LOG: itLog,
    SIMILAR_SOURCES_IT_CONTROL: join(tmp, 'control'),
    // The CLI of this checkout: the in-host suite compares what it indexes with what the extension indexes.
    SIMILAR_SOURCES_IT_CLI: join(root, 'dist', 'cli.js'),
    // A generated local model's folder: the in-host suite watches the background embedding with it.
    SIMILAR_SOURCES_IT_MODEL: join(tmp, 'local-model'),
    SIMILAR_SOURCES_IT_RERANKER: join(tmp, 'local-reranker'),
    // The lab's library server: the URL names no password, the extension host gets it as a member's CLI would.
    SIMILAR_SOURCES_IT_SERVER: labServer.url,
    SIMILAR_SOURCES_IT_SERVER_SCHEMA: labServer.schema,
    PGPASSWORD: labServer.password,
    // code-server writes its config and state under XDG dirs: keep them out of $HOME.
    XDG_CONFIG_HOME: join(tmp, 'xdg-config'),
    XDG_DATA_HOME: join(tmp, 'xdg-data'),
    VSCODE_PROXY_URI: '',
  };
  if (GREP) env.SIMILAR_SOURCES_IT_GREP = GREP;
  else delete env.SIMILAR_SOURCES_IT_GREP;
  const cmd = [
    entry,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--config',
    join(tmp, 'code-server.yaml'),
    '--extensions-dir',
    profile.extensionsDir,
    '--user-data-dir',
    profile.userDataDir,
    profile.workspace,
  ];
  writeFileSync(join(tmp, 'code-server.yaml'), 'auth: none\ncert: false\n');
  log(`starting code-server on 127.0.0.1:${port}`);
  const out = createWriteStream(join(tmp, 'code-server.log'));
  codeServer = spawn(process.execPath, cmd, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const collect = (chunk) => {
    out.write(chunk);
    serverLog = (serverLog + chunk.toString()).slice(-200_000);
  };
  codeServer.stdout.on('data', collect);
  codeServer.stderr.on('data', collect);
  await waitUntil(
    async () => {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      return r.ok;
    },
    T.serverReady,
    'code-server to answer /healthz',
    500,
  );
  log('code-server is up');
  return { port, resultsFile, itLog };
}

// ---------------------------------------------------------------- browser helpers
async function loadPlaywright(mainFile) {
  const req = createRequire(mainFile);
  return req(mainFile);
}

async function screenshot(name) {
  mkdirSync(screenshotsDir, { recursive: true });
  const file = join(screenshotsDir, name);
  await page.screenshot({ path: file, timeout: 15_000 });
  log(`screenshot ${relative(root, file)}`);
  return file;
}

/** The first row of the suggest widget, once it shows, and how many rows are on screen. */
async function firstSuggestion(trigger = '@') {
  const rows = page.locator('.suggest-widget.visible .monaco-list-row');
  try {
    await rows.first().waitFor({ state: 'visible', timeout: 15_000 });
  } catch {
    // The suggest widget opens on the trigger character as a user types it.
    await page.keyboard.press('Backspace');
    await page.keyboard.type(trigger);
    await rows.first().waitFor({ state: 'visible', timeout: 15_000 });
  }
  return { first: (await rows.first().innerText()).trim(), rows: await rows.count() };
}

async function dismissOverlays() {
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press('Escape').catch(() => undefined);
    await sleep(150);
  }
}

/** Takes the keyboard focus out of any webview iframe, so workbench keybindings (F1) work. */
async function focusWorkbench() {
  await page.evaluate(() => {
    const active = document.activeElement;
    if (active && active.tagName === 'IFRAME') active.blur();
    window.focus();
  });
}

/** The element that has the keyboard, as `tag.class.class` ("textarea.inputarea…" in a text editor, "iframe.webview…" in a webview). */
async function focusedElement() {
  return page
    .evaluate(() => {
      const a = document.activeElement;
      return a ? `${a.tagName.toLowerCase()}.${String(a.className).split(' ').join('.')}` : 'none';
    })
    .catch((e) => `unknown (${String(e)})`);
}

/** What the editor area shows, for a failure's message: each group (active or not, size, active tab, text or webview) and the focus. */
async function describeEditors() {
  const state = await page
    .evaluate(() =>
      [...document.querySelectorAll('.editor-group-container')].map((g) => {
        const r = g.getBoundingClientRect();
        const tab = g.querySelector('.tab.active');
        return {
          active: g.classList.contains('active'),
          size: `${Math.round(r.width)}x${Math.round(r.height)}`,
          tab: tab ? tab.textContent.trim() : null,
          text: g.querySelectorAll('.monaco-editor .view-line').length,
          webview: g.querySelector('.webview') !== null,
        };
      }),
    )
    .catch((e) => ({ error: String(e) }));
  return `editor groups: ${JSON.stringify(state)}; focus: ${await focusedElement()}`;
}

/**
 * Gives the keyboard to the text editor that shows `name`, as a user would: a click on its tab, then
 * in its text. The in-host suite can leave a webview (the panel, the PDF view) as the active editor,
 * which hides a draft's commands from the palette (when: editorLangId …).
 */
async function focusEditorOf(name) {
  const tab = page.locator('.tabs-container .tab', { hasText: name }).first();
  await tab.waitFor({ state: 'visible', timeout: T.element });
  await tab.click({ timeout: 5_000 }).catch((err) => log(`  (the tab of ${name} could not be clicked: ${String(err.message).split('\n')[0]})`));
  const group = page.locator('.editor-group-container', { has: page.locator('.tab.active', { hasText: name }) }).first();
  const line = group.locator('.monaco-editor .view-line').first();
  try {
    await line.waitFor({ state: 'visible', timeout: T.element });
    // A raw click in the line numbers' margin, near the top: a locator's click on a line waits for it
    // to be the topmost element there (a sticky-scroll row or a widget may cover it), and a click in
    // the text could land on a CodeLens and run it.
    const box = await group.locator('.monaco-editor .margin').first().boundingBox();
    if (!box) throw new Error('the editor has no margin on screen');
    await page.mouse.click(box.x + box.width / 2, box.y + Math.min(60, box.height / 2));
    await page.locator('.editor-group-container.active .tab.active', { hasText: name }).first().waitFor({ state: 'visible', timeout: 5_000 });
  } catch (err) {
    throw new Error(`${name}'s text could not be given the keyboard: ${String(err.message).split('\n')[0]}; ${await describeEditors()}`);
  }
}

/** Opens the command palette: F1, or a click on the title bar's command center when F1 is swallowed. */
async function openPalette(text) {
  await dismissOverlays();
  await focusWorkbench();
  const input = page.locator('.quick-input-widget input');
  await page.keyboard.press('F1');
  const shown = (ms) =>
    input.waitFor({ state: 'visible', timeout: ms }).then(
      () => true,
      () => false,
    );
  if (!(await shown(3_000))) {
    // The keyboard is still held by a webview (the panel's: nested frames that blur() does not
    // reach, seen after the in-host suite): a plain mouse click on the explorer's empty space gives
    // it back to the workbench (a raw click: an overlay may cover the element a locator would wait for).
    const box = await page
      .locator('.part.sidebar')
      .first()
      .boundingBox()
      .catch(() => null);
    log('  (F1 did not open the palette: the keyboard is given back to the workbench by a click)');
    if (box) await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.press('F1');
    if (!(await shown(3_000))) {
      await page.keyboard.press('Control+Shift+P');
      if (!(await shown(3_000))) {
        await page.locator('.command-center .search:visible, .command-center-center:visible').first().click({ timeout: 5_000 });
        await input.waitFor({ state: 'visible', timeout: 5_000 });
      }
    }
  }
  await input.fill(`>${text}`);
  return input;
}

async function runPaletteCommand(label) {
  // A window that has just opened registers its extensions' commands late on a loaded machine:
  // the palette is asked again (it lists the commands known when it opened) until T.control.
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  const until = Date.now() + T.control;
  for (;;) {
    await openPalette(label);
    try {
      await row.waitFor({ state: 'visible', timeout: 10_000 });
      break;
    } catch (err) {
      if (Date.now() > until) throw err;
      await page.keyboard.press('Escape');
      await sleep(1000);
    }
  }
  await sleep(200); // let the list settle on the filtered entry
  await row.click({ timeout: 5_000 }).catch(async (err) => {
    // The row is there but a click does not reach it (CI: "locator.click: Timeout"): it is the first,
    // highlighted entry of the filtered list, which Enter runs.
    log(`  (the palette's row could not be clicked: ${String(err.message).split('\n')[0]}; Enter runs it)`);
    await page.keyboard.press('Enter');
  });
  const widget = page.locator('.quick-input-widget');
  if (await widget.isVisible().catch(() => false)) {
    await sleep(500);
    if (await widget.isVisible().catch(() => false)) await page.keyboard.press('Enter');
  }
}

/** Text of visible notifications and dialogs: why a command may be waiting for the user. */
async function visiblePrompts() {
  const texts = await page
    .locator('.notification-toast-container:visible, .monaco-dialog-box:visible')
    .allInnerTexts()
    .catch(() => []);
  return texts.map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/** Runs one of the helper extension's commands through the palette and waits for its outcome file. */
async function runControl(id, label, ms = T.control) {
  const file = join(tmp, 'control', `${id}.json`);
  rmSync(file, { force: true });
  await runPaletteCommand(label);
  let outcome;
  try {
    outcome = await waitUntil(() => existsSync(file) && readJson(file), ms, `the command "${label}" to finish`, 500);
  } catch (err) {
    const prompts = await visiblePrompts();
    throw new Error(`${err.message}${prompts.length ? `; on screen: ${prompts.map((p) => `"${p}"`).join(' | ')}` : ''}`);
  }
  if (!outcome.ok) throw new Error(`"${label}" failed inside the extension host: ${outcome.error}`);
  return outcome.value;
}

async function framesWith(selector) {
  const found = [];
  for (const f of page.frames()) {
    try {
      if ((await f.locator(selector).count()) > 0) found.push(f);
    } catch {
      /* detached or cross-origin frame mid-navigation */
    }
  }
  return found;
}

async function check(name, fn) {
  if (UI_GREP && !name.includes(UI_GREP)) return;
  const t0 = Date.now();
  log(`ui check: ${name}`);
  try {
    await fn();
    results.push({ name, state: 'passed', ms: Date.now() - t0, source: 'ui' });
    log(`  ✓ ${name}`);
  } catch (err) {
    const message = err && err.stack ? err.stack : String(err);
    results.push({ name, state: 'failed', ms: Date.now() - t0, error: message, source: 'ui' });
    log(`  ✗ ${name}: ${err && err.message ? err.message.split('\n')[0] : err}`);
    const slug = name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60);
    await screenshot(`failure-${slug}.png`).catch(() => undefined);
  }
}

/** The status bar's Similar Sources item text ("Semantic index 43%"), or '' when not shown. */
async function semanticStatus() {
  const item = page.locator('.statusbar-item', { hasText: 'Semantic index' }).first();
  return (await item.isVisible().catch(() => false)) ? (await item.innerText()).trim() : '';
}

// ---------------------------------------------------------------- UI checks
async function uiChecks(manifest, { context, url, workspace }) {
  let analysisOk = false;
  await check('the workbench shows the example workspace with draft.md', async () => {
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: T.element });
    await page.locator('.monaco-list-row', { hasText: 'draft.md' }).first().waitFor({ state: 'visible', timeout: T.element });
  });

  await check('draft.md opens in an editor and Similar Sources is active', async () => {
    const value = await runControl('similarSourcesIt.openDraft', 'Similar Sources IT: Open Draft');
    log(`  the extension host: active editor ${value.activeEditor}; groups ${JSON.stringify(value.groups)}`);
    await focusEditorOf('draft.md');
    if (value.product !== true) throw new Error(`${manifest.publisher}.${manifest.name} is not active after opening draft.md (isActive: ${value.product})`);
  });

  await check('the command palette lists "Find Similar Sources", which analyses the draft and leaves the keyboard in it', async () => {
    // The command is offered for a draft (when: editorLangId …): the keyboard must be in draft.md's text.
    await focusEditorOf('draft.md');
    await openPalette('Find Similar Sources');
    try {
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Find Similar Sources' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    } catch (err) {
      const rows = await page
        .locator('.quick-input-widget .monaco-list-row')
        .allInnerTexts()
        .catch(() => []);
      throw new Error(`${err.message.split('\n')[0]}; the palette lists ${JSON.stringify(rows.slice(0, 6))}; ${await describeEditors()}`);
    }
    // Run it, as a writer does: the panel shows the results beside the draft without taking the
    // keyboard from it (a writer who goes on typing as the analysis ends must not type into the panel).
    await page.keyboard.press('Enter');
    const lenses = page.locator('.editor-group-container.active .codelens-decoration', { hasText: /\b\d+ (strong|related|weak) · / });
    await waitUntil(async () => (await lenses.count()) >= 2, T.analysis, "the draft's CodeLenses after Find Similar Sources");
    await page.locator('.tabs-container .tab', { hasText: 'Similar Sources' }).first().waitFor({ state: 'visible', timeout: T.element });
    await sleep(1500); // the panel's webview has its results and its segment by now
    const focus = await focusedElement();
    if (!/^textarea\..*inputarea/.test(focus))
      throw new Error(`after the analysis the keyboard is in ${focus}, not in the draft's editor; ${await describeEditors()}`);
    await page.locator('.editor-group-container.active .tab.active', { hasText: 'draft.md' }).first().waitFor({ state: 'visible', timeout: 5_000 });
  });

  await check('CodeLenses above the analysed paragraphs after Find Similar Sources', async () => {
    await runControl('similarSourcesIt.prepareDraft', 'Similar Sources IT: Analyse Draft And Show Panel', T.analysis);
    analysisOk = true;
    const lenses = page.locator('.codelens-decoration');
    try {
      // The editor draws lenses after its own debounce, which grows on a loaded machine: twice the usual wait.
      await waitUntil(async () => (await lenses.count()) >= 2, 2 * T.element, 'at least two .codelens-decoration elements');
    } catch (err) {
      const state = await runControl('similarSourcesIt.codeLensState', 'Similar Sources IT: CodeLens State').catch((e) => ({ error: e.message }));
      const zones = await page
        .locator('.monaco-editor .view-zones > div')
        .count()
        .catch(() => -1);
      throw new Error(`${err.message}; extension host: ${JSON.stringify(state)}; editor view zones: ${zones}`);
    }
    const texts = await lenses.allInnerTexts();
    const withSources = texts.filter((t) => /\b\d+ (strong|related|weak) · /.test(t));
    if (withSources.length < 2)
      throw new Error(`fewer than two CodeLenses name a source ("2 strong · Whitfield 2019, p. 214"); on screen: ${JSON.stringify(texts.slice(0, 8))}`);
    log(`  CodeLenses on screen: ${JSON.stringify(texts.slice(0, 4))}`);
  });

  await check('the Similar Sources panel shows source cards', async () => {
    await page.locator('.tabs-container .tab', { hasText: 'Similar Sources' }).first().waitFor({ state: 'visible', timeout: T.element });
    const [frame] = await waitUntil(
      async () => {
        const f = await framesWith('[data-testid="card"]');
        return f.length ? f : undefined;
      },
      T.element,
      'a webview frame with [data-testid="card"]',
      500,
    );
    const cards = frame.locator('[data-testid="card"]');
    const n = await cards.count();
    if (n < 1) throw new Error('no card');
    const first = cards.first();
    const title = (await first.locator('[data-testid="card-title"]').first().innerText()).trim();
    const similarity = (await first.locator('[data-testid="card-similarity"]').first().innerText()).trim();
    const pageText = (await first.locator('[data-testid="card-page"]').first().innerText()).trim();
    const insertButtons = await frame.locator('[data-testid="insert-citation"]').count();
    log(`  ${n} card(s); first: "${title}" · ${similarity} · ${pageText}; ${insertButtons} insert-citation button(s)`);
    if (!title) throw new Error('first card has an empty title');
    if (!/%$/.test(similarity)) throw new Error(`card similarity does not end in %: "${similarity}"`);
    if (!pageText) throw new Error('first card shows no page');
    if (insertButtons < 1) throw new Error('no [data-testid="insert-citation"] button');
    // The draft (with its CodeLenses, when the product shows them) beside the panel.
    await page
      .locator('.codelens-decoration')
      .first()
      .waitFor({ state: 'visible', timeout: 5_000 })
      .catch(() => log('  (no CodeLens on screen for the screenshot)'));
    await sleep(500);
    await screenshot('draft-codelens-panel.png');
  });

  await check('hovering an analysed paragraph previews its sources', async () => {
    if (!analysisOk) throw new Error('needs the analysis of the CodeLens check');
    await dismissOverlays();
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'p.' });
    // Reveal the paragraph in the middle of the editor and ask for its hover (editor.action.showHover)…
    await runControl('similarSourcesIt.showHover', 'Similar Sources IT: Show Hover In Feeding Paragraph');
    try {
      await hover.first().waitFor({ state: 'visible', timeout: 10_000 });
    } catch {
      // …or point at it with the mouse, as a user would.
      log('  keyboard hover showed nothing: pointing at the paragraph with the mouse');
      await dismissOverlays();
      const paragraph = page.locator('.monaco-editor .view-line', { hasText: 'Consider first the great Mediterranean' }).first();
      await paragraph.waitFor({ state: 'visible', timeout: 10_000 });
      const box = await paragraph.boundingBox();
      await page.mouse.move(box.x + 120, box.y + box.height / 2);
      await page.mouse.move(box.x + 140, box.y + box.height / 2);
      await hover.first().waitFor({ state: 'visible', timeout: 10_000 });
    }
    const text = await hover.first().innerText();
    if (!/p\.\s?\S/.test(text)) throw new Error(`hover shows no page: ${text.slice(0, 300)}`);
    await sleep(300);
    await screenshot('hover.png');
    await dismissOverlays();
  });

  await check('typing [@ offers citekeys ranked for the paragraph', async () => {
    if (!analysisOk) throw new Error('needs the analysis of the CodeLens check');
    await dismissOverlays();
    await runControl('similarSourcesIt.typeCitekey', 'Similar Sources IT: Type A Citation In A New Paragraph');
    const { first, rows } = await firstSuggestion();
    log(`  first suggestion: ${JSON.stringify(first.split('\n').join(' · '))}; ${rows} row(s) on screen`);
    if (!/whitfield2019grain/.test(first)) throw new Error(`the first suggestion should be whitfield2019grain: ${first}`);
    // The details (title, authors, best page and passage) beside the list, as a user opens them.
    const details = page.locator('.suggest-details-container .suggest-details, .suggest-widget .details');
    if (
      !(await details
        .first()
        .isVisible()
        .catch(() => false))
    ) {
      await page.keyboard.press('Control+Space');
      await details
        .first()
        .waitFor({ state: 'visible', timeout: 5_000 })
        .catch(() => log('  (suggestion details not shown)'));
    }
    await sleep(500);
    await screenshot('completion.png');
    await page.keyboard.press('Escape');
    await runControl('similarSourcesIt.revertDraft', 'Similar Sources IT: Revert Draft');
  });

  await check('a Quarto draft (draft.qmd): CodeLenses above its prose, then citekeys offered after [@', async () => {
    if (!analysisOk) throw new Error('needs the analysis of the CodeLens check');
    await dismissOverlays();
    const prepared = await runControl('similarSourcesIt.prepareQuarto', 'Similar Sources IT: Analyse The Quarto Draft', T.analysis);
    if (prepared?.languageId !== 'quarto') throw new Error(`draft.qmd opened as ${prepared?.languageId}, not quarto`);
    const lenses = page.locator('.codelens-decoration');
    await waitUntil(
      async () => (await lenses.allInnerTexts()).filter((t) => /\b\d+ (strong|related|weak) · /.test(t)).length >= 2,
      2 * T.element,
      'two CodeLenses naming a source in draft.qmd',
    );
    log(`  draft.qmd: CodeLenses ${JSON.stringify((await lenses.allInnerTexts()).slice(0, 3))}`);
    await sleep(500);
    await screenshot('quarto.png');
    await runControl('similarSourcesIt.typeQuartoCitekey', 'Similar Sources IT: Type A Citation In The Quarto Draft');
    const { first } = await firstSuggestion();
    log(`  draft.qmd: first suggestion ${JSON.stringify(first.split('\n').join(' · '))}`);
    if (!/whitfield2019grain/.test(first)) throw new Error(`the first suggestion should be whitfield2019grain: ${first}`);
    await sleep(500);
    await screenshot('quarto-completion.png');
    await page.keyboard.press('Escape');
    await runControl('similarSourcesIt.revertQuarto', 'Similar Sources IT: Revert The Quarto Draft');
  });

  await check(
    'a LaTeX draft (draft.tex): CodeLenses above its prose, a biblatex citation merged into \\autocites, citekeys offered after \\autocite{',
    async () => {
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: T.workbench });
      await dismissOverlays();
      const prepared = await runControl('similarSourcesIt.prepareLatex', 'Similar Sources IT: Analyse The LaTeX Draft', T.analysis);
      if (prepared?.languageId !== 'latex') throw new Error(`draft.tex opened as ${prepared?.languageId}, not latex`);
      log(`  draft.tex: ${prepared.lenses} CodeLenses from the provider`);
      // The panel's webview takes the focus once it has loaded its cards: back to the draft, as a user would click.
      await waitUntil(async () => (await framesWith('[data-testid="card"]')).length > 0, T.element, 'the panel showing the cards of draft.tex').catch(() =>
        log('  (the panel shows no card yet)'),
      );
      await page.locator('.monaco-editor .view-line', { hasText: 'Consider first the great Mediterranean' }).first().click();
      const lenses = page.locator('.codelens-decoration');
      await waitUntil(
        async () => (await lenses.allInnerTexts()).filter((t) => /\b\d+ (strong|related|weak) · /.test(t)).length >= 2,
        2 * T.element,
        'two CodeLenses naming a source in draft.tex',
      );
      log(`  draft.tex: CodeLenses ${JSON.stringify((await lenses.allInnerTexts()).slice(0, 3))}`);
      await sleep(500);
      await screenshot('latex.png');
      const inserted = await runControl('similarSourcesIt.insertLatexCitation', 'Similar Sources IT: Insert A Citation In The LaTeX Draft');
      log(`  draft.tex: inserted ${JSON.stringify(inserted)}`);
      if (!/^\\autocites\[p\.~214\]\{whitfield2019grain\}\[pp?\.~[^\]]+\]\{[^}]+\}$/.test(inserted?.citation ?? ''))
        throw new Error(`not merged into \\autocites: ${JSON.stringify(inserted)}`);
      if (!inserted.selected || !inserted.citation.includes(`~${inserted.selected}]`))
        throw new Error(`the page is not the selected tab stop: ${JSON.stringify(inserted)}`);
      // The editor shows the merged command with its page selected.
      await page.locator('.monaco-editor .view-line', { hasText: '\\autocites' }).first().waitFor({ state: 'visible', timeout: T.element });
      await sleep(500);
      await screenshot('latex-insert.png');
      await page.keyboard.press('Escape');
      await runControl('similarSourcesIt.typeLatexCitekey', 'Similar Sources IT: Type A Citation In The LaTeX Draft');
      const { first } = await firstSuggestion('{');
      log(`  draft.tex: first suggestion ${JSON.stringify(first.split('\n').join(' · '))}`);
      if (!/whitfield2019grain/.test(first)) throw new Error(`the first suggestion should be whitfield2019grain: ${first}`);
      await sleep(500);
      await screenshot('latex-completion.png');
      await page.keyboard.press('Escape');
      const reverted = await runControl('similarSourcesIt.revertLatex', 'Similar Sources IT: Revert The LaTeX Draft');
      if (!reverted?.restored) throw new Error('draft.tex was not restored');
    },
  );

  await check('Check Citations: the Problems panel lists a quotation cited at the wrong page and a mistyped key', async () => {
    // A draft of the workspace with two wrong citations (the library is indexed by now).
    const name = 'citations-to-check.md';
    writeFileSync(
      join(workspace, name),
      '# Checked\n\nThe system “came close to breaking in the last decade of the sixteenth century” [@whitfield2019grain, p. 214].\n\nSee also [@whitfeld2019grain, p. 214].\n',
    );
    await dismissOverlays();
    await focusWorkbench();
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: T.element });
    await input.fill(name);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: T.element });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: name }).first().waitFor({ state: 'visible', timeout: T.element });
    await runPaletteCommand('Similar Sources: Check Citations');
    await runPaletteCommand('View: Focus Problems');
    const rows = page.locator('.markers-panel .monaco-list-row');
    await waitUntil(
      async () => (await rows.allInnerTexts()).join('\n').includes('p. 216'),
      T.control,
      'the Problems panel to list the wrong page (found on p. 216)',
      500,
    );
    const text = (await rows.allInnerTexts()).join('\n');
    if (!/whitfeld2019grain/.test(text)) throw new Error(`the Problems panel does not list the mistyped key: ${text.slice(0, 500)}`);
    // The in-host suite checked, then deleted, a draft of its own: its problems went with it.
    if (text.includes('check-citations.md')) throw new Error(`the Problems panel still lists a deleted draft: ${text.slice(0, 500)}`);
    await screenshot('check-citations.png');
    log(`  problems: ${JSON.stringify(text.slice(0, 300))}`);
    await dismissOverlays();
    // Leave the workbench as the next checks expect it: the draft in front, no panel, no extra file.
    for (const command of ['View: Close Editor', 'View: Hide Panel'])
      await runPaletteCommand(command).catch((e) => log(`  (could not run ${command}: ${e.message.split('\n')[0]})`));
    rmSync(join(workspace, name), { force: true });
    await runControl('similarSourcesIt.openDraft', 'Similar Sources IT: Open Draft');
  });

  await check('Open PDF shows the PDF viewer at page 2, the passage marked on its text layer', async () => {
    const panelFrames = new Set(await framesWith('[data-testid="card"]'));
    await runControl('similarSourcesIt.openPdf', 'Similar Sources IT: Open Library PDF At Page 2');
    const frame = await waitUntil(
      async () => {
        for (const f of page.frames()) {
          if (panelFrames.has(f) || f === page.mainFrame()) continue;
          try {
            if ((await f.locator('[data-testid="pdf-viewer"], [data-testid="pdf-page"], [data-testid="pdf-error"]').count()) > 0) return f;
          } catch {
            /* frame navigating */
          }
        }
        return undefined;
      },
      T.element,
      'the PDF viewer webview ([data-testid="pdf-viewer"])',
      500,
    );
    await waitUntil(
      async () => {
        const error = frame.locator('[data-testid="pdf-error"]');
        if ((await error.count()) > 0)
          throw Object.assign(new Error(`the PDF viewer shows an error: ${(await error.first().innerText()).trim()}`), { fatal: true });
        const input = frame.locator('[data-testid="pdf-page-input"]');
        const current = (await input.count()) > 0 ? await input.first().inputValue() : null;
        const painted = await frame
          .locator('[data-testid="pdf-page"][data-page-number="2"] canvas')
          .evaluateAll((cs) => cs.some((c) => c.width > 0 && c.height > 0));
        const marked = (await frame.locator('[data-testid="pdf-page"][data-page-number="2"] .textLayer .highlight').allInnerTexts()).join(' ');
        return current === '2' && painted && /^In the kingdom of Sicily, no grain/.test(marked);
      },
      T.element,
      'page 2 to be shown (page input "2", its canvas painted, "In the kingdom of Sicily, no grain…" marked)',
      500,
    ).catch(async (err) => {
      const error = frame.locator('[data-testid="pdf-error"]');
      if ((await error.count().catch(() => 0)) > 0) throw new Error(`the PDF viewer shows an error: ${(await error.first().innerText()).trim()}`);
      throw err;
    });
    await sleep(1500); // let pdf.js paint
    await screenshot('pdf-viewer.png');
  });

  await check('after a window reload the panel comes back with its cards, and the CodeLenses with it (from the cache)', async () => {
    if (!analysisOk) throw new Error('needs the analysis of the CodeLens check');
    await page.reload({ waitUntil: 'domcontentloaded', timeout: T.workbench });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: T.workbench });
    await page.locator('.tabs-container .tab', { hasText: 'Similar Sources' }).first().waitFor({ state: 'visible', timeout: T.element });
    await waitUntil(
      async () => {
        const f = await framesWith('[data-testid="card"]');
        return f.length ? f : undefined;
      },
      T.element,
      'the restored panel to show [data-testid="card"]',
      500,
    );
    // The draft in front (the PDF view may have covered it); no analysis is asked for here.
    await runControl('similarSourcesIt.openDraft', 'Similar Sources IT: Open Draft');
    const lenses = page.locator('.codelens-decoration');
    await waitUntil(async () => (await lenses.count()) >= 2, T.element, 'CodeLenses on the draft after the reload');
    await sleep(500);
    await screenshot('after-reload.png');
    // Served from the cache, not by running the command again: the new extension host's own log says so.
    const hostLog = latestProductLog();
    if (!/restored the results of .*draft\.md from the cache/.test(hostLog))
      throw new Error(`the product's log after the reload does not say the results came from the cache:\n${hostLog.slice(-1500)}`);
    if (/\banalysed \S*draft\.md/.test(hostLog)) throw new Error('the draft was analysed again after the reload instead of being restored from the cache');
  });

  await check('hostile text from a PDF: nothing executes, loads or links, in the panel, the hover or the CodeLens, and it reads as written', async () => {
    await dismissOverlays();
    const { lensTitles } = await runControl('similarSourcesIt.analyzeHostile', 'Similar Sources IT: Analyse The Hostile Draft', T.analysis);
    const lens = lensTitles.find((t) => /\b(strong|related|weak|source)\b/.test(t)) ?? '';
    if (!lens) throw new Error(`no CodeLens on the hostile paragraph: ${JSON.stringify(lensTitles)}`);
    if (/[\u202A-\u202E\u2066-\u2069\u200B]/.test(lens)) throw new Error(`the CodeLens keeps invisible bidi or zero-width characters: ${JSON.stringify(lens)}`);
    if (lens.length > 120) throw new Error(`the CodeLens is ${lens.length} characters long`);
    // The author field holds an <iframe …>: no surname is made of it (the title's own words stand in, as written).
    if (/iframe/.test(lens)) throw new Error(`the CodeLens shows markup as an author: ${lens}`);
    // The panel's DOM: the hostile card is there, its text escaped, nothing loaded or linked.
    const [frame] = await waitUntil(
      async () => {
        const f = await framesWith('[data-testid="card-title"]:has-text("Evil title")');
        return f.length ? f : undefined;
      },
      T.element,
      'the panel to show the hostile card',
      500,
    );
    const dom = await frame.evaluate(() => {
      const root = document.getElementById('root');
      const title = [...document.querySelectorAll('[data-testid="card-title"]')].map((e) => e.textContent ?? '').find((t) => t.includes('Evil title')) ?? '';
      return {
        pwned: document.body.dataset.pwned ?? null,
        active: root ? root.querySelectorAll('img, script, iframe, object, embed, video, audio, link, style').length : -1,
        hrefs: root ? [...root.querySelectorAll('[href], [src]')].map((e) => e.getAttribute('href') ?? e.getAttribute('src')) : [],
        handlers: root ? [...root.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length : -1,
        title,
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      };
    });
    if (dom.pwned) throw new Error(`script from the PDF ran in the panel (pwned=${dom.pwned})`);
    if (dom.active !== 0) throw new Error(`${dom.active} active element(s) (img, script, iframe…) inside the panel's content`);
    if (dom.hrefs.length) throw new Error(`links or sources inside the panel's content: ${JSON.stringify(dom.hrefs.slice(0, 5))}`);
    if (dom.handlers !== 0) throw new Error(`${dom.handlers} element(s) with an on… handler attribute`);
    if (!dom.title.includes('<img src=x onerror=') || !dom.title.includes('https://example.com/a.png'))
      throw new Error(`the hostile title does not read as written: ${dom.title.slice(0, 200)}`);
    if (/[\u202A-\u202E\u2066-\u2069]/.test(dom.title)) throw new Error('the card title keeps a bidi override');
    if (dom.overflow > 2) throw new Error(`the panel scrolls sideways by ${dom.overflow} px (a long word broke the layout)`);
    // The hover's DOM: only our own command links; the URLs of the metadata are text.
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'Evil title' }).first();
    await hover.waitFor({ state: 'visible', timeout: T.element });
    const h = await hover.evaluate((el) => ({
      links: [...el.querySelectorAll('a')].map((a) => a.getAttribute('data-href') ?? a.getAttribute('href') ?? ''),
      images: el.querySelectorAll('img').length,
      text: el.textContent ?? '',
      height: el.getBoundingClientRect().height,
    }));
    const foreign = h.links.filter((l) => !l.startsWith('command:similarSources.'));
    if (foreign.length) throw new Error(`the hover has links that are not ours: ${JSON.stringify(foreign)}`);
    if (h.images) throw new Error(`${h.images} image(s) in the hover`);
    if (!h.text.includes('https://example.com/a.png') || !h.text.includes('onerror'))
      throw new Error(`the hover does not show the metadata as written: ${h.text.slice(0, 300)}`);
    if (/\\(?=[.:/_-])/.test(h.text)) throw new Error(`stray backslashes in the hover: ${h.text.slice(0, 300)}`);
    if (/[\u202A-\u202E]/.test(h.text)) throw new Error('the hover keeps a bidi override');
    await screenshot('hostile.png');
    log(`  lens: ${lens}; hover: ${h.links.length} command link(s), ${Math.round(h.height)} px high`);
    await dismissOverlays();
  });

  await check(
    "the lab's library server out of reach: the status bar says so, and Find Similar Sources analyses with this machine's copy, with a warning",
    async () => {
      await dismissOverlays();
      try {
        const r = await runControl('similarSourcesIt.labServerOutOfReach', 'Similar Sources IT: Read The Lab Server, Then Lose It', T.analysis);
        if (!r.offline || !(r.offline.analysed > 0)) throw new Error(`nothing was analysed with the server out of reach: ${JSON.stringify(r.offline)}`);
        const item = page.locator('.statusbar-item', { hasText: 'Library server unreachable' }).first();
        await item.waitFor({ state: 'visible', timeout: T.element });
        const toast = page.locator('.notification-toast', { hasText: 'is searched meanwhile' }).first();
        await toast.waitFor({ state: 'visible', timeout: T.element });
        const warning = (await toast.innerText()).replace(/\s+/g, ' ');
        if (!/cannot be reached: .+\. This machine's copy of generation \d+ \(published .+\) is searched meanwhile/.test(warning))
          throw new Error(`the warning does not say why, or name this machine's copy: ${warning}`);
        if (/cannot be reached.*cannot be reached/.test(warning)) throw new Error(`the warning says twice that the server cannot be reached: ${warning}`);
        const lenses = await page.locator('.codelens-decoration').count();
        if (!lenses) throw new Error('no CodeLens on the draft analysed with the copy');
        await waitUntil(
          async () => (await framesWith('[data-testid="card-title"]')).length > 0,
          T.element,
          "the panel to show the cards found in this machine's copy",
          500,
        );
        await item.hover();
        await page
          .locator('.monaco-hover:not(.hidden)', { hasText: "this machine's copy of generation" })
          .first()
          .waitFor({ state: 'visible', timeout: T.element });
        await screenshot('server-unreachable.png');
        log(`  ${r.copy}: ${r.offline.analysed} paragraphs analysed out of reach, ${lenses} CodeLens(es); "${warning.slice(0, 160)}…"`);
      } finally {
        await runControl('similarSourcesIt.labServerBack', 'Similar Sources IT: Back To The Local Library').catch((e) =>
          log(`  restoring the local library: ${e.message}`),
        );
        await dismissOverlays();
      }
    },
  );

  await check('two windows on one workspace: while one indexes, the other waits, says which process holds the index, then indexes', async () => {
    await dismissOverlays();
    const first = page;
    const { pid: firstPid } = await runControl('similarSourcesIt.openDraft', 'Similar Sources IT: Open Draft');
    // A second window on the same folder: a second extension host, with the product in it.
    const second = await context.newPage();
    try {
      await second.goto(url, { waitUntil: 'domcontentloaded', timeout: T.workbench });
      await second.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: T.workbench });
      const dir = join(workspace, '.similar-sources');
      let secondPid;
      for (let attempt = 1; attempt <= 3 && !secondPid; attempt++) {
        // An index from an earlier release (other lexical terms): the second window works under the lock
        // for a while, and is stopped (SIGSTOP) the moment it holds the lock: a slow indexing, on demand.
        const manifestFile = join(dir, 'manifest.json');
        writeFileSync(manifestFile, JSON.stringify({ ...readJson(manifestFile), lexical: 'lex-0' }));
        secondPid = await stopTheLockHolder(
          dir,
          async () => {
            page = second;
            try {
              await runPaletteCommand('Similar Sources: Index Library');
            } finally {
              page = first;
            }
          },
          T.element,
        );
        if (secondPid === firstPid) throw new Error('the first window took the lock: the check cannot tell the windows apart');
        if (!secondPid) await waitUntil(() => !existsSync(join(dir, 'index.lock')), T.element, 'the second window to finish its indexing');
      }
      if (!secondPid) throw new Error('the second window was never stopped while it held the index lock (3 tries)');
      const file = join(tmp, 'control', 'similarSourcesIt.indexLibrary.json');
      rmSync(file, { force: true });
      try {
        await runPaletteCommand('Similar Sources IT: Index Library And Report');
        const waitLine = `waiting for another process to finish updating the index (pid ${secondPid} on `;
        await waitUntil(() => productLogs().some((t) => t.includes(waitLine)), T.element, `the first window's log to say "${waitLine}…"`, 250);
        await sleep(1000);
        if (existsSync(file)) throw new Error(`the first window did not wait for the second: ${readFileSync(file, 'utf8')}`);
        // What the user of the first window sees meanwhile: its indexing notification names the holder.
        const prompts = await waitUntil(
          async () => {
            const p = await visiblePrompts();
            return p.some((t) => t.includes(`pid ${secondPid} on `)) && p;
          },
          T.element,
          `the first window's indexing notification to name the process that holds the index (pid ${secondPid})`,
          250,
        ).catch(async (err) => {
          throw new Error(`${err.message}; on screen: ${JSON.stringify(await visiblePrompts())}`);
        });
        log(`  the first window while it waits: ${JSON.stringify(prompts)}`);
        await screenshot('two-windows-waiting.png');
      } finally {
        process.kill(secondPid, 'SIGCONT');
      }
      const outcome = await waitUntil(() => existsSync(file) && readJson(file), T.control, 'the first window to index once the second has finished', 500);
      if (!outcome.ok) throw new Error(`Index Library failed in the first window: ${outcome.error}`);
      const r = outcome.value;
      if (r.pid !== firstPid || r.cancelled) throw new Error(`unexpected report: ${JSON.stringify(r)}`);
      // The second window's commit was complete: nothing to redo, the index ready, no lock left.
      if (r.added || r.updated || r.removed) throw new Error(`the first window found the second's commit incomplete: ${JSON.stringify(r)}`);
      if (existsSync(join(dir, 'index.lock'))) throw new Error('a lock was left behind');
      const status = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'status', '--workspace', workspace, '--json'], { encoding: 'utf8' });
      const st = JSON.parse(status.stdout || '{}');
      if (st.state !== 'ready' || st.sources !== r.sources) throw new Error(`the index after both windows: ${status.stdout}${status.stderr}`);
      if (readJson(join(dir, 'manifest.json')).lexical === 'lex-0') throw new Error('the index was not brought up to date');
      log(`  second window (pid ${secondPid}) held the lock; the first (pid ${firstPid}) waited, then indexed: ${r.sources} sources, ready`);
    } finally {
      page = first;
      await second.close().catch(() => undefined);
    }
  });

  await check(
    'with a local model, the status bar shows "Semantic index N%" while its vectors are computed, and the panel says results are partly lexical',
    async () => {
      await dismissOverlays();
      try {
        // Index Library with the generated 12 × 384 model: passages committed, vectors in the background.
        const indexed = await runControl('similarSourcesIt.indexWithLocalModel', 'Similar Sources IT: Index With The Local Model', T.analysis);
        const status = await waitUntil(async () => (await semanticStatus()) || undefined, T.element, 'the status bar to show "Semantic index"', 200);
        if (!/^Semantic index \d{1,2}%$/.test(status)) throw new Error(`status bar: ${JSON.stringify(status)}`);
        // An analysis now runs on what is there, and says so.
        const analysed = await runControl('similarSourcesIt.prepareDraft', 'Similar Sources IT: Analyse Draft And Show Panel', T.analysis);
        const [frame] = await waitUntil(
          async () => {
            const f = await framesWith('[data-testid="semantic-note"]');
            return f.length ? f : undefined;
          },
          T.element,
          'the panel to say the semantic index is not complete ([data-testid="semantic-note"])',
          500,
        );
        const note = (await frame.locator('[data-testid="semantic-note"]').first().innerText()).trim();
        if (!/^Semantic index \d{1,2}%: \d+ of \d+ passages/.test(note)) throw new Error(`panel note: ${JSON.stringify(note)}`);
        // The panel scrolls to the segment at the cursor: bring the note into view for the screenshot.
        await frame
          .locator('[data-testid="semantic-note"]')
          .first()
          .evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await sleep(300);
        await screenshot('semantic-index.png');
        log(`  ${JSON.stringify(indexed)}; status bar "${status}"; analysis ${JSON.stringify(analysed)}; panel: "${note.slice(0, 80)}…"`);
        // Then the vectors are complete: the item goes back to the library's size.
        await waitUntil(
          async () => !(await semanticStatus()),
          T.analysis,
          'the semantic index to complete (the status bar item to leave "Semantic index")',
          500,
        );
      } finally {
        await runControl('similarSourcesIt.useDefaultProvider', 'Similar Sources IT: Use The Default Provider').catch((e) =>
          log(`  (could not restore the provider: ${e.message})`),
        );
      }
    },
  );
}

/**
 * Runs `start` and stops (SIGSTOP) the process that takes the writer lock of the index in `dir` the
 * moment the lock appears. Resolves with that process's pid, once the lock is seen still naming it;
 * undefined when no process was caught holding it within `ms`.
 */
async function stopTheLockHolder(dir, start, ms) {
  const lockFile = join(dir, 'index.lock');
  const holder = () => {
    try {
      return JSON.parse(readFileSync(lockFile, 'utf8')).pid;
    } catch {
      return undefined;
    }
  };
  let watcher;
  const caught = new Promise((resolve) => {
    watcher = watch(dir, (_event, name) => {
      if (name !== 'index.lock') return;
      const pid = holder();
      if (!pid) return;
      try {
        process.kill(pid, 'SIGSTOP');
      } catch {
        return;
      }
      if (holder() === pid) return resolve(pid);
      process.kill(pid, 'SIGCONT'); // it had released the lock already
    });
  });
  try {
    await start();
    return await Promise.race([caught, sleep(ms).then(() => undefined)]);
  } finally {
    watcher.close();
  }
}

/** The text of the product's output-channel log of every extension host (every window, every load). */
function productLogs() {
  return listFiles(join(tmp, 'user-data', 'logs'))
    .filter((f) => f.endsWith(join('similar-sources.similar-sources', 'Similar Sources.log')))
    .map((f) => readFileSync(f, 'utf8'));
}

/** The product's output-channel log of the newest extension host (one per window load). */
function latestProductLog() {
  const logs = listFiles(join(tmp, 'user-data', 'logs'))
    .filter((f) => f.endsWith(join('similar-sources.similar-sources', 'Similar Sources.log')))
    .map((f) => ({ f, n: Number((/exthost(\d+)/.exec(f) ?? [])[1] ?? 0), t: statSync(f).mtimeMs }))
    .sort((a, b) => b.n - a.n || b.t - a.t);
  return logs.length ? readFileSync(logs[0].f, 'utf8') : '';
}

// ---------------------------------------------------------------- diagnostics
function listFiles(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}

function tail(text, lines) {
  return text.split('\n').slice(-lines).join('\n');
}

function dumpDiagnostics(itLog) {
  console.log('\n---------------- diagnostics ----------------');
  if (itLog && existsSync(itLog)) console.log(`== integration-tests log (${itLog}):\n${tail(readFileSync(itLog, 'utf8'), 60)}`);
  const logs = listFiles(join(tmp, 'user-data', 'logs')).filter((f) => /exthost|similar|Similar/i.test(f));
  for (const f of logs) {
    const text = readFileSync(f, 'utf8').trim();
    if (text) console.log(`== ${relative(tmp, f)}:\n${tail(text, 80)}`);
  }
  console.log(`== browser console (errors and warnings, last 40):\n${browserLog.slice(-40).join('\n')}`);
  console.log(`== code-server output (last lines):\n${tail(serverLog, 40)}`);
  console.log('---------------------------------------------');
}

// ---------------------------------------------------------------- cleanup
async function cleanup() {
  if (cleaningUp) return;
  cleaningUp = true;
  if (browser) await Promise.race([browser.close().catch(() => undefined), sleep(10_000)]);
  if (codeServer && codeServer.exitCode === null) {
    try {
      process.kill(-codeServer.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const deadline = Date.now() + 5_000;
    while (codeServer.exitCode === null && Date.now() < deadline) await sleep(100);
    try {
      process.kill(-codeServer.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    console.error(`[it] ${sig}: stopping code-server and the browser`);
    await cleanup();
    process.exit(130);
  });
}

// ---------------------------------------------------------------- summary
function printSummary(fatal) {
  console.log('\n  Similar Sources integration tests (code-server + Chromium)\n');
  const failures = [];
  let lastSource;
  for (const r of results) {
    if (r.source !== lastSource) {
      console.log(r.source === 'host' ? '  extension host (API)' : '  workbench (UI)');
      lastSource = r.source;
    }
    if (r.state === 'passed') console.log(`    ✓ ${r.name} (${r.ms} ms)`);
    else if (r.state === 'pending') console.log(`    - ${r.name}`);
    else {
      failures.push(r);
      console.log(`    ${failures.length}) ${r.name}`);
    }
  }
  if (fatal) failures.push({ name: 'harness', error: fatal });
  const passed = results.filter((r) => r.state === 'passed').length;
  if (failures.length) {
    console.log('');
    failures.forEach((f, i) => console.log(`  ${i + 1}) ${f.name}:\n     ${String(f.error).split('\n').slice(0, 6).join('\n     ')}\n`));
  }
  console.log(`\n  ${elapsed()} in all\n`);
  console.log(`${passed} passed, ${failures.length} failed`);
  return failures.length;
}

// ---------------------------------------------------------------- main
async function main() {
  const setup = ensureCodeServer();
  const profile = prepareProfile();
  log(`profile in ${tmp}`);
  const { port, resultsFile, itLog } = await startCodeServer(setup.entry, profile);

  const { chromium } = await loadPlaywright(setup.playwrightCore);
  browser = await chromium.launch({
    executablePath: setup.chromium,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  page = await context.newPage();
  // Errors of the workbench itself (the renderer side of VS Code), shown with the diagnostics.
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') browserLog.push(`[${m.type()}] ${m.text()}`.slice(0, 600));
  });
  page.on('pageerror', (e) => browserLog.push(`[pageerror] ${e.message}`.slice(0, 600)));
  page.on('pageerror', (e) => log(`page error: ${e.message.split('\n')[0]}`));
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(profile.workspace)}`;
  log(`opening ${url}`);
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: T.workbench });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: T.workbench });
  log('workbench loaded; the extension host runs the API suite');

  // Stream the suite's progress while waiting for its results.
  let shown = 0;
  const streamLog = () => {
    if (!existsSync(itLog)) return;
    const lines = readFileSync(itLog, 'utf8').split('\n').filter(Boolean);
    for (const l of lines.slice(shown)) console.log(`    [host] ${l.replace(/^\S+ /, '')}`);
    shown = lines.length;
  };
  let suite;
  try {
    suite = await waitUntil(
      () => {
        streamLog();
        return existsSync(resultsFile) && readJson(resultsFile);
      },
      T.suite,
      'the in-host suite to write its results (is the integration-tests extension activated?)',
      1000,
    );
  } finally {
    streamLog();
  }
  for (const t of suite.tests) {
    results.push({
      name: t.fullTitle,
      state: t.state,
      ms: t.durationMs,
      error: t.error ? `${t.error.message}\n${t.error.stack ?? ''}` : undefined,
      source: 'host',
    });
  }
  if (suite.fatal) results.push({ name: 'the in-host suite', state: 'failed', ms: 0, error: suite.fatal, source: 'host' });
  log(`in-host suite (VS Code ${suite.vscodeVersion}): ${suite.passes} passed, ${suite.failures} failed`);

  if (!NO_UI) await uiChecks(profile.manifest, { context, url, workspace: profile.workspace });
}

let fatal;
const hardStop = setTimeout(async () => {
  console.error(`[it] overall time limit of ${T.total / 60_000} min reached`);
  results.push({ name: 'overall time limit', state: 'failed', ms: T.total, error: `the run took longer than ${T.total / 60_000} min`, source: 'ui' });
  if (page) await screenshot('failure-timeout.png').catch(() => undefined);
  if (tmp) dumpDiagnostics(join(tmp, 'it.log'));
  await cleanup();
  printSummary();
  process.exit(1);
}, T.total);
hardStop.unref();

try {
  await main();
} catch (err) {
  fatal = err && err.stack ? err.stack : String(err);
  console.error(`[it] harness error: ${fatal}`);
  if (page) await screenshot('failure-harness.png').catch(() => undefined);
}
await cleanup();
clearTimeout(hardStop);
const anyFailure = Boolean(fatal) || results.some((r) => r.state === 'failed') || results.length === 0;
if (anyFailure && tmp) dumpDiagnostics(join(tmp, 'it.log'));
else if (tmp && !KEEP) rmSync(tmp, { recursive: true, force: true });
if (tmp && (anyFailure || KEEP)) console.log(`[it] profile kept: ${tmp}`);
// The summary ends with the line "N passed, N failed".
const failed = printSummary(fatal);
process.exit(failed || anyFailure ? 1 : 0);
