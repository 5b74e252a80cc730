// End-to-end test in a real VS Code (code-server 4.100.3, driven by headless Chromium):
// installs the freshly packaged .vsix, opens a workspace holding a solution, makes it wrong and
// saves, and asserts the kata diagnostic in the Problems panel, the lens over the entry point,
// the status bar result and the Testing view's expected/actual, the inline values (inlay hints)
// beside the code and their hover; then fixes the buffer and runs it from the Testing view. Writes
// e2e/out/screenshot.png (the failing state) and e2e/out/inline-values.png (the inline values),
// ignored by git, so a run leaves the tree clean: copy them over docs/images/vscode-failing-case.png
// and docs/images/inline-values.png to refresh those of README.md and docs/EDITORS.md.
//
// One command: `npm run e2e` (after `npm ci`). Needs Debian's chromium, ripgrep, libkrb5-dev
// and pkg-config; installs code-server into .e2e-cache/ the first time (about a minute).
// KATA_PYTHON: the interpreter with infrakata installed (default: <repo>/.venv/bin/python).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const CODE_SERVER_VERSION = '4.100.3';
// The @vscode/ripgrep release code-server 4.100.3 depends on, and the asset its postinstall fetches.
const RIPGREP_CACHE = 'vscode-ripgrep-cache-1.15.11';
const RIPGREP_ASSET = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const TIMEOUT_MS = 120_000;

const extensionDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(extensionDir, '..');
const cache = join(extensionDir, '.e2e-cache');
const runDir = join(extensionDir, 'e2e', '.run');
const screenshot = join(extensionDir, 'e2e', 'out', 'screenshot.png');
const inlineValuesShot = join(extensionDir, 'e2e', 'out', 'inline-values.png');
const python = process.env.KATA_PYTHON ?? join(repo, '.venv', 'bin', 'python');
const noInfrakata = join(runDir, 'python-without-infrakata');

const started = Date.now();
const log = (message) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

function fail(message) {
  console.error(`e2e: ${message}`);
  process.exit(1);
}

function requireTools() {
  const missing = [];
  if (!existsSync(CHROMIUM)) missing.push('chromium');
  if (!existsSync('/usr/bin/rg')) missing.push('ripgrep');
  try {
    execFileSync('pkg-config', ['--exists', 'krb5-gssapi']);
  } catch {
    missing.push('libkrb5-dev', 'pkg-config');
  }
  if (missing.length > 0) {
    fail(`missing Debian packages; install them with: apt-get install -y ${missing.join(' ')}`);
  }
  if (!existsSync(python)) {
    fail(`no Python at ${python}; create the repository's .venv or set KATA_PYTHON`);
  }
}

/** code-server from npm, into .e2e-cache/, its ripgrep fed from Debian's `rg` (no download). */
function codeServer() {
  const prefix = join(cache, `code-server-${CODE_SERVER_VERSION}`);
  const bin = join(prefix, 'node_modules', '.bin', 'code-server');
  if (existsSync(bin)) {
    return bin;
  }
  log(`installing code-server ${CODE_SERVER_VERSION} into ${prefix}`);
  const tmp = join(cache, 'tmp');
  mkdirSync(join(tmp, RIPGREP_CACHE), { recursive: true });
  execFileSync('tar', ['-czf', join(tmp, RIPGREP_CACHE, RIPGREP_ASSET), '-C', '/usr/bin', 'rg']);
  mkdirSync(prefix, { recursive: true });
  writeFileSync(join(prefix, 'package.json'), '{"private": true}\n');
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: prefix,
    stdio: 'inherit',
    env: {
      ...process.env,
      TMPDIR: tmp,
      npm_config_yes: 'true',
      // code-server's postinstall builds VS Code's native modules, refuses root without
      // unsafe-perm, and runs nested `npm install`s whose dependencies' scripts must run too.
      npm_config_unsafe_perm: 'true',
      npm_config_dangerously_allow_all_scripts: 'true',
    },
  });
  return bin;
}

function packageExtension() {
  log('packaging the extension');
  execFileSync('npm', ['run', 'package'], { cwd: extensionDir, stdio: ['ignore', 'ignore', 'inherit'] });
  return join(extensionDir, 'infrakata.vsix');
}

