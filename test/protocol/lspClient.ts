/**
 * A small, real LSP client for the protocol tests: it spawns the built language server
 * (`node dist/server.js --stdio`) and talks to it with `vscode-jsonrpc` over the child's stdio, as any
 * editor would. It answers the server's catalog requests (`tsq/dataSources`, `tsq/columns`,
 * `tsq/columnValues`) from a `CatalogProvider` (usually test/fixtures/catalogs.ts) or from per-method
 * overrides (to play a broken client), answers `workspace/configuration` with the `tsq` section given,
 * records every message the server sends, and checks that stdout carries nothing but LSP frames.
 *
 * `TSQ_SERVER_JS` may name another server bundle (default `dist/server.js` of this repository).
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { ErrorCodes, ResponseError, StreamMessageReader, StreamMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import type { CancellationToken, MessageConnection } from 'vscode-jsonrpc/node';
import type {
  CodeAction,
  CompletionItem,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  FormattingOptions,
  Hover,
  Position,
  Range,
  SemanticTokens,
  TextEdit,
} from 'vscode-languageserver-types';
import type { CatalogProvider } from '../../common/src/languageService/types';
import { type DocumentQuery } from '../../common/src/protocol';
import { SERVER_EXEC_ARGV } from '../../common/src/serverProcess';

/** `MessageType.Error` of LSP's `window/logMessage` (https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#messageType). */
const MESSAGE_TYPE_ERROR = 1;

/** The built server the tests start. */
export const SERVER_JS = process.env.TSQ_SERVER_JS ?? join(__dirname, '..', '..', 'dist', 'server.js');

/** A handler of one server → client request; may throw (answers an error) or never resolve. */
export type RequestHandler = (params: unknown, token: CancellationToken) => unknown;

/** Options of `LspClient.start`. */
export interface LspClientOptions {
  /** Declare the pull-diagnostics capability (`textDocument.diagnostic`) and `workspace.diagnostics.refreshSupport`. */
  pullDiagnostics?: boolean;
  /**
   * The `tsq` settings section answered to `workspace/configuration` (declares the `workspace.configuration`
   * capability). Omitted: the capability is not declared.
   */
  settings?: Record<string, unknown>;
  /** Where the catalog requests are answered from; omitted → the client implements no `tsq/*` method (MethodNotFound). */
  catalog?: CatalogProvider;
  /** Per-method overrides of the catalog answers, by method name (`tsq/columns` …). */
  handlers?: Record<string, RequestHandler>;
  /** Extra command-line arguments for the server (e.g. `--request-timeout=500`). */
  args?: string[];
  /** Declare `completionList.itemDefaults` (`editRange`, `data`), as VS Code does. */
  itemDefaults?: boolean;
  /** The workspace folders (file URIs) of `initialize`; omitted: none. */
  workspaceFolders?: string[];
}

/** One request the server sent to the client. */
export interface ReceivedRequest {
  method: string;
  params: unknown;
}

/** A driven language server: the connection, what it sent, and one method per LSP request. */
export class LspClient {
  /** Requests the server sent to the client, in order. */
  readonly requests: ReceivedRequest[] = [];
  /** `window/logMessage` texts. */
  readonly logs: string[] = [];
  /**
   * `window/logMessage` texts of type Error: the server's failures, e.g. a request handler that threw
   * (server/src/features/runSafe.ts logs it there and answers an empty result, so the answer alone does
   * not show it).
   */
  readonly failures: string[] = [];
  /** Everything the server wrote to stderr. */
  stderr = '';
  /** Errors of the JSON-RPC reader: non-LSP bytes on stdout show up here. */
  readonly protocolErrors: string[] = [];
  /** Every `textDocument/publishDiagnostics`, per URI, in order. */
  readonly published = new Map<string, { version?: number; diagnostics: Diagnostic[] }[]>();
  private readonly waiters: (() => void)[] = [];
  private exited = false;

  private constructor(readonly child: ChildProcessWithoutNullStreams, readonly connection: MessageConnection) {}

