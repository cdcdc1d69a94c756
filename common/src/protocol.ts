/**
 * The catalog protocol between the TSQ language server and the extension (docs/architecture.md, "The
 * catalog protocol"). The server never talks HTTP: it asks the client, which owns the connection and
 * the session. Every custom message is declared here once as a typed request or notification type
 * (`RequestType<P, R>` of vscode-jsonrpc, as vscode-eslint declares its own), and both sides use these
 * constants, so a change of a message's shape is a type error on both sides.
 *
 * This module imports neither `vscode` nor `vscode-languageserver`.
 */
import { NotificationType, RequestType, RequestType0 } from 'vscode-jsonrpc';
import type { DataSource, DataSourceColumns } from './model';


/** Params of `tsq/columns`. */
export interface ColumnsParams {
  /** A data source name or GUID, as written after `@datasource`. */
  dataSource: string;
}

/** Params of `tsq/columnValues`. */
export interface ColumnValuesParams {
  /** A data source name or GUID. */
  dataSource: string;
  /** The column name (without brackets). */
  column: string;
  /** What the user typed of the value so far (without the opening quote); may be empty. */
  prefix: string;
}

/** Params of `tsq/queries`. */
export interface QueriesParams {
  /** The document URI, as the client knows it. */
  uri: string;
}

/** One query of a `.tsq` document, as answered by `tsq/queries`. */
export interface DocumentQuery {
  /** The query's range in the document (LSP positions, UTF-16 characters). */
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** The query text to send to searchdata: the query's own text with comments removed, trimmed. */
  text: string;
  /** The data source name or GUID in force for this query (its `@datasource`, else `tsq.defaultDataSource`), or null when none. */
  dataSource: string | null;
}

/** Maximum number of values answered by `tsq/columnValues`. */
export const MAX_COLUMN_VALUES = 50;

/** Maximum number of calendar names kept from a `tsq/calendars` answer. */
export const MAX_CALENDARS = 1000;

/**
 * Server → client: every data source of the active connection. Sent when completing `@datasource` and
 * validating it. Result: `DataSource[]`.
 */
export const DataSourcesRequest = new RequestType0<DataSource[], void>('tsq/dataSources');

/**
 * The answer to `tsq/columns`; each outcome has its own value:
 * - `DataSourceColumns`: the data source exists; these are its columns;
 * - `null`: the service has no data source of that name or GUID (the server reports
 *   `tsq.unknownDataSource`);
 * - unknown (not connected, the service unreachable or refusing): not a value but an error reply, with the
 *   code `CATALOG_UNKNOWN`; the server then reports no semantic diagnostic. `null` never means unknown.
 */
export type ColumnsAnswer = DataSourceColumns | null;

/**
 * The JSON-RPC error code of a `tsq/*` reply that says "the catalog is unknown right now" (not connected,
 * the service unreachable or refusing): an application code, outside the ranges JSON-RPC (-32768 to
 * -32000) and LSP (-32899 to -32800) reserve. The server reads any error reply as unknown; this code says
 * it was meant rather than a failure of the client.
 */
export const CATALOG_UNKNOWN = 1001;

/**
 * Server → client: the columns of one data source (by name or GUID), as a `ColumnsAnswer`: the columns,
 * `null` for a data source the service does not have, or an error reply (`CATALOG_UNKNOWN`) when the
 * catalog is unknown. Sent the first time a document refers to that data source, then cached until
 * `tsq/catalogChanged`.
 */
export const ColumnsRequest = new RequestType<ColumnsParams, ColumnsAnswer, void>('tsq/columns');

/** Server → client: up to `MAX_COLUMN_VALUES` values of a column that start with a prefix, for completion after a comparison operator. */
export const ColumnValuesRequest = new RequestType<ColumnValuesParams, string[], void>('tsq/columnValues');

/**
 * Server → client: the names of the service's custom calendars (v2 `calendars/search`; the names a query
 * writes after `calendar.`), for completion after `calendar.`. Result: `string[]` ([] when the service
 * lists none to this user), or an error reply (`CATALOG_UNKNOWN`) when the catalog is unknown. Cached
 * until `tsq/catalogChanged`.
 */
export const CalendarsRequest = new RequestType0<string[], void>('tsq/calendars');

/** Client → server notification: the catalog changed (connection switch, Refresh Catalog, the service back); the server drops its cache and re-validates. */
export const CatalogChangedNotification = new NotificationType<Record<string, never>>('tsq/catalogChanged');

/** Client → server: the queries of a document, for Run Query and its CodeLens. */
export const QueriesRequest = new RequestType<QueriesParams, DocumentQuery[], void>('tsq/queries');

/** Params of `tsq/virtualDocument`: a `tsq:` URI a definition answered (common/src/languageService/navigation.ts `virtualUri`). */
export interface VirtualDocumentParams {
  uri: string;
}

/** The read-only text of a `tsq:` document, and its language (`markdown`). */
export interface VirtualDocument {
  text: string;
  languageId: string;
}

/** Client → server: the text of a `tsq:` document (a column or data source no workspace file declares); null for an unknown URI. */
export const VirtualDocumentRequest = new RequestType<VirtualDocumentParams, VirtualDocument | null, void>('tsq/virtualDocument');

/** Params of `tsq/uses`: a position (0-based line and UTF-16 character, as LSP counts) in a document. */
export interface UsesParams {
  textDocument: { uri: string };
  position: { line: number; character: number };
}

/** One use of a column in a workspace file: its URI and range (LSP `Location`). */
export interface UseLocation {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/** What `tsq/uses` answers: the column at the position as written there, its data source as a file names it, and its uses across the workspace index (declarations aside). */
export interface UsesAnswer {
  column: string;
  dataSource: string;
  locations: UseLocation[];
}

/** Client → server: the column at a position and its workspace uses, for the Uses view (client/src/uses.ts); null when the position names no column. */
export const UsesRequest = new RequestType<UsesParams, UsesAnswer | null, void>('tsq/uses');

/** The server's command that runs one query of a `.tsq` document (`workspace/executeCommand`; arguments `[{ uri, index }]`, as the Run lens gives them). */
export const RUN_QUERY_COMMAND = 'tsq.server.runQuery';
