/**
 * The language client: starts `dist/server.js` over IPC (vscode-languageclient), answers the server's
 * catalog requests (`tsq/dataSources`, `tsq/columns`, `tsq/columnValues`, `tsq/calendars`, common/src/protocol.ts) from
 * the active connection's `Catalog`, and sends `tsq/catalogChanged` when the catalog changes (Refresh
 * Catalog, connection switch). Serves the server's read-only `tsq:` documents (`tsq/virtualDocument`) and
 * maps the server's lenses onto VS Code commands (`clientLens`). A failed start shows a message with a way to the log.
 */
import * as vscode from 'vscode';
import { LanguageClient, ResponseError, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { CATALOG_UNKNOWN, RUN_QUERY_COMMAND, VirtualDocumentRequest, CalendarsRequest, CatalogChangedNotification, ColumnsRequest, ColumnValuesRequest, DataSourcesRequest, type ColumnsAnswer, type ColumnsParams, type ColumnValuesParams } from '../../common/src/protocol';
import type { DataSource } from '../../common/src/model';
import { SERVER_EXEC_ARGV } from '../../common/src/serverProcess';
import type { ServiceCatalog } from '../../common/src/catalog';
import { TML_LANGUAGE_IDS } from '../../common/src/tml/kinds';
import type { ClientContext } from './context';
import { errorMessage } from './service';

/**
 * A lens of the server as VS Code runs it: the server's Run (`tsq.server.runQuery`) becomes the client's
 * Run Query (`tsq.runQuery`, same arguments); a references count (no command) opens the references.
 */
export function clientLens(lens: vscode.CodeLens): vscode.CodeLens {
  const c = lens.command;
  if (c?.command === RUN_QUERY_COMMAND) lens.command = { ...c, command: 'tsq.runQuery', tooltip: 'Run this query (Ctrl/Cmd+Enter)' };
  else if (c && c.command === '' && Array.isArray(c.arguments) && typeof c.arguments[0] === 'string') lens.command = { ...c, command: 'editor.action.findReferences', arguments: [vscode.Uri.parse(c.arguments[0]), lens.range.start] };
  return lens;
}

/** Gives the catalog of the active connection, or undefined when not connected. */
export type CatalogAccess = () => Promise<ServiceCatalog | undefined>;

export class TsqLanguageClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private ready: Promise<void> | undefined;
  private virtualDocuments: vscode.Disposable | undefined;

  private readonly context: vscode.ExtensionContext;
  private readonly log: vscode.LogOutputChannel;

  /** @param ctx the client's context (the extension's paths, the log channel the client traces to). */
  constructor(
    ctx: ClientContext,
    private readonly catalog: CatalogAccess,
  ) {
    this.context = ctx.extension;
    this.log = ctx.log;
  }

  /** Starts the server (once); resolves when the client is running, rejects when it failed to start. */
  start(): Promise<void> {
    this.ready ??= this.startClient();
    return this.ready;
  }

  /** Resolves when the client is running (starting it if needed). */
  whenReady(): Promise<void> {
    return this.start();
  }

  /** Stops and starts the server again (TSQ: Restart Language Server). */
  async restart(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    this.ready = undefined;
    if (old) {
      try {
        await old.stop();
      } catch (e) {
        this.log.warn(`Stopping the language server failed: ${errorMessage(e)}`);
      }
      try {
        await old.dispose();
      } catch {
        // already stopped
      }
    }
    await this.start();
  }

  /** Tells the server that the catalog changed so it drops its cache and re-validates. */
  async notifyCatalogChanged(): Promise<void> {
    const c = this.client;
    if (c && c.isRunning()) await c.sendNotification(CatalogChangedNotification, {});
  }

  /** The running client, if any (for other features that send `tsq/queries`). */
  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  async dispose(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.virtualDocuments?.dispose();
    this.virtualDocuments = undefined;
    if (c) await c.dispose();
  }

  private async startClient(): Promise<void> {
    const module = this.context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_EXEC_ARGV] } },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_EXEC_ARGV, '--nolazy', '--inspect=6019'] } },
    };
    const log = this.log;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ language: 'tsq' }, ...TML_LANGUAGE_IDS.map((language) => ({ language }))],
      synchronize: { configurationSection: 'tsq' },
      middleware: {
        provideCodeLenses: async (document, token, next) => (await next(document, token))?.map(clientLens),
      },
      outputChannel: log,
      initializationFailedHandler: (error) => {
        log.error(`The TSQ language server failed to start: ${errorMessage(error)}`);
        void vscode.window.showErrorMessage(`The TSQ language server failed to start: ${errorMessage(error)}`, 'Show Log', 'Restart').then((choice) => {
          if (choice === 'Show Log') log.show();
          else if (choice === 'Restart') void vscode.commands.executeCommand('tsq.restartLanguageServer');
        });
        return false;
      },
    };
    const client = new LanguageClient('tsq', 'TSQ Language Server', serverOptions, clientOptions);
    // null from tsq/columns means "no such data source"; unknown is an error reply with CATALOG_UNKNOWN
    // (common/src/protocol.ts), so the server reports no semantic diagnostic rather than a false one
    const known = async <T>(answer: (cat: ServiceCatalog) => Promise<T>): Promise<T> => {
      const cat = await this.catalog();
      if (!cat) throw new ResponseError(CATALOG_UNKNOWN, 'not connected');
      try {
        return await answer(cat);
      } catch (e) {
        throw new ResponseError(CATALOG_UNKNOWN, `the catalog cannot be read: ${errorMessage(e)}`);
      }
    };
    client.onRequest(DataSourcesRequest, (): Promise<DataSource[]> => known((cat) => cat.dataSources()));
    client.onRequest(ColumnsRequest, (params: ColumnsParams): Promise<ColumnsAnswer> => known((cat) => cat.columns(params.dataSource)));
    client.onRequest(CalendarsRequest, (): Promise<string[]> => known((cat) => cat.calendars()));
    client.onRequest(ColumnValuesRequest, async (params: ColumnValuesParams): Promise<string[]> => {
      const cat = await this.catalog();
      return cat ? cat.columnValues(params.dataSource, params.column, params.prefix ?? '') : [];
    });
    this.client = client;
    this.virtualDocuments ??= vscode.workspace.registerTextDocumentContentProvider('tsq', {
      provideTextDocumentContent: async (uri) => (await this.client?.sendRequest(VirtualDocumentRequest, { uri: uri.toString() }))?.text ?? '',
    });
    try {
      await client.start();
    } catch (e) {
      this.ready = undefined;
      if (this.client === client) this.client = undefined;
      log.error(`The TSQ language server could not start: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`The TSQ language server could not start: ${errorMessage(e)}`, 'Show Log').then((c) => c && log.show());
      throw e;
    }
  }
}
