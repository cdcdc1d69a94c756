// @ts-check
// In-host suite against the emulator started with --demo: a wrong password fails cleanly, then
// tsadmin connects, completion after `[` lists the flights columns, an unknown column is diagnosed,
// and the password is nowhere in settings or logs.
// Environment (set by test/e2e/harness.ts on the code-server process, or by scripts/test-vscode.mjs):
//   TSQ_E2E_EMULATOR_URL   the emulator's base URL (required)
//   TSQ_E2E_USER_DATA_DIR  VS Code's user data dir, to read settings.json and the log files (optional)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const { defineSuite, waitFor, openWorkspaceFile, openUntitledTsq, extensionApi, completionsAt, labelOf, waitForDiagnostics, check, workspaceRoot } = require('./lib');

/** A password that no other text contains, so that finding it anywhere is a leak. */
const WRONG_PASSWORD = 'e2e-Wrong-Pa55word-7f3a9c';
/** The demo's administrator (emulator --demo). */
const USER = 'tsadmin';
const PASSWORD = 'admin';
/** The demo flights table's columns. */
const FLIGHT_COLUMNS = ['date', 'delay', 'distance', 'origin', 'destination'];

function emulatorUrl() {
  const url = process.env.TSQ_E2E_EMULATOR_URL;
  if (!url) throw new Error('TSQ_E2E_EMULATOR_URL is not set: start the emulator with --demo and set it');
  return url;
}

/** @param {string} dir @returns {string[]} every file below dir */
function filesBelow(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesBelow(p) : [p];
  });
}

module.exports = defineSuite([
  {
    name: 'a wrong password fails with an error and no connection',
    async fn() {
      const api = await extensionApi();
      const ok = await vscode.commands.executeCommand('tsq.connectToEmulator', { name: 'e2e-wrong', url: emulatorUrl(), username: USER, password: WRONG_PASSWORD });
      check(ok === false, 'tsq.connectToEmulator resolves false for a wrong password', ok);
      const state = api.getConnectionState();
      check(state.state !== 'connected', 'the connection state is not connected', state);
      check(!JSON.stringify(state).includes(WRONG_PASSWORD), 'the connection state does not carry the password', state);
    },
  },
  {
    name: 'the extension stays usable after the wrong password',
    async fn() {
      const editor = await openUntitledTsq('[delay] ');
      await waitFor(async () => (await completionsAt(editor.document, new vscode.Position(0, 8))).map(labelOf).some((l) => /^(top|sort by|count)\b/i.test(l)), 'keyword completion');
    },
  },
  {
    name: 'tsadmin connects to the emulator',
    async fn() {
      const api = await extensionApi();
      const ok = await vscode.commands.executeCommand('tsq.connectToEmulator', { name: 'emulator', url: emulatorUrl(), username: USER, password: PASSWORD });
      check(ok === true, 'tsq.connectToEmulator resolves true for tsadmin', { ok, state: api.getConnectionState() });
      await waitFor(() => api.getConnectionState().state === 'connected', 'state connected');
    },
  },
  {
    name: 'completion after [ lists the columns of the flights table',
    async fn() {
      const editor = await openUntitledTsq("@datasource 'flights'\n[");
      const position = new vscode.Position(1, 1);
      const labels = await waitFor(async () => {
        const items = (await completionsAt(editor.document, position, '[')).map(labelOf).map((l) => l.replace(/^\[|\]$/g, '').toLowerCase());
        return FLIGHT_COLUMNS.every((c) => items.includes(c)) ? items : undefined;
      }, `completions to include ${FLIGHT_COLUMNS.join(', ')}`);
      check(labels.length >= FLIGHT_COLUMNS.length, 'column completions', labels);
      // resolving a column item gives its description: VS Code hands back the list's itemDefaults.data
      // (the data source, sent once) and the server reads the column from the label
      const list = /** @type {vscode.CompletionList} */ (await vscode.commands.executeCommand('vscode.executeCompletionItemProvider', editor.document.uri, position, '[', 3));
      const docs = list.items.slice(0, 3).map((i) => (typeof i.documentation === 'string' ? i.documentation : i.documentation?.value) ?? '');
      check(docs.length === 3 && docs.every((d) => /Data source: \*\*flights\*\*/i.test(d)), 'resolved column items carry their description', docs);
    },
  },
  {
    name: 'an unknown column is diagnosed',
    async fn() {
      const editor = await openWorkspaceFile('unknown-column.tsq');
      const diags = await waitForDiagnostics(editor.document.uri, (d) => d.some((x) => x.message.includes('no such column')), 'a diagnostic naming [no such column]');
      const d = diags.find((x) => x.message.includes('no such column'));
      check(d && d.range.start.line === 1, 'on line 2', d && d.range);
      check(d && d.severity <= vscode.DiagnosticSeverity.Warning, 'an error or a warning', d && d.severity);
      check(!diags.some((x) => /origin/.test(x.message)), 'the known column [origin] is not diagnosed', diags.map((x) => x.message));
    },
  },
  {
    name: 'the password is in no setting, settings file or log',
    async fn() {
      const inspected = vscode.workspace.getConfiguration('tsq').inspect('connections');
      const values = JSON.stringify([inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue]);
      check(values.includes(emulatorUrl()), 'tsq.connections holds the connection', values);
      check(!/password/i.test(values), 'tsq.connections has no password field', values);
      const files = [path.join(workspaceRoot().fsPath, '.vscode', 'settings.json')];
      const userDataDir = process.env.TSQ_E2E_USER_DATA_DIR;
      if (userDataDir) files.push(path.join(userDataDir, 'User', 'settings.json'));
      for (const f of files.filter((x) => fs.existsSync(x))) {
        const text = fs.readFileSync(f, 'utf8');
        check(!text.includes(WRONG_PASSWORD) && !/"[^"]*password[^"]*"\s*:/i.test(text), `${f} holds no password`, text);
      }
      if (userDataDir) {
        // The TSQ log output channel is a LogOutputChannel, written to a file below the logs folder.
        const logs = await waitFor(() => {
          const found = filesBelow(path.join(userDataDir, 'logs')).filter((f) => /TSQ\.log$/i.test(f) || /tsq\.tsq/.test(f));
          return found.some((f) => /session\/login/.test(fs.readFileSync(f, 'utf8'))) ? found : undefined;
        }, 'the TSQ log file to record the session/login request');
        for (const f of logs) {
          const text = fs.readFileSync(f, 'utf8');
          check(!text.includes(WRONG_PASSWORD), `${f} does not contain the password`);
          check(!/password=/i.test(text), `${f} does not contain a form-encoded password`);
        }
      }
    },
  },
]);
