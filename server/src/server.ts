/**
 * The TSQ language server: maps LSP messages onto the pure language service of `./language`
 * (DESIGN.md "Parts and how data flows"; modelled on microsoft/vscode
 * `extensions/json-language-features/server` and vscode-eslint).
 *
 * - Every handler goes through `runSafeAsync`/`runSafe`: a cancelled request answers `RequestCancelled`,
 *   a failure is logged through the connection and answers an empty result. A failed validation clears
 *   the document's diagnostics rather than leaving stale ones.
 * - Diagnostics are pulled (`textDocument/diagnostic`) when the client supports it, otherwise pushed
 *   (`textDocument/publishDiagnostics`) after a per-document debounce (`validationDelay`, default 300 ms).
 * - The catalog comes from the client through `ClientCatalog` (`tsq/dataSources`, `tsq/columns`,
 *   `tsq/columnValues`, each with a time budget); `tsq/catalogChanged` drops its cache and refreshes
 *   diagnostics (`workspace/diagnostic/refresh` when pulled, a re-push otherwise).
 * - Settings (`tsq.defaultDataSource`, `tsq.diagnostics.disabled`) are resolved per document through
 *   `workspace/configuration` (section `tsq`) when the client supports it, else taken from
 *   `workspace/didChangeConfiguration`'s `settings.tsq`.
 * - `tsq/queries` answers the queries of an open document for Run Query.
 *
 * Never writes to stdout: logs go through `connection.console`.
 */
import {
  CodeActionKind,
  DidChangeConfigurationNotification,
  LSPErrorCodes,
  ResponseError,
  TextDocumentSyncKind,
  TextDocuments,
} from 'vscode-languageserver';
import type {
  CancellationToken,
  ClientCapabilities,
  CompletionList,
  Connection,
  Diagnostic,
  Disposable,
  DocumentDiagnosticReport,
  InitializeParams,
  InitializeResult,
  ServerCapabilities,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ClientCatalog } from './clientCatalog';
import { TakeoverCatalog, type ClearableCatalog } from './serviceCatalog';
import { getLanguageService } from './language/languageService';
import { SEMANTIC_TOKEN_LEGEND } from './language/semanticTokens';
import type { LanguageSettings } from './language/types';
import { CatalogChangedNotification, QueriesRequest } from '../../common/src/protocol';
import type { DocumentQuery, QueriesParams } from '../../common/src/protocol';

/**
 * What the server needs from its host, injected so tests and other hosts can control time
 * (json-language-features' `RuntimeEnvironment`).
 */
export interface RuntimeEnvironment {
  readonly timer: {
    /** Runs `callback` on the next turn of the event loop. */
    setImmediate(callback: () => void): Disposable;
    /** Runs `callback` after `ms` milliseconds. */
    setTimeout(callback: () => void, ms: number): Disposable;
  };
  /** Debounce of push diagnostics per document, in ms (default 300). */
  readonly validationDelay?: number;
  /** Budget of each request the server sends to the client (`tsq/*`, `workspace/configuration`), in ms (default 2000). */
  readonly requestTimeout?: number;
  /**
   * The catalog read from the service directly (serviceCatalog.ts), when the server was given a connection;
   * it takes over when the client does not answer the catalog requests.
   */
  readonly serviceCatalog?: ClearableCatalog;
}

/** The `tsq` settings section as the client sends it (package.json `contributes.configuration`). */
interface TsqSettingsSection {
  defaultDataSource?: unknown;
  diagnostics?: { disabled?: unknown } | null;
}

/** Turns a raw `tsq` settings section into `LanguageSettings`, ignoring malformed fields. */
export function toLanguageSettings(section: unknown): LanguageSettings {
  const settings: LanguageSettings = {};
  if (typeof section !== 'object' || section === null) return settings;
  const s = section as TsqSettingsSection;
  if (typeof s.defaultDataSource === 'string' && s.defaultDataSource.trim() !== '') settings.defaultDataSource = s.defaultDataSource.trim();
  const disabled = typeof s.diagnostics === 'object' && s.diagnostics !== null ? s.diagnostics.disabled : undefined;
  if (Array.isArray(disabled)) settings.disabledDiagnostics = disabled.filter((c): c is string => typeof c === 'string');
  return settings;
}

function formatError(message: string, error: unknown): string {
  if (error instanceof Error) return `${message}: ${error.message}\n${error.stack ?? ''}`;
  return `${message}: ${String(error)}`;
}

/** A response error's data is method-specific (e.g. `DiagnosticServerCancellationData`); ours carries none. */
 