/**
 * A workspace with a right solution, which the test turns wrong before saving, and at first a
 * Python without infrakata (the real one with its site-packages hidden), which the test then
 * corrects.
 */
function makeWorkspace() {
  const workspace = join(runDir, 'workspace');
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(
    join(workspace, 'adam_optimizer_memory_bytes.py'),
    '# kata: adam-optimizer-memory-bytes\n' +
      'def adam_memory_bytes(num_params: int) -> int:\n' +
      '    return num_params * 12',
  );
  writeFileSync(noInfrakata, `#!/bin/sh\nexec ${python} -S "$@"\n`, { mode: 0o755 });
  writeSettings(workspace, { 'infrakata.python': noInfrakata });
  const user = join(runDir, 'user-data', 'User');
  mkdirSync(user, { recursive: true });
  writeFileSync(join(user, 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    'editor.codeLens': true,
    'git.enabled': false,
  }, null, 2));
  return workspace;
}

function writeSettings(workspace, settings) {
  writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
}

function codeServerArgs() {
  return [
    '--user-data-dir', join(runDir, 'user-data'),
    '--extensions-dir', join(runDir, 'extensions'),
  ];
}

/** Starts code-server on a free loopback port; resolves with its URL once it listens. */
function serve(bin, workspace) {
  const child = spawn(bin, [
    ...codeServerArgs(),
    '--bind-addr', '127.0.0.1:0',
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    workspace,
  ], {
    detached: true, // its own process group: the extension host and the kata server go with it
    env: { ...process.env, XDG_CONFIG_HOME: join(runDir, 'xdg-config'), XDG_DATA_HOME: join(runDir, 'xdg-data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise((resolveUrl, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolveUrl(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`code-server exited (${code}):\n${output}`)));
  });
  const exited = new Promise((resolveExit) => child.on('exit', resolveExit));
  // SIGTERM to code-server alone: its extension host goes with it, and the kata server sees
  // its stdin close and shuts down cleanly. The group is killed only if that hangs.
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { url, stop, output: () => output };
}

/** The extension's own log (the `infrakata` output channel) from code-server's log folder. */
function extensionLog() {
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/infrakata\.log$/.test(name)) found.push(path);
    }
  };
  const logs = join(runDir, 'user-data', 'logs');
  if (existsSync(logs)) walk(logs);
  return found.map((path) => `--- ${path}\n${readFileSync(path, 'utf8')}`).join('\n');
}

