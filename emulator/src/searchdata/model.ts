/**
 * searchdata on a model (emulator/src/dataModel.ts): the query is compiled (compile.ts) over a relation
 * named `MODEL_RELATION` whose columns are the model's, each under an alias of its own (`tsq_c<i>`); then
 * that relation is defined in front of the query as a CTE that selects only the columns the compiled SQL
 * reads, from the model's root table and the joins of their table paths, and of no other path. A column
 * written with its path (`[origin_airport::city]`) is the model's column of that path's column.
 * A formula column (`formula`, dataModel.ts) is computed by the compiler at the search's grain over the
 * model's columns it names, so the CTE selects and joins what those columns need.
 */
import { checkFormulaSet } from '../../../common/src/formula/checker';
import { parseJoinOn, type ModelJoin } from '../../../common/src/tml/modelTml';
import type { LogicalColumn, LogicalTable, MetadataStore } from '../metadataStore';
import { quoteIdent } from '../engine';
import { QueryError, type CompiledQuery, type TablePath } from './compile';

/** The name of the model's relation in the compiled query (defined by the CTE `ModelView.wrap` puts in front). */
export const MODEL_RELATION = 'tsq_model';

/** What `compileSearch` reads on a model (its columns as `MODEL_RELATION`'s, its table paths) and how to finish the SQL. */
export interface ModelView {
  columns: LogicalColumn[];
  tablePaths: TablePath[];
  /** The GUIDs of the model's tables (its answers depend on each one's data). */
  tableIds: string[];
  /** The compiled query with the model's relation defined in front of each of its statements. */
  wrap(compiled: CompiledQuery): CompiledQuery;
}

const JOIN_SQL: Record<ModelJoin['type'], string> = { INNER: 'JOIN', LEFT_OUTER: 'LEFT JOIN', RIGHT_OUTER: 'RIGHT JOIN', OUTER: 'FULL JOIN' };

/**
 * The view of a model for the compiler. Throws Error when a table of the model is no longer in the catalog.
 */
export function modelView(ds: LogicalTable, catalog: MetadataStore): ModelView {
  const model = ds.model!;
  const tables = new Map(model.tables.map((t) => {
    const table = catalog.dataSource(t.guid);
    if (!table) throw new QueryError(`Model ${ds.name}: its table ${t.id} no longer exists`);
    return [t.id.toLowerCase(), table] as const;
  }));
  const alias = (i: number): string => `tsq_c${i}`;
  const stored = storedFormulas(ds);
  const columns = ds.columns.map((c, i) => ({ ...c, physicalName: alias(i), ...(c.formulaId !== undefined && !c.formula ? { formula: stored(c) } : {}) }));
  const tablePaths: TablePath[] = model.tablePaths.map((p) => {
    const table = tables.get(p.table.toLowerCase());
    const own = ds.columns.flatMap((c, i) => {
      if (c.tablePath?.toLowerCase() !== p.id.toLowerCase()) return [];
      const src = table?.columns.find((x) => x.physicalName === c.physicalName);
      return [{ ...columns[i]!, name: src?.name ?? c.name }];
    });
    return { table: p.id, columns: own };
  });
  const wrap = (compiled: CompiledQuery): CompiledQuery => {
    // a formula column is never read from the relation: the compiler writes its expression over the columns it names
    const used = ds.columns.flatMap((c, i) => (c.formulaId === undefined && (compiled.sql.includes(quoteIdent(alias(i))) || compiled.countSql.includes(quoteIdent(alias(i)))) ? [{ c, i }] : []));
    const cte = `WITH ${MODEL_RELATION} AS NOT MATERIALIZED (${relationSql(ds, tables, used)}) `;
    return { ...compiled, sql: cte + compiled.sql, pageSql: cte + compiled.pageSql, countSql: cte + compiled.countSql };
  };
  return { columns, tablePaths, tableIds: [...new Set([...tables.values()].map((t) => t.id))], wrap };
}

