#!/usr/bin/env node
// `npm start`: TSQ on the demo data, from a fresh clone, in one command (README.md "Quick start").
//   1. `npm install` when node_modules is missing; 2. builds the bundles (esbuild.mjs) unless it just did;
//   3. starts the emulator with --demo (port 8088 when free), its data in <state>/emulator-data, kept;
//   4. copies test/fixtures/demo-workspace/ to <state>/workspace (keeping files there) and writes its
//      .vscode/settings.json with the connection; the password goes to the editor as TSQ_DEMO_PASSWORD,
//      which the extension keeps in its secret storage, for a loopback URL only;
//   5. opens it in VS Code when `code` is on the PATH, else in code-server (installed by
//      scripts/install-e2e-tools.sh when missing) with the packaged extension, and prints the URL.
// Ctrl-C, SIGTERM or a closed VS Code window stops everything it started; an emulator that exits is
// started again (MAX_EMULATOR_RESTARTS at most). The state folder is in the OS's cache folder
// (defaultStateDir), so the workspace is inside no Git repository (VS Code would ask about the clone's).
// Options: USAGE below and README.md's table.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const USAGE = 'usage: npm start -- [--code-server] [--port N] [--code-server-port N] [--state-dir DIR] [--fresh] [--no-open] [--no-build]';
/** The demo user of `--demo` (emulator/src/demo.ts). */
const DEMO_USER = { username: 'tsadmin', password: 'admin' };
const CONNECTION_NAME = 'Local emulator (demo)';
/** How many times an emulator that exited on its own is started again before `npm start` gives up. */
const MAX_EMULATOR_RESTARTS = 3;

