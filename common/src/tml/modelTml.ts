/**
 * Worksheet and Model TML as a model definition: the tables, joins, table paths, formulas and columns of a
 * data source over several tables (thoughtspot/developer-docs modify-tml.adoc "Worksheets" and "Models";
 * docs.thoughtspot.com tml-worksheets, tml-models), read into one shape (`modelDefinitionOf`) and checked
 * against the columns of its tables (`checkModelDefinition`): every column's source names a column of its
 * table path, every join names tables and columns that exist with compatible types, names and formula ids
 * are unique, and no join forms a cycle. The emulator builds its models from this shape (seed and TML
 * import alike); `tsq` checks `*.worksheet.tml` and `*.model.tml` with it. Readings where the docs are
 * silent: docs/service-notes.md "Models".
 *
 * Pure: no YAML, no `vscode`, no HTTP.
 */
import { COLUMN_TYPES, type ColumnDataType } from '../model';
import { splitColumnPath } from '../language/keywords';
import { isOneOf } from '../guards';

/** A join type of worksheet and model TML (`type: [RIGHT_OUTER | LEFT_OUTER | INNER | OUTER]`). */
export type ModelJoinType = 'INNER' | 'LEFT_OUTER' | 'RIGHT_OUTER' | 'OUTER';
/** The join types, as a list for validation. */
export const MODEL_JOIN_TYPES: readonly ModelJoinType[] = ['INNER', 'LEFT_OUTER', 'RIGHT_OUTER', 'OUTER'];

/** A table of the model: `id` is what joins and table paths name (worksheet `tables[].id ?? name`, model `alias ?? name`), `name` the table object's name. */
export interface ModelTableRef {
  id: string;
  name: string;
  fqn?: string;
}

/** A join: `on` as TML writes it, `[source::column] = [destination::column]` (several joined by `AND`). */
export interface ModelJoin {
  name: string;
  source: string;
  destination: string;
  type: ModelJoinType;
  on: string;
}

/** A table path (`table_paths[]`): its id (the first part of a `column_id`), its table's id and the joins from the root table to it. */
export interface ModelTablePath {
  id: string;
  table: string;
  joinPath: string[];
}

/** A formula (`formulas[]`): TSQ keeps it as written; its expression is checked by the formula language. */
export interface ModelFormula {
  id: string;
  name: string;
  expr: string;
  properties?: Record<string, unknown>;
}

/** A column of the model: a table path's column (`column_id: <path>::<column>`) or a formula (`formula_id`). */
export interface ModelColumn {
  name: string;
  columnId?: string;
  formulaId?: string;
  kind?: 'ATTRIBUTE' | 'MEASURE';
  aggregation?: string;
  description?: string;
  synonyms?: string[];
}

/** A worksheet or model in one shape; `kind` says which TML it was read from. */
export interface ModelDefinition {
  kind: 'worksheet' | 'model';
  name: string;
  description?: string;
  tables: ModelTableRef[];
  joins: ModelJoin[];
  tablePaths: ModelTablePath[];
  formulas: ModelFormula[];
  columns: ModelColumn[];
}

/** One problem of a definition: `path` is where in the TML object (`['worksheet', 'joins', 0, 'on']`), `message` what is wrong. */
export interface ModelProblem {
  path: (string | number)[];
  message: string;
}

