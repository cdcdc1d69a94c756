/**
 * REST API v2 input tables (OpenAPI tag "Input Tables", 26.11.0.cl, of thoughtspot/rest-api-sdk
 * `api-spec/openapiSpecv3-2_0.json`; the TypeScript SDK's `InputTablesApi.md`): `input-tables/create`,
 * `{input_table_identifier}/update` and `{input_table_identifier}/delete`. An input table is a DuckDB table
 * in its model's database and schema, a LOGICAL_TABLE of the catalog that searchdata reads, linked to the
 * model (`LogicalTable.inputTable`) and joined into it on its key columns (inputTableModel.ts), so the model's
 * searches read its rows. `update` replaces the table's rows, in one transaction: a refused
 * request writes nothing (docs/service-notes.md "Input tables" for the readings taken).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ColumnDataType } from '../../../common/src/model';
import type { EmulatorUser } from '../context';
import { DUCKDB_TYPE, quoteIdent, sqlTableName } from '../engine';
import { ApiError, FORBIDDEN_TEXT } from '../errors';
import type { LogicalColumn, LogicalTable } from '../metadataStore';
import { checkLink, linkInputTable, unlinkInputTable } from './inputTableModel';
import type { V2Deps } from './routes';
import { recordOr, isStringArray, isRecord } from '../../../common/src/guards';
import { body, str } from '../requestValues';

/** Largest `update` body the emulator reads: 16 MiB (the service documents none; the other routes take 1 MiB). */
export const INPUT_TABLE_BODY_LIMIT = 16 * 1024 * 1024;

/** The warehouse type names `data_type` takes ("VARCHAR, INT64, DOUBLE, BOOL, DATE" in the document, and their synonyms). */
const DATA_TYPES: Record<string, ColumnDataType> = {
  VARCHAR: 'VARCHAR', STRING: 'VARCHAR', TEXT: 'VARCHAR', CHAR: 'CHAR',
  BOOL: 'BOOL', BOOLEAN: 'BOOL',
  INT: 'INT32', INT32: 'INT32', INTEGER: 'INT32', INT64: 'INT64', BIGINT: 'INT64',
  FLOAT: 'FLOAT', DOUBLE: 'DOUBLE',
  DATE: 'DATE', DATE_TIME: 'DATE_TIME', DATETIME: 'DATE_TIME', TIMESTAMP: 'DATE_TIME', TIME: 'TIME',
};

/** Rows per INSERT statement of an update. */
const INSERT_ROWS = 256;

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?$/;
const TIME_RE = /^\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?$/;

/**
 * Why a cell (always a string: "All cell values must be passed as strings") does not fit its column, or
 * undefined when it does. `''` is a null cell. Dates and times are ISO 8601 (`2025-01-01`, the document's
 * example; `2025-01-01 10:00:00` or `…T10:00:00`); booleans `true`/`false`; numbers in plain notation.
 */
function cellProblem(type: ColumnDataType, v: string): string | undefined {
  if (v === '') return undefined;
  const t = v.trim();
  switch (type) {
    case 'INT32':
    case 'INT64': {
      if (!INT_RE.test(t)) return `"${v}" is not an integer`;
      const n = BigInt(t);
      const lim = type === 'INT32' ? 2n ** 31n : 2n ** 63n;
      return n < -lim || n >= lim ? `${t} is out of the range of ${type}` : undefined;
    }
    case 'FLOAT':
    case 'DOUBLE':
      return FLOAT_RE.test(t) ? undefined : `"${v}" is not a number`;
    case 'BOOL':
      return /^(true|false)$/i.test(t) ? undefined : `"${v}" is neither true nor false`;
    case 'DATE':
      return DATE_RE.test(t) && !Number.isNaN(Date.parse(`${t}T00:00:00Z`)) ? undefined : `"${v}" is not an ISO date (YYYY-MM-DD)`;
    case 'DATE_TIME':
      return DATE_TIME_RE.test(t) ? undefined : `"${v}" is not an ISO date and time (YYYY-MM-DD HH:MM:SS)`;
    case 'TIME':
      return TIME_RE.test(t) ? undefined : `"${v}" is not a time (HH:MM:SS)`;
    default:
      return undefined;
  }
}