/** @type {{ 'code-server'?: boolean, port?: string, 'code-server-port'?: string, 'state-dir'?: string, fresh?: boolean, 'no-open'?: boolean, 'no-build'?: boolean, help?: boolean }} */
let opts;
try {
  ({ values: opts } = parseArgs({
    options: {
      'code-server': { type: 'boolean' },
      port: { type: 'string' },
      'code-server-port': { type: 'string' },
      'state-dir': { type: 'string' },
      fresh: { type: 'boolean' },
      'no-open': { type: 'boolean' },
      'no-build': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }));
} catch (e) {
  console.error(`start: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}

const log = (/** @type {string} */ msg) => console.log(`start: ${msg}`);
const fail = (/** @type {string} */ msg) => {
  console.error(`start: error: ${msg}`);
  if (stopping) return;
  stopping = true;
  void stopAll().then(() => process.exit(1));
};

/**
 * The default state folder: `tsq/demo` in the OS's per-user cache folder, outside the clone (so the
 * workspace copy is in no Git repository): `$XDG_CACHE_HOME` when it is an absolute path, else
 * `~/.cache` (XDG Base Directory Specification); `~/Library/Caches` on macOS; `%LOCALAPPDATA%` on Windows.
 * @returns {string} an absolute path
 */
function defaultStateDir() {
  const xdg = process.env.XDG_CACHE_HOME;
  const cache =
    process.platform === 'win32' ? process.env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local')
    : process.platform === 'darwin' ? join(homedir(), 'Library', 'Caches')
    : xdg && isAbsolute(xdg) ? xdg
    : join(homedir(), '.cache');
  return join(cache, 'tsq', 'demo');
}

const stateDir = opts['state-dir'] === undefined ? defaultStateDir() : resolve(ROOT, opts['state-dir']);
const toolsDir = (() => {
  const d = process.env.TSQ_TOOLS_DIR || '.tools';
  return isAbsolute(d) ? d : join(ROOT, d);
})();

/** Child processes started here (each in its own process group), stopped by stopAll. @type {{ name: string, proc: import('node:child_process').ChildProcess }[]} */
const children = [];
let stopping = false;

/** Stops every child started here: SIGTERM to its process group, SIGKILL after 5 s. */
async function stopAll() {
  await Promise.all(
    children.splice(0).map(
      ({ name, proc }) =>
        /** @type {Promise<void>} */ (new Promise((done) => {
          if (proc.exitCode !== null || proc.signalCode !== null) return done();
          proc.once('exit', () => done());
          try {
            process.kill(-(proc.pid ?? 0), 'SIGTERM');
          } catch {
            return done();
          }
          setTimeout(() => {
            try {
              process.kill(-(proc.pid ?? 0), 'SIGKILL');
            } catch {
              /* gone */
            }
          }, 5_000).unref();
          log(`stopping ${name}`);
        })),
    ),
  );
}

/**
 * Stops every child, then exits with `code` (once; later calls are ignored).
 * @param {number} code
 * @param {string} [why]
 */
function shutdown(code, why) {
  if (stopping) return;
  stopping = true;
  if (why) log(why);
  void stopAll().then(() => process.exit(code));
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => shutdown(0));

/**
 * The processes this script's life hangs on: its parent, and under `npm start` also npm itself when a
 * shell stands between (npm runs scripts through `sh -c`). When one of them ends (npm killed with
 * SIGTERM, a closed terminal), everything stops: npm does not always pass its signal on. Linux reads
 * /proc; elsewhere only the parent is watched (process.ppid changes when it ends).
 */
function watchAncestors() {
  const parent = process.ppid;
  const watched = [parent];
  const statOf = (/** @type {number} */ pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      return { comm: stat.slice(stat.indexOf('(') + 1, close), ppid: Number(stat.slice(close + 2).split(' ')[1]) };
    } catch {
      return undefined;
    }
  };
  const p = statOf(parent);
  if (p && process.env.npm_lifecycle_event && /^(sh|dash|bash|zsh)$/.test(p.comm) && p.ppid > 1) watched.push(p.ppid);
  const alive = (/** @type {number} */ pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return /** @type {NodeJS.ErrnoException} */ (e).code === 'EPERM';
    }
  };
  setInterval(() => {
    if (process.ppid !== parent || !watched.every(alive)) shutdown(0, 'the npm start process ended; stopping everything');
  }, 500).unref();
}
watchAncestors();

/**
 * Runs a command to completion with inherited output; fails the start when it fails.
 * @param {string} what
 * @param {string} cmd
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [extra]
 */
function runStep(what, cmd, args, extra = {}) {
  log(what);
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', ...extra });
  if (r.status !== 0) throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`);
}

/** The full path of a command found on the PATH, or undefined. @param {string} name */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * Resolves with `port` when it is free on 127.0.0.1, else (or for 0) with a free port the OS picks.
 * @param {number} port
 * @returns {Promise<number>}
 */
function pickPort(port) {
  const tryListen = (/** @type {number} */ p) =>
    /** @type {Promise<number | undefined>} */ (new Promise((ok) => {
      const srv = createServer();
      srv.once('error', () => ok(undefined));
      srv.listen(p, '127.0.0.1', () => {
        const a = srv.address();
        srv.close(() => ok(typeof a === 'object' && a ? a.port : undefined));
      });
    }));
  // 0 when even that fails: the emulator then picks a free port itself
  return tryListen(port).then((p) => p ?? tryListen(0)).then((p) => p ?? 0);
}

/**
 * Parses a port option; exits with the usage for anything but an integer 0..65535.
 * @param {'port' | 'code-server-port'} flag
 * @param {number} fallback
 */
function portOption(flag, fallback) {
  const v = opts[flag];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`start: --${flag}: not a port number: ${v}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

/**
 * Starts a long-running child in its own process group, its output prefixed with `[name]`, and
 * resolves with the first match of `ready` in its output (null: once it is spawned); rejects when it
 * exits first or after `timeoutMs`. When it exits after that, `onExit(code, signal)` decides what
 * happens; without one, everything stops.
 * @param {string} name
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ ready: RegExp | null, timeoutMs: number, env?: NodeJS.ProcessEnv, onExit?: (code: number | null, signal: NodeJS.Signals | null) => void }} options
 * @returns {Promise<RegExpMatchArray | string[]>}
 */
function startChild(name, cmd, args, { ready, timeoutMs, env, onExit }) {
  return new Promise((ok, ko) => {
    const proc = spawn(cmd, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
    const entry = { name, proc };
    children.push(entry);
    let text = '';
    let settled = false;
    const timer = setTimeout(() => settle(new Error(`${name} did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    if (!ready) proc.once('spawn', () => settle(undefined, []));
    /** @param {Error | undefined} err @param {RegExpMatchArray | string[]} [match] */
    const settle = (err, match) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) ko(err);
      else ok(match ?? []);
    };
    const onData = (/** @type {Buffer} */ buf) => {
      const s = buf.toString();
      for (const line of s.split('\n')) if (line.trim()) process.stdout.write(`[${name}] ${line}\n`);
      if (!settled) {
        text += s;
        const m = ready && text.match(ready);
        if (m) settle(undefined, m);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('error', (e) => settle(new Error(`${name} could not start: ${e.message}`)));
    proc.once('exit', (code, signal) => {
      const i = children.indexOf(entry);
      if (i >= 0) children.splice(i, 1);
      const wasReady = settled;
      settle(new Error(`${name} exited (${code ?? signal}) before it was ready`));
      if (stopping) return;
      if (wasReady && onExit) onExit(code, signal);
      else if (wasReady) shutdown(code === 0 ? 0 : 1, `${name} exited (${code ?? signal}); stopping the rest`);
    });
  });
}