/** A TML document that cannot be read as a worksheet or model: the problem and where. */
export class ModelTmlError extends Error {
  constructor(
    readonly path: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

function need(v: unknown, path: (string | number)[], what: string): string {
  const s = text(v);
  if (s === undefined || s === '') throw new ModelTmlError(path, `${what} is missing`);
  return s;
}

function joinTypeOf(v: unknown, path: (string | number)[]): ModelJoinType {
  const t = v === undefined || v === null ? 'INNER' : String(v).toUpperCase();
  if (!isOneOf(MODEL_JOIN_TYPES, t)) throw new ModelTmlError(path, `join type ${String(v)} is not one of ${MODEL_JOIN_TYPES.join(', ')}`);
  return t as ModelJoinType;
}

function columnOf(c: unknown, path: (string | number)[]): ModelColumn {
  if (!isObj(c)) throw new ModelTmlError(path, 'a column is a map with name and column_id or formula_id');
  const p = isObj(c.properties) ? c.properties : {};
  const kind = text(p.column_type)?.toUpperCase();
  return {
    name: need(c.name, [...path, 'name'], 'the column name'),
    ...(text(c.column_id) !== undefined ? { columnId: text(c.column_id) } : {}),
    ...(text(c.formula_id) !== undefined ? { formulaId: text(c.formula_id) } : {}),
    ...(kind === 'ATTRIBUTE' || kind === 'MEASURE' ? { kind } : {}),
    ...(text(p.aggregation) !== undefined ? { aggregation: text(p.aggregation)!.toUpperCase() } : {}),
    ...(text(c.description) !== undefined ? { description: text(c.description) } : {}),
    ...(Array.isArray(p.synonyms) ? { synonyms: p.synonyms.map(String) } : {}),
  };
}

function formulasOf(v: unknown, path: (string | number)[]): ModelFormula[] {
  return list(v).map((f, i) => {
    if (!isObj(f)) throw new ModelTmlError([...path, i], 'a formula is a map with id, name and expr');
    const name = need(f.name, [...path, i, 'name'], 'the formula name');
    // an exported formula has an id; one written by hand may leave it out (modify-tml.adoc: `id: <optional_unique_identifier>`)
    return { id: text(f.id) ?? name, name, expr: text(f.expr) ?? '', ...(isObj(f.properties) ? { properties: f.properties } : {}) };
  });
}

/**
 * The joins from the root table (the one no join reaches) to each table, breadth first: the table paths of a
 * TML that writes none (a model; a worksheet of one table). A table reached by no join has an empty path.
 */
function derivedPaths(tables: ModelTableRef[], joins: ModelJoin[]): ModelTablePath[] {
  const reached = new Map<string, string[]>();
  const targets = new Set(joins.map((j) => j.destination.toLowerCase()));
  const roots = tables.filter((t) => !targets.has(t.id.toLowerCase()));
  const queue = (roots.length ? roots : tables.slice(0, 1)).map((t) => t.id);
  for (const r of queue) reached.set(r.toLowerCase(), []);
  while (queue.length) {
    const at = queue.shift()!;
    for (const j of joins) {
      if (j.source.toLowerCase() !== at.toLowerCase() || reached.has(j.destination.toLowerCase())) continue;
      reached.set(j.destination.toLowerCase(), [...reached.get(at.toLowerCase())!, j.name]);
      queue.push(j.destination);
    }
  }
  return tables.map((t) => ({ id: t.id, table: t.id, joinPath: reached.get(t.id.toLowerCase()) ?? [] }));
}

/** A worksheet TML body (`worksheet:`): `tables`, `joins`, `table_paths`, `formulas`, `worksheet_columns`. */
function worksheetOf(w: Obj): ModelDefinition {
  const at = (...p: (string | number)[]): (string | number)[] => ['worksheet', ...p];
  const tables = list(w.tables).map((t, i) => {
    if (!isObj(t)) throw new ModelTmlError(at('tables', i), 'a table is a map with a name or an id');
    const id = need(t.id ?? t.name, at('tables', i, 'name'), 'the table name');
    return { id, name: text(t.name) ?? id, ...(text(t.fqn) ? { fqn: text(t.fqn) } : {}) };
  });
  const joins = list(w.joins).map((j, i) => {
    if (!isObj(j)) throw new ModelTmlError(at('joins', i), 'a join is a map with name, source, destination, type and on');
    return { name: need(j.name, at('joins', i, 'name'), 'the join name'), source: need(j.source, at('joins', i, 'source'), 'the join source'), destination: need(j.destination, at('joins', i, 'destination'), 'the join destination'), type: joinTypeOf(j.type, at('joins', i, 'type')), on: need(j.on, at('joins', i, 'on'), 'the join condition (on)') };
  });
  const written = list(w.table_paths).map((p, i) => {
    if (!isObj(p)) throw new ModelTmlError(at('table_paths', i), 'a table path is a map with id, table and join_path');
    // `join_path: [{join: [names…]}]`: the first path is the one the emulator follows (docs/service-notes.md "Models")
    const first = list(p.join_path)[0];
    return { id: need(p.id, at('table_paths', i, 'id'), 'the table path id'), table: need(p.table, at('table_paths', i, 'table'), 'the table path table'), joinPath: isObj(first) ? list(first.join).map(String) : [] };
  });
  const columns = list(w.worksheet_columns ?? w.columns).map((c, i) => columnOf(c, at(w.worksheet_columns ? 'worksheet_columns' : 'columns', i)));
  return { kind: 'worksheet', name: need(w.name, at('name'), 'the worksheet name'), ...(text(w.description) !== undefined ? { description: text(w.description) } : {}), tables, joins, tablePaths: written.length ? written : derivedPaths(tables, joins), formulas: formulasOf(w.formulas, at('formulas')), columns };
}

/** A model TML body (`model:`): `model_tables` (each `name`, `alias`, `fqn`, `joins: [{with, on, type}]`), `formulas`, `columns`. */
function modelOf(m: Obj): ModelDefinition {
  const at = (...p: (string | number)[]): (string | number)[] => ['model', ...p];
  const tables: ModelTableRef[] = [];
  const joins: ModelJoin[] = [];
  list(m.model_tables).forEach((t, i) => {
    if (!isObj(t)) throw new ModelTmlError(at('model_tables', i), 'a model table is a map with a name');
    const name = need(t.name, at('model_tables', i, 'name'), 'the table name');
    const id = text(t.alias) ?? text(t.id) ?? name;
    tables.push({ id, name, ...(text(t.fqn) ? { fqn: text(t.fqn) } : {}) });
    list(t.joins).forEach((j, k) => {
      if (!isObj(j)) throw new ModelTmlError(at('model_tables', i, 'joins', k), 'a join is a map with with, on and type');
      const dest = need(j.with, at('model_tables', i, 'joins', k, 'with'), 'the joined table (with)');
      // a model join has no name of its own: TSQ names it source_destination (docs/service-notes.md "Models")
      joins.push({ name: text(j.name) ?? `${id}_${dest}`, source: id, destination: dest, type: joinTypeOf(j.type, at('model_tables', i, 'joins', k, 'type')), on: need(j.on ?? j.referencing_join, at('model_tables', i, 'joins', k, 'on'), 'the join condition (on)') });
    });
  });
  const columns = list(m.columns).map((c, i) => columnOf(c, at('columns', i)));
  return { kind: 'model', name: need(m.name, at('name'), 'the model name'), ...(text(m.description) !== undefined ? { description: text(m.description) } : {}), tables, joins, tablePaths: derivedPaths(tables, joins), formulas: formulasOf(m.formulas, at('formulas')), columns };
}

/**
 * Reads a parsed worksheet or model TML document (`{guid?, worksheet: …}` or `{guid?, model: …}`) into a
 * definition. Throws ModelTmlError naming the member for a document that is neither or a member of the wrong shape.
 */
export function modelDefinitionOf(doc: unknown): ModelDefinition {
  if (!isObj(doc)) throw new ModelTmlError([], 'a worksheet or model TML document is a map');
  if (isObj(doc.model)) return modelOf(doc.model);
  if (isObj(doc.worksheet)) return worksheetOf(doc.worksheet);
  throw new ModelTmlError([], 'the document has no worksheet or model member');
}

/** One equality of a join condition: `[left.table::left.column] = [right.table::right.column]`. */
export interface JoinEquality {
  left: { table: string; column: string };
  right: { table: string; column: string };
}

/**
 * The equalities of a join's `on`, `[a::x] = [b::y]` joined by `AND` (any case), outer parentheses allowed.
 * Returns undefined for a condition of another form (TSQ reads only equalities of columns).
 */
export function parseJoinOn(on: string): JoinEquality[] | undefined {
  let s = on.trim();
  while (s.startsWith('(') && s.endsWith(')')) s = s.slice(1, -1).trim();
  const parts = s.split(/\s+and\s+/i);
  const out: JoinEquality[] = [];
  for (const p of parts) {
    const m = /^\(?\s*\[([^\]]+)\]\s*=\s*\[([^\]]+)\]\s*\)?$/.exec(p.trim());
    if (!m) return undefined;
    const a = splitColumnPath(m[1]!);
    const b = splitColumnPath(m[2]!);
    if (a.path === undefined || b.path === undefined) return undefined;
    out.push({ left: { table: a.path.trim(), column: a.column.trim() }, right: { table: b.path.trim(), column: b.column.trim() } });
  }
  return out;
}

