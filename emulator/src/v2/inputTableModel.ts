/**
 * An input table's link to its model (emulator reading, docs/service-notes.md "Input tables"): the model
 * gains the input table as a table joined LEFT_OUTER on the key columns (`referenced_columns`) from the
 * table path those columns read, and the input table's own columns as model columns of that path; so
 * searchdata on the model reads the loaded rows beside the model's (searchdata/model.ts joins a path only
 * when a search names one of its columns). A one-table worksheet becomes a model of its one table first.
 * Deleting the input table takes all of it out of the model again.
 */
import { randomUUID } from 'node:crypto';
import type { LogicalColumn, LogicalTable, MetadataStore, StoredModel } from '../metadataStore';
import { ApiError } from '../errors';

/** The model of `ds`, a one-table worksheet given one (its table as the root path) when it had none. */
function modelOf(ds: LogicalTable, catalog: MetadataStore): StoredModel {
  if (ds.model) return ds.model;
  const base = catalog.dataSource(ds.tableId);
  if (!base) throw new ApiError(400, `Model ${ds.name}: its table ${ds.tableId} no longer exists.`);
  const path = `${base.name}_1`;
  for (const c of ds.columns) if (c.formulaId === undefined) c.tablePath = path;
  ds.model = { tables: [{ id: base.name, guid: base.id }], joins: [], tablePaths: [{ id: path, table: base.name, joinPath: [] }], formulas: [] };
  return ds.model;
}

/**
 * Checks, before anything is created, that an input table with `keys` (the model's columns) and `added`
 * (its own columns) can be linked to `model`: the keys read one table path, and no added column is named
 * like a model column. @throws ApiError 400
 */
export function checkLink(model: LogicalTable, keys: readonly LogicalColumn[], added: readonly LogicalColumn[]): void {
  const paths = new Set(keys.map((k) => (k.tablePath ?? '').toLowerCase()));
  if (keys.some((k) => k.formulaId !== undefined)) throw new ApiError(400, `Invalid value for table_definition.referenced_columns: a formula column of the model ${model.name} cannot be a key column.`);
  if (paths.size > 1) throw new ApiError(400, `Invalid value for table_definition.referenced_columns: the columns of the model ${model.name} an input table references must read one table.`);
  const taken = added.find((c) => model.columns.some((m) => m.name.toLowerCase() === c.name.toLowerCase()));
  if (taken) throw new ApiError(400, `Invalid value for table_definition.new_columns: the model ${model.name} already has a column ${taken.name}.`);
}

/**
 * Links the input table `table` to `model` (see the module comment): `keys` are the model's columns it
 * references (their copies in `table` are named like them), `added` its own columns. Call `checkLink` first.
 */
export function linkInputTable(catalog: MetadataStore, model: LogicalTable, table: LogicalTable, keys: readonly LogicalColumn[], added: readonly LogicalColumn[]): void {
  const m = modelOf(model, catalog);
  const from = m.tablePaths.find((p) => p.id.toLowerCase() === (keys[0]?.tablePath ?? '').toLowerCase()) ?? m.tablePaths.find((p) => p.joinPath.length === 0) ?? m.tablePaths[0]!;
  const fromTable = catalog.dataSource(m.tables.find((t) => t.id.toLowerCase() === from.table.toLowerCase())?.guid ?? '');
  const ids = new Set(m.tables.map((t) => t.id.toLowerCase()));
  // the input table's id in the model: its name, without the brackets a join's `on` (`[id::column]`) cannot hold
  const base = table.name.replace(/[[\]]/g, '_');
  let id = base;
  for (let n = 2; ids.has(id.toLowerCase()); n++) id = `${base}_${n}`;
  const join = `${from.id}_${id}`;
  const on = keys.map((k) => `[${from.table}::${fromTable?.columns.find((x) => x.physicalName === k.physicalName)?.name ?? k.physicalName}] = [${id}::${k.name}]`).join(' AND ');
  m.tables.push({ id, guid: table.id });
  m.joins.push({ name: join, source: from.table, destination: id, type: 'LEFT_OUTER', on });
  m.tablePaths.push({ id: `${id}_1`, table: id, joinPath: [...from.joinPath, join] });
  model.columns.push(...added.map((c) => ({ ...c, id: randomUUID(), synonyms: [], tablePath: `${id}_1` })));
}

/** Takes the input table `tableId` out of every model it is linked to: its table, join, path and columns. @returns the models changed */
export function unlinkInputTable(catalog: MetadataStore, tableId: string): LogicalTable[] {
  const changed: LogicalTable[] = [];
  for (const ds of catalog.state.tables) {
    const m = ds.model;
    const entry = m?.tables.find((t) => t.guid === tableId);
    if (!m || !entry) continue;
    const low = entry.id.toLowerCase();
    const paths = new Set(m.tablePaths.filter((p) => p.table.toLowerCase() === low).map((p) => p.id.toLowerCase()));
    const joins = new Set(m.joins.filter((j) => j.destination.toLowerCase() === low).map((j) => j.name.toLowerCase()));
    m.tables = m.tables.filter((t) => t !== entry);
    m.joins = m.joins.filter((j) => !joins.has(j.name.toLowerCase()));
    m.tablePaths = m.tablePaths.filter((p) => !paths.has(p.id.toLowerCase()));
    ds.columns = ds.columns.filter((c) => !paths.has((c.tablePath ?? '').toLowerCase()));
    changed.push(ds);
  }
  return changed;
}
