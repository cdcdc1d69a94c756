/**
 * The end-to-end harness: a real VS Code (code-server) with the packaged extension, in Debian's Chromium
 * driven by playwright-core, optionally against the emulator with `--demo`; the tools come from
 * scripts/install-e2e-tools.sh (into `${TSQ_TOOLS_DIR:-.tools}`). A session ({@link startSession})
 * packages the extension (scripts/package.mjs --no-build) and the runner extension
 * (test/e2e/runner-extension) into a fresh extensions dir, starts the emulator when asked, starts
 * code-server on a free port with a fresh user-data-dir and a copy of test/fixtures/e2e-workspace/ (its
 * environment names TSQ_E2E_SUITE, TSQ_E2E_RESULT, TSQ_E2E_EMULATOR_URL, TSQ_E2E_USER_DATA_DIR), and
 * opens the workbench. Helpers drive the palette, Problems, notifications, trees, suggestions and
 * webviews; a failed step leaves a screenshot in `.test-results/e2e/`. Everything waits on state, never
 * on fixed sleeps, and {@link E2eSession.close} tears everything down.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';

/** The repository root. */
export const ROOT = resolve(__dirname, '..', '..');
/** Where screenshots and logs of failed sessions go (git ignores it). */
export const RESULTS_DIR = join(ROOT, '.test-results', 'e2e');
/** Debian's Chromium (`apt-get install chromium`). */
export const CHROMIUM = process.env.TSQ_CHROMIUM ?? '/usr/bin/chromium';
/** Flags that work for Chromium on these machines (vscode-web-testing.md). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
/**
 * How long a UI element that one action makes appear (the command palette, a list row, a panel) may
 * take, in ms. Generous because CI runs every tier at once on two cores; passing runs never wait it.
 */
export const UI_TIMEOUT_MS = 20_000;
/** In-host suites, by file name (test/e2e/suites/*.js). */
export const SUITES_DIR = join(ROOT, 'test', 'e2e', 'suites');

/** The folder the installer writes to: `${TSQ_TOOLS_DIR:-.tools}`, relative to the repository root. */
export function toolsDir(): string {
  const d = process.env.TSQ_TOOLS_DIR || '.tools';
  return isAbsolute(d) ? d : join(ROOT, d);
}

/** The code-server launcher written by scripts/install-e2e-tools.sh. */
export function codeServerBin(): string {
  return join(toolsDir(), 'bin', 'code-server');
}

/** Lists what the end-to-end tier needs and is missing (tools and built bundles); empty when ready. */
export function missingPrerequisites(): string[] {
  const missing: string[] = [];
  if (!existsSync(codeServerBin())) missing.push(`code-server (${codeServerBin()})`);
  if (!existsSync(CHROMIUM)) missing.push(`chromium (${CHROMIUM})`);
  for (const pkg of ['playwright-core', '@vscode/vsce']) {
    if (!existsSync(join(ROOT, 'node_modules', pkg, 'package.json'))) missing.push(`npm package ${pkg}`);
  }
  if (!process.env.TSQ_E2E_VSIX) {
    for (const f of ['dist/client.js', 'dist/server.js']) if (!existsSync(join(ROOT, f))) missing.push(`${f} (npm run build)`);
  }
  return missing;
}

/**
 * The `skip` option for an end-to-end test: a message naming what is missing, or `false` when all is
 * there. With TSQ_E2E_REQUIRED=1 (CI) missing tools are an error instead: this throws.
 * @param extra more paths that the test needs (e.g. dist/emulator.js)
 */
export function e2eSkip(extra: string[] = []): string | false {
  const missing = [...missingPrerequisites(), ...extra.filter((f) => !existsSync(join(ROOT, f))).map((f) => `${f} (npm run build)`)];
  if (missing.length === 0) return false;
  const message = `end-to-end tools missing: ${missing.join(', ')}; run scripts/install-e2e-tools.sh`;
  if (process.env.TSQ_E2E_REQUIRED === '1') throw new Error(`${message} (TSQ_E2E_REQUIRED=1)`);
  return message;
}

