// @ts-check
// In-host suite of answers as code against the emulator started with --demo: connects as tsadmin, saves
// a query as an Answer (Save as Answer… with its name given, VALIDATE_ONLY then the import: the file
// gains its @answer line), finds it on the service, Open as Query gives the same query back, an edit and
// Update Answer (confirmed) change the saved answer (a re-export holds the new search_query), Show SQL on a
// file linked to it opens the SQL of metadata/answer/sql, and a bad
// column in an .answer.tml file, or in the second visualization of a .liveboard.tml, is a diagnostic on the
// column inside the YAML string (and completion there offers that visualization's columns); a query's run and
// Show Data of the saved answer are in the History, and Run Again shows the answer's data again. The service is
// read with plain fetch on REST API v2. Environment: TSQ_E2E_EMULATOR_URL (required).
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, extensionApi, check, openUntitledTsq, waitForDiagnostics, workspaceRoot, emulatorUrl, connectAsTsadmin } = require('./lib');

const QUERY = '[origin] [delay] top 3';
/** The query the History part runs (test/e2e/answers.test.ts looks for it in the view). */
const HISTORY_QUERY = '[destination] [distance] top 2';
/** @type {{ guid?: string }} */
const state = {};

/** A v2 call as tsadmin. @param {string} path @param {object} body */
async function v2(path, body) {
  const t = await fetch(`${emulatorUrl()}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
  const { token } = /** @type {{ token: string }} */ (await t.json());
  const r = await fetch(`${emulatorUrl()}/api/rest/2.0${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  return r.json();
}

/** The saved answer's search_query, from a JSON export. @param {string} guid */
async function savedQuery(guid) {
  const [o] = await v2('/metadata/tml/export', { metadata: [{ identifier: guid }] });
  return JSON.parse(o.edoc).answer.search_query;
}

module.exports = defineSuite([
  connectAsTsadmin,
  {
    name: 'Save as Answer… saves the query: the file gains its @answer line and the answer is on the service',
    async fn() {
      const editor = await openUntitledTsq(`@datasource 'flights'\n${QUERY}\n`);
      editor.selection = new vscode.Selection(1, 2, 1, 2);
      await vscode.commands.executeCommand('tsq.saveAsAnswer', { name: 'E2E delays' });
      const m = await waitFor(() => /^@answer '([0-9a-f-]{36})'$/m.exec(editor.document.getText()), 'the @answer line in the editor');
      state.guid = m[1];
      const found = await v2('/metadata/search', { metadata: [{ identifier: state.guid, type: 'ANSWER' }] });
      check(found.length === 1 && found[0].metadata_name === 'E2E delays', 'the answer is listed by metadata/search', found);
      check((await savedQuery(state.guid)) === QUERY, 'its search_query is the query');
    },
  },
  {
    name: 'Open as Query gives the same query back, linked by @answer',
    async fn() {
      const guid = /** @type {string} */ (state.guid);
      await vscode.commands.executeCommand('tsq.openAnswerAsQuery', { kind: 'object', type: 'QUESTION_ANSWER_BOOK', key: `object:QUESTION_ANSWER_BOOK:${guid}`, header: { id: guid, name: 'E2E delays' } });
      const text = await waitFor(() => {
        const t = vscode.window.activeTextEditor?.document.getText() ?? '';
        return t.includes(`@answer '${guid}'`) ? t : undefined;
      }, 'the opened query');
      check(text === `@answer '${guid}'\n@datasource 'flights'\n${QUERY}\n`, 'the .tsq text of the answer', text);
    },
  },
  {
    name: 'an edit and Update Answer change the saved answer; a re-export holds the new search_query',
    async fn() {
      const guid = /** @type {string} */ (state.guid);
      const editor = /** @type {vscode.TextEditor} */ (vscode.window.activeTextEditor);
      const line = editor.document.lineAt(2);
      await editor.edit((b) => b.replace(line.range, '[origin] [delay] top 5'));
      editor.selection = new vscode.Selection(2, 2, 2, 2);
      await vscode.window.showTextDocument(editor.document);
      await vscode.commands.executeCommand('tsq.updateAnswer', { confirm: true });
      const q = await waitFor(async () => ((await savedQuery(guid)) === '[origin] [delay] top 5' ? 'updated' : undefined), 'the saved search_query to change');
      check(q === 'updated', 'the answer holds the new query');
    },
  },
  {
    name: 'Show SQL on a file linked by @answer opens the SQL the service lists for that Answer',
    async fn() {
      const guid = /** @type {string} */ (state.guid);
      const sql = await v2('/metadata/answer/sql', { metadata_identifier: guid });
      const expected = `${sql.sql_queries.map((/** @type {{ sql_query: string }} */ q) => q.sql_query.replace(/\n+$/, '')).join('\n\n')}\n`;
      check(/SELECT/i.test(expected), 'the service lists SQL for the answer', sql);
      await openUntitledTsq(`@answer '${guid}'\n@datasource 'flights'\n${QUERY}\n`);
      await vscode.commands.executeCommand('tsq.showSql');
      const text = await waitFor(() => {
        const d = vscode.window.activeTextEditor?.document;
        return d && d.languageId !== 'tsq' && /SELECT/i.test(d.getText()) ? d.getText() : undefined;
      }, 'the SQL document');
      check(text === expected, 'the SQL of metadata/answer/sql', text);
    },
  },
  {
    name: 'a bad column in an .answer.tml is a diagnostic on the column inside the YAML string',
    async fn() {
      const uri = vscode.Uri.joinPath(workspaceRoot(), 'bad.answer.tml');
      const text = 'answer:\n  name: Bad\n  tables:\n  - name: flights\n  search_query: "[origin] [nope]"\n';
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      check(doc.languageId === 'tsq-answer-tml', 'the file is an Answer TML document', doc.languageId);
      const ds = await waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'tsq.unknownColumn' || (typeof x.code === 'object' && x.code.value === 'tsq.unknownColumn')), 'the unknown column');
      const d = ds.find((x) => x.code === 'tsq.unknownColumn' || (typeof x.code === 'object' && x.code.value === 'tsq.unknownColumn'));
      check(!!d && doc.getText(d.range) === 'nope' && d.range.start.line === 4, 'on "nope" of line 5', d && { range: d.range, text: doc.getText(d.range) });
    },
  },
  {
    name: 'a bad column in the second visualization of a .liveboard.tml is a diagnostic on the column inside its YAML string; completion there offers its own data source\'s columns',
    async fn() {
      const uri = vscode.Uri.joinPath(workspaceRoot(), 'bad.liveboard.tml');
      const text = 'liveboard:\n  name: Board\n  visualizations:\n  - id: Viz_1\n    answer:\n      name: Gross\n      tables:\n      - name: movies\n      search_query: "[Major Genre] [Worldwide Gross]"\n  - id: Viz_2\n    answer:\n      name: Bad\n      tables:\n      - name: flights\n      search_query: "[origin] [nope]"\n';
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      check(doc.languageId === 'tsq-liveboard-tml', 'the file is a Liveboard TML document', doc.languageId);
      const isUnknown = (/** @type {vscode.Diagnostic} */ x) => x.code === 'tsq.unknownColumn' || (typeof x.code === 'object' && x.code.value === 'tsq.unknownColumn');
      const ds = await waitForDiagnostics(uri, (d) => d.some(isUnknown), 'the unknown column');
      const bad = ds.filter(isUnknown);
      check(bad.length === 1 && doc.getText(bad[0].range) === 'nope' && bad[0].range.start.line === 14, 'one, on "nope" of line 15', bad.map((d) => ({ range: d.range, text: doc.getText(d.range) })));
      /** @type {vscode.CompletionList} */
      const list = await vscode.commands.executeCommand('vscode.executeCompletionItemProvider', uri, new vscode.Position(14, text.split('\n')[14].indexOf('[nope') + 1));
      const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
      check(labels.includes('delay') && !labels.includes('Major Genre'), 'the columns of flights, not of movies', labels.slice(0, 20));
    },
  },
  {
    name: 'a run of a query, and Show Data of a saved answer, are kept in the History (the page reloads the window and runs the query again)',
    async fn() {
      const editor = await openUntitledTsq(`@datasource 'flights'\n${HISTORY_QUERY}\n`);
      /** @type {any} */
      const summary = await vscode.commands.executeCommand('tsq.runQuery', { uri: editor.document.uri.toString() });
      check(summary && summary.rows === 2 && !summary.error, 'the query ran: 2 rows', summary);
      const api = /** @type {any} */ (await extensionApi());
      const kept = await waitFor(() => api.getQueryHistory().find((/** @type {any} */ e) => e.query === HISTORY_QUERY), 'the run in the history');
      check(kept.dataSource === 'flights' && kept.rows === 2 && kept.outcome === 'ok' && kept.connection === 'emulator', 'the run with its data source, rows, outcome and connection', kept);
      check(!JSON.stringify(api.getQueryHistory()).includes('admin'), 'no password in the history');
      // Show Data on the saved answer runs its search_query and is kept too; Run Again shows its data again
      const guid = /** @type {string} */ (state.guid);
      /** @type {any} */
      const [shown] = await vscode.commands.executeCommand('tsq.showData', { kind: 'object', type: 'QUESTION_ANSWER_BOOK', key: `object:QUESTION_ANSWER_BOOK:${guid}`, header: { id: guid, name: 'E2E delays' } });
      check(shown && shown.rows === 5 && !shown.error, 'Show Data of the answer: its 5 rows', shown);
      const ofAnswer = () => api.getQueryHistory().filter((/** @type {any} */ e) => e.answer?.id === guid);
      const entry = await waitFor(() => ofAnswer()[0], 'the Show Data run in the history');
      check(entry.query === '[origin] [delay] top 5' && entry.dataSource === 'flights' && entry.rows === 5 && entry.outcome === 'ok' && entry.answer.kind === 'answer', 'the answer\'s search_query, data source, rows and outcome', entry);
      await vscode.commands.executeCommand('tsq.history.runAgain', entry);
      await waitFor(() => (ofAnswer().length === 2 ? true : undefined), 'Run Again of the Show Data run in the history');
      check(!JSON.stringify(api.getQueryHistory()).includes('admin'), 'no password in the history');
    },
  },
]);
