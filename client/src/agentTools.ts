/**
 * The agent tools in VS Code: those of the table (common/src/agent/toolTable.ts) that the extension
 * offers, `tsq_` + name, as language-model tools (package.json `contributes.languageModelTools`, written
 * from the table by `npm run gen:tools`; registered with `vscode.lm.registerTool`), and `tsq mcp` offered
 * to agent mode (`vscode.lm.registerMcpServerDefinitionProvider`, when this VS Code has it). The tools are
 * those of `tsq mcp`, from common/src/agent/tools.ts; this file is only their adapter onto the extension
 * (`AgentBackend` over the active connection, its catalog and the running language server). How
 * check_query validates: `extensionAgentBackend`; the confirmation before run_query and the MCP server
 * offered: `registerAgentTools`.
 */
import * as vscode from 'vscode';
import { DidOpenTextDocumentNotification, DocumentDiagnosticRequest } from 'vscode-languageclient';
import type { Diagnostic } from 'vscode-languageserver-types';
import { columnDetailsOf, type AgentBackend } from '../../common/src/agent/backend';
import { AGENT_TOOL_NAMES, AGENT_TOOLS, readToolInput, vscodeToolName, type AgentToolName, type AgentToolSpec } from '../../common/src/agent/toolTable';
import { DEFAULT_MAX_ROWS, type AgentToolResult, type RunInput } from '../../common/src/agent/tools';
import type * as z from 'zod';
import type { TsqClient } from './context';

/** The scheme of the virtual documents check_query validates. */
const AGENT_SCHEME = 'tsq-agent';

/** What the agent tools use of the client: its connections, language client and catalog. */
export type AgentToolsDeps = Pick<TsqClient, 'connections' | 'languageClient' | 'catalog'>;

/** Milliseconds to wait for the language server to be told of a virtual document. */
const OPEN_TIMEOUT_MS = 10_000;

/**
 * The backend of the tools over the extension: the active connection's catalog and service, and the
 * language server's diagnostics. Every method throws when there is no connection.
 *
 * check_query asks the language server, the same validation as the editor's: the query is opened as a
 * read-only virtual document (`tsq-agent:` scheme, never dirty, never saved) under `@datasource`, and
 * its diagnostics are pulled (`textDocument/diagnostic`). The data source is resolved through the
 * catalog first, so a catalog that cannot be read fails the tool instead of passing the query.
 */
export function extensionAgentBackend(deps: AgentToolsDeps, documents: Map<string, string>): AgentBackend {
  const catalog = async () => {
    const c = await deps.catalog();
    if (!c) throw new Error('TSQ is not connected to an Analytics Service. Ask the user to run "TSQ: Switch Connection…" (or "TSQ: Add Connection…") and try again.');
    return c;
  };
  let serial = 0;
  return {
    async getDataSources() {
      return (await catalog()).dataSources();
    },
    async getColumns(dataSource) {
      const columns = await (await catalog()).columns(dataSource);
      if (!columns) return null;
      const api = await deps.connections.getService();
      return { ...columns, ...columnDetailsOf((await api.metadataDetails('LOGICAL_TABLE', [columns.id])).storables, columns.id) };
    },
    async getColumnValues(dataSource, column, limit) {
      try {
        return (await (await catalog()).columnValues(dataSource.id, column, '')).slice(0, limit);
      } catch {
        return [];
      }
    },
    async validate(query, dataSource) {
      await deps.languageClient.whenReady();
      const lc = deps.languageClient.languageClient;
      if (!lc) throw new Error('The TSQ language server is not running; "TSQ: Restart Language Server" starts it again.');
      // the query under its data source, as a .tsq file would hold it; line 0 is the directive
      const uri = vscode.Uri.from({ scheme: AGENT_SCHEME, path: `/query-${++serial}.tsq` });
      // a name holding a quote cannot be written between quotes: the GUID names it as well
      documents.set(uri.toString(), `@datasource '${dataSource.name.includes("'") ? dataSource.id : dataSource.name}'\n${query}`);
      try {
        const protocolUri = lc.code2ProtocolConverter.asUri(uri);
        const feature = lc.getFeature(DidOpenTextDocumentNotification.method);
        // listening before the document opens: didOpen may be sent before openTextDocument resolves
        let sent = false;
        let notify: (() => void) | undefined;
        const sub = feature.onNotificationSent((e) => {
          if (e.params.textDocument.uri !== protocolUri) return;
          sent = true;
          notify?.();
        });
        try {
          const document = await vscode.workspace.openTextDocument(uri);
          if (document.languageId !== 'tsq') await vscode.languages.setTextDocumentLanguage(document, 'tsq');
          if (!sent && ![...feature.openDocuments].some((d) => d.uri.toString() === uri.toString())) {
            await new Promise<void>((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error('The TSQ language server was not told of the query in time; try again.')), OPEN_TIMEOUT_MS);
              notify = () => {
                clearTimeout(timer);
                resolve();
              };
            });
          }
        } finally {
          sub.dispose();
        }
        const report = await lc.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri: protocolUri } });
        const items = (report.kind === 'full' ? report.items : []) as Diagnostic[];
        return items
          .filter((d) => d.range.start.line > 0)
          .map((d) => ({ ...d, range: { start: { line: d.range.start.line - 1, character: d.range.start.character }, end: { line: d.range.end.line - 1, character: d.range.end.character } } }));
      } finally {
        documents.delete(uri.toString());
      }
    },
    async search({ queryString, dataSource, maxRows }) {
      const api = await deps.connections.getService();
      const r = await api.searchData({ queryString, dataSourceGuid: dataSource.id, batchSize: maxRows });
      return { columnNames: r.columnNames, rows: r.data, totalRowCount: r.totalRowCount };
    },
    // the Org the tools run in, which list_data_sources names (TSQ: Switch Org… changes it)
    listOrgs: async (signal) => (await deps.connections.getService()).listOrgs({ signal }),
    // what the connected client holds: the password or token from the secret storage it logged in
    // with, a token it obtained, its session cookies (common/src/api heldSecrets)
    secrets: () => deps.connections.currentClient()?.heldSecrets() ?? [],
  };
}

