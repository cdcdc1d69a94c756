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

/** The kinds of value a column type holds: each type belongs to one family. */
export type ColumnFamily = 'text' | 'number' | 'date' | 'time' | 'bool';

/** What TSQ knows of one column data type. */
export interface ColumnTypeInfo {
  /** The kind of value: text, a number, a calendar date (with or without a time of day), a time of day, a boolean. */
  readonly family: ColumnFamily;
  /** A number type whose values are integers (INT32, INT64). */
  readonly integral?: boolean;
  /**
   * How the results show an epoch-seconds value of the type: `day` (`2024-03-01`), `dayTime`
   * (`2024-03-01 13:05:00`); absent for a type whose values are not dates.
   */
  readonly display?: 'day' | 'dayTime';
}

/**
 * The column data types (`dataType` of a column in `metadata/details`, docs/service-notes.md §3.2), in the
 * order of the vocabulary, declared once: the type, the list, the families and the display hints of every
 * part of TSQ are derived from this table (test/unit/column-types.test.ts fails on a list written elsewhere).
 */
export const COLUMN_TYPES = {
  VARCHAR: { family: 'text' },
  CHAR: { family: 'text' },
  BOOL: { family: 'bool' },
  INT32: { family: 'number', integral: true },
  INT64: { family: 'number', integral: true },
  FLOAT: { family: 'number' },
  DOUBLE: { family: 'number' },
  DATE: { family: 'date', display: 'day' },
  DATE_TIME: { family: 'date', display: 'dayTime' },
  TIME: { family: 'time' },
} as const satisfies Record<string, ColumnTypeInfo>;

/** Data types of a column (`dataType` of a column in `metadata/details`): the keys of `COLUMN_TYPES`. */
export type ColumnDataType = keyof typeof COLUMN_TYPES;

/** The column data types of one family, as a type (`ColumnTypeOf<'date'>` is `'DATE' | 'DATE_TIME'`). */
export type ColumnTypeOf<F extends ColumnFamily> = { [K in ColumnDataType]: (typeof COLUMN_TYPES)[K]['family'] extends F ? K : never }[ColumnDataType];

const TYPE_INFO: Readonly<Record<string, ColumnTypeInfo | undefined>> = COLUMN_TYPES;

/** True when a value is one of the column data types of `COLUMN_TYPES`. */
export function isKnownDataType(t: unknown): t is ColumnDataType {
  return typeof t === 'string' && Object.hasOwn(COLUMN_TYPES, t);
}

/** All column data types, in the order of the vocabulary. */
export const COLUMN_DATA_TYPES: readonly ColumnDataType[] = Object.keys(COLUMN_TYPES).filter(isKnownDataType);

/** The family of a column data type; undefined for a type outside `COLUMN_TYPES` (`UNKNOWN` of an answer). */
export function familyOf(t: string): ColumnFamily | undefined {
  return TYPE_INFO[t]?.family;
}

/** True when `t` is a data type of the family `f` (`isFamily('INT32', 'number')`). */
export function isFamily<F extends ColumnFamily>(t: string, f: F): t is ColumnTypeOf<F> {
  return familyOf(t) === f;
}

/** The data types of a family, in the order of the vocabulary. */
export function typesOf<F extends ColumnFamily>(f: F): readonly ColumnTypeOf<F>[] {
  return COLUMN_DATA_TYPES.filter((t): t is ColumnTypeOf<F> => isFamily(t, f));
}

/** How the results show an epoch-seconds value of type `t` (`COLUMN_TYPES[t].display`); undefined for a non-date. */
export function displayOf(t: string): ColumnTypeInfo['display'] {
  return TYPE_INFO[t]?.display;
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
