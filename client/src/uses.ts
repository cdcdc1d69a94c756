/**
 * The Uses view (`tsq.uses`): who uses a column, opened by TSQ: Show Uses on a column of a `.tsq` or TML
 * file. First the workspace's uses, grouped by file (the language server's `tsq/uses`, over its workspace
 * index), then the service's dependents of that column (answers, liveboards, worksheets and models:
 * `columnDependents`, common/src/catalog/dependents.ts), or of its data source when the service lists no
 * such column. A use opens its file at the range; a dependent opens as the Objects view would open it.
 */
import * as vscode from 'vscode';
import { UsesRequest, type UsesAnswer } from '../../common/src/protocol';
import { columnDependents } from '../../common/src/catalog/dependents';
import type { TsqClient } from './context';
import { errorMessage } from './service';
import { commandRegistrar } from './commands';
import { childrenOf, fileNodes, rowOf, serviceNode, shownColumn, USES_HINT, type UsesNode } from './usesRows';

/** The tree data provider of the Uses view: the uses of one column at a time (`show`). */
export class UsesProvider implements vscode.TreeDataProvider<UsesNode> {
  private readonly changed = new vscode.EventEmitter<UsesNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: UsesNode[] = [{ kind: 'message', text: USES_HINT }];
  /** The column shown (`[column] of data source`), for the view's description; undefined before or without one. */
  shown: string | undefined;
  /** How many times `show` has started; a run that is not the latest writes nothing. */
  private runs = 0;

  constructor(private readonly client: TsqClient) {}

  /**
   * Shows the uses of the column at `position` (0-based, UTF-16) of the document `uri`; resolves when the
   * workspace's uses and the service's dependents are in. Never throws: a failure is a row of the view.
   */
  async show(uri: string, position: vscode.Position): Promise<void> {
    // a later Show Uses wins: an earlier one still waiting for its answers leaves the view alone
    const run = ++this.runs;
    let answer: UsesAnswer | null;
    try {
      answer = await this.ask(uri, position);
      if (run !== this.runs) return;
    } catch (e) {
      if (run !== this.runs) return;
      this.shown = undefined;
      this.set([{ kind: 'message', text: `The language server did not answer: ${errorMessage(e)}` }]);
      return;
    }
    if (!answer) {
      this.shown = undefined;
      this.set([{ kind: 'message', text: 'No column at the cursor: put it on a [column] of a query or of a TML search.' }]);
      return;
    }
    this.shown = shownColumn(answer);
    const files = fileNodes(answer);
    this.set([...files, { kind: 'service', dependents: undefined }]);
    const service = await this.service(answer);
    if (run === this.runs) this.set([...files, service]);
  }

  /** The language server's `tsq/uses` at the position; null when it names no column or the server is not running. */
  private async ask(uri: string, position: vscode.Position): Promise<UsesAnswer | null> {
    await this.client.languageClient.whenReady();
    const lc = this.client.languageClient.languageClient;
    if (!lc) return null;
    return lc.sendRequest(UsesRequest, { textDocument: { uri }, position: { line: position.line, character: position.character } });
  }

  private set(roots: UsesNode[]): void {
    this.roots = roots;
    this.changed.fire(undefined);
  }

  /** The service's dependents of the column (of its data source, with a note, when the service lists no such column). */
  private async service(answer: UsesAnswer): Promise<UsesNode> {
    try {
      const catalog = await this.client.catalog();
      if (!catalog) return { kind: 'service', dependents: [], note: 'not connected' };
      return serviceNode(answer, await columnDependents(catalog, await this.client.connections.getService(), answer.dataSource, answer.column));
    } catch (e) {
      return { kind: 'service', dependents: [], note: `failed: ${errorMessage(e)}` };
    }
  }

  async getChildren(node?: UsesNode): Promise<UsesNode[]> {
    if (!node) return this.roots;
    if (node.kind !== 'file') return childrenOf(node, () => '');
    const doc = await Promise.resolve(vscode.workspace.openTextDocument(vscode.Uri.parse(node.uri, true))).catch(() => undefined);
    return childrenOf(node, (line) => (doc ? doc.lineAt(Math.min(line, doc.lineCount - 1)).text : ''));
  }

  getTreeItem(node: UsesNode): vscode.TreeItem {
    const row = rowOf(node);
    const item = new vscode.TreeItem(row.label, row.collapsible === 'expanded' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    if (row.resourceUri) item.resourceUri = vscode.Uri.parse(row.resourceUri, true);
    if (row.description) item.description = row.description;
    if (row.tooltip) item.tooltip = row.tooltip;
    if (row.icon) item.iconPath = new vscode.ThemeIcon(row.icon);
    if (row.contextValue) item.contextValue = row.contextValue;
    if (row.command) item.command = { ...row.command, title: 'Open' };
    if (row.open) {
      const { start, end } = row.open.range;
      const selection = new vscode.Range(start.line, start.character, end.line, end.character);
      item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.parse(row.open.uri, true), { selection }] };
    }
    return item;
  }
}

/** Whether a command argument is `{ uri, position }` (a test, or another extension). */
function isUsesArg(arg: unknown): arg is { uri: string; position: { line: number; character: number } } {
  if (!arg || typeof arg !== 'object' || !('uri' in arg) || !('position' in arg)) return false;
  const p = arg.position;
  return typeof arg.uri === 'string' && !!p && typeof p === 'object' && 'line' in p && 'character' in p && typeof p.line === 'number' && typeof p.character === 'number';
}

/**
 * Registers the Uses view and TSQ: Show Uses, on the active editor's cursor or on a `{ uri, position }`
 * argument (0-based line and UTF-16 character); the command resolves when the view shows the uses.
 */
export function registerUsesView(client: TsqClient): UsesProvider {
  const provider = new UsesProvider(client);
  const view = vscode.window.createTreeView('tsq.uses', { treeDataProvider: provider });
  client.extension.subscriptions.push(view);
  commandRegistrar(client.extension.subscriptions)('tsq.showUses', async (arg?: unknown) => {
    const given = isUsesArg(arg) ? arg : undefined;
    const editor = vscode.window.activeTextEditor;
    const uri = given?.uri ?? editor?.document.uri.toString();
    const position = given ? new vscode.Position(given.position.line, given.position.character) : editor?.selection.active;
    if (!uri || !position) {
      void vscode.window.showInformationMessage('TSQ: Show Uses needs a column: put the cursor on one in a .tsq or TML file.');
      return;
    }
    await vscode.commands.executeCommand('tsq.uses.focus');
    await provider.show(uri, position);
    view.description = provider.shown;
  });
  return provider;
}