/** One test's outcome in the results file the runner extension writes. */
export interface InHostTestResult { name: string; ok: boolean; durationMs: number; error?: string }
/** The results file the runner extension writes (test/e2e/runner-extension/extension.js). */
export interface SuiteResult { suite: string; startedAt: string; durationMs: number; passed: number; failed: number; tests: InHostTestResult[]; error?: string }

/** Options of {@link startSession}. */
export interface SessionOptions {
  /** Names screenshots and logs, e.g. 'smoke'. */
  name: string;
  /** An in-host suite to run on startup: a file name under test/e2e/suites (e.g. 'smoke.js'). */
  suite?: string;
  /** Start the emulator with --demo (its URL reaches the suite as TSQ_E2E_EMULATOR_URL). */
  emulator?: boolean;
  /**
   * Keep the workspace's `.tsq` files out of it at startup (so that `workspaceContains` cannot
   * activate the extension); they wait in a folder named by TSQ_E2E_DEFERRED_DIR for the in-host
   * suite to copy in, to show activation on opening a `.tsq` file.
   */
  deferTsqFiles?: boolean;
  /** User settings written before start, merged over the harness's quiet defaults. */
  settings?: Record<string, unknown>;
  /** The workspace's own `.vscode/settings.json`, written before start (what a cloned repository brings). */
  workspaceSettings?: Record<string, unknown>;
  /**
   * Keep VS Code's workspace trust on (the harness turns it off): the fresh workspace then opens in
   * Restricted Mode, as a newly cloned repository does, without the startup prompt.
   */
  workspaceTrust?: boolean;
  /** More arguments of the emulator (e.g. `--seed DIR` beside `--demo`). */
  emulatorArgs?: string[];
}

/** A running code-server + Chromium (+ emulator). */
export interface E2eSession {
  page: Page;
  /** The emulator's base URL when started. */
  emulatorUrl?: string;
  /** The workspace folder (a copy of test/fixtures/e2e-workspace). */
  workspace: string;
  userDataDir: string;
  /** How long each start-up phase took, in ms (package, install, emulator, code-server, workbench). */
  timings: Record<string, number>;
  /** code-server's own output (stdout and stderr) so far. */
  codeServerOutput(): string;
  /** Waits for the in-host suite's results file (default 180 000 ms) and returns it. */
  waitForSuite(timeoutMs?: number): Promise<SuiteResult>;
  /** Runs a command through the command palette (F1) by (part of) its title, e.g. 'TSQ: Refresh Catalog'. */
  runCommand(title: string): Promise<void>;
  /** Opens a workspace file through Quick Open and waits for its editor tab. */
  openFile(name: string): Promise<void>;
  /** Opens the Problems panel and returns the text of its rows once `until` accepts them (default: any). */
  problems(until?: (rows: string[]) => boolean, timeoutMs?: number): Promise<string[]>;
  /** Opens the notification center and returns its messages once `until` accepts them (default: any). */
  notifications(until?: (rows: string[]) => boolean, timeoutMs?: number): Promise<string[]>;
  /**
   * Opens the notification center, clicks the button `action` of the newest notification whose text holds
   * `match` (e.g. Run Anyway on "the query was not sent"), then hides the center when it is still shown.
   */
  notificationAction(match: string, action: string, timeoutMs?: number): Promise<void>;
  /** Reveals an activity bar container by title (e.g. 'TSQ') and returns its visible tree rows' labels once `until` accepts them. */
  treeItems(container: string, until?: (rows: string[]) => boolean, timeoutMs?: number): Promise<string[]>;
  /** Expands (or collapses) the visible tree item whose label is exactly `label`. */
  toggleTreeItem(label: string): Promise<void>;
  /**
   * Types `text` on a new line at the end of the active editor and returns the suggest widget's rows
   * (their aria-labels) once `until` accepts them. The widget must open by itself (a trigger
   * character such as `[`, or quick suggestions) unless `options.invoke` asks for Ctrl+Space
   * (`'retry'`: again until the rows are accepted, for right after a window reload).
   */
  suggest(text: string, until?: (rows: string[]) => boolean, options?: { invoke?: boolean | 'retry' }, timeoutMs?: number): Promise<string[]>;
  /** Finds the (nested) frame of a webview that holds `selector`. */
  webviewFrame(selector: string, timeoutMs?: number): Promise<Frame>;
  /** Reloads the workbench (a new extension host) and waits for it. */
  reload(): Promise<void>;
  /** Runs `fn`; on failure saves a screenshot `.test-results/e2e/<name>-<step>.png` and rethrows. */
  step<T>(step: string, fn: () => Promise<T>): Promise<T>;
  /** Saves a screenshot; returns its path. */
  screenshot(label: string): Promise<string>;
  /** Tears down browser, code-server and emulator; keeps logs in .test-results/e2e/<name>/ when a step failed. */
  close(): Promise<void>;
}

