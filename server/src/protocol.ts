/**
 * The catalog protocol between the TSQ language server and the extension (DESIGN.md, "The catalog
 * protocol"). The server never talks HTTP: it asks the client, which owns the connection and the
 * session. Every custom message is declared here once, typed, and imported by both sides.
 *
 * This module is pure (no `vscode`, no connection): it only names methods and shapes, so the server,
 * the client and the emulator can all import it.
 */

/** The LOGICAL_TABLE subtypes of seed 4.2 / field notes 3.1 that can be a data source. */
export type DataSourceType = 'ONE_TO_ONE_LOGICAL' | 'WORKSHEET' | 'PRIVATE_WORKSHEET' | 'USER_DEFINED' | 'AGGR_WORKSHEET' | 'SQL_VIEW' | string;

/** A data source a query can run against (a LOGICAL_TABLE header). */
export interface DataSource {
  /** GUID of the LOGICAL_TABLE. */
  id: string;
  /** Display name, as in the object header. */
  name: string;
  /** The LOGICAL_TABLE subtype. */
  type: DataSourceType;
}

/** Data types of a column (field notes 3.2; `dataType` of `metadata/details`). */
export type ColumnDataType = 'VARCHAR' | 'CHAR' | 'BOOL' | 'INT32' | 'INT64' | 'FLOAT' | 'DOUBLE' | 'DATE' | 'DATE_TIME' | 'TIME';

/** All column data types, in the order of the vocabulary. */
export const COLUMN_DATA_TYPES: readonly ColumnDataType[] = ['VARCHAR', 'CHAR', 'BOOL', 'INT32', 'INT64', 'FLOAT', 'DOUBLE', 'DATE', 'DATE_TIME', 'TIME'];

/** A column of a data source (a LOGICAL_COLUMN). */
export interface Column {
  /** GUID of the LOGICAL_COLUMN, when the service gave one. */
  id?: string;
  /** Column name as written between brackets in a query. */
  name: string;
  dataType: ColumnDataType;
  /** ATTRIBUTE columns group rows; MEASURE columns are aggregated (field notes 2.10). */
  kind: 'ATTRIBUTE' | 'MEASURE';
  description?: string;
  synonyms?: string[];
}

/** The columns of one data source, as answered by `tsq/columns`. */
export interface DataSourceColumns {
  id: string;
  name: string;
  columns: Column[];
}

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

/**
 * Method names of the custom messages.
 *
 * | method | direction | params | result |
 * |---|---|---|---|
 * | `tsq/dataSources` | server → client request | `{}` | `DataSource[]` |
 * | `tsq/columns` | server → client request | `ColumnsParams` | `DataSourceColumns \| null` |
 * | `tsq/columnValues` | server → client request | `ColumnValuesParams` | `string[]` (≤ 50) |
 * | `tsq/catalogChanged` | client → server notification | `{}` | — |
 * | `tsq/queries` | client → server request | `QueriesParams` | `DocumentQuery[]` |
 */
/**
 * Node options the language server process is started with (client/src/languageClient.ts; the protocol
 * tests and benchmarks start dist/server.js with them too). A young generation of 32 MB semi-spaces
 * (V8's default is at most 16 MB) lets the AST of a document parsed on a keystroke die before it is
 * copied out of the young generation: ~1 MB of queries is ~190,000 AST objects, the garbage collector
 * is about a quarter of a parse's CPU profile with the default size, and the median parse is ~10% faster
 * with this one (test/bench/parse.bench.ts measures both).
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=32'];

export const Methods = {
  /** Server → client: every data source of the active connection. Sent when completing `@datasource` and validating it. */
  dataSources: 'tsq/dataSources',
  /** Server → client: the columns of one data source (by name or GUID); `null` when unknown. Sent the first time a document refers to that data source, then cached until `tsq/catalogChanged`. */
  columns: 'tsq/columns',
  /** Server → client: up to 50 values of a column that start with a prefix, for completion after a comparison operator. */
  columnValues: 'tsq/columnValues',
  /** Client → server notification: the catalog changed (connection switch, Refresh Catalog); the server drops its cache and re-validates. */
  catalogChanged: 'tsq/catalogChanged',
  /** Client → server: the queries of a document, for Run Query and its CodeLens. */
  queries: 'tsq/queries',
} as const;
