// @ts-check
// In-host smoke suite: what works with no connection at all — activation when a .tsq file opens,
// keyword completion, and a syntax diagnostic. Runs inside the extension host (real `vscode` API)
// through the runner extension (test/e2e/smoke.test.ts) or @vscode/test-electron (npm run test:vscode).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const { EXTENSION_ID, defineSuite, waitFor, workspaceRoot, openWorkspaceFile, extensionApi, completionsAt, labelOf, waitForDiagnostics, check } = require('./lib');

/** Keywords of docs/service-notes.md section 2 that any keyword completion offers after a column. */
const KEYWORDS = ['top', 'bottom', 'sort by', 'count', 'sum', 'average'];

module.exports = defineSuite([
  {
    name: 'the extension activates when a .tsq file opens',
    async fn() {
      const ext = await waitFor(() => vscode.extensions.getExtension(EXTENSION_ID), `${EXTENSION_ID} to be installed`);
      // The harness can start with the .tsq files held back (TSQ_E2E_DEFERRED_DIR): then nothing has
      // activated the extension yet, and the files arrive only now.
      const deferred = process.env.TSQ_E2E_DEFERRED_DIR;
      if (deferred) {
        check(!ext.isActive, `${EXTENSION_ID} is not active before any .tsq file exists or opens`);
        for (const f of fs.readdirSync(deferred)) fs.copyFileSync(path.join(deferred, f), path.join(workspaceRoot().fsPath, f));
        check(!ext.isActive, `${EXTENSION_ID} is not active before a .tsq file opens`);
      }
      const editor = await openWorkspaceFile('smoke.tsq');
      check(editor.document.languageId === 'tsq', 'smoke.tsq opens in the tsq language', editor.document.languageId);
      await waitFor(() => ext.isActive, `${EXTENSION_ID} to activate`);
      const api = await extensionApi();
      check(['none', 'connecting', 'connected', 'error'].includes(api.getConnectionState().state), 'getConnectionState() gives a known state', api.getConnectionState());
    },
  },
  {
    name: 'keyword completion without a connection',
    async fn() {
      const editor = await openWorkspaceFile('smoke.tsq');
      const doc = editor.document;
      const line = doc.lineAt(1);
      // After "[delay] " the query expects a keyword or another column.
      const position = new vscode.Position(1, '[delay] '.length);
      check(line.text.startsWith('[delay] '), 'fixture line 2 starts with "[delay] "', line.text);
      const labels = await waitFor(async () => {
        const items = (await completionsAt(doc, position)).map(labelOf);
        return KEYWORDS.filter((k) => items.some((l) => l.toLowerCase() === k || l.toLowerCase().startsWith(`${k} `))).length >= 3 ? items : undefined;
      }, `at least three of ${KEYWORDS.join(', ')} among the completions`);
      check(labels.length > 0, 'completion items', labels);
    },
  },
  {
    name: 'a syntax error becomes an Error diagnostic',
    async fn() {
      const editor = await openWorkspaceFile('syntax-error.tsq');
      const diags = await waitForDiagnostics(editor.document.uri, (d) => d.some((x) => x.severity === vscode.DiagnosticSeverity.Error), 'an Error diagnostic');
      const err = diags.find((x) => x.severity === vscode.DiagnosticSeverity.Error);
      check(err && err.range.start.line === 1, 'the error is on the line with the unterminated [origin', diags.map((d) => ({ line: d.range.start.line, message: d.message })));
    },
  },
]);