/** Environment for child processes: without the test runner's own variables. */
function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes (then throws naming `what`). */
export async function waitUntil<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 60_000, intervalMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      last = await probe();
      if (last) return last as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Runs a command through the command palette (F1) by its title, in the workbench shown by `page`.
 * The palette lists the commands whose `when` clause held when it opened: a command that depends on
 * the editor just opened (Markdown's preview) is missing if the palette opened before the editor's
 * context keys were set, so a palette without the row is closed and opened again.
 * @throws a timeout when the row does not show within UI_TIMEOUT_MS.
 */
export async function runCommandIn(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget input[type="text"], .quick-input-widget input.input').first();
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await waitUntil(async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(`>${title}`);
    return row.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => undefined);
  }, `the command palette to offer ${title}`, UI_TIMEOUT_MS, 200);
  await row.click();
}

/**
 * Opens a workspace file by name through quick open (F1, then the name without '>': Chromium keeps
 * Ctrl+P) and waits for its editor tab.
 */
export async function openFileIn(page: Page, name: string): Promise<void> {
  const input = page.locator('.quick-input-widget input').first();
  // right after start-up the workbench may take the focus back (an editor opening) and close the
  // palette just opened: open it again until the name is typed in
  await waitUntil(async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: 2_000 });
    await input.fill(name, { timeout: 2_000 });
    return true;
  }, 'quick open to take the file name', UI_TIMEOUT_MS, 200);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
  await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  await row.click();
  await page.locator(`.tabs-container .tab[aria-label^="${name}"]`).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
}

/** A pattern matching exactly `text` (regex characters escaped), blanks around it allowed: a locator's whole label. */
export function exactText(text: string): RegExp {
  return new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
}

/**
 * Right-clicks `file` (its exact name) in the explorer and runs the context-menu item containing
 * `item` (contextMenuItem). `beforeClick` runs just before the first click (a benchmark starts its clock
 * there); `rowTimeoutMs` (default 20 s) bounds the wait for the file's row (a large file may take
 * longer to show).
 * @throws a timeout when the row or the item does not show, or the menu does not close within 15 s.
 */
export async function explorerMenu(session: E2eSession, file: string, item: string, opts: { beforeClick?: () => void; rowTimeoutMs?: number } = {}): Promise<void> {
  const p = session.page;
  await p.keyboard.press('Escape');
  await session.runCommand('View: Show Explorer');
  const row = p.locator('.explorer-folders-view .monaco-list-row', { has: p.locator('.label-name', { hasText: exactText(file) }) }).first();
  await row.waitFor({ state: 'visible', timeout: opts.rowTimeoutMs ?? 20_000 });
  await row.click({ button: 'right' });
  await contextMenuItem(p, item, opts.beforeClick);
}

