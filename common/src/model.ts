/**
 * The domain model of the Analytics Service, declared once for every part of TSQ (the language server,
 * the extension, the emulator and the command line). Pure types and constants: no I/O, no `vscode`.
 *
 * Source: the object headers and the `metadata/details` answer of the v1 public REST API's Metadata API
 * (https://developers.thoughtspot.com/docs/metadata-api).
 */

/** The LOGICAL_TABLE subtypes that can be a data source (`subtypes` of `metadata/listobjectheaders`). */
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

/** Data types of a column (`dataType` of a column in `metadata/details`). */
export type ColumnDataType = 'VARCHAR' | 'CHAR' | 'BOOL' | 'INT32' | 'INT64' | 'FLOAT' | 'DOUBLE' | 'DATE' | 'DATE_TIME' | 'TIME';

/** All column data types, in the order of the vocabulary. */
export const COLUMN_DATA_TYPES: readonly ColumnDataType[] = ['VARCHAR', 'CHAR', 'BOOL', 'INT32', 'INT64', 'FLOAT', 'DOUBLE', 'DATE', 'DATE_TIME', 'TIME'];

/** True when a value is one of the column data types of `COLUMN_DATA_TYPES`. */
export function isKnownDataType(t: unknown): t is ColumnDataType {
  return typeof t === 'string' && (COLUMN_DATA_TYPES as readonly string[]).includes(t);
}

/** A column of a data source (a LOGICAL_COLUMN). */
export interface Column {
  /** GUID of the LOGICAL_COLUMN, when the service gave one. */
  id?: string;
  /** Column name as written between brackets in a query. */
  name: string;
  dataType: ColumnDataType;
  /** ATTRIBUTE columns group rows; MEASURE columns are aggregated. */
  kind: 'ATTRIBUTE' | 'MEASURE';
  description?: string;
  synonyms?: string[];
  /**
   * A model's (worksheet's) column: the id of the table path it reads (`table_paths[].id` of worksheet TML,
   * e.g. `airports_2`); a query may name it `[airports_2::city]` with `sourceColumn`. Absent on a table.
   */
  tablePath?: string;
  /** With `tablePath`: the name of the column it reads in that path's table (`city`). */
  sourceColumn?: string;
}

/** The columns of one data source, as answered by `tsq/columns`. */
export interface DataSourceColumns {
  id: string;
  name: string;
  columns: Column[];
}

/**
 * A cell of an answer as `searchdata` and `pinboarddata` send it: a string, a number or a boolean; null for
 * a missing value; dates are epoch seconds (docs/service-notes.md §1.2). Declared once: the service client
 * (common/src/api/publicApi.ts) and the results shaping (common/src/results/shape.ts) re-export it.
 */
export type CellValue = string | number | boolean | null;
