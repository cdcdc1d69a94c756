// @ts-check
// In-host part of the results panel's end-to-end test (test/e2e/results.test.ts): connects to the
// emulator started with --demo, checks the ▶ Run CodeLens above each query of results.tsq, and runs a
// query by command, checking what the command reports against what the webview shows (its probe).
// The UI steps (Ctrl/Cmd+Enter, grid, chart, export, cancel, errors) run through Chromium afterwards.
// Environment: TSQ_E2E_EMULATOR_URL (set by test/e2e/harness.ts).
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, openWorkspaceFile, check, connectAsTsadmin } = require('./lib');

module.exports = defineSuite([
  connectAsTsadmin,
  {
    name: 'a ▶ Run CodeLens stands above each query of results.tsq',
    async fn() {
      const editor = await openWorkspaceFile('results.tsq');
      const lenses = await waitFor(async () => {
        /** @type {vscode.CodeLens[]} */
        const l = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', editor.document.uri, 100);
        return l && l.length >= 7 ? l : undefined;
      }, 'seven CodeLenses');
      const runs = lenses.filter((l) => l.command && l.command.command === 'tsq.runQuery');
      check(runs.length === 7, 'seven ▶ Run lenses', runs.map((l) => l.command && l.command.title));
      check(runs.every((l) => l.command && l.command.title.includes('Run')), 'titled Run', runs.map((l) => l.command && l.command.title));
      check(JSON.stringify(runs.map((l) => l.range.start.line)) === JSON.stringify([2, 4, 6, 8, 11, 13, 16]), 'one above each query line', runs.map((l) => l.range.start.line));
    },
  },
  {
    name: 'Run Query by command answers what the panel shows',
    async fn() {
      const editor = await openWorkspaceFile('results.tsq');
      /** @type {any} */
      const summary = await vscode.commands.executeCommand('tsq.runQuery', { uri: editor.document.uri.toString(), index: 0 });
      check(summary && summary.rows === 10 && summary.totalRowCount === 10, 'ten rows of ten', summary);
      check(JSON.stringify(summary.columnNames) === JSON.stringify(['origin', 'Total delay']), 'columns', summary.columnNames);
      /** @type {any} */
      const probe = await waitFor(async () => {
        /** @type {any} */
        const p = await vscode.commands.executeCommand('tsq.results.probe');
        return p && p.tabs.length === 1 && p.tabs[0].rows === 10 && /^10 of 10 rows/.test(p.tabs[0].status) ? p : undefined;
      }, 'the webview to show 10 of 10 rows');
      check(probe.activeTab === summary.tabId, 'the run is the active tab', probe);
      /** @type {any} */
      const last = await vscode.commands.executeCommand('tsq.results.lastRun', 10_000);
      check(last && typeof last.firstPaintMs === 'number' && last.firstPaintMs >= 0, 'the webview reported its first painted rows', last);
    },
  },
]);