/**
 * Runs the item containing `item` of the context menu open in `page`. A menu ignores a click that comes
 * right after it opened (seen: the menu still open, its item highlighted, 90 s later), so the item is
 * clicked again until the menu closes; a click that counts closes it at once. `beforeClick` runs just
 * before the first click.
 * @throws a timeout when the item does not show within 10 s, or the menu does not close within 15 s.
 */
export async function contextMenuItem(page: Page, item: string, beforeClick?: () => void): Promise<void> {
  const entry = page.locator('.context-view .action-item', { hasText: item }).first();
  await entry.waitFor({ state: 'visible', timeout: 10_000 });
  beforeClick?.();
  await waitUntil(async () => {
    if (!(await entry.isVisible())) return true;
    await entry.click({ timeout: 2000 }).catch(() => undefined);
    return entry.waitFor({ state: 'hidden', timeout: 1000 }).then(() => true, () => false);
  }, `the context menu item ${item} to run`, 15_000, 100);
}

/**
 * Process groups of the services still running (code-server, emulator). They are started detached
 * (their own group, so that stopping one stops its children too), which also means they would outlive
 * this process if it died before close(): on exit or a termination signal they are killed here.
 */
const liveGroups = new Set<number>();
/** Session folders not yet removed by close(); removed on exit as well. */
const liveDirs = new Set<string>();
let exitHandlersInstalled = false;
function killLiveGroups(): void {
  for (const pid of liveGroups) {
    try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  liveGroups.clear();
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  liveDirs.clear();
}
function installExitHandlers(): void {
  if (exitHandlersInstalled) return;
  exitHandlersInstalled = true;
  process.on('exit', killLiveGroups);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killLiveGroups();
      process.kill(process.pid, signal);
    });
  }
}

/** A child process started in its own process group, its output going to a log file. */
interface Service {
  proc: ChildProcess;
  log: string;
  /** Output so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `cmd args` in its own process group, logging stdout and stderr to `log`, and waits until
 * its output matches `ready` (returns the match). Throws with the output's tail when it exits first
 * or `timeoutMs` passes.
 */
async function startService(what: string, cmd: string, args: string[], opts: { log: string; env?: NodeJS.ProcessEnv; ready: RegExp; timeoutMs: number }): Promise<{ service: Service; match: RegExpMatchArray }> {
  installExitHandlers();
  const proc = spawn(cmd, args, { cwd: ROOT, env: opts.env ?? childEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  if (proc.pid) liveGroups.add(proc.pid);
  const file = createWriteStream(opts.log);
  let text = '';
  const onData = (b: Buffer) => {
    text += b.toString();
    if (text.length > 1_000_000) text = text.slice(-500_000);
    file.write(b);
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<void>((r) => proc.once('exit', (code, signal) => {
    exited = { code, signal };
    // The group may still hold children (extension hosts, file watchers): end them with it.
    if (proc.pid) {
      try { process.kill(-proc.pid, 'SIGKILL'); } catch { /* none left */ }
      liveGroups.delete(proc.pid);
    }
    r();
  }));
  let spawnError: Error | undefined;
  proc.once('error', (e) => { spawnError = e; });
  const service: Service = {
    proc,
    log: opts.log,
    output: () => text,
    async stop() {
      if (!exited && proc.pid) {
        try { process.kill(-proc.pid, 'SIGTERM'); } catch { /* already gone */ }
        const timer = setTimeout(() => { try { process.kill(-proc.pid!, 'SIGKILL'); } catch { /* gone */ } }, 5_000);
        await exitPromise;
        clearTimeout(timer);
      }
      await new Promise<void>((r) => file.end(r));
    },
  };
  try {
    const match = await waitUntil(() => {
      if (spawnError) throw spawnError;
      if (exited) throw new Error(`exited (${exited.code ?? exited.signal})`);
      return text.match(opts.ready);
    }, `${what} to print ${opts.ready}`, opts.timeoutMs, 50);
    return { service, match };
  } catch (err) {
    await service.stop();
    throw new Error(`${what} did not start: ${(err as Error).message}\n--- last output (${opts.log}) ---\n${text.slice(-3000)}`, { cause: err });
  }
}

/** Runs a command to completion; throws with its output when it fails. */
function runOrThrow(what: string, cmd: string, args: string[], env?: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { cwd: ROOT, env: env ?? childEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status}`}):\n${out.slice(-3000)}`);
  return out;
}

/** Files below `dir` (recursively), sorted; missing dir gives none. */
function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? listFiles(p) : [p];
  });
}