/** Needs DATAMANAGEMENT or ADMINISTRATION ("Requires DATAMANAGEMENT (Can manage data) or ADMINISTRATION"). @throws ApiError 403 */
function needManageData(user: EmulatorUser): void {
  if (!user.privileges.has('DATAMANAGEMENT') && !user.privileges.has('ADMINISTRATION')) throw new ApiError(403, `${FORBIDDEN_TEXT} Input tables need the DATAMANAGEMENT (Can manage data) or ADMINISTRATION privilege.`);
}

/** The `new_columns` of a create request as logical columns (name, type and allowed values checked). @throws ApiError 400 */
function newColumns(raw: unknown): { column: LogicalColumn; allowed?: string[] }[] {
  if (!Array.isArray(raw)) throw new ApiError(400, 'Invalid value for table_definition.new_columns: expected a list of {name, data_type, type}.');
  return raw.map((c: unknown, i) => {
    const o = recordOr(c);
    const name = typeof o.name === 'string' ? o.name.trim() : '';
    if (name === '') throw new ApiError(400, `Invalid value for table_definition.new_columns[${i}].name: a column needs a name.`);
    const dataType = typeof o.data_type === 'string' ? DATA_TYPES[o.data_type.toUpperCase()] : undefined;
    if (!dataType) throw new ApiError(400, `Invalid value for table_definition.new_columns[${i}].data_type: ${JSON.stringify(o.data_type)} (${Object.keys(DATA_TYPES).join(', ')}).`);
    const kind = typeof o.type === 'string' ? o.type.toUpperCase() : '';
    if (kind !== 'ATTRIBUTE' && kind !== 'MEASURE') throw new ApiError(400, `Invalid value for table_definition.new_columns[${i}].type: ${JSON.stringify(o.type)} (ATTRIBUTE, MEASURE).`);
    const av = o.allowed_values;
    if (av !== undefined && av !== null && !isStringArray(av)) throw new ApiError(400, `Invalid value for table_definition.new_columns[${i}].allowed_values: expected a list of strings.`);
    for (const x of av ?? []) {
      const p = cellProblem(dataType, x);
      if (p) throw new ApiError(400, `Invalid value for table_definition.new_columns[${i}].allowed_values: ${p} (${dataType}).`);
    }
    const column: LogicalColumn = { id: randomUUID(), name, dataType, kind, aggregation: kind === 'MEASURE' ? 'SUM' : 'NONE', synonyms: [], physicalName: name };
    return av?.length ? { column, allowed: av } : { column };
  });
}

/**
 * The columns an update writes, once every row was checked: as many strings as columns, each fitting its
 * column's type and `allowed_values`. @throws ApiError 400 naming the first bad row and column.
 */
function checkRows(t: LogicalTable, cols: string[], rows: unknown[]): LogicalColumn[] {
  const targets = cols.map((name) => {
    const c = t.columns.find((x) => x.name === name);
    if (!c) throw new ApiError(400, `Unknown column name ${name}: the input table ${t.name} has ${t.columns.map((x) => x.name).join(', ')}.`);
    return c;
  });
  if (new Set(cols).size !== cols.length) throw new ApiError(400, 'Invalid value for columns: a column is named twice.');
  const allowed = targets.map((c) => (t.inputTable?.allowedValues[c.name] ? new Set(t.inputTable.allowedValues[c.name]) : undefined));
  rows.forEach((r: unknown, i) => {
    if (!isStringArray(r) || r.length !== targets.length) throw new ApiError(400, `Invalid value for rows[${i}]: expected ${targets.length} strings, one per column.`);
    r.forEach((v, j) => {
      const p = cellProblem(targets[j]!.dataType, v);
      if (p) throw new ApiError(400, `rows[${i}], column ${targets[j]!.name}: ${p} (${targets[j]!.dataType}). Nothing was written.`);
      if (v !== '' && allowed[j] && !allowed[j]!.has(v)) throw new ApiError(400, `rows[${i}], column ${targets[j]!.name}: "${v}" is not one of its allowed_values (${[...allowed[j]!].join(', ')}). Nothing was written.`);
    });
  });
  return targets;
}

