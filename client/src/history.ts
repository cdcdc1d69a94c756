/**
 * The History view (`tsq.history`): every run of a query (common/src/results/history.ts), newest first,
 * kept in the workspace's storage folder of the extension (`history.json` under `storageUri`, written at
 * each run, so per workspace and across restarts; the workspace-state memento when there is no
 * folder), bounded, never a credential.
 * Search filters it; **Run Again** opens the query in a `.tsq` editor and runs it, **Open in Editor**
 * only opens it. A Show Data run (of a saved answer, a pinboard or a visualization) is run again by Show
 * Data on the same object; Open in Editor opens a saved answer's query with its `@answer` link.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { addToHistory, readHistory, searchHistory, type HistoryAnswer, type HistoryEntry } from '../../common/src/results/history';
import { tsqOfAnswer } from '../../common/src/tml/answerLink';
import { memberOf } from '../../common/src/guards';
import { namedObjectNode } from './tree/nodes';

/** The workspace-state key of the history. */
const KEY = 'tsq.queryHistory';

/** The query history of the workspace and its tree data provider. */
export class QueryHistory implements vscode.TreeDataProvider<HistoryEntry>, vscode.Disposable {
  private entries: HistoryEntry[];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The search text of the view ('' shows every entry). */
  filter = '';

  private readonly file: vscode.Uri | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Resolves once the stored history is read. */
  readonly loaded: Promise<void>;

  /**
   * @param state the workspace-state memento (used without a storage folder)
   * @param folder the extension's storage folder of this workspace (`ExtensionContext.storageUri`)
   */
  constructor(private readonly state: vscode.Memento, folder: vscode.Uri | undefined) {
    this.file = folder && vscode.Uri.joinPath(folder, 'history.json');
    this.entries = readHistory(state.get(KEY));
    this.loaded = this.load();
  }