/**
 * Packages with `pack(out)` unless a .vsix made from the same inputs is in `.test-results/e2e-cache/`
 * (keyed by a SHA-256 of the inputs' paths and contents), so that the sessions of one test run
 * package once. Writes to a temporary name and renames, so parallel test files never read half a file.
 * @returns the .vsix path
 */
function cachedVsix(name: string, inputs: string[], pack: (out: string) => void): string {
  const hash = createHash('sha256');
  for (const f of inputs.filter((x) => existsSync(x))) hash.update(f).update('\0').update(readFileSync(f)).update('\0');
  const cacheDir = join(ROOT, '.test-results', 'e2e-cache');
  const out = join(cacheDir, `${name}-${hash.digest('hex').slice(0, 16)}.vsix`);
  if (existsSync(out)) return out;
  mkdirSync(cacheDir, { recursive: true });
  // Older packages of the same name (an hour or more: no session still installs them) go.
  for (const f of readdirSync(cacheDir).filter((x) => x.startsWith(`${name}-`) && x.endsWith('.vsix'))) {
    const p = join(cacheDir, f);
    if (Date.now() - statSync(p).mtimeMs > 3_600_000) rmSync(p, { force: true });
  }
  const tmp = `${out}.${process.pid}.tmp.vsix`;
  pack(tmp);
  renameSync(tmp, out);
  return out;
}

/**
 * Packages the extension under test (from dist/ as built; cached by content) and the runner
 * extension, and installs both into `extensionsDir` with code-server's --install-extension.
 * TSQ_E2E_VSIX names an already packaged extension to test instead (e.g. a release build).
 */
export function installExtensions(extensionsDir: string, userDataDir: string): void {
  const extensionInputs = [
    ...['package.json', '.vscodeignore', 'README.md', 'CHANGELOG.md', 'LICENSE', 'language-configuration.json'].map((f) => join(ROOT, f)),
    ...listFiles(join(ROOT, 'dist')).filter((f) => !f.endsWith('.map')),
    ...listFiles(join(ROOT, 'syntaxes')),
    ...listFiles(join(ROOT, 'resources')),
  ];
  const vsix = process.env.TSQ_E2E_VSIX
    ? resolve(process.env.TSQ_E2E_VSIX)
    : cachedVsix('tsq', extensionInputs, (out) => {
      runOrThrow('packaging the extension (scripts/package.mjs --no-build)', process.execPath, [join(ROOT, 'scripts', 'package.mjs'), '--no-build', '--out', out]);
    });
  const runnerDir = join(ROOT, 'test', 'e2e', 'runner-extension');
  const runnerVsix = cachedVsix('tsq-e2e-runner', listFiles(runnerDir), (out) => {
    const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], { cwd: runnerDir, env: childEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status !== 0) throw new Error(`packaging the runner extension failed:\n${r.stdout}${r.stderr}`);
  });
  runOrThrow('installing the extensions into code-server', codeServerBin(), ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', vsix, '--install-extension', runnerVsix]);
}