type AnyResponseError = ResponseError<any>;

/** The answer to a cancelled request (LSP `RequestCancelled`). */
function cancelled(): AnyResponseError {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'Request cancelled');
}

/**
 * Starts the TSQ language server on a connection (created by main.ts: IPC or stdio) and listens.
 * Returns nothing; the server lives as long as the connection.
 */
export function startServer(connection: Connection, runtime: RuntimeEnvironment): void {
  const validationDelay = runtime.validationDelay ?? 300;
  const requestTimeout = runtime.requestTimeout ?? 2000;
  const log = (message: string) => connection.console.log(message);
  const logError = (message: string) => connection.console.error(message);

  /**
   * Runs a handler on the next tick. A cancelled request answers `RequestCancelled` as soon as the
   * cancellation arrives; a failure is logged and answers `errorValue`.
   */
  function runSafeAsync<T>(func: () => Promise<T>, errorValue: T, what: string, token: CancellationToken): Promise<T | AnyResponseError> {
    return new Promise((resolve) => {
      let settled = false;
      let onCancel: Disposable | undefined; // eslint-disable-line prefer-const -- assigned after settle is declared, which it calls
      const settle = (value: T | AnyResponseError) => {
        if (settled) return;
        settled = true;
        onCancel?.dispose();
        resolve(value);
      };
      onCancel = token.onCancellationRequested?.(() => settle(cancelled()));
      runtime.timer.setImmediate(() => {
        if (token.isCancellationRequested) return settle(cancelled());
        let pending: Promise<T>;
        try {
          pending = func();
        } catch (e) {
          logError(formatError(`${what} failed`, e));
          return settle(errorValue);
        }
        pending.then(
          (result) => settle(token.isCancellationRequested ? cancelled() : result),
          (e: unknown) => {
            logError(formatError(`${what} failed`, e));
            settle(errorValue);
          },
        );
      });
    });
  }

  /** Synchronous variant of `runSafeAsync` for the service's synchronous verbs. */
  function runSafe<T>(func: () => T, errorValue: T, what: string, token: CancellationToken): Promise<T | AnyResponseError> {
    return runSafeAsync(async () => func(), errorValue, what, token);
  }

  const documents = new TextDocuments(TextDocument);
  const clientCatalog = new ClientCatalog(connection, { requestTimeout, timer: runtime.timer, log });
  const catalog = runtime.serviceCatalog ? new TakeoverCatalog(clientCatalog, runtime.serviceCatalog, log) : clientCatalog;
  const service = getLanguageService({ catalog });

  let clientCapabilities: ClientCapabilities = {};
  let pullDiagnostics = false;
  let diagnosticRefreshSupport = false;
  let configurationSupport = false;
  /** The client takes a list-wide `itemDefaults.editRange` (LSP 3.17; VS Code does). */
  let editRangeDefaultSupport = false;
  /** Settings pushed by `workspace/didChangeConfiguration` (clients without `workspace/configuration`). */
  let globalSettings: LanguageSettings = {};
  const documentSettings = new Map<string, Promise<LanguageSettings>>();

  /** Resolves the `tsq` settings of a document (cached until the configuration changes or it closes). */
  function getSettings(uri: string): Promise<LanguageSettings> {
    if (!configurationSupport) return Promise.resolve(globalSettings);
    let settings = documentSettings.get(uri);
    if (!settings) {
      settings = new Promise<LanguageSettings>((resolve) => {
        let done = false;
        const timeout = runtime.timer.setTimeout(() => {
          if (!done) {
            // Defaults stay cached for this document (until a configuration change or close), so a client
            // that never answers does not cost every request a full budget.
            done = true;
            log(`workspace/configuration: no answer within ${requestTimeout} ms; using default settings for ${uri}.`);
            resolve({});
          }
        }, requestTimeout);
        connection.workspace.getConfiguration({ scopeUri: uri, section: 'tsq' }).then(
          (section: unknown) => {
            if (done) return;
            done = true;
            timeout.dispose();
            resolve(toLanguageSettings(section));
          },
          (e: unknown) => {
            if (done) return;
            done = true;
            timeout.dispose();
            documentSettings.delete(uri);
            logError(formatError('workspace/configuration failed', e));
            resolve({});
          },
        );
      });
      documentSettings.set(uri, settings);
    }
    return settings;
  }

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    clientCapabilities = params.capabilities ?? {};
    pullDiagnostics = clientCapabilities.textDocument?.diagnostic !== undefined;
    diagnosticRefreshSupport = clientCapabilities.workspace?.diagnostics?.refreshSupport === true;
    configurationSupport = clientCapabilities.workspace?.configuration === true;
    editRangeDefaultSupport = clientCapabilities.textDocument?.completion?.completionList?.itemDefaults?.includes('editRange') === true;
    const capabilities: ServerCapabilities = {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: ['[', '.', "'", ' ', '@'], resolveProvider: true },
      hoverProvider: true,
      semanticTokensProvider: { legend: SEMANTIC_TOKEN_LEGEND, full: true, range: false },
      documentFormattingProvider: true,
      documentRangeFormattingProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      documentSymbolProvider: true,
    };
    if (pullDiagnostics) capabilities.diagnosticProvider = { identifier: 'tsq', interFileDependencies: false, workspaceDiagnostics: false };
    return { capabilities, serverInfo: { name: 'tsq-language-server' } };
  });

  connection.onInitialized(() => {
    // Ask for workspace/didChangeConfiguration so cached settings are dropped when `tsq.*` changes.
    if (clientCapabilities.workspace?.didChangeConfiguration?.dynamicRegistration) {
      connection.client.register(DidChangeConfigurationNotification.type, { section: 'tsq' }).catch((e: unknown) => logError(formatError('Registering for configuration changes failed', e)));
    }
  });

  connection.onDidChangeConfiguration((change) => {
    const settings = (change?.settings as { tsq?: unknown } | null | undefined)?.tsq;
    globalSettings = toLanguageSettings(settings);
    documentSettings.clear();
    refreshDiagnostics();
  });

  // ---- diagnostics -------------------------------------------------------------------------------

  /** Validates a document; a failure is logged and answers [] (clearing stale diagnostics). */
  async function validate(document: TextDocument, token?: CancellationToken): Promise<Diagnostic[]> {
    try {
      const settings = await getSettings(document.uri);
      const diagnostics = await service.doValidation(document, settings, token);
      // columns kept from before the service became unreachable are said so, once per document
      return [...diagnostics, ...clientCatalog.staleDiagnostics(document.getText(), settings.defaultDataSource)];
    } catch (e) {
      logError(formatError(`Validating ${document.uri} failed`, e));
      return [];
    }
  }

  const pendingValidation = new Map<string, Disposable>();

  function cancelPendingValidation(uri: string): void {
    pendingValidation.get(uri)?.dispose();
    pendingValidation.delete(uri);
  }

  /** Push mode: validates after `delay` ms unless the document changes again, then publishes. */
  function triggerValidation(document: TextDocument, delay = validationDelay): void {
    cancelPendingValidation(document.uri);
    pendingValidation.set(
      document.uri,
      runtime.timer.setTimeout(() => {
        pendingValidation.delete(document.uri);
        void pushDiagnostics(document);
      }, delay),
    );
  }

  async function pushDiagnostics(document: TextDocument): Promise<void> {
    const version = document.version;
    const diagnostics = await validate(document);
    const current = documents.get(document.uri);
    // Publish only if the document is still open at the version validated (a newer one is queued).
    if (!current || current.version !== version) return;
    connection.sendDiagnostics({ uri: document.uri, version, diagnostics }).catch((e: unknown) => logError(formatError('publishDiagnostics failed', e)));
  }

  /** After a catalog or settings change: ask the client to pull again, or re-push every open document. */
  function refreshDiagnostics(): void {
    if (pullDiagnostics) {
      if (diagnosticRefreshSupport) connection.languages.diagnostics.refresh().catch((e: unknown) => logError(formatError('workspace/diagnostic/refresh failed', e)));
    } else {
      for (const document of documents.all()) triggerValidation(document, 0);
    }
  }

  documents.onDidChangeContent((change) => {
    if (!pullDiagnostics) triggerValidation(change.document);
  });

  documents.onDidClose((event) => {
    cancelPendingValidation(event.document.uri);
    documentSettings.delete(event.document.uri);
    if (!pullDiagnostics) connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] }).catch(() => undefined);
  });

  connection.languages.diagnostics.on((params, token) =>
    runSafeAsync<DocumentDiagnosticReport>(
      async () => {
        const document = documents.get(params.textDocument.uri);
        return { kind: 'full', items: document ? await validate(document, token) : [] };
      },
      { kind: 'full', items: [] },
      `Diagnostics of ${params.textDocument.uri}`,
      token,
    ),
  );

  // ---- the catalog protocol ----------------------------------------------------------------------

  connection.onNotification(CatalogChangedNotification, () => {
    log('tsq/catalogChanged: dropping the catalog cache and refreshing diagnostics.');
    catalog.clear();
    refreshDiagnostics();
  });

  connection.onRequest(QueriesRequest, (params: QueriesParams, token: CancellationToken) =>
    runSafeAsync<DocumentQuery[]>(
      async () => {
        const uri = typeof params?.uri === 'string' ? params.uri : undefined;
        const document = uri ? documents.get(uri) : undefined;
        if (!document) return [];
        return service.getQueries(document, await getSettings(document.uri));
      },
      [],
      'tsq/queries',
      token,
    ),
  );

  // ---- language features -------------------------------------------------------------------------

  connection.onCompletion((params, token) =>
    runSafeAsync(
      async () => {
        const document = documents.get(params.textDocument.uri);
        if (!document) return { isIncomplete: false, items: [] };
        const list = await service.doComplete(document, params.position, await getSettings(document.uri), token);
        return editRangeDefaultSupport ? withDefaultEditRange(list) : list;
      },
      { isIncomplete: false, items: [] },
      `Completion in ${params.textDocument.uri}`,
      token,
    ),
  );

  // Column and keyword items come without documentation (1,000 columns would send ~300 KB per list):
  // the client asks for it when an item is selected.
  connection.onCompletionResolve((item, token) =>
    runSafeAsync(() => service.doResolve(item, token), item, `Completion resolve of ${String(item.label)}`, token),
  );

  connection.onHover((params, token) =>
    runSafeAsync(
      async () => {
        const document = documents.get(params.textDocument.uri);
        if (!document) return null;
        return service.doHover(document, params.position, await getSettings(document.uri), token);
      },
      null,
      `Hover in ${params.textDocument.uri}`,
      token,
    ),
  );

  connection.onCodeAction((params, token) =>
    runSafeAsync(
      async () => {
        const document = documents.get(params.textDocument.uri);
        if (!document) return [];
        return service.getCodeActions(document, params.range, params.context, await getSettings(document.uri), token);
      },
      [],
      `Code actions in ${params.textDocument.uri}`,
      token,
    ),
  );

  connection.onDocumentFormatting((params, token) =>
    runSafe(
      () => {
        const document = documents.get(params.textDocument.uri);
        return document ? service.format(document, undefined, params.options) : [];
      },
      [],
      `Formatting ${params.textDocument.uri}`,
      token,
    ),
  );

  connection.onDocumentRangeFormatting((params, token) =>
    runSafe(
      () => {
        const document = documents.get(params.textDocument.uri);
        return document ? service.format(document, params.range, params.options) : [];
      },
      [],
      `Formatting a range of ${params.textDocument.uri}`,
      token,
    ),
  );

  connection.onDocumentSymbol((params, token) =>
    runSafe(
      () => {
        const document = documents.get(params.textDocument.uri);
        return document ? service.findDocumentSymbols(document) : [];
      },
      [],
      `Document symbols of ${params.textDocument.uri}`,
      token,
    ),
  );

  connection.languages.semanticTokens.on((params, token) =>
    runSafe(
      () => {
        const document = documents.get(params.textDocument.uri);
        return document ? service.getSemanticTokens(document) : { data: [] };
      },
      { data: [] },
      `Semantic tokens of ${params.textDocument.uri}`,
      token,
    ),
  );

  documents.listen(connection);
  connection.listen();
}

/**
 * Moves the replace range most items share into the list's `itemDefaults.editRange` (LSP 3.17): those
 * items then carry only `textEditText`, not a range each (a 1,000-column list is ~90 KB smaller). Items
 * with another range (a multi-word keyword typed in part) keep their `textEdit`. For clients that declare
 * `completionList.itemDefaults` with `editRange` only. Answers a new list; the items given are not changed.
 */
export function withDefaultEditRange(list: CompletionList): CompletionList {
  const first = list.items.find((i) => i.textEdit && 'range' in i.textEdit)?.textEdit;
  if (!first || !('range' in first)) return list;
  const r = first.range;
  const same = (x: typeof r) => x.start.line === r.start.line && x.start.character === r.start.character && x.end.line === r.end.line && x.end.character === r.end.character;
  const items = list.items.map((item) => {
    const edit = item.textEdit;
    if (!edit || !('range' in edit) || !same(edit.range)) return item;
    const { textEdit: _omitted, ...rest } = item;
    return { ...rest, textEditText: edit.newText };
  });
  return { ...list, itemDefaults: { ...list.itemDefaults, editRange: r }, items };
}