  private async load(): Promise<void> {
    if (!this.file) return;
    try {
      const stored = readHistory(JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(this.file))));
      const ids = new Set(this.entries.map((e) => e.id));
      // runs recorded before the file was read stay first
      for (const e of stored) if (!ids.has(e.id)) this.entries.push(e);
      this.entries = readHistory(this.entries);
      this.changed.fire();
    } catch {
      // no history yet, or an unreadable file: start empty (the next run writes a new one)
    }
  }

  /** Stores the history: the file (one write at a time), else the memento. */
  private save(): void {
    const entries = this.entries;
    if (!this.file) {
      void this.state.update(KEY, entries);
      return;
    }
    const file = this.file;
    this.writing = this.writing.then(async () => {
      await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(file, '..'));
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(JSON.stringify(entries)));
    }).catch(() => undefined);
  }

  /** Adds a run (newest first) and stores the history. */
  record(entry: Omit<HistoryEntry, 'id'>): void {
    this.entries = addToHistory(this.entries, { ...entry, id: randomUUID() });
    this.save();
    this.changed.fire();
  }

  /** The entries the view shows (the search applied). */
  visible(): HistoryEntry[] {
    return searchHistory(this.entries, this.filter);
  }

  /** Forgets every entry. */
  async clear(): Promise<void> {
    this.entries = [];
    this.save();
    await this.writing;
    this.changed.fire();
  }

  refresh(): void {
    this.changed.fire();
  }

  getTreeItem(e: HistoryEntry): vscode.TreeItem {
    const item = new vscode.TreeItem(e.query.split('\n')[0]!.slice(0, 80) || '(empty)');
    const when = new Date(e.startedAt).toLocaleString();
    const shown = e.answer ? `Show Data of ${e.answer.kind} ${e.answer.name} · ` : '';
    item.description = `${shown}${e.dataSource ?? '(no data source)'} · ${e.outcome === 'ok' ? `${e.rows.toLocaleString()} rows` : e.outcome} · ${e.durationMs} ms · ${when}`;
    item.iconPath = new vscode.ThemeIcon(e.outcome === 'ok' ? 'pass' : e.outcome === 'error' ? 'error' : 'circle-slash');
    const md = new vscode.MarkdownString(undefined, false);
    md.appendCodeblock(e.query, 'tsq');
    md.appendText(`${e.dataSource ?? ''}${e.connection ? ` on ${e.connection}` : ''}, ${when}, ${e.durationMs} ms${e.error ? `\n${e.error}` : ''}`);
    item.tooltip = md;
    item.contextValue = 'tsq:history';
    item.command = { command: 'tsq.history.openInEditor', title: 'Open in Editor', arguments: [e] };
    return item;
  }

  getChildren(element?: HistoryEntry): HistoryEntry[] {
    return element ? [] : this.visible();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function isEntry(v: unknown): v is HistoryEntry {
  return !!v && typeof v === 'object' && typeof memberOf(v, 'query') === 'string';
}

/** The Objects view node Show Data takes for the object of a Show Data run (client/src/tree/nodes.ts `ObjectNode`). */
function nodeOf(a: HistoryAnswer): unknown {
  const header = { id: a.id, name: a.name };
  if (a.kind === 'visualization') return { kind: 'viz', key: `viz:${a.pinboardId}:${a.id}`, header, parentId: a.pinboardId, parentType: 'PINBOARD_ANSWER_BOOK' };
  return namedObjectNode(a.kind === 'answer' ? 'QUESTION_ANSWER_BOOK' : 'PINBOARD_ANSWER_BOOK', a);
}

/**
 * A `.tsq` document of an entry: its `@datasource` and query (and the `@answer` link of a saved answer's
 * run); undefined, with a message, for a pinboard's run, which has no query text.
 */
async function openEntry(e: HistoryEntry): Promise<vscode.TextDocument | undefined> {
  if (e.answer && (e.answer.kind !== 'answer' || !e.dataSource)) {
    void vscode.window.showInformationMessage(`TSQ: the data of the ${e.answer.kind} ${e.answer.name} has no query text to open; Run Again shows its data again.`);
    return undefined;
  }
  const ds = e.dataSource && !e.dataSource.includes("'") ? `@datasource '${e.dataSource}'\n` : '';
  const content = e.answer && e.dataSource ? tsqOfAnswer({ guid: e.answer.id, name: e.answer.name, dataSource: e.dataSource, query: e.query }) : `${ds}${e.query}\n`;
  const doc = await vscode.workspace.openTextDocument({ language: 'tsq', content });
  await vscode.window.showTextDocument(doc);
  return doc;
}

/**
 * The editor of an entry's query for Run Again: the file it ran from (`source`), in the editor that
 * shows it when one does, else opened; without a source, an open `.tsq` document holding the query;
 * else a new untitled document of it (`openEntry`). Undefined, with a message, when the file cannot be
 * opened (never an untitled copy of a file's query).
 */
async function editorOfEntry(e: HistoryEntry): Promise<vscode.TextDocument | undefined> {
  const open = (doc: vscode.TextDocument): Thenable<vscode.TextEditor> => {
    const uri = doc.uri.toString();
    const visible = vscode.window.visibleTextEditors.find((ed) => ed.document.uri.toString() === uri);
    const tabGroup = vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri));
    return vscode.window.showTextDocument(doc, { viewColumn: visible?.viewColumn ?? tabGroup?.viewColumn, preview: false });
  };
  if (e.source?.startsWith('file:')) {
    try {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(e.source, true));
      await open(doc);
      return doc;
    } catch (err) {
      void vscode.window.showErrorMessage(`TSQ: could not open ${e.source}, where this query ran from: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }
  const wanted = e.query.trim();
  const holding = vscode.workspace.textDocuments.find((d) => d.languageId === 'tsq' && !d.isClosed && d.getText().includes(wanted));
  if (holding) {
    await open(holding);
    return holding;
  }
  return openEntry(e);
}

/** Registers the History view and its commands. */
export function registerHistoryView(extension: vscode.ExtensionContext, history: QueryHistory): void {
  const view = vscode.window.createTreeView('tsq.history', { treeDataProvider: history });
  const describe = (): void => {
    view.description = history.filter ? `matching "${history.filter}"` : undefined;
  };
  const register = (id: string, fn: (...args: unknown[]) => unknown): void => {
    extension.subscriptions.push(vscode.commands.registerCommand(id, fn));
  };
  extension.subscriptions.push(view, history);
  register('tsq.history.openInEditor', async (e?: unknown) => {
    if (isEntry(e)) await openEntry(e);
  });
  register('tsq.history.runAgain', async (e?: unknown) => {
    if (!isEntry(e)) return;
    if (e.answer) {
      await vscode.commands.executeCommand('tsq.showData', nodeOf(e.answer));
      return;
    }
    const doc = await editorOfEntry(e);
    if (doc) await vscode.commands.executeCommand('tsq.runQuery', { uri: doc.uri.toString(), query: e.query });
  });
  register('tsq.history.search', async (text?: unknown) => {
    const value = typeof text === 'string' ? text : await vscode.window.showInputBox({ title: 'TSQ: Search History', prompt: 'Text in the query, data source or connection. Empty shows every run.', value: history.filter });
    if (value === undefined) return;
    history.filter = value.trim();
    describe();
    history.refresh();
  });
  register('tsq.history.clear', async () => {
    const ok = await vscode.window.showWarningMessage('Forget every query run of this workspace?', { modal: true }, 'Clear History');
    if (ok === 'Clear History') await history.clear();
  });
}
