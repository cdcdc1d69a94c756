// @ts-check
// In-host part of the end-to-end test of a service that hangs, refuses and comes back
// (test/e2e/failure.test.ts). A TCP proxy in front of the emulator (started here) passes, hangs or
// refuses; the connection goes through it. With tsq.http.queryTimeout 3 s (set by the test):
//  - a hung searchdata ends with a timeout message naming the host and the setting;
//  - Cancel ends a hung run (its data-source lookup hanging too) within a second;
//  - while refused, the unknown-column error stays with a stale notice; when the proxy passes again the
//    connection heals by itself, the next run succeeds and the notice goes without an edit;
//  - an edited url of the connection takes effect (the proxy, hung again, sees no request).
// Times measured go to <workspace>/.failure-times.json. Environment: TSQ_E2E_EMULATOR_URL.
'use strict';
const vscode = require('vscode');
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const { defineSuite, waitFor, openWorkspaceFile, extensionApi, check } = require('./lib');

/** The deadline of searches in these tests (tsq.http.queryTimeout in the user settings). */
const QUERY_TIMEOUT_S = 3;
/** @type {Record<string, number>} */
const times = {};

function emulatorUrl() {
  const url = process.env.TSQ_E2E_EMULATOR_URL;
  if (!url) throw new Error('TSQ_E2E_EMULATOR_URL is not set');
  return url.replace(/\/$/, '');
}

function saveTimes() {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (root) fs.writeFileSync(path.join(root, '.failure-times.json'), JSON.stringify(times, null, 2));
}

/**
 * A TCP proxy to the emulator: `pass` forwards, `hang` accepts and never answers, `refuse` closes the
 * port (connections are refused). A change of mode drops the open connections (kept-alive ones too).
 */
function startProxy() {
  const target = new URL(emulatorUrl());
  /** @type {'pass' | 'hang' | 'refuse'} */
  let mode = 'pass';
  let port = 0;
  let connections = 0;
  /** @type {string[]} request lines received while hanging */
  const requests = [];
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  /** @param {net.Socket} client */
  const onConnection = (client) => {
    connections++;
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (mode !== 'pass') {
      // read the request, answer nothing; its first line is kept
      client.once('data', (b) => requests.push(b.toString('latin1').split('\r\n', 1)[0]));
      client.resume();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.on('close', () => { sockets.delete(upstream); client.destroy(); });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  };
  /** @type {net.Server | undefined} */
  let server;
  const listen = () => new Promise((resolve, reject) => {
    server = net.createServer(onConnection);
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const a = server && server.address();
      port = typeof a === 'object' && a ? a.port : port;
      resolve(undefined);
    });
  });
  return {
    listen,
    get url() { return `http://127.0.0.1:${port}`; },
    get connections() { return connections; },
    /** Request lines (`POST /path`) the proxy received while hanging. */
    get hungRequests() { return [...requests]; },
    /** @param {'pass' | 'hang' | 'refuse'} next */
    async set(next) {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (next === 'refuse' && server) {
        await new Promise((r) => server && server.close(() => r(undefined)));
        server = undefined;
      } else if (next !== 'refuse' && !server) {
        await listen();
      }
      mode = next;
    },
  };
}

const proxy = startProxy();
/** @type {any} */
let api;

/** @returns {Promise<vscode.TextEditor>} */
const resultsEditor = () => openWorkspaceFile('results.tsq');

/** How long the last `run` took from the command to its answer, in ms (opening the editor not counted). */
let lastCommandMs = 0;

/** @param {number} index @returns {Promise<any>} */
async function run(index = 0) {
  const editor = await resultsEditor();
  const started = Date.now();
  const summary = await vscode.commands.executeCommand('tsq.runQuery', { uri: editor.document.uri.toString(), index });
  lastCommandMs = Date.now() - started;
  return summary;
}

