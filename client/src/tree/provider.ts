/**
 * The Objects view (`tsq.objects` in the `tsq` container): a TreeDataProvider with lazily loaded,
 * paged children ("Load more…"), "Loading…", empty and error nodes (with Retry; errors are never
 * cached), a server-side name filter, sort and category from `tsq.objects.*`, icons by data type,
 * tooltips, and the item commands (Refresh, Filter, Retry, Load More, New Query on This Data Source (a
 * starter query of its first attribute and measure),
 * Copy GUID, Copy Name, Refresh Materialized View).
 */
import * as vscode from 'vscode';
import type { ServiceCatalog } from '../../../common/src/catalog';
import { createServiceCatalog } from '../catalog';
import type { ConnectionManager } from '../connections';
import type { TsqClient } from '../context';
import { errorMessage, errorStatus, type HeaderCategory, type HeaderSort, type ServiceApi } from '../service';
import { starterQuery } from '../../../common/src/language/queryText';
import type { Column } from '../../../common/src/model';
import { childrenFetcher, contextFlags, isExpandable, nodeDescription, nodeIcon, nodeLabel, rootNodes, toPattern, tooltipLines, type ListOptions, type ObjectNode } from './nodes';
import { PagedList, type ListEntry } from './paging';
import { objectsSettings } from '../settings';
import { commandRegistrar } from '../commands';
import { memberOf } from '../../../common/src/guards';

/** A placeholder entry of a list (Loading…, empty, error, Load more…), bound to the list's owner. */
type Placeholder = { kind: 'placeholder'; key: string; entry: Exclude<ListEntry<ObjectNode>, { kind: 'item' }>; ownerKey: string };
type Element = ObjectNode | Placeholder;
/**
 * Whether the connection `key` may list users (`user/list`), which shows "Users & Groups":
 * `value` undefined while `pending`; `answeredWithout` when the roots were answered before it settled.
 */
type AdminProbe = { key: string; value?: boolean; pending?: Promise<void>; answeredWithout?: boolean; severalOrgs?: boolean };

/** How long getChildren waits for a list before it answers "Loading…" (ms). */
const QUICK_ANSWER_MS = 400;

/**
 * How long the roots wait for the administrator probe (`user/list`) that decides whether "Users &
 * Groups" is a root (ms). Past it the roots answer without it and a root refresh adds it later.
 */
const ADMIN_PROBE_MS = 5000;