/** A cancellation token as an AbortSignal for the tools. */
function signalOf(token: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

/** A tool's answer for the model; a failure is thrown, as VS Code asks of tools, with the same text. */
function toResult(r: AgentToolResult<unknown>): vscode.LanguageModelToolResult {
  if (r.isError) throw new Error(r.text);
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.text)]);
}

/** A tool's input read with its schema (`readToolInput`); VS Code hands the thrown text to the model. */
function inputOf(spec: AgentToolSpec<AgentToolName>, input: unknown): z.infer<AgentToolSpec<AgentToolName>['input']> {
  const read = readToolInput(spec, input);
  if ('error' in read) throw new Error(read.error);
  return read.input;
}

/** The confirmation before `tsq_run_query` sends rows of the person's data to a model. */
function confirmRun(input: RunInput): vscode.PreparedToolInvocation {
  const message = new vscode.MarkdownString(`${AGENT_TOOLS.run_query.title}: up to ${input.max_rows ?? DEFAULT_MAX_ROWS} rows of this query's answer on the data source shown will be sent to the language model.\n\n`);
  message.appendText(`Data source: ${String(input.data_source)}`);
  message.appendCodeblock(String(input.query), 'tsq');
  return { invocationMessage: 'Running a TSQ query', confirmationMessages: { title: 'Send rows of your data to the model?', message } };
}

/** The part of the 1.101 API this file uses, for VS Code versions whose types (or runtime) lack it. */
interface McpApi {
  registerMcpServerDefinitionProvider?(id: string, provider: { provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[]; onDidChangeMcpServerDefinitions?: vscode.Event<void> }): vscode.Disposable;
}
type McpStdioServerDefinitionCtor = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => { cwd?: vscode.Uri };

/**
 * Registers the table's tools that the extension offers (`vscode` in the table) and, when this VS Code has the API, the MCP server definition provider
 * `tsq.mcp` (package.json `contributes.mcpServerDefinitionProviders`).
 *
 * - `prepareInvocation` asks the person before `tsq_run_query` sends rows of their data to a model (VS Code
 *   shows the confirmation and offers to remember the answer).
 * - The MCP server offered is `tsq mcp` run from the workspace folder, as in a terminal: its connection and
 *   password come from the command line's files and sources, and a repository's tsq.json needs `tsq trust`
 *   (common/src/connectionConfig.ts). No secret of VS Code's secret storage is handed to it.
 */
export function registerAgentTools(client: TsqClient): void {
  const context = client.extension;
  const deps: AgentToolsDeps = client;
  const documents = new Map<string, string>();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(AGENT_SCHEME, { provideTextDocumentContent: (uri) => documents.get(uri.toString()) ?? '' }),
  );
  const backend = extensionAgentBackend(deps, documents);
  if (typeof vscode.lm?.registerTool === 'function') {
    for (const name of AGENT_TOOL_NAMES) {
      const spec: AgentToolSpec<AgentToolName> = AGENT_TOOLS[name];
      if (!spec.vscode || (spec.offered && !spec.offered(backend))) continue;
      context.subscriptions.push(
        vscode.lm.registerTool<object>(vscodeToolName(name), {
          ...(name === 'run_query' ? { prepareInvocation: (options: vscode.LanguageModelToolInvocationPrepareOptions<object>) => confirmRun(AGENT_TOOLS.run_query.input.parse(options.input)) } : {}),
          invoke: async (options, token) => toResult(await spec.run(backend, inputOf(spec, options.input), signalOf(token))),
        }),
      );
    }
  }
  const lm = vscode.lm as unknown as McpApi;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
  if (typeof lm?.registerMcpServerDefinitionProvider === 'function' && Definition) {
    context.subscriptions.push(
      lm.registerMcpServerDefinitionProvider('tsq.mcp', {
        provideMcpServerDefinitions: () => {
          // VS Code runs the extension host on Electron: as a plain Node.js it needs ELECTRON_RUN_AS_NODE
          const definition = new Definition('TSQ', process.execPath, [context.asAbsolutePath('dist/cli.js'), 'mcp'], { ELECTRON_RUN_AS_NODE: '1' }, String(context.extension.packageJSON.version ?? ''));
          const folder = vscode.workspace.workspaceFolders?.[0];
          if (folder?.uri.scheme === 'file') definition.cwd = folder.uri;
          return [definition];
        },
      }),
    );
  }
}