/** Replaces the rows of an input table by `rows` (checked by `checkRows`) in one transaction. */
async function replaceRows(deps: V2Deps, t: LogicalTable, targets: LogicalColumn[], rows: string[][]): Promise<void> {
  await deps.search.engine.withConnection(async (c) => {
    await c.run('BEGIN TRANSACTION');
    try {
      await c.run(`DELETE FROM ${t.sqlName}`);
      const list = targets.map((x) => quoteIdent(x.physicalName)).join(', ');
      const one = (k: number): string => `(${targets.map((x, j) => `CAST(NULLIF($${k * targets.length + j + 1}, '') AS ${DUCKDB_TYPE[x.dataType]})`).join(', ')})`;
      for (let at = 0; at < rows.length; at += INSERT_ROWS) {
        const part = rows.slice(at, at + INSERT_ROWS);
        await c.run(`INSERT INTO ${t.sqlName} (${list}) VALUES ${part.map((_r, k) => one(k)).join(', ')}`, part.flat());
      }
      await c.run('COMMIT');
    } catch (e) {
      await c.run('ROLLBACK');
      throw e;
    }
  });
}

/**
 * Registers the input-table routes in the v2 scope (its hook sets `req.v2User`).
 *
 * | route | answer |
 * |---|---|
 * | `POST input-tables/create` | `{input_table_identifier}`; `table_name`, `model_identifier` (a worksheet's GUID or name), `table_definition` {`referenced_columns` (the model's column GUIDs, or names), `new_columns` [{`name`, `data_type`, `type`, `allowed_values`?}]}. 403 without the privilege or edit access to the model, 404 for a model the caller cannot see, 400 for no columns, a name taken, an unknown column or type |
 * | `POST input-tables/{id}/update` | `{rows_loaded}`; `columns` (names), `rows` (lists of strings): the table's rows become these; a listed column absent from a row's table is 400, a cell that does not fit its type or `allowed_values` is 400 naming row and column, and nothing is written. 404 for an unknown input table, 403 without the privilege or edit access |
 * | `POST input-tables/{id}/delete` | 204; drops the table and its catalog entry (the model stays). The document lists no 404: an unknown id is 400 |
 */
