/**
 * The TSQ language server: maps LSP messages onto the pure language service of common/src/languageService
 * (docs/architecture.md, its opening diagram and table; modelled on microsoft/vscode
 * `extensions/json-language-features/server` and vscode-eslint).
 *
 * Each feature registers its own handlers from its own file (features/*.ts, as vscode's
 * css-language-features does); this file builds what they share (features/context.ts) and answers
 * `initialize`. How requests, diagnostics, the catalog and settings are handled: `startServer`.
 *
 * Never writes to stdout: logs go through `connection.console`.
 */
import { CodeActionKind, MessageType, ShowMessageNotification, TextDocumentSyncKind, TextDocuments } from 'vscode-languageserver';
import type { CancellationToken, Connection, InitializeParams, InitializeResult, ServerCapabilities } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ProtocolCatalog } from './protocolCatalog';
import type { ClearableCatalog } from '../../common/src/catalog';
import { TakeoverCatalog } from './takeoverCatalog';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { withTml } from '../../common/src/tml/tmlService';
import { SEMANTIC_TOKEN_LEGEND } from '../../common/src/languageService/semanticTokens';
import { DocumentSettings } from './settings';
import { registerCatalogProtocol } from './features/catalog';
import { registerCodeActions } from './features/codeActions';
import { registerCompletion } from './features/completion';
import { registerConfiguration } from './features/configuration';
import type { ClientFeatures, FeatureContext, ServerTimer } from './features/context';
import { registerDiagnostics } from './features/diagnostics';
import { registerFormatting } from './features/formatting';
import { registerHover } from './features/hover';
import { runSafeAsync } from './features/runSafe';
import { registerSemanticTokens } from './features/semanticTokens';
import { registerSymbols } from './features/symbols';
import { registerWorkspaceIndex } from './features/workspaceIndex';
import { registerNavigation } from './features/navigation';
import { registerCodeLens, type QueryRunner } from './features/codeLens';
import { RUN_QUERY_COMMAND } from '../../common/src/protocol';

export { toLanguageSettings } from './settings';
export { withItemDefaults } from './features/completion';

/**
 * What the server needs from its host, injected so tests and other hosts can control time
 * (json-language-features' `RuntimeEnvironment`).
 */
export interface RuntimeEnvironment {
  readonly timer: ServerTimer;
  /** Debounce of push diagnostics per document, in ms (default 300). */
  readonly validationDelay?: number;
  /** Budget of each request the server sends to the client (`tsq/*`, `workspace/configuration`), in ms (default 2000). */
  readonly requestTimeout?: number;
  /**
   * The catalog read from the service directly (serviceCatalog.ts), when the server was given a connection;
   * it takes over when the client does not answer the catalog requests.
   */
  readonly serviceCatalog?: ClearableCatalog;
  /**
   * A warning for the person, sent as `window/showMessage` while the server answers `initialize` (LSP
   * allows that notification then): e.g. that the folder's connection needs approval (common/src/trust.ts).
   */
  readonly startupWarning?: string;
  /** Runs a query for the server's Run lens in editors other than VS Code (`tsq lsp` with a connection); omitted: Run answers that it needs one. */
  readonly runQuery?: QueryRunner;
}

/** Reads what the server needs of the client's capabilities (LSP `initialize`). */
function clientFeatures(params: InitializeParams): ClientFeatures {
  const capabilities = params.capabilities ?? {};
  return {
    pullDiagnostics: capabilities.textDocument?.diagnostic !== undefined,
    diagnosticRefreshSupport: capabilities.workspace?.diagnostics?.refreshSupport === true,
    configurationSupport: capabilities.workspace?.configuration === true,
    editRangeDefaultSupport: capabilities.textDocument?.completion?.completionList?.itemDefaults?.includes('editRange') === true,
    dataDefaultSupport: capabilities.textDocument?.completion?.completionList?.itemDefaults?.includes('data') === true,
    configurationChangeRegistration: capabilities.workspace?.didChangeConfiguration?.dynamicRegistration === true,
    watchedFilesRegistration: capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true,
    workspaceFolders: capabilities.workspace?.workspaceFolders === true,
  };
}