/** Resolves when `p` settles or after `ms` milliseconds, whichever comes first (never rejects). */
async function settledOrAfter(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p.then(() => undefined, () => undefined), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** What extension.ts needs of the view. */
export interface ObjectsView {
  /** Drops every loaded list and the catalog used for columns; the view reloads what is expanded. */
  refreshAll(): void;
}

class ObjectsProvider implements vscode.TreeDataProvider<Element> {
  private readonly changed = new vscode.EventEmitter<Element | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly lists = new Map<string, PagedList<ObjectNode>>();
  private readonly nodes = new Map<string, ObjectNode>();
  private readonly parents = new Map<string, string | undefined>();
  private pattern: string | undefined;
  private admin: AdminProbe | undefined;
  private catalog: { api: ServiceApi; catalog: ServiceCatalog } | undefined;
  /** Author GUID → name, from `user/list` (administrators only). */
  private readonly authors = new Map<string, string>();
  /** getChildren calls of a node (not the roots) not yet answered. */
  private childFetches = 0;
  /** A root refresh waiting for `childFetches` to reach 0. */
  private rootRefreshDue = false;
  /**
   * Node key → getChildren calls of that node waiting for its list's load (the quick answer). Their
   * answer carries what the load brought, so the end of that load fires no change event (`listOf`).
   */
  private readonly answering = new Map<string, number>();

  constructor(
    private readonly connections: ConnectionManager,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get filter(): string | undefined {
    return this.pattern;
  }

  setFilter(pattern: string | undefined): void {
    this.pattern = pattern;
    this.refreshAll();
  }

  refreshAll(): void {
    this.lists.clear();
    this.admin = undefined;
    this.catalog = undefined;
    this.refreshRoots();
  }

  /** Reloads one node's children (or everything). */
  refresh(node?: Element): void {
    if (!node) return this.refreshAll();
    const key = node.kind === 'placeholder' ? node.ownerKey : node.key;
    const list = this.lists.get(key);
    if (list) list.reset();
    if (key === 'root:dataSources' || key.startsWith('group:') || key.startsWith('object:LOGICAL_TABLE')) this.catalog?.catalog.clear();
    this.fire(key);
  }

  async retry(node?: Element): Promise<void> {
    if (!node || node.kind !== 'placeholder') return this.refreshAll();
    const list = this.lists.get(node.ownerKey);
    if (list) await list.retry();
    else this.fire(node.ownerKey);
  }

  /** Cancels the load a "Loading…" entry stands for. */
  cancelLoad(node?: Element): void {
    if (!node || node.kind !== 'placeholder') {
      for (const list of this.lists.values()) list.cancel();
      return;
    }
    this.lists.get(node.ownerKey)?.cancel();
  }

  async loadMore(node?: Element): Promise<void> {
    if (!node || node.kind !== 'placeholder') return;
    await this.lists.get(node.ownerKey)?.loadMore();
  }

  getParent(element: Element): Element | undefined {
    const parentKey = element.kind === 'placeholder' ? element.ownerKey : this.parents.get(element.key);
    return parentKey ? this.nodes.get(parentKey) : undefined;
  }

  getTreeItem(element: Element): vscode.TreeItem {
    if (element.kind === 'placeholder') return placeholderItem(element);
    const item = new vscode.TreeItem(nodeLabel(element), isExpandable(element) ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = element.key;
    item.description = nodeDescription(element);
    item.iconPath = new vscode.ThemeIcon(nodeIcon(element));
    item.contextValue = contextFlags(element).join(' ');
    if (element.kind === 'org' && !element.current) item.command = { command: 'tsq.switchOrg', title: 'Switch Org', arguments: [element.org.name] };
    const lines = tooltipLines(element, (id) => this.authors.get(id));
    if (lines.length) {
      const md = new vscode.MarkdownString(undefined, false);
      md.appendMarkdown(`**${escapeMarkdown(nodeLabel(element))}**\n\n`);
      for (const [k, v] of lines) md.appendMarkdown(`${escapeMarkdown(k)}: ${escapeMarkdown(v)}  \n`);
      item.tooltip = md;
    }
    return item;
  }

  async getChildren(element?: Element): Promise<Element[]> {
    if (!element) return this.roots();
    if (element.kind === 'placeholder') return [];
    this.childFetches++;
    try {
      return await this.childrenOf(element);
    } finally {
      this.childFetches--;
      if (!this.childFetches && this.rootRefreshDue) this.refreshRoots();
    }
  }

  /**
   * Fires a root refresh once no node's children are being fetched. VS Code's extension host drops
   * every element handle on a root refresh; a fetch of a node's children that is answering at that
   * moment still shows its rows, but their handles are gone, so every command on those rows (an
   * inline action, the context menu) gets `undefined` until the next refresh of that node.
   */
  private refreshRoots(): void {
    if (this.childFetches) {
      this.rootRefreshDue = true;
      return;
    }
    this.rootRefreshDue = false;
    setTimeout(() => this.changed.fire(undefined), 50);
  }

  private async childrenOf(element: ObjectNode): Promise<Element[]> {
    const list = this.listOf(element);
    let entries = list.children();
    // A quick answer is returned at once (VS Code shows its progress bar meanwhile). Only a slow one
    // shows "Loading…" and is replaced by a change event later: an event that arrives while the view
    // is still fetching the same node's children would be merged into that fetch and lost.
    const pending = list.pending;
    if (pending) {
      this.answering.set(element.key, (this.answering.get(element.key) ?? 0) + 1);
      try {
        await settledOrAfter(pending, QUICK_ANSWER_MS);
      } finally {
        const n = (this.answering.get(element.key) ?? 1) - 1;
        if (n) this.answering.set(element.key, n);
        else this.answering.delete(element.key);
      }
      entries = list.children();
    }
    return entries.map((entry) => {
      if (entry.kind === 'item') {
        this.nodes.set(entry.item.key, entry.item);
        this.parents.set(entry.item.key, element.key);
        return entry.item;
      }
      return { kind: 'placeholder', key: `${element.key}/${entry.kind}`, entry, ownerKey: element.key } satisfies Placeholder;
    });
  }

  /**
   * The roots. They wait up to ADMIN_PROBE_MS for the probe that decides "Users & Groups", so that
   * the roots are answered once: a later root refresh is what can orphan the rows of a node being
   * expanded (see refreshRoots).
   */
  private async roots(): Promise<Element[]> {
    const cfg = this.connections.activeConfig();
    if (!cfg) return [];
    const key = cfg.name;
    if (!this.admin || this.admin.key !== key) {
      const probe: AdminProbe = { key };
      probe.pending = (async () => {
        // a user in several Orgs gets the Orgs root (a failure, or a service without Orgs: none)
        probe.severalOrgs = await this.connections.getService().then((api) => api.listOrgs()).then((l) => l.orgs.length > 1, () => false);
        try {
          const principals = await (await this.connections.getService()).listPrincipals();
          probe.value = true;
          for (const p of principals) if (p.id) this.authors.set(p.id, p.displayName && p.displayName !== p.name ? `${p.displayName} (${p.name})` : p.name);
        } catch (e) {
          probe.value = false;
          const status = errorStatus(e);
          if (status && status !== 401 && status !== 403) this.log.info(`Users & Groups hidden: ${errorMessage(e)}`);
        } finally {
          probe.pending = undefined;
          if (this.admin === probe && probe.value && probe.answeredWithout) this.refreshRoots();
        }
      })();
      this.admin = probe;
    }
    const probe = this.admin;
    if (probe.pending) await settledOrAfter(probe.pending, ADMIN_PROBE_MS);
    if (this.admin !== probe) return this.roots();
    if (probe.value === undefined) probe.answeredWithout = true;
    // the same objects every time: VS Code finds the element of a change event by identity
    const roots = rootNodes(this.admin.value === true, this.admin.severalOrgs === true).map((r) => this.nodes.get(r.key) ?? r);
    for (const r of roots) {
      this.nodes.set(r.key, r);
      this.parents.set(r.key, undefined);
    }
    return roots;
  }

  private listOf(node: ObjectNode): PagedList<ObjectNode> {
    let list = this.lists.get(node.key);
    if (!list) {
      const { fetch, batchSize } = childrenFetcher(node, () => this.connections.getService(), () => this.catalogFor(), this.listOptions());
      // A load that a waiting getChildren answers (the quick answer) fires no change event: the view
      // would get it while it is still taking that answer, and VS Code's extension host forgets the
      // handles of the node's children on the event while the view, merging it into the fetch under
      // way, never asks for them again. Every command on those rows (Show Data's inline button, the
      // context menu) then got `undefined` until the node was refreshed. A slow load ("Loading…"), a
      // Load more and a Retry still fire one.
      list = new PagedList(fetch, batchSize, () => {
        if (!this.answering.has(node.key)) this.fire(node.key);
      });
      this.lists.set(node.key, list);
    }
    return list;
  }

  /** The columns of data source `id` (GUID) from the view's catalog, in catalog order; [] when it has none. Throws the service's error. */
  async columnsOf(id: string): Promise<Column[]> {
    return (await (await this.catalogFor()).columns(id))?.columns ?? [];
  }

  private async catalogFor(): Promise<ServiceCatalog> {
    const api = await this.connections.getService();
    if (!this.catalog || this.catalog.api !== api) this.catalog = { api, catalog: createServiceCatalog(api) };
    return this.catalog.catalog;
  }

  private listOptions(): ListOptions {
    const c = objectsSettings();
    return {
      sort: c.sort as HeaderSort,
      sortAscending: c.sortAscending,
      category: c.category as HeaderCategory,
      batchSize: c.batchSize,
      pattern: this.pattern,
    };
  }

  private fire(key: string): void {
    const node = this.nodes.get(key);
    // let the view finish the fetch that showed "Loading…" before it is told to fetch again
    setTimeout(() => this.changed.fire(node), 50);
  }
}

function placeholderItem(p: Placeholder): vscode.TreeItem {
  const e = p.entry;
  const item = new vscode.TreeItem('', vscode.TreeItemCollapsibleState.None);
  item.id = p.key;
  switch (e.kind) {
    case 'loading':
      item.label = 'Loading…';
      item.iconPath = new vscode.ThemeIcon('loading~spin');
      item.contextValue = 'tsq:loading';
      item.tooltip = 'Loading from the service. Click to cancel.';
      item.command = { command: 'tsq.objects.cancelLoad', title: 'Cancel', arguments: [p] };
      break;
    case 'empty':
      item.label = 'No objects';
      item.description = 'nothing here, or nothing matches the filter';
      item.contextValue = 'tsq:empty';
      break;
    case 'error':
      item.label = e.message;
      item.tooltip = `${e.message}\n\nClick to retry.`;
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
      item.contextValue = 'tsq:error';
      item.command = { command: 'tsq.objects.retry', title: 'Retry', arguments: [p] };
      break;
    case 'loadMore':
      item.label = 'Load more…';
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.contextValue = 'tsq:loadMore';
      item.command = { command: 'tsq.objects.loadMore', title: 'Load More', arguments: [p] };
      break;
  }
  return item;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}

/** Registers the view and its commands; `dragAndDropController` handles drops on its nodes (files dropped on a table load them). */
export function registerObjectsView(client: TsqClient, dragAndDropController?: vscode.TreeDragAndDropController<Element>): ObjectsView {
  const { connections, log } = client;
  const context = client.extension;
  const provider = new ObjectsProvider(connections, log);
  const view = vscode.window.createTreeView('tsq.objects', { treeDataProvider: provider, showCollapseAll: true, dragAndDropController });
  const setDescription = () => {
    view.description = provider.filter ? `filter: ${provider.filter}` : undefined;
    void vscode.commands.executeCommand('setContext', 'tsq.objects.filtered', !!provider.filter);
  };
  const register = commandRegistrar(context.subscriptions);
  context.subscriptions.push(
    view,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('tsq.objects')) provider.refreshAll();
    }),
  );
  register('tsq.objects.refresh', (node?: Element) => provider.refresh(isElement(node) ? node : undefined));
  register('tsq.objects.retry', (node?: Element) => provider.retry(isElement(node) ? node : undefined));
  register('tsq.objects.cancelLoad', (node?: Element) => provider.cancelLoad(isElement(node) ? node : undefined));
  register('tsq.objects.loadMore', (node?: Element) => provider.loadMore(isElement(node) ? node : undefined));
  register('tsq.objects.filter', async (text?: unknown) => {
    const value =
      typeof text === 'string'
        ? text
        : await vscode.window.showInputBox({
            title: 'TSQ: Filter Objects',
            prompt: 'Object name pattern (% is the wildcard; without % it matches anywhere). Empty clears the filter.',
            value: provider.filter ?? '',
          });
    if (value === undefined) return;
    provider.setFilter(toPattern(value));
    setDescription();
  });
  register('tsq.newQueryOnDataSource', async (node?: Element) => {
    if (!isElement(node) || node.kind !== 'object') {
      log.warn(`New Query on This Data Source: not a data source: ${JSON.stringify(node)?.slice(0, 300)}`);
      return;
    }
    // the first attribute and measure of the data source; the bare @datasource line when its columns cannot be read
    const columns = await provider.columnsOf(node.header.id).catch((e: unknown) => {
      log.warn(`New Query on ${node.header.name}: its columns could not be read: ${errorMessage(e)}`);
      return [];
    });
    const doc = await vscode.workspace.openTextDocument({ language: 'tsq', content: starterQuery(node.header, columns) });
    const editor = await vscode.window.showTextDocument(doc);
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    editor.selection = new vscode.Selection(end, end);
  });
  register('tsq.copyGuid', async (node?: Element) => {
    const id = guidOf(node);
    if (id) await vscode.env.clipboard.writeText(id);
  });
  register('tsq.copyName', async (node?: Element) => {
    if (isElement(node) && node.kind !== 'placeholder') await vscode.env.clipboard.writeText(node.kind === 'principal' ? node.principal.name : nodeLabel(node));
  });
  register('tsq.refreshMaterializedView', async (node?: Element) => {
    if (!isElement(node) || node.kind !== 'object') return;
    const name = node.header.name;
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Refreshing the materialized view ${name}…` }, async () => {
        await (await connections.getService()).refreshMaterializedView(node.header.id);
      });
      void vscode.window.showInformationMessage(`The materialized view ${name} was refreshed.`);
      provider.refresh(node);
    } catch (e) {
      log.error(`Refresh of materialized view ${name} failed: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`Could not refresh the materialized view ${name}: ${errorMessage(e)}`, 'Show Log').then((c) => c && log.show());
    }
  });
  return { refreshAll: () => provider.refreshAll() };
}

function isElement(value: unknown): value is Element {
  return !!value && typeof value === 'object' && typeof memberOf(value, 'kind') === 'string' && typeof memberOf(value, 'key') === 'string';
}

function guidOf(node: unknown): string | undefined {
  if (!isElement(node) || node.kind === 'placeholder') return undefined;
  switch (node.kind) {
    case 'object':
    case 'viz':
      return node.header.id;
    case 'column':
      return node.column.id;
    case 'principal':
      return node.principal.id;
    default:
      return undefined;
  }
}
