/**
 * The Uses view (`tsq.uses`): who uses a column, opened by TSQ: Show Uses on a column of a `.tsq` or TML
 * file. First the workspace's uses, grouped by file (the language server's `tsq/uses`, over its workspace
 * index), then the service's dependents of that column (answers, liveboards, worksheets and models:
 * `columnDependents`, common/src/catalog/dependents.ts), or of its data source when the service lists no
 * such column. A use opens its file at the range; a dependent opens as the Objects view would open it.
 */
import * as vscode from 'vscode';
import { UsesRequest, type UseLocation, type UsesAnswer } from '../../common/src/protocol';
import type { DependentObject, MetadataType } from '../../common/src/api';
import { columnDependents, DEPENDENT_TYPE_LABELS } from '../../common/src/catalog/dependents';
import type { TsqClient } from './context';
import { namedObjectNode } from './tree/nodes';
import { errorMessage } from './service';
import { commandRegistrar } from './commands';

/** A node of the Uses view. `dependents` undefined: the service's answer is on its way. */
type UsesNode =
  | { kind: 'file'; uri: string; uses: UseLocation[] }
  | { kind: 'use'; use: UseLocation; text: string }
  | { kind: 'service'; dependents: DependentObject[] | undefined; note?: string }
  | { kind: 'dependent'; dependent: DependentObject }
  | { kind: 'message'; text: string };

/** The icon of each v1 dependent type, and the command (with the Objects view's node type) that opens one. */
const DEPENDENT_OPENERS: Readonly<Record<string, { icon: string; open: string; type: MetadataType }>> = {
  QUESTION_ANSWER_BOOK: { icon: 'comment-discussion', open: 'tsq.openAnswerAsQuery', type: 'QUESTION_ANSWER_BOOK' },
  PINBOARD_ANSWER_BOOK: { icon: 'dashboard', open: 'tsq.showData', type: 'PINBOARD_ANSWER_BOOK' },
  LOGICAL_TABLE: { icon: 'table', open: 'tsq.newQueryOnDataSource', type: 'LOGICAL_TABLE' },
};

/** What the view shows before TSQ: Show Uses has run. */
const HINT = 'Run TSQ: Show Uses on a column of a .tsq or TML file.';
/** The label of the service's group. */
const SERVICE_LABEL = 'On the service';

/** `n thing` or `n things`. */
const count = (n: number, thing: string): string => `${n} ${thing}${n === 1 ? '' : 's'}`;

/** The tree data provider of the Uses view: the uses of one column at a time (`show`). */
export class UsesProvider implements vscode.TreeDataProvider<UsesNode> {
  private readonly changed = new vscode.EventEmitter<UsesNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: UsesNode[] = [{ kind: 'message', text: HINT }];
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
    this.shown = `[${answer.column}] of ${answer.dataSource}`;
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
      const found = await columnDependents(catalog, await this.client.connections.getService(), answer.dataSource, answer.column);
      if (!found) return { kind: 'service', dependents: [], note: `no data source ${answer.dataSource}` };
      const notes = [
        found.of === 'dataSource' ? `of the data source ${found.dataSource.name}: the service lists no column [${answer.column}]` : undefined,
        found.complete ? undefined : 'the first ones only: there may be more',
      ].filter((n) => n !== undefined);
      return { kind: 'service', dependents: found.objects, ...(notes.length ? { note: notes.join('; ') } : {}) };
    } catch (e) {
      return { kind: 'service', dependents: [], note: `failed: ${errorMessage(e)}` };
    }
  }

  getChildren(node?: UsesNode): Promise<UsesNode[]> | UsesNode[] {
    if (!node) return this.roots;
    if (node.kind === 'file') return useNodes(node);
    if (node.kind === 'service') return (node.dependents ?? []).map((dependent) => ({ kind: 'dependent', dependent }));
    return [];
  }

  getTreeItem(node: UsesNode): vscode.TreeItem {
    switch (node.kind) {
      case 'file':
        return fileItem(node);
      case 'use':
        return useItem(node);
      case 'service':
        return serviceItem(node);
      case 'dependent':
        return dependentItem(node.dependent);
      case 'message':
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    }
  }
}

/** The workspace's uses by file, in the server's order; a message row when no file uses the column. */
function fileNodes(answer: UsesAnswer): UsesNode[] {
  const byFile = new Map<string, UseLocation[]>();
  for (const l of answer.locations) {
    const uses = byFile.get(l.uri);
    if (uses) uses.push(l);
    else byFile.set(l.uri, [l]);
  }
  if (!byFile.size) return [{ kind: 'message', text: `No file of the workspace uses [${answer.column}].` }];
  return [...byFile].map(([uri, uses]) => ({ kind: 'file', uri, uses }));
}

/** A file's uses, each labelled with its line's text (none when the file cannot be opened). */
async function useNodes(node: Extract<UsesNode, { kind: 'file' }>): Promise<UsesNode[]> {
  const doc = await Promise.resolve(vscode.workspace.openTextDocument(vscode.Uri.parse(node.uri, true))).catch(() => undefined);
  const lineText = (line: number): string => (doc ? doc.lineAt(Math.min(line, doc.lineCount - 1)).text.trim() : '');
  return node.uses.map((use) => ({ kind: 'use', use, text: lineText(use.range.start.line) }));
}

/** A file's row: its name (the resource's label) and how many uses it holds. */
function fileItem(node: Extract<UsesNode, { kind: 'file' }>): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.Uri.parse(node.uri, true), vscode.TreeItemCollapsibleState.Expanded);
  item.description = count(node.uses.length, 'use');
  item.contextValue = 'tsqUsesFile';
  return item;
}

/** A use's row: its line's text and 1-based `line:column`; opening it selects the use in its file. */
function useItem(node: Extract<UsesNode, { kind: 'use' }>): vscode.TreeItem {
  const { start, end } = node.use.range;
  const at = `${start.line + 1}:${start.character + 1}`;
  const item = new vscode.TreeItem(node.text || at, vscode.TreeItemCollapsibleState.None);
  item.description = at;
  const selection = new vscode.Range(start.line, start.character, end.line, end.character);
  item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.parse(node.use.uri, true), { selection }] };
  return item;
}

/** The service's row: how many dependents (once known), and its note. */
function serviceItem(node: Extract<UsesNode, { kind: 'service' }>): vscode.TreeItem {
  const n = node.dependents?.length;
  const item = new vscode.TreeItem(n === undefined ? `${SERVICE_LABEL}…` : SERVICE_LABEL, n ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
  item.description = [n === undefined ? undefined : count(n, 'dependent'), node.note].filter(Boolean).join(', ');
  item.iconPath = new vscode.ThemeIcon('cloud');
  return item;
}

/** A dependent's row: its name and kind; opening it runs the command the Objects view offers for that kind. */
function dependentItem(d: DependentObject): vscode.TreeItem {
  const label = DEPENDENT_TYPE_LABELS[d.type] ?? d.type;
  const opener = DEPENDENT_OPENERS[d.type];
  const item = new vscode.TreeItem(d.name, vscode.TreeItemCollapsibleState.None);
  item.description = label;
  item.tooltip = `${label} ${d.name} (${d.id})`;
  item.iconPath = new vscode.ThemeIcon(opener?.icon ?? 'symbol-misc');
  if (opener) item.command = { command: opener.open, title: 'Open', arguments: [namedObjectNode(opener.type, d)] };
  return item;
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
