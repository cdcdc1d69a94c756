/**
 * Code lenses (`textDocument/codeLens`): `▶ Run` above each query of a `.tsq` document, its command the
 * server's `tsq.server.runQuery` (`workspace/executeCommand`; VS Code's client maps it onto its own Run
 * Query), and `N references` on each column a worksheet/model/table TML declares (the workspace index).
 * The server's run asks its host (`RuntimeEnvironment.runQuery`: `tsq lsp` with a connection) and writes
 * the answer as a table to the log; without a host it answers an error saying so.
 */
import { LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import type { CodeLens } from 'vscode-languageserver';
import { RUN_QUERY_COMMAND } from '../../../common/src/protocol';
import { rangeIn } from '../../../common/src/languageService/navigation';
import type { FeatureContext } from './context';
import { kindOfDocument, normalizeUri, type WorkspaceIndexFeature } from './workspaceIndex';
import { recordOr } from '../../../common/src/guards';

/** Runs one query for `workspace/executeCommand`: the query's text and data source; resolves to the answer as text. */
export type QueryRunner = (query: { text: string; dataSource: string | null }) => Promise<string>;

/** The title of the references lens of a declaration with `n` references. */
export function referencesTitle(n: number): string {
  return n === 1 ? '1 reference' : `${n} references`;
}

/** Registers the code lens and `workspace/executeCommand` handlers. */
export function registerCodeLens(ctx: FeatureContext, feature: WorkspaceIndexFeature, runQuery: QueryRunner | undefined): void {
  ctx.connection.onCodeLens((params, token) => ctx.runSafeAsync(async () => {
    const document = ctx.documents.get(params.textDocument.uri);
    const lenses: CodeLens[] = [];
    if (document && kindOfDocument(document) === 'tsq') {
      const queries = ctx.service.getQueries(document, await ctx.settings.get(document.uri));
      queries.forEach((q, index) => lenses.push({
        range: { start: { line: q.range.start.line, character: 0 }, end: { line: q.range.start.line, character: 0 } },
        command: { title: '▶ Run', tooltip: 'Run this query', command: RUN_QUERY_COMMAND, arguments: [{ uri: document.uri, index }] },
      }));
      return lenses;
    }
    await feature.settled();
    const file = feature.index.get(normalizeUri(params.textDocument.uri));
    if (!file || file.kind === 'tsq' || file.kind === 'answer' || file.kind === 'liveboard') return lenses;
    for (const use of file.columns) {
      if (!use.declaration) continue;
      const target = { kind: 'column' as const, column: use.column, dataSource: feature.index.dataSourceOf(use) };
      const range = rangeIn(file, use.start, use.end);
      const n = feature.index.references(target, false).length;
      lenses.push({ range, command: { title: referencesTitle(n), command: '', arguments: [params.textDocument.uri, range.start] } });
    }
    return lenses;
  }, [], `Code lenses of ${params.textDocument.uri}`, token));

  ctx.connection.onExecuteCommand((params, token) => ctx.runSafeAsync(async () => {
    if (params.command !== RUN_QUERY_COMMAND) return new ResponseError(LSPErrorCodes.RequestFailed, `Unknown command ${params.command}.`);
    const arg = recordOr(params.arguments?.[0]);
    const document = typeof arg.uri === 'string' ? ctx.documents.get(arg.uri) : undefined;
    const query = document && typeof arg.index === 'number' ? ctx.service.getQueries(document, await ctx.settings.get(document.uri))[arg.index] : undefined;
    if (!query) return new ResponseError(LSPErrorCodes.RequestFailed, 'No such query: the document is not open or has changed.');
    if (!runQuery) return new ResponseError(LSPErrorCodes.RequestFailed, 'Run needs a connection: start the server with one (tsq lsp --connection NAME).');
    const answer = await runQuery({ text: query.text, dataSource: query.dataSource });
    ctx.log(answer);
    return answer;
  }, null, 'workspace/executeCommand', token));
}
