// @ts-check
// In-host suite of Answers as code in the editor and of "one mistake, one problem", against the emulator
// started with --demo: connects as tsadmin; writes the TML files the page then validates and imports from
// the editor title (test/e2e/tmleditor.test.ts); a query with an error the language server reports is
// not sent (no run in the History) unless run anyway, and then the service's refusal adds no second
// problem at the same place. Environment: TSQ_E2E_EMULATOR_URL (required).
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, extensionApi, check, openUntitledTsq, waitForDiagnostics, workspaceRoot, connectAsTsadmin } = require('./lib');

/** A query with a column flights has not: the language server reports it (tsq.unknownColumn). */
const BAD_QUERY = '[origin] [dealy] top 3';

/** @param {vscode.Diagnostic} d */
const codeOf = (d) => (typeof d.code === 'object' ? d.code.value : d.code);

module.exports = defineSuite([
  connectAsTsadmin,
  {
    name: 'the TML files the page validates and imports are in the workspace',
    async fn() {
      // two data sources: right for TSQ's checks, refused by the emulator (it runs an answer over one), which names answer.tables
      const twoSources = 'answer:\n  name: Two sources\n  tables:\n  - id: flights\n    name: flights\n  - id: movies\n    name: movies\n  search_query: "[origin] [delay]"\n';
      const good = 'answer:\n  name: E2E imported\n  tables:\n  - id: flights\n    name: flights\n  search_query: "[origin] [delay] top 4"\n';
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(workspaceRoot(), 'two-sources.answer.tml'), new TextEncoder().encode(twoSources));
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(workspaceRoot(), 'good.answer.tml'), new TextEncoder().encode(good));
      /** @type {any} */
      const r = await vscode.commands.executeCommand('tsq.validateTml', vscode.Uri.joinPath(workspaceRoot(), 'two-sources.answer.tml'));
      check(r && r.status === 'ERROR' && r.problems.length === 1 && r.problems[0].line === 2, 'the service refuses it, on the line of answer.tables (line 3)', r);
    },
  },
  {
    name: 'a query with an error TSQ reports is not sent: no run, no History entry',
    async fn() {
      const editor = await openUntitledTsq(`@datasource 'flights'\n${BAD_QUERY}\n`);
      const uri = editor.document.uri;
      await waitForDiagnostics(uri, (d) => d.some((x) => codeOf(x) === 'tsq.unknownColumn'), 'the unknown column');
      const summary = await vscode.commands.executeCommand('tsq.runQuery', { uri: uri.toString() });
      check(summary === undefined, 'Run Query sends nothing', summary);
      const api = /** @type {any} */ (await extensionApi());
      check(!api.getQueryHistory().some((/** @type {any} */ e) => e.query === BAD_QUERY), 'no run of it in the History', api.getQueryHistory());
    },
  },
  {
    name: 'run anyway, the service refuses it: its refusal is the tab\'s error, and no second problem at the same place',
    async fn() {
      const editor = await openUntitledTsq(`@datasource 'flights'\n${BAD_QUERY}\n`);
      const uri = editor.document.uri;
      await waitForDiagnostics(uri, (d) => d.some((x) => codeOf(x) === 'tsq.unknownColumn'), 'the unknown column');
      /** @type {any} */
      const summary = await vscode.commands.executeCommand('tsq.runQuery', { uri: uri.toString(), anyway: true });
      check(summary && typeof summary.error === 'string', 'the run fails with the service\'s error', summary);
      const api = /** @type {any} */ (await extensionApi());
      await waitFor(() => api.getQueryHistory().find((/** @type {any} */ e) => e.query === BAD_QUERY && e.outcome === 'error'), 'the failed run in the History');
      const errors = vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
      check(errors.length === 1 && codeOf(errors[0]) === 'tsq.unknownColumn', 'one problem: the language server\'s, with its quick fix', errors.map((d) => ({ code: codeOf(d), source: d.source, message: d.message })));
    },
  },
]);
