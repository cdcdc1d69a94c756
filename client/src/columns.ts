/**
 * Mapping of the service's column metadata onto the catalog protocol's `Column`
 * (common/src/protocol.ts). Pure (no `vscode`).
 */
import { COLUMN_DATA_TYPES, type Column, type ColumnDataType } from '../../common/src/model';
import type { DetailsColumn, ObjectHeader } from './service';

/**
 * A service data type as one of the protocol's `ColumnDataType`s. TIMESTAMP (seen in docs/service-notes.md §1.2)
 * reads as DATE_TIME; an unknown or missing type reads as VARCHAR, the type that constrains least.
 */
export function toDataType(value: unknown): ColumnDataType {
  const s = typeof value === 'string' ? value.toUpperCase() : '';
  if ((COLUMN_DATA_TYPES as readonly string[]).includes(s)) return s as ColumnDataType;
  if (s === 'TIMESTAMP' || s === 'DATETIME') return 'DATE_TIME';
  if (s === 'BOOLEAN') return 'BOOL';
  if (s === 'INT' || s === 'INTEGER') return 'INT32';
  if (s === 'BIGINT') return 'INT64';
  return 'VARCHAR';
}

/** ATTRIBUTE or MEASURE from a column's `type` (docs/service-notes.md §2.10); UNKNOWN or missing reads as ATTRIBUTE unless the data type is numeric and the default aggregation is not NONE. */
export function toKind(type: unknown, dataType: ColumnDataType, defaultAggrType?: unknown): 'ATTRIBUTE' | 'MEASURE' {
  if (type === 'MEASURE') return 'MEASURE';
  if (type === 'ATTRIBUTE') return 'ATTRIBUTE';
  const numeric = dataType === 'INT32' || dataType === 'INT64' || dataType === 'FLOAT' || dataType === 'DOUBLE';
  return numeric && typeof defaultAggrType === 'string' && defaultAggrType !== 'NONE' ? 'MEASURE' : 'ATTRIBUTE';
}

/** Columns of a `metadata/details` storable (docs/service-notes.md §3.2), hidden columns left out, in position order. */
export function columnsFromDetails(columns: readonly DetailsColumn[]): Column[] {
  return [...columns]
    .filter((c) => c && c.header && typeof c.header.name === 'string' && !c.header.isHidden)
    .sort((a, b) => Number(a.position ?? 0) - Number(b.position ?? 0))
    .map((c) => {
      const dataType = toDataType(c.dataType);
      const col: Column = { id: c.header.id, name: c.header.name, dataType, kind: toKind(c.type, dataType, c.defaultAggrType) };
      if (c.header.description) col.description = c.header.description;
      if (Array.isArray(c.synonyms) && c.synonyms.length) col.synonyms = c.synonyms.filter((s): s is string => typeof s === 'string');
      return col;
    });
}

/**
 * Columns from LOGICAL_COLUMN object headers whose `owner` is the data source (docs/service-notes.md §3.1: the
 * owner of a column is its LOGICAL_TABLE). Headers carry no data type in docs/service-interface.md; when a service adds
 * `dataType`/`type` members they are used, otherwise VARCHAR / ATTRIBUTE.
 */
export function columnsFromHeaders(headers: readonly ObjectHeader[], dataSourceId: string): Column[] {
  return headers
    .filter((h) => h.owner === dataSourceId && typeof h.name === 'string')
    .map((h) => {
      const dataType = toDataType(h.dataType);
      const col: Column = { id: h.id, name: h.name, dataType, kind: toKind(h.type, dataType, h.defaultAggrType) };
      if (h.description) col.description = h.description;
      return col;
    });
}
