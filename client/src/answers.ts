/**
 * Answers as code in VS Code (docs/service-interface.md §11): on an Answer of the Objects view **Open as
 * Query** (a `.tsq` document with `@answer`, `@datasource` and the query) and **Export TML** (a
 * `.answer.tml` file); in a `.tsq` editor **Save as Answer…** (a name, `VALIDATE_ONLY` first, then the
 * import; the new GUID written as the file's `@answer` line) and **Update Answer** (the TML diff shown
 * first — both sides as the service keeps them, `answerUpdateOf`: without `answer_columns`, which the
 * service derives again from the search — then `VALIDATE_ONLY` and the import) and **Show SQL** (the SQL the
 * service runs behind the linked Answer, `answerSql`, in a read-only SQL document; also on an Answer of the
 * Objects view). The TML calls are the service client's operations
 * (`exportTml`, `importTml` of SERVICE_OPERATIONS, common/src/api/operations.ts), the conversions
 * common/src/tml/answerLink.ts.
 */
import * as vscode from 'vscode';
import { sqlTextOf, type AnalyticsServiceClient, type ImportedTmlObject } from '../../common/src/api';
import { QueriesRequest, type DocumentQuery } from '../../common/src/protocol';
import { answerLinkOf, answerQueryOf, answerTmlOf, answerUpdateOf, tsqOfAnswer, withAnswerLink } from '../../common/src/tml/answerLink';
import { writeFileSafely } from '../../common/src/safeWrite';
import type { TsqClient } from './context';
import { errorMessage } from './service';

/** The URI scheme of the read-only TML documents the Update Answer diff shows. */
const DIFF_SCHEME = 'tsq-tml';

/** The Objects view node of an answer (only what these commands read). */
interface AnswerNode {
  kind: 'object';
  type: string;
  header: { id: string; name: string };
}

function isAnswerNode(v: unknown): v is AnswerNode {
  const n = v as AnswerNode | undefined;
  return !!n && n.kind === 'object' && n.type === 'QUESTION_ANSWER_BOOK' && typeof n.header?.id === 'string';
}

/** The service's message for an object it did not import, or undefined when it did. */
function failureOf(r: ImportedTmlObject | undefined): string | undefined {
  if (!r) return 'the service answered nothing for the answer';
  return r.status.status_code === 'OK' || r.status.status_code === 'WARNING' ? undefined : r.status.error_message ?? r.status.status_code;
}

/** `VALIDATE_ONLY`, then the import under PARTIAL; the imported answer's GUID. @throws Error with the service's text when either fails. */
async function validateThenImport(api: AnalyticsServiceClient, tml: string): Promise<string | undefined> {
  const [checked] = await api.importTml([tml], 'VALIDATE_ONLY');
  const invalid = failureOf(checked);
  if (invalid) throw new Error(`The service did not accept the answer: ${invalid}`);
  const [imported] = await api.importTml([tml], 'PARTIAL');
  const failed = failureOf(imported);
  if (failed) throw new Error(`The import failed: ${failed}`);
  return imported?.header?.id_guid;
}

/** The exported YAML TML of an answer. @throws Error with the service's text when it is not exported. */
async function exportAnswer(api: AnalyticsServiceClient, id: string): Promise<{ name: string; edoc: string }> {
  const [o] = await api.exportTml([{ identifier: id, type: 'ANSWER' }], { format: 'YAML' });
  if (!o || o.info.status.status_code === 'ERROR') throw new Error(`The service did not export the answer ${id}: ${o?.info.status.error_message ?? 'no answer'}`);
  return { name: o.info.name, edoc: o.edoc };
}

/**
 * The search_query and data source (of `tables`) of a saved answer, from its exported TML: what Show Data
 * on an answer runs. @throws Error with the service's text when it is not exported, or when the TML lacks them
 */
export async function answerQueryText(api: AnalyticsServiceClient, id: string): Promise<{ text: string; dataSource: string }> {
  const a = answerQueryOf((await exportAnswer(api, id)).edoc);
  return { text: a.query, dataSource: a.dataSource };
}

type Fail = (what: string, e: unknown) => void;