export function registerInputTablesV2(api: FastifyInstance, deps: V2Deps): void {
  const { catalog, search } = deps;

  const inputTableOf = (req: FastifyRequest, missing: 400 | 404): LogicalTable => {
    const id = String(recordOr(req.params).input_table_identifier ?? '').toLowerCase();
    const t = catalog.state.tables.find((x) => x.inputTable && (x.id === id || x.name.toLowerCase() === id));
    if (!t || !catalog.canRead(req.v2User!, t)) throw new ApiError(missing, `Input table not found: ${id}.`);
    if (!catalog.canModify(req.v2User!, t)) throw new ApiError(403, `${FORBIDDEN_TEXT} Writing an input table needs edit access (MODIFY) to it.`);
    return t;
  };

  api.post('/input-tables/create', async (req) => {
    const user = req.v2User!;
    needManageData(user);
    const b = body(req);
    const tableName = str(b, 'table_name', true)!.trim();
    const modelId = str(b, 'model_identifier', true)!.toLowerCase();
    const def = b.table_definition;
    if (!isRecord(def)) throw new ApiError(400, 'Missing parameter table_definition: {referenced_columns, new_columns}.');
    const model = catalog.state.tables.find((t) => t.subtype === 'WORKSHEET' && (t.id === modelId || t.name.toLowerCase() === modelId));
    if (!model || !catalog.canRead(user, model)) throw new ApiError(404, `Model not found: ${modelId}.`);
    if (!catalog.canModify(user, model)) throw new ApiError(403, `${FORBIDDEN_TEXT} Creating an input table needs edit access (MODIFY) to the model ${model.name}.`);
    const refs = def.referenced_columns;
    if (!isStringArray(refs)) throw new ApiError(400, 'Invalid value for table_definition.referenced_columns: expected a list of column GUIDs.');
    const keys = refs.map((r) => {
      const c = model.columns.find((x) => x.id === r.toLowerCase()) ?? model.columns.find((x) => x.name.toLowerCase() === r.toLowerCase());
      if (!c) throw new ApiError(400, `Invalid value for table_definition.referenced_columns: the model ${model.name} has no column ${r}.`);
      return c;
    });
    const referenced = keys.map((c) => {
      const { tablePath: _p, formulaId: _f, formula: _x, ...own } = c;
      return { column: { ...own, id: randomUUID(), synonyms: [], physicalName: c.name } };
    });
    const added = newColumns(def.new_columns);
    checkLink(model, keys, added.map((a) => a.column));
    const all = [...referenced, ...added];
    if (all.length === 0) throw new ApiError(400, 'No columns selected: give referenced_columns or new_columns.');
    const seen = new Set<string>();
    for (const { column } of all) {
      if (seen.has(column.name.toLowerCase())) throw new ApiError(400, `Invalid value for table_definition: the column name ${column.name} is given twice.`);
      seen.add(column.name.toLowerCase());
    }
    if (catalog.table(model.database, model.schema, tableName)) throw new ApiError(400, `Invalid value for table_name: ${model.database}.${model.schema} already has a table ${tableName}.`);
    const sqlName = sqlTableName(model.database, model.schema, tableName);
    await search.engine.withConnection(async (c) => {
      await c.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(`${model.database}.${model.schema}`)}`);
      await c.run(`CREATE TABLE ${sqlName} (${all.map(({ column }) => `${quoteIdent(column.physicalName)} ${DUCKDB_TYPE[column.dataType]}`).join(', ')})`);
    });
    const now = deps.now().getTime();
    const id = randomUUID();
    const allowedValues = Object.fromEntries(added.filter((a) => a.allowed).map((a) => [a.column.name, a.allowed!]));
    const table: LogicalTable = {
      id, name: tableName, author: user.id, created: now, modified: now, modifiedBy: user.id, tags: [], sharedWith: [], isAutoCreated: false,
      // in its model's Org
      ...(model.orgId !== undefined ? { orgId: model.orgId } : {}),
      subtype: 'ONE_TO_ONE_LOGICAL', tableId: id, database: model.database, schema: model.schema, tableName, sqlName,
      columns: all.map((a) => a.column),
      inputTable: { modelId: model.id, referencedColumns: referenced.map((r) => r.column.name), allowedValues },
    };
    catalog.state.tables.push(table);
    linkInputTable(catalog, model, table, keys, added.map((a) => a.column));
    model.modified = now;
    catalog.save();
    search.invalidate(model.id);
    return { input_table_identifier: id };
  });

  api.post('/input-tables/:input_table_identifier/update', { bodyLimit: INPUT_TABLE_BODY_LIMIT }, async (req) => {
    needManageData(req.v2User!);
    const t = inputTableOf(req, 404);
    const b = body(req);
    const cols = b.columns;
    const rows = b.rows;
    if (!isStringArray(cols) || cols.length === 0) throw new ApiError(400, 'Missing parameter columns: the names of the columns written, in the order of each row.');
    if (!Array.isArray(rows)) throw new ApiError(400, 'Missing parameter rows: a list of rows, each a list of strings.');
    const targets = checkRows(t, cols, rows);
    await replaceRows(deps, t, targets, rows as string[][]);
    t.modified = deps.now().getTime();
    t.modifiedBy = req.v2User!.id;
    catalog.save();
    search.invalidate(t.id);
    return { rows_loaded: rows.length };
  });

  api.post('/input-tables/:input_table_identifier/delete', async (req, reply: FastifyReply) => {
    needManageData(req.v2User!);
    const t = inputTableOf(req, 400);
    await search.engine.withConnection((c) => c.run(`DROP TABLE IF EXISTS ${t.sqlName}`).then(() => undefined));
    catalog.state.tables = catalog.state.tables.filter((x) => x !== t);
    const models = unlinkInputTable(catalog, t.id);
    catalog.save();
    search.invalidate(t.id);
    for (const m of models) search.invalidate(m.id);
    return reply.code(204).send();
  });
}
