/**
 * The one mapping of the service's column metadata onto the catalog protocol's `Column`
 * (common/src/model.ts), used by every front end through `ServiceCatalog`. Each rule names where it comes
 * from; the union of the rules the extension and the language server once kept apart (see the
 * same-answers test, test/unit/same-answers.test.ts).
 */
import { isFamily, isKnownDataType, type Column, type ColumnDataType } from '../model';
import type { DetailsColumn, ObjectHeader } from '../api/publicApi';

/**
 * A service data type as one of the protocol's `ColumnDataType`s. The protocol's own names pass as they
 * are (docs/service-notes.md §3.2). Other spellings the service is seen to use:
 * - TIMESTAMP (docs/service-notes.md §1.2) and DATETIME read as DATE_TIME;
 * - BOOLEAN as BOOL, INT and INTEGER as INT32, BIGINT as INT64: SQL spellings outside the enum of
 *   docs/service-notes.md §3.2, mapped first by the extension's catalog (client/src/catalog.ts).
 * An unknown or missing type reads as VARCHAR, the type that constrains least.
 */
export function toDataType(value: unknown): ColumnDataType {
  const s = typeof value === 'string' ? value.toUpperCase() : '';
  if (isKnownDataType(s)) return s;
  if (s === 'TIMESTAMP' || s === 'DATETIME') return 'DATE_TIME';
  if (s === 'BOOLEAN') return 'BOOL';
  if (s === 'INT' || s === 'INTEGER') return 'INT32';
  if (s === 'BIGINT') return 'INT64';
  return 'VARCHAR';
}

/**
 * ATTRIBUTE or MEASURE from a column's `type` (docs/service-notes.md §2.10). UNKNOWN or missing reads as
 * ATTRIBUTE, unless the data type is numeric and the default aggregation (`defaultAggrType`) is one other
 * than NONE (§2.10: `SUM` for numeric measures; UNKNOWN is seen on derived columns): the service
 * aggregates such a column, so it behaves as a MEASURE. Mapped first by the extension's catalog.
 */
export function toKind(type: unknown, dataType: ColumnDataType, defaultAggrType?: unknown): 'ATTRIBUTE' | 'MEASURE' {
  if (type === 'MEASURE') return 'MEASURE';
  if (type === 'ATTRIBUTE') return 'ATTRIBUTE';
  const numeric = isFamily(dataType, 'number');
  return numeric && typeof defaultAggrType === 'string' && defaultAggrType !== 'NONE' ? 'MEASURE' : 'ATTRIBUTE';
}

/**
 * Columns of a `metadata/details` storable (docs/service-notes.md §3.2), in the order a person sees them:
 * - a column whose header says `isHidden` is left out: the service lists one only when asked with
 *   `showhidden=true` (§3.2), so it is not one a person sees;
 * - sorted by `position` (§3.2's column member), not in the order of the answer;
 * - a column without a header name is left out (nothing to write between brackets);
 * - a model's column reads its table path and source column from its first `sources` entry (`tablePathId`,
 *   `columnName`; docs/service-notes.md "Table paths in metadata/details").
 */
export function columnsFromDetails(columns: readonly DetailsColumn[]): Column[] {
  return [...columns]
    .filter((c) => c && c.header && typeof c.header.name === 'string' && !c.header.isHidden)
    .sort((a, b) => Number(a.position ?? 0) - Number(b.position ?? 0))
    .map((c) => {
      const dataType = toDataType(c.dataType);
      const col: Column = { id: c.header.id, name: c.header.name, dataType, kind: toKind(c.type, dataType, c.defaultAggrType) };
      if (c.header.description) col.description = c.header.description;
      if (Array.isArray(c.synonyms) && c.synonyms.length) col.synonyms = c.synonyms.filter((s): s is string => typeof s === 'string');
      const source: unknown = Array.isArray(c.sources) ? c.sources[0] : undefined;
      if (source && typeof source === 'object') {
        const { tablePathId, columnName } = source as Record<string, unknown>;
        if (typeof tablePathId === 'string' && typeof columnName === 'string') Object.assign(col, { tablePath: tablePathId, sourceColumn: columnName });
      }
      return col;
    });
}

/**
 * Columns from LOGICAL_COLUMN object headers whose `owner` is the data source (docs/service-notes.md §3.1:
 * the owner of a column is its LOGICAL_TABLE): the fallback when `metadata/details` describes no table.
 * Headers carry no data type in docs/service-interface.md; when a service adds `dataType`/`type`/
 * `defaultAggrType` members they are used, otherwise VARCHAR / ATTRIBUTE.
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
