/**
 * Models: a LOGICAL_TABLE of subtype WORKSHEET over several tables joined, built from a worksheet or model
 * definition (common/src/tml/modelTml.ts `ModelDefinition`), the one shape of the seed's `models` and of an
 * imported worksheet or model TML. The definition is checked first (`checkModelDefinition`) against the
 * catalog's tables, its formulas by the formula language (common/src/tml/modelFormulas.ts); a column reads
 * its table path's column, a formula column keeps its formula with the type and aggregation it gives.
 * searchdata joins what a query needs along the table paths (searchdata/model.ts).
 */
import { checkModelDefinition, memberPathText, type ModelDefinition } from '../../common/src/tml/modelTml';
import { checkModelFormulas } from '../../common/src/tml/modelFormulas';
import { dataTypeOf } from '../../common/src/formula/checker';
import { splitColumnPath } from '../../common/src/language/keywords';
import type { DefaultAggr, Header, LogicalColumn, LogicalTable, MetadataStore } from './metadataStore';
import { stableGuid } from './guid';
import { isOneOf } from '../../common/src/guards';

/** A definition the catalog cannot build: each problem (path in the TML document, message). */
export class ModelDefinitionError extends Error {}

const AGGREGATIONS: readonly DefaultAggr[] = ['SUM', 'AVERAGE', 'MIN', 'MAX', 'COUNT', 'COUNT_DISTINCT', 'STD_DEVIATION', 'VARIANCE', 'NONE'];

/** The catalog's table (ONE_TO_ONE_LOGICAL) of a model table: by `fqn` (GUID) when given, else by name or `database.schema.table`, any case. */
export function modelTableOf(catalog: MetadataStore, name: string, fqn?: string): LogicalTable | undefined {
  const tables = catalog.state.tables.filter((t) => t.subtype === 'ONE_TO_ONE_LOGICAL');
  if (fqn) return tables.find((t) => t.id === fqn.toLowerCase());
  const k = name.toLowerCase();
  return tables.find((t) => t.name.toLowerCase() === k) ?? tables.find((t) => `${t.database}.${t.schema}.${t.tableName}`.toLowerCase() === k);
}

/**
 * The LOGICAL_TABLE of a model definition, with header `header` (its `id` names the columns' GUIDs).
 * @throws ModelDefinitionError listing the definition's problems (unknown table or column, a join of
 *   incompatible types, a duplicate name, a join cycle…), each with its place in the TML document.
 */
export function buildModel(catalog: MetadataStore, def: ModelDefinition, header: Header): LogicalTable {
  const columnsOf = (name: string, fqn?: string): LogicalColumn[] | null => modelTableOf(catalog, name, fqn)?.columns ?? null;
  const problems = checkModelDefinition(def, columnsOf);
  const formulas = problems.length ? undefined : checkModelFormulas(def, columnsOf);
  problems.push(...(formulas?.problems ?? []));
  if (problems.length) throw new ModelDefinitionError(`${def.kind} ${def.name}: ${problems.map((p) => `${memberPathText(p.path)}: ${p.message}`).join('; ')}`);
  const tableOf = new Map(def.tables.map((t) => [t.id.toLowerCase(), modelTableOf(catalog, t.name, t.fqn)!]));
  const columns: LogicalColumn[] = def.columns.map((c) => {
    const common = { id: stableGuid('column', header.id, c.name), name: c.name, ...(c.description !== undefined ? { description: c.description } : {}), synonyms: c.synonyms ?? [] };
    if (c.formulaId !== undefined) {
      const i = def.formulas.findIndex((x) => x.id.toLowerCase() === c.formulaId!.toLowerCase());
      const f = def.formulas[i]!;
      const value = formulas!.values[i]!;
      const written = String(f.properties?.column_type ?? '').toUpperCase();
      const kind = c.kind ?? (written === 'MEASURE' || written === 'ATTRIBUTE' ? written : value.aggregate ? 'MEASURE' : 'ATTRIBUTE');
      // the type its expression gives (searchdata computes it: searchdata/model.ts); a measure of unknown type is a DOUBLE, an attribute a VARCHAR
      const dataType = dataTypeOf(value.type) ?? (kind === 'MEASURE' ? 'DOUBLE' : 'VARCHAR');
      // an aggregate formula is computed per group as written: no aggregation of the search applies to it
      const aggregation = kind === 'MEASURE' && !value.aggregate ? aggregationOf(c.aggregation) ?? 'SUM' : 'NONE';
      return { ...common, dataType, kind, aggregation, physicalName: '', formulaId: f.id, formula: { expr: f.expr, aggregate: value.aggregate } };
    }
    const { path, column } = splitColumnPath(c.columnId!);
    const tp = def.tablePaths.find((p) => p.id.toLowerCase() === path!.trim().toLowerCase())!;
    const src = tableOf.get(tp.table.toLowerCase())!.columns.find((x) => x.name.toLowerCase() === column.trim().toLowerCase())!;
    const kind = c.kind ?? src.kind;
    const aggregation = kind === 'MEASURE' ? aggregationOf(c.aggregation) ?? (src.kind === 'MEASURE' ? src.aggregation : 'SUM') : 'NONE';
    return { ...common, dataType: src.dataType, kind, aggregation, description: c.description ?? src.description, synonyms: c.synonyms ?? src.synonyms, physicalName: src.physicalName, tablePath: tp.id };
  });
  const rootPath = def.tablePaths.find((p) => p.joinPath.length === 0) ?? def.tablePaths[0];
  const root = rootPath ? tableOf.get(rootPath.table.toLowerCase())! : tableOf.get(def.tables[0]!.id.toLowerCase())!;
  return {
    ...header,
    ...(def.description !== undefined ? { description: def.description } : {}),
    subtype: 'WORKSHEET',
    tableId: root.id,
    database: root.database,
    schema: root.schema,
    tableName: root.tableName,
    sqlName: root.sqlName,
    columns,
    model: { tables: def.tables.map((t) => ({ id: t.id, guid: tableOf.get(t.id.toLowerCase())!.id })), joins: def.joins, tablePaths: def.tablePaths, formulas: def.formulas },
  };
}

function aggregationOf(a: string | undefined): DefaultAggr | undefined {
  const u = a?.toUpperCase();
  return isOneOf(AGGREGATIONS, u) ? u : undefined;
}

/**
 * A column's `sources` in metadata/details (v1, and v2 metadata/search `include_details`): the table
 * column it reads, as the service lists a worksheet column's (`[{tableId, tableName, columnId,
 * columnName}]`, read by ThoughtSpot's cs_tools), with the model's table path it reads through as
 * `tablePathId` (docs/service-notes.md "Table paths in metadata/details"): `{sources}` to spread into the
 * column's entry. A table's own column, or a formula column, has none (`{}`).
 */
export function columnSources(catalog: MetadataStore, t: LogicalTable, c: LogicalColumn): { sources?: Record<string, string>[] } {
  if (!t.model || c.tablePath === undefined) return {};
  const path = t.model.tablePaths.find((p) => p.id.toLowerCase() === c.tablePath!.toLowerCase());
  const guid = path && t.model.tables.find((x) => x.id.toLowerCase() === path.table.toLowerCase())?.guid;
  const table = guid ? catalog.state.tables.find((x) => x.id === guid) : undefined;
  const src = table?.columns.find((x) => x.physicalName === c.physicalName);
  if (!table || !src) return {};
  return { sources: [{ tableId: table.id, tableName: table.name, columnId: src.id, columnName: src.name, tablePathId: path!.id }] };
}
