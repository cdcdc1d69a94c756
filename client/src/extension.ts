/**
 * Entry point of the TSQ extension: wires the parts together and nothing else (connections, the
 * language client and its catalog, the Objects, History and Uses views, the administration commands, Load
 * CSV into Table, the agent tools).
 *
 * `activate()` returns the automation API of the extension contract:
 * `{ getConnectionState(), getConnectionHealth(), whenLanguageClientReady() }`.
 */
import * as vscode from 'vscode';
import { registerAdminCommands } from './admin';
import { registerAgentTools } from './agentTools';
import { registerOrgCommands } from './orgs';
import { registerAnswerCommands } from './answers';
import { registerObjectCommands } from './objectCommands';
import { registerTmlCommands } from './tmlCommands';
import { registerUsesView } from './uses';
import { QueryHistory, registerHistoryView } from './history';
import type { HistoryEntry } from '../../common/src/results/history';
import type { ServiceCatalog } from '../../common/src/catalog';
import { createServiceCatalog } from './catalog';
import { ConnectionManager, type ConnectionArgs, type ConnectionState } from './connections';
import { createClientContext, type TsqClient } from './context';
import { ConnectionHealth, type HealthState } from './connectionHealth';
import { TsqLanguageClient } from './languageClient';
import { errorMessage, type ServiceApi } from './service';
import { registerObjectsView } from './tree/provider';
import { registerLoadCommands } from './load/commands';
import { registerResults } from './results';
import { commandRegistrar } from './commands';
import { memberOf } from '../../common/src/guards';

/** What `activate()` returns (read by the end-to-end tests through `getExtension('tsq.tsq').exports`). */
export interface TsqApi {
  getConnectionState(): ConnectionState;
  /** Whether the service answers: connected, reconnecting, unreachable, needs password (connectionHealth.ts). */
  getConnectionHealth(): HealthState;
  whenLanguageClientReady(): Promise<void>;
  /** The History view's runs, newest first (client/src/history.ts). */
  getQueryHistory(): HistoryEntry[];
}

export function activate(context: vscode.ExtensionContext): TsqApi {
  // the client's state lives in one object (context.ts), handed to every part below
  const ctx = createClientContext(context);
  const log = ctx.log;
  const connections = new ConnectionManager(ctx);
  context.subscriptions.push(connections);
  // the log, like the agent tools, never shows what the connected client holds (its password, token, cookies)
  ctx.redactLogOf(() => connections.currentClient()?.heldSecrets() ?? []);

  // one catalog per connection (by name), cleared on Refresh Catalog and on a switch
  const catalogs = new Map<string, { api: ServiceApi; catalog: ServiceCatalog }>();
  const catalogFor = async (): Promise<ServiceCatalog | undefined> => {
    const name = connections.activeName();
    if (!name) return undefined;
    let api: ServiceApi;
    try {
      api = await connections.getService();
    } catch {
      return undefined;
    }
    let entry = catalogs.get(name);
    if (!entry || entry.api !== api) {
      entry = { api, catalog: createServiceCatalog(api) };
      catalogs.set(name, entry);
    }
    return entry.catalog;
  };

  const languageClient = new TsqLanguageClient(ctx, catalogFor);
  context.subscriptions.push(languageClient);
  languageClient.start().catch(() => undefined);
  const history = new QueryHistory(context.workspaceState, context.storageUri);
  const client: TsqClient = { ...ctx, connections, languageClient, catalog: catalogFor, history };
  registerHistoryView(context, history);

  const objects = registerObjectsView(client, registerLoadCommands(client));

  let lastConnected: string | undefined;
  context.subscriptions.push(
    connections.onDidChange((state) => {
      const key = state.state === 'connected' ? state.name : undefined;
      if (key === lastConnected) return;
      lastConnected = key;
      catalogs.clear();
      void languageClient.notifyCatalogChanged();
      objects.refreshAll();
    }),
  );

  const register = commandRegistrar(context.subscriptions);
  register('tsq.addConnection', (args?: Partial<ConnectionArgs>) => connections.addConnection(isArgs(args) ? args : undefined));
  register('tsq.connectToEmulator', (args?: Partial<ConnectionArgs>) => connections.connectToEmulator(args && typeof args === 'object' && !(args instanceof vscode.Uri) ? args : undefined));
  register('tsq.switchConnection', () => connections.switchConnection());
  register('tsq.signInWithToken', () => connections.signInWithToken());
  register('tsq.signOut', () => connections.signOut());
  register('tsq.removeConnection', (name?: unknown) => connections.removeConnection(typeof name === 'string' ? name : undefined));
  register('tsq.showLog', () => log.show());
  register('tsq.refreshCatalog', async () => {
    for (const entry of catalogs.values()) entry.catalog.clear();
    await languageClient.notifyCatalogChanged();
    objects.refreshAll();
    log.info('Catalog refreshed.');
  });
  register('tsq.restartLanguageServer', async () => {
    try {
      await languageClient.restart();
      log.info('Language server restarted.');
    } catch (e) {
      log.error(`Restarting the language server failed: ${errorMessage(e)}`);
    }
  });

  // when the service answers again (or an edited connection is made anew): a fresh catalog, and the
  // language server validates the open documents again
  const health = new ConnectionHealth(client, async () => {
    await vscode.commands.executeCommand('tsq.refreshCatalog');
  });
  context.subscriptions.push(health);

  registerAdminCommands(client, () => objects.refreshAll());
  registerAnswerCommands(client, () => objects.refreshAll());
  registerObjectCommands(client, () => objects.refreshAll());
  registerTmlCommands(client);
  registerUsesView(client);
  registerResults(client);
  registerAgentTools(client);
  registerOrgCommands(client);

  void connections.migratePasswords().then(() => {
    if (connections.activeConfig()) void connections.connect({ interactive: false, showErrors: true });
  });

  return {
    getConnectionState: () => connections.getState(),
    getConnectionHealth: () => health.state,
    whenLanguageClientReady: () => languageClient.whenReady(),
    getQueryHistory: () => history.visible(),
  };
}

export function deactivate(): void {
  // the subscriptions dispose the language client and the rest
}

function isArgs(value: unknown): value is Partial<ConnectionArgs> {
  return !!value && typeof value === 'object' && !(value instanceof vscode.Uri) && typeof memberOf(value, 'url') === 'string';
}
