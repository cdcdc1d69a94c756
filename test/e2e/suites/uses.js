// @ts-check
// In-host suite of the Uses view against the emulator started with --demo: connects as tsadmin, writes a
// .tsq file and an Answer TML that both use [delay] of flights (the language server's index picks them up
// from disk), waits until the server finds the TML's use, asks TSQ: Show Uses with the cursor's position as
// argument (it resolves once the view shows the uses), and leaves the .tsq editor open with the cursor on
// [delay] for test/e2e/uses.test.ts, which runs TSQ: Show Uses from the palette and reads the view's rows.
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, check, workspaceRoot, connectAsTsadmin } = require('./lib');

const TSQ = "@datasource 'flights'\n[origin] [delay] top 3\n";
const ANSWER = 'answer:\n  name: Delays of the workspace\n  tables:\n  - id: flights\n    name: flights\n  search_query: "[origin] [delay]"\n';
const file = (/** @type {string} */ name) => vscode.Uri.joinPath(workspaceRoot(), name);

module.exports = defineSuite([
  connectAsTsadmin,
  {
    name: 'the language server finds the Answer TML\'s use of the .tsq file\'s column',
    async fn() {
      await vscode.workspace.fs.writeFile(file('uses.answer.tml'), new TextEncoder().encode(ANSWER));
      await vscode.workspace.fs.writeFile(file('uses.tsq'), new TextEncoder().encode(TSQ));
      const doc = await vscode.workspace.openTextDocument(file('uses.tsq'));
      const editor = await vscode.window.showTextDocument(doc, { preview: false });
      const at = new vscode.Position(1, TSQ.split('\n')[1].indexOf('delay') + 1);
      editor.selection = new vscode.Selection(at, at);
      await waitFor(async () => {
        /** @type {vscode.Location[]} */
        const refs = await vscode.commands.executeCommand('vscode.executeReferenceProvider', doc.uri, at);
        return refs && refs.some((r) => r.uri.toString() === file('uses.answer.tml').toString());
      }, 'a reference in uses.answer.tml');
    },
  },
  {
    name: 'TSQ: Show Uses on a given position resolves, and leaves the .tsq editor active on the column',
    async fn() {
      const editor = vscode.window.activeTextEditor;
      check(editor && editor.document.uri.toString() === file('uses.tsq').toString(), 'uses.tsq is the active editor', editor && editor.document.uri.toString());
      const at = /** @type {vscode.TextEditor} */ (editor).selection.active;
      await vscode.commands.executeCommand('tsq.showUses', { uri: file('uses.tsq').toString(), position: { line: at.line, character: at.character } });
      await vscode.window.showTextDocument(/** @type {vscode.TextEditor} */ (editor).document, { preview: false });
    },
  },
]);