/** The type family two joined columns share (text, number, bool, date, time): columns of one family can be joined. */
export function joinFamily(t: ColumnDataType): string {
  return COLUMN_TYPES[t].family;
}

/**
 * The columns of a table the definition names, by its name or GUID (`fqn`): null when there is no such
 * table, undefined when it is not known (no catalog): its columns are then not checked.
 */
export type TableColumnsOf = (tableName: string, fqn?: string) => readonly { name: string; dataType: ColumnDataType }[] | null | undefined;

/** A problem's path as the services' messages write a member: `worksheet.joins[0].on`. */
export function memberPathText(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

const lower = (s: string): string => s.trim().toLowerCase();

function duplicates<T>(items: T[], key: (t: T) => string, path: (i: number) => (string | number)[], what: string): ModelProblem[] {
  const seen = new Set<string>();
  const out: ModelProblem[] = [];
  items.forEach((t, i) => {
    const k = lower(key(t));
    if (seen.has(k)) out.push({ path: path(i), message: `${what} ${key(t)} is not unique (names are unique ignoring case)` });
    seen.add(k);
  });
  return out;
}

/** The index of a join that closes a cycle (its source reached again through the joins from its destination), or -1. */
function joinCycle(joins: ModelJoin[]): number {
  const from = new Map<string, string[]>();
  for (const j of joins) from.set(lower(j.source), [...(from.get(lower(j.source)) ?? []), lower(j.destination)]);
  return joins.findIndex((j) => {
    const seen = new Set<string>();
    const stack = [lower(j.destination)];
    while (stack.length) {
      const t = stack.pop()!;
      if (t === lower(j.source)) return true;
      if (seen.has(t)) continue;
      seen.add(t);
      stack.push(...(from.get(t) ?? []));
    }
    return false;
  });
}

/**
 * Checks a definition against the columns of its tables (`columnsOf`). Returns its problems (none: the
 * emulator can build it), each with the path of the member in the TML document it was read from.
 */
export function checkModelDefinition(def: ModelDefinition, columnsOf: TableColumnsOf): ModelProblem[] {
  const root = def.kind;
  const tablesKey = def.kind === 'model' ? 'model_tables' : 'tables';
  const joinsAt = (i: number, m: string): (string | number)[] => [root, 'joins', i, m];
  const columnsKey = def.kind === 'model' ? 'columns' : 'worksheet_columns';
  const problems: ModelProblem[] = [];
  const tableById = new Map<string, { ref: ModelTableRef; columns?: readonly { name: string; dataType: ColumnDataType }[] }>();
  def.tables.forEach((t, i) => {
    const found = columnsOf(t.name, t.fqn);
    if (found === null) problems.push({ path: [root, tablesKey, i, 'name'], message: `table ${t.name} does not exist` });
    tableById.set(lower(t.id), { ref: t, columns: found ?? undefined });
  });
  problems.push(...duplicates(def.tables, (t) => t.id, (i) => [root, tablesKey, i, 'name'], 'table'));
  problems.push(...duplicates(def.joins, (j) => j.name, (i) => joinsAt(i, 'name'), 'join'));
  def.joins.forEach((j, i) => {
    for (const [end, m] of [[j.source, 'source'], [j.destination, 'destination']] as const) if (!tableById.has(lower(end))) problems.push({ path: joinsAt(i, m), message: `join ${j.name}: table ${end} is not one of the tables` });
    const eqs = parseJoinOn(j.on);
    if (!eqs) return void problems.push({ path: joinsAt(i, 'on'), message: `join ${j.name}: on must be equalities of columns, [table::column] = [table::column] joined by AND, not ${j.on}` });
    for (const e of eqs) {
      const ends = [e.left, e.right].map((s) => {
        const t = tableById.get(lower(s.table));
        if (!t) return void problems.push({ path: joinsAt(i, 'on'), message: `join ${j.name}: on names table ${s.table}, which is not one of the tables` });
        if (lower(s.table) !== lower(j.source) && lower(s.table) !== lower(j.destination)) problems.push({ path: joinsAt(i, 'on'), message: `join ${j.name}: on names table ${s.table}, which is neither its source ${j.source} nor its destination ${j.destination}` });
        const c = t.columns?.find((x) => lower(x.name) === lower(s.column));
        if (t.columns && !c) problems.push({ path: joinsAt(i, 'on'), message: `join ${j.name}: table ${t.ref.name} has no column ${s.column}` });
        return c;
      });
      if (ends[0] && ends[1] && joinFamily(ends[0].dataType) !== joinFamily(ends[1].dataType)) problems.push({ path: joinsAt(i, 'on'), message: `join ${j.name}: [${e.left.table}::${e.left.column}] is ${ends[0].dataType} and [${e.right.table}::${e.right.column}] is ${ends[1].dataType}: joined columns must have compatible types` });
    }
  });
  const cycle = joinCycle(def.joins);
  if (cycle >= 0) problems.push({ path: joinsAt(cycle, 'destination'), message: `join ${def.joins[cycle]!.name} closes a cycle: ${def.joins[cycle]!.destination} already reaches ${def.joins[cycle]!.source} through the joins` });
  const joinNames = new Set(def.joins.map((j) => lower(j.name)));
  problems.push(...duplicates(def.tablePaths, (p) => p.id, (i) => [root, 'table_paths', i, 'id'], 'table path'));
  def.tablePaths.forEach((p, i) => {
    if (!tableById.has(lower(p.table))) problems.push({ path: [root, 'table_paths', i, 'table'], message: `table path ${p.id}: table ${p.table} is not one of the tables` });
    for (const n of p.joinPath) if (!joinNames.has(lower(n))) problems.push({ path: [root, 'table_paths', i, 'join_path'], message: `table path ${p.id}: join ${n} is not one of the joins` });
  });
  problems.push(...duplicates(def.formulas, (f) => f.id, (i) => [root, 'formulas', i, 'id'], 'formula id'));
  problems.push(...duplicates(def.formulas, (f) => f.name, (i) => [root, 'formulas', i, 'name'], 'formula'));
  problems.push(...duplicates(def.columns, (c) => c.name, (i) => [root, columnsKey, i, 'name'], 'column'));
  def.columns.forEach((c, i) => {
    const at = [root, columnsKey, i];
    if (c.formulaId !== undefined) {
      if (!def.formulas.some((f) => lower(f.id) === lower(c.formulaId!))) problems.push({ path: [...at, 'formula_id'], message: `column ${c.name}: formula ${c.formulaId} is not one of the formulas` });
      return;
    }
    if (c.columnId === undefined) return void problems.push({ path: at, message: `column ${c.name} needs a column_id (<table_path>::<column>) or a formula_id` });
    const { path, column } = splitColumnPath(c.columnId);
    if (path === undefined) return void problems.push({ path: [...at, 'column_id'], message: `column ${c.name}: column_id ${c.columnId} is not <table_path>::<column>` });
    const tp = def.tablePaths.find((p) => lower(p.id) === lower(path));
    if (!tp) return void problems.push({ path: [...at, 'column_id'], message: `column ${c.name}: table path ${path} is not one of ${def.tablePaths.map((p) => p.id).join(', ')}` });
    const t = tableById.get(lower(tp.table));
    if (t?.columns && !t.columns.some((x) => lower(x.name) === lower(column))) problems.push({ path: [...at, 'column_id'], message: `column ${c.name}: table ${t.ref.name} has no column ${column}` });
  });
  return problems;
}