  /** Spawns the server, wires the handlers, and completes `initialize`/`initialized`. */
  static async start(options: LspClientOptions = {}): Promise<{ client: LspClient; capabilities: Record<string, unknown> }> {
    // With the Node options VS Code starts it with (client/src/languageClient.ts).
    const child = spawn(process.execPath, [...SERVER_EXEC_ARGV, SERVER_JS, '--stdio', ...(options.args ?? [])], { stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const client = new LspClient(child, connection);
    child.stderr.on('data', (chunk: Buffer) => (client.stderr += chunk.toString()));
    child.on('exit', () => {
      client.exited = true;
      client.notify();
    });
    connection.onError(([error]) => client.protocolErrors.push(error.message));
    connection.onNotification('window/logMessage', (p: { type: number; message: string }) => {
      client.logs.push(p.message);
      if (p.type === MESSAGE_TYPE_ERROR) client.failures.push(p.message);
    });
    connection.onNotification('textDocument/publishDiagnostics', (p: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
      const list = client.published.get(p.uri) ?? [];
      list.push({ version: p.version, diagnostics: p.diagnostics });
      client.published.set(p.uri, list);
      client.notify();
    });
    connection.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => {
      client.requests.push({ method: 'workspace/configuration', params: p });
      return p.items.map((item) => (item.section === 'tsq' ? (options.settings ?? null) : null));
    });
    connection.onRequest('workspace/diagnostic/refresh', () => {
      client.requests.push({ method: 'workspace/diagnostic/refresh', params: null });
      client.notify();
      return null;
    });
    connection.onRequest('client/registerCapability', () => null);
    const catalog = options.catalog;
    const defaults: Record<string, RequestHandler> = catalog
      ? {
          'tsq/dataSources': () => catalog.getDataSources(),
          'tsq/columns': (p) => catalog.getColumns((p as { dataSource: string }).dataSource),
          'tsq/columnValues': (p) => {
            const { dataSource, column, prefix } = p as { dataSource: string; column: string; prefix: string };
            return catalog.getColumnValues(dataSource, column, prefix);
          },
        }
      : {};
    const handlers = { ...defaults, ...(options.handlers ?? {}) };
    for (const [method, handler] of Object.entries(handlers)) {
      connection.onRequest(method, async (params: unknown, token: CancellationToken) => {
        client.requests.push({ method, params });
        client.notify();
        const answer = await handler(params, token);
        return answer === undefined ? null : answer;
      });
    }
    // Any other request the server sends is recorded and answered MethodNotFound by vscode-jsonrpc.
    connection.onRequest((method: string, params: unknown) => {
      client.requests.push({ method, params });
      client.notify();
      return new ResponseError(ErrorCodes.MethodNotFound, `Unhandled method ${method}`);
    });
    connection.listen();
    const capabilities = {
      workspace: {
        configuration: options.settings !== undefined,
        workspaceFolders: options.workspaceFolders !== undefined,
        ...(options.pullDiagnostics ? { diagnostics: { refreshSupport: true } } : {}),
      },
      textDocument: {
        synchronization: { dynamicRegistration: false },
        completion: {
          completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] },
          ...(options.itemDefaults ? { completionList: { itemDefaults: ['editRange', 'data'] } } : {}),
        },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        publishDiagnostics: { versionSupport: true },
        ...(options.pullDiagnostics ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } } : {}),
      },
    };
    const result = await connection.sendRequest<{ capabilities: Record<string, unknown> }>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities,
      workspaceFolders: options.workspaceFolders?.map((uri, i) => ({ uri, name: `folder${i}` })) ?? null,
    });
    await connection.sendNotification('initialized', {});
    return { client, capabilities: result.capabilities };
  }

  /** Wakes up everything waiting on a condition. */
  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `predicate()` holds (re-checked on every message), or fails after `timeoutMs`. */
  async waitFor<T>(what: string, predicate: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = predicate();
      if (value) return value;
      if (this.exited) throw new Error(`the server exited while waiting for ${what}; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The requests of one method the server has sent so far. */
  requestsOf(method: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.method === method);
  }

  /** Waits for the `n`-th (1-based) publishDiagnostics of a URI and answers its diagnostics. */
  async publishedDiagnostics(uri: string, n = 1, timeoutMs = 10_000): Promise<Diagnostic[]> {
    const entry = await this.waitFor(`publishDiagnostics #${n} of ${uri}`, () => this.published.get(uri)?.[n - 1], timeoutMs);
    return entry.diagnostics;
  }

  /** How many publishDiagnostics a URI has received. */
  publishCount(uri: string): number {
    return this.published.get(uri)?.length ?? 0;
  }

  didOpen(uri: string, text: string, version = 1): Promise<void> {
    return this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'tsq', version, text } });
  }

  /** Replaces the whole text (a full-content change event). */
  didChange(uri: string, text: string, version: number): Promise<void> {
    return this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  didClose(uri: string): Promise<void> {
    return this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  catalogChanged(): Promise<void> {
    return this.connection.sendNotification('tsq/catalogChanged', {});
  }

  didChangeConfiguration(settings: unknown): Promise<void> {
    return this.connection.sendNotification('workspace/didChangeConfiguration', { settings });
  }

  completion(uri: string, position: Position): Promise<CompletionList | null> {
    return this.connection.sendRequest('textDocument/completion', { textDocument: { uri }, position });
  }

  /** `completionItem/resolve`: the item with what the server left out of the list (documentation). */
  resolveCompletion(item: CompletionItem): Promise<CompletionItem> {
    return this.connection.sendRequest('completionItem/resolve', item);
  }

  hover(uri: string, position: Position): Promise<Hover | null> {
    return this.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position });
  }

  /** Pulls diagnostics (`textDocument/diagnostic`) and answers the items of the full report. */
  async pullDiagnostics(uri: string): Promise<Diagnostic[]> {
    const report = await this.connection.sendRequest<{ kind: string; items: Diagnostic[] }>('textDocument/diagnostic', { textDocument: { uri } });
    if (report.kind !== 'full') throw new Error(`expected a full report, got ${report.kind}`);
    return report.items;
  }

  codeActions(uri: string, range: Range, diagnostics: Diagnostic[]): Promise<CodeAction[] | null> {
    return this.connection.sendRequest('textDocument/codeAction', { textDocument: { uri }, range, context: { diagnostics } });
  }

  formatting(uri: string, options: FormattingOptions = { tabSize: 2, insertSpaces: true }): Promise<TextEdit[] | null> {
    return this.connection.sendRequest('textDocument/formatting', { textDocument: { uri }, options });
  }

  rangeFormatting(uri: string, range: Range, options: FormattingOptions = { tabSize: 2, insertSpaces: true }): Promise<TextEdit[] | null> {
    return this.connection.sendRequest('textDocument/rangeFormatting', { textDocument: { uri }, range, options });
  }

  documentSymbols(uri: string): Promise<DocumentSymbol[] | null> {
    return this.connection.sendRequest('textDocument/documentSymbol', { textDocument: { uri } });
  }

  semanticTokens(uri: string): Promise<SemanticTokens | null> {
    return this.connection.sendRequest('textDocument/semanticTokens/full', { textDocument: { uri } });
  }

  queries(uri: string): Promise<DocumentQuery[]> {
    return this.connection.sendRequest('tsq/queries', { uri });
  }

  /** Whether the server process is still running. */
  get alive(): boolean {
    return !this.exited && this.child.exitCode === null;
  }

  /** `shutdown` + `exit`, then waits for the process to end (kills it after 5 s). Answers the exit code. */
  async stop(): Promise<number | null> {
    if (this.alive) {
      try {
        await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 3000))]);
        await this.connection.sendNotification('exit');
      } catch {
        // the process is going away; the exit wait below decides
      }
      await new Promise<void>((resolve) => {
        if (!this.alive) return resolve();
        const timer = setTimeout(() => {
          this.child.kill('SIGKILL');
          resolve();
        }, 5000);
        this.child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.connection.dispose();
    return this.child.exitCode;
  }
}

/** Position of the first occurrence of `needle` in `text` (plus `delta` characters), as an LSP position. */
export function positionOf(text: string, needle: string, delta = 0): Position {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`${JSON.stringify(needle)} not in the text`);
  return positionAt(text, offset + delta);
}

/** LSP position (UTF-16) of an offset of `text`. */
export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** The LSP range of the first occurrence of `needle` in `text`. */
export function rangeOf(text: string, needle: string, from = 0): Range {
  const offset = text.indexOf(needle, from);
  if (offset < 0) throw new Error(`${JSON.stringify(needle)} not in the text`);
  return { start: positionAt(text, offset), end: positionAt(text, offset + needle.length) };
}
