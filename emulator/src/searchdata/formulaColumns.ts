/**
 * An answer's `formulas` (Answer TML `answer.formulas: [{id, name, expr, properties}]`) as columns of its
 * data source for its search: each checked by the formula checker (common/src/formula/checker.ts) against
 * the data source's columns and the other formulas, typed from its expression, and named by its name and
 * its id (exported searches write `[formula_<name>]`, the id: docs/service-notes.md "TML as clusters export
 * it"). searchdata computes each (compile.ts, formulaSql.ts).
 */
import { createHash } from 'node:crypto';
import { checkFormulaSet, dataTypeOf } from '../../../common/src/formula/checker';
import type { LogicalColumn, LogicalTable, Visualization } from '../metadataStore';
import { QueryError } from './compile';
import { recordOr } from '../../../common/src/guards';

/** The text of a member, or undefined when it is no non-blank text. */
function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/**
 * The data source `ds` with the formula columns of `formulas` (the TML member, any JSON) after its own; `ds`
 * itself when there are none. The result's `id` is `ds.id` and a digest of the formulas (searchdata keys its
 * caches by it), its `tableId` that of `ds` (a load still invalidates it). A formula's kind is
 * `properties.column_type`, else MEASURE when it aggregates, else ATTRIBUTE; its data type the one its
 * expression gives (`properties.data_type` when the expression's is unknown).
 * @throws QueryError naming the formula and its first error (an unknown column or function, a wrong argument, a loop)
 */
export function withFormulaColumns(ds: LogicalTable, formulas: unknown): LogicalTable {
  if (!Array.isArray(formulas) || formulas.length === 0) return ds;
  // a stored answer's data source and formulas are the same objects on every request: checked once
  let byFormulas = DERIVED.get(ds);
  if (!byFormulas) DERIVED.set(ds, (byFormulas = new WeakMap()));
  const hit = byFormulas.get(formulas);
  if (hit) return hit;
  const derived = derive(ds, formulas);
  byFormulas.set(formulas, derived);
  return derived;
}

/**
 * `withFormulaColumns` once per data source and formulas array (objects the catalog replaces, never
 * changes in place, when an import or a load changes them).
 */
const DERIVED = new WeakMap<LogicalTable, WeakMap<unknown[], LogicalTable>>();

/** `withFormulaColumns` computed. @throws QueryError as it */
function derive(ds: LogicalTable, formulas: unknown[]): LogicalTable {
  const entries = formulas.map((f, i) => {
    const e = recordOr(f);
    const expr = text(e.expr);
    const name = text(e.name) ?? text(e.id);
    if (!expr || !name) throw new QueryError(`formulas[${i}] needs a name (or id) and an expr`);
    return { id: text(e.id), name, expr, properties: recordOr(e.properties) };
  });
  const checked = checkFormulaSet(entries, ds.columns);
  const columns: LogicalColumn[] = entries.map((e, i) => {
    const c = checked[i]!;
    const error = c.diagnostics.find((d) => d.severity === 'error');
    if (error) throw new QueryError(`The formula ${e.name} (${e.expr}): ${error.message}`);
    const dataType = dataTypeOf(c.value.type) ?? (typeof e.properties.data_type === 'string' ? e.properties.data_type : undefined);
    if (!dataType) throw new QueryError(`The formula ${e.name} (${e.expr}): its type is unknown`);
    const kind = e.properties.column_type === 'ATTRIBUTE' || e.properties.column_type === 'MEASURE' ? e.properties.column_type : c.value.aggregate ? 'MEASURE' : 'ATTRIBUTE';
    return {
      id: `formula:${(e.id ?? e.name).toLowerCase()}`,
      name: e.name,
      dataType: dataType as LogicalColumn['dataType'],
      kind,
      aggregation: kind === 'MEASURE' && !c.value.aggregate ? 'SUM' : 'NONE',
      synonyms: e.id && e.id.toLowerCase() !== e.name.toLowerCase() ? [e.id] : [],
      physicalName: '',
      formula: { expr: e.expr, aggregate: c.value.aggregate },
    };
  });
  const digest = createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
  return { ...ds, id: `${ds.id}+${digest}`, columns: [...ds.columns, ...columns] };
}

/**
 * The data source a liveboard visualization's search runs on: `ds` with the visualization's own formulas
 * (`Visualization.formulas`) as columns. @throws QueryError as `withFormulaColumns`
 */
export function visualizationSource(ds: LogicalTable, viz: Pick<Visualization, 'formulas'>): LogicalTable {
  return withFormulaColumns(ds, viz.formulas);
}