/** The capabilities the server declares; a diagnostic provider only for clients that pull. */
function serverCapabilities(client: ClientFeatures): ServerCapabilities {
  const capabilities: ServerCapabilities = {
    textDocumentSync: TextDocumentSyncKind.Incremental,
    completionProvider: { triggerCharacters: ['[', '.', "'", ' ', '@'], resolveProvider: true },
    hoverProvider: true,
    semanticTokensProvider: { legend: SEMANTIC_TOKEN_LEGEND, full: true, range: false },
    documentFormattingProvider: true,
    documentRangeFormattingProvider: true,
    codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
    documentSymbolProvider: true,
    definitionProvider: true,
    referencesProvider: true,
    documentHighlightProvider: true,
    renameProvider: { prepareProvider: true },
    codeLensProvider: { resolveProvider: false },
    workspaceSymbolProvider: true,
    executeCommandProvider: { commands: [RUN_QUERY_COMMAND] },
    workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
  };
  if (client.pullDiagnostics) capabilities.diagnosticProvider = { identifier: 'tsq', interFileDependencies: false, workspaceDiagnostics: false };
  return capabilities;
}

/**
 * Starts the TSQ language server on a connection (created by main.ts: IPC or stdio) and listens.
 * Returns nothing; the server lives as long as the connection.
 *
 * - Every handler goes through `runSafeAsync`/`runSafe` (features/runSafe.ts): a cancelled request
 *   answers `RequestCancelled`, a failure is logged through the connection and answers an empty result.
 *   A failed validation clears the document's diagnostics rather than leaving stale ones.
 * - Diagnostics are pulled (`textDocument/diagnostic`) when the client supports it, otherwise pushed
 *   (`textDocument/publishDiagnostics`) after a per-document debounce (`validationDelay`, default 300 ms).
 * - The catalog comes from the client through `ProtocolCatalog` (`tsq/dataSources`, `tsq/columns`,
 *   `tsq/columnValues`, each with a time budget); `tsq/catalogChanged` drops its cache and refreshes
 *   diagnostics (`workspace/diagnostic/refresh` when pulled, a re-push otherwise).
 * - Settings (`tsq.defaultDataSource`, `tsq.diagnostics.disabled`) are resolved per document through
 *   `workspace/configuration` (section `tsq`) when the client supports it, else taken from
 *   `workspace/didChangeConfiguration`'s `settings.tsq`.
 * - `tsq/queries` answers the queries of an open document for Run Query.
 */
export function startServer(connection: Connection, runtime: RuntimeEnvironment): void {
  const validationDelay = runtime.validationDelay ?? 300;
  const requestTimeout = runtime.requestTimeout ?? 2000;
  const log = (message: string) => connection.console.log(message);
  const logError = (message: string) => connection.console.error(message);

  const client: ClientFeatures = { pullDiagnostics: false, diagnosticRefreshSupport: false, configurationSupport: false, editRangeDefaultSupport: false, dataDefaultSupport: false, configurationChangeRegistration: false };
  const documents = new TextDocuments(TextDocument);
  const protocolCatalog = new ProtocolCatalog(connection, { requestTimeout, timer: runtime.timer, log });
  const catalog = runtime.serviceCatalog ? new TakeoverCatalog(protocolCatalog, runtime.serviceCatalog, log) : protocolCatalog;
  const settings = new DocumentSettings(connection, client, runtime.timer, requestTimeout, log, logError);
  const safeAsync = <T>(func: () => Promise<T>, errorValue: T, what: string, token: CancellationToken) =>
    runSafeAsync((callback) => runtime.timer.setImmediate(callback), logError, func, errorValue, what, token);
  const initializedHooks: (() => void)[] = [];
  const ctx: FeatureContext = {
    connection,
    onInitialized: (hook) => initializedHooks.push(hook),
    documents,
    service: withTml(getLanguageService({ catalog })),
    catalog,
    settings,
    client,
    timer: runtime.timer,
    log,
    logError,
    runSafeAsync: safeAsync,
    runSafe: (func, errorValue, what, token) => safeAsync(async () => func(), errorValue, what, token),
    staleDiagnostics: (text, defaultDataSource) => protocolCatalog.staleDiagnostics(text, defaultDataSource),
  };

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    Object.assign(client, clientFeatures(params));
    if (runtime.startupWarning) void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: runtime.startupWarning });
    workspaceIndex.initialize(params);
    return { capabilities: serverCapabilities(client), serverInfo: { name: 'tsq-language-server' } };
  });
  connection.onInitialized(() => {
    for (const hook of initializedHooks) hook();
  });
  const workspaceIndex = registerWorkspaceIndex(ctx);

  const diagnostics = registerDiagnostics(ctx, validationDelay);
  registerConfiguration(ctx, settings, diagnostics);
  registerCatalogProtocol(ctx, diagnostics);
  registerCompletion(ctx);
  registerHover(ctx);
  registerCodeActions(ctx);
  registerFormatting(ctx);
  registerSymbols(ctx);
  registerSemanticTokens(ctx);
  registerNavigation(ctx, workspaceIndex);
  registerCodeLens(ctx, workspaceIndex, runtime.runQuery);

  documents.listen(connection);
  connection.listen();
}