/** The diagnostics of unknown-column.tsq, as "severity: message" lines. */
function columnDiagnostics() {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!root) return [];
  return vscode.languages.getDiagnostics(vscode.Uri.joinPath(root, 'unknown-column.tsq')).map((d) => `${d.severity}: ${d.message}`);
}
const hasUnknownColumn = () => columnDiagnostics().some((d) => /^0: .*no such column/i.test(d));
const hasStaleNotice = () => columnDiagnostics().some((d) => /^2: Columns of 'flights' from .* the service is unreachable/.test(d));

module.exports = defineSuite([
  {
    name: 'a connection through the proxy answers, and an unknown column is an error',
    async fn() {
      await proxy.listen();
      api = await extensionApi();
      // the emulator's own address is known too (its password is kept for its origin and user), so
      // that the url edit at the end needs no prompt
      const direct = await vscode.commands.executeCommand('tsq.connectToEmulator', { name: 'direct', url: emulatorUrl(), username: 'tsadmin', password: 'admin' });
      check(direct === true, 'tsq.connectToEmulator resolves true', { direct, state: api.getConnectionState() });
      const ok = await vscode.commands.executeCommand('tsq.addConnection', { name: 'through the proxy', url: proxy.url, username: 'tsadmin', password: 'admin' });
      check(ok === true, 'tsq.addConnection resolves true', { ok, state: api.getConnectionState() });
      await openWorkspaceFile('unknown-column.tsq');
      await waitFor(hasUnknownColumn, 'the unknown-column error', 60_000);
      const summary = await run(0);
      check(summary && summary.rows === 10, 'a run through the proxy answers ten rows', summary);
    },
  },
  {
    name: 'a hung searchdata ends with a timeout message within the configured time',
    timeoutMs: 60_000,
    async fn() {
      await proxy.set('hang');
      const started = Date.now();
      const summary = await run(0);
      times.hungSearchCommandMs = lastCommandMs;
      times.hungSearchWithEditorMs = Date.now() - started;
      const elapsed = summary && summary.elapsedMs;
      times.hungSearchEndsMs = elapsed;
      saveTimes();
      const host = new URL(proxy.url).host;
      check(summary && typeof summary.error === 'string', 'the run ended in an error', summary);
      check(summary.error.includes(`no answer from ${host} within ${QUERY_TIMEOUT_S} s`) && summary.error.includes('tsq.http.queryTimeout'), 'the error names the host, the deadline and the setting', summary.error);
      check(elapsed >= QUERY_TIMEOUT_S * 1000 && elapsed < QUERY_TIMEOUT_S * 1000 + 2000, `it ended after the ${QUERY_TIMEOUT_S} s deadline and not much later`, elapsed);
      /** @type {any} */
      const probe = await vscode.commands.executeCommand('tsq.results.probe');
      check(probe && probe.tabs.some((/** @type {any} */ t) => t.error && t.error.includes('tsq.http.queryTimeout')), 'the panel shows the timeout', probe);
      await waitFor(() => ['reconnecting', 'unreachable'].includes(api.getConnectionHealth().state), 'the connection to read as reconnecting', 10_000);
    },
  },
  {
    name: 'Cancel ends a hung run within a second, its data-source lookup included',
    timeoutMs: 60_000,
    async fn() {
      // a fresh catalog: the run's first request is the data-source lookup, which hangs
      await vscode.commands.executeCommand('tsq.refreshCatalog');
      /** @type {any} */
      let summary;
      const pending = /** @type {Promise<any>} */ (Promise.resolve(run(0))).then((s) => (summary = s));
      await waitFor(async () => {
        /** @type {any} */
        const p = await vscode.commands.executeCommand('tsq.results.probe');
        return p && p.tabs.some((/** @type {any} */ t) => t.status === 'Running…') ? p : undefined;
      }, 'the run to be under way', 20_000);
      await new Promise((r) => setTimeout(r, 500));
      check(summary === undefined, 'the run is still waiting for the hung service before Cancel', summary);
      const cancelled = Date.now();
      await vscode.commands.executeCommand('tsq.cancelQuery');
      await Promise.race([pending, new Promise((r) => setTimeout(r, 10_000))]);
      check(summary !== undefined, 'the run ended after Cancel', summary);
      times.cancelToRunEndMs = Date.now() - cancelled;
      await waitFor(async () => {
        /** @type {any} */
        const p = await vscode.commands.executeCommand('tsq.results.probe');
        return p && p.tabs.some((/** @type {any} */ t) => /cancelled/.test(t.status));
      }, 'the panel to say cancelled', 5_000);
      times.cancelToPanelCancelledMs = Date.now() - cancelled;
      saveTimes();
      check(summary && summary.cancelled === true && !summary.error, 'the run reports cancelled', summary);
      check(times.cancelToRunEndMs < 1000, 'the run ended within a second of Cancel', times);
      check(times.cancelToPanelCancelledMs < 1000, 'the panel said cancelled within a second', times);
    },
  },
  {
    name: 'while the service is refused, the unknown-column error stays with a notice that the columns are stale',
    timeoutMs: 60_000,
    async fn() {
      await proxy.set('refuse');
      await vscode.commands.executeCommand('tsq.refreshCatalog');
      await waitFor(() => hasStaleNotice() && hasUnknownColumn(), 'the stale notice beside the unknown-column error', 30_000);
      check(hasUnknownColumn(), 'the unknown-column error is still there', columnDiagnostics());
      await waitFor(() => ['reconnecting', 'unreachable'].includes(api.getConnectionHealth().state), 'reconnecting or unreachable', 10_000);
      const h = api.getConnectionHealth();
      check(typeof h.nextTry === 'number' && h.nextTry > Date.now() - 1000, 'the next try has a time', h);
    },
  },
  {
    name: 'when the proxy passes again the connection heals itself, the next run succeeds and diagnostics are fresh without an edit',
    timeoutMs: 90_000,
    async fn() {
      const before = vscode.workspace.textDocuments.find((d) => d.uri.path.endsWith('unknown-column.tsq'));
      const version = before && before.version;
      const back = Date.now();
      await proxy.set('pass');
      await waitFor(() => api.getConnectionHealth().state === 'connected', 'the connection to heal', 60_000);
      times.recoveredToConnectedMs = Date.now() - back;
      await waitFor(() => !hasStaleNotice() && hasUnknownColumn(), 'fresh diagnostics (no stale notice, the unknown-column error)', 30_000);
      times.recoveredToFreshDiagnosticsMs = Date.now() - back;
      const started = Date.now();
      const summary = await run(0);
      times.runAfterRecoveryMs = Date.now() - started;
      saveTimes();
      check(summary && summary.rows === 10 && !summary.error, 'the next run answers ten rows', summary);
      const after = vscode.workspace.textDocuments.find((d) => d.uri.path.endsWith('unknown-column.tsq'));
      check(after && after.version === version && !after.isDirty, 'the document was not edited', { version, now: after && after.version });
    },
  },
  {
    name: 'an edited url of the connection takes effect',
    timeoutMs: 60_000,
    async fn() {
      await proxy.set('hang');
      const config = vscode.workspace.getConfiguration('tsq');
      const inspected = config.inspect('connections');
      const inWorkspace = inspected && inspected.workspaceValue !== undefined;
      const list = /** @type {any[]} */ ((inWorkspace ? inspected.workspaceValue : inspected && inspected.globalValue) || []);
      const edited = list.map((c) => (c.name === 'through the proxy' ? { ...c, url: emulatorUrl() } : c));
      await config.update('connections', edited, inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
      const seen = proxy.hungRequests.length;
      await waitFor(() => api.getConnectionState().state === 'connected', 'connected again');
      const started = Date.now();
      const summary = await run(0);
      times.runAfterUrlEditMs = Date.now() - started;
      saveTimes();
      check(summary && summary.rows === 10 && !summary.error, 'the run answers ten rows from the new url', summary);
      // the old session may still say goodbye (logout) at the old url; nothing else goes there
      const after = proxy.hungRequests.slice(seen).filter((r) => !/session\/logout/.test(r));
      check(after.length === 0, 'the proxy (the old url) saw no request of the run', proxy.hungRequests.slice(seen));
      await proxy.set('refuse');
    },
  },
]);
