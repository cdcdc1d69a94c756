// @ts-check
// In-host suite of the Uses view against the emulator started with --demo: connects as tsadmin, writes a
// .tsq file and an Answer TML that both use [delay] of flights (the TML writes it [Delay]; the language
// server's index picks both up from disk), waits until the server finds the TML's use, asks TSQ: Show Uses
// with a position as argument (it resolves once the view shows the uses; on no column, once the view says
// so), and leaves for test/e2e/uses.test.ts the view showing that message, the .tsq editor with the cursor
// on [delay] and, active, the TML editor with the cursor on [Delay] inside its search_query string: the
// test runs TSQ: Show Uses from the palette on each and reads the view's rows.
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, check, workspaceRoot, connectAsTsadmin } = require('./lib');

const TSQ = "@datasource 'flights'\n[origin] [delay] top 3\n";
const ANSWER = 'answer:\n  name: Delays of the workspace\n  tables:\n  - id: flights\n    name: flights\n  search_query: "[origin] [Delay]"\n';
const file = (/** @type {string} */ name) => vscode.Uri.joinPath(workspaceRoot(), name);

/** Opens a file's editor with the cursor inside the first `needle` after `after` (`delta` characters in). */
async function showAt(/** @type {string} */ name, /** @type {string} */ text, /** @type {string} */ after, /** @type {string} */ needle, delta = 1) {
  const doc = await vscode.workspace.openTextDocument(file(name));
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  const at = doc.positionAt(text.indexOf(needle, text.indexOf(after)) + delta);
  editor.selection = new vscode.Selection(at, at);
  return { doc, at };
}

module.exports = defineSuite([
  connectAsTsadmin,
  {
    name: 'the language server finds the Answer TML\'s use of the .tsq file\'s column',
    async fn() {
      await vscode.workspace.fs.writeFile(file('uses.answer.tml'), new TextEncoder().encode(ANSWER));
      await vscode.workspace.fs.writeFile(file('uses.tsq'), new TextEncoder().encode(TSQ));
      const { doc, at } = await showAt('uses.tsq', TSQ, '[origin]', 'delay');
      await waitFor(async () => {
        /** @type {vscode.Location[]} */
        const refs = await vscode.commands.executeCommand('vscode.executeReferenceProvider', doc.uri, at);
        return refs && refs.some((r) => r.uri.toString() === file('uses.answer.tml').toString());
      }, 'a reference in uses.answer.tml');
    },
  },
  {
    name: 'TSQ: Show Uses on a given position resolves, on a column and on none',
    async fn() {
      const editor = vscode.window.activeTextEditor;
      check(editor && editor.document.uri.toString() === file('uses.tsq').toString(), 'uses.tsq is the active editor', editor && editor.document.uri.toString());
      const at = /** @type {vscode.TextEditor} */ (editor).selection.active;
      await vscode.commands.executeCommand('tsq.showUses', { uri: file('uses.tsq').toString(), position: { line: at.line, character: at.character } });
      // `top` is no column: the view now says so, and the test's runs from the palette fill it again
      const top = /** @type {vscode.TextEditor} */ (editor).document.positionAt(TSQ.indexOf('top') + 1);
      await vscode.commands.executeCommand('tsq.showUses', { uri: file('uses.tsq').toString(), position: { line: top.line, character: top.character } });
    },
  },
  {
    name: 'the Answer TML\'s editor is active with the cursor on [Delay] of its search_query',
    async fn() {
      const { doc, at } = await showAt('uses.answer.tml', ANSWER, 'search_query', 'Delay');
      /** @type {vscode.Location[]} */
      const refs = await vscode.commands.executeCommand('vscode.executeReferenceProvider', doc.uri, at);
      check(refs && refs.some((r) => r.uri.toString() === file('uses.tsq').toString()), 'the TML\'s [Delay] has the .tsq file\'s [delay] among its references', JSON.stringify(refs));
    },
  },
]);
