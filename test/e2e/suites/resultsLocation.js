// @ts-check
// In-host part of the end-to-end test of results in the bottom panel (test/e2e/resultsLocation.test.ts):
// connects to the emulator started with --demo; a run shows in the TSQ Results view, not in an editor
// tab; Run Again of a run from results.tsq runs it in that file's editor (opening the file when it was
// closed) and never opens an Untitled document. The UI steps (tabs per document, pin, Messages, the
// status bar) run through Chromium afterwards. Environment: TSQ_E2E_EMULATOR_URL (test/e2e/harness.ts).
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, openWorkspaceFile, extensionApi, check } = require('./lib');

const QUERY = '[origin] [delay] top 10';

/** The untitled documents open now. */
const untitled = () => vscode.workspace.textDocuments.filter((d) => d.isUntitled && !d.isClosed).length;

/** Editor tabs showing `uri`, and results editor tabs (webview panels `tsq.results`), over every tab group. */
function tabsNow(/** @type {vscode.Uri} */ uri) {
  const all = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
  return {
    ofFile: all.filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()).length,
    webviews: all.filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('tsq.results')).length,
  };
}

module.exports = defineSuite([
  {
    name: 'tsadmin connects to the emulator',
    async fn() {
      const url = process.env.TSQ_E2E_EMULATOR_URL;
      if (!url) throw new Error('TSQ_E2E_EMULATOR_URL is not set');
      const ok = await vscode.commands.executeCommand('tsq.connectToEmulator', { name: 'emulator', url, username: 'tsadmin', password: 'admin' });
      check(ok === true, 'tsq.connectToEmulator resolves true', ok);
    },
  },
  {
    name: 'a run shows in the TSQ Results view of the panel: no results editor tab',
    async fn() {
      const editor = await openWorkspaceFile('results.tsq');
      /** @type {any} */
      const summary = await vscode.commands.executeCommand('tsq.runQuery', { uri: editor.document.uri.toString(), index: 0 });
      check(summary && summary.rows === 10 && !summary.error, 'ten rows', summary);
      /** @type {any} */
      const probe = await waitFor(async () => {
        /** @type {any} */
        const p = await vscode.commands.executeCommand('tsq.results.probe');
        return p && p.tabs.some((/** @type {any} */ t) => t.tabId === summary.tabId && t.rows === 10) ? p : undefined;
      }, 'the view to show the 10 rows');
      check(probe.activeTab === summary.tabId, 'the run is the active tab', probe);
      check(tabsNow(editor.document.uri).webviews === 0, 'no results editor tab', vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label)));
    },
  },
  {
    name: 'Run Again of a run from a file runs it in that file, open or closed, and opens no Untitled document',
    async fn() {
      const api = /** @type {any} */ (await extensionApi());
      const editor = await openWorkspaceFile('results.tsq');
      const uri = editor.document.uri;
      const ofQuery = () => api.getQueryHistory().filter((/** @type {any} */ e) => e.query === QUERY && e.source === uri.toString());
      const entry = await waitFor(() => ofQuery()[0], 'the run of results.tsq in the history');
      const before = { untitled: untitled(), runs: ofQuery().length, editors: tabsNow(uri).ofFile };

      // the file is open: Run Again runs in its editor, no second editor of it, no Untitled one
      await vscode.commands.executeCommand('tsq.history.runAgain', entry);
      await waitFor(() => (ofQuery().length === before.runs + 1 ? true : undefined), 'Run Again with the file open, in the history');
      check(untitled() === before.untitled, 'no Untitled document', { before, now: untitled() });
      check(tabsNow(uri).ofFile === before.editors, 'no second editor of results.tsq', { before, now: tabsNow(uri) });

      // the file is closed: Run Again opens that file (not an Untitled copy) and runs the query there
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await waitFor(() => (tabsNow(uri).ofFile === 0 ? true : undefined), 'results.tsq closed');
      await vscode.commands.executeCommand('tsq.history.runAgain', entry);
      await waitFor(() => (ofQuery().length === before.runs + 2 ? true : undefined), 'Run Again with the file closed, in the history');
      check(untitled() === before.untitled, 'no Untitled document', { before, now: untitled() });
      check(tabsNow(uri).ofFile === 1, 'results.tsq opened again', tabsNow(uri));
      check(vscode.window.activeTextEditor?.document.uri.toString() === uri.toString(), 'its editor is the active one', vscode.window.activeTextEditor?.document.uri.toString());
      const last = ofQuery()[0];
      check(last.outcome === 'ok' && last.rows === 10, 'the run again gave the 10 rows', last);
    },
  },
]);