/** Starts `node dist/emulator.js --demo --port 0 --data-dir <dataDir> [extraArgs…]`; resolves with its URL. */
export async function startEmulator(dataDir: string, log: string, extraArgs: string[] = []): Promise<{ url: string; stop(): Promise<void> }> {
  const { service, match } = await startService('the emulator', process.execPath, [join(ROOT, 'dist', 'emulator.js'), '--demo', '--port', '0', '--data-dir', dataDir, ...extraArgs], {
    log, ready: /listening on (http:\/\/[^\s,;]+)/, timeoutMs: 180_000,
  });
  return { url: match[1].replace(/\/$/, ''), stop: () => service.stop() };
}

/** Quiet user settings: no welcome page, telemetry, update checks or workspace trust prompts. */
const DEFAULT_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'editor.quickSuggestionsDelay': 0,
  'window.restoreWindows': 'none',
};

/**
 * Writes VS Code user settings into `<userDataDir>/User/settings.json`: the quiet defaults above
 * with `settings` merged over them.
 */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown> = {}): void {
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, 2));
}

/** Copies test/fixtures/e2e-workspace/ to `target` (a fresh workspace folder for one session). */
export function copyWorkspace(target: string): void {
  cpSync(join(ROOT, 'test', 'fixtures', 'e2e-workspace'), target, { recursive: true });
}

/**
 * Starts a session (see the file's comment). On any failure everything started so far is torn
 * down and the error says which step failed, with the tail of that step's output.
 */