/** The query at the cursor of the active .tsq editor (or the first), from the language server; undefined (with a warning) when there is none. */
async function queryHere(client: TsqClient): Promise<{ editor: vscode.TextEditor; query: DocumentQuery } | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'tsq') {
    void vscode.window.showWarningMessage('TSQ: open a .tsq file and put the cursor in a query.');
    return undefined;
  }
  await client.languageClient.whenReady();
  const lc = client.languageClient.languageClient;
  if (!lc) throw new Error('The TSQ language server is not running.');
  const queries = await lc.sendRequest(QueriesRequest, { uri: lc.code2ProtocolConverter.asUri(editor.document.uri) });
  const p = editor.selection.active;
  const query = queries.find((q) => q.range.start.line <= p.line && p.line <= q.range.end.line) ?? queries[0];
  if (!query) {
    void vscode.window.showWarningMessage('TSQ: there is no query in this file.');
    return undefined;
  }
  if (!query.dataSource) {
    void vscode.window.showWarningMessage('TSQ: the query has no data source: add an @datasource line.');
    return undefined;
  }
  return { editor, query };
}

async function openAsQuery(client: TsqClient, fail: Fail, node: unknown): Promise<void> {
  if (!isAnswerNode(node)) return;
  try {
    const { edoc } = await exportAnswer(await client.connections.getClient(), node.header.id);
    const doc = await vscode.workspace.openTextDocument({ language: 'tsq', content: tsqOfAnswer(answerQueryOf(edoc)) });
    await vscode.window.showTextDocument(doc);
  } catch (e) {
    fail(`Open as Query of ${node.header.name}`, e);
  }
}

async function exportTml(client: TsqClient, fail: Fail, node: unknown): Promise<void> {
  if (!isAnswerNode(node)) return;
  try {
    const { name, edoc } = await exportAnswer(await client.connections.getClient(), node.header.id);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const file = `${name.replace(/[/\\:*?"<>|]/g, '_')}.answer.tml`;
    const target = await vscode.window.showSaveDialog({ title: `Export TML of ${name}`, defaultUri: folder ? vscode.Uri.joinPath(folder, file) : undefined, filters: { 'Answer TML': ['tml'] } });
    if (!target) return;
    // a file on disk is written whole and never through a link (common/src/safeWrite.ts); another file system is VS Code's
    if (target.scheme === 'file') await writeFileSafely(target.fsPath, edoc);
    else await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(edoc));
    await vscode.window.showTextDocument(target);
  } catch (e) {
    fail(`Export TML of ${node.header.name}`, e);
  }
}

/** Arguments of Save as Answer… and Update Answer from a script or test: `name` skips the prompt, `confirm` the modal after the diff. */
interface AnswerCommandArgs {
  name?: string;
  confirm?: boolean;
}

const argsOf = (v: unknown): AnswerCommandArgs => (v && typeof v === 'object' && !(v instanceof vscode.Uri) ? (v as AnswerCommandArgs) : {});

async function saveAsAnswer(client: TsqClient, fail: Fail, changed: () => void, args: AnswerCommandArgs): Promise<void> {
  try {
    const here = await queryHere(client);
    if (!here) return;
    const { editor, query } = here;
    const base = editor.document.uri.path.split('/').pop()?.replace(/\.tsq$/i, '') ?? '';
    const name = typeof args.name === 'string' && args.name.trim() ? args.name : await vscode.window.showInputBox({ title: 'TSQ: Save as Answer', prompt: 'Name of the new answer', value: base, validateInput: (v) => (v.trim() ? undefined : 'An answer needs a name.') });
    if (!name) return;
    const tml = answerTmlOf({ name: name.trim(), dataSource: query.dataSource!, query: query.text });
    const guid = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Saving the answer ${name}…` }, async () => validateThenImport(await client.connections.getClient(), tml));
    if (guid) {
      const text = editor.document.getText();
      const edit = new vscode.WorkspaceEdit();
      edit.replace(editor.document.uri, new vscode.Range(editor.document.positionAt(0), editor.document.positionAt(text.length)), withAnswerLink(text, guid));
      await vscode.workspace.applyEdit(edit);
    }
    changed();
    void vscode.window.showInformationMessage(`TSQ: saved as the answer ${name}.`);
  } catch (e) {
    fail('Save as Answer', e);
  }
}

async function updateAnswer(client: TsqClient, fail: Fail, changed: () => void, showDiff: (guid: string, saved: string, next: string, title: string) => Promise<void>, args: AnswerCommandArgs): Promise<void> {
  try {
    const here = await queryHere(client);
    if (!here) return;
    const { editor, query } = here;
    const link = answerLinkOf(editor.document.getText());
    if (!link) {
      void vscode.window.showWarningMessage("TSQ: this file has no @answer 'GUID' line: use Save as Answer… first, or Open as Query on an answer.");
      return;
    }
    const api = await client.connections.getClient();
    const current = await exportAnswer(api, link.guid);
    // both sides as the service keeps them: the members it derives again (answer_columns) are in neither
    const { saved, next } = answerUpdateOf(current.edoc, { guid: link.guid, name: current.name, dataSource: query.dataSource!, query: query.text });
    await showDiff(link.guid, saved, next, `${current.name}: saved ↔ update`);
    const ok = args.confirm === true ? 'Update' : await vscode.window.showInformationMessage(`Update the answer ${current.name} with this TML?`, { modal: true }, 'Update');
    if (ok !== 'Update') return;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Updating the answer ${current.name}…` }, () => validateThenImport(api, next));
    changed();
    void vscode.window.showInformationMessage(`TSQ: the answer ${current.name} was updated.`);
  } catch (e) {
    fail('Update Answer', e);
  }
}