/**
 * Copies the demo workspace to `target` (keeping files already there) and writes its
 * .vscode/settings.json with the connection to the emulator at `url`, merged over what is there.
 * @param {string} target
 * @param {string} url
 */
function prepareWorkspace(target, url) {
  const source = join(ROOT, 'test', 'fixtures', 'demo-workspace');
  mkdirSync(target, { recursive: true });
  for (const name of readdirSync(source)) {
    if (!existsSync(join(target, name))) cpSync(join(source, name), join(target, name), { recursive: true });
  }
  const settingsFile = join(target, '.vscode', 'settings.json');
  /** @type {Record<string, unknown>} */
  let settings = {};
  if (existsSync(settingsFile)) {
    try {
      settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    } catch {
      log(`${settingsFile} is not plain JSON; writing it anew`);
    }
  }
  /** @type {{ name?: string }[]} */
  const existing = Array.isArray(settings['tsq.connections']) ? settings['tsq.connections'] : [];
  const others = existing.filter((c) => c?.name !== CONNECTION_NAME);
  settings['tsq.connections'] = [...others, { name: CONNECTION_NAME, url, username: DEMO_USER.username }];
  settings['tsq.activeConnection'] = CONNECTION_NAME;
  mkdirSync(join(target, '.vscode'), { recursive: true });
  writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
}

