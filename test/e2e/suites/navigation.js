// @ts-check
// In-host suite of navigation, with no connection: writes a .tsq file and an Answer TML into the
// workspace (the language server's index picks them up from disk), renames a column from the .tsq file
// through VS Code's rename provider and applies the edit: the Answer TML's search_query changes too, and
// its YAML still reads; go to definition of a column no file declares opens the server's read-only tsq:
// document; the ▶ Run lenses of the .tsq file are the server's, mapped onto tsq.runQuery.
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, check, workspaceRoot, extensionApi } = require('./lib');

const TSQ = "@datasource 'flights'\n[origin] [delay] top 3\n\nsum [delay] by [origin]\n";
const ANSWER = 'answer:\n  name: Delays by origin\n  tables:\n  - id: flights\n    name: flights\n  search_query: "[origin] [delay] [flights::delay] > 10"\n';
const file = (/** @type {string} */ name) => vscode.Uri.joinPath(workspaceRoot(), name);

module.exports = defineSuite([
  {
    name: 'a rename from a .tsq file edits the Answer TML too',
    async fn() {
      await extensionApi();
      await vscode.workspace.fs.writeFile(file('nav.answer.tml'), new TextEncoder().encode(ANSWER));
      await vscode.workspace.fs.writeFile(file('nav.tsq'), new TextEncoder().encode(TSQ));
      const doc = await vscode.workspace.openTextDocument(file('nav.tsq'));
      await vscode.window.showTextDocument(doc, { preview: false });
      const at = new vscode.Position(1, TSQ.split('\n')[1].indexOf('delay') + 1);
      /** @type {vscode.WorkspaceEdit} */
      const edit = await waitFor(async () => {
        /** @type {vscode.WorkspaceEdit | undefined} */
        const e = await vscode.commands.executeCommand('vscode.executeDocumentRenameProvider', doc.uri, at, 'arrival delay');
        return e && e.get(file('nav.answer.tml')).length === 2 ? e : undefined;
      }, 'a rename edit over the answer TML');
      check(edit.get(doc.uri).length === 2, 'two edits in nav.tsq', edit.get(doc.uri).length);
      check(await vscode.workspace.applyEdit(edit), 'the edit applies');
      const answer = await vscode.workspace.openTextDocument(file('nav.answer.tml'));
      check(answer.getText() === ANSWER.replace('[delay]', '[arrival delay]').replace('[flights::delay]', '[flights::arrival delay]'), 'the answer names the new column', answer.getText());
      check(doc.getText() === TSQ.replace(/\[delay\]/g, '[arrival delay]'), 'the .tsq file too', doc.getText());
      await vscode.workspace.saveAll(false);
    },
  },
  {
    name: 'go to definition of a column no file declares opens the server\'s tsq: document',
    async fn() {
      const doc = await vscode.workspace.openTextDocument(file('nav.tsq'));
      /** @type {vscode.Location[]} */
      const locations = await vscode.commands.executeCommand('vscode.executeDefinitionProvider', doc.uri, new vscode.Position(1, 2));
      check(locations.length === 1 && locations[0].uri.scheme === 'tsq', 'one tsq: location', locations.map((l) => l.uri.toString()));
      const shown = await vscode.workspace.openTextDocument(locations[0].uri);
      check(shown.getText().includes('# [origin]') && shown.getText().includes('flights'), 'its text names the column and the data source', shown.getText());
    },
  },
  {
    name: 'the ▶ Run lenses are the server\'s, run by tsq.runQuery, one per query',
    async fn() {
      const doc = await vscode.workspace.openTextDocument(file('nav.tsq'));
      /** @type {vscode.CodeLens[]} */
      const lenses = await waitFor(async () => {
        /** @type {vscode.CodeLens[]} */
        const l = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', doc.uri, 10);
        return l && l.length ? l : undefined;
      }, 'the lenses');
      check(lenses.length === 2 && lenses.every((l) => l.command && l.command.command === 'tsq.runQuery'), 'two Run lenses, no second set', lenses.map((l) => l.command && l.command.command));
      check(JSON.stringify(lenses.map((l) => l.range.start.line)) === '[1,3]', 'above each query', lenses.map((l) => l.range.start.line));
    },
  },
]);