/**
 * Show SQL: the SQL the service runs behind an Answer (v2 `metadata/answer/sql`; the service gives none of
 * an ad-hoc search: docs/service-notes.md §13) in a new SQL document. The Answer is the Objects view node
 * given, else the `@answer` line of the active `.tsq` editor.
 */
async function showSql(client: TsqClient, fail: Fail, node: unknown): Promise<void> {
  try {
    const editor = vscode.window.activeTextEditor;
    const guid = isAnswerNode(node) ? node.header.id : editor?.document.languageId === 'tsq' ? answerLinkOf(editor.document.getText())?.guid : undefined;
    if (!guid) {
      void vscode.window.showWarningMessage("TSQ: Show SQL needs a saved Answer: the service gives no SQL of an ad-hoc search. Use Save as Answer… first (the file gains its @answer 'GUID' line).");
      return;
    }
    const sql = await (await client.connections.getClient()).answerSql(guid);
    const doc = await vscode.workspace.openTextDocument({ language: 'sql', content: `${sqlTextOf(sql)}\n` });
    await vscode.window.showTextDocument(doc, { preview: true });
  } catch (e) {
    fail('Show SQL', e);
  }
}

/** Registers the answer commands and the read-only TML documents of the Update Answer diff. */
export function registerAnswerCommands(client: TsqClient, changed: () => void): void {
  const { extension, log } = client;
  const diffDocs = new Map<string, string>();
  const diffChanged = new vscode.EventEmitter<vscode.Uri>();
  extension.subscriptions.push(
    diffChanged,
    vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, { onDidChange: diffChanged.event, provideTextDocumentContent: (uri) => diffDocs.get(uri.toString()) ?? '' }),
  );
  const fail: Fail = (what, e) => {
    log.error(`${what} failed: ${errorMessage(e)}`);
    void vscode.window.showErrorMessage(`TSQ: ${what} failed: ${errorMessage(e)}`, 'Show Log').then((c) => c && log.show());
  };
  const showDiff = async (guid: string, saved: string, next: string, title: string): Promise<void> => {
    const left = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${guid}/saved.answer.tml` });
    const right = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${guid}/update.answer.tml` });
    diffDocs.set(left.toString(), saved);
    diffDocs.set(right.toString(), next);
    diffChanged.fire(left);
    diffChanged.fire(right);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
  };
  const register = (id: string, fn: (...args: unknown[]) => unknown): void => {
    extension.subscriptions.push(vscode.commands.registerCommand(id, fn));
  };
  register('tsq.openAnswerAsQuery', (node?: unknown) => openAsQuery(client, fail, node));
  register('tsq.exportAnswerTml', (node?: unknown) => exportTml(client, fail, node));
  register('tsq.saveAsAnswer', (args?: unknown) => saveAsAnswer(client, fail, changed, argsOf(args)));
  register('tsq.updateAnswer', (args?: unknown) => updateAnswer(client, fail, changed, showDiff, argsOf(args)));
  register('tsq.showSql', (node?: unknown) => showSql(client, fail, node));
}
