/**
 * The answers of the catalog protocol (common/src/protocol.ts: `tsq/dataSources`, `tsq/columns`,
 * `tsq/columnValues`) as JSON Schemas, checked with Ajv once, where an answer arrives (the server's
 * `ProtocolCatalog`). What passes is a well-formed `DataSource[]`, `DataSourceColumns` or `string[]`, and
 * the language features trust it; what fails is "unknown" as a whole, never partly used: a catalog with a
 * column dropped would report that column as unknown, a false error.
 *
 * Optional fields may be `null` (JSON has no `undefined`): they are accepted and left out of the result.
 * Fields the schema does not name are left out too. The rules follow the domain model
 * (common/src/model.ts): `dataType` is one of `COLUMN_DATA_TYPES`, `kind` ATTRIBUTE or MEASURE.
 */
import Ajv from 'ajv';
import type { ErrorObject } from 'ajv';
import { COLUMN_DATA_TYPES } from './model';
import type { Column, DataSource, DataSourceColumns } from './model';
import { MAX_CALENDARS, MAX_COLUMN_VALUES } from './protocol';

const optionalString = { type: ['string', 'null'] } as const;

/** JSON Schema of a `tsq/dataSources` answer. */
export const DATA_SOURCES_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'name', 'type'],
    properties: { id: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' } },
  },
} as const;

/** JSON Schema of one column of a `tsq/columns` answer. */
export const COLUMN_SCHEMA = {
  type: 'object',
  required: ['name', 'dataType', 'kind'],
  properties: {
    id: optionalString,
    name: { type: 'string', minLength: 1 },
    dataType: { enum: [...COLUMN_DATA_TYPES] },
    kind: { enum: ['ATTRIBUTE', 'MEASURE'] },
    description: optionalString,
    synonyms: { type: ['array', 'null'], items: { type: 'string' } },
    tablePath: optionalString,
    sourceColumn: optionalString,
  },
} as const;

/** JSON Schema of a `tsq/columns` answer: `null` (no such data source) or the data source's columns. */
export const DATA_SOURCE_COLUMNS_SCHEMA = {
  oneOf: [
    { type: 'null' },
    {
      type: 'object',
      required: ['id', 'name', 'columns'],
      properties: { id: { type: 'string' }, name: { type: 'string' }, columns: { type: 'array', items: COLUMN_SCHEMA } },
    },
  ],
} as const;

/** JSON Schema of a `tsq/columnValues` answer. */
export const COLUMN_VALUES_SCHEMA = { type: 'array', items: { type: 'string' } } as const;

/** JSON Schema of a `tsq/calendars` answer: the custom calendars' names. */
export const CALENDARS_SCHEMA = { type: 'array', items: { type: 'string' } } as const;

const ajv = new Ajv({ strict: true, allowUnionTypes: true });
const checkDataSources = ajv.compile<DataSource[]>(DATA_SOURCES_SCHEMA);
const checkDataSourceColumns = ajv.compile<{ id: string; name: string; columns: RawColumn[] } | null>(DATA_SOURCE_COLUMNS_SCHEMA);
const checkColumnValues = ajv.compile<string[]>(COLUMN_VALUES_SCHEMA);
const checkCalendars = ajv.compile<string[]>(CALENDARS_SCHEMA);

/** The first schema error of a failed check, as `path: message` (for logs). */
function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  return e ? `${e.instancePath || '(the answer)'} ${e.message ?? 'is malformed'}` : 'malformed';
}

/** The outcome of checking an answer: the typed value, or why it is malformed. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The raw shape of a column that passed `COLUMN_SCHEMA`. */
interface RawColumn {
  id?: string | null;
  name: string;
  dataType: Column['dataType'];
  kind: Column['kind'];
  description?: string | null;
  synonyms?: string[] | null;
  tablePath?: string | null;
  sourceColumn?: string | null;
}

function toColumn(raw: RawColumn): Column {
  const column: Column = { name: raw.name, dataType: raw.dataType, kind: raw.kind };
  if (typeof raw.id === 'string') column.id = raw.id;
  if (typeof raw.description === 'string') column.description = raw.description;
  if (Array.isArray(raw.synonyms)) column.synonyms = [...raw.synonyms];
  // a model's column: its table path and the column it reads there, together or not at all (model.ts)
  if (typeof raw.tablePath === 'string' && typeof raw.sourceColumn === 'string') Object.assign(column, { tablePath: raw.tablePath, sourceColumn: raw.sourceColumn });
  return column;
}

/** Checks a `tsq/dataSources` answer against `DATA_SOURCES_SCHEMA`; keeps `id`, `name` and `type` only. */
export function checkDataSourcesAnswer(value: unknown): Checked<DataSource[]> {
  if (!checkDataSources(value)) return { ok: false, reason: describe(checkDataSources.errors) };
  return { ok: true, value: value.map((s) => ({ id: s.id, name: s.name, type: s.type })) };
}

/** Checks a `tsq/columns` answer against `DATA_SOURCE_COLUMNS_SCHEMA`; `null` stays null. */
export function checkDataSourceColumnsAnswer(value: unknown): Checked<DataSourceColumns | null> {
  if (!checkDataSourceColumns(value)) return { ok: false, reason: describe(checkDataSourceColumns.errors) };
  if (value === null) return { ok: true, value: null };
  return { ok: true, value: { id: value.id, name: value.name, columns: value.columns.map(toColumn) } };
}

/** Checks a `tsq/columnValues` answer against `COLUMN_VALUES_SCHEMA`; keeps the first `MAX_COLUMN_VALUES`. */
export function checkColumnValuesAnswer(value: unknown): Checked<string[]> {
  if (!checkColumnValues(value)) return { ok: false, reason: describe(checkColumnValues.errors) };
  return { ok: true, value: value.slice(0, MAX_COLUMN_VALUES) };
}

/** Checks a `tsq/calendars` answer against `CALENDARS_SCHEMA`; keeps the first `MAX_CALENDARS` non-blank names. */
export function checkCalendarsAnswer(value: unknown): Checked<string[]> {
  if (!checkCalendars(value)) return { ok: false, reason: describe(checkCalendars.errors) };
  return { ok: true, value: value.filter((n) => n.trim() !== '').slice(0, MAX_CALENDARS) };
}