export async function startSession(options: SessionOptions): Promise<E2eSession> {
  const dir = mkdtempSync(join(tmpdir(), `tsq-e2e-${options.name}-`));
  installExitHandlers();
  liveDirs.add(dir);
  const workspace = join(dir, 'workspace');
  const userDataDir = join(dir, 'user-data');
  const extensionsDir = join(dir, 'extensions');
  const resultFile = join(dir, 'suite-result.json');
  copyWorkspace(workspace);
  const deferredDir = join(dir, 'deferred');
  if (options.deferTsqFiles) {
    mkdirSync(deferredDir);
    for (const f of readdirSync(workspace).filter((n) => n.endsWith('.tsq'))) renameSync(join(workspace, f), join(deferredDir, f));
  }
  if (options.workspaceSettings) {
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify(options.workspaceSettings, null, 2));
  }
  const trust = options.workspaceTrust ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.banner': 'never' } : {};
  writeUserSettings(userDataDir, { ...trust, ...options.settings });

  let failed = false;
  let emulator: { url: string; stop(): Promise<void> } | undefined;
  let codeServer: Service | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const shot = async (label: string): Promise<string> => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `${options.name}-${label.replace(/[^\w.-]+/g, '_').slice(0, 80)}.png`);
    if (page) await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    return file;
  };
  const close = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    await codeServer?.stop().catch(() => undefined);
    await emulator?.stop().catch(() => undefined);
    if (failed) {
      const keep = join(RESULTS_DIR, options.name);
      mkdirSync(keep, { recursive: true });
      for (const f of ['code-server.log', 'emulator.log', 'browser-console.log', 'suite-result.json', 'suite-result.json.partial']) {
        if (existsSync(join(dir, f))) cpSync(join(dir, f), join(keep, f));
      }
      if (existsSync(join(userDataDir, 'logs'))) cpSync(join(userDataDir, 'logs'), join(keep, 'vscode-logs'), { recursive: true });
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    liveDirs.delete(dir);
  };

  const timings: Record<string, number> = {};
  let mark = Date.now();
  const lap = (phase: string): void => {
    const now = Date.now();
    timings[phase] = now - mark;
    mark = now;
  };
  try {
    installExtensions(extensionsDir, userDataDir);
    lap('package+install');
    if (options.emulator) {
      emulator = await startEmulator(join(dir, 'emulator-data'), join(dir, 'emulator.log'), options.emulatorArgs);
      lap('emulator');
    }
    const port = await freePort();
    const env = childEnv({
      TSQ_E2E_SUITE: options.suite ? join(SUITES_DIR, options.suite) : undefined,
      TSQ_E2E_RESULT: options.suite ? resultFile : undefined,
      TSQ_E2E_EMULATOR_URL: emulator?.url,
      TSQ_E2E_USER_DATA_DIR: userDataDir,
      TSQ_E2E_DEFERRED_DIR: options.deferTsqFiles ? deferredDir : undefined,
    });
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    ({ service: codeServer } = await startService('code-server', codeServerBin(), [
      '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override', '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, workspace,
    ], { log: join(dir, 'code-server.log'), env, ready: /HTTP server listening on/, timeoutMs: 60_000 }));
    lap('code-server');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    // The workbench's console (errors of the webviews included) is kept with the logs of a failed session.
    const consoleLog = createWriteStream(join(dir, 'browser-console.log'));
    page.on('console', (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => consoleLog.write(`[pageerror] ${e.stack ?? e.message}\n`));
    page.on('close', () => consoleLog.end());
    const workbenchUrl = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
    await page.goto(workbenchUrl);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    lap('workbench');
  } catch (err) {
    failed = true;
    await shot('start');
    await close();
    throw err;
  }

  const p = page;
  const cs = codeServer!;

  const runCommand = (title: string): Promise<void> => runCommandIn(p, title);

  const rowsText = async (selector: string): Promise<string[]> =>
    (await p.locator(selector).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);

  const session: E2eSession = {
    page: p,
    emulatorUrl: emulator?.url,
    workspace,
    userDataDir,
    timings,
    codeServerOutput: () => cs.output(),
    async waitForSuite(timeoutMs = 180_000) {
      const text = await waitUntil(() => {
        if (cs.proc.exitCode !== null) throw new Error(`code-server exited (${cs.proc.exitCode}); see ${cs.log}`);
        return existsSync(resultFile) ? readFileSync(resultFile, 'utf8') : undefined;
      }, `the in-host suite ${options.suite} to write ${resultFile}`, timeoutMs, 200).catch((err: Error) => {
        const partial = existsSync(`${resultFile}.partial`) ? readFileSync(`${resultFile}.partial`, 'utf8') : 'no test finished';
        throw new Error(`${err.message}\npartial results: ${partial}`);
      });
      return JSON.parse(text) as SuiteResult;
    },
    runCommand,
    openFile: (name) => openFileIn(p, name),
    async problems(until = (r) => r.length > 0, timeoutMs = 60_000) {
      await runCommand('Focus on Problems View');
      await p.locator('.markers-panel').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      return waitUntil(async () => {
        const rows = await rowsText('.markers-panel .monaco-list-row');
        return until(rows) ? rows : undefined;
      }, 'the Problems panel rows', timeoutMs);
    },
    async notifications(until = (r) => r.length > 0, timeoutMs = 60_000) {
      await runCommand('Notifications: Show Notifications');
      await p.locator('.notifications-center').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      return waitUntil(async () => {
        const rows = await rowsText('.notifications-center .notification-list-item');
        return until(rows) ? rows : undefined;
      }, 'notification center messages', timeoutMs);
    },
    async notificationAction(match, action, timeoutMs = 60_000) {
      await runCommand('Notifications: Show Notifications');
      await p.locator('.notifications-center').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const button = p.locator('.notifications-center .notification-list-item', { hasText: match }).last().locator('.monaco-button', { hasText: action }).first();
      await button.waitFor({ state: 'visible', timeout: timeoutMs });
      await button.click();
      // the center closes by itself when that was its only notification; else Escape (with the focus in it) closes it
      await p.locator('.notifications-center.visible').first().waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => p.keyboard.press('Escape'));
    },
    async treeItems(container, until = (r) => r.length > 0, timeoutMs = 60_000) {
      const item = p.locator(`.activitybar .action-item a[aria-label^="${container}"], .activitybar .action-item[aria-label^="${container}"]`).first();
      await item.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const active = p.locator(`.activitybar .action-item.checked a[aria-label^="${container}"], .activitybar .action-item.checked[aria-label^="${container}"]`);
      // Clicking the container's icon toggles the side bar, and a window (re)load restores the side bar
      // on its own: so the state is checked on every poll (container active and side bar shown), and the
      // icon clicked only when it is not, at most once every 2 s so a restore under way is not undone.
      let clickedAt = 0;
      return waitUntil(async () => {
        const shown = (await active.count()) > 0 && (await p.locator('.part.sidebar').first().isVisible());
        if (!shown) {
          if (Date.now() - clickedAt > 2_000) {
            clickedAt = Date.now();
            await item.click();
          }
          return undefined;
        }
        const rows = await rowsText('.sidebar .monaco-list-row[role="treeitem"] .monaco-icon-label .label-name');
        return until(rows) ? rows : undefined;
      }, `the ${container} tree rows`, timeoutMs);
    },
    async toggleTreeItem(label) {
      const exact = exactText(label);
      const row = p.locator('.sidebar .monaco-list-row[role="treeitem"]', { has: p.locator('.monaco-icon-label .label-name', { hasText: exact }) }).first();
      await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await row.click();
    },
    async suggest(text, until = (r) => r.length > 0, options = {}, timeoutMs = 60_000) {
      const editor = p.locator('.editor-group-container.active .monaco-editor .view-lines').first();
      await editor.click();
      await p.keyboard.press('Control+End');
      await p.keyboard.press('End');
      await p.keyboard.press('Enter');
      await p.keyboard.type(text);
      const widget = p.locator('.editor-group-container.active .suggest-widget.visible').first();
      const readRows = async (): Promise<string[]> =>
        (await widget.locator('.monaco-list-row').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? '')))
          .map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
      if (options.invoke === 'retry') {
        // Right after a window (re)load the language client may not be listening yet: ask again
        // (Ctrl+Space) until the rows are there, as a person would.
        return waitUntil(async () => {
          if (!(await widget.isVisible())) {
            await p.keyboard.press('Control+Space');
            await widget.waitFor({ state: 'visible', timeout: 3_000 }).catch(() => undefined);
          }
          const rows = await widget.isVisible() ? await readRows() : [];
          if (until(rows)) return rows;
          await p.keyboard.press('Escape');
          return undefined;
        }, 'the suggest widget rows', timeoutMs, 500);
      }
      if (options.invoke) await p.keyboard.press('Control+Space');
      await widget.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      return waitUntil(async () => {
        const rows = await readRows();
        return until(rows) ? rows : undefined;
      }, 'the suggest widget rows', timeoutMs);
    },
    async webviewFrame(selector, timeoutMs = 60_000) {
      return waitUntil(async () => {
        for (const f of p.frames()) {
          if (f === p.mainFrame()) continue;
          if (await f.locator(selector).count().catch(() => 0)) return f;
        }
        return undefined;
      }, `a webview frame holding ${selector}`, timeoutMs, 200);
    },
    async reload() {
      await p.reload();
      await p.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    },
    async step(stepName, fn) {
      try {
        return await fn();
      } catch (err) {
        failed = true;
        const file = await shot(stepName);
        if (err instanceof Error) err.message += `\n(screenshot: ${file})`;
        throw err;
      }
    },
    screenshot: shot,
    async close() {
      await close();
    },
  };
  return session;
}

/** Files below `dir` (recursively); none when it does not exist. */
export function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesBelow(p) : [p];
  });
}

/** The text of the TSQ log channel(s) the session's extension host wrote so far. */
export function tsqLogs(session: E2eSession): string {
  return filesBelow(join(session.userDataDir, 'logs')).filter((f) => /TSQ\.log$/i.test(f) || /tsq\.tsq/.test(f)).map((f) => readFileSync(f, 'utf8')).join('\n');
}