/**
 * The formula of a formula column of a model stored before its formulas were computed (dataModel.ts now
 * keeps each on its column): its expression, and whether it aggregates by the formula checker.
 */
function storedFormulas(ds: LogicalTable): (c: LogicalColumn) => { expr: string; aggregate: boolean } {
  const formulas = ds.model!.formulas;
  const nameOf = (id: string): string => ds.columns.find((c) => c.formulaId?.toLowerCase() === id.toLowerCase())?.name ?? id;
  let checked: ReturnType<typeof checkFormulaSet> | undefined;
  return (c) => {
    checked ??= checkFormulaSet(formulas.map((f) => ({ id: f.id, name: nameOf(f.id), expr: f.expr })), ds.columns.filter((x) => x.formulaId === undefined));
    const i = formulas.findIndex((f) => f.id.toLowerCase() === c.formulaId!.toLowerCase());
    if (i < 0) throw new QueryError(`Model ${ds.name}: the formula ${c.formulaId} of its column [${c.name}] no longer exists`);
    return { expr: formulas[i]!.expr, aggregate: checked[i]!.value.aggregate };
  };
}

/** `SELECT <used columns> FROM <root> <the joins of their paths>`: each path prefix joined once, under its own alias. */
function relationSql(ds: LogicalTable, tables: ReadonlyMap<string, LogicalTable>, used: { c: LogicalColumn; i: number }[]): string {
  const model = ds.model!;
  const root = model.tablePaths.find((p) => p.joinPath.length === 0);
  const rootTable = (root && tables.get(root.table.toLowerCase())) ?? tables.values().next().value!;
  const prefixes = new Map<string, string>([['', 't0']]);
  const joins: string[] = [];
  const aliasOfPath = (joinPath: readonly string[]): string => {
    let key = '';
    for (const name of joinPath) {
      const from = prefixes.get(key)!;
      key = `${key}\u0000${name.toLowerCase()}`;
      if (prefixes.has(key)) continue;
      const to = `t${prefixes.size}`;
      prefixes.set(key, to);
      const j = model.joins.find((x) => x.name.toLowerCase() === name.toLowerCase());
      if (!j) throw new QueryError(`Model ${ds.name}: its join ${name} no longer exists`);
      const dest = tables.get(j.destination.toLowerCase())!;
      const equalities = parseJoinOn(j.on);
      // a stored join the reader cannot read (TML imports are checked; anything else would be `ON )`, a 500)
      if (!equalities?.length) throw new QueryError(`Model ${ds.name}: its join ${j.name} has a condition TSQ cannot read (${j.on}): equalities of columns, [table::column] = [table::column] joined by AND`);
      const on = equalities.map((e) => {
        // the side naming the join's source is read from the path so far, the other from the table joined
        const [s, d] = e.left.table.toLowerCase() === j.source.toLowerCase() ? [e.left, e.right] : [e.right, e.left];
        const col = (t: LogicalTable | undefined, name: string): string => quoteIdent(t?.columns.find((x) => x.name.toLowerCase() === name.toLowerCase())?.physicalName ?? name);
        return `${from}.${col(tables.get(j.source.toLowerCase()), s.column)} = ${to}.${col(dest, d.column)}`;
      });
      joins.push(` ${JOIN_SQL[j.type]} ${dest.sqlName} AS ${to} ON ${on.join(' AND ')}`);
    }
    return prefixes.get(key)!;
  };
  const select = used.map(({ c, i }) => {
    const path = model.tablePaths.find((p) => p.id.toLowerCase() === c.tablePath?.toLowerCase());
    return `${path ? aliasOfPath(path.joinPath) : 't0'}.${quoteIdent(c.physicalName)} AS ${quoteIdent(`tsq_c${i}`)}`;
  });
  return `SELECT ${select.length ? select.join(', ') : '1 AS tsq_none'} FROM ${rootTable.sqlName} AS t0${joins.join('')}`;
}
