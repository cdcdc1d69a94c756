/**
 * Navigation over the workspace index (workspaceIndex.ts; the logic in
 * common/src/languageService/navigation.ts): `textDocument/definition`, `references`,
 * `documentHighlight`, `prepareRename`, `rename`, `workspace/symbol`, `tsq/uses` (the Uses view), and `tsq/virtualDocument`, the
 * read-only `tsq:` document of a column or data source no file of the workspace declares; a query
 * without `@datasource` reads the asking document's `tsq.defaultDataSource`. A position on
 * nothing (whitespace, a comment, a keyword, past the end) answers empty, never an error.
 */
import { LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import type { Position } from 'vscode-languageserver';
import { UsesRequest, VirtualDocumentRequest, type UsesParams, type VirtualDocumentParams } from '../../../common/src/protocol';
import { highlightsIn, locationsOf, parseVirtualUri, rangeIn, renameColumn, RenameRefused, virtualDocumentText, virtualUri, workspaceSymbols } from '../../../common/src/languageService/navigation';
import { offsetIn, type NavigationTarget } from '../../../common/src/languageService/workspaceIndex';
import type { Column } from '../../../common/src/model';
import type { FeatureContext } from './context';
import { normalizeUri, type WorkspaceIndexFeature } from './workspaceIndex';

/** Registers the navigation handlers on the index. */
export function registerNavigation(ctx: FeatureContext, feature: WorkspaceIndexFeature): void {
  const { index } = feature;
  /** What the position of a document names, once the index is ready. */
  const targetAt = async (uri: string, position: Position) => {
    await feature.settled();
    index.defaultDataSource = (await ctx.settings.get(uri)).defaultDataSource;
    const u = normalizeUri(uri);
    const file = index.get(u);
    return file ? index.targetAt(u, offsetIn(file, position)) : undefined;
  };
  /** The catalog's columns of a data source, or undefined when the catalog does not know them. */
  const catalogColumns = async (dataSource: string): Promise<readonly Column[] | undefined> => {
    if (!dataSource) return undefined;
    try {
      return (await ctx.catalog.getColumns(dataSource))?.columns;
    } catch {
      return undefined;
    }
  };

  ctx.connection.onDefinition((params, token) => ctx.runSafeAsync(async () => {
    const at = await targetAt(params.textDocument.uri, params.position);
    if (!at) return [];
    const declared = index.declarations(at.target);
    if (declared.length) return locationsOf(declared);
    const name = at.target.kind === 'column' ? at.target.column : undefined;
    if (!at.target.dataSource) return [];
    const shown = at.target.kind === 'dataSource' ? (at.use as { dataSource: string }).dataSource : dataSourceName(at.target, at.use);
    return [{ uri: virtualUri(shown, name), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }];
  }, [], `Definition in ${params.textDocument.uri}`, token));

  ctx.connection.onRequest(VirtualDocumentRequest, (params: VirtualDocumentParams, token) => ctx.runSafeAsync(async () => {
    const named = typeof params?.uri === 'string' ? parseVirtualUri(params.uri) : undefined;
    if (!named) return null;
    await feature.settled();
    const columns = await catalogColumns(named.dataSource);
    const target: NavigationTarget = named.column === undefined ? { kind: 'dataSource', dataSource: named.dataSource } : { kind: 'column', column: named.column, dataSource: named.dataSource };
    const references = index.references(target, false).length;
    const column = named.column === undefined ? undefined : columns?.find((c) => c.name.toLowerCase() === named.column!.toLowerCase());
    return { text: virtualDocumentText(named.dataSource, named.column, { ...(column ? { column } : {}), ...(columns ? { columns } : {}), references }), languageId: 'markdown' };
  }, null, 'tsq/virtualDocument', token));

  ctx.connection.onReferences((params, token) => ctx.runSafeAsync(async () => {
    const at = await targetAt(params.textDocument.uri, params.position);
    return at ? locationsOf(index.references(at.target, params.context?.includeDeclaration === true)) : [];
  }, [], `References in ${params.textDocument.uri}`, token));

  ctx.connection.onRequest(UsesRequest, (params: UsesParams, token) => ctx.runSafeAsync(async () => {
    const at = typeof params?.textDocument?.uri === 'string' && params.position ? await targetAt(params.textDocument.uri, params.position) : undefined;
    if (at?.target.kind !== 'column') return null;
    return { column: at.target.column, dataSource: dataSourceName(at.target, at.use), locations: locationsOf(index.references(at.target, false)) };
  }, null, 'tsq/uses', token));

  ctx.connection.onDocumentHighlight((params, token) => ctx.runSafeAsync(async () => {
    const at = await targetAt(params.textDocument.uri, params.position);
    return at ? highlightsIn(index, normalizeUri(params.textDocument.uri), at.target) : [];
  }, [], `Highlights in ${params.textDocument.uri}`, token));

  ctx.connection.onPrepareRename((params, token) => ctx.runSafeAsync(async () => {
    const at = await targetAt(params.textDocument.uri, params.position);
    if (!at || at.target.kind !== 'column') return null;
    const file = index.get(normalizeUri(params.textDocument.uri))!;
    return { range: rangeIn(file, at.use.start, at.use.end), placeholder: at.target.column };
  }, null, `Prepare rename in ${params.textDocument.uri}`, token));

  ctx.connection.onRenameRequest((params, token) => ctx.runSafeAsync(async () => {
    const at = await targetAt(params.textDocument.uri, params.position);
    if (!at || at.target.kind !== 'column') return null;
    const target = at.target;
    const others = [...index.declaredColumns(target.dataSource).map((c) => c.column), ...((await catalogColumns(dataSourceName(target, at.use))) ?? []).map((c) => c.name)];
    try {
      return renameColumn(index, target, params.newName, others);
    } catch (e) {
      if (e instanceof RenameRefused) return new ResponseError(LSPErrorCodes.RequestFailed, e.message);
      throw e;
    }
  }, null, `Rename in ${params.textDocument.uri}`, token));

  ctx.connection.onWorkspaceSymbol((params, token) => ctx.runSafeAsync(async () => {
    await feature.settled();
    return workspaceSymbols(index, typeof params.query === 'string' ? params.query : '');
  }, [], 'Workspace symbols', token));
}

/** The data source of a column target as its reference writes it (the catalog looks it up by name or GUID). */
function dataSourceName(target: NavigationTarget, use: unknown): string {
  const written = (use as { dataSources?: string[] }).dataSources;
  return written?.find((d) => d.trim().toLowerCase() === target.dataSource) ?? written?.[0] ?? target.dataSource;
}