/** Quiet user settings for the code-server profile: the demo README opens first, no telemetry or prompts. @param {string} userDataDir */
function writeCodeServerUserSettings(userDataDir) {
  const file = join(userDataDir, 'User', 'settings.json');
  if (existsSync(file)) return; // the person's own changes win on later runs
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  const settings = {
    'workbench.startupEditor': 'readme',
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'security.workspace.trust.enabled': false,
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
  };
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * Starts the emulator on `port` with its data in `dataDir` and resolves with its URL. When it exits on
 * its own later, it is started again the same way (same port, so the workspace's URL stays right; same
 * data) up to MAX_EMULATOR_RESTARTS times; then everything stops with the reason.
 * @param {number} port
 * @param {string} dataDir
 * @returns {Promise<string>}
 */
async function startEmulator(port, dataDir, restarts = 0) {
  const args = [join(ROOT, 'dist', 'emulator.js'), '--demo', '--port', String(port), '--data-dir', dataDir];
  const [, emulatorUrl] = await startChild('emulator', process.execPath, args, {
    ready: /listening on (http:\/\/[^\s,;]+)/,
    timeoutMs: 300_000,
    onExit: (code, signal) => {
      const how = signal ? `was ended by ${signal}` : `exited with code ${code}`;
      if (restarts >= MAX_EMULATOR_RESTARTS) {
        fail(`the emulator ${how} again, after ${restarts} restarts; stopping everything. Its last output is above ([emulator] lines); start again with npm start (or npm start -- --fresh for new data).`);
        return;
      }
      const actualPort = Number(new URL(emulatorUrl).port) || port;
      log(`the emulator ${how}; starting it again on port ${actualPort} with the same data (${dataDir}), restart ${restarts + 1} of ${MAX_EMULATOR_RESTARTS}. The editor stays open.`);
      startEmulator(actualPort, dataDir, restarts + 1).then(
        (u) => log(`the emulator is back at ${u}`),
        (e) => fail(`the emulator could not be started again: ${e.message}`),
      );
    },
  });
  return emulatorUrl.replace(/\/$/, '');
}

async function main() {
  const [major] = process.versions.node.split('.').map(Number);
  if (major < 20) throw new Error(`Node 20 or later is needed (this is ${process.version})`);

  // 1. dependencies; npm install runs the `prepare` script of package.json, which builds the bundles
  let built = false;
  if (!existsSync(join(ROOT, 'node_modules', '.package-lock.json')) && !existsSync(join(ROOT, 'node_modules', 'esbuild'))) {
    runStep('installing dependencies and building (npm install)', process.platform === 'win32' ? 'npm.cmd' : 'npm', ['install', '--no-audit', '--no-fund']);
    built = existsSync(join(ROOT, 'dist', 'emulator.js'));
  }

  // 2. build (once: not again right after the install built)
  if (!opts['no-build'] && !built) runStep('building (esbuild.mjs)', process.execPath, [join(ROOT, 'esbuild.mjs')]);
  else if (!existsSync(join(ROOT, 'dist', 'emulator.js'))) throw new Error("--no-build, but dist/ has no bundles: run 'npm run build'");

  const codeCmd = opts['code-server'] || opts['no-open'] ? undefined : onPath('code');
  if (opts.fresh) {
    log(`--fresh: removing ${stateDir}`);
    rmSync(stateDir, { recursive: true, force: true });
  }
  mkdirSync(stateDir, { recursive: true });

  // 3. the emulator
  const emulatorPort = await pickPort(portOption('port', 8088));
  const dataDir = join(stateDir, 'emulator-data');
  const firstStart = !existsSync(dataDir) || readdirSync(dataDir).length === 0;
  log(`starting the emulator with --demo${firstStart ? ' (the first start reads the demo data, which takes a while)' : ` (data in ${dataDir})`}`);
  const url = await startEmulator(emulatorPort, dataDir);

  // 4. the workspace
  const workspace = join(stateDir, 'workspace');
  prepareWorkspace(workspace, url);
  log(`demo workspace: ${workspace} (connected to ${url} as ${DEMO_USER.username})`);
  const repository = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: workspace, encoding: 'utf8' });
  if (repository.status === 0) log(`note: the workspace is inside the Git repository ${repository.stdout.trim()}, which VS Code may offer to open; a --state-dir outside it avoids that`);

  // the extension host inherits this; honoured for loopback URLs only (the emulator's public demo password)
  const editorEnv = { ...process.env, TSQ_DEMO_PASSWORD: DEMO_USER.password };

  if (opts['no-open']) {
    log(`TSQ is ready: the emulator runs at ${url} (user ${DEMO_USER.username}, password ${DEMO_USER.password}); open ${workspace} in VS Code with the extension. Ctrl-C stops the emulator.`);
    return;
  }

  // 5a. VS Code
  if (codeCmd) {
    log(`opening VS Code (${codeCmd}) with the extension from ${ROOT}`);
    await startChild('code', codeCmd, ['--new-window', '--wait', `--extensionDevelopmentPath=${ROOT}`, workspace], { ready: null, timeoutMs: 60_000, env: editorEnv });
    log('TSQ is ready in VS Code. Close its window or press Ctrl-C here to stop the emulator.');
    return;
  }

  // 5b. code-server
  const codeServer = join(toolsDir, 'bin', 'code-server');
  if (!existsSync(codeServer)) {
    runStep('no `code` command on the PATH: installing code-server (scripts/install-e2e-tools.sh; a few minutes the first time)', 'bash', [join(ROOT, 'scripts', 'install-e2e-tools.sh')], {
      env: { ...process.env, TSQ_TOOLS_NO_BROWSER: process.env.TSQ_TOOLS_NO_BROWSER ?? '1' },
    });
  }
  const csDir = join(stateDir, 'code-server');
  const extensionsDir = join(csDir, 'extensions');
  const userDataDir = join(csDir, 'user-data');
  const vsix = join(csDir, 'tsq.vsix');
  mkdirSync(csDir, { recursive: true });
  runStep('packaging the extension (scripts/package.mjs --no-build)', process.execPath, [join(ROOT, 'scripts', 'package.mjs'), '--no-build', '--out', vsix], { stdio: ['ignore', 'ignore', 'inherit'] });
  runStep('installing it into code-server', codeServer, ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', vsix, '--force'], { stdio: ['ignore', 'ignore', 'inherit'] });
  writeCodeServerUserSettings(userDataDir);
  const csPort = await pickPort(portOption('code-server-port', 8080));
  await startChild('code-server', codeServer, [
    '--auth', 'none', '--bind-addr', `127.0.0.1:${csPort}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--config', join(csDir, 'config.yaml'), '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, workspace,
  ], { ready: /HTTP server listening on/, timeoutMs: 120_000, env: editorEnv });
  const openUrl = `http://127.0.0.1:${csPort}/?folder=${encodeURIComponent(workspace)}`;
  log(`TSQ is ready: ${openUrl}`);
  log('open that URL in a browser (it listens on this machine only). Ctrl-C stops code-server and the emulator.');
}

main().catch((e) => fail(e.message));