async function drive(page, url, workspace) {
  await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor();
  log('workbench loaded');

  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill('adam_optimizer_memory_bytes.py');
  await page.locator('.quick-input-list .monaco-list-row').first().waitFor();
  await page.keyboard.press('Enter');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-lines', { hasText: 'adam_memory_bytes' }).waitFor();
  log('solution open');

  // The item's text follows its icon, which renders as an empty span.
  const status = page.locator('.statusbar-item', { hasText: /^\s*kata\b/ });
  await status.locator('.codicon-warning').waitFor();
  const toast = page.locator('.notification-toast', { hasText: 'cannot import infrakata.server' });
  const message = await toast.locator('.notification-list-item-message').innerText();
  if (!message.includes(`${noInfrakata} -m pip install`)) {
    throw new Error(`the error should name the interpreter and the install command: ${message}`);
  }
  log(`without infrakata: ${message}`);
  await toast.locator('.codicon-notifications-clear').click();

  writeSettings(workspace, { 'infrakata.python': python });
  const lens = (text) => editor.locator('.codelens-decoration', { hasText: text });
  await lens(/kata: run \(8\/8 cases passed\)/).waitFor();
  log('restarted with the right Python, graded: accepted');

  // Forget the FP32 master weights (8 bytes per parameter, not 12), and save.
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('8');
  await page.keyboard.press('Control+S');
  log('saved the wrong solution');

  const failing = lens(/kata: run \([0-7]\/8 cases passed\)/);
  await failing.waitFor();
  log(`lens: ${(await failing.innerText()).replace(/\s+/g, ' ')}`);

  await page.keyboard.press('Control+Shift+M');
  const rows = page.locator('.markers-panel .monaco-list-row');
  const kataRow = rows.filter({ hasText: 'kata' }).filter({ hasText: /expected \d+, got \d+/ });
  await kataRow.first().waitFor();
  log(`problems panel: ${(await kataRow.first().innerText()).replace(/\s+/g, ' ')}`);

  await status.filter({ hasText: /kata [0-7]\/8/ }).waitFor();
  log(`status bar: ${await status.innerText()}`);
  mkdirSync(dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot });
  log(`screenshot: ${screenshot}`);

  // The first failing case's values beside the code (inlay hints): the case and its argument at the
  // def, the wrong output beside the expected one on the line that returned it.
  const lines = editor.locator('.view-lines');
  await lines.filter({ hasText: 'out = 56000000000, expected 84000000000' }).waitFor();
  await lines.filter({ hasText: 'num_params = 7000000000' }).waitFor();
  log(`inline values: ${(await lines.innerText()).replace(/\s+/g, ' ')}`);
  // The hover of the returning line holds the whole values, after the diagnostics (a hover asks
  // the server only over the line's text).
  await editor.locator('.view-line', { hasText: 'return num_params' })
    .locator('span[class^="mtk"]', { hasText: 'return' }).first().hover();
  await page.locator('.monaco-hover', { hasText: '(the output)' }).waitFor();
  log('hover: the whole values');
  // The Testing view keeps its failure message (a diff) off the line the inline values show,
  // where VS Code would draw it over them.
  if (await editor.locator('.test-error-content-widget').count() > 0) {
    throw new Error('a Testing message covers the inline values');
  }
  // A clear view for the screenshot: no panel, no notification.
  await page.mouse.move(0, 0);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+J'); // the panel (Problems) toggled off
  await command(page, 'Notifications: Clear All Notifications');
  mkdirSync(dirname(inlineValuesShot), { recursive: true });
  await page.screenshot({ path: inlineValuesShot });
  log(`screenshot: ${inlineValuesShot}`);

  // Fix it without saving, then run it from the Testing view: that runs kata.run on the buffer.
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('12');
  await command(page, 'Test: Run All Tests');
  await lens(/kata: run \(8\/8 cases passed\)/).waitFor();
  await status.filter({ hasText: /kata 8\/8/ }).waitFor();
  log('ran from the Testing view: accepted');

  // Changed settings reach the running server: a new problem folder makes it regrade the
  // open documents, here the buffer made wrong again without saving.
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('8');
  mkdirSync(join(workspace, 'more-problems'));
  writeSettings(workspace, { 'infrakata.python': python, 'infrakata.problemPaths': ['more-problems'] });
  await lens(/kata: run \([0-7]\/8 cases passed\)/).waitFor();
  log('settings change regraded the buffer: wrong again');
}

async function command(page, name) {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill(`>${name}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
}

async function main() {
  requireTools();
  const bin = codeServer();
  const vsix = packageExtension();
  rmSync(runDir, { recursive: true, force: true });
  const workspace = makeWorkspace();
  execFileSync(bin, [...codeServerArgs(), '--install-extension', vsix], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, XDG_CONFIG_HOME: join(runDir, 'xdg-config') },
  });
  log('extension installed');

  const server = serve(bin, workspace);
  const browserProfile = join(runDir, 'chromium');
  let context;
  let ok = false;
  const deadline = setTimeout(() => {
    console.error(`e2e: timed out after ${TIMEOUT_MS / 1000} s`);
    void server.stop().then(() => process.exit(1));
  }, TIMEOUT_MS);
  try {
    const url = await server.url;
    log(`code-server at ${url}`);
    context = await chromium.launchPersistentContext(browserProfile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      viewport: { width: 1400, height: 860 },
    });
    context.setDefaultTimeout(45_000);
    const page = context.pages()[0] ?? (await context.newPage());
    try {
      await drive(page, url, workspace);
      ok = true;
    } catch (err) {
      await page.screenshot({ path: join(runDir, 'failure.png') }).catch(() => undefined);
      console.error(`e2e: ${err instanceof Error ? err.stack : err}`);
      console.error(`failure screenshot: ${join(runDir, 'failure.png')}`);
      console.error(extensionLog());
      console.error(`--- code-server output\n${server.output()}`);
    }
  } finally {
    clearTimeout(deadline);
    await context?.close();
    await server.stop();
  }
  log(ok ? 'passed' : 'failed');
  process.exit(ok ? 0 : 1);
}

await main();
